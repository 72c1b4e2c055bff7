//! Which parts of a proving key stay on a device between proofs. A device
//! (or its memory budget) rarely holds a large key whole beside a proof's
//! working memory; each part left in host memory streams through the GPU at
//! every proof instead. The parts kept are those that save the most time per
//! proof within the room: a key is never all-or-nothing.

use std::fmt;

use super::{h_poly::HPlan, resident::{MsmHow, WindowedMsm}};
use crate::groth16::ProvingKey;

/// A part of a proving key that may live on a device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    H,
    L,
    A,
    BG1,
    BG2,
    /// The circuit's recorded matrices (a, b and c evaluated on the device).
    Matrices,
}

impl Part {
    fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// A part, its device bytes, and what keeping it there saves per proof
/// (any unit, the same for every part).
#[derive(Clone, Copy, Debug)]
pub struct Candidate {
    pub part: Part,
    pub bytes: usize,
    pub saves: f64,
}

/// The parts of a key kept on a device.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub struct Residency(u8);

impl Residency {
    /// Exactly `parts`.
    pub fn of(parts: &[Part]) -> Self {
        parts.iter().fold(Self::default(), |r, &p| r.with(p))
    }

    pub fn holds(self, part: Part) -> bool {
        self.0 & part.bit() != 0
    }

    fn with(self, part: Part) -> Self {
        Self(self.0 | part.bit())
    }
}

impl fmt::Debug for Residency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let all = [Part::H, Part::L, Part::A, Part::BG1, Part::BG2, Part::Matrices];
        f.debug_set().entries(all.iter().filter(|&&p| self.holds(p))).finish()
    }
}

/// The set of `candidates` that saves the most per proof while its bytes
/// and the working memory a proof then needs (`reserve`) fit in `room`;
/// among equal savings, the fewest bytes. Every subset is weighed (a key has
/// six parts), so a large part never crowds out two smaller ones worth more.
pub fn choose(candidates: &[Candidate], room: usize, reserve: impl Fn(Residency) -> usize) -> Residency {
    let mut best = (Residency::default(), 0.0, 0usize);
    let mut found = false;
    for subset in 0u32..1 << candidates.len() {
        let (mut kept, mut saves, mut bytes) = (Residency::default(), 0.0, 0usize);
        for (i, c) in candidates.iter().enumerate() {
            if subset & 1 << i != 0 {
                kept = kept.with(c.part);
                saves += c.saves;
                bytes = bytes.saturating_add(c.bytes);
            }
        }
        if bytes.saturating_add(reserve(kept)) > room {
            continue;
        }
        if !found || saves > best.1 || (saves == best.1 && bytes < best.2) {
            best = (kept, saves, bytes);
            found = true;
        }
    }
    best.0
}

/// Device bytes of an affine point and of a bucket of sppark's Pippenger.
const G1_AFFINE: usize = 96;
const G2_AFFINE: usize = 192;
const G1_BUCKET: usize = 4 * 48;
const G2_BUCKET: usize = 4 * 96;
const SCALAR: usize = 32;

/// Device bytes kept free for the runtime and small allocations.
const SLACK: usize = 512 << 20;

fn lg(x: usize) -> usize {
    (usize::BITS - 1 - x.max(1).leading_zeros()) as usize
}

/// The window bits and windows of sppark's Pippenger (msm_t) over `n` points.
fn sppark_windows(n: usize) -> (usize, usize) {
    let npoints = n.next_multiple_of(32);
    let wbits = if npoints > 192 { lg(npoints + npoints / 2).saturating_sub(8).clamp(10, 18) } else { 10 };
    (wbits, 254 / wbits + 1)
}

/// Device bytes of the bucket table sppark's Pippenger allocates for `n`
/// points, resident or streamed.
fn bucket_bytes(n: usize, bucket: usize) -> usize {
    let (wbits, nwins) = sppark_windows(n);
    nwins * (1 << (wbits - 1)) * (bucket + 4)
}

/// Device bytes sppark's Pippenger takes at a call over `n` streamed points
/// of `affine` bytes: two batches of points (one copied while the other is
/// summed), a batch's scalars and its digits.
fn streaming_bytes(n: usize, affine: usize) -> usize {
    if n == 0 {
        return 0;
    }
    let (wbits, nwins) = sppark_windows(n);
    let batch = ((1usize << (lg(n + n / 2).max(wbits) - wbits)) >> 6).max(1);
    let stride = n.div_ceil(batch).next_multiple_of(32);
    stride * (2 * affine + SCALAR + nwins * 4)
}

/// The sizes of a proving key's parts, which decide its placement.
pub struct KeyShape {
    /// Points of each query: H, L, A, B in G1, B in G2.
    points: [(Part, usize); 5],
    /// The recorded matrices' device bytes, rows and witness length, when
    /// the key has them.
    matrices: Option<(usize, usize, usize)>,
}

impl KeyShape {
    pub fn of(pk: &ProvingKey) -> Self {
        let matrices = pk.matrices.get().map(|m| (super::r1cs::DeviceMatrices::bytes_for(m), m.num_constraints(), m.num_inputs + m.num_aux));
        Self {
            points: [(Part::H, pk.h.len()), (Part::L, pk.l.len()), (Part::A, pk.a.len()), (Part::BG1, pk.b_g1.len()), (Part::BG2, pk.b_g2.len())],
            matrices,
        }
    }

    /// A point's and a bucket's bytes in the query of `part`.
    fn sizes(part: Part) -> (usize, usize) {
        if part == Part::BG2 { (G2_AFFINE, G2_BUCKET) } else { (G1_AFFINE, G1_BUCKET) }
    }

    fn affine(part: Part) -> usize {
        Self::sizes(part).0
    }

    /// Device bytes the key holds whatever its placement: every query's
    /// bucket table.
    pub fn fixed_bytes(&self) -> usize {
        self.points.iter().map(|&(p, n)| bucket_bytes(n, Self::sizes(p).1)).sum()
    }

    /// The parts that may stay on the device, their bytes and what each
    /// saves per proof, in G1 Pippenger terms (the measured step times over
    /// their terms, docs/BENCHMARKS.md): a streamed L, A or B query runs
    /// Pippenger over every scalar where a resident one splits off a
    /// witness's zeros and units (a G2 term costing about three G1 terms),
    /// and below the split's size only its copies are saved; a resident H
    /// runs the windowed MSM, about 0.7x sppark's, the copies hiding under
    /// the MSM either way; the matrices spare a, b and c's evaluation on the
    /// CPU and their three vectors' copies.
    pub fn candidates(&self) -> Vec<Candidate> {
        let mut all: Vec<Candidate> = self
            .points
            .iter()
            .map(|&(part, n)| {
                let per_point = match part {
                    Part::H if n >= WindowedMsm::MIN_TERMS => 0.3,
                    Part::BG2 if n >= MsmHow::MIN_AUTO_SPLIT => 3.0,
                    Part::BG2 => 0.5,
                    Part::L | Part::A | Part::BG1 if n >= MsmHow::MIN_AUTO_SPLIT => 1.0,
                    _ => 0.25,
                };
                Candidate { part, bytes: n * Self::affine(part), saves: n as f64 * per_point }
            })
            .collect();
        if let Some((bytes, rows, _)) = self.matrices {
            all.push(Candidate { part: Part::Matrices, bytes, saves: rows as f64 * 1.5 });
        }
        all
    }

    /// Device bytes one proof takes beside the key placed as `kept`: the
    /// witness where the matrices keep it on the device, and the larger of
    /// H's two NTT vectors and an MSM's (its scalars, and sppark's batches
    /// where its points stream).
    pub fn reserve(&self, kept: Residency) -> usize {
        let domain = (self.points[0].1 + 1).next_power_of_two();
        let witness = match self.matrices {
            Some((_, _, num_z)) if kept.holds(Part::Matrices) => num_z * SCALAR,
            _ => 0,
        };
        let longest = self.points.iter().map(|&(_, n)| n).max().unwrap_or(0);
        let streamed = self.points.iter().filter(|&&(p, _)| !kept.holds(p)).map(|&(p, n)| streaming_bytes(n, Self::affine(p))).max().unwrap_or(0);
        witness + HPlan::TwoVectors.device_bytes(domain).max(longest * SCALAR + streamed) + SLACK
    }

    /// The parts to keep on a device with `room` bytes for the key and one
    /// proof beside it (nothing when not even a streamed key fits).
    pub fn plan(&self, room: usize) -> Residency {
        choose(&self.candidates(), room.saturating_sub(self.fixed_bytes()), |kept| self.reserve(kept))
    }

    /// Bytes a device needs for the key placed as `kept` and one proof.
    pub fn room_for(&self, kept: Residency) -> usize {
        let parts: usize = self.candidates().iter().filter(|c| kept.holds(c.part)).map(|c| c.bytes).sum();
        self.fixed_bytes() + parts + self.reserve(kept)
    }

    /// Every part of the key, as far as it has them.
    pub fn whole(&self) -> Residency {
        self.candidates().iter().fold(Residency::default(), |r, c| r.with(c.part))
    }

    /// Device bytes the key's queries take placed as `kept`: its buckets
    /// and resident points (its matrices are counted apart, once uploaded).
    pub fn kept_bytes(&self, kept: Residency) -> usize {
        self.fixed_bytes() + self.candidates().iter().filter(|c| kept.holds(c.part) && c.part != Part::Matrices).map(|c| c.bytes).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GB: usize = 1 << 30;

    fn c(part: Part, gb: usize, saves: f64) -> Candidate {
        Candidate { part, bytes: gb * GB, saves }
    }

    #[test]
    fn everything_fits_in_a_large_room_and_nothing_in_one_below_the_reserve() {
        let parts = [c(Part::H, 12, 1.0), c(Part::L, 12, 3.0), c(Part::Matrices, 7, 4.0)];
        let all = choose(&parts, 100 * GB, |_| 10 * GB);
        assert!([Part::H, Part::L, Part::Matrices].iter().all(|&p| all.holds(p)), "{all:?}");
        assert_eq!(choose(&parts, 9 * GB, |_| 10 * GB), Residency::default());
    }

    #[test]
    fn the_most_saving_set_wins_over_the_single_most_valuable_part() {
        // 20 GB of room: H (worth 5) alone, or L and A (worth 3 each) together.
        let parts = [c(Part::H, 20, 5.0), c(Part::L, 10, 3.0), c(Part::A, 10, 3.0)];
        let kept = choose(&parts, 20 * GB, |_| 0);
        assert!(kept.holds(Part::L) && kept.holds(Part::A) && !kept.holds(Part::H), "{kept:?}");
    }

    #[test]
    fn a_part_that_grows_the_reserve_is_kept_only_where_both_fit() {
        // The matrices keep the witness on the device: 4 GB more at every proof.
        let reserve = |r: Residency| if r.holds(Part::Matrices) { 14 * GB } else { 10 * GB };
        let parts = [c(Part::Matrices, 7, 10.0), c(Part::BG2, 6, 3.0), c(Part::BG1, 3, 1.0)];
        let tight = choose(&parts, 20 * GB, reserve);
        assert!(!tight.holds(Part::Matrices) && tight.holds(Part::BG2) && tight.holds(Part::BG1), "{tight:?}");
        let roomy = choose(&parts, 21 * GB, reserve);
        assert!(roomy.holds(Part::Matrices) && !roomy.holds(Part::BG2), "{roomy:?}");
    }

    /// The shape of a 32 GiB PoRep key (docs/BENCHMARKS.md: 130.2M aux,
    /// 33.1M B terms, 7.0 GiB of matrices).
    fn porep_32gib() -> KeyShape {
        let (aux, b) = (130_200_000, 33_100_000);
        KeyShape {
            points: [(Part::H, (1 << 27) - 1), (Part::L, aux), (Part::A, aux), (Part::BG1, b), (Part::BG2, b)],
            matrices: Some((7 * GB, 130_278_869, aux + 10)),
        }
    }

    #[test]
    fn a_32gib_key_is_whole_on_80_gb_streams_on_small_cards_and_parts_between() {
        let key = porep_32gib();
        assert_eq!(key.plan(78 * GB), key.whole(), "an H100 holds it all");
        assert_eq!(key.plan(10 * GB), Residency::default(), "a 10 GiB card streams every part");
        let mid = key.plan(40 * GB);
        assert!(mid != key.whole() && mid != Residency::default(), "{mid:?}");
        assert!(mid.holds(Part::Matrices) && mid.holds(Part::BG2), "the parts worth most per byte first: {mid:?}");
        for room in [10, 14, 22, 24, 32, 40, 48, 64, 80].map(|g| g * GB) {
            let kept = key.plan(room);
            eprintln!("{} GiB: {kept:?}, {} GiB with a proof", room / GB, key.room_for(kept) / GB);
            let streams = key.room_for(Residency::default()) <= room;
            assert!(!streams || key.room_for(kept) <= room, "{kept:?} does not fit in {room}");
            assert!(key.kept_bytes(kept) <= key.room_for(kept));
        }
    }

    #[test]
    fn streaming_takes_two_batches_of_points_and_the_buckets_are_always_there() {
        // sppark streams 2^27 points in 8 batches of 2^24.
        assert_eq!(streaming_bytes(1 << 27, G1_AFFINE), (1 << 24) * (2 * 96 + 32 + 15 * 4));
        assert_eq!(streaming_bytes(0, G1_AFFINE), 0);
        let key = porep_32gib();
        assert_eq!(key.kept_bytes(Residency::default()), key.fixed_bytes());
        assert!(key.fixed_bytes() > GB && key.fixed_bytes() < 3 * GB, "{}", key.fixed_bytes());
    }

    #[test]
    fn equal_savings_take_the_fewest_bytes() {
        let parts = [c(Part::L, 10, 2.0), c(Part::A, 4, 2.0)];
        let kept = choose(&parts, 12 * GB, |_| 0);
        assert!(kept.holds(Part::A) && !kept.holds(Part::L), "{kept:?}");
        assert_eq!(format!("{kept:?}"), "{A}");
    }
}

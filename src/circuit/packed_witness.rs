//! A witness packed for its trip to a device. Most of a PoRep witness is
//! bits (SHA-256's), so each value of z = inputs ++ aux goes as its class,
//! zero, one or other, in two bitmaps, and only the others' values go
//! whole: a few percent of the bytes, so the copy that opens a proof's H
//! step, the device idle meanwhile, is short. The device rebuilds z from
//! them (cuda/r1cs.cuh's unpack_witness).

use blstrs::Scalar as Fr;
use ff::Field;

use super::Witness;

/// Values per bitmap word.
const WORD: usize = 32;

/// One value in this many is classified first, to tell whether packing pays.
const SAMPLE_STRIDE: usize = 997;

/// Packing pays while at most this share of the values is neither zero nor
/// one (then the packed bytes are at most about a quarter of the whole).
const MAX_OTHER_SHARE: f64 = 0.25;

/// z's classes and its other values. Built only by `pack`, so its parts
/// agree: word i of `others_before` counts the others in words before i,
/// and `values` holds them all, in order.
pub struct PackedWitness {
    len: usize,
    /// Bit j of word i: value 32 i + j is one.
    ones: Vec<u32>,
    /// Bit j of word i: value 32 i + j is neither zero nor one.
    others: Vec<u32>,
    others_before: Vec<u32>,
    values: Vec<Fr>,
}

/// Threads that pack one witness: one thread's pass runs at its core's
/// memory bandwidth, a fraction of the host's.
const THREADS: usize = 4;

/// Bitmap words below which a part of the witness is not worth a thread.
const MIN_PART_WORDS: usize = 1 << 10;

/// An empty vector with room for `n`, if the host has it.
fn room<T>(n: usize) -> Option<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).ok()?;
    Some(v)
}

/// `n` zero words, if the host has room for them.
fn zeros(n: usize) -> Option<Vec<u32>> {
    let mut v = room(n)?;
    v.resize(n, 0);
    Some(v)
}

/// Value `i` of z = inputs ++ aux.
fn value(w: &Witness, i: usize) -> &Fr {
    w.inputs.get(i).unwrap_or_else(|| &w.aux[i - w.inputs.len()])
}

/// The ones and others bitmaps of at most `WORD` values, without a branch
/// per value (a witness's bits are as good as random).
fn classify(values: &[Fr]) -> (u32, u32) {
    let (mut ones, mut others) = (0u32, 0u32);
    for (bit, v) in values.iter().enumerate() {
        let (one, zero) = (*v == Fr::ONE, *v == Fr::ZERO);
        ones |= u32::from(one) << bit;
        others |= u32::from(!one & !zero) << bit;
    }
    (ones, others)
}

/// Words `first..first + ones.len()` of `w`'s bitmaps, `before` counting
/// the others from the part's start; its other values, in order, in a
/// vector that starts with room for `expected` (`None`: no room left).
fn pack_part(w: &Witness, first: usize, ones: &mut [u32], others: &mut [u32], before: &mut [u32], expected: usize) -> Option<Vec<Fr>> {
    let len = w.inputs.len() + w.aux.len();
    let mut values = room(expected)?;
    for (k, ((ones, others), before)) in ones.iter_mut().zip(others.iter_mut()).zip(before.iter_mut()).enumerate() {
        let at = (first + k) * WORD..len.min((first + k + 1) * WORD);
        (*ones, *others) = match at.start.checked_sub(w.inputs.len()) {
            Some(from) => classify(&w.aux[from..at.end - w.inputs.len()]),
            None => classify(&at.clone().map(|i| *value(w, i)).collect::<Vec<_>>()),
        };
        // Fewer than 2^32 values in all (`pack` checks).
        *before = values.len() as u32;
        // Others are few: their values are picked by their bits.
        let mut rest = *others;
        while rest != 0 {
            if values.len() == values.capacity() {
                // More others than the sample showed: room doubled.
                values.try_reserve(values.len().max(WORD)).ok()?;
            }
            values.push(*value(w, at.start + rest.trailing_zeros() as usize));
            rest &= rest - 1;
        }
    }
    Some(values)
}

impl PackedWitness {
    /// `w` packed, or `None` where too many of its values are neither zero
    /// nor one for packing to pay (a Poseidon witness), where it has 2^32
    /// values or more, or where host memory has no room for the packing (the
    /// witness then goes whole). A few threads of its own pack a large
    /// witness, in parts: the engine packs on a synthesis worker, where a
    /// join in the synthesis pool could wait behind other partitions'
    /// pieces.
    pub fn pack(w: &Witness) -> Option<Self> {
        let len = w.inputs.len() + w.aux.len();
        let is_other = |v: &Fr| *v != Fr::ZERO && *v != Fr::ONE;
        let sampled = len.div_ceil(SAMPLE_STRIDE);
        let others = (0..len).step_by(SAMPLE_STRIDE).filter(|&i| is_other(value(w, i))).count();
        if len == 0 || u32::try_from(len).is_err() || others as f64 > MAX_OTHER_SHARE * sampled as f64 {
            return None;
        }
        let words = len.div_ceil(WORD);
        let (mut ones, mut other_bits, mut others_before) = (zeros(words)?, zeros(words)?, zeros(words)?);
        let per = words.div_ceil(THREADS.min(words.div_ceil(MIN_PART_WORDS)));
        let expected = ((others + 1) * SAMPLE_STRIDE).div_ceil(words.div_ceil(per));
        let parts: Vec<Vec<Fr>> = std::thread::scope(|s| {
            let parts = ones.chunks_mut(per).zip(other_bits.chunks_mut(per)).zip(others_before.chunks_mut(per));
            let spawned: Vec<_> = parts
                .enumerate()
                .map(|(k, ((ones, others), before))| {
                    std::thread::Builder::new()
                        .name("cuzk-pack".into())
                        .spawn_scoped(s, move || pack_part(w, k * per, ones, others, before, expected))
                })
                .collect();
            spawned.into_iter().map(|part| part.ok()?.join().ok()?).collect::<Option<_>>()
        })?;
        // Each part counted its others from its own start.
        let mut values = room(parts.iter().map(Vec::len).sum())?;
        for (part, before) in parts.iter().zip(others_before.chunks_mut(per)) {
            // At most `len` < 2^32 in all.
            let offset = values.len() as u32;
            before.iter_mut().for_each(|b| *b += offset);
            values.extend_from_slice(part);
        }
        Some(Self { len, ones, others: other_bits, others_before, values })
    }

    /// Values of z.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bitmap words: ones, others and the others before each word.
    pub fn words(&self) -> (&[u32], &[u32], &[u32]) {
        (&self.ones, &self.others, &self.others_before)
    }

    /// The values neither zero nor one, in z's order.
    pub fn values(&self) -> &[Fr] {
        &self.values
    }

    /// Bytes the packed witness takes.
    pub fn bytes(&self) -> usize {
        3 * self.ones.len() * std::mem::size_of::<u32>() + self.values.len() * std::mem::size_of::<Fr>()
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    use super::*;

    /// z rebuilt from its classes, as the device does.
    fn unpack(p: &PackedWitness) -> Vec<Fr> {
        let (ones, others, before) = p.words();
        (0..p.len())
            .map(|i| {
                let (word, bit) = (i / WORD, 1u32 << (i % WORD));
                if others[word] & bit != 0 {
                    p.values()[(before[word] + (others[word] & (bit - 1)).count_ones()) as usize]
                } else if ones[word] & bit != 0 {
                    Fr::ONE
                } else {
                    Fr::ZERO
                }
            })
            .collect()
    }

    /// A witness of `inputs` and `aux` values, one in `other_every`
    /// random, the rest bits, the first one.
    fn witness(inputs: usize, aux: usize, other_every: usize, seed: u64) -> Witness {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut value = |i: usize| match i % other_every {
            k if k == other_every - 1 => Fr::random(&mut rng),
            k if k % 3 == 0 => Fr::ONE,
            _ => Fr::ZERO,
        };
        Witness { inputs: (0..inputs).map(&mut value).collect(), aux: (inputs..inputs + aux).map(&mut value).collect() }
    }

    /// Packed and rebuilt, a witness of bits and a few others is itself, at
    /// every length around a word, the inputs' end anywhere.
    #[test]
    fn a_packed_witness_rebuilds_its_values() {
        for (inputs, aux) in [(1, 0), (1, 31), (3, 29), (1, 32), (5, 100), (33, 65_519), (40, 100_000)] {
            let w = witness(inputs, aux, 50, (inputs * 1000 + aux) as u64);
            let p = PackedWitness::pack(&w).expect("a witness of bits packs");
            let z: Vec<Fr> = w.inputs.iter().chain(&w.aux).copied().collect();
            assert_eq!(p.len(), z.len());
            assert_eq!(unpack(&p), z, "{inputs} inputs, {aux} aux");
            assert_eq!(p.values().len(), z.iter().filter(|v| !bool::from(v.is_zero()) && **v != Fr::ONE).count());
            if z.len() > 1000 {
                assert!(p.bytes() * 10 < z.len() * 32, "{} bytes packed for {} values", p.bytes(), z.len());
            }
        }
    }

    /// Others the sample misses (between its points) still all go in.
    #[test]
    fn others_beyond_the_samples_estimate_are_packed() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let aux: Vec<Fr> = (0..200_000).map(|i| if (1..=100).contains(&(i % SAMPLE_STRIDE)) { Fr::random(&mut rng) } else { Fr::ONE }).collect();
        let w = Witness { inputs: vec![Fr::ONE], aux };
        let p = PackedWitness::pack(&w).expect("a tenth other: packed");
        assert!(p.values().len() > 10 * SAMPLE_STRIDE, "{} others", p.values().len());
        let z: Vec<Fr> = w.inputs.iter().chain(&w.aux).copied().collect();
        assert_eq!(unpack(&p), z);
    }

    /// Packed by several threads, each part's count of others joins up with
    /// the parts' before it, also across parts without others: others in
    /// the first and the last part only, or in the last only.
    #[test]
    fn a_witness_packed_in_parts_rebuilds_its_values() {
        let n = THREADS * MIN_PART_WORDS * WORD + 77;
        for first_too in [true, false] {
            let other = |i: usize| i % 7 == 0 && (i >= n - n / 8 || (first_too && i < n / 8));
            let w = Witness { inputs: vec![Fr::ONE], aux: (1..n).map(|i| if other(i) { Fr::from(i as u64 + 2) } else { Fr::from((i % 2) as u64) }).collect() };
            let p = PackedWitness::pack(&w).expect("bits and a few others pack");
            let z: Vec<Fr> = w.inputs.iter().chain(&w.aux).copied().collect();
            assert_eq!(unpack(&p), z, "others in the first part too: {first_too}");
        }
    }

    /// A witness mostly of other values (Poseidon's), or none, is not packed.
    #[test]
    fn a_witness_of_few_bits_is_not_packed() {
        assert!(PackedWitness::pack(&witness(1, 100_000, 2, 1)).is_none(), "half of the values random");
        assert!(PackedWitness::pack(&Witness::default()).is_none());
        assert!(PackedWitness::pack(&witness(1, 100_000, 8, 2)).is_some(), "an eighth random");
    }
}


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

/// An empty vector with room for `n`, if the host has it.
fn room<T>(n: usize) -> Option<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).ok()?;
    Some(v)
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

impl PackedWitness {
    /// `w` packed, or `None` where too many of its values are neither zero
    /// nor one for packing to pay (a Poseidon witness), where it has 2^32
    /// values or more, or where host memory has no room for the packing (the
    /// witness then goes whole). On the calling thread, one pass over the
    /// witness: the engine packs on a synthesis worker's own thread, where a
    /// join in the synthesis pool could wait behind other partitions' pieces.
    pub fn pack(w: &Witness) -> Option<Self> {
        let len = w.inputs.len() + w.aux.len();
        let value = |i: usize| w.inputs.get(i).unwrap_or_else(|| &w.aux[i - w.inputs.len()]);
        let is_other = |v: &Fr| *v != Fr::ZERO && *v != Fr::ONE;
        let sampled = len.div_ceil(SAMPLE_STRIDE);
        let others = (0..len).step_by(SAMPLE_STRIDE).filter(|&i| is_other(value(i))).count();
        if len == 0 || u32::try_from(len).is_err() || others as f64 > MAX_OTHER_SHARE * sampled as f64 {
            return None;
        }
        let words = len.div_ceil(WORD);
        let mut packed = Self {
            len,
            ones: room(words)?,
            others: room(words)?,
            others_before: room(words)?,
            values: room((others + 1) * SAMPLE_STRIDE)?,
        };
        let mut before = 0u32;
        for word in 0..words {
            let at = word * WORD..len.min((word + 1) * WORD);
            let (ones, others) = match at.start.checked_sub(w.inputs.len()) {
                Some(from) => classify(&w.aux[from..at.end - w.inputs.len()]),
                None => classify(&at.clone().map(|i| *value(i)).collect::<Vec<_>>()),
            };
            // Others are few: their values are picked by their bits.
            let mut rest = others;
            while rest != 0 {
                if packed.values.len() == packed.values.capacity() {
                    // More others than the sample showed: room doubled.
                    packed.values.try_reserve(packed.values.len().max(WORD)).ok()?;
                }
                packed.values.push(*value(at.start + rest.trailing_zeros() as usize));
                rest &= rest - 1;
            }
            packed.ones.push(ones);
            packed.others.push(others);
            packed.others_before.push(before);
            // At most `len` < 2^32 in all.
            before += others.count_ones();
        }
        Some(packed)
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

    /// A witness mostly of other values (Poseidon's), or none, is not packed.
    #[test]
    fn a_witness_of_few_bits_is_not_packed() {
        assert!(PackedWitness::pack(&witness(1, 100_000, 2, 1)).is_none(), "half of the values random");
        assert!(PackedWitness::pack(&Witness::default()).is_none());
        assert!(PackedWitness::pack(&witness(1, 100_000, 8, 2)).is_some(), "an eighth random");
    }
}


//! SHA-256 over circuit bits, as bellperson's gadget
//! (`bellperson::gadgets::sha256::sha256`) synthesizes it, with a fast path
//! for witness generation. The gadget builds a linear combination for every
//! 32-bit addition even when the system never asks for it, and that
//! dominates a PoRep partition's witness; here a witness generator gets the
//! same variables, in the same order and with the same values, from plain
//! bit arithmetic. Which bits the gadget allocates depends only on which of
//! its operands are constants or negations, never on their values, and the
//! fast path follows each of its branches (`Boolean::xor`, `Boolean::and`,
//! `Boolean::sha256_ch`, `Boolean::sha256_maj`, `UInt32::addmany`). Any
//! other system gets the gadget itself.

use bellperson::{
    gadgets::boolean::{AllocatedBit, Boolean},
    ConstraintSystem, SynthesisError,
};
use blstrs::Scalar as Fr;
use ff::Field;

/// SHA-256 of `input` (a whole number of bytes, most significant bit
/// first), its 256 bits most significant first.
pub fn sha256<CS: ConstraintSystem<Fr>>(mut cs: CS, input: &[Boolean]) -> Result<Vec<Boolean>, SynthesisError> {
    if !cs.is_witness_generator() {
        return bellperson::gadgets::sha256::sha256(cs, input);
    }
    assert!(input.len().is_multiple_of(8), "SHA-256 of a whole number of bytes");
    let mut padded = input.iter().map(Bit::of).collect::<Result<Vec<_>, _>>()?;
    let length = padded.len() as u64;
    padded.push(Bit::Const(true));
    while !(padded.len() + 64).is_multiple_of(512) {
        padded.push(Bit::Const(false));
    }
    padded.extend((0..64).rev().map(|i| Bit::Const((length >> i) & 1 == 1)));

    let mut sink = Sink { cs: &mut cs };
    let blocks = padded.len() / 512;
    let mut state = IV.map(Word::constant).to_vec();
    let mut out = Vec::with_capacity(256);
    for (i, block) in padded.chunks(512).enumerate() {
        let last = i + 1 == blocks;
        state = compress(&mut sink, block, &state, if last { Some(&mut out) } else { None })?;
    }
    Ok(out)
}

const ROUND_CONSTANTS: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
    0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
    0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
    0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2,
];

const IV: [u32; 8] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

/// A circuit bit as a `Boolean` is one, with its value: a constant, an
/// allocated bit, or an allocated bit's negation (the values are the
/// allocated bits' own).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bit {
    Const(bool),
    Is(bool),
    Not(bool),
}

impl Bit {
    fn of(b: &Boolean) -> Result<Self, SynthesisError> {
        let value = |v: Option<bool>| v.ok_or(SynthesisError::AssignmentMissing);
        Ok(match b {
            Boolean::Constant(c) => Bit::Const(*c),
            Boolean::Is(v) => Bit::Is(value(v.get_value())?),
            Boolean::Not(v) => Bit::Not(value(v.get_value())?),
        })
    }

    fn value(self) -> bool {
        match self {
            Bit::Const(v) | Bit::Is(v) => v,
            Bit::Not(v) => !v,
        }
    }

    fn not(self) -> Self {
        match self {
            Bit::Const(v) => Bit::Const(!v),
            Bit::Is(v) => Bit::Not(v),
            Bit::Not(v) => Bit::Is(v),
        }
    }
}

/// Where the fast path's allocations go: the system, as plain variables.
struct Sink<'a, CS> {
    cs: &'a mut CS,
}

impl<CS: ConstraintSystem<Fr>> Sink<'_, CS> {
    fn alloc(&mut self, v: bool) -> Result<Bit, SynthesisError> {
        self.cs.alloc(|| "bit", || Ok(if v { Fr::ONE } else { Fr::ZERO }))?;
        Ok(Bit::Is(v))
    }

    /// `Boolean::xor`.
    fn xor(&mut self, a: Bit, b: Bit) -> Result<Bit, SynthesisError> {
        use Bit::*;
        Ok(match (a, b) {
            (Const(false), x) | (x, Const(false)) => x,
            (Const(true), x) | (x, Const(true)) => x.not(),
            // The allocated bit is the xor of the two allocated ones.
            (Is(x), Not(y)) | (Not(y), Is(x)) => self.alloc(x ^ y)?.not(),
            (Is(x), Is(y)) | (Not(x), Not(y)) => self.alloc(x ^ y)?,
        })
    }

    /// `Boolean::and`: one allocation unless a constant decides.
    fn and(&mut self, a: Bit, b: Bit) -> Result<Bit, SynthesisError> {
        use Bit::*;
        Ok(match (a, b) {
            (Const(false), _) | (_, Const(false)) => Const(false),
            (Const(true), x) | (x, Const(true)) => x,
            _ => self.alloc(a.value() & b.value())?,
        })
    }

    /// `Boolean::sha256_ch`, its branches in its order.
    fn ch(&mut self, a: Bit, b: Bit, c: Bit) -> Result<Bit, SynthesisError> {
        use Bit::*;
        let value = (a.value() & b.value()) ^ (!a.value() & c.value());
        Ok(match (a, b, c) {
            (Const(_), Const(_), Const(_)) => Const(value),
            (Const(false), _, c) => c,
            (a, Const(false), c) => self.and(a.not(), c)?,
            (a, b, Const(false)) => self.and(a, b)?,
            (a, b, Const(true)) => self.and(a, b.not())?.not(),
            (a, Const(true), c) => self.and(a.not(), c.not())?.not(),
            _ => self.alloc(value)?,
        })
    }

    /// `Boolean::sha256_maj`, its branches in its order; the general case
    /// allocates the majority, then `b and c`.
    fn maj(&mut self, a: Bit, b: Bit, c: Bit) -> Result<Bit, SynthesisError> {
        use Bit::*;
        let value = (a.value() & b.value()) ^ (a.value() & c.value()) ^ (b.value() & c.value());
        Ok(match (a, b, c) {
            (Const(_), Const(_), Const(_)) => Const(value),
            (Const(false), b, c) => self.and(b, c)?,
            (a, Const(false), c) => self.and(a, c)?,
            (a, b, Const(false)) => self.and(a, b)?,
            (a, b, Const(true)) => self.and(a.not(), b.not())?.not(),
            (a, Const(true), c) => self.and(a.not(), c.not())?.not(),
            (Const(true), b, c) => self.and(b.not(), c.not())?.not(),
            _ => {
                let maj = self.alloc(value)?;
                self.and(b, c)?;
                maj
            }
        })
    }

    fn xor_words(&mut self, a: &Word, b: &Word) -> Result<Word, SynthesisError> {
        let mut out = *a;
        for (o, (&x, &y)) in out.0.iter_mut().zip(a.0.iter().zip(&b.0)) {
            *o = self.xor(x, y)?;
        }
        Ok(out)
    }

    fn triop(&mut self, a: &Word, b: &Word, c: &Word, f: fn(&mut Self, Bit, Bit, Bit) -> Result<Bit, SynthesisError>) -> Result<Word, SynthesisError> {
        let mut out = *a;
        for i in 0..32 {
            out.0[i] = f(self, a.0[i], b.0[i], c.0[i])?;
        }
        Ok(out)
    }

    /// `UInt32::addmany`: a constant sum of constants, else the sum's bits
    /// allocated up to the largest sum's width, the low 32 kept. With
    /// `out`, those 32 are allocated as `AllocatedBit`s and pushed there too
    /// (most significant first), for the caller's circuit.
    fn addmany(&mut self, operands: &[Word], out: Option<&mut Vec<Boolean>>) -> Result<Word, SynthesisError> {
        let sum: u64 = operands.iter().map(|w| u64::from(w.value())).sum();
        if operands.iter().all(|w| w.0.iter().all(|b| matches!(b, Bit::Const(_)))) {
            let word = Word::constant(sum as u32);
            if let Some(out) = out {
                out.extend(word.0.iter().rev().map(|b| Boolean::Constant(b.value())));
            }
            return Ok(word);
        }
        let width = 64 - (operands.len() as u64 * u64::from(u32::MAX)).leading_zeros() as usize;
        let mut word = Word([Bit::Const(false); 32]);
        let mut kept = Vec::new();
        for i in 0..width {
            let v = (sum >> i) & 1 == 1;
            if i < 32 {
                word.0[i] = Bit::Is(v);
                if out.is_some() {
                    kept.push(Boolean::Is(AllocatedBit::alloc(&mut *self.cs, Some(v))?));
                    continue;
                }
            }
            self.alloc(v)?;
        }
        if let Some(out) = out {
            out.extend(kept.into_iter().rev());
        }
        Ok(word)
    }
}

/// A 32-bit word's bits, least significant first (as `UInt32` keeps them).
#[derive(Clone, Copy)]
struct Word([Bit; 32]);

impl Word {
    fn constant(v: u32) -> Self {
        Word(std::array::from_fn(|i| Bit::Const((v >> i) & 1 == 1)))
    }

    /// `UInt32::from_bits_be`.
    fn from_bits_be(bits: &[Bit]) -> Self {
        Word(std::array::from_fn(|i| bits[31 - i]))
    }

    fn value(&self) -> u32 {
        self.0.iter().enumerate().fold(0, |v, (i, b)| v | (u32::from(b.value()) << i))
    }

    fn rotr(&self, by: usize) -> Self {
        Word(std::array::from_fn(|i| self.0[(i + by) % 32]))
    }

    fn shr(&self, by: usize) -> Self {
        Word(std::array::from_fn(|i| if i + by < 32 { self.0[i + by] } else { Bit::Const(false) }))
    }
}

/// A round's `a` or `e`: known, or a sum not yet allocated.
enum Maybe {
    Concrete(Word),
    Deferred(Vec<Word>),
}

impl Maybe {
    fn compute<CS: ConstraintSystem<Fr>>(self, sink: &mut Sink<'_, CS>, others: &[Word], out: Option<&mut Vec<Boolean>>) -> Result<Word, SynthesisError> {
        match self {
            Maybe::Concrete(w) => Ok(w),
            Maybe::Deferred(mut v) => {
                v.extend_from_slice(others);
                sink.addmany(&v, out)
            }
        }
    }
}

/// `sha256_compression_function`; with `out`, the new state's bits are
/// also given as the circuit's `Boolean`s there.
fn compress<CS: ConstraintSystem<Fr>>(
    sink: &mut Sink<'_, CS>,
    block: &[Bit],
    current: &[Word],
    mut out: Option<&mut Vec<Boolean>>,
) -> Result<Vec<Word>, SynthesisError> {
    let mut w: Vec<Word> = block.chunks(32).map(Word::from_bits_be).collect();
    for i in 16..64 {
        let s0 = sink.xor_words(&w[i - 15].rotr(7), &w[i - 15].rotr(18))?;
        let s0 = sink.xor_words(&s0, &w[i - 15].shr(3))?;
        let s1 = sink.xor_words(&w[i - 2].rotr(17), &w[i - 2].rotr(19))?;
        let s1 = sink.xor_words(&s1, &w[i - 2].shr(10))?;
        let next = sink.addmany(&[w[i - 16], s0, w[i - 7], s1], None)?;
        w.push(next);
    }

    let mut a = Maybe::Concrete(current[0]);
    let (mut b, mut c, mut d) = (current[1], current[2], current[3]);
    let mut e = Maybe::Concrete(current[4]);
    let (mut f, mut g, mut h) = (current[5], current[6], current[7]);
    for i in 0..64 {
        let new_e = e.compute(sink, &[], None)?;
        let s1 = sink.xor_words(&new_e.rotr(6), &new_e.rotr(11))?;
        let s1 = sink.xor_words(&s1, &new_e.rotr(25))?;
        let ch = sink.triop(&new_e, &f, &g, Sink::ch)?;
        let temp1 = [h, s1, ch, Word::constant(ROUND_CONSTANTS[i]), w[i]];

        let new_a = a.compute(sink, &[], None)?;
        let s0 = sink.xor_words(&new_a.rotr(2), &new_a.rotr(13))?;
        let s0 = sink.xor_words(&s0, &new_a.rotr(22))?;
        let maj = sink.triop(&new_a, &b, &c, Sink::maj)?;

        h = g;
        g = f;
        f = new_e;
        e = Maybe::Deferred(temp1.iter().copied().chain([d]).collect());
        d = c;
        c = b;
        b = new_a;
        a = Maybe::Deferred(temp1.iter().copied().chain([s0, maj]).collect());
    }

    let h0 = a.compute(sink, &[current[0]], out.as_deref_mut())?;
    let h1 = sink.addmany(&[current[1], b], out.as_deref_mut())?;
    let h2 = sink.addmany(&[current[2], c], out.as_deref_mut())?;
    let h3 = sink.addmany(&[current[3], d], out.as_deref_mut())?;
    let h4 = e.compute(sink, &[current[4]], out.as_deref_mut())?;
    let h5 = sink.addmany(&[current[5], f], out.as_deref_mut())?;
    let h6 = sink.addmany(&[current[6], g], out.as_deref_mut())?;
    let h7 = sink.addmany(&[current[7], h], out)?;
    Ok(vec![h0, h1, h2, h3, h4, h5, h6, h7])
}

#[cfg(test)]
mod tests {
    use bellperson::{gadgets::boolean::AllocatedBit, util_cs::test_cs::TestConstraintSystem};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::circuit::Witness;

    /// Input bits of every kind: allocated, negated and constant, in runs
    /// (whole constant words exercise the gadget's shortcuts), allocated
    /// in `cs` as a circuit would.
    fn input<CS: ConstraintSystem<Fr>>(cs: &mut CS, rng: &mut ChaCha8Rng, bytes: usize) -> Vec<Boolean> {
        let mut bits = Vec::new();
        while bits.len() < bytes * 8 {
            let run = rng.gen_range(1..=64).min(bytes * 8 - bits.len());
            let kind = rng.gen_range(0..4);
            for _ in 0..run {
                let v = rng.gen::<bool>();
                let mut cs = cs.namespace(|| format!("input bit {}", bits.len()));
                bits.push(match kind {
                    0 => Boolean::Constant(v),
                    1 => Boolean::from(AllocatedBit::alloc(&mut cs, Some(v)).unwrap()).not(),
                    _ => Boolean::from(AllocatedBit::alloc(&mut cs, Some(v)).unwrap()),
                });
            }
        }
        bits
    }

    fn values(bits: &[Boolean]) -> Vec<Option<bool>> {
        bits.iter().map(Boolean::get_value).collect()
    }

    #[test]
    fn witness_equals_the_gadgets_for_every_kind_of_input() {
        for (seed, bytes) in [(1, 0), (2, 1), (3, 55), (4, 56), (5, 64), (6, 64), (7, 119), (8, 1248)] {
            let (mut fast, mut gadget) = (Witness::default(), Witness::default());
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let bits = input(&mut fast, &mut rng, bytes);
            let out_fast = sha256(&mut fast, &bits).unwrap();
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let bits = input(&mut gadget, &mut rng, bytes);
            let out_gadget = bellperson::gadgets::sha256::sha256(&mut gadget, &bits).unwrap();
            assert_eq!(fast, gadget, "{bytes} bytes: the witnesses differ");
            assert_eq!(values(&out_fast), values(&out_gadget), "{bytes} bytes");
            let vars = |o: &[Boolean]| {
                o.iter()
                    .map(|b| match b {
                        Boolean::Is(v) | Boolean::Not(v) => Some(v.get_variable()),
                        Boolean::Constant(_) => None,
                    })
                    .collect::<Vec<_>>()
            };
            assert_eq!(vars(&out_fast), vars(&out_gadget), "{bytes} bytes: output variables");
        }
    }

    #[test]
    fn all_constant_input_allocates_nothing_and_hashes() {
        let mut cs = Witness::default();
        let bits: Vec<Boolean> = b"abc".iter().flat_map(|byte| (0..8).rev().map(move |i| Boolean::Constant((byte >> i) & 1 == 1))).collect();
        let out = sha256(&mut cs, &bits).unwrap();
        assert!(cs.aux.is_empty());
        let digest: Vec<u8> = out.chunks(8).map(|b| b.iter().fold(0, |v, b| (v << 1) | u8::from(b.get_value().unwrap()))).collect();
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    #[test]
    fn other_systems_get_the_gadget() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let mut cs = TestConstraintSystem::<Fr>::new();
        let bits = input(&mut cs, &mut rng, 64);
        sha256(cs.namespace(|| "sha256"), &bits).unwrap();
        assert!(cs.is_satisfied());
        assert!(cs.num_constraints() > 20_000);
    }
}

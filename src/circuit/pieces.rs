//! Synthesis of one circuit on many threads, for circuits made of a common
//! prefix followed by independent pieces (a PoRep partition: the commitments,
//! then one sub-circuit per challenge, each in a top-level namespace
//! `challenge_<i>`). Bellperson synthesizes such a circuit on one thread; a
//! 32 GiB PoRep partition takes minutes that way.
//!
//! The caller builds one circuit per piece: the same prefix followed by that
//! piece alone. Each is synthesized on its own thread; the prefix ends where
//! the piece's top-level namespace opens. The result is what synthesizing the
//! whole circuit on one thread gives, exactly: constraint values do not depend
//! on variable indices, the pieces' new variables are appended in piece order
//! (as sequential synthesis allocates them), and their density marks on
//! prefix variables are merged. Every piece's prefix is checked equal to the
//! first's, so a circuit that does not have this structure is an error, never
//! a wrong witness.

use anyhow::{anyhow, ensure, Result};
use bellperson::{Circuit, ConstraintSystem, LinearCombination, SynthesisError, Variable};
use blstrs::Scalar as Fr;
use rayon::prelude::*;

use super::witness::{close, open, Synthesized};

/// How much of a system its prefix is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Prefix {
    constraints: usize,
    inputs: usize,
    aux: usize,
}

/// cuzk's system, noting its size when the first top-level namespace whose
/// name starts with `piece` opens.
struct Marking<'a> {
    cs: Synthesized,
    piece: &'a str,
    depth: usize,
    prefix: Option<Prefix>,
}

impl ConstraintSystem<Fr> for Marking<'_> {
    type Root = Self;

    fn alloc<F, A, AR>(&mut self, name: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.cs.alloc(name, f)
    }

    fn alloc_input<F, A, AR>(&mut self, name: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.cs.alloc_input(name, f)
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, name: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LB: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LC: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
    {
        self.cs.enforce(name, a, b, c)
    }

    fn push_namespace<NR, N>(&mut self, name: N)
    where
        NR: Into<String>,
        N: FnOnce() -> NR,
    {
        // Only top-level names are built: a handful per circuit.
        if self.depth == 0 && self.prefix.is_none() && name().into().starts_with(self.piece) {
            let cs = &self.cs;
            self.prefix = Some(Prefix { constraints: cs.a.len(), inputs: cs.inputs.len(), aux: cs.aux.len() });
        }
        self.depth += 1;
    }

    fn pop_namespace(&mut self) {
        self.depth -= 1;
    }

    fn get_root(&mut self) -> &mut Self::Root {
        self
    }
}

fn synthesize_piece<C: Circuit<Fr>>(circuit: C, piece: &str) -> Result<(Synthesized, Prefix)> {
    let mut m = Marking { cs: open()?, piece, depth: 0, prefix: None };
    circuit.synthesize(&mut m)?;
    let prefix = m.prefix.ok_or_else(|| anyhow!("the circuit has no top-level namespace named {piece}*"))?;
    Ok((m.cs, prefix))
}

/// The synthesized circuit whose pieces, each after the common prefix, are
/// `pieces` (in order), each piece starting in a top-level namespace whose
/// name starts with `piece`; pieces are synthesized in parallel on rayon's
/// pool, a pool's worth at a time so that memory stays near one circuit's.
pub fn synthesize_pieces<C: Circuit<Fr> + Send>(mut pieces: Vec<C>, piece: &str) -> Result<Synthesized> {
    ensure!(!pieces.is_empty(), "no pieces to synthesize");
    let total = pieces.len();
    let batch = rayon::current_num_threads().max(1);
    let mut whole: Option<(Synthesized, Prefix)> = None;
    while !pieces.is_empty() {
        let rest = pieces.split_off(batch.min(pieces.len()));
        let mut done: Vec<(Synthesized, Prefix)> =
            std::mem::replace(&mut pieces, rest).into_par_iter().map(|c| synthesize_piece(c, piece)).collect::<Result<_>>()?;
        let (whole, prefix) = match &mut whole {
            Some(w) => w,
            None => {
                let (mut first, prefix) = done.remove(0);
                reserve_for(&mut first, prefix, total);
                whole.insert((first, prefix))
            }
        };
        append_pieces(whole, *prefix, done)?;
    }
    let (mut cs, _) = whole.expect("at least one piece");
    close(&mut cs);
    Ok(cs)
}

/// Room for `total` pieces the size of the one in `cs`, so appending does not
/// reallocate (and briefly double) vectors of gigabytes.
fn reserve_for(cs: &mut Synthesized, prefix: Prefix, total: usize) {
    let more = total - 1;
    let constraints = (cs.a.len() - prefix.constraints) * more;
    cs.a.reserve_exact(constraints);
    cs.b.reserve_exact(constraints);
    cs.c.reserve_exact(constraints);
    cs.aux.reserve_exact((cs.aux.len() - prefix.aux) * more);
}

/// Appends what each of `pieces` adds after its prefix, which must equal
/// `whole`'s, dropping each piece once it is in: the partition and the
/// pieces not yet appended never hold its memory twice (with a pool of 16
/// threads, 16 pieces of a 32 GiB partition are ~14 GB). A piece's copy runs
/// on every thread of the pool: those are the first writes to gigabytes of
/// fresh memory, whose page faults cost more than the copy itself (on VMs
/// whose memory the host backs on first touch, most of the synthesis when
/// done on one thread).
fn append_pieces(whole: &mut Synthesized, prefix: Prefix, pieces: Vec<(Synthesized, Prefix)>) -> Result<()> {
    let p = prefix;
    for (piece, piece_prefix) in &pieces {
        ensure!(
            *piece_prefix == p
                && piece.a[..p.constraints] == whole.a[..p.constraints]
                && piece.b[..p.constraints] == whole.b[..p.constraints]
                && piece.c[..p.constraints] == whole.c[..p.constraints]
                && piece.inputs[..p.inputs] == whole.inputs[..p.inputs]
                && piece.aux[..p.aux] == whole.aux[..p.aux],
            "the pieces of the circuit do not share one prefix: it cannot be synthesized in pieces"
        );
    }
    for (piece, _) in pieces {
        extend_in_parallel(&mut whole.a, &piece.a[p.constraints..]);
        extend_in_parallel(&mut whole.b, &piece.b[p.constraints..]);
        extend_in_parallel(&mut whole.c, &piece.c[p.constraints..]);
        extend_in_parallel(&mut whole.aux, &piece.aux[p.aux..]);
        whole.inputs.extend_from_slice(&piece.inputs[p.inputs..]);
        whole.a_aux_density.merge_prefix(&piece.a_aux_density, p.aux);
        whole.a_aux_density.append(&piece.a_aux_density, p.aux);
        whole.b_aux_density.merge_prefix(&piece.b_aux_density, p.aux);
        whole.b_aux_density.append(&piece.b_aux_density, p.aux);
        whole.b_input_density.merge_prefix(&piece.b_input_density, p.inputs);
        whole.b_input_density.append(&piece.b_input_density, p.inputs);
    }
    Ok(())
}

/// Elements copied per task of a parallel copy (32 MiB of scalars).
const COPY_CHUNK: usize = 1 << 20;

/// `dst.extend_from_slice(part)`, copied in chunks on rayon's pool.
fn extend_in_parallel(dst: &mut Vec<Fr>, part: &[Fr]) {
    dst.reserve(part.len());
    let spare = &mut dst.spare_capacity_mut()[..part.len()];
    spare.par_chunks_mut(COPY_CHUNK).zip(part.par_chunks(COPY_CHUNK)).for_each(|(to, from)| {
        for (t, f) in to.iter_mut().zip(from) {
            t.write(*f);
        }
    });
    // SAFETY: the `part.len()` elements past the length were all written just
    // above (the chunks of `spare` and `part` pair up exactly).
    unsafe { dst.set_len(dst.len() + part.len()) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::circuit::synthesize;
    use bellperson::gadgets::num::AllocatedNum;

    /// A prefix (a shared input and an aux variable), then one piece per
    /// entry of `pieces` in namespace `piece_<i>`: each uses the prefix's
    /// variables in A and B, allocates its own input and aux, and chains
    /// `links` multiplications.
    struct Shared {
        pieces: Vec<(usize, u64)>,
    }

    impl Circuit<Fr> for Shared {
        fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
            let x = AllocatedNum::alloc(cs.namespace(|| "x"), || Ok(Fr::from(3u64)))?;
            x.inputize(cs.namespace(|| "x input"))?;
            let y = x.square(cs.namespace(|| "y"))?;
            for (i, (links, seed)) in self.pieces.into_iter().enumerate() {
                let mut cs = cs.namespace(|| format!("piece_{i}"));
                let own = AllocatedNum::alloc(cs.namespace(|| "own"), || Ok(Fr::from(seed)))?;
                own.inputize(cs.namespace(|| "own input"))?;
                let mut acc = own.mul(cs.namespace(|| "uses y"), &y)?;
                for k in 0..links {
                    acc = acc.mul(cs.namespace(|| format!("link {k}")), if k % 2 == 0 { &x } else { &own })?;
                }
                let _ = acc.square(cs.namespace(|| "end"))?;
            }
            Ok(())
        }
    }

    #[test]
    fn pieces_synthesized_apart_equal_the_whole_synthesized_at_once() {
        let spec = vec![(3, 5), (0, 6), (70, 7), (1, 8), (129, 9)];
        let whole = synthesize(Shared { pieces: spec.clone() }).unwrap();
        let pieces = spec.iter().map(|&p| Shared { pieces: vec![p] }).collect();
        let joined = synthesize_pieces(pieces, "piece_").unwrap();
        assert_eq!(joined, whole);
        assert_eq!(joined.inputs.len(), 1 + 1 + spec.len());
    }

    #[test]
    fn parallel_extends_append_every_part_in_order() {
        let part = |len: usize, seed: u64| (0..len as u64).map(|i| Fr::from(i * 7 + seed)).collect::<Vec<_>>();
        let parts = [part(3, 1), part(0, 2), part(COPY_CHUNK * 2 + 5, 3), part(COPY_CHUNK, 4), part(1, 5)];
        let mut ours = part(4, 9);
        let mut expected = ours.clone();
        for p in &parts {
            extend_in_parallel(&mut ours, p);
            expected.extend_from_slice(p);
        }
        assert!(ours == expected);
    }

    #[test]
    fn pieces_that_do_not_share_their_prefix_are_an_error() {
        // A different x in the second piece's prefix: not one circuit.
        struct Odd(u64);
        impl Circuit<Fr> for Odd {
            fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
                let x = AllocatedNum::alloc(cs.namespace(|| "x"), || Ok(Fr::from(self.0)))?;
                let _ = x.square(cs.namespace(|| "piece_0"))?;
                Ok(())
            }
        }
        let e = synthesize_pieces(vec![Odd(2), Odd(3)], "piece_").unwrap_err();
        assert!(e.to_string().contains("do not share one prefix"), "{e}");
        let e = synthesize_pieces(vec![Odd(2)], "challenge_").unwrap_err();
        assert!(e.to_string().contains("no top-level namespace"), "{e}");
        assert!(synthesize_pieces(Vec::<Odd>::new(), "piece_").is_err());
    }
}

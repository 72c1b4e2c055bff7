//! Synthesis of one circuit on many threads, for circuits made of a common
//! prefix followed by independent segments: top-level namespaces that each
//! belong to one segment (a PoRep partition: the commitments, then one
//! sub-circuit per challenge in namespace `challenge_<i>`; a SnapDeals
//! partition: its commitments and challenge bits, then per challenge a run of
//! namespaces named `... (c_index=<i>)`). Bellperson synthesizes such a
//! circuit on one thread; a 32 GiB partition takes minutes that way.
//!
//! Each piece is a circuit synthesized on its own thread into a system that
//! records the prefix and the segments of its range only: segments before the
//! range are skipped (their values are never computed, their constraints
//! never evaluated), and synthesis stops at the first segment after it. A
//! caller that can build a circuit per piece (PoRep, and SnapDeals through
//! cuzk's own circuit) passes those, each recording everything. The result is what synthesizing the whole circuit on
//! one thread gives, exactly: constraint values do not depend on variable
//! indices, the pieces' new variables are appended in piece order (as
//! sequential synthesis allocates them), and their density marks on prefix
//! variables are merged. Every piece's prefix is checked equal to the first's,
//! segments must come in order, and a segment must not use another's
//! variables, so a circuit without this structure is an error, never a wrong
//! witness. Pieces synthesize into any of cuzk's systems (`Joinable`): full
//! synthesis, witness only, or recording.

use std::{
    collections::BTreeMap,
    ops::Range,
    sync::{Mutex, MutexGuard},
    time::{Duration, Instant},
};

use anyhow::{anyhow, ensure, Result};
use bellperson::{Circuit, ConstraintSystem, Index, LinearCombination, SynthesisError, Variable};
use blstrs::Scalar as Fr;

use super::joinable::{Joinable, Sizes};
use crate::room::Growth;

/// How much of a system its prefix is.
type Prefix = Sizes;

/// What a piece's system does with the segment being synthesized.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Record,
    Skip,
    Stop,
}

/// A cuzk system, recording the prefix and the segments in `range`, noting
/// its size when the first segment opens.
struct PieceSystem<'a, J, S> {
    cs: J,
    segment_of: &'a S,
    range: Range<usize>,
    depth: usize,
    prefix: Option<Prefix>,
    mode: Mode,
    last_segment: Option<usize>,
    out_of_order: Option<(usize, usize)>,
    uses_skipped: bool,
    skipped_any: bool,
}

/// The variable a skipped segment's allocation gets: an index no system has.
fn skipped(index: fn(usize) -> Index) -> Variable {
    Variable::new_unchecked(index(usize::MAX))
}

/// Whether `lc` has a term in a variable of a skipped segment: a recorded
/// segment that does depends on another one, and cannot be a piece.
fn uses_skipped(lc: &LinearCombination<Fr>) -> bool {
    lc.iter_inputs().any(|(&i, _)| i == usize::MAX) || lc.iter_aux().any(|(&i, _)| i == usize::MAX)
}

impl<J: Joinable, S: Fn(&str) -> Option<usize> + Sync> ConstraintSystem<Fr> for PieceSystem<'_, J, S> {
    type Root = Self;

    fn alloc<F, A, AR>(&mut self, name: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        match self.mode {
            Mode::Record => self.cs.alloc(name, f),
            Mode::Skip => Ok(skipped(Index::Aux)),
            // Ends the circuit's synthesis: nothing after the range is needed.
            Mode::Stop => Err(SynthesisError::AssignmentMissing),
        }
    }

    fn alloc_input<F, A, AR>(&mut self, name: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        match self.mode {
            Mode::Record => self.cs.alloc_input(name, f),
            Mode::Skip => Ok(skipped(Index::Input)),
            Mode::Stop => Err(SynthesisError::AssignmentMissing),
        }
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, name: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LB: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LC: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
    {
        if self.mode == Mode::Record && !J::BUILDS_CONSTRAINTS {
            // A witness generator: the combinations are never built.
            self.cs.enforce(name, a, b, c);
        } else if self.mode == Mode::Record {
            let (a, b, c) = (a(LinearCombination::zero()), b(LinearCombination::zero()), c(LinearCombination::zero()));
            if [&a, &b, &c].iter().any(|lc| uses_skipped(lc)) {
                self.uses_skipped = true;
            } else {
                self.cs.enforce(name, |_| a, |_| b, |_| c)
            }
        }
    }

    fn push_namespace<NR, N>(&mut self, name: N)
    where
        NR: Into<String>,
        N: FnOnce() -> NR,
    {
        // Only top-level names are built: a few hundred per segment at most.
        if self.depth == 0 {
            if let Some(segment) = (self.segment_of)(&name().into()) {
                self.prefix.get_or_insert(self.cs.sizes());
                if let Some(last) = self.last_segment.filter(|&last| segment < last) {
                    self.out_of_order.get_or_insert((last, segment));
                }
                self.last_segment = Some(segment);
                self.mode = match segment {
                    s if s < self.range.start => Mode::Skip,
                    s if s < self.range.end => Mode::Record,
                    _ => Mode::Stop,
                };
                self.skipped_any |= self.mode == Mode::Skip;
            }
        }
        self.depth += 1;
    }

    fn pop_namespace(&mut self) {
        self.depth -= 1;
    }

    fn get_root(&mut self) -> &mut Self::Root {
        self
    }

    /// Only while recording: a skipped segment's values are never computed,
    /// which a gadget's witness path cannot do without.
    fn is_witness_generator(&self) -> bool {
        self.mode == Mode::Record && self.cs.is_witness_generator()
    }

    fn extend_inputs(&mut self, new_inputs: &[Fr]) {
        self.cs.extend_inputs(new_inputs)
    }

    fn extend_aux(&mut self, new_aux: &[Fr]) {
        self.cs.extend_aux(new_aux)
    }

    fn allocate_empty(&mut self, aux_n: usize, inputs_n: usize) -> (&mut [Fr], &mut [Fr]) {
        self.cs.allocate_empty(aux_n, inputs_n)
    }

    fn allocate_empty_inputs(&mut self, n: usize) -> &mut [Fr] {
        self.cs.allocate_empty_inputs(n)
    }

    fn allocate_empty_aux(&mut self, n: usize) -> &mut [Fr] {
        self.cs.allocate_empty_aux(n)
    }

    fn inputs_slice(&self) -> &[Fr] {
        self.cs.inputs_slice()
    }

    fn aux_slice(&self) -> &[Fr] {
        self.cs.aux_slice()
    }
}

fn synthesize_piece<J, C, S>(circuit: C, range: Range<usize>, segment_of: &S) -> Result<(J, Prefix)>
where
    J: Joinable,
    C: Circuit<Fr>,
    S: Fn(&str) -> Option<usize> + Sync,
{
    let mut p = PieceSystem {
        cs: J::open()?,
        segment_of,
        range,
        depth: 0,
        prefix: None,
        mode: Mode::Record,
        last_segment: None,
        out_of_order: None,
        uses_skipped: false,
        skipped_any: false,
    };
    match circuit.synthesize(&mut p) {
        Err(_) if p.mode == Mode::Stop => {}
        Err(e) if p.skipped_any => {
            anyhow::bail!("{e}: a segment of the circuit may use a value of an earlier one: it cannot be synthesized in pieces")
        }
        done => done?,
    }
    if let Some((last, segment)) = p.out_of_order {
        anyhow::bail!("the circuit's segments are not in order (segment {segment} after {last}): it cannot be synthesized in pieces");
    }
    ensure!(!p.uses_skipped, "a segment of the circuit uses a variable of an earlier one: it cannot be synthesized in pieces");
    let prefix = p.prefix.ok_or_else(|| anyhow!("the circuit has no segments to synthesize in pieces"))?;
    Ok((p.cs, prefix))
}

/// The synthesized circuit whose pieces, each after the common prefix, are
/// `pieces` (in order), each piece starting in a top-level namespace whose
/// name starts with `piece`; pieces are synthesized in parallel on rayon's
/// pool, one per thread at a time, and appended in order as they finish, so
/// that memory stays near one circuit's.
pub fn synthesize_pieces<J: Joinable, C: Circuit<Fr> + Send>(pieces: Vec<C>, piece: &str) -> Result<J> {
    let starts = |name: &str| name.starts_with(piece).then_some(0);
    synthesize_ranges(pieces.into_iter().map(|c| (c, 0..usize::MAX)).collect(), &starts)
}

/// A circuit synthesized in pieces on rayon's pool, each piece a copy that
/// `copy` makes. `segment_of` gives the segment a top-level namespace opens
/// by its name (`None`: the namespace continues the segment before it, or the
/// prefix); segments come in order, `segments` of them (the pieces' balance
/// depends on it, not the result).
///
/// Pieces are `segment_pieces(segments)`.
pub fn synthesize_segments<J, C, S>(copy: impl Fn() -> C, segments: usize, segment_of: &S) -> Result<J>
where
    J: Joinable,
    C: Circuit<Fr> + Send,
    S: Fn(&str) -> Option<usize> + Sync,
{
    let ranges = segment_ranges(segments, segment_pieces(segments));
    synthesize_ranges(ranges.into_iter().map(|r| (copy(), r)).collect(), segment_of)
}

/// One piece of a segmented circuit alone: its prefix and the segments in
/// `range`, closed as a whole circuit is (a piece's shape, for tests and
/// benchmarks).
pub fn synthesize_segment_range<J, C, S>(circuit: C, range: Range<usize>, segment_of: &S) -> Result<J>
where
    J: Joinable,
    C: Circuit<Fr>,
    S: Fn(&str) -> Option<usize> + Sync,
{
    let (mut cs, _): (J, _) = synthesize_piece(circuit, range, segment_of)?;
    cs.close();
    Ok(cs)
}

/// The pieces `synthesize_segments` makes of `segments` on the current pool:
/// one per quarter of its threads (at least two). A piece's time is bounded
/// below by the segments it skips, and each records the prefix, so pieces
/// add work faster than they take time off (a 32 GiB SnapDeals partition in
/// 4 pieces costs 1.9x one thread's CPU time, in 8 pieces 3.1x, for a third
/// less time), while the engine synthesizes two partitions at once and a
/// proof has many.
pub fn segment_pieces(segments: usize) -> usize {
    segment_pieces_on(rayon::current_num_threads(), segments)
}

/// `segment_pieces` on a pool of `threads`.
pub fn segment_pieces_on(threads: usize, segments: usize) -> usize {
    (threads / 4).max(2).min(segments.max(1))
}

/// Skipping a segment costs about this fraction of recording it: the
/// gadgets still build their linear combinations (measured on the 32 GiB
/// SnapDeals circuit: 0.1 s to skip a challenge, 0.3 s to record it).
const SKIP_COST: f64 = 1.0 / 3.0;

/// `parts` ranges covering every segment index, in order. A piece walks
/// through the segments before its range too, so each range is shorter than
/// the one before by the skipping it adds: range k holds a share (1 - s)^k
/// of the segments, and every piece then takes about the same time.
fn segment_ranges(segments: usize, parts: usize) -> Vec<Range<usize>> {
    let parts = parts.clamp(1, segments.max(1));
    let weights: Vec<f64> = (0..parts).map(|k| (1.0 - SKIP_COST).powi(k as i32)).collect();
    let total: f64 = weights.iter().sum();
    let mut bounds = vec![0];
    let mut share = 0.0;
    for k in 1..parts {
        share += weights[k - 1] / total;
        let at = (share * segments as f64).round() as usize;
        // Every range holds at least one segment.
        bounds.push(at.max(bounds[k - 1] + 1).min(segments - (parts - k)));
    }
    bounds.push(usize::MAX);
    bounds.windows(2).map(|w| w[0]..w[1]).collect()
}

/// Synthesizes each circuit recording its range, every piece a task of
/// rayon's pool (so at most a pool's worth at once), and joins them in order
/// as they come: a piece is appended as soon as those before it are in,
/// while later ones are still being synthesized. No batch waits for its
/// slowest piece, and partitions synthesized at once fill each other's idle
/// threads.
fn synthesize_ranges<J, C, S>(pieces: Vec<(C, Range<usize>)>, segment_of: &S) -> Result<J>
where
    J: Joinable,
    C: Circuit<Fr> + Send,
    S: Fn(&str) -> Option<usize> + Sync,
{
    ensure!(!pieces.is_empty(), "no pieces to synthesize");
    let start = Instant::now();
    let join = Mutex::new(Join::<J>::new(pieces.len()));
    rayon::scope_fifo(|scope| {
        for (index, (circuit, range)) in pieces.into_iter().enumerate() {
            let join = &join;
            scope.spawn_fifo(move |_| {
                // After a failure the remaining pieces are not worth synthesizing.
                if lock(join).error.is_none() {
                    let piece = synthesize_piece(circuit, range, segment_of);
                    Join::add(join, index, piece);
                }
            });
        }
    });
    let join = join.into_inner().unwrap_or_else(|e| e.into_inner());
    if let Some((_, e)) = join.error {
        return Err(e);
    }
    let (mut cs, _) = join.whole.expect("every piece appended");
    cs.close();
    log::debug!("cuzk pieces: {} pieces in {:?}, {:?} of it appending", join.count, start.elapsed(), join.appending_time);
    Ok(cs)
}

/// The pieces of one circuit being joined: those synthesized and waiting for
/// an earlier one, and the circuit so far (taken out by the thread appending
/// to it, so that the lock is never held during a copy: the copy runs on the
/// pool, whose threads may meanwhile run a piece that finishes and locks).
struct Join<J> {
    count: usize,
    whole: Option<(J, Prefix)>,
    /// Pieces in `whole` or being appended to it.
    next: usize,
    waiting: BTreeMap<usize, (J, Prefix)>,
    appending: bool,
    appending_time: Duration,
    /// The failure of the earliest piece that failed (an append's: last).
    error: Option<(usize, anyhow::Error)>,
}

fn lock<J>(join: &Mutex<Join<J>>) -> MutexGuard<'_, Join<J>> {
    join.lock().unwrap_or_else(|e| e.into_inner())
}

impl<J: Joinable> Join<J> {
    fn new(count: usize) -> Self {
        Join {
            count,
            whole: None,
            next: 0,
            waiting: BTreeMap::new(),
            appending: false,
            appending_time: Duration::ZERO,
            error: None,
        }
    }

    /// Takes piece `index`; appends it, and every piece after it that is
    /// waiting, unless another thread is appending (which then does).
    fn add(join: &Mutex<Join<J>>, index: usize, piece: Result<(J, Prefix)>) {
        let mut j = lock(join);
        match piece {
            Err(e) => {
                if j.error.as_ref().is_none_or(|(first, _)| index < *first) {
                    j.error = Some((index, e));
                }
                return;
            }
            Ok(piece) => j.waiting.insert(index, piece),
        };
        if j.appending {
            return;
        }
        j.appending = true;
        loop {
            let mut run = Vec::new();
            loop {
                let next = j.next;
                let Some(piece) = j.waiting.remove(&next) else { break };
                run.push(piece);
                j.next += 1;
            }
            if run.is_empty() || j.error.is_some() {
                j.appending = false;
                return;
            }
            let later = j.count - j.next;
            let mut whole = j.whole.take();
            drop(j);
            let started = Instant::now();
            let appended = append_run(&mut whole, run, later);
            j = lock(join);
            j.appending_time += started.elapsed();
            j.whole = whole;
            if let Err(e) = appended {
                j.error.get_or_insert((usize::MAX, e));
            }
        }
    }
}

/// Appends a run of consecutive pieces to the circuit so far (the first
/// piece is the circuit so far when there is none), with room for `later`
/// more pieces of the run's average size, so that appending does not
/// reallocate (and briefly double) vectors of gigabytes.
fn append_run<J: Joinable>(whole: &mut Option<(J, Prefix)>, mut run: Vec<(J, Prefix)>, later: usize) -> Result<()> {
    let (whole, prefix) = match whole {
        Some(w) => w,
        None => whole.insert(run.remove(0)),
    };
    if run.is_empty() {
        return Ok(());
    }
    let (count, p) = (run.len(), *prefix);
    let constraints: usize = run.iter().map(|(piece, _)| piece.sizes().constraints - p.constraints).sum();
    let aux: usize = run.iter().map(|(piece, _)| piece.sizes().aux - p.aux).sum();
    let (constraints, aux) = (constraints + constraints / count * later, aux + aux / count * later);
    whole.reserve(Sizes { constraints, inputs: 0, aux }, Growth::Exact)?;
    append_pieces(whole, p, run)
}

/// Appends what each of `pieces` adds after its prefix, which must equal
/// `whole`'s, dropping each piece once it is in: the partition and the
/// pieces not yet appended never hold its memory twice (with a pool of 16
/// threads, 16 pieces of a 32 GiB partition are ~14 GB). Appends copy on
/// every thread of the pool (`par_copy`).
fn append_pieces<J: Joinable>(whole: &mut J, p: Prefix, pieces: Vec<(J, Prefix)>) -> Result<()> {
    for (piece, piece_prefix) in &pieces {
        ensure!(
            *piece_prefix == p && whole.same_prefix(piece, p),
            "the pieces of the circuit do not share one prefix: it cannot be synthesized in pieces"
        );
    }
    for (piece, _) in pieces {
        whole.append(piece, p);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::circuit::{record, synthesize, Recorder, Synthesized, Witness};
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
        let joined = synthesize_pieces::<Synthesized, _>(pieces, "piece_").unwrap();
        assert_eq!(joined, whole);
        assert_eq!(joined.inputs.len(), 1 + 1 + spec.len());
    }

    /// A circuit that waits before synthesizing, so that pieces finish out of order.
    struct Late<C>(C, u64);

    impl<C: Circuit<Fr>> Circuit<Fr> for Late<C> {
        fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
            std::thread::sleep(std::time::Duration::from_millis(self.1));
            self.0.synthesize(cs)
        }
    }

    #[test]
    fn pieces_that_finish_out_of_order_are_joined_in_order() {
        let spec: Vec<(usize, u64)> = (0..9).map(|i| (i * 13 % 7, i as u64 + 5)).collect();
        let whole = synthesize(Shared { pieces: spec.clone() }).unwrap();
        for threads in [2, 4, 9] {
            // The first pieces are the last to finish.
            let late = |i: usize| Late(Shared { pieces: vec![spec[i]] }, 10 * (spec.len() - i) as u64);
            let joined = in_pool(threads, || synthesize_pieces::<Synthesized, _>((0..spec.len()).map(late).collect(), "piece_")).unwrap();
            assert_eq!(joined, whole, "{threads} threads");
        }
    }

    /// A prefix, then segments named `... (seg=<i>)`, each several top-level
    /// namespaces (an input, a chain over the prefix's and its own variables,
    /// a constraint outside any namespace); `order` gives the segments' names
    /// and `borrow` makes each segment use the previous one's last variable
    /// (outside any namespace).
    struct Segmented {
        order: Vec<usize>,
        borrow: bool,
    }

    fn segment_of(name: &str) -> Option<usize> {
        name.split_once("(seg=").and_then(|(_, rest)| rest.trim_end_matches(')').parse().ok())
    }

    impl Circuit<Fr> for Segmented {
        fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
            let x = AllocatedNum::alloc(cs.namespace(|| "x"), || Ok(Fr::from(3u64)))?;
            x.inputize(cs.namespace(|| "x input"))?;
            let y = x.square(cs.namespace(|| "y"))?;
            let mut previous: Option<AllocatedNum<Fr>> = None;
            for i in self.order {
                let own = AllocatedNum::alloc(cs.namespace(|| format!("own (seg={i})")), || Ok(Fr::from(i as u64 + 5)))?;
                own.inputize(cs.namespace(|| format!("own input (seg={i})")))?;
                let mut acc = own.mul(cs.namespace(|| format!("uses y (seg={i})")), &y)?;
                for k in 0..(i * 37) % 11 {
                    acc = acc.mul(cs.namespace(|| format!("link {k} (seg={i})")), if k % 2 == 0 { &x } else { &own })?;
                }
                let end = acc.mul(cs.namespace(|| format!("end (seg={i})")), &own)?;
                let used = previous.filter(|_| self.borrow).unwrap_or_else(|| end.clone());
                cs.enforce(|| "used = used", |lc| lc + used.get_variable(), |lc| lc + CS::one(), |lc| lc + used.get_variable());
                previous = Some(end);
            }
            Ok(())
        }
    }

    fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
        rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(f)
    }

    #[test]
    fn segments_synthesized_in_ranges_equal_the_whole_on_any_pool() {
        let segments = 13;
        let circuit = || Segmented { order: (0..segments).collect(), borrow: false };
        let whole = synthesize(circuit()).unwrap();
        for threads in [1, 2, 12, 16, 64] {
            // `segments` is only a hint: too few or too many still gives the whole.
            for hint in [segments, 1, 40] {
                let joined = in_pool(threads, || synthesize_segments::<Synthesized, _, _>(circuit, hint, &segment_of)).unwrap();
                assert_eq!(joined, whole, "{threads} threads, {hint} segments");
            }
        }
        assert_eq!(whole.inputs.len(), 1 + 1 + segments);
    }

    #[test]
    fn pieces_and_segments_record_and_give_witnesses_as_the_whole_does() {
        let spec: Vec<(usize, u64)> = (0..7).map(|i| (i * 5 % 9, i as u64 + 2)).collect();
        let shared = || spec.iter().map(|&p| Shared { pieces: vec![p] }).collect::<Vec<_>>();
        let (whole_matrices, whole_witness) = record(Shared { pieces: spec.clone() }).unwrap();
        let whole = synthesize(Shared { pieces: spec.clone() }).unwrap();
        let segmented = || Segmented { order: (0..9).collect(), borrow: false };
        let (segmented_matrices, segmented_witness) = record(segmented()).unwrap();
        for threads in [1, 3, 8] {
            let recorded = in_pool(threads, || synthesize_pieces::<Recorder, _>(shared(), "piece_")).unwrap();
            let (matrices, witness) = recorded.finish().unwrap();
            assert_eq!(matrices, whole_matrices, "{threads} threads");
            assert_eq!(witness, whole_witness, "{threads} threads");
            let witness = in_pool(threads, || synthesize_pieces::<Witness, _>(shared(), "piece_")).unwrap();
            assert_eq!(witness, whole_witness, "{threads} threads");
            assert_eq!(matrices.evaluate(witness).unwrap(), whole, "{threads} threads");

            let recorded = in_pool(threads, || synthesize_segments::<Recorder, _, _>(segmented, 9, &segment_of)).unwrap();
            assert_eq!(recorded.finish().unwrap(), (segmented_matrices.clone(), segmented_witness.clone()), "{threads} threads");
            let witness = in_pool(threads, || synthesize_segments::<Witness, _, _>(segmented, 9, &segment_of)).unwrap();
            assert_eq!(witness, segmented_witness, "{threads} threads");
        }
    }

    #[test]
    fn ranges_cover_every_segment_once_in_order() {
        for (segments, parts) in [(13, 4), (1376, 16), (3, 8), (0, 4), (5, 1)] {
            let ranges = segment_ranges(segments, parts);
            assert_eq!(ranges[0].start, 0);
            assert_eq!(ranges.last().unwrap().end, usize::MAX);
            assert!(ranges.windows(2).all(|w| w[0].end == w[1].start && w[0].start < w[0].end), "{ranges:?}");
            assert!(ranges.len() <= parts.max(1));
            // Later ranges are no longer than earlier ones: they skip more.
            let lens: Vec<usize> = ranges[..ranges.len() - 1].iter().map(|r| r.end - r.start).collect();
            assert!(lens.windows(2).all(|w| w[0] + 1 >= w[1]), "{ranges:?}");
        }
    }

    #[test]
    fn segments_that_depend_on_each_other_or_come_out_of_order_are_an_error() {
        let borrowing = || Segmented { order: (0..6).collect(), borrow: true };
        let e = in_pool(12, || synthesize_segments::<Synthesized, _, _>(borrowing, 6, &segment_of)).unwrap_err();
        assert!(e.to_string().contains("uses a variable of an earlier one"), "{e}");
        // A value of a skipped segment is never computed: its use is an error too.
        struct NeedsValue;
        impl Circuit<Fr> for NeedsValue {
            fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
                let a = AllocatedNum::alloc(cs.namespace(|| "a (seg=0)"), || Ok(Fr::from(2u64)))?;
                let _ = a.square(cs.namespace(|| "b (seg=1)"))?;
                Ok(())
            }
        }
        let e = in_pool(4, || synthesize_segments::<Synthesized, _, _>(|| NeedsValue, 2, &segment_of)).unwrap_err();
        assert!(e.to_string().contains("may use a value of an earlier one"), "{e}");
        let shuffled = || Segmented { order: vec![0, 1, 3, 2, 4, 5], borrow: false };
        let e = in_pool(4, || synthesize_segments::<Synthesized, _, _>(shuffled, 6, &segment_of)).unwrap_err();
        assert!(e.to_string().contains("not in order (segment 2 after 3)"), "{e}");
        let none = || Segmented { order: vec![], borrow: false };
        let e = in_pool(4, || synthesize_segments::<Synthesized, _, _>(none, 6, &segment_of)).unwrap_err();
        assert!(e.to_string().contains("no segments"), "{e}");
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
        let e = synthesize_pieces::<Synthesized, _>(vec![Odd(2), Odd(3)], "piece_").unwrap_err();
        assert!(e.to_string().contains("do not share one prefix"), "{e}");
        let e = synthesize_pieces::<Synthesized, _>(vec![Odd(2)], "challenge_").unwrap_err();
        assert!(e.to_string().contains("no segments"), "{e}");
        assert!(synthesize_pieces::<Synthesized, _>(Vec::<Odd>::new(), "piece_").is_err());
    }
}

//! A memory allocation of a partition's large vectors that fails is an error
//! of that partition, not an abort of the process: this binary's allocator
//! refuses, while armed, every allocation above a limit, and the join of a
//! circuit's pieces (which reserves the whole witness at once), a witness
//! growing or extended by a circuit's parts, the CPU's a, b and c and H's
//! transforms run under it.

use std::{
    alloc::{GlobalAlloc, Layout, System},
    sync::{
        atomic::{AtomicUsize, Ordering},
        Mutex, MutexGuard,
    },
};

use bellperson::{gadgets::num::AllocatedNum, Circuit, ConstraintSystem, SynthesisError};
use blstrs::Scalar as Fr;
use cuzk::{
    circuit::{record, synthesize_pieces, synthesize_witness, MulChain, Witness},
    groth16::cpu::h_coefficients,
};

/// The system allocator, refusing allocations larger than `LIMIT`.
struct Refusing;

static LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);

// SAFETY: every call is forwarded to the system allocator unchanged, or
// answered with NULL, which the trait allows for any failed allocation.
unsafe impl GlobalAlloc for Refusing {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() > LIMIT.load(Ordering::Relaxed) {
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded from this function's contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded from this function's contract.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > LIMIT.load(Ordering::Relaxed) {
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded from this function's contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Refusing = Refusing;

/// Held for a whole test: the allocator serves the whole binary, so no test
/// may allocate while another has the limit armed.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn alone() -> MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `f` with allocations above `limit` bytes refused.
fn refusing_above<T>(limit: usize, f: impl FnOnce() -> T) -> T {
    LIMIT.store(limit, Ordering::Relaxed);
    let out = f();
    LIMIT.store(usize::MAX, Ordering::Relaxed);
    out
}

/// A shared prefix (x), then `PER_PIECE` aux values in its own piece.
struct Piece(u64);

const PER_PIECE: usize = 1 << 16;
const PIECES: u64 = 4;

impl Circuit<Fr> for Piece {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let x = AllocatedNum::alloc(cs.namespace(|| "x"), || Ok(Fr::from(7u64)))?;
        let mut cs = cs.namespace(|| format!("piece_{}", self.0));
        for i in 0..PER_PIECE {
            AllocatedNum::alloc(cs.namespace(|| format!("v{i}")), || Ok(x.get_value().unwrap() + Fr::from(i as u64)))?;
        }
        Ok(())
    }
}

fn pieces() -> Vec<Piece> {
    (0..PIECES).map(Piece).collect()
}

#[test]
fn a_failed_allocation_joining_a_witness_is_an_error_and_the_next_synthesis_works() {
    let _alone = alone();
    let value_bytes = std::mem::size_of::<Fr>();
    // A piece's vector grows to at most twice its values; the join reserves
    // room for all pieces at once, beyond the limit.
    let refused = refusing_above(3 * PER_PIECE * value_bytes, || synthesize_pieces::<Witness, _>(pieces(), "piece_"));
    let e = refused.expect_err("the join's allocation was refused");
    assert!(format!("{e:#}").contains("cannot allocate"), "{e:#}");

    let w: Witness = synthesize_pieces(pieces(), "piece_").unwrap();
    assert_eq!(w.aux.len(), 1 + PIECES as usize * PER_PIECE);
    assert_eq!(w.aux[1 + PER_PIECE], Fr::from(7u64));
}


#[test]
fn a_failed_allocation_of_a_b_c_or_of_h_on_the_cpu_is_an_error_and_the_next_works() {
    let _alone = alone();
    let links = 1 << 15;
    let (matrices, witness) = record(MulChain { start: Fr::from(3u64), links }).unwrap();
    let vector_bytes = links * std::mem::size_of::<Fr>();
    let e = refusing_above(vector_bytes / 2, || matrices.abc(&witness)).expect_err("a, b and c were refused");
    assert!(format!("{e:#}").contains("cannot allocate"), "{e:#}");
    let [a, b, c] = matrices.abc(&witness).unwrap();

    // H's transforms take vectors of the domain's size, twice a, b and c's.
    let e = refusing_above(vector_bytes + vector_bytes / 2, || h_coefficients(&a, &b, &c)).expect_err("H's vectors were refused");
    assert!(format!("{e:#}").contains("cannot allocate"), "{e:#}");
    assert_eq!(h_coefficients(&a, &b, &c).unwrap().len(), a.len().next_power_of_two() - 1);
}

#[test]
fn a_witness_that_cannot_grow_is_an_error_and_the_next_synthesis_works() {
    let _alone = alone();
    let circuit = MulChain { start: Fr::from(3u64), links: 1 << 16 };
    // The witness doubles its room as it grows: to 2^16 values (2 MiB) at the end.
    let e = refusing_above(1 << 20, || synthesize_witness(circuit.clone())).expect_err("the witness's growth was refused");
    assert!(e.to_string().contains("cannot allocate"), "{e}");
    assert_eq!(synthesize_witness(circuit).unwrap().aux.len(), 1 << 16);
}

/// A circuit built as the PoSt circuits build theirs over their sectors:
/// parts synthesized into fresh systems, each `extend`ed into the caller's.
struct Extending;

impl Circuit<Fr> for Extending {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        assert!(CS::is_extensible());
        for part in 0..PIECES {
            let mut sub = CS::new();
            sub.alloc_input(|| "temp one", || Ok(Fr::from(1u64)))?;
            for i in 0..PER_PIECE as u64 {
                sub.alloc(|| "v", || Ok(Fr::from(part << 32 | i)))?;
            }
            cs.extend(&sub);
        }
        Ok(())
    }
}

#[test]
fn a_witness_extended_beyond_its_room_fails_its_synthesis_and_the_next_works() {
    let _alone = alone();
    // Each part adds 2 MiB of values; the witness doubles its room to 2, 4,
    // then 8 MiB, and the third extend finds the limit. `extend` cannot
    // return an error: it panics with the reason, which the engine turns
    // into that job's error (tests/engine.rs, a panicking circuit).
    // The default panic hook may symbolize a backtrace (RUST_BACKTRACE),
    // which takes more than this test's limit: a silent one while armed.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let refused = refusing_above(5 << 20, || std::panic::catch_unwind(|| synthesize_witness(Extending)));
    std::panic::set_hook(hook);
    let payload = refused.expect_err("the extend's growth was refused");
    let message = payload.downcast_ref::<String>().expect("a formatted panic message");
    assert!(message.contains("cannot allocate 8 MiB for a witness's aux values"), "{message}");

    let w = synthesize_witness(Extending).unwrap();
    assert_eq!(w.aux.len(), PIECES as usize * PER_PIECE);
    assert_eq!(w.aux[PER_PIECE + 5], Fr::from(1u64 << 32 | 5));
}

//! A memory allocation that fails while a circuit is synthesized is an error
//! of that synthesis, not an abort of the process: this binary's allocator
//! refuses, while armed, every allocation above a limit, and the pieces of a
//! circuit are joined under it (the join reserves the whole witness at once).

use std::{
    alloc::{GlobalAlloc, Layout, System},
    sync::atomic::{AtomicUsize, Ordering},
};

use bellperson::{gadgets::num::AllocatedNum, Circuit, ConstraintSystem, SynthesisError};
use blstrs::Scalar as Fr;
use cuzk::circuit::{synthesize_pieces, Witness};

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
    let value_bytes = std::mem::size_of::<Fr>();
    // A piece's vector grows to at most twice its values; the join reserves
    // room for all pieces at once, beyond the limit.
    LIMIT.store(3 * PER_PIECE * value_bytes, Ordering::Relaxed);
    let refused = synthesize_pieces::<Witness, _>(pieces(), "piece_");
    LIMIT.store(usize::MAX, Ordering::Relaxed);
    let e = refused.expect_err("the join's allocation was refused");
    assert!(format!("{e:#}").contains("cannot allocate"), "{e:#}");

    let w: Witness = synthesize_pieces(pieces(), "piece_").unwrap();
    assert_eq!(w.aux.len(), 1 + PIECES as usize * PER_PIECE);
    assert_eq!(w.aux[1 + PER_PIECE], Fr::from(7u64));
}

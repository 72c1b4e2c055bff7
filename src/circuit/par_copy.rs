//! Appending gigabytes on every thread of the pool: the first writes to
//! fresh memory cost more in page faults than the copy itself (on VMs whose
//! memory the host backs on first touch, most of a synthesis when done on
//! one thread).

use rayon::prelude::*;

/// Elements copied per task of a parallel copy (32 MiB of scalars).
const COPY_CHUNK: usize = 1 << 20;

/// `dst.extend_from_slice(part)`, copied in chunks on rayon's pool.
pub(super) fn extend_in_parallel<T: Copy + Send + Sync>(dst: &mut Vec<T>, part: &[T]) {
    extend_mapped(dst, part, |x| *x);
}

/// `dst.extend(part.iter().map(f))`, in chunks on rayon's pool.
pub(super) fn extend_mapped<T: Send, U: Sync>(dst: &mut Vec<T>, part: &[U], f: impl Fn(&U) -> T + Sync) {
    dst.reserve(part.len());
    let spare = &mut dst.spare_capacity_mut()[..part.len()];
    spare.par_chunks_mut(COPY_CHUNK).zip(part.par_chunks(COPY_CHUNK)).for_each(|(to, from)| {
        for (t, f_) in to.iter_mut().zip(from) {
            t.write(f(f_));
        }
    });
    // SAFETY: the `part.len()` elements past the length were all written just
    // above (the chunks of `spare` and `part` pair up exactly).
    unsafe { dst.set_len(dst.len() + part.len()) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_extends_append_every_part_in_order() {
        let part = |len: usize, seed: u64| (0..len as u64).map(|i| i * 7 + seed).collect::<Vec<_>>();
        let parts = [part(3, 1), part(0, 2), part(COPY_CHUNK * 2 + 5, 3), part(COPY_CHUNK, 4), part(1, 5)];
        let mut ours = part(4, 9);
        let mut expected = ours.clone();
        for p in &parts {
            extend_in_parallel(&mut ours, p);
            expected.extend_from_slice(p);
        }
        assert!(ours == expected);
        let mut doubled = Vec::new();
        extend_mapped(&mut doubled, &parts[2], |x| x * 2);
        assert!(doubled.iter().zip(&parts[2]).all(|(d, x)| *d == x * 2) && doubled.len() == parts[2].len());
    }
}

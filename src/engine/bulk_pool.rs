//! The rayon pool C2 and SnapDeals synthesis runs in. A 32 GiB PoRep
//! partition synthesizes in pieces of several seconds each, on every core; in
//! rayon's global pool those pieces would hold every worker, and a parallel
//! step queued behind them (a PoSt synthesis, a proof's scalar selection or
//! verification, `submit`'s key preparation, the caller's own rayon work)
//! would wait for pieces to finish: 10–20 s at 32 GiB. In a pool of its own,
//! the OS shares the cores between the two pools instead.

use once_cell::sync::Lazy;
use rayon::{ThreadPool, ThreadPoolBuilder};

static POOL: Lazy<Option<ThreadPool>> = Lazy::new(|| {
    ThreadPoolBuilder::new()
        .num_threads(rayon::current_num_threads())
        .thread_name(|i| format!("cuzk-bulk-{i}"))
        .build()
        .inspect_err(|e| log::warn!("cuzk: no thread pool for C2 synthesis ({e}): it shares rayon's global pool"))
        .ok()
});

/// The bulk pool's threads.
pub fn threads() -> usize {
    POOL.as_ref().map_or_else(rayon::current_num_threads, |pool| pool.current_num_threads())
}

/// `f`, its parallel work in the bulk pool (in the global pool if that pool
/// could not be made).
pub fn install<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    match &*POOL {
        Some(pool) => pool.install(f),
        None => f(),
    }
}

#[cfg(test)]
mod tests {
    use rayon::prelude::*;

    #[test]
    fn parallel_work_inside_runs_on_the_bulk_threads() {
        let names: Vec<String> = super::install(|| {
            (0..64).into_par_iter().map(|_| std::thread::current().name().unwrap_or_default().to_owned()).collect()
        });
        assert!(names.iter().all(|n| n.starts_with("cuzk-bulk-")), "{names:?}");
    }
}

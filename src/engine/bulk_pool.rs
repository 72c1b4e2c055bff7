//! The rayon pool C2 and SnapDeals synthesis runs in. A 32 GiB PoRep
//! partition synthesizes in pieces of several seconds each, on every core; in
//! rayon's global pool those pieces would hold every worker, and a parallel
//! step queued behind them (a PoSt synthesis, a proof's scalar selection or
//! verification, `submit`'s key preparation, the caller's own rayon work)
//! would wait for pieces to finish: 10–20 s at 32 GiB. In a pool of its own,
//! the OS shares the cores between the two pools instead, and its threads
//! run at a lower priority (nice): while C2 synthesis fills every core, a
//! proof's host threads (its kernel launches and waits, the MSMs' last sums,
//! the staging of uploads) and PoSt synthesis still get a core at once.

use once_cell::sync::Lazy;
use rayon::{ThreadPool, ThreadPoolBuilder};

static POOL: Lazy<Option<ThreadPool>> = Lazy::new(|| {
    ThreadPoolBuilder::new()
        .num_threads(rayon::current_num_threads())
        .thread_name(|i| format!("cuzk-bulk-{i}"))
        .start_handler(|_| lower_own_priority())
        .build()
        .inspect_err(|e| log::warn!("cuzk: no thread pool for C2 synthesis ({e}): it shares rayon's global pool"))
        .ok()
});

/// How much nicer than the thread that starts them the bulk threads run.
const NICE_INCREMENT: i32 = 10;

/// The calling thread's id, which `PRIO_PROCESS` takes for one thread on
/// Linux.
#[cfg(target_os = "linux")]
fn this_thread() -> libc::id_t {
    // SAFETY: gettid takes no argument and only returns the caller's id.
    unsafe { libc::syscall(libc::SYS_gettid) as libc::id_t }
}

/// The calling thread's nice value (Linux: each thread has its own).
#[cfg(target_os = "linux")]
fn own_nice() -> i32 {
    // SAFETY: getpriority only reads this thread's priority. A failure gives
    // -1, taken as the nice value: the thread then ends up at most as nice
    // as asked, never less.
    unsafe { libc::getpriority(libc::PRIO_PROCESS, this_thread()) }
}

fn lower_own_priority() {
    #[cfg(target_os = "linux")]
    {
        let nice = (own_nice() + NICE_INCREMENT).min(19);
        // SAFETY: only lowers this thread's own scheduling priority, which
        // needs no privilege; a failure leaves it as it was.
        let set = unsafe { libc::setpriority(libc::PRIO_PROCESS, this_thread(), nice) };
        if set != 0 {
            log::debug!("cuzk: a synthesis thread keeps its priority: {}", std::io::Error::last_os_error());
        }
    }
}

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

    #[cfg(target_os = "linux")]
    #[test]
    fn the_bulk_threads_are_nicer_than_their_caller() {
        let caller = super::own_nice();
        let nice: Vec<i32> = super::install(|| (0..64).into_par_iter().map(|_| super::own_nice()).collect());
        let expected = (caller + super::NICE_INCREMENT).min(19);
        assert!(nice.iter().all(|&n| n == expected), "caller {caller}, bulk threads {nice:?}");
    }
}

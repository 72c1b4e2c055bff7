//! A lock whose waiters are served most urgent first. A GPU is held through
//! it one proof step at a time (H's transforms, H's MSM, each other MSM), so
//! a Winning PoSt waiting for the device takes it at the next step boundary
//! of a running C2 proof instead of after the whole proof.
//!
//! A hold longer than the lock's overrun limit is taken as a hung step (a
//! kernel or copy that never returns): waiters stop waiting and fail, and
//! `overrunning` tells new work to go elsewhere, until the holder returns.

use std::{
    collections::BTreeSet,
    sync::{
        atomic::{AtomicU64, Ordering},
        Condvar, Mutex, MutexGuard,
    },
    thread::{self, ThreadId},
    time::{Duration, Instant},
};

use anyhow::{bail, Result};

/// Rank 0 is served first; within a rank, first come first served.
#[derive(Default)]
pub struct PriorityLock {
    queue: Mutex<Queue>,
    released: Condvar,
    /// Nanoseconds it has been held, guards dropped so far.
    held_nanos: AtomicU64,
    /// Nanoseconds one hold may last before it counts as hung; 0: no limit.
    overrun_nanos: AtomicU64,
}

#[derive(Default)]
struct Queue {
    /// The holder's thread and when it took the lock.
    holder: Option<(ThreadId, Instant)>,
    next_ticket: u64,
    /// (rank, ticket) of every waiter.
    waiting: BTreeSet<(u8, u64)>,
}

/// Holds the lock until dropped.
pub struct PriorityGuard<'a> {
    lock: &'a PriorityLock,
    rank: u8,
    since: Instant,
    /// False only after `let_more_urgent_in` failed to take it back.
    held: bool,
}

impl PriorityLock {
    fn queue(&self) -> MutexGuard<'_, Queue> {
        // Nothing panics while the queue is locked: its state stays consistent.
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until the lock is free and no more urgent (or earlier, equally
    /// urgent) waiter remains, then holds it. Fails, without waiting longer,
    /// once the current hold overruns the limit.
    pub fn lock(&self, rank: u8) -> Result<PriorityGuard<'_>> {
        self.acquire(rank)?;
        Ok(PriorityGuard { lock: self, rank, since: Instant::now(), held: true })
    }

    /// Sets how long one hold may last before it counts as hung (`None`:
    /// without limit); waiters and `overrunning` apply it from now on.
    pub fn set_overrun_limit(&self, limit: Option<Duration>) {
        let nanos = limit.map_or(0, |l| u64::try_from(l.as_nanos()).unwrap_or(u64::MAX).max(1));
        self.overrun_nanos.store(nanos, Ordering::Relaxed);
        self.released.notify_all();
    }

    fn overrun_limit(&self) -> Option<Duration> {
        let nanos = self.overrun_nanos.load(Ordering::Relaxed);
        (nanos > 0).then(|| Duration::from_nanos(nanos))
    }

    /// The current hold's thread and length, if it has lasted longer than
    /// the limit.
    pub fn overrunning(&self) -> Option<(ThreadId, Duration)> {
        let limit = self.overrun_limit()?;
        let (thread, since) = self.queue().holder?;
        let held = since.elapsed();
        (held > limit).then_some((thread, held))
    }

    fn acquire(&self, rank: u8) -> Result<()> {
        let mut q = self.queue();
        let me = (rank, q.next_ticket);
        q.next_ticket += 1;
        q.waiting.insert(me);
        loop {
            let Some((_, since)) = q.holder else {
                if q.waiting.first() == Some(&me) {
                    break;
                }
                q = self.released.wait(q).unwrap_or_else(|e| e.into_inner());
                continue;
            };
            let Some(limit) = self.overrun_limit() else {
                q = self.released.wait(q).unwrap_or_else(|e| e.into_inner());
                continue;
            };
            let held = since.elapsed();
            if held > limit {
                q.waiting.remove(&me);
                drop(q);
                // The next waiter in order may be free to go now.
                self.released.notify_all();
                bail!(
                    "the device has been held by one step for {:.0} s, past the {:.0} s limit: taken as hung",
                    held.as_secs_f64(),
                    limit.as_secs_f64()
                );
            }
            q = self.released.wait_timeout(q, limit - held).unwrap_or_else(|e| e.into_inner()).0;
        }
        q.waiting.remove(&me);
        q.holder = Some((thread::current().id(), Instant::now()));
        drop(q);
        // Waiters that saw the lock free wait without a deadline: they time
        // this new hold from now on.
        self.released.notify_all();
        Ok(())
    }

    /// Frees the lock taken at `since`.
    fn release(&self, since: Instant) {
        let held = u64::try_from(since.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.held_nanos.fetch_add(held, Ordering::Relaxed);
        self.queue().holder = None;
        // Every waiter rechecks: only the first in order takes the lock.
        self.released.notify_all();
    }

    /// Seconds it has been held in all, up to the last release (a GPU's busy
    /// time: its proof steps and uploads).
    pub fn held_seconds(&self) -> f64 {
        self.held_nanos.load(Ordering::Relaxed) as f64 * 1e-9
    }
}

impl PriorityGuard<'_> {
    /// Whether the guard holds the lock: not after `let_more_urgent_in`
    /// failed to take it back.
    pub fn holds(&self) -> bool {
        self.held
    }

    /// When a more urgent waiter is queued, lets it (and whoever comes
    /// before this guard's rank then) have the lock first, and holds it
    /// again after; otherwise keeps it. A long step calls this between its
    /// pieces. Fails as `lock` does, the lock then not held (dropping the
    /// guard releases nothing more).
    pub fn let_more_urgent_in(&mut self) -> Result<()> {
        let more_urgent = self.lock.queue().waiting.first().is_some_and(|&(rank, _)| rank < self.rank);
        if more_urgent {
            self.lock.release(self.since);
            self.held = false;
            self.lock.acquire(self.rank)?;
            self.held = true;
            self.since = Instant::now();
        }
        Ok(())
    }
}

impl Drop for PriorityGuard<'_> {
    fn drop(&mut self) {
        if self.held {
            self.lock.release(self.since);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::{
        sync::{Arc, Mutex},
        thread,
        time::Duration,
    };

    use super::*;

    /// Waiters queued behind a held lock, ranks 2, 0, 1, 0, 2 in that order,
    /// get it as 0, 0, 1, 2, 2 (FIFO within a rank).
    #[test]
    fn waiters_are_served_most_urgent_first_then_in_arrival_order() {
        let lock = Arc::new(PriorityLock::default());
        let order = Arc::new(Mutex::new(Vec::new()));
        let held = lock.lock(2).unwrap();
        let mut threads = Vec::new();
        for (i, rank) in [2u8, 0, 1, 0, 2].into_iter().enumerate() {
            let (waiter, order) = (lock.clone(), order.clone());
            threads.push(thread::spawn(move || {
                let _g = waiter.lock(rank).unwrap();
                order.lock().unwrap().push((rank, i));
            }));
            // Arrivals in index order: each waiter is queued before the next starts.
            while lock.queue().waiting.len() < i + 1 {
                thread::sleep(Duration::from_millis(1));
            }
        }
        drop(held);
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(*order.lock().unwrap(), [(0, 1), (0, 3), (1, 2), (2, 0), (2, 4)]);
    }

    /// A guard lets a more urgent waiter in and holds the lock again after
    /// it; an equally urgent waiter keeps waiting.
    #[test]
    fn a_guard_lets_only_a_more_urgent_waiter_in() {
        let lock = Arc::new(PriorityLock::default());
        let mut held = lock.lock(1).unwrap();
        let (waiter, ran) = (lock.clone(), Arc::new(Mutex::new(false)));
        let as_urgent = {
            let ran = ran.clone();
            thread::spawn(move || {
                let _g = waiter.lock(0).unwrap();
                *ran.lock().unwrap() = true;
            })
        };
        while lock.queue().waiting.is_empty() {
            thread::sleep(Duration::from_millis(1));
        }
        held.let_more_urgent_in().unwrap();
        assert!(*ran.lock().unwrap(), "the rank-0 waiter went first");
        as_urgent.join().unwrap();
        let waiter = lock.clone();
        let as_urgent_as_me = thread::spawn(move || drop(waiter.lock(1).unwrap()));
        while lock.queue().waiting.is_empty() {
            thread::sleep(Duration::from_millis(1));
        }
        held.let_more_urgent_in().unwrap();
        assert!(lock.queue().holder.is_some() && lock.queue().waiting.len() == 1, "an equal rank waits for the guard's drop");
        drop(held);
        as_urgent_as_me.join().unwrap();
        assert!(lock.queue().holder.is_none());
    }

    #[test]
    fn a_free_lock_is_taken_at_once_and_again_after_release() {
        let lock = PriorityLock::default();
        drop(lock.lock(2).unwrap());
        let g = lock.lock(0).unwrap();
        assert!(lock.queue().holder.is_some());
        drop(g);
        assert!(lock.queue().holder.is_none() && lock.queue().waiting.is_empty());
    }

    /// A hold past the limit fails its waiters (the next in order too) and
    /// shows as overrunning until it ends; then the lock serves again.
    #[test]
    fn waiters_give_up_on_a_hold_that_overruns_the_limit() {
        let lock = Arc::new(PriorityLock::default());
        let held = lock.lock(2).unwrap();
        lock.set_overrun_limit(Some(Duration::from_millis(200)));
        assert!(lock.overrunning().is_none());
        let waiters: Vec<_> = [0u8, 1]
            .into_iter()
            .map(|rank| {
                let waiter = lock.clone();
                thread::spawn(move || waiter.lock(rank).map(drop).map_err(|e| e.to_string()))
            })
            .collect();
        for w in waiters {
            let e = w.join().unwrap().unwrap_err();
            assert!(e.contains("taken as hung"), "{e}");
        }
        let (holder, for_how_long) = lock.overrunning().expect("the hold overruns");
        assert_eq!(holder, thread::current().id());
        assert!(for_how_long >= Duration::from_millis(200));
        assert!(lock.lock(0).is_err(), "a new waiter fails at once");
        drop(held);
        assert!(lock.overrunning().is_none());
        drop(lock.lock(0).unwrap());
        lock.set_overrun_limit(None);
        let held = lock.lock(1).unwrap();
        thread::sleep(Duration::from_millis(250));
        assert!(lock.overrunning().is_none(), "no limit, no overrun");
        drop(held);
    }

    /// A guard that lets a more urgent waiter in, whose hold then overruns
    /// the limit, fails to take the lock back: it holds nothing after, and
    /// its drop leaves the urgent holder's hold alone.
    #[test]
    fn a_guard_that_cannot_take_the_lock_back_holds_nothing() {
        let lock = Arc::new(PriorityLock::default());
        let mut held = lock.lock(1).unwrap();
        let (waiter, has_lock) = (lock.clone(), Arc::new(Mutex::new(false)));
        let urgent = {
            let has_lock = has_lock.clone();
            thread::spawn(move || {
                let _g = waiter.lock(0).unwrap();
                *has_lock.lock().unwrap() = true;
                thread::sleep(Duration::from_millis(600));
            })
        };
        while lock.queue().waiting.is_empty() {
            thread::sleep(Duration::from_millis(1));
        }
        lock.set_overrun_limit(Some(Duration::from_millis(300)));
        let e = held.let_more_urgent_in().unwrap_err().to_string();
        assert!(e.contains("taken as hung"), "{e}");
        assert!(*has_lock.lock().unwrap(), "the urgent waiter took the lock");
        assert!(!held.holds());
        drop(held);
        assert!(lock.queue().holder.is_some(), "the urgent hold goes on");
        urgent.join().unwrap();
        assert!(lock.queue().holder.is_none());
        lock.set_overrun_limit(None);
        assert!(lock.lock(1).unwrap().holds());
    }

    #[test]
    fn held_time_adds_up_over_guards() {
        let lock = PriorityLock::default();
        assert_eq!(lock.held_seconds(), 0.0);
        for _ in 0..2 {
            let _held = lock.lock(0).unwrap();
            thread::sleep(Duration::from_millis(20));
        }
        let held = lock.held_seconds();
        assert!((0.04..1.0).contains(&held), "held {held} s");
        drop(lock.lock(1).unwrap());
        assert!(lock.held_seconds() < held + 0.01, "an instant hold adds next to nothing");
    }
}

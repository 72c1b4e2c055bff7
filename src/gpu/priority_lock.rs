//! A lock whose waiters are served most urgent first. A GPU is held through
//! it one proof step at a time (H's transforms, H's MSM, each other MSM), so
//! a Winning PoSt waiting for the device takes it at the next step boundary
//! of a running C2 proof instead of after the whole proof.

use std::{
    collections::BTreeSet,
    sync::{
        atomic::{AtomicU64, Ordering},
        Condvar, Mutex, MutexGuard,
    },
    time::Instant,
};

/// Rank 0 is served first; within a rank, first come first served.
#[derive(Default)]
pub struct PriorityLock {
    queue: Mutex<Queue>,
    released: Condvar,
    /// Nanoseconds it has been held, guards dropped so far.
    held_nanos: AtomicU64,
}

#[derive(Default)]
struct Queue {
    held: bool,
    next_ticket: u64,
    /// (rank, ticket) of every waiter.
    waiting: BTreeSet<(u8, u64)>,
}

/// Holds the lock until dropped.
pub struct PriorityGuard<'a> {
    lock: &'a PriorityLock,
    rank: u8,
    since: Instant,
}

impl PriorityLock {
    fn queue(&self) -> MutexGuard<'_, Queue> {
        // Nothing panics while the queue is locked: its state stays consistent.
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until the lock is free and no more urgent (or earlier, equally
    /// urgent) waiter remains, then holds it.
    pub fn lock(&self, rank: u8) -> PriorityGuard<'_> {
        self.acquire(rank);
        PriorityGuard { lock: self, rank, since: Instant::now() }
    }

    fn acquire(&self, rank: u8) {
        let mut q = self.queue();
        let me = (rank, q.next_ticket);
        q.next_ticket += 1;
        q.waiting.insert(me);
        while q.held || q.waiting.first() != Some(&me) {
            q = self.released.wait(q).unwrap_or_else(|e| e.into_inner());
        }
        q.waiting.remove(&me);
        q.held = true;
    }

    /// Frees the lock taken at `since`.
    fn release(&self, since: Instant) {
        let held = u64::try_from(since.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.held_nanos.fetch_add(held, Ordering::Relaxed);
        self.queue().held = false;
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
    /// When a more urgent waiter is queued, lets it (and whoever comes
    /// before this guard's rank then) have the lock first, and holds it
    /// again after; otherwise keeps it. A long step calls this between its
    /// pieces.
    pub fn let_more_urgent_in(&mut self) {
        let more_urgent = self.lock.queue().waiting.first().is_some_and(|&(rank, _)| rank < self.rank);
        if more_urgent {
            self.lock.release(self.since);
            self.lock.acquire(self.rank);
            self.since = Instant::now();
        }
    }
}

impl Drop for PriorityGuard<'_> {
    fn drop(&mut self) {
        self.lock.release(self.since);
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
        let held = lock.lock(2);
        let mut threads = Vec::new();
        for (i, rank) in [2u8, 0, 1, 0, 2].into_iter().enumerate() {
            let (waiter, order) = (lock.clone(), order.clone());
            threads.push(thread::spawn(move || {
                let _g = waiter.lock(rank);
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
        let mut held = lock.lock(1);
        let (waiter, ran) = (lock.clone(), Arc::new(Mutex::new(false)));
        let as_urgent = {
            let ran = ran.clone();
            thread::spawn(move || {
                let _g = waiter.lock(0);
                *ran.lock().unwrap() = true;
            })
        };
        while lock.queue().waiting.is_empty() {
            thread::sleep(Duration::from_millis(1));
        }
        held.let_more_urgent_in();
        assert!(*ran.lock().unwrap(), "the rank-0 waiter went first");
        as_urgent.join().unwrap();
        let waiter = lock.clone();
        let as_urgent_as_me = thread::spawn(move || drop(waiter.lock(1)));
        while lock.queue().waiting.is_empty() {
            thread::sleep(Duration::from_millis(1));
        }
        held.let_more_urgent_in();
        assert!(lock.queue().held && lock.queue().waiting.len() == 1, "an equal rank waits for the guard's drop");
        drop(held);
        as_urgent_as_me.join().unwrap();
        assert!(!lock.queue().held);
    }

    #[test]
    fn a_free_lock_is_taken_at_once_and_again_after_release() {
        let lock = PriorityLock::default();
        drop(lock.lock(2));
        let g = lock.lock(0);
        assert!(lock.queue().held);
        drop(g);
        assert!(!lock.queue().held && lock.queue().waiting.is_empty());
    }

    #[test]
    fn held_time_adds_up_over_guards() {
        let lock = PriorityLock::default();
        assert_eq!(lock.held_seconds(), 0.0);
        for _ in 0..2 {
            let _held = lock.lock(0);
            thread::sleep(Duration::from_millis(20));
        }
        let held = lock.held_seconds();
        assert!((0.04..1.0).contains(&held), "held {held} s");
        drop(lock.lock(1));
        assert!(lock.held_seconds() < held + 0.01, "an instant hold adds next to nothing");
    }
}

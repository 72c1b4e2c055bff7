//! Large values dropped off the prover's path.

use std::thread::JoinHandle;

/// Drops `value` (about `bytes` in size) on a thread of its own when it is
/// large, returning that thread: giving gigabytes back to the kernel takes
/// ~0.05 s a GB, which the prover, and its GPU, need not wait for. Small
/// values drop here. The engine counts a partition's memory free when its
/// proof returns, under a second early for what is freed last; the next
/// partition's synthesis takes its memory over many seconds.
pub(crate) fn free_later<T: Send + 'static>(bytes: usize, value: T) -> Option<JoinHandle<()>> {
    if bytes < 64 << 20 {
        return None;
    }
    // A failed spawn drops the closure, and `value` with it, here.
    std::thread::Builder::new().name("cuzk-free".into()).spawn(move || drop(value)).ok()
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;

    use super::*;

    /// Sends the name of the thread that drops it.
    struct Dropped(mpsc::Sender<Option<String>>);

    impl Drop for Dropped {
        fn drop(&mut self) {
            let _ = self.0.send(std::thread::current().name().map(String::from));
        }
    }

    #[test]
    fn large_values_are_dropped_on_a_thread_of_their_own_and_small_ones_here() {
        let (tx, rx) = mpsc::channel();
        assert!(free_later(1 << 10, Dropped(tx.clone())).is_none());
        assert_eq!(rx.try_recv().unwrap(), std::thread::current().name().map(String::from));
        let freeing = free_later(1 << 30, Dropped(tx)).expect("a thread for a large value");
        freeing.join().unwrap();
        assert_eq!(rx.try_recv().unwrap().as_deref(), Some("cuzk-free"));
    }
}

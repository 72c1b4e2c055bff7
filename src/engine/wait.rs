//! The one way the engine's callers wait: on a condition variable, until
//! what they wait for is there or a deadline passes.

use std::{
    sync::{Condvar, MutexGuard},
    time::{Duration, Instant},
};

/// Waits on `cv` (notified whenever `guarded` changes) until `ready` takes
/// something out of the guarded state, for at most `timeout` (`None`:
/// without limit). `None` if the time ran out first.
pub(super) fn until<T, R>(
    cv: &Condvar,
    mut guarded: MutexGuard<'_, T>,
    timeout: Option<Duration>,
    mut ready: impl FnMut(&mut T) -> Option<R>,
) -> Option<R> {
    let deadline = timeout.map(|t| Instant::now() + t);
    loop {
        if let Some(found) = ready(&mut guarded) {
            return Some(found);
        }
        guarded = match deadline {
            None => cv.wait(guarded).unwrap_or_else(|e| e.into_inner()),
            Some(deadline) => {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return None;
                }
                cv.wait_timeout(guarded, left).unwrap_or_else(|e| e.into_inner()).0
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    #[test]
    fn returns_what_is_ready_or_none_at_the_deadline() {
        let shared = Arc::new((Mutex::new(None::<u32>), Condvar::new()));
        let (m, cv) = &*shared;
        assert_eq!(until(cv, m.lock().unwrap(), Some(Duration::from_millis(20)), |v| v.take()), None);
        let setter = {
            let shared = shared.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(20));
                *shared.0.lock().unwrap() = Some(7);
                shared.1.notify_all();
            })
        };
        assert_eq!(until(cv, m.lock().unwrap(), None, |v| v.take()), Some(7));
        setter.join().unwrap();
        *m.lock().unwrap() = Some(8);
        assert_eq!(until(cv, m.lock().unwrap(), Some(Duration::ZERO), |v| v.take()), Some(8), "ready before the deadline is checked");
    }
}

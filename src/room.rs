//! Room in the vectors of gigabytes a partition needs (its witness, a, b, c,
//! H's transforms), taken fallibly: where the memory cannot be had, the
//! partition fails with an error instead of the process aborting.

/// How a vector that lacks room takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Growth {
    /// Just what is asked: a vector sized once (a partition joined from its
    /// pieces), which must not hold a spare half of gigabytes.
    Exact,
    /// At least as much again as it holds, as `push` grows: a vector grown a
    /// part at a time, which would otherwise be copied at every part.
    Doubling,
}

impl Growth {
    /// Room in `v` for `more` elements taken this way, or an error naming `what`.
    pub fn room<T>(self, v: &mut Vec<T>, more: usize, what: &str) -> anyhow::Result<()> {
        match self {
            Growth::Exact => try_room(v, more, what),
            Growth::Doubling if v.capacity() - v.len() >= more => Ok(()),
            Growth::Doubling => try_room(v, more.max(v.len()), what),
        }
    }
}

/// Room in `v` for `more` elements, or an error naming `what`.
pub fn try_room<T>(v: &mut Vec<T>, more: usize, what: &str) -> anyhow::Result<()> {
    v.try_reserve_exact(more).map_err(|e| {
        let mib = (v.len() + more).saturating_mul(std::mem::size_of::<T>()) >> 20;
        anyhow::anyhow!("cannot allocate {mib} MiB for {what}: {e}")
    })
}

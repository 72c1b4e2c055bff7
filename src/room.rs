//! Room in the vectors of gigabytes a partition needs (its witness, a, b, c,
//! H's transforms), taken fallibly: where the memory cannot be had, the
//! partition fails with an error instead of the process aborting.

/// Room in `v` for `more` elements, or an error naming `what`.
pub fn try_room<T>(v: &mut Vec<T>, more: usize, what: &str) -> anyhow::Result<()> {
    v.try_reserve_exact(more).map_err(|e| {
        let mib = (v.len() + more).saturating_mul(std::mem::size_of::<T>()) >> 20;
        anyhow::anyhow!("cannot allocate {mib} MiB for {what}: {e}")
    })
}

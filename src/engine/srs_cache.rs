//! Process-global cache of Groth16 proving keys, keyed by circuit id. A key is
//! read from the parameter cache the first time any caller needs it and stays
//! resident for every later call; concurrent first callers wait for one load.

use std::{
    collections::HashMap,
    path::Path,
    sync::{Arc, Mutex},
    time::Instant,
};

use anyhow::{Context, Result};
use once_cell::sync::{Lazy, OnceCell};

use crate::groth16::ProvingKey;

type Slot = Arc<OnceCell<Arc<ProvingKey>>>;

static CACHE: Lazy<Mutex<HashMap<String, Slot>>> = Lazy::new(Default::default);

/// The proving key of circuit `id`, loaded from `path` if not yet resident.
/// A failed load is not cached: the next call tries again.
pub fn get(id: &str, path: &Path) -> Result<Arc<ProvingKey>> {
    let slot = CACHE.lock().unwrap_or_else(|e| e.into_inner()).entry(id.to_owned()).or_default().clone();
    slot.get_or_try_init(|| {
        let start = Instant::now();
        let key = ProvingKey::read_file(path)
            .with_context(|| format!("loading Groth16 parameters of {id}"))?;
        log::info!(
            "cuzk: loaded parameters {id} ({} MiB) in {:?}",
            key.size_bytes() >> 20,
            start.elapsed()
        );
        Ok(Arc::new(key))
    })
    .cloned()
}

/// The resident keys themselves (the engine counts them in its memory budget).
pub fn resident_keys() -> Vec<Arc<ProvingKey>> {
    let cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    cache.values().filter_map(|slot| slot.get().cloned()).collect()
}

/// Drops circuit `id`'s key from the cache, and its copies on the GPUs; the
/// memory is freed once no job still holding it is running. False if it was
/// not resident.
pub fn evict(id: &str) -> bool {
    let removed = CACHE.lock().unwrap_or_else(|e| e.into_inner()).remove(id);
    let was_resident = removed.is_some_and(|slot| slot.get().is_some());
    #[cfg(feature = "cuda")]
    crate::gpu::drop_unused_keys();
    if was_resident {
        log::info!("cuzk: evicted parameters {id}");
    }
    was_resident
}

/// Circuit ids of the resident keys with their host memory in bytes.
pub fn resident() -> Vec<(String, usize)> {
    let cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    let mut out: Vec<_> = cache
        .iter()
        .filter_map(|(id, slot)| slot.get().map(|k| (id.clone(), k.size_bytes())))
        .collect();
    out.sort();
    out
}

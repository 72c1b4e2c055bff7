//! Process-global state of the prover: the engine (scheduler, workers,
//! budgets), its configuration, the proving-key cache, the devices, and the
//! asynchronous requests of the `cuzk_*` C API.

mod bulk_pool;
pub mod config;
pub mod devices;
pub mod estimate;
pub mod job;
pub mod prover;
pub mod requests;
pub mod scheduler;
pub mod srs_cache;
pub mod synthesis;
pub mod status;
pub mod timeline;
mod wait;

use std::{path::Path, sync::Arc};

use anyhow::Result;
use once_cell::sync::OnceCell;

pub use config::{Config, GpuFailure};
pub use job::{
    is_cancelled, synthesis_of, Cancelled, JobId, JobSpec, JobState, PartitionWork, Priority, ProofKind, Synthesis, SynthesisKind,
    SynthesizeFn, Verification,
};
pub use requests::CallContext;
pub use scheduler::{Engine, WaitOutcome};

use crate::groth16::{Proof, ProvingKey};

static ENGINE: OnceCell<Engine> = OnceCell::new();

/// The process's engine, started on first use with `Config::from_env()`.
pub fn global() -> Result<&'static Engine> {
    ENGINE.get_or_try_init(|| {
        let config = Config::from_env()?;
        log::info!("cuzk: engine starting with {config:?}");
        Ok(Engine::new(config))
    })
}

/// Replaces the fields of the global configuration present in `json` (see
/// docs/CONFIG.md); returns the configuration now in force.
pub fn configure(json: &[u8]) -> Result<Config> {
    let engine = global()?;
    let config = engine.config().updated(json)?;
    engine.configure(config.clone());
    log::info!("cuzk: engine reconfigured: {config:?}");
    Ok(config)
}

/// The proving key of circuit `id` from the configured parameter cache (the
/// file name of `stock_path`, stock's location of it), resident after the
/// first call.
pub fn proving_key(id: &str, stock_path: &Path) -> Result<Arc<ProvingKey>> {
    srs_cache::get(id, &global()?.config().params_path(stock_path))
}

/// Proves `spec` on the global engine under `context` and waits for its
/// verified proofs.
pub fn prove(context: &CallContext, spec: JobSpec) -> Result<Vec<Proof>> {
    context.prove(global()?, spec)
}

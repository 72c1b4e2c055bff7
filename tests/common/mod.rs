//! Shared by the integration tests: the local parameter cache, a sealed
//! 2 KiB sector and temporary folders.
#![allow(dead_code)]

pub mod c_program;

use std::{
    path::PathBuf,
    sync::Once,
    time::{Duration, Instant},
};

use cuzk::{
    api::{params, sample},
    circuit::Synthesized,
};
use filecoin_proofs_api::RegisteredSealProof;

static PARAMS: Once = Once::new();

/// Points the stock settings at cuzk's parameter cache and generates the 2 KiB
/// PoRep parameters there if missing (about 30 s on 2 cores, once per machine).
pub fn porep_params() {
    PARAMS.call_once(|| {
        params::use_local_cache_unless_set();
        params::generate(2048, &[params::Family::PoRep]).expect("generating 2 KiB PoRep parameters");
    });
}

/// A freshly sealed 2 KiB V1_1 sector (seeded, so reproducible).
pub fn sealed_2kib(seed: u64) -> sample::SealedSector {
    porep_params();
    sample::seal_sector_in_temp(RegisteredSealProof::StackedDrg2KiBV1_1, seed).expect("sealing")
}

/// Everything of a synthesized circuit that the prover's work depends on.
pub fn shape(cs: &Synthesized) -> [usize; 6] {
    [
        cs.num_constraints(),
        cs.inputs.len(),
        cs.aux.len(),
        cs.a_aux_density.count(),
        cs.b_input_density.count(),
        cs.b_aux_density.count(),
    ]
}

/// Waits until `done`, failing the test after `within`.
pub fn wait_until(what: &str, within: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + within;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// A fresh folder `cuzk-<name>-<pid>` under the system's temp dir, removed
/// when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("cuzk-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

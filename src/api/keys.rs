//! The proving key of each registered proof: its circuit id, where stock keeps
//! it, loading it into the engine's cache (resident from then on) and evicting it.

use std::{path::PathBuf, sync::Arc};

use anyhow::{Context, Result};
use filecoin_proofs_api::{RegisteredPoStProof, RegisteredSealProof, RegisteredUpdateProof};
use storage_proofs_core::parameter_cache::parameter_cache_params_path;

use super::{params::update_circuit_id, shape::with_shape};
use crate::{
    engine::{self, srs_cache},
    groth16::ProvingKey,
};

/// A registered proof whose circuit has a proving key.
#[derive(Clone, Copy, Debug)]
pub enum KeyOf {
    Seal(RegisteredSealProof),
    Post(RegisteredPoStProof),
    Update(RegisteredUpdateProof),
}

impl KeyOf {
    pub fn circuit_id(self) -> Result<String> {
        match self {
            KeyOf::Seal(rp) => rp.circuit_identifier(),
            KeyOf::Post(rp) => rp.circuit_identifier(),
            KeyOf::Update(rp) => {
                let size = u64::from(rp.sector_size());
                with_shape!(size, update_circuit_id, size)
            }
        }
    }

    /// Stock's path of the key (the engine reads the same file name from its
    /// configured parameter cache).
    pub fn stock_path(self) -> Result<PathBuf> {
        match self {
            KeyOf::Seal(rp) => rp.cache_params_path(),
            KeyOf::Post(rp) => rp.cache_params_path(),
            KeyOf::Update(_) => Ok(parameter_cache_params_path(&self.circuit_id()?)),
        }
    }

    /// The key, read on first use and resident afterwards.
    pub fn load(self) -> Result<Arc<ProvingKey>> {
        engine::proving_key(&self.circuit_id()?, &self.stock_path()?).with_context(|| format!("{self:?} parameters"))
    }

    /// Drops the key from the cache; false if it was not resident.
    pub fn evict(self) -> Result<bool> {
        Ok(srs_cache::evict(&self.circuit_id()?))
    }
}

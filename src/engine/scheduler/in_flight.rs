//! The host memory of the partitions in flight, from the start of their
//! synthesis to the end of their proof, as the admission of a synthesis
//! counts it.

use std::sync::Arc;

use crate::{engine::config::Config, groth16::ProvingKey};

pub(super) struct InFlight {
    /// The host bytes a partition under a key holds if it starts now.
    pub(super) estimate: fn(&Config, &Arc<ProvingKey>) -> u64,
    bytes: u64,
    peak: u64,
}

impl InFlight {
    pub(super) fn new(estimate: fn(&Config, &Arc<ProvingKey>) -> u64) -> Self {
        Self { estimate, bytes: 0, peak: 0 }
    }

    /// Estimated bytes of the partitions in flight now.
    pub(super) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The most `bytes` has been.
    pub(super) fn peak(&self) -> u64 {
        self.peak
    }

    pub(super) fn admit(&mut self, bytes: u64) {
        self.bytes += bytes;
        self.peak = self.peak.max(self.bytes);
    }

    pub(super) fn release(&mut self, bytes: u64) {
        self.bytes -= bytes;
    }
}

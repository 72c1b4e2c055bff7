//! The GPU kernels outside a proof, for tests and benchmarks: points uploaded
//! once for repeated MSMs, and the H polynomial. Each call takes the device's
//! lock, as a proof step does, ahead of any proof's waiting step.

use anyhow::Result;
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar as Fr};

use super::{
    devices::Device,
    h_poly::{h_on_device, HPlan},
    resident::{g1_query, g2_query, MsmHow, Query, WindowedMsm},
    scalars::DeviceScalars,
    sys::MsmSplit,
};

/// Points kept on a device.
pub struct DevicePoints {
    device: &'static Device,
    query: Query,
}

impl DevicePoints {
    pub fn upload_g1(device: &'static Device, points: &[G1Affine]) -> Result<Self> {
        Ok(Self { device, query: g1_query(device.index, points, true)? })
    }

    pub fn upload_g2(device: &'static Device, points: &[G2Affine]) -> Result<Self> {
        Ok(Self { device, query: g2_query(device.index, points, true)? })
    }

    /// MSM over the first `scalars.len()` points of an upload_g1, split by
    /// scalar where that pays, in the device's free memory (as a proof's
    /// MSMs over its witness).
    pub fn msm_g1(&self, scalars: &[Fr]) -> Result<G1Projective> {
        Ok(self.msm_g1_with(scalars, self.auto(scalars.len())?)?.0)
    }

    /// As `msm_g1`, the way `how` says, and what the call found.
    pub fn msm_g1_with(&self, scalars: &[Fr], how: MsmHow) -> Result<(G1Projective, MsmSplit)> {
        let _busy = self.device.hold(0)?;
        self.query.msm_g1(scalars, how)
    }

    /// As `msm_g1` over the first `n` of `scalars` (on the device), dense,
    /// in pieces of at most `piece` terms (as a proof's H MSM).
    pub fn msm_g1_in_pieces(&self, scalars: &DeviceScalars, n: usize, piece: usize) -> Result<G1Projective> {
        let _busy = self.device.hold(0)?;
        self.query.msm_g1_device_in_pieces(scalars, n, piece, || Ok(()))
    }

    /// As `msm_g1_in_pieces`, by the windowed Pippenger run as `how` says.
    pub fn msm_g1_windowed(&self, scalars: &DeviceScalars, n: usize, how: WindowedMsm) -> Result<G1Projective> {
        let _busy = self.device.hold(0)?;
        self.query.msm_g1_device_windowed(scalars, n, how, || Ok(()))
    }

    /// MSM over the first `scalars.len()` points of an upload_g2.
    pub fn msm_g2(&self, scalars: &[Fr]) -> Result<G2Projective> {
        Ok(self.msm_g2_with(scalars, self.auto(scalars.len())?)?.0)
    }

    /// As `msm_g2`, the way `how` says, and what the call found.
    pub fn msm_g2_with(&self, scalars: &[Fr], how: MsmHow) -> Result<(G2Projective, MsmSplit)> {
        let _busy = self.device.hold(0)?;
        self.query.msm_g2(scalars, how)
    }

    fn auto(&self, n: usize) -> Result<MsmHow> {
        MsmHow::auto(n, || self.device.free_bytes())
    }
}

/// The H coefficients on `device` with the vectors placed as `plan` says, as
/// `groth16::cpu::h_coefficients` computes them.
pub fn h_coefficients(device: &Device, a: &[Fr], b: &[Fr], c: &[Fr], plan: HPlan) -> Result<Vec<Fr>> {
    let _busy = device.hold(0)?;
    match h_on_device(device, a, b, c, plan)? {
        Some(h) => h.to_host(),
        None => Ok(Vec::new()),
    }
}

//! The GPU backend of the Groth16 prover: H through sppark's NTT, and every MSM
//! (G1 and G2) through sppark's Pippenger over the key's queries on the device.

use std::{
    sync::{atomic::AtomicUsize, atomic::Ordering, Arc, MutexGuard},
    time::Instant,
};

use anyhow::{Context, Result};
use blstrs::{G1Projective, G2Projective, Scalar as Fr};
use group::Group;

use super::{
    devices::{devices, Device},
    h_poly::{h_on_device, HPlan},
    resident::{key_on, DeviceKey},
};
use crate::groth16::{cpu, Backend, G1Query, ProvingKey};

/// A device held for one proof, with the proving key on it.
pub struct GpuProver {
    key: Arc<DeviceKey>,
    device: &'static Device,
    _busy: MutexGuard<'static, ()>,
}

static NEXT: AtomicUsize = AtomicUsize::new(0);

impl GpuProver {
    /// A free device (or, when all are busy, the next in turn once it is free)
    /// with `pk` on it; `None` without a usable GPU.
    pub fn acquire(pk: &Arc<ProvingKey>) -> Option<Result<Self>> {
        Self::acquire_among(pk, None)
    }

    /// As `acquire`, among the devices of index in `allowed` (`None`: all);
    /// `None` when that leaves none.
    pub fn acquire_among(pk: &Arc<ProvingKey>, allowed: Option<&[usize]>) -> Option<Result<Self>> {
        let all: Vec<&'static Device> = devices()
            .iter()
            .filter(|d| allowed.is_none_or(|a| usize::try_from(d.index).is_ok_and(|i| a.contains(&i))))
            .collect();
        if all.is_empty() {
            return None;
        }
        let idle = all.iter().find_map(|d| d.lock.try_lock().ok().map(|g| (*d, g)));
        let (device, busy) = idle.unwrap_or_else(|| {
            let d = all[NEXT.fetch_add(1, Ordering::Relaxed) % all.len()];
            (d, d.lock.lock().unwrap_or_else(|e| e.into_inner()))
        });
        Some(key_on(device, pk).map(|key| Self { key, device, _busy: busy }))
    }

    pub fn device(&self) -> &Device {
        self.device
    }

    /// Whether the key sits in device memory (else it streams from the host).
    pub fn key_resident(&self) -> bool {
        self.key.resident
    }
}

impl Backend for GpuProver {
    fn h_term(&self, a: &[Fr], b: &[Fr], c: &[Fr]) -> Result<G1Projective> {
        let start = Instant::now();
        let domain = a.len().next_power_of_two();
        let Some(plan) = HPlan::fitting(self.device.free_bytes()?, domain) else {
            // Not even one NTT vector fits: H on the CPU, its MSM still here.
            log::info!("cuzk GPU {}: no room for a 2^{} NTT: H computed on the CPU", self.device.index, domain.trailing_zeros());
            let h = cpu::h_coefficients(a, b, c)?;
            return self.key.h.msm_g1(&h).context("GPU MSM H");
        };
        let Some(h) = h_on_device(self.device, a, b, c, plan)? else {
            return Ok(G1Projective::identity());
        };
        let ntt = start.elapsed();
        let term = self.key.h.msm_g1_device(&h).context("GPU MSM H")?;
        log::debug!("cuzk GPU {}: H NTTs {ntt:?} ({plan:?}), H MSM {:?}", self.device.index, start.elapsed() - ntt);
        Ok(term)
    }

    fn msm_g1(&self, query: G1Query, scalars: &[Fr]) -> Result<G1Projective> {
        let k = &self.key;
        let q = match query {
            G1Query::L => &k.l,
            G1Query::A => &k.a,
            G1Query::BG1 => &k.b_g1,
        };
        q.msm_g1(scalars).with_context(|| format!("GPU MSM {query:?}"))
    }

    fn msm_b_g2(&self, scalars: &[Fr]) -> Result<G2Projective> {
        self.key.b_g2.msm_g2(scalars).context("GPU MSM B (G2)")
    }
}

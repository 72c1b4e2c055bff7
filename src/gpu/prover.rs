//! The GPU backend of the Groth16 prover: H through sppark's NTT, and every MSM
//! (G1 and G2) through sppark's Pippenger over the key's queries on the device.

use std::{
    sync::{atomic::Ordering, Arc},
    time::Instant,
};

use anyhow::{Context, Result};
use blstrs::{G1Projective, G2Projective, Scalar as Fr};
use group::Group;

use super::{
    devices::{devices, Device},
    h_poly::{h_of_witness, h_on_device, HPlan},
    resident::{key_on, room, DeviceKey},
};
use crate::{
    circuit::{Matrices, Witness},
    groth16::{backend::h_term_from_host_abc, cpu, Backend, G1Query, HTerm, ProvingKey},
    priority_lock::PriorityGuard,
};

/// A device assigned to one proof, with the proving key on it. The device is
/// held one step at a time (H, each MSM), at the proof's rank: between two
/// steps of a long proof, a more urgent proof's steps go first, and the
/// device is free while the CPU gathers the MSM scalars.
pub struct GpuProver {
    key: Arc<DeviceKey>,
    device: &'static Device,
    rank: u8,
    budget: Option<u64>,
}

impl GpuProver {
    /// The least loaded device with `pk` on it, for a proof of rank 0 (most
    /// urgent); `None` without a usable GPU.
    pub fn acquire(pk: &Arc<ProvingKey>) -> Option<Result<Self>> {
        Self::acquire_among(pk, None, 0, None)
    }

    /// As `acquire`, among the devices of index in `allowed` (`None`: all),
    /// for a proof whose steps take the device at `rank` (0 first), holding
    /// at most `budget` bytes of its memory with the keys kept there (`None`:
    /// what is free); `None` when that leaves no device.
    pub fn acquire_among(
        pk: &Arc<ProvingKey>,
        allowed: Option<&[usize]>,
        rank: u8,
        budget: Option<u64>,
    ) -> Option<Result<Self>> {
        let device = devices()
            .iter()
            .filter(|d| allowed.is_none_or(|a| usize::try_from(d.index).is_ok_and(|i| a.contains(&i))))
            .min_by_key(|d| d.proofs.load(Ordering::Relaxed))?;
        device.proofs.fetch_add(1, Ordering::Relaxed);
        // Under the device's lock: no other proof's step holds working memory
        // while the key is sized against the free memory.
        let key = key_on(device, pk, budget, &device.lock.lock(rank));
        Some(key.map(|key| Self { key, device, rank, budget }).inspect_err(|_| {
            device.proofs.fetch_sub(1, Ordering::Relaxed);
        }))
    }

    pub fn device(&self) -> &Device {
        self.device
    }

    /// Whether the key sits in device memory (else it streams from the host).
    pub fn key_resident(&self) -> bool {
        self.key.resident
    }

    /// Puts the key's recorded matrices `m` on the device now, when they fit
    /// (see `matrices_on_device`).
    pub fn upload_matrices(&self, m: &Matrices) -> Result<()> {
        let step = self.step();
        self.key.matrices(self.device, m, room(self.device, self.budget)?, &step)?;
        Ok(())
    }

    /// Whether the key's recorded matrices are on the device (a witness's a,
    /// b and c are evaluated there).
    pub fn matrices_on_device(&self) -> bool {
        self.key.has_matrices()
    }

    /// The device for one step.
    fn step(&self) -> PriorityGuard<'static> {
        self.device.lock.lock(self.rank)
    }
}

impl Drop for GpuProver {
    fn drop(&mut self) {
        self.device.proofs.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Backend for GpuProver {
    fn h_term(&self, a: &[Fr], b: &[Fr], c: &[Fr]) -> Result<HTerm> {
        let step = self.step();
        let start = Instant::now();
        let domain = a.len().next_power_of_two();
        let Some(plan) = HPlan::fitting(room(self.device, self.budget)?, domain) else {
            // Not even one NTT vector fits: H on the CPU (the device free for
            // other proofs meanwhile), its MSM still here.
            log::info!("cuzk GPU {}: no room for a 2^{} NTT: H computed on the CPU", self.device.index, domain.trailing_zeros());
            drop(step);
            let h = cpu::h_coefficients(a, b, c)?;
            let ntt = start.elapsed().as_secs_f64();
            let _step = self.step();
            let term = self.key.h.msm_g1(&h).context("GPU MSM H")?;
            return Ok(HTerm { term, abc: 0.0, copies: 0.0, ntt, msm: start.elapsed().as_secs_f64() - ntt });
        };
        let Some(h) = h_on_device(self.device, a, b, c, plan)? else {
            return Ok(HTerm { term: G1Projective::identity(), abc: 0.0, copies: 0.0, ntt: 0.0, msm: 0.0 });
        };
        let (on_device, copies) = (start.elapsed().as_secs_f64(), h.copy_seconds());
        let term = self.key.h.msm_g1_device(&h).context("GPU MSM H")?;
        let msm = start.elapsed().as_secs_f64() - on_device;
        log::debug!("cuzk GPU {}: H copies {copies:.3} s, NTTs {:.3} s ({plan:?}), MSM {msm:.3} s", self.device.index, on_device - copies);
        Ok(HTerm { term, abc: 0.0, copies, ntt: on_device - copies, msm })
    }

    /// a, b and c evaluated on the device from the key's matrices, there
    /// from the first witness on, and never copied; where the matrices do
    /// not fit, evaluated on the CPU and copied in as in `h_term`.
    fn h_term_of_witness(&self, m: &Matrices, w: &Witness) -> Result<HTerm> {
        let step = self.step();
        let start = Instant::now();
        let room_then = room(self.device, self.budget)?;
        let Some(on_device) = self.key.matrices(self.device, m, room_then, &step)? else {
            drop(step);
            return h_term_from_host_abc(self, m, w);
        };
        let upload = start.elapsed().as_secs_f64();
        let room_now = room(self.device, self.budget)?.saturating_sub((w.inputs.len() + w.aux.len()) * 32);
        let plan = HPlan::fitting(room_now, m.num_constraints().next_power_of_two())
            .context("no device memory left for a witness's H step beside the circuit's matrices")?;
        let Some(h) = h_of_witness(on_device, w, plan)? else {
            return Ok(HTerm { term: G1Projective::identity(), abc: 0.0, copies: 0.0, ntt: 0.0, msm: 0.0 });
        };
        let on_device = start.elapsed().as_secs_f64();
        let (copies, abc) = (upload + h.copy_seconds(), h.abc_seconds());
        let term = self.key.h.msm_g1_device(&h).context("GPU MSM H")?;
        let msm = start.elapsed().as_secs_f64() - on_device;
        let ntt = on_device - copies - abc;
        log::debug!("cuzk GPU {}: H of a witness: copies {copies:.3} s, a, b, c {abc:.3} s, NTTs {ntt:.3} s ({plan:?}), MSM {msm:.3} s", self.device.index);
        Ok(HTerm { term, abc, copies, ntt, msm })
    }

    fn msm_g1(&self, query: G1Query, scalars: &[Fr]) -> Result<G1Projective> {
        let _step = self.step();
        let k = &self.key;
        let q = match query {
            G1Query::L => &k.l,
            G1Query::A => &k.a,
            G1Query::BG1 => &k.b_g1,
        };
        q.msm_g1(scalars).with_context(|| format!("GPU MSM {query:?}"))
    }

    fn msm_b_g2(&self, scalars: &[Fr]) -> Result<G2Projective> {
        let _step = self.step();
        self.key.b_g2.msm_g2(scalars).context("GPU MSM B (G2)")
    }
}

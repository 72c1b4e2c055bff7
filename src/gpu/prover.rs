//! The GPU backend of the Groth16 prover: H through sppark's NTT, and every MSM
//! (G1 and G2) through sppark's Pippenger over the key's queries on the device.

use std::{
    sync::{atomic::Ordering, Arc, Mutex, MutexGuard},
    time::Instant,
};

use anyhow::{Context, Result};
use blstrs::{G1Projective, G2Projective, Scalar as Fr};
use group::Group;

use super::{
    devices::{devices_among, Device},
    h_poly::{h_of_witness, h_on_device, HPlan},
    placement::Residency,
    priority_lock::PriorityGuard,
    r1cs::{DeviceMatrices, Selection},
    resident::{key_cached, key_on, key_placed, room, DeviceKey, MsmHow, WindowedMsm},
    scalars::DeviceScalars,
    step::Step,
    sys::MsmSplit,
};
use crate::{
    circuit::{Matrices, PackedWitness, Witness},
    groth16::{
        backend::{h_term_from_host_abc, msm_g1_picked_on_host},
        cpu, Backend, G1Query, HTerm, MsmScalars, ProvingKey,
    },
};

/// Terms of one piece of the H MSM over a streamed key: a more urgent proof
/// waits at most for one piece, and each piece still spans several of
/// sppark's batches, so cutting the MSM costs little.
const H_MSM_PIECE: usize = 1 << 25;

/// A witness of at most this many bytes is uploaded within its H step: the
/// copy is shorter than a second wait for the device would be (a Winning
/// PoSt's); a larger one is uploaded without the device held.
const UPLOAD_IN_STEP_BYTES: usize = 32 << 20;

/// A packed witness of at most this many bytes is copied and unpacked
/// within its H step (a real PoRep or SnapDeals partition's, ~1% other
/// values, is well under it); one with more others goes whole, uploaded
/// without the device held, so a packing never holds the device long.
const PACKED_IN_STEP_BYTES: usize = 256 << 20;

/// Keys of fewer H points than this are proved holding the device from the
/// first step to the last: such a proof's steps take a fraction of one step
/// of a large proof, which could otherwise slip in between two of them (a
/// Winning PoSt would wait for it twice).
const HOLD_WHOLE_PROOF_BELOW: usize = 1 << 22;

/// A device assigned to one proof, with the proving key on it. The device is
/// held one step at a time (H, each MSM), at the proof's rank: between two
/// steps of a long proof, a more urgent proof's steps go first, and the
/// device is free while the CPU gathers the MSM scalars and while a
/// witness is uploaded (two proofs on one device overlap one's upload with
/// the other's steps). A small proof holds it throughout instead.
pub struct GpuProver {
    key: Arc<DeviceKey>,
    device: &'static Device,
    rank: u8,
    budget: Option<u64>,
    /// The witness its H step uploaded, kept for the proof's MSMs (a prover
    /// serves one proof).
    witness: Mutex<Option<DeviceScalars>>,
    /// For a small proof, the device from its first step on.
    held: Option<Mutex<Option<PriorityGuard<'static>>>>,
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
        let device = devices_among(allowed).min_by_key(|d| d.proofs.load(Ordering::Relaxed))?;
        // A new key is sized against the free memory under the device's
        // lock, so that no other proof's step holds working memory meanwhile.
        Some(Self::on(device, pk, rank, budget, || key_cached(device, pk, budget).map_or_else(|| key_on(device, pk, budget, &device.hold(rank)?), Ok)))
    }

    /// A proof of rank 0 on the first usable device, with the parts of
    /// `residency` of `pk` resident and the rest streamed (see `key_placed`);
    /// `None` without a usable GPU.
    pub fn acquire_placed(pk: &Arc<ProvingKey>, residency: Residency) -> Option<Result<Self>> {
        let device = devices_among(None).next()?;
        Some(Self::on(device, pk, 0, None, || key_placed(device, pk, residency, &device.hold(0)?)))
    }

    /// A proof on `device`, counted there from before `key` places its key.
    fn on(device: &'static Device, pk: &ProvingKey, rank: u8, budget: Option<u64>, key: impl FnOnce() -> Result<Arc<DeviceKey>>) -> Result<Self> {
        device.proofs.fetch_add(1, Ordering::Relaxed);
        let held = (pk.h.len() < HOLD_WHOLE_PROOF_BELOW).then(|| Mutex::new(None));
        key().map(|key| Self { key, device, rank, budget, witness: Mutex::new(None), held }).inspect_err(|_| {
            device.proofs.fetch_sub(1, Ordering::Relaxed);
        })
    }

    pub fn device(&self) -> &Device {
        self.device
    }

    /// The parts of the key in device memory (the rest streams from the
    /// host at every proof).
    pub fn residency(&self) -> Residency {
        self.key.residency
    }

    /// Puts the key's recorded matrices `m` on the device now, when they fit
    /// (see `matrices_on_device`).
    pub fn upload_matrices(&self, m: &Matrices) -> Result<()> {
        let step = self.step()?;
        self.key.matrices(self.device, m, room(self.device, self.budget)?, &step)?;
        Ok(())
    }

    /// Whether the key's recorded matrices are on the device (a witness's a,
    /// b and c are evaluated there).
    pub fn matrices_on_device(&self) -> bool {
        self.key.device_matrices().is_some()
    }

    /// Whether the witness of this proof's H step is on the device (its
    /// MSMs take their scalars there).
    pub fn holds_witness(&self) -> bool {
        self.kept_witness().is_some()
    }

    /// The device for one step; an error when a hung step holds it.
    fn step(&self) -> Result<Step<'_>> {
        let Some(held) = &self.held else {
            return Ok(Step::Own(self.device.hold(self.rank)?));
        };
        // Nothing panics while it is locked but the device's own wait.
        let mut held = held.lock().unwrap_or_else(|e| e.into_inner());
        // A kept guard may have lost the device to a more urgent proof whose
        // step then hung: taken again, not reused.
        if !held.as_ref().is_some_and(PriorityGuard::holds) {
            *held = Some(self.device.hold(self.rank)?);
        }
        Ok(Step::Held(held))
    }

    /// The MSM over H's coefficients (dense) in pieces, a more urgent
    /// proof's step let in between two (a Winning PoSt behind a C2
    /// partition waits one piece, not the whole MSM): a large one over a
    /// resident key by the windowed Pippenger (a piece is a few windows),
    /// else by sppark's.
    fn h_msm(&self, h: &DeviceScalars, n: usize, step: &mut PriorityGuard<'static>) -> Result<G1Projective> {
        let between = || step.let_more_urgent_in();
        let msm = if self.key.h.resident() && n >= WindowedMsm::MIN_TERMS {
            self.key.h.msm_g1_device_windowed(h, n, WindowedMsm::for_terms(n, room(self.device, self.budget)?), between)
        } else {
            self.key.h.msm_g1_device_in_pieces(h, n, H_MSM_PIECE, between)
        };
        msm.context("GPU MSM H")
    }

    /// How an MSM over a witness's scalars runs (the caller holds a step):
    /// split by scalar where that pays, in the device memory the budget
    /// leaves.
    fn split(&self, n: usize) -> Result<MsmHow> {
        MsmHow::auto(n, || room(self.device, self.budget))
    }

    /// An MSM's sum, what it found among its scalars logged.
    fn logged<P>(&self, what: std::fmt::Arguments, (msm, did): (P, MsmSplit)) -> P {
        log::debug!("cuzk GPU {}: MSM {what}: {did:?}", self.device.index);
        msm
    }

    fn kept_witness(&self) -> MutexGuard<'_, Option<DeviceScalars>> {
        self.witness.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `on(matrices, z, inputs)` with the witness of this proof's H step and
    /// its key's matrices on the device, under one step of it; `None` when
    /// the H step left no witness there (its a, b and c came from the host).
    fn over_kept_witness<T>(
        &self,
        scalars: &MsmScalars,
        on: impl FnOnce(&DeviceMatrices, &DeviceScalars, usize) -> Result<T>,
    ) -> Option<Result<T>> {
        let kept = self.kept_witness();
        let (z, m) = (kept.as_ref()?, self.key.device_matrices()?);
        let inputs = scalars.inputs.len();
        if z.len() != inputs + scalars.aux.len() {
            return Some(Err(anyhow::anyhow!("the witness on the device is not the one of the proof's MSMs")));
        }
        let _step = match self.step() {
            Ok(step) => step,
            Err(e) => return Some(Err(e)),
        };
        Some(on(m, z, inputs))
    }
}

impl Drop for GpuProver {
    fn drop(&mut self) {
        self.device.proofs.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Backend for GpuProver {
    fn h_term(&self, a: &[Fr], b: &[Fr], c: &[Fr]) -> Result<HTerm> {
        let mut step = self.step()?;
        let start = Instant::now();
        let domain = a.len().next_power_of_two();
        let Some(plan) = HPlan::fitting(room(self.device, self.budget)?, domain) else {
            // Not even one NTT vector fits: H on the CPU (the device free for
            // other proofs meanwhile), its MSM still here.
            log::info!("cuzk GPU {}: no room for a 2^{} NTT: H computed on the CPU", self.device.index, domain.trailing_zeros());
            drop(step);
            let h = cpu::h_coefficients(a, b, c)?;
            let ntt = start.elapsed().as_secs_f64();
            let _step = self.step()?;
            let (term, _) = self.key.h.msm_g1(&h, MsmHow::PLAIN).context("GPU MSM H")?;
            return Ok(HTerm { term, abc: 0.0, copies: 0.0, ntt, msm: start.elapsed().as_secs_f64() - ntt });
        };
        let Some(h) = h_on_device(self.device, a, b, c, plan)? else {
            return Ok(HTerm { term: G1Projective::identity(), abc: 0.0, copies: 0.0, ntt: 0.0, msm: 0.0 });
        };
        let (on_device, copies) = (start.elapsed().as_secs_f64(), h.copy_seconds());
        step.let_more_urgent_in()?;
        let term = self.h_msm(h.scalars(), h.len(), &mut step)?;
        let msm = start.elapsed().as_secs_f64() - on_device;
        log::debug!("cuzk GPU {}: H copies {copies:.3} s, NTTs {:.3} s ({plan:?}), MSM {msm:.3} s", self.device.index, on_device - copies);
        Ok(HTerm { term, abc: 0.0, copies, ntt: on_device - copies, msm })
    }

    /// a, b and c evaluated on the device from the key's matrices, there
    /// from the first witness on, and never copied; where the matrices do
    /// not fit, evaluated on the CPU and copied in as in `h_term`. A packed
    /// witness is copied and unpacked in the step where its bytes are few; a
    /// large one that is not is uploaded whole without the device held.
    fn h_term_of_witness(&self, m: &Matrices, w: &Witness, packed: Option<&PackedWitness>) -> Result<HTerm> {
        let step = self.step()?;
        let start = Instant::now();
        let room_then = room(self.device, self.budget)?;
        let Some(on_device) = self.key.matrices(self.device, m, room_then, &step)? else {
            drop(step);
            return h_term_from_host_abc(self, m, w);
        };
        let domain = m.num_constraints().next_power_of_two();
        let plan_in = |room: usize| {
            HPlan::fitting(room, domain).with_context(|| {
                format!(
                    "no device memory left for a witness's H step beside the circuit's matrices ({} MiB free for a domain of 2^{})",
                    room >> 20,
                    domain.trailing_zeros()
                )
            })
        };
        plan_in(room(self.device, self.budget)?.saturating_sub(on_device.num_z() * 32))?;
        let mut z = on_device.new_witness(&step)?;
        // The copies' time leaves out the wait for the device after them.
        let (mut step, uploaded) = if let Some(p) = packed.filter(|p| p.bytes() <= PACKED_IN_STEP_BYTES) {
            on_device.upload_packed(p, &mut z, &step)?;
            (step, start.elapsed().as_secs_f64())
        } else if z.len() * 32 <= UPLOAD_IN_STEP_BYTES {
            on_device.upload_witness(w, &mut z)?;
            (step, start.elapsed().as_secs_f64())
        } else {
            drop(step);
            on_device.upload_witness(w, &mut z)?;
            let uploaded = start.elapsed().as_secs_f64();
            (self.step()?, uploaded)
        };
        let resumed = Instant::now();
        // Sized now: other proofs' memory may have come or gone meanwhile.
        let plan = plan_in(room(self.device, self.budget)?)?;
        let Some(h) = h_of_witness(on_device, &z, plan)? else {
            return Ok(HTerm { term: G1Projective::identity(), abc: 0.0, copies: 0.0, ntt: 0.0, msm: 0.0 });
        };
        *self.kept_witness() = Some(z);
        let transformed = resumed.elapsed().as_secs_f64();
        let (copies, abc) = (uploaded + h.copy_seconds(), h.abc_seconds());
        step.let_more_urgent_in()?;
        let msm_start = Instant::now();
        let term = self.h_msm(h.scalars(), h.len(), &mut step)?;
        let msm = msm_start.elapsed().as_secs_f64();
        let ntt = transformed - h.copy_seconds() - abc;
        log::debug!("cuzk GPU {}: H of a witness: copies {copies:.3} s, a, b, c {abc:.3} s, NTTs {ntt:.3} s ({plan:?}), MSM {msm:.3} s", self.device.index);
        Ok(HTerm { term, abc, copies, ntt, msm })
    }

    fn msm_g1(&self, query: G1Query, scalars: &[Fr]) -> Result<G1Projective> {
        let _step = self.step()?;
        let k = &self.key;
        let q = match query {
            G1Query::L => &k.l,
            G1Query::A => &k.a,
            G1Query::BG1 => &k.b_g1,
        };
        Ok(self.logged(format_args!("{query:?}"), q.msm_g1(scalars, self.split(scalars.len())?).with_context(|| format!("GPU MSM {query:?}"))?))
    }

    fn msm_b_g2(&self, scalars: &[Fr]) -> Result<G2Projective> {
        let _step = self.step()?;
        Ok(self.logged(format_args!("B (G2)"), self.key.b_g2.msm_g2(scalars, self.split(scalars.len())?).context("GPU MSM B (G2)")?))
    }

    /// With the witness of the H step on the device, the scalars come from
    /// it: L's are its aux part, A's and B's are picked there.
    fn msm_g1_over(&self, query: G1Query, scalars: &MsmScalars) -> Result<G1Projective> {
        let k = &self.key;
        let on_device = self.over_kept_witness(scalars, |m, z, inputs| match query {
            G1Query::L => k.l.msm_g1_device(z, inputs, z.len() - inputs, self.split(z.len() - inputs)?),
            G1Query::A => {
                let picked = m.select(Selection::A, z)?;
                k.a.msm_g1_device(&picked, 0, picked.len(), self.split(picked.len())?)
            }
            G1Query::BG1 => {
                let picked = m.select(Selection::B, z)?;
                k.b_g1.msm_g1_device(&picked, 0, picked.len(), self.split(picked.len())?)
            }
        });
        match on_device {
            Some(msm) => {
                let msm = msm.with_context(|| format!("GPU MSM {query:?} over the witness on the device"))?;
                Ok(self.logged(format_args!("{query:?} over the witness"), msm))
            }
            None => msm_g1_picked_on_host(self, query, scalars),
        }
    }

    fn msm_b_g2_over(&self, scalars: &MsmScalars) -> Result<G2Projective> {
        let k = &self.key;
        let on_device = self.over_kept_witness(scalars, |m, z, _| {
            let picked = m.select(Selection::B, z)?;
            k.b_g2.msm_g2_device(&picked, 0, picked.len(), self.split(picked.len())?)
        });
        match on_device {
            Some(msm) => {
                let msm = msm.context("GPU MSM B (G2) over the witness on the device")?;
                Ok(self.logged(format_args!("B (G2) over the witness"), msm))
            }
            None => self.msm_b_g2(&scalars.of(G1Query::BG1)),
        }
    }
}

//! Proving keys on a device. A key is uploaded once and kept in VRAM for later
//! proofs when it fits beside a proof's working memory; otherwise its queries
//! stay in (pinned) host memory and stream through the GPU at every MSM. Keys
//! nobody holds any more, then the least recently used idle ones, make room.
//! A key's circuit matrices join it on the device when a witness is proved
//! under it, and leave with it.

use std::{
    os::raw::c_int,
    ptr,
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc, Mutex, MutexGuard, TryLockError,
    },
    time::Instant,
};

use anyhow::{Context, Result};
use blst::{blst_p1, blst_p2};
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar as Fr};
use group::Group;
use once_cell::sync::{Lazy, OnceCell};

use super::{
    devices::{devices_among, Device},
    h_poly::{witness_step_bytes, HPlan},
    priority_lock::PriorityGuard,
    placement::{KeyShape, Part, Residency},
    r1cs::DeviceMatrices,
    scalars::DeviceScalars,
    sys::{self, check, MsmSplit, RawQuery, SplitMode},
};
use crate::{circuit::Matrices, groth16::ProvingKey};

/// One query object of cuda/srs_msm.cuh, freed with its group's destructor.
pub struct Query {
    raw: RawQuery,
    free: unsafe extern "C" fn(RawQuery),
    resident: bool,
}

// SAFETY: the C++ object has no thread affinity; cuzk uses a device's queries
// only while holding that device's lock (one proof step), so calls never overlap.
unsafe impl Send for Query {}
// SAFETY: as above: shared references never call into C concurrently.
unsafe impl Sync for Query {}

impl Drop for Query {
    fn drop(&mut self) {
        // SAFETY: `raw` came from the matching `*_query_new` and is freed once.
        unsafe { (self.free)(self.raw) }
    }
}

/// How an MSM runs: whether its scalars may split (`SplitMode`), and the
/// device bytes a split may take beside what is allocated already.
#[derive(Clone, Copy, Debug)]
pub struct MsmHow {
    pub mode: SplitMode,
    pub room: usize,
}

impl MsmHow {
    /// Pippenger over every scalar (dense scalars, such as H's).
    pub const PLAIN: Self = Self { mode: SplitMode::Never, room: 0 };

    /// Fewer scalars than this run plain: counting and gathering them costs
    /// about what a split saves (the gpu bench's witness-like rows).
    pub const MIN_AUTO_SPLIT: usize = 1 << 23;

    /// How an MSM of `n` witness scalars runs by default: split where it
    /// pays, within the room `room` gives (asked only for large MSMs).
    pub fn auto(n: usize, room: impl FnOnce() -> Result<usize>) -> Result<Self> {
        if n < Self::MIN_AUTO_SPLIT {
            return Ok(Self::PLAIN);
        }
        Ok(Self { mode: SplitMode::Auto, room: room()? })
    }
}

/// How the Pippenger of cuda/window_msm.cuh runs (window sums of an MSM,
/// combined on the host): windows of `bits` bits, in at most `room` bytes
/// of device memory, and chunks of at most `max_chunk` terms (0: as many as
/// the room allows).
#[derive(Clone, Copy, Debug)]
pub struct WindowedMsm {
    pub bits: u32,
    pub room: usize,
    pub max_chunk: usize,
}

impl WindowedMsm {
    /// Windows computed per call: a more urgent proof waits for at most
    /// that many.
    const WINDOWS_PER_CALL: usize = 3;

    /// Fewer terms than this go to sppark's Pippenger: each window has a
    /// cost that does not shrink with the terms (its bucket reduction), so
    /// the windowed MSM wins from about this size on (docs/BENCHMARKS.md).
    pub const MIN_TERMS: usize = 1 << 24;

    /// The way for `n` terms in `room` bytes.
    pub fn for_terms(n: usize, room: usize) -> Self {
        Self { bits: Self::bits_for(n), room, max_chunk: 0 }
    }

    /// The window width for `n` terms: about 64 terms per bucket, within
    /// what cuda/ takes.
    fn bits_for(n: usize) -> u32 {
        n.max(1).ilog2().saturating_sub(5).clamp(10, 22)
    }

    /// Windows of `bits` bits a 255-bit scalar takes (cuda/ takes 10..=26).
    pub fn windows(bits: u32) -> Result<u32> {
        anyhow::ensure!((10..=26).contains(&bits), "windows of {bits} bits: 10 to 26 are supported");
        Ok(256u32.div_ceil(bits))
    }

    /// The sum of `2^(bits * j) * sums[j]`.
    fn combine(sums: &[G1Projective], bits: u32) -> G1Projective {
        sums.iter().rev().fold(G1Projective::identity(), |acc, w| (0..bits).fold(acc, |a, _| a.double()) + w)
    }
}

impl Query {
    /// Whether its points are in device memory (else they stream from the
    /// host at every MSM).
    pub fn resident(&self) -> bool {
        self.resident
    }

    /// `sum(scalars[i] * points[i])` over the first `scalars.len()` points,
    /// and what the call found among the scalars. The caller holds the
    /// device's lock.
    pub fn msm_g1(&self, scalars: &[Fr], how: MsmHow) -> Result<(G1Projective, MsmSplit)> {
        let (mut out, mut did) = (G1Projective::identity(), MsmSplit::default());
        let raw: &mut blst_p1 = out.as_mut();
        // SAFETY: `raw` is a G1 query (made by g1_query) used under the device
        // lock; the scalars are valid for their length; `out` is a writable
        // blst_p1, the layout of sppark's jacobian_t<fp_t> (Montgomery X, Y, Z);
        // `did` is a writable MsmSplit, the layout of msm_split_t.
        check(unsafe { sys::cuzk_gpu_g1_msm(self.raw, scalars.as_ptr(), scalars.len(), how.room, how.mode, &mut did, raw) })?;
        Ok((out, did))
    }

    /// As `msm_g1`, over scalars `from..from + n` in device memory.
    pub fn msm_g1_device(&self, scalars: &DeviceScalars, from: usize, n: usize, how: MsmHow) -> Result<(G1Projective, MsmSplit)> {
        self.g1_terms(0, scalars, from, n, how)
    }

    /// `sum(scalars[i] * points[i])` for `i < n`, scalars in device memory
    /// and dense (Pippenger over every one), in pieces of at most `piece`
    /// terms; `between` runs between two pieces (where the prover lets a
    /// more urgent proof's step go first). The caller holds the device's lock.
    pub fn msm_g1_device_in_pieces(&self, scalars: &DeviceScalars, n: usize, piece: usize, mut between: impl FnMut() -> Result<()>) -> Result<G1Projective> {
        let mut sum = G1Projective::identity();
        for from in (0..n).step_by(piece.max(1)) {
            if from > 0 {
                between()?;
            }
            sum += self.g1_terms(from, scalars, from, piece.min(n - from), MsmHow::PLAIN)?.0;
        }
        Ok(sum)
    }

    /// As `msm_g1_device_in_pieces`, by cuda/window_msm.cuh's Pippenger run
    /// as `how` says; a piece is `WINDOWS_PER_CALL` windows.
    pub fn msm_g1_device_windowed(&self, scalars: &DeviceScalars, n: usize, how: WindowedMsm, mut between: impl FnMut() -> Result<()>) -> Result<G1Projective> {
        let on_device = scalars.range(0, n)?;
        let WindowedMsm { bits, room, max_chunk } = how;
        let windows = WindowedMsm::windows(bits)?;
        let mut sums = vec![G1Projective::identity(); windows as usize];
        for (i, piece) in sums.chunks_mut(WindowedMsm::WINDOWS_PER_CALL).enumerate() {
            if i > 0 {
                between()?;
            }
            let first = (i * WindowedMsm::WINDOWS_PER_CALL) as u32;
            // SAFETY: `raw` is a G1 query used under the device lock;
            // `on_device` holds `n` scalars on this device; `piece` is
            // writable for its length, blst_p1 being the layout of
            // G1Projective and of sppark's jacobian_t<fp_t>; cuda/ checks
            // that the query has `n` points and `bits` makes those windows.
            check(unsafe { sys::cuzk_gpu_g1_msm_windows(self.raw, 0, on_device, n, bits, first, piece.len() as u32, room, max_chunk, piece.as_mut_ptr().cast()) })?;
        }
        Ok(WindowedMsm::combine(&sums, bits))
    }

    /// `sum(scalars[from + i] * points[points_from + i])` for `i < n`.
    fn g1_terms(&self, points_from: usize, scalars: &DeviceScalars, from: usize, n: usize, how: MsmHow) -> Result<(G1Projective, MsmSplit)> {
        let on_device = scalars.range(from, n)?;
        let (mut out, mut did) = (G1Projective::identity(), MsmSplit::default());
        let raw: &mut blst_p1 = out.as_mut();
        // SAFETY: as in msm_g1; `on_device` holds `n` scalars on this device;
        // cuda/ checks that points `points_from..points_from + n` exist.
        check(unsafe { sys::cuzk_gpu_g1_msm_device(self.raw, points_from, on_device, n, how.room, how.mode, &mut did, raw) })?;
        Ok((out, did))
    }

    /// As `msm_g1`, for a G2 query.
    pub fn msm_g2(&self, scalars: &[Fr], how: MsmHow) -> Result<(G2Projective, MsmSplit)> {
        let (mut out, mut did) = (G2Projective::identity(), MsmSplit::default());
        let raw: &mut blst_p2 = out.as_mut();
        // SAFETY: as in msm_g1; blst_p2 is the layout of jacobian_t<fp2_t>.
        check(unsafe { sys::cuzk_gpu_g2_msm(self.raw, scalars.as_ptr(), scalars.len(), how.room, how.mode, &mut did, raw) })?;
        Ok((out, did))
    }

    /// As `msm_g1_device`, for a G2 query.
    pub fn msm_g2_device(&self, scalars: &DeviceScalars, from: usize, n: usize, how: MsmHow) -> Result<(G2Projective, MsmSplit)> {
        let on_device = scalars.range(from, n)?;
        let (mut out, mut did) = (G2Projective::identity(), MsmSplit::default());
        let raw: &mut blst_p2 = out.as_mut();
        // SAFETY: as in msm_g2; `on_device` holds `n` scalars on this device.
        check(unsafe { sys::cuzk_gpu_g2_msm_device(self.raw, 0, on_device, n, how.room, how.mode, &mut did, raw) })?;
        Ok((out, did))
    }
}

pub fn g1_query(device: c_int, points: &[G1Affine], resident: bool) -> Result<Query> {
    let mut raw = ptr::null_mut();
    // SAFETY: `points` is valid for its length; a streamed query keeps the
    // pointer, and DeviceKey keeps the proving key (so the points) alive.
    check(unsafe { sys::cuzk_gpu_g1_query_new(device, points.as_ptr(), points.len(), resident, &mut raw) })?;
    Ok(Query { raw, free: sys::cuzk_gpu_g1_query_free, resident })
}

pub fn g2_query(device: c_int, points: &[G2Affine], resident: bool) -> Result<Query> {
    let mut raw = ptr::null_mut();
    // SAFETY: as in g1_query.
    check(unsafe { sys::cuzk_gpu_g2_query_new(device, points.as_ptr(), points.len(), resident, &mut raw) })?;
    Ok(Query { raw, free: sys::cuzk_gpu_g2_query_free, resident })
}

/// The queries of one proving key on one device, each resident or streamed
/// as its placement says.
pub struct DeviceKey {
    pub device: c_int,
    /// The parts kept on the device.
    pub residency: Residency,
    /// The GPU memory budget it was placed under (`None`: placed by hand):
    /// under another, an idle key is placed anew.
    placed_under: Option<Option<u64>>,
    /// Device bytes its queries hold between proofs: resident points and
    /// every query's buckets.
    bytes: usize,
    pub h: Query,
    pub l: Query,
    pub a: Query,
    pub b_g1: Query,
    pub b_g2: Query,
    /// The key's recorded matrices on the device: uploaded with the key
    /// when its placement keeps them, or, for a key placed before it had
    /// matrices, at the first witness proved under it for which they fit
    /// (until then a, b and c are evaluated on the CPU).
    matrices: OnceCell<DeviceMatrices>,
    /// Whether the placement weighed the matrices and left them out.
    matrices_left_out: bool,
    /// Whether a witness found no room for the matrices (logged once).
    matrices_declined: AtomicBool,
    // Declared last: dropped after the queries that may point into it.
    pub pk: Arc<ProvingKey>,
}

impl DeviceKey {
    /// `pk`'s queries on `device`, the parts of `residency` uploaded there,
    /// the rest streamed. The caller holds the device's lock (`held`).
    fn upload(device: &'static Device, pk: Arc<ProvingKey>, residency: Residency, placed_under: Option<Option<u64>>, held: &PriorityGuard) -> Result<Self> {
        let index = device.index;
        let shape = KeyShape::of(&pk);
        let key = Self {
            device: index,
            residency,
            placed_under,
            bytes: shape.kept_bytes(residency),
            h: g1_query(index, &pk.h, residency.holds(Part::H))?,
            l: g1_query(index, &pk.l, residency.holds(Part::L))?,
            a: g1_query(index, &pk.a, residency.holds(Part::A))?,
            b_g1: g1_query(index, &pk.b_g1, residency.holds(Part::BG1))?,
            b_g2: g2_query(index, &pk.b_g2, residency.holds(Part::BG2))?,
            matrices: OnceCell::new(),
            matrices_left_out: pk.matrices.get().is_some() && !residency.holds(Part::Matrices),
            matrices_declined: AtomicBool::new(false),
            pk,
        };
        if let Some(m) = key.pk.matrices.get().filter(|_| residency.holds(Part::Matrices)) {
            let uploaded = DeviceMatrices::upload_held(device, m, held)
                .with_context(|| format!("uploading the circuit's matrices to GPU {index}"))?;
            let _ = key.matrices.set(uploaded);
        }
        Ok(key)
    }

    /// Device bytes it holds between proofs.
    fn kept_bytes(&self) -> usize {
        self.bytes + self.device_matrices().map_or(0, DeviceMatrices::bytes)
    }

    /// The key's matrices on the device, once uploaded.
    pub fn device_matrices(&self) -> Option<&DeviceMatrices> {
        self.matrices.get()
    }

    /// The key's recorded matrices `m` on `device`: uploaded with the key
    /// when its placement kept them; for a key placed before it had
    /// matrices, at the first call at which they fit in `room` beside a
    /// witness's H step with both NTT vectors on the device; `None` while
    /// they do not. The caller holds the device's lock (`held`).
    pub fn matrices(&self, device: &'static Device, m: &Matrices, room: usize, held: &PriorityGuard) -> Result<Option<&DeviceMatrices>> {
        if let Some(on_device) = self.matrices.get() {
            return Ok(Some(on_device));
        }
        if self.matrices_left_out {
            return Ok(None);
        }
        let bytes = DeviceMatrices::bytes_for(m);
        let step = witness_step_bytes(m.num_inputs + m.num_aux, m.num_constraints(), HPlan::TwoVectors);
        if bytes + step > room {
            if !self.matrices_declined.swap(true, Ordering::Relaxed) {
                log::info!(
                    "cuzk: GPU {}: the circuit's matrices ({} MiB) and a witness's H step ({} MiB) do not fit in the {} MiB free (or left by the GPU memory budget): a, b and c are evaluated on the CPU until they do",
                    device.index,
                    bytes >> 20,
                    step >> 20,
                    room >> 20
                );
            }
            return Ok(None);
        }
        let start = Instant::now();
        let uploaded = DeviceMatrices::upload_held(device, m, held)
            .with_context(|| format!("uploading the circuit's matrices to GPU {}", device.index))?;
        log::info!("cuzk: GPU {}: uploaded the circuit's matrices ({} MiB) in {:?}", device.index, bytes >> 20, start.elapsed());
        // Under the device's lock no other call uploads them meanwhile.
        Ok(Some(self.matrices.get_or_init(|| uploaded)))
    }
}

/// Device bytes a proof under `pk` needs with nothing of the key kept on
/// the device but its buckets: below it, a proof's GPU steps run out of
/// memory.
pub fn streamed_key_room(pk: &ProvingKey) -> usize {
    KeyShape::of(pk).room_for(Residency::default())
}

static KEYS: Lazy<Mutex<Vec<Arc<DeviceKey>>>> = Lazy::new(Default::default);

fn keys() -> MutexGuard<'static, Vec<Arc<DeviceKey>>> {
    KEYS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Drops the device copies (and with them the host memory) of the keys only
/// this cache still holds: such a key can never be asked for again.
pub fn drop_unused_keys() {
    drop_unused(&mut keys());
}

fn drop_unused(keys: &mut Vec<Arc<DeviceKey>>) {
    keys.retain(|k| Arc::strong_count(&k.pk) > 1 || Arc::strong_count(k) > 1);
}

/// Bytes of `device` a proof step may take now: its free memory, and under a
/// budget, no more than the budget leaves beside the keys kept there.
pub fn room(device: &Device, budget: Option<u64>) -> Result<usize> {
    room_beside(&keys(), device, budget)
}

/// `room` with the cache's `keys` in hand.
fn room_beside(keys: &[Arc<DeviceKey>], device: &Device, budget: Option<u64>) -> Result<usize> {
    let kept = keys.iter().filter(|k| k.device == device.index).map(|k| k.kept_bytes()).sum();
    Ok(room_within(device.free_bytes()?, budget, kept))
}

fn room_within(free: usize, budget: Option<u64>, kept: usize) -> usize {
    match budget {
        None => free,
        Some(b) => free.min(usize::try_from(b).unwrap_or(usize::MAX).saturating_sub(kept)),
    }
}

/// `pk` on `device` if it is there already (most recently used now), placed
/// under `budget`, or in use by a proof (placed anew once idle). Needs no
/// device lock: a proof of a key on the device starts without waiting for
/// another proof's step.
pub fn key_cached(device: &Device, pk: &Arc<ProvingKey>, budget: Option<u64>) -> Option<Arc<DeviceKey>> {
    let mut keys = keys();
    let at = keys.iter().position(|k| k.device == device.index && Arc::ptr_eq(&k.pk, pk))?;
    let key = keys.remove(at);
    if key.placed_under != Some(budget) && Arc::strong_count(&key) == 1 {
        log::info!("cuzk: GPU {}: the GPU memory budget changed: the key is placed anew", device.index);
        return None;
    }
    keys.push(key.clone());
    Some(key)
}

/// Whether every usable device of index in `gpus` (at least one) holds
/// `pk` with its recorded matrices (the cache's order untouched). The engine
/// asks under its own lock: while a key uploads (the cache locked
/// meanwhile) the answer is no, the larger estimate, rather than a wait.
pub fn matrices_on_all(gpus: &[usize], pk: &Arc<ProvingKey>) -> bool {
    let keys = match KEYS.try_lock() {
        Ok(keys) => keys,
        Err(TryLockError::Poisoned(e)) => e.into_inner(),
        Err(TryLockError::WouldBlock) => return false,
    };
    let holds = |d: &Device| keys.iter().any(|k| k.device == d.index && Arc::ptr_eq(&k.pk, pk) && k.device_matrices().is_some());
    let mut among = devices_among(Some(gpus)).peekable();
    among.peek().is_some() && among.all(holds)
}

/// `pk` on `device`, uploading it if it is not there yet, each of its parts
/// resident or streamed as fits the room `budget` leaves beside a proof's
/// working memory (`KeyShape::plan`), after idle keys made room for it
/// whole. The caller holds the device's lock (`held`), so no proof step's
/// working memory is counted as taken for good.
pub fn key_on(device: &'static Device, pk: &Arc<ProvingKey>, budget: Option<u64>, held: &PriorityGuard) -> Result<Arc<DeviceKey>> {
    if let Some(key) = key_cached(device, pk, budget) {
        return Ok(key);
    }
    let mut keys = keys();
    drop_unused(&mut keys);
    let shape = KeyShape::of(pk);
    let whole = shape.room_for(shape.whole());
    let mut room = room_beside(&keys, device, budget)?;
    while room < whole {
        // Least recently used first; a key in use by a proof stays.
        let Some(idle) = keys.iter().position(|k| k.device == device.index && Arc::strong_count(k) == 1) else {
            break;
        };
        drop(keys.remove(idle));
        room = room_beside(&keys, device, budget)?;
    }
    let residency = shape.plan(room);
    if residency != shape.whole() {
        log::info!(
            "cuzk: GPU {}: a key of {} MiB (whole with a proof: {} MiB) in the {} MiB free (or left by the GPU memory budget): {:?} kept on the device, the rest streamed from host memory",
            device.index,
            pk.size_bytes() >> 20,
            whole >> 20,
            room >> 20,
            residency
        );
    }
    let key = Arc::new(
        DeviceKey::upload(device, pk.clone(), residency, Some(budget), held)
            .with_context(|| format!("uploading the proving key to GPU {}", device.index))?,
    );
    keys.push(key.clone());
    Ok(key)
}

/// `pk` on `device` with the parts of `residency` (those it has) resident
/// and the rest streamed, whatever the room, in place of an idle copy placed
/// otherwise: for tests and measurements of each placement. The caller
/// holds the device's lock (`held`).
pub fn key_placed(device: &'static Device, pk: &Arc<ProvingKey>, residency: Residency, held: &PriorityGuard) -> Result<Arc<DeviceKey>> {
    let mut keys = keys();
    keys.retain(|k| !(k.device == device.index && Arc::ptr_eq(&k.pk, pk) && Arc::strong_count(k) == 1));
    let key = Arc::new(DeviceKey::upload(device, pk.clone(), residency, None, held)?);
    keys.push(key.clone());
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Window sums combine to the sum of 2^(bits * j) times window j; the
    /// widths cuda/ takes give the windows a 255-bit scalar needs.
    #[test]
    fn window_sums_combine_by_powers_of_two() {
        let g = G1Projective::generator();
        let sums = [g * Fr::from(3u64), g * Fr::from(5u64), G1Projective::identity(), g];
        let expected = g * Fr::from(3 + 5 * (1u64 << 12) + (1u64 << 36));
        assert_eq!(WindowedMsm::combine(&sums, 12), expected);
        assert_eq!(WindowedMsm::combine(&[], 12), G1Projective::identity());
        assert_eq!(WindowedMsm::windows(22).unwrap(), 12);
        assert_eq!(WindowedMsm::windows(16).unwrap(), 16);
        assert_eq!(WindowedMsm::windows(26).unwrap(), 10);
        assert!(WindowedMsm::windows(9).is_err() && WindowedMsm::windows(27).is_err());
        assert_eq!(WindowedMsm::bits_for(1 << 27), 22);
        assert_eq!(WindowedMsm::bits_for((1 << 19) + 1), 14);
        assert_eq!(WindowedMsm::bits_for(0), 10);
        assert_eq!(WindowedMsm::bits_for(usize::MAX), 22);
    }

    #[test]
    fn a_budget_caps_the_room_beside_the_keys_kept() {
        let gib = 1usize << 30;
        assert_eq!(room_within(80 * gib, None, 50 * gib), 80 * gib, "no budget: what is free");
        assert_eq!(room_within(80 * gib, Some(60 << 30), 50 * gib), 10 * gib, "the budget less the keys kept");
        assert_eq!(room_within(5 * gib, Some(60 << 30), 50 * gib), 5 * gib, "never more than is free");
        assert_eq!(room_within(80 * gib, Some(40 << 30), 50 * gib), 0, "keys above the budget leave nothing");
    }

    #[test]
    fn small_msms_run_plain_and_large_ones_split_within_the_room_asked() {
        let small = MsmHow::auto(MsmHow::MIN_AUTO_SPLIT - 1, || panic!("room asked for a small MSM")).unwrap();
        assert_eq!(small.mode, SplitMode::Never);
        let large = MsmHow::auto(MsmHow::MIN_AUTO_SPLIT, || Ok(123)).unwrap();
        assert_eq!((large.mode, large.room), (SplitMode::Auto, 123));
        assert!(MsmHow::auto(1 << 30, || anyhow::bail!("no device")).is_err());
    }
}

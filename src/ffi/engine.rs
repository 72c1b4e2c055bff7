//! The asynchronous C API of the engine (`cuzk_*`), in rustls-ffi's style:
//! every call returns a fixed `cuzk_result_t` code, outputs go through
//! out-pointers, and the message of the last failed call on this thread comes
//! from `cuzk_last_error`.
//!
//! Ownership: inputs are borrowed for the call only (a submit copies what the
//! job needs before returning, so the caller may free them at once). Byte
//! outputs (`slice_boxed_uint8_t`) are owned by cuzk until the caller frees
//! them with `cuzk_bytes_free` (or `destroy_boxed_slice`); freeing `{NULL, 0}`
//! is a no-op. Out-pointers are written only on `CUZK_OK`. A job id is valid
//! from its submit until `cuzk_wait` returns its outcome (OK, PROOF_FAILED or
//! CANCELLED) or `cuzk_release` forgets it.

use std::{cell::RefCell, time::Duration};

use anyhow::anyhow;
use filecoin_proofs::PoStType;

use super::{
    boundary::{catch, guard},
    boxed::{array32, byte_lists, bytes},
    owned::Owned,
    engine_types::*,
    post::post_proof,
    seal::seal_proof,
    snap::update_proof,
    types::*,
};
use crate::{
    api::{keys::KeyOf, porep, post, snap},
    engine::{self, is_cancelled, requests, CallContext, JobId, Priority, ProofKind},
};

/// A failed call: its code and message.
struct Failure {
    code: cuzk_result,
    message: String,
}

fn invalid(e: anyhow::Error) -> Failure {
    Failure { code: cuzk_result::CUZK_INVALID_ARGUMENT, message: format!("{e:#}") }
}

fn internal(e: anyhow::Error) -> Failure {
    Failure { code: cuzk_result::CUZK_INTERNAL_ERROR, message: format!("{e:#}") }
}

thread_local! {
    static LAST_ERROR: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Runs `body` as export `name`: its outcome becomes the code, a failure's
/// message the thread's last error, a panic `CUZK_INTERNAL_ERROR`.
fn call(name: &str, body: impl FnOnce() -> Result<(), Failure>) -> cuzk_result_t {
    super::logging::init();
    let outcome = catch(body).unwrap_or_else(|panic| Err(Failure { code: cuzk_result::CUZK_INTERNAL_ERROR, message: panic }));
    match outcome {
        Ok(()) => cuzk_result::CUZK_OK as i32,
        Err(f) => {
            log::debug!("{name}: {}", f.message);
            LAST_ERROR.with(|e| *e.borrow_mut() = format!("{name}: {}", f.message));
            f.code as i32
        }
    }
}

/// Writes `value` through `out`, or fails on NULL.
///
/// # Safety
/// A non-NULL `out` must be writable.
unsafe fn write<T>(out: *mut T, value: T) -> Result<(), Failure> {
    if out.is_null() {
        return Err(invalid(anyhow!("the output pointer is NULL")));
    }
    // SAFETY: non-NULL and, by the contract above, writable.
    unsafe { out.write(value) };
    Ok(())
}

fn priority(value: cuzk_priority_t, kind: ProofKind) -> Result<Priority, Failure> {
    match value {
        0 => Ok(kind.default_priority()),
        1 => Ok(Priority::Low),
        2 => Ok(Priority::Medium),
        3 => Ok(Priority::High),
        v => Err(invalid(anyhow!("invalid cuzk_priority value {v} (expected 0..=3)"))),
    }
}

/// Starts `work` as a request and writes its id through `job_id`.
///
/// # Safety
/// A non-NULL `job_id` must be writable.
unsafe fn start(
    kind: ProofKind,
    priority_value: cuzk_priority_t,
    job_id: *mut u64,
    work: impl FnOnce(&CallContext) -> anyhow::Result<Vec<u8>> + Send + 'static,
) -> Result<(), Failure> {
    if job_id.is_null() {
        return Err(invalid(anyhow!("job_id is NULL")));
    }
    let id = requests::submit(kind, priority(priority_value, kind)?, work).map_err(internal)?;
    // SAFETY: forwarded from this function's contract.
    unsafe { write(job_id, id.0) }
}

/// Submits PoRep C2 (as `seal_commit_phase2`: the proof bytes stock returns,
/// verified) and writes the job's id through `job_id`. The C1 output and
/// prover id are copied; errors in them are reported by `cuzk_wait`.
///
/// # Safety
/// `c1_output` readable for its length; `prover_id` NULL or readable;
/// `job_id` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn cuzk_submit_porep_c2(
    c1_output: slice_ref_uint8_t,
    sector_id: u64,
    prover_id: *const uint8_32_array_t,
    priority: cuzk_priority_t,
    job_id: *mut u64,
) -> cuzk_result_t {
    call("cuzk_submit_porep_c2", || {
        // SAFETY (two): forwarded from this function's contract.
        let c1 = unsafe { bytes(c1_output, "c1_output") }.map_err(invalid)?.to_vec();
        let prover_id = unsafe { array32(prover_id, "prover_id") }.map_err(invalid)?;
        // SAFETY: forwarded from this function's contract.
        unsafe {
            start(ProofKind::PorepC2, priority, job_id, move |context| porep::seal_commit_phase2(context, &c1, sector_id, prover_id))
        }
    })
}

/// # Safety
/// As `cuzk_submit_winning_post`.
unsafe fn submit_post(
    typ: PoStType,
    registered_proof: RegisteredPoStProof_t,
    randomness: *const uint8_32_array_t,
    prover_id: *const uint8_32_array_t,
    vanilla_proofs: slice_ref_slice_boxed_uint8_t,
    priority: cuzk_priority_t,
    job_id: *mut u64,
) -> Result<(), Failure> {
    let rp = post_proof(registered_proof).map_err(invalid)?;
    // SAFETY (three): forwarded from this function's contract.
    let randomness = unsafe { array32(randomness, "randomness") }.map_err(invalid)?;
    let prover_id = unsafe { array32(prover_id, "prover_id") }.map_err(invalid)?;
    let vanilla = unsafe { byte_lists(vanilla_proofs, "vanilla_proofs") }.map_err(invalid)?;
    let kind = match typ {
        PoStType::Winning => ProofKind::WinningPost,
        PoStType::Window => ProofKind::WindowPost,
    };
    // SAFETY: forwarded from this function's contract.
    unsafe { start(kind, priority, job_id, move |context| post::post_with_vanilla(context, typ, rp, randomness, prover_id, &vanilla)) }
}

/// Submits a Winning PoSt SNARK from vanilla proofs (as
/// `generate_winning_post_with_vanilla`; the output is the 192-byte proof).
///
/// # Safety
/// Pointers NULL or readable; the vanilla list and its buffers readable;
/// `job_id` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn cuzk_submit_winning_post(
    registered_proof: RegisteredPoStProof_t,
    randomness: *const uint8_32_array_t,
    prover_id: *const uint8_32_array_t,
    vanilla_proofs: slice_ref_slice_boxed_uint8_t,
    priority: cuzk_priority_t,
    job_id: *mut u64,
) -> cuzk_result_t {
    call("cuzk_submit_winning_post", || {
        // SAFETY: forwarded from this function's contract.
        unsafe {
            submit_post(PoStType::Winning, registered_proof, randomness, prover_id, vanilla_proofs, priority, job_id)
        }
    })
}

/// Submits a Window PoSt SNARK of every partition from vanilla proofs (as
/// `generate_window_post_with_vanilla`; the output is `partitions x 192` bytes).
///
/// # Safety
/// As `cuzk_submit_winning_post`.
#[no_mangle]
pub unsafe extern "C" fn cuzk_submit_window_post(
    registered_proof: RegisteredPoStProof_t,
    randomness: *const uint8_32_array_t,
    prover_id: *const uint8_32_array_t,
    vanilla_proofs: slice_ref_slice_boxed_uint8_t,
    priority: cuzk_priority_t,
    job_id: *mut u64,
) -> cuzk_result_t {
    call("cuzk_submit_window_post", || {
        // SAFETY: forwarded from this function's contract.
        unsafe {
            submit_post(PoStType::Window, registered_proof, randomness, prover_id, vanilla_proofs, priority, job_id)
        }
    })
}

/// Submits a SnapDeals update SNARK from one vanilla proof per partition (as
/// `generate_empty_sector_update_proof_with_vanilla`).
///
/// # Safety
/// Pointers NULL or readable; the vanilla list and its buffers readable;
/// `job_id` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn cuzk_submit_snap_deals(
    registered_proof: RegisteredUpdateProof_t,
    vanilla_proofs: slice_ref_slice_boxed_uint8_t,
    comm_r_old: *const uint8_32_array_t,
    comm_r_new: *const uint8_32_array_t,
    comm_d_new: *const uint8_32_array_t,
    priority: cuzk_priority_t,
    job_id: *mut u64,
) -> cuzk_result_t {
    call("cuzk_submit_snap_deals", || {
        let rp = update_proof(registered_proof).map_err(invalid)?;
        // SAFETY (four): forwarded from this function's contract.
        let vanilla = unsafe { byte_lists(vanilla_proofs, "vanilla_proofs") }.map_err(invalid)?;
        let comms = snap::UpdateCommitments {
            comm_r_old: unsafe { array32(comm_r_old, "comm_r_old") }.map_err(invalid)?,
            comm_r_new: unsafe { array32(comm_r_new, "comm_r_new") }.map_err(invalid)?,
            comm_d_new: unsafe { array32(comm_d_new, "comm_d_new") }.map_err(invalid)?,
        };
        // SAFETY: forwarded from this function's contract.
        unsafe {
            start(ProofKind::SnapDeals, priority, job_id, move |context| snap::update_proof_with_vanilla(context, rp, &vanilla, comms))
        }
    })
}

/// Waits up to `timeout_ms` milliseconds (`UINT64_MAX`: without limit) for job
/// `job_id`. On `CUZK_OK` the proof bytes are written to `*proof`, owned by
/// the caller from then on (free with `cuzk_bytes_free`). `CUZK_OK`,
/// `CUZK_PROOF_FAILED` and `CUZK_CANCELLED` end the job: its id is forgotten.
/// `CUZK_TIMEOUT` leaves it running. With several waiters on one job, one
/// gets the outcome and the others `CUZK_NOT_FOUND`.
///
/// # Safety
/// `proof` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn cuzk_wait(job_id: u64, timeout_ms: u64, proof: *mut slice_boxed_uint8_t) -> cuzk_result_t {
    call("cuzk_wait", || {
        if proof.is_null() {
            return Err(invalid(anyhow!("proof is NULL")));
        }
        let timeout = (timeout_ms != u64::MAX).then(|| Duration::from_millis(timeout_ms));
        match requests::wait(JobId(job_id), timeout) {
            requests::Waited::Unknown => {
                Err(Failure { code: cuzk_result::CUZK_NOT_FOUND, message: format!("no job {job_id}") })
            }
            requests::Waited::Pending => Err(Failure {
                code: cuzk_result::CUZK_TIMEOUT,
                message: format!("job {job_id} did not finish within {timeout_ms} ms"),
            }),
            requests::Waited::Finished(Err(e)) if is_cancelled(&e) => {
                Err(Failure { code: cuzk_result::CUZK_CANCELLED, message: format!("job {job_id}: {e:#}") })
            }
            requests::Waited::Finished(Err(e)) => {
                Err(Failure { code: cuzk_result::CUZK_PROOF_FAILED, message: format!("job {job_id}: {e:?}") })
            }
            // SAFETY: non-NULL (checked) and writable by this function's contract.
            requests::Waited::Finished(Ok(bytes)) => unsafe { write(proof, slice_boxed_uint8_t::from_vec(bytes)) },
        }
    })
}

/// Writes job `job_id`'s state to `*state` without waiting.
///
/// # Safety
/// `state` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn cuzk_poll(job_id: u64, state: *mut cuzk_job_state_t) -> cuzk_result_t {
    call("cuzk_poll", || {
        let now = requests::poll(JobId(job_id))
            .ok_or_else(|| Failure { code: cuzk_result::CUZK_NOT_FOUND, message: format!("no job {job_id}") })?;
        let value = match now {
            requests::RequestState::Running => cuzk_job_state::CUZK_JOB_RUNNING,
            requests::RequestState::Done => cuzk_job_state::CUZK_JOB_DONE,
            requests::RequestState::Failed => cuzk_job_state::CUZK_JOB_FAILED,
            requests::RequestState::Cancelled => cuzk_job_state::CUZK_JOB_CANCELLED,
        };
        // SAFETY: forwarded from this function's contract.
        unsafe { write(state, value as i32) }
    })
}

/// Cancels job `job_id`: `cuzk_wait` returns `CUZK_CANCELLED` at once; its
/// partitions stop at the next partition boundary. `CUZK_NOT_FOUND` if the
/// job is unknown or already finished.
#[no_mangle]
pub extern "C" fn cuzk_cancel(job_id: u64) -> cuzk_result_t {
    call("cuzk_cancel", || match requests::cancel(JobId(job_id)) {
        true => Ok(()),
        false => Err(Failure { code: cuzk_result::CUZK_NOT_FOUND, message: format!("no running job {job_id}") }),
    })
}

/// Forgets job `job_id` without waiting for it (cancelling it if running);
/// its outcome is dropped.
#[no_mangle]
pub extern "C" fn cuzk_release(job_id: u64) -> cuzk_result_t {
    call("cuzk_release", || match requests::release(JobId(job_id)) {
        true => Ok(()),
        false => Err(Failure { code: cuzk_result::CUZK_NOT_FOUND, message: format!("no job {job_id}") }),
    })
}

fn key_of(kind: cuzk_proof_kind_t, registered_proof: i32) -> Result<KeyOf, Failure> {
    let key = match kind {
        0 => KeyOf::Seal(seal_proof(registered_proof).map_err(invalid)?),
        1 | 2 => {
            let rp = post_proof(registered_proof).map_err(invalid)?;
            let want = if kind == 1 { PoStType::Winning } else { PoStType::Window };
            if rp.typ() != want {
                return Err(invalid(anyhow!("{rp:?} is not a {want:?} PoSt proof type")));
            }
            KeyOf::Post(rp)
        }
        3 => KeyOf::Update(update_proof(registered_proof).map_err(invalid)?),
        v => return Err(invalid(anyhow!("invalid cuzk_proof_kind value {v} (expected 0..=3)"))),
    };
    Ok(key)
}

/// Loads the proving key of `registered_proof` (a value of the enum `kind`
/// names) into memory now; it stays resident until `cuzk_evict_params`.
/// Blocks while the file is read.
#[no_mangle]
pub extern "C" fn cuzk_preload_params(kind: cuzk_proof_kind_t, registered_proof: i32) -> cuzk_result_t {
    call("cuzk_preload_params", || {
        let key = key_of(kind, registered_proof)?;
        key.load().map(drop).map_err(|e| Failure { code: cuzk_result::CUZK_PROOF_FAILED, message: format!("{e:#}") })
    })
}

/// Drops the proving key of `registered_proof` from memory (once no running
/// job uses it). `CUZK_NOT_FOUND` if it was not resident.
#[no_mangle]
pub extern "C" fn cuzk_evict_params(kind: cuzk_proof_kind_t, registered_proof: i32) -> cuzk_result_t {
    call("cuzk_evict_params", || {
        let key = key_of(kind, registered_proof)?;
        match key.evict().map_err(invalid)? {
            true => Ok(()),
            false => Err(Failure { code: cuzk_result::CUZK_NOT_FOUND, message: format!("{key:?} parameters are not resident") }),
        }
    })
}

/// Writes the status report (UTF-8 JSON, docs/CONFIG.md describes it) to
/// `*json`: queues, jobs in flight, memory, resident parameters with sizes,
/// devices with free memory, counters and per-stage times. Free with
/// `cuzk_bytes_free`.
///
/// # Safety
/// `json` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn cuzk_status_json(json: *mut slice_boxed_uint8_t) -> cuzk_result_t {
    call("cuzk_status_json", || {
        if json.is_null() {
            return Err(invalid(anyhow!("json is NULL")));
        }
        let report = engine::status::json().map_err(internal)?;
        // SAFETY: forwarded from this function's contract.
        unsafe { write(json, slice_boxed_uint8_t::from_vec(report.into_bytes())) }
    })
}

/// Replaces the configuration fields present in `json` (a JSON object; see
/// docs/CONFIG.md); the others keep their values. Invalid JSON, an unknown
/// field or a bad value changes nothing and returns `CUZK_INVALID_ARGUMENT`.
///
/// # Safety
/// `json` readable for its length.
#[no_mangle]
pub unsafe extern "C" fn cuzk_config_set(json: slice_ref_uint8_t) -> cuzk_result_t {
    call("cuzk_config_set", || {
        // SAFETY: forwarded from this function's contract.
        let text = unsafe { bytes(json, "json") }.map_err(invalid)?;
        engine::configure(text).map(drop).map_err(invalid)
    })
}

/// Writes the configuration in force (JSON) to `*json`; free with `cuzk_bytes_free`.
///
/// # Safety
/// `json` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn cuzk_config_json(json: *mut slice_boxed_uint8_t) -> cuzk_result_t {
    call("cuzk_config_json", || {
        if json.is_null() {
            return Err(invalid(anyhow!("json is NULL")));
        }
        let config = engine::global().map_err(invalid)?.config();
        let text = serde_json::to_vec_pretty(&config).map_err(|e| internal(e.into()))?;
        // SAFETY: forwarded from this function's contract.
        unsafe { write(json, slice_boxed_uint8_t::from_vec(text)) }
    })
}

/// Copies the message of the last failed `cuzk_*` call on this thread into
/// `buf` (at most `len` bytes, NUL-terminated when `len > 0`; `buf` may be
/// NULL when `len` is 0) and returns the message's full length in bytes
/// (without NUL); 0 if no call failed yet.
///
/// # Safety
/// A non-NULL `buf` must be writable for `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn cuzk_last_error(buf: *mut u8, len: usize) -> usize {
    guard("cuzk_last_error", 0, || {
        LAST_ERROR.with(|e| {
            let message = e.borrow();
            if !buf.is_null() && len > 0 {
                let n = message.len().min(len - 1);
                // SAFETY: `buf` is writable for `len > n` bytes (contract); the
                // source is the message's own `n` bytes; they cannot overlap.
                unsafe {
                    std::ptr::copy_nonoverlapping(message.as_ptr(), buf, n);
                    buf.add(n).write(0);
                }
            }
            message.len()
        })
    })
}

/// Frees bytes returned by a `cuzk_*` call. `{NULL, 0}` is ignored.
///
/// # Safety
/// `bytes` must come from a `cuzk_*` output and not have been freed before.
#[no_mangle]
pub unsafe extern "C" fn cuzk_bytes_free(bytes: slice_boxed_uint8_t) {
    // SAFETY: forwarded from this function's contract.
    guard("cuzk_bytes_free", (), || unsafe { bytes.free() });
}

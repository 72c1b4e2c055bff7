//! The C types of the engine's asynchronous API (`cuzk_*`): fixed result
//! codes, priorities, job states and proof kinds, each an `int32_t` with its
//! enum of constants, as filcrypto's enums are.
#![allow(non_camel_case_types)]

/// What every `cuzk_*` call returns. The values are fixed: new codes are only
/// ever appended. On any code but `CUZK_OK`, `cuzk_last_error` gives a message.
#[repr(i32)]
pub enum cuzk_result {
    CUZK_OK = 0,
    /// A NULL or malformed argument, an invalid enum value, invalid JSON.
    CUZK_INVALID_ARGUMENT = 1,
    /// No such job (never submitted, or already waited for or released).
    CUZK_NOT_FOUND = 2,
    /// `cuzk_wait`: the job did not finish within the timeout; it goes on.
    CUZK_TIMEOUT = 3,
    /// The job was cancelled.
    CUZK_CANCELLED = 4,
    /// The proof call failed (its inputs, missing parameters, a proof that does
    /// not verify, ...); the message says why.
    CUZK_PROOF_FAILED = 5,
    /// An internal error (a Rust panic caught at the boundary, no thread).
    CUZK_INTERNAL_ERROR = 6,
}
pub type cuzk_result_t = i32;

/// Scheduling priority of a submitted job; higher runs first, at the next
/// partition boundary. `CUZK_PRIORITY_DEFAULT` takes the kind's: WinningPoSt
/// high, WindowPoSt medium, PoRep C2 and SnapDeals low.
#[repr(i32)]
pub enum cuzk_priority {
    CUZK_PRIORITY_DEFAULT = 0,
    CUZK_PRIORITY_LOW = 1,
    CUZK_PRIORITY_MEDIUM = 2,
    CUZK_PRIORITY_HIGH = 3,
}
pub type cuzk_priority_t = i32;

/// Where a job is (`cuzk_poll`).
#[repr(i32)]
pub enum cuzk_job_state {
    CUZK_JOB_RUNNING = 0,
    CUZK_JOB_DONE = 1,
    CUZK_JOB_FAILED = 2,
    CUZK_JOB_CANCELLED = 3,
}
pub type cuzk_job_state_t = i32;

/// The proof families whose parameters `cuzk_preload_params` and
/// `cuzk_evict_params` name; `registered_proof` is then a value of
/// `RegisteredSealProof`, `RegisteredPoStProof` (both PoSt kinds) or
/// `RegisteredUpdateProof`.
#[repr(i32)]
pub enum cuzk_proof_kind {
    CUZK_PROOF_POREP_C2 = 0,
    CUZK_PROOF_WINNING_POST = 1,
    CUZK_PROOF_WINDOW_POST = 2,
    CUZK_PROOF_SNAP_DEALS = 3,
}
pub type cuzk_proof_kind_t = i32;

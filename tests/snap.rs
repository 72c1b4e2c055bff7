//! SnapDeals on a real 2 KiB sector: encode with stock, prove the update through
//! the C ABI (from vanilla proofs and from the sector files) with cuzk's prover,
//! verify with stock; bad input gets clear errors.

mod common;

use std::path::PathBuf;

use cuzk::{
    api::{params, sample},
    ffi::{destroy::*, slices::*, snap::*, types::*},
};
use filecoin_proofs_api::{update as stock, RegisteredSealProof};

struct Fixture {
    dir: PathBuf,
    update: sample::UpdatedSector,
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn fixture(seed: u64) -> Fixture {
    common::porep_params();
    params::generate(2048, &[params::Family::SnapDeals]).unwrap();
    let dir = std::env::temp_dir().join(format!("cuzk-snap-{}-{seed}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let sector = sample::seal_sector(RegisteredSealProof::StackedDrg2KiBV1_1, &dir, seed).unwrap();
    let update = sample::update_sector(&sector, &dir, seed + 1).unwrap();
    Fixture { dir, update }
}

impl Fixture {
    fn path(&self, name: &str) -> Vec<u8> {
        self.dir.join(name).to_str().unwrap().as_bytes().to_vec()
    }

    fn vanilla(&self) -> Vec<Vec<u8>> {
        let u = &self.update;
        stock::generate_partition_proofs(
            u.registered_proof,
            u.comm_r_old,
            u.comm_r_new,
            u.comm_d_new,
            self.dir.join("sealed"),
            self.dir.join("cache"),
            self.dir.join("update"),
            self.dir.join("update-cache"),
        )
        .unwrap()
        .into_iter()
        .map(|p| p.0)
        .collect()
    }

    fn stock_verifies(&self, proof: &[u8]) -> bool {
        let u = &self.update;
        stock::verify_empty_sector_update_proof(u.registered_proof, proof, u.comm_r_old, u.comm_r_new, u.comm_d_new)
            .unwrap_or(false)
    }
}

const RP_2KIB: RegisteredUpdateProof_t = RegisteredUpdateProof::REGISTERED_UPDATE_PROOF_STACKED_DRG2_KI_B_V1 as i32;

fn boxed(bytes: &[u8]) -> slice_boxed_uint8_t {
    let b = alloc_boxed_slice(bytes.len());
    // SAFETY: `b` is a fresh buffer of exactly `bytes.len()` bytes.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), b.ptr, bytes.len()) };
    b
}

fn slice(b: &[u8]) -> slice_ref_uint8_t {
    slice_ref_uint8_t { ptr: b.as_ptr(), len: b.len() }
}

/// Takes a proof response apart: the proof bytes, or the error message.
fn take(resp: *mut Result_slice_boxed_uint8_t) -> Result<Vec<u8>, String> {
    assert!(!resp.is_null());
    // SAFETY: a live response, read once, then freed once.
    unsafe {
        let r = &*resp;
        let out = if r.status_code == 0 {
            Ok(std::slice::from_raw_parts(r.value.ptr, r.value.len).to_vec())
        } else {
            Err(String::from_utf8_lossy(std::slice::from_raw_parts(r.error_msg.ptr, r.error_msg.len)).into_owned())
        };
        destroy_empty_sector_update_generate_proof_response(resp);
        out
    }
}

type Comms = [uint8_32_array_t; 3];

fn comms(u: &sample::UpdatedSector) -> Comms {
    [u.comm_r_old, u.comm_r_new, u.comm_d_new].map(|idx| uint8_32_array_t { idx })
}

fn with_vanilla(rp: i32, vanilla: &[Vec<u8>], c: &Comms) -> Result<Vec<u8>, String> {
    let held: Vec<slice_boxed_uint8_t> = vanilla.iter().map(|v| boxed(v)).collect();
    let list = slice_ref_slice_boxed_uint8_t { ptr: held.as_ptr(), len: held.len() };
    // SAFETY: every pointer is to a local that outlives the call.
    let resp = unsafe { generate_empty_sector_update_proof_with_vanilla(rp, list, &c[0], &c[1], &c[2]) };
    for b in held {
        // SAFETY: allocated by `alloc_boxed_slice`, freed once.
        unsafe { destroy_boxed_slice(b) };
    }
    take(resp)
}

fn c_verify(proof: &[u8], c: &Comms) -> Result<bool, String> {
    // SAFETY: every pointer is to a local that outlives the call.
    unsafe {
        let resp = verify_empty_sector_update_proof(RP_2KIB, slice(proof), &c[0], &c[1], &c[2]);
        let r = &*resp;
        let out = if r.status_code == 0 {
            Ok(r.value)
        } else {
            Err(String::from_utf8_lossy(std::slice::from_raw_parts(r.error_msg.ptr, r.error_msg.len)).into_owned())
        };
        destroy_empty_sector_update_verify_proof_response(resp);
        out
    }
}

#[test]
fn update_proofs_from_vanilla_and_from_files_verify_with_stock() {
    let f = fixture(41);
    let c = comms(&f.update);
    let vanilla = f.vanilla();
    let proof = with_vanilla(RP_2KIB, &vanilla, &c).unwrap();
    assert_eq!(proof.len(), 192 * vanilla.len());
    assert!(f.stock_verifies(&proof));
    assert_eq!(c_verify(&proof, &c), Ok(true));

    let paths = ["sealed", "cache", "update", "update-cache"].map(|n| f.path(n));
    // SAFETY: every pointer is to a local that outlives the call.
    let resp = unsafe {
        generate_empty_sector_update_proof(
            RP_2KIB, &c[0], &c[1], &c[2], slice(&paths[0]), slice(&paths[1]), slice(&paths[2]), slice(&paths[3]),
        )
    };
    let from_files = take(resp).unwrap();
    assert!(f.stock_verifies(&from_files));

    // Another comm_d_new: the same proof must not verify.
    let mut other = c;
    other[2].idx[0] ^= 1;
    assert_ne!(c_verify(&proof, &other), Ok(true));
}

#[test]
fn bad_update_inputs_are_errors() {
    let f = fixture(43);
    let c = comms(&f.update);
    let vanilla = f.vanilla();
    let err = |r: Result<Vec<u8>, String>| r.expect_err("an error");
    assert!(err(with_vanilla(RP_2KIB, &[], &c)).contains("empty"));
    assert!(err(with_vanilla(RP_2KIB, &[vec![7; 40]], &c)).contains("not a"));
    assert!(err(with_vanilla(99, &vanilla, &c)).contains("invalid RegisteredUpdateProof"));
    let big = RegisteredUpdateProof::REGISTERED_UPDATE_PROOF_STACKED_DRG32_GI_B_V1 as i32;
    assert!(err(with_vanilla(big, &vanilla, &c)).contains("partition"));
    let mut wrong = c;
    wrong[1].idx[3] ^= 1;
    let msg = err(with_vanilla(RP_2KIB, &vanilla, &wrong));
    assert!(msg.contains("does not verify"), "{msg}");
    let mut twice = vanilla.clone();
    twice.extend(vanilla.iter().cloned());
    assert!(err(with_vanilla(RP_2KIB, &twice, &c)).contains("takes"));

    // NULL commitments and paths.
    let list = slice_ref_slice_boxed_uint8_t { ptr: std::ptr::null(), len: 0 };
    // SAFETY: NULL pointers are part of the contract.
    let msg = err(take(unsafe {
        generate_empty_sector_update_proof_with_vanilla(RP_2KIB, list, std::ptr::null(), &c[1], &c[2])
    }));
    assert!(msg.contains("NULL") || msg.contains("empty"), "{msg}");
    let empty = slice_ref_uint8_t { ptr: std::ptr::null(), len: 0 };
    // SAFETY: as above.
    let msg = err(take(unsafe {
        generate_empty_sector_update_proof(RP_2KIB, &c[0], &c[1], &c[2], empty, empty, empty, empty)
    }));
    assert!(msg.contains("sector_key_path"), "{msg}");
    let missing = f.path("no-such-file");
    // SAFETY: as above.
    let msg = err(take(unsafe {
        generate_empty_sector_update_proof(
            RP_2KIB, &c[0], &c[1], &c[2], slice(&missing), slice(&missing), slice(&missing), slice(&missing),
        )
    }));
    assert!(!msg.is_empty());
    // A truncated proof does not verify, and says why.
    assert!(c_verify(&[1, 2, 3], &c).is_err() || c_verify(&[1, 2, 3], &c) == Ok(false));
}

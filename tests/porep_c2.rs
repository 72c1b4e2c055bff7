//! PoRep C2 end to end on a real 2 KiB sector: seal with the stock crates, prove
//! through cuzk's C ABI, verify with stock `verify_seal`; and every kind of bad
//! input gets an error status with a message that says what was wrong.

mod common;

use cuzk::{
    engine::srs_cache,
    ffi::{destroy::*, seal::*, types::*},
};
use filecoin_proofs_api::SectorId;

fn slice(b: &[u8]) -> slice_ref_uint8_t {
    slice_ref_uint8_t { ptr: b.as_ptr(), len: b.len() }
}

/// Calls C2 through the ABI; `Ok(proof)` or `Err(message)`.
fn c2(c1: slice_ref_uint8_t, sector_id: u64, prover_id: Option<[u8; 32]>) -> Result<Vec<u8>, String> {
    let id = prover_id.map(|idx| uint8_32_array_t { idx });
    let id_ptr = id.as_ref().map_or(std::ptr::null(), |p| p as *const _);
    // SAFETY: `c1` borrows live test data, `id_ptr` is NULL or points to `id`.
    let resp = unsafe { seal_commit_phase2(c1, sector_id, id_ptr) };
    assert!(!resp.is_null());
    // SAFETY: a live response, read before it is freed once.
    unsafe {
        let r = &*resp;
        let out = if r.status_code == 0 {
            assert_eq!(r.error_msg.len, 0);
            Ok(std::slice::from_raw_parts(r.value.ptr, r.value.len).to_vec())
        } else {
            assert_eq!(r.value.len, 0, "no value on error");
            Err(String::from_utf8(std::slice::from_raw_parts(r.error_msg.ptr, r.error_msg.len).to_vec()).unwrap())
        };
        destroy_seal_commit_phase2_response(resp);
        out
    }
}

fn verify(rp: i32, s: &cuzk::api::sample::SealedSector, proof: slice_ref_uint8_t) -> Result<bool, String> {
    let a = |x: [u8; 32]| uint8_32_array_t { idx: x };
    let (cr, cd, pid, t, sd) = (a(s.comm_r), a(s.comm_d), a(s.prover_id), a(s.ticket), a(s.seed));
    // SAFETY: every pointer is to a local that outlives the call.
    let resp = unsafe { verify_seal(rp, &cr, &cd, &pid, &t, &sd, s.sector_id, proof) };
    // SAFETY: a live response, read before it is freed once.
    unsafe {
        let r = &*resp;
        let out = if r.status_code == 0 {
            Ok(r.value)
        } else {
            Err(String::from_utf8_lossy(std::slice::from_raw_parts(r.error_msg.ptr, r.error_msg.len)).into_owned())
        };
        destroy_verify_seal_response(resp);
        out
    }
}

const V1_1_2KIB: RegisteredSealProof_t = RegisteredSealProof::REGISTERED_SEAL_PROOF_STACKED_DRG2_KI_B_V1_1 as i32;

#[test]
fn c2_through_the_c_abi_verifies_with_stock_and_rejects_tampering() {
    let s = common::sealed_2kib(1);
    let proof = c2(slice(&s.c1_json), s.sector_id, Some(s.prover_id)).expect("C2");
    assert_eq!(proof.len(), 192);
    let stock = filecoin_proofs_api::seal::verify_seal(
        filecoin_proofs_api::RegisteredSealProof::StackedDrg2KiBV1_1,
        s.comm_r,
        s.comm_d,
        s.prover_id,
        SectorId::from(s.sector_id),
        s.ticket,
        s.seed,
        &proof,
    )
    .unwrap();
    assert!(stock, "stock verify_seal accepts cuzk's proof");
    assert_eq!(verify(V1_1_2KIB, &s, slice(&proof)), Ok(true));

    // The proving key stays resident: a later lookup returns the same key.
    let rp = filecoin_proofs_api::RegisteredSealProof::StackedDrg2KiBV1_1;
    let id = rp.circuit_identifier().unwrap();
    assert!(srs_cache::resident().iter().any(|(k, bytes)| *k == id && *bytes > 0));
    let path = std::path::Path::new("/nonexistent/params");
    let again = srs_cache::get(&id, path).expect("resident key, the path is not read again");
    assert!(std::sync::Arc::ptr_eq(&again, &srs_cache::get(&id, path).unwrap()));

    // A proof of another sector does not verify for this one.
    let mut other = common::sealed_2kib(2);
    other.sector_id = s.sector_id;
    assert_ne!(verify(V1_1_2KIB, &other, slice(&proof)), Ok(true));

    // A wrong prover id makes C2 refuse to return the (invalid) proof.
    let mut wrong = s.prover_id;
    wrong[0] ^= 1;
    let err = c2(slice(&s.c1_json), s.sector_id, Some(wrong)).unwrap_err();
    assert!(err.contains("does not verify"), "{err}");
}

#[test]
fn circuit_proofs_are_the_raw_partition_proofs_and_verify() {
    let s = common::sealed_2kib(3);
    // SAFETY: borrows live test data; the response is freed once below.
    let resp = unsafe { seal_commit_phase2_circuit_proofs(slice(&s.c1_json), s.sector_id) };
    let proof = unsafe {
        let r = &*resp;
        assert_eq!(r.status_code, 0, "{}", String::from_utf8_lossy(std::slice::from_raw_parts(r.error_msg.ptr, r.error_msg.len)));
        let p = std::slice::from_raw_parts(r.value.ptr, r.value.len).to_vec();
        destroy_seal_commit_phase2_response(resp);
        p
    };
    assert_eq!(proof.len(), 192);
    assert_eq!(verify(V1_1_2KIB, &s, slice(&proof)), Ok(true));
}

#[test]
fn bad_c1_outputs_get_errors_that_say_what_is_wrong() {
    let s = common::sealed_2kib(4);
    let json = String::from_utf8(s.c1_json.clone()).unwrap();
    let id = Some(s.prover_id);
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty", vec![], "empty"),
        ("truncated", s.c1_json[..s.c1_json.len() / 2].to_vec(), "not a valid C1 output"),
        ("not JSON", b"\x00\xffgarbage".to_vec(), "not a valid C1 output"),
        ("wrong shape", br#"{"registered_proof":"StackedDrg2KiBV1_1","vanilla_proofs":[1,2]}"#.to_vec(), "not a valid C1 output"),
        ("unknown proof type", json.replacen("StackedDrg2KiBV1_1", "StackedDrg3KiBV9", 1).into_bytes(), "unknown variant"),
        (
            "deeply nested",
            format!(
                r#"{{"registered_proof":"StackedDrg2KiBV1_1","vanilla_proofs":{{"StackedDrg2KiBV1":[[{{"comm_d_proofs":{}{}}}]]}}}}"#,
                "[".repeat(100_000),
                "]".repeat(100_000)
            )
            .into_bytes(),
            "not a valid C1 output",
        ),
        (
            "size mismatch",
            json.replacen("StackedDrg2KiBV1_1", "StackedDrg8MiBV1_1", 1).into_bytes(),
            "registered proof",
        ),
        ("zero seed", zero_field(&json, "seed").into_bytes(), "seed"),
    ];
    for (name, input, expected) in cases {
        let err = c2(slice(&input), s.sector_id, id).expect_err(name);
        assert!(err.contains(expected), "{name}: {err}");
    }
    let err = c2(slice(&s.c1_json), s.sector_id, None).unwrap_err();
    assert!(err.contains("prover_id is NULL"), "{err}");
    let err = c2(slice_ref_uint8_t { ptr: std::ptr::null(), len: 5 }, 1, id).unwrap_err();
    assert!(err.contains("NULL pointer"), "{err}");
    let err = c2(slice_ref_uint8_t { ptr: std::ptr::null(), len: 0 }, 1, id).unwrap_err();
    assert!(err.contains("empty"), "{err}");
}

/// The C1 JSON with the 32-byte array `field` set to zeros.
fn zero_field(json: &str, field: &str) -> String {
    let mut v: serde_json::Value = serde_json::from_str(json).unwrap();
    v[field] = serde_json::to_value([0u8; 32]).unwrap();
    v.to_string()
}

#[test]
fn bad_verify_inputs_are_false_or_errors_never_panics() {
    let s = common::sealed_2kib(5);
    let short = [7u8; 100];
    assert!(verify(V1_1_2KIB, &s, slice(&short)).is_err(), "short proof");
    let garbage = [0xffu8; 192];
    assert_ne!(verify(V1_1_2KIB, &s, slice(&garbage)), Ok(true), "garbage proof");
    let long = [0u8; 384];
    let err = verify(V1_1_2KIB, &s, slice(&long)).unwrap_err();
    assert!(err.contains("proof is 384 bytes"), "two partitions for a one-partition type: {err}");
    assert!(verify(V1_1_2KIB, &s, slice(&[])).unwrap_err().contains("empty"));
    for bad in [-1, 20, i32::MAX] {
        let err = verify(bad, &s, slice(&garbage)).unwrap_err();
        assert!(err.contains("invalid RegisteredSealProof"), "{bad}: {err}");
    }
    let a = uint8_32_array_t { idx: s.comm_r };
    // SAFETY: NULL pointers are part of the contract; `a` outlives the call.
    let resp = unsafe { verify_seal(5, &a, std::ptr::null(), &a, &a, &a, 1, slice(&garbage)) };
    unsafe {
        assert_ne!((*resp).status_code, 0);
        let msg = std::slice::from_raw_parts((*resp).error_msg.ptr, (*resp).error_msg.len);
        assert!(String::from_utf8_lossy(msg).contains("comm_d is NULL"));
        destroy_verify_seal_response(resp);
        destroy_verify_seal_response(std::ptr::null_mut());
    }
}

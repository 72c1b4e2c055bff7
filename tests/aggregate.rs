//! SnarkPack aggregation of two C2 proofs (proved by cuzk through the C ABI) on
//! real 2 KiB sectors, through the C ABI, verified by the C ABI and by stock;
//! bad input gets clear errors. The inner-product SRS is generated locally.

mod common;

use cuzk::{
    api::{params, sample},
    ffi::{aggregate::*, destroy::*, seal::*, slices::*, types::*},
};
use filecoin_proofs_api::{seal as stock, RegisteredAggregationProof as Agg, RegisteredSealProof, SectorId};

/// StackedDrg2KiBV1_1.
const RP: i32 = 5;

fn s(b: &[u8]) -> slice_ref_uint8_t {
    slice_ref_uint8_t { ptr: b.as_ptr(), len: b.len() }
}

fn boxed(bytes: &[u8]) -> slice_boxed_uint8_t {
    let b = alloc_boxed_slice(bytes.len());
    // SAFETY: `b` is a fresh buffer of exactly `bytes.len()` bytes.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), b.ptr, bytes.len()) };
    b
}

fn error_of(status: i32, msg: &slice_boxed_uint8_t) -> Option<String> {
    // SAFETY: a live message of a live response.
    (status != 0).then(|| String::from_utf8_lossy(unsafe { std::slice::from_raw_parts(msg.ptr, msg.len) }).into_owned())
}

fn c2(sector: &sample::SealedSector) -> Vec<u8> {
    let pid = uint8_32_array_t { idx: sector.prover_id };
    // SAFETY: locals outlive the call; the response is freed once.
    unsafe {
        let resp = seal_commit_phase2(s(&sector.c1_json), sector.sector_id, &pid);
        assert_eq!(error_of((*resp).status_code, &(*resp).error_msg), None);
        let v = std::slice::from_raw_parts((*resp).value.ptr, (*resp).value.len).to_vec();
        destroy_seal_commit_phase2_response(resp);
        v
    }
}

fn aggregate(agg: i32, comm_rs: &[[u8; 32]], seeds: &[[u8; 32]], proofs: &[Vec<u8>]) -> Result<Vec<u8>, String> {
    let comm_rs: Vec<uint8_32_array_t> = comm_rs.iter().map(|&idx| uint8_32_array_t { idx }).collect();
    let seeds: Vec<uint8_32_array_t> = seeds.iter().map(|&idx| uint8_32_array_t { idx }).collect();
    let held: Vec<slice_boxed_uint8_t> = proofs.iter().map(|p| boxed(p)).collect();
    // SAFETY: locals outlive the call; the response and buffers are freed once.
    unsafe {
        let resp = aggregate_seal_proofs(
            RP,
            agg,
            slice_ref_uint8_32_array_t { ptr: comm_rs.as_ptr(), len: comm_rs.len() },
            slice_ref_uint8_32_array_t { ptr: seeds.as_ptr(), len: seeds.len() },
            slice_ref_slice_boxed_uint8_t { ptr: held.as_ptr(), len: held.len() },
        );
        let out = match error_of((*resp).status_code, &(*resp).error_msg) {
            None => Ok(std::slice::from_raw_parts((*resp).value.ptr, (*resp).value.len).to_vec()),
            Some(e) => Err(e),
        };
        destroy_aggregate_proof(resp);
        for b in held {
            destroy_boxed_slice(b);
        }
        out
    }
}

fn inputs(sectors: &[&sample::SealedSector]) -> Vec<AggregationInputs_t> {
    sectors
        .iter()
        .map(|x| AggregationInputs_t {
            comm_r: uint8_32_array_t { idx: x.comm_r },
            comm_d: uint8_32_array_t { idx: x.comm_d },
            sector_id: x.sector_id,
            ticket: uint8_32_array_t { idx: x.ticket },
            seed: uint8_32_array_t { idx: x.seed },
        })
        .collect()
}

fn verify(agg: i32, prover_id: [u8; 32], proof: &[u8], inputs: &[AggregationInputs_t]) -> Result<bool, String> {
    let pid = uint8_32_array_t { idx: prover_id };
    // SAFETY: locals outlive the call; the response is freed once.
    unsafe {
        let resp = verify_aggregate_seal_proof(RP, agg, &pid, s(proof), slice_ref_AggregationInputs_t { ptr: inputs.as_ptr(), len: inputs.len() });
        let out = match error_of((*resp).status_code, &(*resp).error_msg) {
            None => Ok((*resp).value),
            Some(e) => Err(e),
        };
        destroy_verify_aggregate_seal_response(resp);
        out
    }
}

#[test]
fn two_c2_proofs_aggregate_and_verify() {
    common::porep_params();
    params::generate_inner_product_srs(64).unwrap();
    let prover = {
        let mut p = [7u8; 32];
        p[31] = 0;
        p
    };
    let seal = |seed: u64| {
        let dir = std::env::temp_dir().join(format!("cuzk-agg-{}-{seed}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let sector = sample::seal_sector_for(RegisteredSealProof::StackedDrg2KiBV1_1, &dir, seed, Some(prover)).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        sector
    };
    let (a, b) = (seal(51), seal(52));
    assert_ne!(a.sector_id, b.sector_id);
    let proofs = [c2(&a), c2(&b)];
    let comm_rs = [a.comm_r, b.comm_r];
    let seeds = [a.seed, b.seed];
    let ins = inputs(&[&a, &b]);

    for (agg, api) in [(0, Agg::SnarkPackV1), (1, Agg::SnarkPackV2)] {
        let proof = aggregate(agg, &comm_rs, &seeds, &proofs).unwrap();
        assert_eq!(verify(agg, prover, &proof, &ins), Ok(true), "{api:?}");
        // Stock verifies it too.
        let mut public = Vec::new();
        for x in [&a, &b] {
            public.extend(
                stock::get_seal_inputs(x.registered_proof, x.comm_r, x.comm_d, prover, SectorId::from(x.sector_id), x.ticket, x.seed)
                    .unwrap(),
            );
        }
        let rp = RegisteredSealProof::StackedDrg2KiBV1_1;
        assert!(stock::verify_aggregate_seal_commit_proofs(rp, api, proof.clone(), &comm_rs, &seeds, public).unwrap());
        // Swapped inputs, another prover, garbage: not a valid aggregate.
        let swapped = inputs(&[&b, &a]);
        assert_ne!(verify(agg, prover, &proof, &swapped), Ok(true));
        assert_ne!(verify(agg, [1; 32], &proof, &ins), Ok(true));
        assert_ne!(verify(agg, prover, &proof[..proof.len() / 2], &ins), Ok(true));
        assert_ne!(verify(agg, prover, &[0xff; 64], &ins), Ok(true));
        if agg == 0 {
            // The other version's verifier does not accept it.
            assert_ne!(verify(1, prover, &proof, &ins), Ok(true));
        }
    }

    // Bad input.
    let err = |r: Result<Vec<u8>, String>| r.expect_err("an error");
    assert!(err(aggregate(7, &comm_rs, &seeds, &proofs)).contains("invalid RegisteredAggregationProof"));
    assert!(err(aggregate(1, &[], &[], &[])).contains("empty"));
    assert!(err(aggregate(1, &comm_rs[..1], &seeds, &proofs)).contains("comm_rs"));
    assert!(!err(aggregate(1, &comm_rs, &seeds, &[proofs[0].clone(), vec![1, 2, 3]])).is_empty());
    assert!(verify(1, prover, &[], &[]).unwrap_err().contains("empty"));
    assert!(verify(9, prover, &[1], &ins).unwrap_err().contains("invalid RegisteredAggregationProof"));
    // SAFETY: NULLs are part of the contract.
    unsafe {
        let resp = verify_aggregate_seal_proof(RP, 1, std::ptr::null(), s(&[1]), slice_ref_AggregationInputs_t { ptr: ins.as_ptr(), len: 2 });
        assert!(error_of((*resp).status_code, &(*resp).error_msg).unwrap().contains("prover_id is NULL"));
        destroy_verify_aggregate_seal_response(resp);
        let resp = aggregate_seal_proofs(
            RP,
            1,
            slice_ref_uint8_32_array_t { ptr: std::ptr::null(), len: 2 },
            slice_ref_uint8_32_array_t { ptr: std::ptr::null(), len: 0 },
            slice_ref_slice_boxed_uint8_t { ptr: std::ptr::null(), len: 0 },
        );
        assert!(error_of((*resp).status_code, &(*resp).error_msg).unwrap().contains("NULL pointer"));
        destroy_aggregate_proof(resp);
    }
}

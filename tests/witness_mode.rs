//! The engine in witness mode (`synthesis: "witness"`), end to end on a
//! real 2 KiB sector: each proof type's first partition records its
//! circuit's matrices into the key, every partition is synthesized for its
//! witness alone, and the proofs verify with stock. With the same r and s,
//! a proof from the matrices' a, b, c is byte-identical to one from full
//! synthesis. This binary's global engine runs in witness mode throughout.

mod common;

use bellperson::Circuit;
use blstrs::Scalar as Fr;
use cuzk::{
    api::{keys::KeyOf, params, porep, post, sample, snap},
    circuit::{matrices_file, synthesize, synthesize_witness},
    engine,
    groth16::{self, ProvingKey},
};
use filecoin_proofs::{PoStType, SectorShape2KiB};
use filecoin_proofs_api::{post as stock_post, update as stock_update, PrivateReplicaInfo, PublicReplicaInfo, RegisteredPoStProof, RegisteredSealProof, SectorId};

const MINUTE: std::time::Duration = std::time::Duration::from_secs(60);

/// The global engine, started here, after the parameter cache is set.
fn witness_mode() {
    common::porep_params();
    engine::global().unwrap();
}

/// Proves a circuit (two copies of it) under `pk` with fixed r, s from full
/// synthesis, from the a, b, c of the key's recorded matrices and a witness,
/// and from the witness itself (the prover evaluating a, b, c): the same bytes.
fn same_bytes<C: Circuit<Fr>>(pk: &ProvingKey, [circuit, copy]: [C; 2], what: &str) {
    let matrices = pk.matrices.get().unwrap_or_else(|| panic!("{what}: no matrices recorded"));
    let (r, s) = (Fr::from(1234u64), Fr::from(5678u64));
    let full = groth16::prove(pk, synthesize(circuit).unwrap(), r, s).unwrap();
    let witness = synthesize_witness(copy).unwrap();
    let evaluated = matrices.evaluate(witness.clone()).unwrap();
    assert_eq!(full.to_bytes(), groth16::prove(pk, evaluated, r, s).unwrap().to_bytes(), "{what}: a, b, c from the matrices");
    assert_eq!(full.to_bytes(), groth16::prove(pk, witness, r, s).unwrap().to_bytes(), "{what}: the witness");
}

#[test]
fn c2_proves_from_recorded_matrices_kept_in_a_file_and_verifies_with_stock() {
    witness_mode();
    let rp = RegisteredSealProof::StackedDrg2KiBV1_1;
    let s = common::sealed_2kib(71);
    let proof = porep::seal_commit_phase2(&engine::CallContext::blocking(), &s.c1_json, s.sector_id, s.prover_id).unwrap();
    assert!(porep::verify_seal(rp, s.comm_r, s.comm_d, s.prover_id, s.ticket, s.seed, s.sector_id, &proof).unwrap());
    let counters = engine::global().unwrap().status().counters;
    assert!(counters.partitions_synthesized > 0);
    assert_eq!(counters.witnesses_packed, 0, "no GPU: a, b and c are evaluated on the host, nothing is packed");
    let pk = KeyOf::Seal(rp).load().unwrap();
    let circuits = porep::partition_circuits::<SectorShape2KiB>(porep::parse_c1(&s.c1_json).unwrap()).unwrap();
    for (k, c) in circuits.circuits.into_iter().enumerate() {
        same_bytes(&pk, [c.clone(), c], &format!("C2 partition {k}"));
    }
    c2_matrices_file(rp);
}

/// The matrices file beside the C2 key: written after a recording, read by
/// the next load of the key, recorded again (and replaced) when damaged.
fn c2_matrices_file(rp: RegisteredSealProof) {
    let s = common::sealed_2kib(75);
    let prove = || {
        let proof = porep::seal_commit_phase2(&engine::CallContext::blocking(), &s.c1_json, s.sector_id, s.prover_id).unwrap();
        assert!(porep::verify_seal(rp, s.comm_r, s.comm_d, s.prover_id, s.ticket, s.seed, s.sector_id, &proof).unwrap());
    };
    let (path, key) = engine::synthesis::matrices_path(&KeyOf::Seal(rp).load().unwrap()).expect("a key read from a file");
    let _ = std::fs::remove_file(&path);
    KeyOf::Seal(rp).evict().unwrap();
    prove();
    common::wait_until("the matrices file", MINUTE, || path.exists());
    let written = std::fs::metadata(&path).unwrap().modified().unwrap();

    // A fresh load of the key reads the file: nothing is recorded, so nothing rewritten.
    KeyOf::Seal(rp).evict().unwrap();
    prove();
    assert!(KeyOf::Seal(rp).load().unwrap().matrices.get().is_some());
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert_eq!(std::fs::metadata(&path).unwrap().modified().unwrap(), written, "the file was recorded again");

    // A damaged file is refused: the circuit is recorded again, the proof verifies, the file is replaced.
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.len() / 3;
    bytes[at] ^= 0x10;
    std::fs::write(&path, &bytes).unwrap();
    KeyOf::Seal(rp).evict().unwrap();
    prove();
    let pk = KeyOf::Seal(rp).load().unwrap();
    let (inputs, aux) = (pk.vk.ic.len(), pk.l.len());
    common::wait_until("the replaced matrices file", MINUTE, || matrices_file::read(&path, &key, inputs, aux).is_ok());
}

#[test]
fn post_and_snapdeals_prove_from_recorded_matrices_and_verify_with_stock() {
    witness_mode();
    params::generate(2048, &[params::Family::WinningPost, params::Family::WindowPost, params::Family::SnapDeals]).unwrap();
    let dir = std::env::temp_dir().join(format!("cuzk-witness-mode-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let sector = sample::seal_sector(RegisteredSealProof::StackedDrg2KiBV1_1, &dir, 73).unwrap();
    let sid = SectorId::from(sector.sector_id);

    let randomness = [7u8; 32];
    for (typ, rp) in [
        (PoStType::Winning, RegisteredPoStProof::StackedDrgWinning2KiBV1),
        (PoStType::Window, RegisteredPoStProof::StackedDrgWindow2KiBV1_2),
    ] {
        let challenges = stock_post::generate_fallback_sector_challenges(rp, &randomness, &[sid], sector.prover_id).unwrap();
        let replica = PrivateReplicaInfo::new(rp, sector.comm_r, dir.join("cache"), dir.join("sealed"));
        let vanilla = vec![stock_post::generate_single_vanilla_proof(rp, sid, &replica, &challenges[&sid]).unwrap()];
        let proof = post::post_with_vanilla(&engine::CallContext::blocking(), typ.clone(), rp, randomness, sector.prover_id, &vanilla).unwrap();
        let replicas = [(sid, PublicReplicaInfo::new(rp, sector.comm_r))].into_iter().collect();
        let verified = match typ {
            PoStType::Winning => stock_post::verify_winning_post(&randomness, &proof, &replicas, sector.prover_id),
            PoStType::Window => {
                stock_post::verify_window_post(&randomness, &[(rp, proof.as_slice())], &replicas, sector.prover_id)
            }
        };
        assert!(verified.unwrap(), "{rp:?}");
        let circuits =
            post::partition_circuits::<SectorShape2KiB>(rp, randomness, sector.prover_id, &vanilla, post::Scope::All).unwrap();
        let pk = KeyOf::Post(rp).load().unwrap();
        for c in circuits.circuits {
            same_bytes(&pk, [c.clone(), c], &format!("{rp:?}"));
        }
    }

    let u = sample::update_sector(&sector, &dir, 74).unwrap();
    let (comms, vanilla) = (u.commitments(), u.vanilla_proofs(&dir).unwrap());
    let proof = snap::update_proof_with_vanilla(&engine::CallContext::blocking(), u.registered_proof, &vanilla, comms).unwrap();
    let verified =
        stock_update::verify_empty_sector_update_proof(u.registered_proof, &proof, u.comm_r_old, u.comm_r_new, u.comm_d_new);
    assert!(verified.unwrap(), "SnapDeals");
    let pk = KeyOf::Update(u.registered_proof).load().unwrap();
    let circuits = || snap::partition_circuits::<SectorShape2KiB>(u.registered_proof, &vanilla, comms).unwrap().circuits;
    for (c, copy) in circuits().into_iter().zip(circuits()) {
        same_bytes(&pk, [c, copy], "SnapDeals");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

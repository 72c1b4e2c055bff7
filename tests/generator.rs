//! cuzk's parameter generator on real 2 KiB circuits of every family: keys
//! made from the matrices of random instances (the shape alone), written in
//! the standard layout, load in bellperson, in stock's parameter cache and
//! in cuzk, and proofs of real sectors made with them, by cuzk's prover and
//! by bellperson's (on the key as stock's cache loads it), verify with the
//! stock verifier against the written verifying key. (Its points equal
//! bellperson's generator's for the same toxic waste: the unit tests of
//! groth16::generator.)

mod common;

use bellperson::{
    groth16::{create_random_proof, prepare_verifying_key, verify_proof, Parameters, VerifyingKey},
    Circuit,
};
use blstrs::{Bls12, Scalar as Fr};
use cuzk::{
    api::{porep, post, random_vanilla, sample, snap},
    circuit::{record, synthesize},
    groth16::{
        self,
        generator::{generate, ToxicWaste},
        ProvingKey,
    },
};
use filecoin_proofs::SectorShape2KiB;
use filecoin_proofs_api::{
    post as stock_post, PrivateReplicaInfo, RegisteredPoStProof, RegisteredSealProof, RegisteredUpdateProof, SectorId,
};
use rand::{rngs::OsRng, SeedableRng};
use storage_proofs_core::parameter_cache;
use rand_chacha::ChaCha8Rng;

use common::TempDir;

/// Generates the parameters of a circuit shape from the matrices of a random
/// instance of it (`structure`), writes and reads them back, and proves the
/// real, satisfied instance `real` with both provers.
fn generated_keys_prove_and_verify<C: Circuit<Fr> + Send>(structure: C, real: impl Fn() -> C, what: &str) {
    let waste = ToxicWaste::random(&mut ChaCha8Rng::seed_from_u64(17));
    let generated = generate(&record(structure).unwrap().0, &waste).unwrap();
    let dir = std::env::temp_dir().join(format!("cuzk-generator-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (params_path, vk_path) = (dir.join(format!("{what}.params")), dir.join(format!("{what}.vk")));
    generated.write(std::fs::File::create(&params_path).unwrap()).unwrap();
    generated.vk.write(std::fs::File::create(&vk_path).unwrap()).unwrap();

    // Unchecked, as stock's cache reads it: the points are checked below, a
    // sample of them (a sequential check of every point takes minutes).
    let stock = Parameters::<Bls12>::read(std::fs::File::open(&params_path).unwrap(), false).unwrap();
    let vk = VerifyingKey::<Bls12>::read(std::fs::File::open(&vk_path).unwrap()).unwrap();
    assert!(stock.vk == vk, "{what}: the .vk differs from the key's");
    // As stock's provers load a key: through its parameter cache (mapped).
    let mapped = parameter_cache::read_cached_params(&params_path).unwrap();
    assert!(mapped.vk == vk, "{what}: stock's parameter cache reads another verifying key");
    let ours = ProvingKey::read_file(&params_path).unwrap();
    assert_points_valid(&ours, what);
    let pvk = prepare_verifying_key(&vk);

    let cs = synthesize(real()).unwrap();
    let inputs = cs.inputs[1..].to_vec();
    let (r, s) = groth16::random_rs(&mut OsRng);
    let by_cuzk = groth16::prove(&ours, cs, r, s).unwrap().to_bellperson();
    assert!(verify_proof(&pvk, &by_cuzk, &inputs).unwrap(), "{what}: cuzk's proof does not verify");
    let by_bellperson = create_random_proof(real(), &mapped, &mut OsRng).unwrap();
    assert!(verify_proof(&pvk, &by_bellperson, &inputs).unwrap(), "{what}: bellperson's proof does not verify");
    let mut wrong = inputs.clone();
    wrong[0] += Fr::from(1u64);
    assert!(!verify_proof(&pvk, &by_cuzk, &wrong).unwrap(), "{what}: a proof verifies against other inputs");
    let _ = std::fs::remove_file(&params_path);
    let _ = std::fs::remove_file(&vk_path);
}

/// Every 97th point of each query of `pk` (and its last) is on the curve and
/// in the prime-order subgroup.
fn assert_points_valid(pk: &ProvingKey, what: &str) {
    fn sampled<P>(points: &[P]) -> impl Iterator<Item = &P> {
        points.iter().step_by(97).chain(points.last())
    }
    let g1 = [("h", &pk.h), ("l", &pk.l), ("a", &pk.a), ("b_g1", &pk.b_g1)];
    for (query, points) in g1 {
        assert!(!points.is_empty() || query == "b_g1", "{what}: the {query} query is empty");
        for p in sampled(points) {
            assert!(bool::from(p.is_on_curve() & p.is_torsion_free()), "{what}: a point of {query} is not in G1");
        }
    }
    for p in sampled(&pk.b_g2) {
        assert!(bool::from(p.is_on_curve() & p.is_torsion_free()), "{what}: a point of b_g2 is not in G2");
    }
}

#[test]
fn a_generated_porep_key_proves_a_real_c2_partition_by_both_provers() {
    let rp = RegisteredSealProof::StackedDrg2KiBV1_1;
    let dir = TempDir::new("generator-porep");
    let sector = sample::seal_sector(rp, &dir.0, 83).unwrap();
    let real = || porep::partition_circuits::<SectorShape2KiB>(porep::parse_c1(&sector.c1_json).unwrap()).unwrap().circuits.remove(0);
    let random = porep::partition_circuits::<SectorShape2KiB>(random_vanilla::porep_c1(rp, 1).unwrap()).unwrap();
    generated_keys_prove_and_verify(random.circuits.into_iter().next().unwrap(), real, "PoRep");
}

#[test]
fn generated_post_and_snapdeals_keys_prove_real_sectors_and_verify_with_stock() {
    let dir = TempDir::new("generator-sector");
    let sector = sample::seal_sector(RegisteredSealProof::StackedDrg2KiBV1_1, &dir.0, 81).unwrap();
    let sid = SectorId::from(sector.sector_id);
    let mut randomness = [9u8; 32];
    randomness[31] &= 0x3f;
    for rp in [RegisteredPoStProof::StackedDrgWinning2KiBV1, RegisteredPoStProof::StackedDrgWindow2KiBV1_2] {
        let challenges = stock_post::generate_fallback_sector_challenges(rp, &randomness, &[sid], sector.prover_id).unwrap();
        let replica = PrivateReplicaInfo::new(rp, sector.comm_r, dir.0.join("cache"), dir.0.join("sealed"));
        let vanilla = vec![stock_post::generate_single_vanilla_proof(rp, sid, &replica, &challenges[&sid]).unwrap()];
        let real = || {
            post::partition_circuits::<SectorShape2KiB>(rp, randomness, sector.prover_id, &vanilla, post::Scope::All).unwrap().circuits.remove(0)
        };
        let structure = random_vanilla::post_circuit::<SectorShape2KiB>(rp, 1).unwrap();
        generated_keys_prove_and_verify(structure, real, &format!("{rp:?}"));
    }

    let u = sample::update_sector(&sector, &dir.0, 82).unwrap();
    let (comms, vanilla) = (u.commitments(), u.vanilla_proofs(&dir.0).unwrap());
    let real = || snap::partition_circuits::<SectorShape2KiB>(u.registered_proof, &vanilla, comms).unwrap().circuits.remove(0);
    let structure = random_vanilla::update_circuit::<SectorShape2KiB>(RegisteredUpdateProof::StackedDrg2KiBV1, 1).unwrap();
    generated_keys_prove_and_verify(structure, real, "SnapDeals");
}

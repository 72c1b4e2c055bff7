//! For fixed r and s, cuzk's proof bytes equal bellperson's
//! `create_proof_batch_in_priority` on the same circuit and parameters.

use bellperson::groth16::{
    create_proof_batch_in_priority, generate_random_parameters, prepare_verifying_key, verify_proof, Parameters,
};
use blstrs::{Bls12, Scalar as Fr};
use cuzk::{
    circuit::{synthesize, MulChain},
    groth16::{prove, synthetic_srs, ProvingKey},
};
use ff::Field;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn bellperson_bytes(circuit: MulChain, params: &Parameters<Bls12>, r: Fr, s: Fr) -> Vec<u8> {
    let proofs = create_proof_batch_in_priority(vec![circuit], params, vec![r], vec![s]).unwrap();
    let mut out = Vec::new();
    proofs[0].write(&mut out).unwrap();
    out
}

#[test]
fn same_bytes_as_bellperson_with_generated_parameters() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let circuit = MulChain { start: Fr::from(3u64), links: 1000 };
    let params = generate_random_parameters::<Bls12, _, _>(circuit.clone(), &mut rng).unwrap();
    let mut file = Vec::new();
    params.write(&mut file).unwrap();
    let pk = ProvingKey::read_bytes(&file).expect("cuzk reads the bellperson .params layout");

    for _ in 0..2 {
        let (r, s) = (Fr::random(&mut rng), Fr::random(&mut rng));
        let ours = prove(&pk, synthesize(circuit.clone()).unwrap(), r, s).unwrap();
        assert_eq!(ours.to_bytes().to_vec(), bellperson_bytes(circuit.clone(), &params, r, s));
        let pvk = prepare_verifying_key(&params.vk);
        assert!(verify_proof(&pvk, &ours.to_bellperson(), &[circuit.output()]).unwrap());
        assert!(!verify_proof(&pvk, &ours.to_bellperson(), &[circuit.output() + Fr::ONE]).unwrap());
    }
}

#[test]
fn same_bytes_as_bellperson_with_zero_randomisers_and_a_synthetic_key() {
    let circuit = MulChain { start: Fr::from(5u64), links: (1 << 14) - 7 };
    let pk = synthetic_srs::key_for(&synthesize(circuit.clone()).unwrap(), 3);
    let params = pk.to_bellperson();
    for (r, s) in [(Fr::ZERO, Fr::ZERO), (Fr::from(9u64), Fr::ONE)] {
        let ours = prove(&pk, synthesize(circuit.clone()).unwrap(), r, s).unwrap();
        assert_eq!(ours.to_bytes().to_vec(), bellperson_bytes(circuit.clone(), &params, r, s));
    }
}

#[test]
fn a_key_of_another_shape_is_an_error_not_a_panic() {
    let small = MulChain { start: Fr::ONE, links: 10 };
    let pk = synthetic_srs::key_for(&synthesize(small).unwrap(), 1);
    let big = synthesize(MulChain { start: Fr::ONE, links: 100 }).unwrap();
    let err = prove(&pk, big, Fr::ONE, Fr::ONE).unwrap_err().to_string();
    assert!(err.contains("parameters"), "{err}");
}

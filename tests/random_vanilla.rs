//! Shape-true PoRep inputs: random vanilla proofs give the circuit a real
//! sealed sector gives, constraint for constraint (the witnesses differ).

mod common;

use cuzk::{
    api::{porep, random_vanilla},
    circuit::{synthesize, Synthesized},
};
use filecoin_proofs::{SectorShape2KiB, SectorShape32GiB};
use filecoin_proofs_api::RegisteredSealProof;

/// Everything of a synthesized circuit that the prover's work depends on.
fn shape(cs: &Synthesized) -> [usize; 6] {
    [
        cs.num_constraints(),
        cs.inputs.len(),
        cs.aux.len(),
        cs.a_aux_density.count(),
        cs.b_input_density.count(),
        cs.b_aux_density.count(),
    ]
}

#[test]
fn random_2kib_vanilla_proofs_give_the_sealed_sectors_circuit_shape() {
    let rp = RegisteredSealProof::StackedDrg2KiBV1_1;
    let sealed = cuzk::api::sample::seal_sector_in_temp(rp, 51).unwrap();
    let real = porep::partition_circuits::<SectorShape2KiB>(porep::parse_c1(&sealed.c1_json).unwrap()).unwrap();
    let random = porep::partition_circuits::<SectorShape2KiB>(random_vanilla::porep_c1(rp, 7).unwrap()).unwrap();
    assert_eq!(real.circuits.len(), random.circuits.len());
    for (k, (a, b)) in real.circuits.into_iter().zip(random.circuits).enumerate() {
        let (a, b) = (synthesize(a).unwrap(), synthesize(b).unwrap());
        assert_eq!(shape(&a), shape(&b), "partition {k}");
        assert_ne!(a.aux, b.aux, "partition {k}: random witnesses equal the sealed sector's");
    }
    // Reproducible from the seed, different across seeds.
    let again = serde_json::to_vec(&random_vanilla::porep_c1(rp, 7).unwrap()).unwrap();
    assert_eq!(again, serde_json::to_vec(&random_vanilla::porep_c1(rp, 7).unwrap()).unwrap());
    assert_ne!(again, serde_json::to_vec(&random_vanilla::porep_c1(rp, 8).unwrap()).unwrap());
}

#[test]
fn random_32gib_vanilla_proofs_pass_the_c1_checks_of_every_partition() {
    let rp = RegisteredSealProof::StackedDrg32GiBV1_1;
    let c1 = random_vanilla::porep_c1(rp, 1).unwrap();
    let parts = porep::partition_circuits::<SectorShape32GiB>(c1).unwrap();
    assert_eq!(parts.circuits.len(), 10);
    assert!(parts.public_inputs.iter().all(|p| !p.is_empty()));
}

//! Shape-true PoRep inputs: random vanilla proofs give the circuit a real
//! sealed sector gives, constraint for constraint (the witnesses differ).

mod common;

use bellperson::{Circuit, ConstraintSystem, LinearCombination, SynthesisError, Variable};
use blstrs::Scalar as Fr;
use common::shape;
use cuzk::{
    api::{porep, random_vanilla},
    circuit::{synthesize, synthesize_pieces, Synthesized},
};
use filecoin_proofs::{
    parameters::{window_post_setup_params, winning_post_setup_params},
    SectorShape2KiB, SectorShape32GiB,
};
use filecoin_proofs_api::{RegisteredPoStProof, RegisteredSealProof};

#[test]
fn random_2kib_vanilla_proofs_give_the_sealed_sectors_circuit_shape() {
    let rp = RegisteredSealProof::StackedDrg2KiBV1_1;
    let sealed = cuzk::api::sample::seal_sector_in_temp(rp, 51).unwrap();
    let real = porep::partition_circuits::<SectorShape2KiB>(porep::parse_c1(&sealed.c1_json).unwrap()).unwrap();
    let random = porep::partition_circuits::<SectorShape2KiB>(random_vanilla::porep_c1(rp, 7).unwrap()).unwrap();
    let random_pieces = porep::partition_pieces::<SectorShape2KiB>(random_vanilla::porep_c1(rp, 7).unwrap()).unwrap();
    let real_pieces = porep::partition_pieces::<SectorShape2KiB>(porep::parse_c1(&sealed.c1_json).unwrap()).unwrap();
    assert_eq!(real.circuits.len(), random.circuits.len());
    let pieces = real_pieces.pieces.into_iter().zip(random_pieces.pieces);
    for (k, ((a, b), (a_pieces, b_pieces))) in real.circuits.into_iter().zip(random.circuits).zip(pieces).enumerate() {
        let (a, b) = (synthesize(a).unwrap(), synthesize(b).unwrap());
        assert_eq!(shape(&a), shape(&b), "partition {k}");
        assert_ne!(a.aux, b.aux, "partition {k}: random witnesses equal the sealed sector's");
        // One thread per challenge gives exactly what one thread for all gives.
        assert!(a_pieces.len() > 1, "partition {k}: {} pieces", a_pieces.len());
        assert!(synthesize_pieces::<Synthesized, _>(a_pieces, porep::CHALLENGE_NAMESPACE).unwrap() == a, "partition {k}: real, in pieces");
        assert!(synthesize_pieces::<Synthesized, _>(b_pieces, porep::CHALLENGE_NAMESPACE).unwrap() == b, "partition {k}: random, in pieces");
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

#[test]
fn random_32gib_post_circuits_have_every_sector_and_winning_synthesizes() {
    // Stock's circuit parameters: Winning proves its sector once per challenge.
    let winning = winning_post_setup_params(&RegisteredPoStProof::StackedDrgWinning32GiBV1.as_v1_config()).unwrap();
    let window = window_post_setup_params(&RegisteredPoStProof::StackedDrgWindow32GiBV1_2.as_v1_config());
    for (rp, sectors) in [
        (RegisteredPoStProof::StackedDrgWinning32GiBV1, winning.sector_count),
        (RegisteredPoStProof::StackedDrgWindow32GiBV1_2, window.sector_count),
    ] {
        let circuit = random_vanilla::post_circuit::<SectorShape32GiB>(rp, 3).unwrap();
        assert_eq!(circuit.sectors.len(), sectors, "{rp:?}");
    }
    let winning = random_vanilla::post_circuit::<SectorShape32GiB>(RegisteredPoStProof::StackedDrgWinning32GiBV1, 3).unwrap();
    let cs = synthesize(winning).unwrap();
    eprintln!("32 GiB Winning PoSt circuit: {:?} (constraints, inputs, aux, A aux, B inputs, B aux)", shape(&cs));
    assert!(cs.num_constraints() > cs.inputs.len());
}

/// A constraint system that ends synthesis at its first variable: what a
/// circuit checks before it allocates (outside its constraints) runs, the
/// ~81M constraints of a 32 GiB SnapDeals partition do not.
struct StopsAtFirstVariable;

impl ConstraintSystem<Fr> for StopsAtFirstVariable {
    type Root = Self;

    fn alloc<F, A, AR>(&mut self, _: A, _: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        Err(SynthesisError::AssignmentMissing)
    }

    fn alloc_input<F, A, AR>(&mut self, annotation: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.alloc(annotation, f)
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, _: LA, _: LB, _: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LB: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LC: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
    {
    }

    fn push_namespace<NR: Into<String>, N: FnOnce() -> NR>(&mut self, _: N) {}

    fn pop_namespace(&mut self) {}

    fn get_root(&mut self) -> &mut Self::Root {
        self
    }
}

#[test]
fn random_32gib_update_circuit_passes_the_circuits_own_checks() {
    // The SnapDeals circuit asserts, before allocating, that all challenges of
    // a partition share the top of their TreeD paths (the supraseal benchmark
    // panicked there on paths with random siblings everywhere).
    let rp = filecoin_proofs_api::RegisteredUpdateProof::StackedDrg32GiBV1;
    let circuit = random_vanilla::update_circuit::<SectorShape32GiB>(rp, 5).unwrap();
    let stopped = circuit.synthesize(&mut StopsAtFirstVariable);
    assert!(matches!(stopped, Err(SynthesisError::AssignmentMissing)), "{stopped:?}");
}

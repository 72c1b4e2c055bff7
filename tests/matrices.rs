//! Recorded matrices against full synthesis on the real circuits: a
//! circuit's R1CS recorded from one instance, evaluated against another
//! instance's witness (witness-only synthesis), gives exactly the a, b, c
//! and densities that full synthesis of that instance gives. That is what
//! makes one recording per circuit serve every sector.

mod common;

use std::ops::Range;

use bellperson::Circuit;
use blstrs::Scalar as Fr;
use cuzk::{
    api::{porep, random_vanilla, snap},
    circuit::{
        record, synthesize, synthesize_pieces, synthesize_segment_range, synthesize_witness, Matrices, Recorder, Synthesized,
        Witness,
    },
};
use filecoin_proofs::{SectorShape2KiB, SectorShape32GiB};
use filecoin_proofs_api::{RegisteredPoStProof, RegisteredSealProof, RegisteredUpdateProof};

/// `matrices` evaluated against `witness` equals `full`, and the witness is
/// full synthesis's assignment.
fn assert_evaluates_to(matrices: &Matrices, witness: Witness, full: &Synthesized, what: &str) {
    assert_eq!((&witness.inputs, &witness.aux), (&full.inputs, &full.aux), "{what}: the witness");
    let evaluated = matrices.evaluate(witness).unwrap();
    assert!(evaluated.a == full.a && evaluated.b == full.b && evaluated.c == full.c, "{what}: a, b, c differ");
    assert_eq!(evaluated, *full, "{what}: densities or assignment differ");
}

#[test]
fn porep_2kib_matrices_recorded_from_random_vanilla_serve_a_sealed_sector() {
    let rp = RegisteredSealProof::StackedDrg2KiBV1_1;
    let random = porep::partition_pieces::<SectorShape2KiB>(random_vanilla::porep_c1(rp, 7).unwrap()).unwrap();
    let recorded = synthesize_pieces::<Recorder, _>(random.pieces[0].clone(), porep::CHALLENGE_NAMESPACE).unwrap();
    let (matrices, own) = recorded.finish().unwrap();
    // Recorded in pieces or on one thread: the same matrices.
    let whole = porep::partition_circuits::<SectorShape2KiB>(random_vanilla::porep_c1(rp, 7).unwrap()).unwrap();
    assert!(record(whole.circuits[0].clone()).unwrap() == (matrices.clone(), own), "recorded in pieces and whole differ");

    let sealed = cuzk::api::sample::seal_sector_in_temp(rp, 61).unwrap();
    let real = porep::partition_pieces::<SectorShape2KiB>(porep::parse_c1(&sealed.c1_json).unwrap()).unwrap();
    let real_whole = porep::partition_circuits::<SectorShape2KiB>(porep::parse_c1(&sealed.c1_json).unwrap()).unwrap();
    for (k, pieces) in real.pieces.into_iter().enumerate() {
        let witness = synthesize_pieces::<Witness, _>(pieces, porep::CHALLENGE_NAMESPACE).unwrap();
        let full = synthesize(real_whole.circuits[k].clone()).unwrap();
        assert_evaluates_to(&matrices, witness, &full, &format!("sealed sector, partition {k}"));
    }
}

/// Records `circuit(1)`, then checks instances 2 and 3 through witness-only synthesis.
fn check_instances<C: Circuit<Fr>>(what: &str, circuit: impl Fn(u64) -> C) {
    let (matrices, _) = record(circuit(1)).unwrap();
    for seed in [2, 3] {
        let full = synthesize(circuit(seed)).unwrap();
        assert_evaluates_to(&matrices, synthesize_witness(circuit(seed)).unwrap(), &full, &format!("{what}, instance {seed}"));
    }
}

#[test]
fn post_2kib_matrices_serve_other_instances() {
    for rp in [RegisteredPoStProof::StackedDrgWinning2KiBV1, RegisteredPoStProof::StackedDrgWindow2KiBV1_2] {
        check_instances(&format!("{rp:?}"), |seed| random_vanilla::post_circuit::<SectorShape2KiB>(rp, seed).unwrap());
    }
}

#[test]
fn snapdeals_2kib_matrices_serve_other_instances_in_pieces_too() {
    let rp = RegisteredUpdateProof::StackedDrg2KiBV1;
    let circuit = |seed| random_vanilla::update_circuit::<SectorShape2KiB>(rp, seed).unwrap();
    check_instances("SnapDeals 2 KiB", circuit);
    let (matrices, _) = record(circuit(1)).unwrap();
    let challenges = 4;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    let witness = pool.install(|| snap::synthesize_partition::<Witness, _>(circuit(5), challenges)).unwrap();
    let recorded = pool.install(|| snap::synthesize_partition::<Recorder, _>(circuit(1), challenges)).unwrap();
    assert!(recorded.finish().unwrap().0 == matrices, "recorded in pieces and whole differ");
    assert_evaluates_to(&matrices, witness, &synthesize(circuit(5)).unwrap(), "SnapDeals 2 KiB, in pieces");
}

/// Full size, one piece: a 32 GiB PoRep partition's first challenge (the
/// commitments, then one challenge of 18), recorded from partition 0 of one
/// random C1 output and checked on partition 3 of another.
#[test]
fn porep_32gib_piece_matrices_serve_another_sector_and_partition() {
    let rp = RegisteredSealProof::StackedDrg32GiBV1_1;
    let piece = |seed: u64, partition: usize| {
        let c1 = random_vanilla::porep_c1(rp, seed).unwrap();
        porep::partition_pieces::<SectorShape32GiB>(c1).unwrap().pieces.swap_remove(partition).swap_remove(0)
    };
    let (matrices, _) = record(piece(1, 0)).unwrap();
    eprintln!(
        "32 GiB PoRep piece: {} constraints, {} terms, {} distinct coefficients, {} MiB recorded",
        matrices.num_constraints(),
        matrices.num_terms(),
        matrices.coeffs.len(),
        matrices.size_bytes() >> 20
    );
    let full = synthesize(piece(2, 3)).unwrap();
    assert_evaluates_to(&matrices, synthesize_witness(piece(2, 3)).unwrap(), &full, "32 GiB PoRep piece");
}

/// Full size, one range: a 32 GiB SnapDeals partition's prefix and two of
/// its challenges, as one piece of `synthesize_segments` synthesizes them.
#[test]
fn snapdeals_32gib_range_matrices_serve_another_instance() {
    let rp = RegisteredUpdateProof::StackedDrg32GiBV1;
    let range = || -> Range<usize> { 5..7 };
    let circuit = |seed| random_vanilla::update_circuit::<SectorShape32GiB>(rp, seed).unwrap();
    let recorded: Recorder = synthesize_segment_range(circuit(1), range(), &snap::challenge_of).unwrap();
    let (matrices, _) = recorded.finish().unwrap();
    let witness: Witness = synthesize_segment_range(circuit(2), range(), &snap::challenge_of).unwrap();
    let full: Synthesized = synthesize_segment_range(circuit(2), range(), &snap::challenge_of).unwrap();
    eprintln!("32 GiB SnapDeals range: {} constraints, {} terms", matrices.num_constraints(), matrices.num_terms());
    assert_evaluates_to(&matrices, witness, &full, "32 GiB SnapDeals range");
}

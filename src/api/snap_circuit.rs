//! The SnapDeals partition circuit, synthesized as storage-proofs-update's
//! `EmptySectorUpdateCircuit` synthesizes it (same variables and
//! constraints, in the same order), with one difference: its tree D work
//! (the partition's apex tree, its path to comm_d, and each challenge's path
//! to its apex leaf, all binary SHA-256), nearly all of a partition's
//! witness, goes through cuzk's SHA-256 (`circuit::sha256`), whose witness
//! generation skips the linear combinations bellperson's gadget builds for
//! nothing. The Poseidon parts call the stock gadgets. Each challenge is one
//! top-level namespace named `challenge (c_index=<i>)`, and a circuit may
//! hold a range of the challenges only (after everything they share), so
//! that a partition synthesizes in pieces (`circuit::synthesize_pieces`)
//! without walking the challenges of other pieces. Tests compare the witness
//! and the constraints with the stock circuit's for the same vanilla proofs.

use std::ops::Range;

use bellperson::{
    gadgets::{
        boolean::{field_into_allocated_bits_le, AllocatedBit, Boolean},
        multipack::pack_bits,
        num::AllocatedNum,
    },
    Circuit, ConstraintSystem, LinearCombination, SynthesisError,
};
use blstrs::Scalar as Fr;
use ff::{Field, PrimeField, PrimeFieldBits};
use filecoin_hashers::{HashFunction, Hasher};
use neptune::circuit::poseidon_hash;
use storage_proofs_core::{
    gadgets::{insertion::select, por::por_no_challenge_input},
    merkle::MerkleTreeTrait,
};
use storage_proofs_update::{
    circuit::{ChallengeProof, PrivateInputs, PublicInputs},
    constants::{hs, validate_tree_r_shape, TreeRHasher, POSEIDON_CONSTANTS_GEN_RANDOMNESS},
    EmptySectorUpdateCircuit, PublicParams,
};

use super::tree_d;

/// The name that opens each challenge's top-level namespace.
pub const CHALLENGE_NAMESPACE: &str = "challenge";

/// One partition's update circuit over the stock circuit's values, or a
/// piece of it: what the challenges share and the challenges in a range.
pub struct UpdateCircuit<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>> {
    circuit: EmptySectorUpdateCircuit<Tree>,
    challenges: Range<usize>,
}

impl<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>> UpdateCircuit<Tree> {
    #[cfg(test)]
    pub fn whole(circuit: EmptySectorUpdateCircuit<Tree>) -> Self {
        Self { circuit, challenges: 0..usize::MAX }
    }

    /// The piece of `circuit` that holds the challenges in `challenges`.
    pub fn piece(circuit: EmptySectorUpdateCircuit<Tree>, challenges: Range<usize>) -> Self {
        Self { circuit, challenges }
    }
}

/// A shape the stock circuit asserts; here an error, not a panic.
fn require(condition: bool) -> Result<(), SynthesisError> {
    if condition {
        Ok(())
    } else {
        Err(SynthesisError::Unsatisfiable)
    }
}

fn alloc<CS: ConstraintSystem<Fr>>(cs: &mut CS, name: impl FnOnce() -> String, value: Option<Fr>) -> Result<AllocatedNum<Fr>, SynthesisError> {
    AllocatedNum::alloc(cs.namespace(name), || value.ok_or(SynthesisError::AssignmentMissing))
}

/// `num == sum 2^i bits[i]`, one constraint.
fn enforce_packed<CS: ConstraintSystem<Fr>>(cs: &mut CS, bits: &[AllocatedBit], num: &AllocatedNum<Fr>) {
    let mut lc = LinearCombination::<Fr>::zero();
    let mut pow2 = Fr::ONE;
    for bit in bits {
        lc = lc + (pow2, bit.get_variable());
        pow2 = pow2.double();
    }
    cs.enforce(|| "binary decomp", |_| lc, |lc| lc + CS::one(), |lc| lc + num.get_variable());
}

/// What every challenge's sub-circuit checks against.
struct Shared {
    phi: AllocatedNum<Fr>,
    root_r_old: AllocatedNum<Fr>,
    root_r_new: AllocatedNum<Fr>,
    apex_leafs: Vec<AllocatedNum<Fr>>,
    partition_bits: Vec<AllocatedBit>,
    h_select_bits: Vec<AllocatedBit>,
    hs: [usize; 6],
    /// Bits of a challenge below its apex leaf, and of the apex leaf.
    bits_to_apex_leaf: usize,
    apex_leaf_bits: usize,
}

impl<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>> Circuit<Fr> for UpdateCircuit<Tree> {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let EmptySectorUpdateCircuit { pub_params, pub_inputs, priv_inputs } = self.circuit;
        let PublicParams {
            sector_nodes,
            challenge_count,
            challenge_bit_len,
            partition_bit_len,
            apex_leaf_count,
            apex_leaf_bit_len,
            ..
        } = pub_params;
        let PublicInputs { k_and_h_select, comm_r_old, comm_d_new, comm_r_new } = pub_inputs;
        let PrivateInputs { comm_c, root_r_old, root_r_new, apex_leafs, challenge_proofs } = priv_inputs;
        validate_tree_r_shape::<Tree>(sector_nodes);
        let hs = hs(sector_nodes);

        require(challenge_proofs.len() == challenge_count && apex_leafs.len() == apex_leaf_count)?;
        require(apex_leaf_count == 1 << apex_leaf_bit_len && challenge_bit_len >= partition_bit_len + apex_leaf_bit_len)?;
        let first = challenge_proofs.first().ok_or(SynthesisError::Unsatisfiable)?;
        let partition_path = first.path_d_new.get(challenge_bit_len - partition_bit_len..).unwrap_or_default();
        require(partition_path.len() == partition_bit_len && partition_path.iter().all(|s| s.len() == 1))?;
        require(challenge_proofs.iter().all(|p| {
            p.path_d_new.len() == challenge_bit_len && p.path_d_new[challenge_bit_len - partition_bit_len..] == *partition_path
        }))?;

        let k_and_h_select = alloc(cs, || "k_and_h_select".into(), k_and_h_select)?;
        k_and_h_select.inputize(cs.namespace(|| "k_and_h_select (public input)"))?;
        let mut bits = {
            let bit_len = partition_bit_len + hs.len();
            let values: Vec<Option<bool>> = match k_and_h_select.get_value() {
                Some(v) => v.to_le_bits().into_iter().take(bit_len).map(Some).collect(),
                None => vec![None; bit_len],
            };
            let bits = (values.into_iter().enumerate())
                .map(|(i, bit)| AllocatedBit::alloc(cs.namespace(|| format!("k_and_h_select_bit_{i}")), bit))
                .collect::<Result<Vec<_>, _>>()?;
            enforce_packed(&mut cs.namespace(|| "k_and_h_select_bits"), &bits, &k_and_h_select);
            bits
        };
        let h_select_bits = bits.split_off(partition_bit_len);
        let partition_bits = bits;
        let as_booleans = |bits: &[AllocatedBit]| bits.iter().cloned().map(Boolean::from).collect::<Vec<_>>();
        let partition = pack_bits(cs.namespace(|| "pack partition bits"), &as_booleans(&partition_bits))?;

        let mut public = |name: &'static str, value| -> Result<AllocatedNum<Fr>, SynthesisError> {
            let num = alloc(cs, || name.into(), value)?;
            num.inputize(cs.namespace(|| format!("{name}_input")))?;
            Ok(num)
        };
        let comm_r_old = public("comm_r_old", comm_r_old)?;
        let comm_d_new = public("comm_d_new", comm_d_new)?;
        let comm_r_new = public("comm_r_new", comm_r_new)?;
        let phi = poseidon_hash(cs.namespace(|| "phi"), vec![comm_d_new.clone(), comm_r_old.clone()], &POSEIDON_CONSTANTS_GEN_RANDOMNESS)?;

        let comm_c = alloc(cs, || "comm_c".into(), comm_c)?;
        let root_r_old = alloc(cs, || "root_r_old".into(), root_r_old)?;
        let root_r_new = alloc(cs, || "root_r_new".into(), root_r_new)?;
        let apex_leafs = (apex_leafs.iter().enumerate())
            .map(|(i, leaf)| alloc(cs, || format!("apex_leaf_{i}"), *leaf))
            .collect::<Result<Vec<_>, _>>()?;
        let partition_path = (partition_path.iter().enumerate())
            .map(|(i, siblings)| alloc(cs, || format!("partition_path_sibling_{i}"), siblings[0]))
            .collect::<Result<Vec<_>, _>>()?;

        for (name, root, comm_r) in [("comm_r_old", &root_r_old, &comm_r_old), ("comm_r_new", &root_r_new, &comm_r_new)] {
            let calc = <TreeRHasher as Hasher>::Function::hash2_circuit(cs.namespace(|| format!("{name}_calc")), &comm_c, root)?;
            cs.enforce(|| format!("{name}_calc == {name}"), |lc| lc + calc.get_variable(), |lc| lc + CS::one(), |lc| lc + comm_r.get_variable());
        }

        apex_por(cs.namespace(|| "apex_gadget"), &apex_leafs, partition_bits.clone(), partition_path, &comm_d_new)?;

        let generated = challenge_bits(
            cs.namespace(|| "gen_challenge_bits"),
            &comm_r_new,
            &partition,
            challenge_count,
            challenge_bit_len - partition_bit_len,
        )?;
        let shared = Shared {
            phi,
            root_r_old,
            root_r_new,
            apex_leafs,
            partition_bits,
            h_select_bits,
            hs,
            bits_to_apex_leaf: challenge_bit_len - partition_bit_len - apex_leaf_bit_len,
            apex_leaf_bits: apex_leaf_bit_len,
        };
        let challenges = generated.into_iter().zip(challenge_proofs).enumerate();
        for (c_index, (bits, proof)) in challenges.filter(|(i, _)| self.challenges.contains(i)) {
            challenge(cs.namespace(|| format!("{CHALLENGE_NAMESPACE} (c_index={c_index})")), bits, proof, &shared)?;
        }
        Ok(())
    }
}

/// One challenge: its `rho`, the new label from the old one and the data,
/// both labels included in their trees R, the data in its apex leaf.
fn challenge<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>, CS: ConstraintSystem<Fr>>(
    mut cs: CS,
    generated_bits: Vec<AllocatedBit>,
    proof: ChallengeProof<Tree>,
    at: &Shared,
) -> Result<(), SynthesisError> {
    let c_bits: Vec<AllocatedBit> = generated_bits.into_iter().chain(at.partition_bits.iter().cloned()).collect();
    let c_high = challenge_high_bits(cs.namespace(|| "get_challenge_high_bits"), &c_bits, &at.h_select_bits, &at.hs)?;
    let rho = poseidon_hash(cs.namespace(|| "rho"), vec![at.phi.clone(), c_high], &POSEIDON_CONSTANTS_GEN_RANDOMNESS)?;

    let leaf_r_old = alloc(&mut cs, || "leaf_r_old".into(), proof.leaf_r_old)?;
    let leaf_d_new = alloc(&mut cs, || "leaf_d_new".into(), proof.leaf_d_new)?;
    let leaf_r_new = label_r_new(cs.namespace(|| "leaf_r_new"), &leaf_r_old, &leaf_d_new, &rho)?;
    if let (Some(computed), Some(given)) = (leaf_r_new.get_value(), proof.leaf_r_new) {
        require(computed == given)?;
    }

    for (name, leaf, path, root) in [
        ("r_old", leaf_r_old, &proof.path_r_old, &at.root_r_old),
        ("r_new", leaf_r_new, &proof.path_r_new, &at.root_r_new),
    ] {
        let path = (path.iter().enumerate())
            .map(|(row, siblings)| {
                (siblings.iter().enumerate())
                    .map(|(i, sibling)| alloc(&mut cs, || format!("path_{name} sibling (tree_row={row}, sibling_index={i})"), *sibling))
                    .collect::<Result<Vec<_>, _>>()
            })
            .collect::<Result<Vec<_>, _>>()?;
        por_no_challenge_input::<Tree, _>(cs.namespace(|| format!("por tree_{name}")), c_bits.clone(), leaf, path, root.clone())?;
    }

    let apex_bits: Vec<Boolean> = c_bits[at.bits_to_apex_leaf..][..at.apex_leaf_bits]
        .iter()
        .cloned()
        .map(Boolean::from)
        .collect();
    let apex_leaf = select(cs.namespace(|| "select_apex_leaf"), &at.apex_leafs, &apex_bits)?;
    let path = (proof.path_d_new.iter().take(at.bits_to_apex_leaf).enumerate())
        .map(|(row, siblings)| alloc(&mut cs, || format!("path_to_apex_leaf sibling (tree_row={row})"), siblings[0]))
        .collect::<Result<Vec<_>, _>>()?;
    let bits = c_bits.into_iter().take(at.bits_to_apex_leaf).map(Boolean::from);
    tree_d::enforce_path(cs.namespace(|| "por to_apex_leaf"), leaf_d_new, bits.zip(path), &apex_leaf)
}

/// The partition's apex tree built from its leaves, and its root's path
/// (`partition_bits`, `partition_path`) up to comm_d.
fn apex_por<CS: ConstraintSystem<Fr>>(
    mut cs: CS,
    apex_leafs: &[AllocatedNum<Fr>],
    partition_bits: Vec<AllocatedBit>,
    partition_path: Vec<AllocatedNum<Fr>>,
    comm_d: &AllocatedNum<Fr>,
) -> Result<(), SynthesisError> {
    let mut row = apex_leafs.to_vec();
    for tree_row in 0..apex_leafs.len().trailing_zeros() {
        row = (row.chunks(2).enumerate())
            .map(|(i, pair)| tree_d::hash(cs.namespace(|| format!("apex_tree generation hash (tree_row={tree_row}, siblings={i})")), pair))
            .collect::<Result<Vec<_>, _>>()?;
    }
    let bits = partition_bits.into_iter().map(Boolean::from);
    tree_d::enforce_path(cs.namespace(|| "partition-tree por"), row.swap_remove(0), bits.zip(partition_path), comm_d)
}

/// Each challenge's `bits_per_challenge` random bits: the bits of digests
/// `H(comm_r_new || k * digests + j)`, cut into challenges.
fn challenge_bits<CS: ConstraintSystem<Fr>>(
    mut cs: CS,
    comm_r_new: &AllocatedNum<Fr>,
    partition: &AllocatedNum<Fr>,
    challenges: usize,
    bits_per_challenge: usize,
) -> Result<Vec<Vec<AllocatedBit>>, SynthesisError> {
    let per_digest = Fr::CAPACITY as usize / bits_per_challenge;
    let digests = challenges.div_ceil(per_digest) as u64;
    let mut out = Vec::with_capacity(challenges);
    for j in 0..digests {
        let index_value = partition.get_value().map(|k| k * Fr::from(digests) + Fr::from(j));
        let index = alloc(&mut cs, || format!("digest_index_{j}"), index_value)?;
        cs.enforce(
            || format!("digest_index_{j}"),
            |lc| lc + (Fr::from(digests), partition.get_variable()) + (Fr::from(j), CS::one()),
            |lc| lc + CS::one(),
            |lc| lc + index.get_variable(),
        );
        let digest = poseidon_hash(cs.namespace(|| format!("digest_{j}")), vec![comm_r_new.clone(), index], &POSEIDON_CONSTANTS_GEN_RANDOMNESS)?;
        let mut bits_cs = cs.namespace(|| format!("digest_{j}_bits"));
        let bits = field_into_allocated_bits_le(&mut bits_cs, digest.get_value())?;
        enforce_packed(&mut bits_cs, &bits, &digest);
        let take = per_digest.min(challenges - out.len());
        out.extend(bits.chunks(bits_per_challenge).take(take).map(<[AllocatedBit]>::to_vec));
    }
    Ok(out)
}

/// The challenge's `h` high bits packed, `h` the one of `hs` that
/// `h_select_bits` (one bit set) selects: a sum of products by each bit.
fn challenge_high_bits<CS: ConstraintSystem<Fr>>(
    mut cs: CS,
    c_bits: &[AllocatedBit],
    h_select_bits: &[AllocatedBit],
    hs: &[usize],
) -> Result<AllocatedNum<Fr>, SynthesisError> {
    let c_bits: Vec<Boolean> = c_bits.iter().cloned().map(Boolean::from).collect();
    let mut terms = Vec::with_capacity(hs.len());
    for (k, (&h, select)) in hs.iter().zip(h_select_bits).enumerate() {
        let high = pack_bits(cs.namespace(|| format!("c_high (h={h}, k={k})")), &c_bits[c_bits.len() - h..])?;
        let value = match select.get_value() {
            Some(true) => high.get_value(),
            Some(false) => Some(Fr::ZERO),
            None => None,
        };
        let term = alloc(&mut cs, || format!("c_high_or_zero (h={h}, k={k})"), value)?;
        cs.enforce(
            || format!("c_high_or_zero (h={h}, k={k})"),
            |lc| lc + high.get_variable(),
            |lc| lc + select.get_variable(),
            |lc| lc + term.get_variable(),
        );
        terms.push(term);
    }
    let sum = terms.iter().map(AllocatedNum::get_value).sum::<Option<Fr>>();
    let selected = alloc(&mut cs, || "c_high_selected".into(), sum)?;
    cs.enforce(
        || "c_high_selected",
        |lc| terms.iter().fold(lc, |lc, t| lc + t.get_variable()),
        |lc| lc + CS::one(),
        |lc| lc + selected.get_variable(),
    );
    Ok(selected)
}

/// `label_r_new = label_r_old + label_d_new * rho`.
fn label_r_new<CS: ConstraintSystem<Fr>>(
    mut cs: CS,
    label_r_old: &AllocatedNum<Fr>,
    label_d_new: &AllocatedNum<Fr>,
    rho: &AllocatedNum<Fr>,
) -> Result<AllocatedNum<Fr>, SynthesisError> {
    let product = label_d_new.mul(cs.namespace(|| "label_d_new * rho"), rho)?;
    let value = label_r_old.get_value().zip(product.get_value()).map(|(old, p)| old + p);
    let label = alloc(&mut cs, || "label_r_new".into(), value)?;
    cs.enforce(
        || "label_r_new == label_r_old + label_d_new * rho",
        |lc| lc + label_r_old.get_variable() + product.get_variable(),
        |lc| lc + CS::one(),
        |lc| lc + label.get_variable(),
    );
    Ok(label)
}

#[cfg(test)]
mod tests {
    use filecoin_proofs::{SectorShape2KiB, SectorShape32GiB};
    use filecoin_proofs_api::RegisteredUpdateProof;

    use super::*;
    use crate::{
        api::{random_vanilla, snap::challenge_of},
        circuit::{record, synthesize, synthesize_segment_range, synthesize_witness, Witness},
    };

    #[test]
    fn update_2kib_equals_stock_in_every_system() {
        let stock = || random_vanilla::update_circuit::<SectorShape2KiB>(RegisteredUpdateProof::StackedDrg2KiBV1, 3).unwrap();
        let ours = || UpdateCircuit::whole(stock());
        let witness = synthesize_witness(ours()).unwrap();
        assert_eq!(witness, synthesize_witness(stock()).unwrap(), "witness");
        assert_eq!(synthesize(ours()).unwrap(), synthesize(stock()).unwrap(), "full synthesis");
        let (matrices, recorded) = record(ours()).unwrap();
        let (stock_matrices, stock_recorded) = record(stock()).unwrap();
        assert!(matrices == stock_matrices, "recorded matrices");
        assert_eq!(recorded, stock_recorded);
        assert_eq!(witness, recorded, "the fast witness is the recorded one");
    }

    #[test]
    fn update_32gib_piece_witness_equals_stock() {
        let stock = || random_vanilla::update_circuit::<SectorShape32GiB>(RegisteredUpdateProof::StackedDrg32GiBV1, 5).unwrap();
        // What every piece holds (the apex tree, the challenge bits) and one challenge.
        let piece = 40..41;
        let ours = synthesize_witness(UpdateCircuit::piece(stock(), piece.clone())).unwrap();
        assert!(ours.aux.len() > 6_000_000, "a 32 GiB prefix and challenge have {} aux variables", ours.aux.len());
        assert!(ours == synthesize_segment_range::<Witness, _, _>(stock(), piece, &challenge_of).unwrap());
    }

    #[test]
    fn inconsistent_vanilla_proofs_are_an_error() {
        let circuit = || random_vanilla::update_circuit::<SectorShape2KiB>(RegisteredUpdateProof::StackedDrg2KiBV1, 4).unwrap();
        let mut short = circuit();
        short.priv_inputs.challenge_proofs.pop();
        assert!(synthesize_witness(UpdateCircuit::whole(short)).is_err());
        let mut other_path = circuit();
        let last = other_path.priv_inputs.challenge_proofs.last_mut().unwrap();
        last.path_d_new.pop();
        assert!(synthesize_witness(UpdateCircuit::whole(other_path)).is_err());
        let mut wrong_label = circuit();
        wrong_label.priv_inputs.challenge_proofs[1].leaf_r_new = Some(Fr::ONE);
        assert!(synthesize_witness(UpdateCircuit::whole(wrong_label)).is_err());
    }
}

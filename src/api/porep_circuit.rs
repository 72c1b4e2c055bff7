//! The PoRep partition circuit, synthesized as storage-proofs' `StackedCircuit`
//! synthesizes it (same variables, constraints and namespaces, in the same
//! order), with one difference: its SHA-256 work (each layer's label, a hash
//! over 39 blocks of bits, and the tree D inclusion path), nearly all of a
//! partition's witness, goes through cuzk's SHA-256 (`circuit::sha256`),
//! whose witness generation skips the linear combinations bellperson's
//! gadget builds for nothing. Every other part calls the stock gadgets. Tests compare the witness and the constraints
//! with `StackedCircuit`'s for the same vanilla proofs.

use anyhow::{ensure, Result};
use bellperson::{
    gadgets::{boolean::{AllocatedBit, Boolean}, multipack, num::AllocatedNum, uint32::UInt32},
    Circuit, ConstraintSystem, SynthesisError,
};
use blstrs::Scalar as Fr;
use ff::PrimeField;
use filecoin_hashers::{HashFunction, Hasher, PoseidonArity, POSEIDON_CONSTANTS_11, POSEIDON_CONSTANTS_2};
use filecoin_proofs::DefaultPieceHasher;
use generic_array::typenum::{U11, U2};
use neptune::circuit::poseidon_hash;
use storage_proofs_core::{
    gadgets::{
        constraint,
        encode::encode,
        por::{AuthPath, PoRCircuit},
        uint64::UInt64,
        variables::Root,
    },
    merkle::{DiskStore, MerkleProofTrait, MerkleTreeTrait, MerkleTreeWrapper},
    util::reverse_bit_numbering,
};
use storage_proofs_porep::stacked::{self, StackedCircuit, TOTAL_PARENTS};

use super::tree_d;
use crate::circuit::{sha256::sha256, Witness};

type G = DefaultPieceHasher;
type Domain<Tree> = <<Tree as MerkleTreeTrait>::Hasher as Hasher>::Domain;

/// One partition's circuit (or a piece of it: the commitments and some of
/// its challenges), from the values `StackedCompound::circuit` takes.
pub struct PorepCircuit<Tree: 'static + MerkleTreeTrait> {
    replica_id: Fr,
    comm_d: Fr,
    comm_r: Fr,
    comm_r_last: Fr,
    comm_c: Fr,
    proofs: Vec<stacked::Proof<Tree, G>>,
}

impl<Tree: 'static + MerkleTreeTrait> Clone for PorepCircuit<Tree> {
    fn clone(&self) -> Self {
        let Self { replica_id, comm_d, comm_r, comm_r_last, comm_c, ref proofs } = *self;
        Self { replica_id, comm_d, comm_r, comm_r_last, comm_c, proofs: proofs.clone() }
    }
}

impl<Tree: 'static + MerkleTreeTrait> PorepCircuit<Tree> {
    /// The circuit of `proofs` (one partition's challenges, or some of
    /// them), checked as `StackedCompound::circuit` checks them.
    pub fn new(
        public_inputs: &stacked::PublicInputs<Domain<Tree>, <G as Hasher>::Domain>,
        proofs: &[stacked::Proof<Tree, G>],
    ) -> Result<Self> {
        ensure!(!proofs.is_empty(), "a PoRep circuit without vanilla proofs");
        let (comm_r_last, comm_c) = (proofs[0].comm_r_last(), proofs[0].comm_c());
        ensure!(proofs.iter().all(|p| p.comm_r_last() == comm_r_last), "inconsistent comm_r_last in the vanilla proofs");
        ensure!(proofs.iter().all(|p| p.comm_c() == comm_c), "inconsistent comm_c in the vanilla proofs");
        let tau = public_inputs.tau.as_ref().ok_or_else(|| anyhow::anyhow!("PoRep public inputs without comm_d and comm_r"))?;
        Ok(Self {
            replica_id: public_inputs.replica_id.into(),
            comm_d: tau.comm_d.into(),
            comm_r: tau.comm_r.into(),
            comm_r_last: comm_r_last.into(),
            comm_c: comm_c.into(),
            proofs: proofs.to_vec(),
        })
    }
}

fn alloc_num<CS: ConstraintSystem<Fr>>(cs: &mut CS, name: &'static str, value: Fr) -> Result<AllocatedNum<Fr>, SynthesisError> {
    AllocatedNum::alloc(cs.namespace(|| name), || Ok(value))
}

impl<Tree: 'static + MerkleTreeTrait> Circuit<Fr> for PorepCircuit<Tree> {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let replica_id = alloc_num(cs, "replica_id", self.replica_id)?;
        replica_id.inputize(cs.namespace(|| "replica_id_input"))?;
        let replica_id_bits = reverse_bit_numbering(replica_id.to_bits_le(cs.namespace(|| "replica_id_bits"))?);
        let comm_d = alloc_num(cs, "comm_d", self.comm_d)?;
        comm_d.inputize(cs.namespace(|| "comm_d_input"))?;
        let comm_r = alloc_num(cs, "comm_r", self.comm_r)?;
        comm_r.inputize(cs.namespace(|| "comm_r_input"))?;
        let comm_r_last = alloc_num(cs, "comm_r_last", self.comm_r_last)?;
        let comm_c = alloc_num(cs, "comm_c", self.comm_c)?;
        let hash = <Tree::Hasher as Hasher>::Function::hash2_circuit(cs.namespace(|| "H_comm_c_comm_r_last"), &comm_c, &comm_r_last)?;
        constraint::equal(cs, || "enforce comm_r = H(comm_c || comm_r_last)", &comm_r, &hash);

        let commitments = Commitments { comm_d: &comm_d, comm_c: &comm_c, comm_r_last: &comm_r_last, replica_id: &replica_id_bits };
        for (i, proof) in self.proofs.into_iter().enumerate() {
            challenge::<Tree, _>(&mut cs.namespace(|| format!("challenge_{i}")), proof, &commitments)?;
        }
        Ok(())
    }
}

/// What every challenge's sub-circuit checks against.
struct Commitments<'a> {
    comm_d: &'a AllocatedNum<Fr>,
    comm_c: &'a AllocatedNum<Fr>,
    comm_r_last: &'a AllocatedNum<Fr>,
    replica_id: &'a [Boolean],
}

/// storage-proofs' circuit form of one challenge's vanilla proof
/// (`stacked::circuit::params::Proof`) is a public type with public fields
/// in a module the crate does not export; `StackedCircuit::synthesize`
/// takes a vector of them, so its signature names the type for us.
fn circuit_proof<P, V: Into<P>, CS, A, B, C, D, E>(_: Synthesize<CS, A, B, C, D, E, P>, vanilla: V) -> P {
    vanilla.into()
}

/// The signature of `StackedCircuit::synthesize`.
type Synthesize<CS, A, B, C, D, E, P> = fn(CS, A, B, C, D, E, Vec<P>) -> Result<(), SynthesisError>;

/// `stacked::circuit::params::Proof::synthesize`, labels by cuzk's SHA-256.
fn challenge<Tree: 'static + MerkleTreeTrait, CS: ConstraintSystem<Fr>>(
    cs: &mut CS,
    vanilla: stacked::Proof<Tree, G>,
    at: &Commitments<'_>,
) -> Result<(), SynthesisError> {
    let layers = vanilla.labeling_proofs.len();
    let comm_d_path = vanilla.comm_d_proofs.as_options();
    let proof = circuit_proof(StackedCircuit::<Tree, G>::synthesize::<Witness>, vanilla);

    let data_leaf = AllocatedNum::alloc(cs.namespace(|| "data_leaf"), || proof.data_leaf.ok_or(SynthesisError::AssignmentMissing))?;
    comm_d_inclusion(cs.namespace(|| "comm_d_inclusion"), comm_d_path, at.comm_d, &data_leaf)?;

    // The parents' columns, DRG then expander, each hashed and included in tree C.
    let drg_count = proof.drg_parents_proofs.len();
    let drg = proof.drg_parents_proofs.into_iter().enumerate().map(|(i, p)| ("drg", i, p));
    let exp = proof.exp_parents_proofs.into_iter().enumerate().map(|(i, p)| ("exp", i, p));
    let mut drg_parents = Vec::with_capacity(drg_count);
    for (kind, i, parent) in drg.chain(exp) {
        let (column, path) = parent.alloc(cs.namespace(|| format!("{kind}_parent_{i}_num")))?;
        let hash = column.hash(cs.namespace(|| format!("{kind}_parent_{i}_constraint")))?;
        enforce_inclusion(cs.namespace(|| format!("{kind}_parent_{i}_inclusion")), path, at.comm_c, &hash)?;
        drg_parents.push(column);
    }
    let exp_parents = drg_parents.split_off(drg_count);

    let challenge = UInt64::alloc(cs.namespace(|| "challenge"), proof.challenge)?;
    challenge.pack_into_input(cs.namespace(|| "challenge input"))?;

    let mut labels = Vec::with_capacity(layers);
    for layer in 1..=layers {
        let mut cs = cs.namespace(|| format!("labeling_{layer}"));
        let mut parents = Vec::new();
        for column in &drg_parents {
            let bits = column.get_value(layer).to_bits_le(cs.namespace(|| format!("drg_parent_{}_bits", parents.len())))?;
            parents.push(reverse_bit_numbering(bits));
        }
        // The expander parents' columns start at the second layer.
        if layer > 1 {
            for column in &exp_parents {
                let bits = column.get_value(layer - 1).to_bits_le(cs.namespace(|| format!("exp_parent_{}_bits", parents.len())))?;
                parents.push(reverse_bit_numbering(bits));
            }
        }
        // The parents repeated to TOTAL_PARENTS, as the labeling hashes them.
        let expanded: Vec<Vec<Boolean>> = parents.iter().cycle().take(TOTAL_PARENTS).cloned().collect();
        labels.push(label(cs.namespace(|| "create_label"), at.replica_id, &expanded, UInt32::constant(layer as u32), &challenge)?);
    }

    let key = labels.last().ok_or(SynthesisError::Unsatisfiable)?;
    let encoded = encode(cs.namespace(|| "encode_node"), key, &data_leaf)?;
    enforce_inclusion(cs.namespace(|| "comm_r_last_data_inclusion"), proof.comm_r_last_path, at.comm_r_last, &encoded)?;

    let column_hash = hash_column(cs.namespace(|| "c_x_column_hash"), &labels)?;
    enforce_inclusion(cs.namespace(|| "c_x_inclusion"), proof.comm_c_path, at.comm_c, &column_hash)
}

/// `stacked::create_label_circuit` over cuzk's SHA-256: the replica id,
/// layer and node, then each parent, each padded to 32 bytes.
fn label<CS: ConstraintSystem<Fr>>(
    mut cs: CS,
    replica_id: &[Boolean],
    parents: &[Vec<Boolean>],
    layer: UInt32,
    node: &UInt64,
) -> Result<AllocatedNum<Fr>, SynthesisError> {
    let pad_to = |bits: &mut Vec<Boolean>, multiple: usize| {
        while !bits.len().is_multiple_of(multiple) {
            bits.push(Boolean::Constant(false));
        }
    };
    let mut preimage = Vec::with_capacity((2 + TOTAL_PARENTS) * 256);
    preimage.extend_from_slice(replica_id);
    pad_to(&mut preimage, 256);
    preimage.extend(layer.into_bits_be());
    preimage.extend(node.to_bits_be());
    pad_to(&mut preimage, 512);
    for parent in parents {
        preimage.extend_from_slice(parent);
        pad_to(&mut preimage, 256);
    }
    let bits = reverse_bit_numbering(sha256(cs.namespace(|| "hash"), &preimage)?);
    multipack::pack_bits(cs.namespace(|| "result_num"), &bits[..Fr::CAPACITY as usize])
}

/// `stacked::circuit::hash::hash_single_column`: Poseidon over a column.
fn hash_column<CS: ConstraintSystem<Fr>>(cs: CS, column: &[AllocatedNum<Fr>]) -> Result<AllocatedNum<Fr>, SynthesisError> {
    match column.len() {
        2 => poseidon_hash::<CS, Fr, U2>(cs, column.to_vec(), &POSEIDON_CONSTANTS_2),
        11 => poseidon_hash::<CS, Fr, U11>(cs, column.to_vec(), &POSEIDON_CONSTANTS_11),
        _ => Err(SynthesisError::Unsatisfiable),
    }
}

/// The inclusion of `leaf` in tree D (binary, SHA-256) under `root`, along
/// `path` (each level's sibling and the leaf's side): `enforce_inclusion`
/// and `PoRCircuit` as they synthesize that tree, over cuzk's SHA-256.
fn comm_d_inclusion<CS: ConstraintSystem<Fr>>(
    mut cs: CS,
    path: Vec<(Vec<Option<Fr>>, Option<usize>)>,
    root: &AllocatedNum<Fr>,
    leaf: &AllocatedNum<Fr>,
) -> Result<(), SynthesisError> {
    let mut cur = leaf.clone();
    let mut index_bits = Vec::with_capacity(path.len());
    {
        let mut cs = cs.namespace(|| "base");
        for (i, (siblings, index)) in path.into_iter().enumerate() {
            let cs = &mut cs.namespace(|| format!("merkle tree hash {i}"));
            let bit = Boolean::from(AllocatedBit::alloc(cs.namespace(|| "index bit 0"), index.map(|index| index & 1 == 1))?);
            index_bits.push(bit.clone());
            let siblings = siblings
                .iter()
                .enumerate()
                .map(|(i, s)| AllocatedNum::alloc(cs.namespace(|| format!("path element {i}")), || s.ok_or(SynthesisError::AssignmentMissing)))
                .collect::<Result<Vec<_>, _>>()?;
            cur = tree_d::level(cs, &cur, &[bit], &siblings)?;
        }
    }
    // Tree D has no sub-trees and no top tree: their paths are empty.
    drop(cs.namespace(|| "sub"));
    drop(cs.namespace(|| "top"));
    multipack::pack_into_inputs(cs.namespace(|| "path"), &index_bits)?;
    constraint::equal(&mut cs, || "enforce root is correct", &cur, root);
    Ok(())
}

/// The inclusion of `leaf` under `root` along `path` (storage-proofs'
/// `enforce_inclusion`).
fn enforce_inclusion<H, U, V, W, CS: ConstraintSystem<Fr>>(
    cs: CS,
    path: AuthPath<H, U, V, W>,
    root: &AllocatedNum<Fr>,
    leaf: &AllocatedNum<Fr>,
) -> Result<(), SynthesisError>
where
    H: 'static + Hasher,
    U: 'static + PoseidonArity,
    V: 'static + PoseidonArity,
    W: 'static + PoseidonArity,
{
    let root = Root::from_allocated::<CS>(root.clone());
    let leaf = Root::from_allocated::<CS>(leaf.clone());
    PoRCircuit::<MerkleTreeWrapper<H, DiskStore<H::Domain>, U, V, W>>::synthesize(cs, leaf, path, root, true)
}

#[cfg(test)]
mod tests {
    use filecoin_proofs::{SectorShape2KiB, SectorShape32GiB};
    use filecoin_proofs_api::RegisteredSealProof;

    use super::*;
    use crate::{
        api::{porep, random_vanilla},
        circuit::{record, synthesize, synthesize_witness, PackedWitness},
    };

    /// cuzk's pieces and the stock ones of the same C1 output.
    fn both<Tree: 'static + MerkleTreeTrait>(rp: RegisteredSealProof, seed: u64) -> (Vec<PorepCircuit<Tree>>, Vec<StackedCircuit<Tree, G>>) {
        let c1 = || random_vanilla::porep_c1(rp, seed).unwrap();
        let ours = porep::partition_pieces::<Tree>(c1()).unwrap().pieces.swap_remove(0);
        let stock = porep::stock_pieces::<Tree>(c1()).unwrap().swap_remove(0);
        assert_eq!(ours.len(), stock.len());
        (ours, stock)
    }

    #[test]
    fn pieces_2kib_equal_stock_in_every_system() {
        let (ours, stock) = both::<SectorShape2KiB>(RegisteredSealProof::StackedDrg2KiBV1_1, 3);
        for (ours, stock) in ours.into_iter().zip(stock) {
            let witness = synthesize_witness(ours.clone()).unwrap();
            assert_eq!(witness, synthesize_witness(stock.clone()).unwrap(), "witness");
            assert_eq!(synthesize(ours.clone()).unwrap(), synthesize(stock.clone()).unwrap(), "full synthesis");
            let (matrices, recorded) = record(ours).unwrap();
            let (stock_matrices, stock_recorded) = record(stock).unwrap();
            assert!(matrices == stock_matrices, "recorded matrices");
            assert_eq!(recorded, stock_recorded);
            assert_eq!(witness, recorded, "the fast witness is the recorded one");
        }
    }

    #[test]
    fn piece_32gib_witness_equals_stock() {
        let (mut ours, mut stock) = both::<SectorShape32GiB>(RegisteredSealProof::StackedDrg32GiBV1_1, 5);
        let (ours, stock) = (ours.swap_remove(1), stock.swap_remove(1));
        let witness = synthesize_witness(ours).unwrap();
        assert!(witness.aux.len() > 7_000_000, "a 32 GiB challenge has {} aux variables", witness.aux.len());
        // Nearly all bits: packed for a GPU, a few percent of its bytes.
        let packed = PackedWitness::pack(&witness).expect("a PoRep witness packs");
        let bytes = (witness.inputs.len() + witness.aux.len()) * 32;
        assert!(packed.bytes() * 10 < bytes, "{} bytes packed of {bytes}", packed.bytes());
        assert!(witness == synthesize_witness(stock).unwrap());
    }
}

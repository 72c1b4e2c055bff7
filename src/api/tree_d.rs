//! Tree D (binary, SHA-256) in circuits, as storage-proofs synthesizes it
//! (`Sha256Function`'s circuit hashes, `por_no_challenge_input` over
//! `insert`), over cuzk's SHA-256 (`circuit::sha256`).

use bellperson::{
    gadgets::{boolean::Boolean, multipack, num::AllocatedNum},
    ConstraintSystem, SynthesisError,
};
use blstrs::Scalar as Fr;
use ff::PrimeField;
use storage_proofs_core::gadgets::insertion::insert;

use crate::circuit::sha256::sha256;

/// `Sha256Function::hash_multi_leaf_circuit` (and `hash2_circuit`, the same
/// for two): SHA-256 of the numbers' little-endian bytes, its first 254 bits
/// (little-endian) packed.
pub fn hash<CS: ConstraintSystem<Fr>>(mut cs: CS, nums: &[AllocatedNum<Fr>]) -> Result<AllocatedNum<Fr>, SynthesisError> {
    let mut preimage = Vec::with_capacity(nums.len() * 256);
    for (i, num) in nums.iter().enumerate() {
        let mut bits = num.to_bits_le(cs.namespace(|| format!("{i}_num_into_bits")))?;
        while !bits.len().is_multiple_of(8) {
            bits.push(Boolean::Constant(false));
        }
        preimage.extend(bits.chunks_exact(8).flat_map(|byte| byte.iter().rev()).cloned());
    }
    let digest = sha256(cs.namespace(|| "hash"), &preimage)?;
    let bits: Vec<Boolean> = digest.chunks(8).flat_map(|byte| byte.iter().rev()).take(Fr::CAPACITY as usize).cloned().collect();
    multipack::pack_bits(cs.namespace(|| "pack_le"), &bits)
}

/// One level up a path: `node` put beside `siblings` where `index` says,
/// hashed.
pub fn level<CS: ConstraintSystem<Fr>>(
    cs: &mut CS,
    node: &AllocatedNum<Fr>,
    index: &[Boolean],
    siblings: &[AllocatedNum<Fr>],
) -> Result<AllocatedNum<Fr>, SynthesisError> {
    let preimage = insert(&mut cs.namespace(|| "merkle proof insert"), node, index, siblings)?;
    hash(cs.namespace(|| "merkle proof hash"), &preimage)
}

/// `leaf` hashed up `path` (each level's side bit and sibling, from the
/// leaf) equals `root`.
pub fn enforce_path<CS: ConstraintSystem<Fr>>(
    mut cs: CS,
    leaf: AllocatedNum<Fr>,
    path: impl IntoIterator<Item = (Boolean, AllocatedNum<Fr>)>,
    root: &AllocatedNum<Fr>,
) -> Result<(), SynthesisError> {
    let mut node = leaf;
    for (height, (bit, sibling)) in path.into_iter().enumerate() {
        node = level(&mut cs.namespace(|| format!("height {height}")), &node, &[bit], &[sibling])?;
    }
    cs.enforce(|| "calculated root == provided root", |lc| lc + node.get_variable(), |lc| lc + CS::one(), |lc| lc + root.get_variable());
    Ok(())
}

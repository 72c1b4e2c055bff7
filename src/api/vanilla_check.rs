//! Checks of decoded vanilla proofs that the stock crates leave to panics.
//! A vanilla proof decodes any 32 bytes as a tree value (a `Domain`) and any
//! list of siblings and position as a level of a Merkle path, while the stock
//! code turns each value into a field element with `expect`, inserts at each
//! position with `Vec::insert`, and its circuits assert that each level has
//! as many siblings as the tree's arity: a value that is not a canonical
//! element, a position past its siblings or a level of another arity would
//! panic deep in verification or circuit building. The api checks all three
//! first and names what is wrong.

use anyhow::{ensure, Context, Result};
use blstrs::Scalar as Fr;
use ff::PrimeField;
use filecoin_hashers::{Domain, Hasher};
use filecoin_proofs::DefaultPieceHasher;
use generic_array::typenum::Unsigned;
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use storage_proofs_core::merkle::{MerkleProof, MerkleProofTrait, MerkleTreeTrait};
use storage_proofs_porep::stacked;

/// Whether `value` is the canonical encoding of a field element.
fn is_field_element<D: Domain>(value: &D) -> bool {
    let Ok(repr) = <[u8; 32]>::try_from(value.as_ref()) else { return false };
    Fr::from_repr_vartime(repr).is_some()
}

/// Errs naming `what` unless every value is a field element.
pub(super) fn field_values<D: Domain>(values: impl IntoIterator<Item = D>, what: impl FnOnce() -> String) -> Result<()> {
    let all = values.into_iter().all(|v| is_field_element(&v));
    ensure!(all, "{} holds a value that is not a field element", what());
    Ok(())
}

/// A public input given as 32 bytes (a commitment, randomness, a prover
/// id) as the tree value `D`: not all zero, and a field element.
pub(super) fn public_value<D: Domain>(bytes: &[u8; 32], what: &str) -> Result<D> {
    ensure!(bytes != &[0; 32], "invalid all-zero {what}");
    let value = D::try_from_bytes(bytes).with_context(|| format!("{what} is not 32 bytes"))?;
    ensure!(is_field_element(&value), "{what} is not a field element");
    Ok(value)
}

/// Errs naming `what` unless every value of a Merkle inclusion proof (leaf,
/// root, siblings) is a field element and its path has the shape of `P`'s
/// tree: levels of the base arity, then one of the sub-tree's and one of
/// the top tree's where the tree has them, each position among its level's.
pub(super) fn merkle_proof<P: MerkleProofTrait>(proof: &P, what: impl Fn() -> String) -> Result<()> {
    let path = proof.path();
    let arities = level_arities(path.len(), P::Arity::to_usize(), P::SubTreeArity::to_usize(), P::TopTreeArity::to_usize());
    ensure!(!arities.is_empty() || path.is_empty(), "{} has {} levels, too few for its tree", what(), path.len());
    for (height, ((siblings, position), arity)) in path.iter().zip(&arities).enumerate() {
        ensure!(
            siblings.len() + 1 == *arity && *position < *arity,
            "{} has {} siblings and position {position} at height {height}, where the tree's arity is {arity}",
            what(),
            siblings.len()
        );
    }
    let values = [proof.leaf(), proof.root()].into_iter().chain(path.into_iter().flat_map(|(siblings, _)| siblings));
    field_values(values, what)
}

/// The arity of each of a path's `levels` in a tree of `base` arity with a
/// sub-tree and a top tree of the arities given (0: none); empty where the
/// path is too short to hold the sub-tree's and top tree's levels.
fn level_arities(levels: usize, base: usize, sub: usize, top: usize) -> Vec<usize> {
    let upper: Vec<usize> = [sub, top].into_iter().filter(|&a| a != 0).collect();
    let Some(base_levels) = levels.checked_sub(upper.len()) else { return Vec::new() };
    std::iter::repeat_n(base, base_levels).chain(upper).collect()
}

/// Errs naming `what` where one challenge's PoRep vanilla proof holds a
/// value that is not a field element or a Merkle path of another shape.
pub(super) fn porep_challenge<Tree: 'static + MerkleTreeTrait>(
    proof: &stacked::Proof<Tree, DefaultPieceHasher>,
    what: impl Fn() -> String,
) -> Result<()> {
    merkle_proof(&proof.comm_d_proofs, || format!("{}'s comm_d proof", what()))?;
    merkle_proof(&proof.comm_r_last_proof, || format!("{}'s comm_r_last proof", what()))?;
    let columns = &proof.replica_column_proofs;
    let all = std::iter::once(&columns.c_x).chain(&columns.drg_parents).chain(&columns.exp_parents);
    for (i, column) in all.enumerate() {
        let ColumnProofView { column, inclusion_proof } = view::<_, ColumnProofView<<Tree::Hasher as Hasher>::Domain, TreeProof<Tree>>>(column)?;
        field_values(column.rows, || format!("{}'s column {i}", what()))?;
        merkle_proof(&inclusion_proof, || format!("{}'s column {i}'s proof", what()))?;
    }
    for (layer, labeling) in proof.labeling_proofs.iter().enumerate() {
        let LabelingView { parents, .. } = view(labeling)?;
        field_values::<<Tree::Hasher as Hasher>::Domain>(parents, || format!("{}'s labeling proof {layer}", what()))?;
    }
    let LabelingView { parents, .. } = view(&proof.encoding_proof)?;
    field_values::<<Tree::Hasher as Hasher>::Domain>(parents, || format!("{}'s encoding proof", what()))
}

type TreeProof<Tree> = MerkleProof<
    <Tree as MerkleTreeTrait>::Hasher,
    <Tree as MerkleTreeTrait>::Arity,
    <Tree as MerkleTreeTrait>::SubTreeArity,
    <Tree as MerkleTreeTrait>::TopTreeArity,
>;

/// `value` read as `V`, a type of the same serde layout whose fields are
/// public where the stock type's are private to its crate.
fn view<T: Serialize, V: DeserializeOwned>(value: &T) -> Result<V> {
    let bytes = bincode::serialize(value).context("re-encoding a vanilla proof")?;
    bincode::deserialize(&bytes).context("reading a vanilla proof's fields")
}

/// `stacked::ColumnProof`'s layout (`Column`: index, rows; the proof).
#[derive(Deserialize)]
struct ColumnProofView<D, P> {
    column: ColumnView<D>,
    inclusion_proof: P,
}

#[derive(Deserialize)]
struct ColumnView<D> {
    #[allow(dead_code)]
    index: u32,
    rows: Vec<D>,
}

/// The layout of `stacked::LabelingProof` and `stacked::EncodingProof`.
#[derive(Deserialize)]
struct LabelingView<D> {
    parents: Vec<D>,
    #[allow(dead_code)]
    layer_index: u32,
    #[allow(dead_code)]
    node: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use ff::Field;
    use filecoin_hashers::poseidon::PoseidonDomain;

    #[test]
    fn only_canonical_encodings_are_field_elements() {
        let canonical = PoseidonDomain::from(Fr::from(7u64));
        let largest = (-Fr::ONE).to_repr();
        assert!(field_values([canonical, PoseidonDomain::from(largest)], || "fine".into()).is_ok());
        // The modulus, one past the largest element (whose lowest byte is 0).
        let mut modulus = largest;
        modulus[0] += 1;
        let modulus = PoseidonDomain::from(modulus);
        let error = field_values([canonical, modulus], || "the path of proof 3".into()).unwrap_err();
        assert_eq!(error.to_string(), "the path of proof 3 holds a value that is not a field element");
        let public = |bytes: [u8; 32]| public_value::<PoseidonDomain>(&bytes, "comm_r").map_err(|e| e.to_string());
        assert_eq!(public([0; 32]).unwrap_err(), "invalid all-zero comm_r");
        assert_eq!(public([0xff; 32]).unwrap_err(), "comm_r is not a field element");
        assert_eq!(public(largest).unwrap(), PoseidonDomain::from(largest));
    }

    #[test]
    fn a_path_has_base_levels_then_the_sub_and_top_trees() {
        assert_eq!(level_arities(3, 2, 0, 0), [2, 2, 2]);
        assert_eq!(level_arities(4, 8, 8, 0), [8, 8, 8, 8]);
        assert_eq!(level_arities(4, 8, 8, 2), [8, 8, 8, 2]);
        assert_eq!(level_arities(1, 8, 8, 2), Vec::<usize>::new());
        assert_eq!(level_arities(0, 8, 0, 0), Vec::<usize>::new());
    }
}

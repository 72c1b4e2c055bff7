//! Shape-true inputs without a sealed sector: a PoRep C1 output whose vanilla
//! proofs have exactly the structure of the registered proof's (partitions,
//! challenges, layers, parents, Merkle paths of each tree's arity and depth)
//! filled with random values, and likewise the circuits of a full Winning or
//! Window PoSt partition and of a SnapDeals partition. Its circuits synthesize to the real circuit's
//! shape with witnesses that do not satisfy it: cuzk records each circuit's
//! constraint matrices from one (api/params.rs; they do not depend on the
//! witness), and benchmarks time full-size proofs that cannot be sealed here.
//! Never for proofs anyone verifies.

use std::any::Any;

use anyhow::{anyhow, Result};
use blstrs::Scalar as Fr;
use filecoin_hashers::{poseidon::PoseidonDomain, Domain, Hasher};
use filecoin_proofs::{
    parameters::setup_params,
    DefaultPieceHasher, SectorUpdateConfig,
};
use filecoin_proofs_api::{
    seal::{SealCommitPhase1Output, VanillaSealProof},
    RegisteredPoStProof, RegisteredSealProof, RegisteredUpdateProof,
};
use generic_array::typenum::{Unsigned, U2};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use storage_proofs_core::{
    compound_proof::CompoundProof,
    merkle::{MerkleProof, MerkleProofTrait, MerkleTreeTrait},
    sector::SectorId,
};
use storage_proofs_post::fallback::{self, FallbackPoStCircuit, FallbackPoStCompound, PublicSector, SectorProof};
use storage_proofs_update::{
    constants::{TreeDHasher, TreeRHasher},
    phi, rho, ChallengeProof, Challenges, EmptySectorUpdateCircuit, EmptySectorUpdateCompound, PartitionProof, PublicInputs,
};
use storage_proofs_porep::stacked::{
    ColumnProof, EncodingProof, LabelingProof, Proof, ReplicaColumnProof, TOTAL_PARENTS,
};

use super::{post, shape::with_shape, snap};

/// A C1 output of `rp`'s shape with random contents, reproducible from `seed`.
pub fn porep_c1(rp: RegisteredSealProof, seed: u64) -> Result<SealCommitPhase1Output> {
    let size = u64::from(rp.sector_size());
    with_shape!(size, porep_c1_typed, rp, seed)
}

fn porep_c1_typed<Tree: 'static + MerkleTreeTrait>(rp: RegisteredSealProof, seed: u64) -> Result<SealCommitPhase1Output> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let config = rp.as_v1_config();
    let sp = setup_params(&config)?;
    let per_partition = sp.challenges.num_challenges_per_partition();
    // One tree root of each kind for the whole sector, as in a real C1 output.
    let shape = Shape::<Tree> {
        nodes: sp.nodes,
        layers: sp.num_layers,
        drg_parents: sp.degree,
        exp_parents: sp.expansion_degree,
        comm_c: Domain::random(&mut rng),
        comm_r_last: Domain::random(&mut rng),
        comm_d: Domain::random(&mut rng),
    };
    let vanilla: Vec<Vec<Proof<Tree, DefaultPieceHasher>>> = (0..usize::from(config.partitions))
        .map(|_| (0..per_partition).map(|_| shape.proof(&mut rng)).collect())
        .collect();
    let field = |rng: &mut ChaCha8Rng| {
        let mut b = [0u8; 32];
        rng.fill_bytes(&mut b);
        b[31] &= 0x3f;
        b
    };
    Ok(SealCommitPhase1Output {
        registered_proof: rp,
        vanilla_proofs: untyped(vanilla)?,
        comm_r: field(&mut rng),
        comm_d: field(&mut rng),
        replica_id: PoseidonDomain::random(&mut rng),
        seed: field(&mut rng),
        ticket: field(&mut rng),
    })
}

/// The circuit of partition 0 of a `rp` PoSt whose sectors all take part
/// (Window: `sector_count` of them; Winning: its one sector, every challenge),
/// with random contents reproducible from `seed`.
pub fn post_circuit<Tree: 'static + MerkleTreeTrait>(rp: RegisteredPoStProof, seed: u64) -> Result<FallbackPoStCircuit<Tree>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let params = &post::circuit_params::<Tree>(&rp.as_v1_config())?;
    let nodes = (params.sector_size / 32) as usize;
    let sectors = (0..params.sector_count)
        .map(|_| {
            let comm_r_last = Domain::random(&mut rng);
            SectorProof {
                inclusion_proofs: (0..params.challenge_count).map(|_| tree_r_path::<Tree>(nodes, comm_r_last, &mut rng)).collect(),
                comm_c: Domain::random(&mut rng),
                comm_r_last,
            }
        })
        .collect();
    let pub_inputs = fallback::PublicInputs {
        randomness: Domain::random(&mut rng),
        prover_id: Domain::random(&mut rng),
        sectors: (0..params.sector_count as u64)
            .map(|id| PublicSector { id: SectorId::from(id), comm_r: Domain::random(&mut rng) })
            .collect(),
        k: Some(0),
    };
    Ok(FallbackPoStCompound::<Tree>::circuit(&pub_inputs, Default::default(), &fallback::Proof { sectors }, params, Some(0))?)
}

/// The circuit of partition 0 of a `rp` SnapDeals update (all partitions have
/// one shape), with random contents reproducible from `seed`.
pub fn update_circuit<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    rp: RegisteredUpdateProof,
    seed: u64,
) -> Result<EmptySectorUpdateCircuit<Tree>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let config = SectorUpdateConfig::from_porep_config(&rp.as_v1_config());
    let params = &snap::circuit_params::<Tree>(&config)?;
    let (comm_r_old, comm_r_new, comm_d_new) = (Domain::random(&mut rng), Domain::random(&mut rng), Domain::random(&mut rng));
    // The circuit asserts (outside its constraints) that each new replica leaf
    // is the old one encoded with the new data under the challenge's rho.
    let phi = phi(&comm_d_new, &comm_r_old);
    let high_shift = params.sector_nodes.trailing_zeros() as usize - config.h;
    // A partition's challenges lie in one subtree of TreeD: their paths share
    // the siblings above it (the circuit asserts it).
    let partition_path: Vec<_> = (0..params.partition_bit_len).map(|_| Domain::random(&mut rng)).collect();
    let challenge_proofs = Challenges::new(params.sector_nodes, comm_r_new, 0)
        .take(params.challenge_count)
        .map(|c| {
            let proof_r_old = tree_r_path::<Tree>(params.sector_nodes, comm_r_old, &mut rng);
            let proof_d_new = binary_path::<TreeDHasher>(params.sector_nodes, comm_d_new, &partition_path, &mut rng);
            let (old, data): (Fr, Fr) = (proof_r_old.leaf().into(), proof_d_new.leaf().into());
            let new_leaf = old + data * rho(&phi, c >> high_shift);
            let proof_r_new = tree_r_path::<Tree>(params.sector_nodes, comm_r_new, &mut rng);
            let (path, root) = (proof_r_new.path(), proof_r_new.root());
            ChallengeProof { proof_r_old, proof_d_new, proof_r_new: MerkleProof::from_parts(new_leaf.into(), root, path) }
        })
        .collect();
    let proof = PartitionProof::<Tree> {
        comm_c: Domain::random(&mut rng),
        apex_leafs: (0..params.apex_leaf_count).map(|_| Domain::random(&mut rng)).collect(),
        challenge_proofs,
    };
    let pub_inputs = PublicInputs { k: usize::from(config.update_partitions), comm_r_old, comm_d_new, comm_r_new, h: config.h };
    Ok(EmptySectorUpdateCompound::<Tree>::circuit(&pub_inputs, (), &proof, params, Some(0))?)
}

struct Shape<Tree: MerkleTreeTrait> {
    nodes: usize,
    layers: usize,
    drg_parents: usize,
    exp_parents: usize,
    comm_c: <Tree::Hasher as Hasher>::Domain,
    comm_r_last: <Tree::Hasher as Hasher>::Domain,
    comm_d: <DefaultPieceHasher as Hasher>::Domain,
}

impl<Tree: 'static + MerkleTreeTrait> Shape<Tree> {
    fn proof(&self, rng: &mut ChaCha8Rng) -> Proof<Tree, DefaultPieceHasher> {
        let challenge = rng.gen_range(0..self.nodes);
        let column = |rng: &mut ChaCha8Rng| {
            let rows = (0..self.layers).map(|_| <Tree::Hasher as Hasher>::Domain::random(rng)).collect();
            ColumnProof::new(rng.gen_range(0..self.nodes) as u32, rows, tree_r_path::<Tree>(self.nodes, self.comm_c, rng))
        };
        let parents = |rng: &mut ChaCha8Rng| (0..TOTAL_PARENTS).map(|_| <Tree::Hasher as Hasher>::Domain::random(rng)).collect();
        Proof {
            comm_d_proofs: binary_path::<DefaultPieceHasher>(self.nodes, self.comm_d, &[], rng),
            comm_r_last_proof: tree_r_path::<Tree>(self.nodes, self.comm_r_last, rng),
            replica_column_proofs: ReplicaColumnProof {
                c_x: column(rng),
                drg_parents: (0..self.drg_parents).map(|_| column(rng)).collect(),
                exp_parents: (0..self.exp_parents).map(|_| column(rng)).collect(),
            },
            labeling_proofs: (1..=self.layers)
                .map(|layer| LabelingProof::new(layer as u32, challenge as u64, parents(rng)))
                .collect(),
            encoding_proof: EncodingProof::new(self.layers as u32, challenge as u64, parents(rng)),
        }
    }
}

/// An inclusion proof in a tree of Tree's shape over `nodes` leaves with root
/// `root`: base levels of `Arity`, then one level each of the sub- and top-tree
/// arities.
fn tree_r_path<Tree: MerkleTreeTrait>(
    nodes: usize,
    root: <Tree::Hasher as Hasher>::Domain,
    rng: &mut ChaCha8Rng,
) -> MerkleProof<Tree::Hasher, Tree::Arity, Tree::SubTreeArity, Tree::TopTreeArity> {
    let (base, sub, top) = (Tree::Arity::to_usize(), Tree::SubTreeArity::to_usize(), Tree::TopTreeArity::to_usize());
    let mut base_leaves = nodes;
    let mut upper = Vec::new();
    for arity in [sub, top] {
        // An arity of 0 means the tree has no such level.
        if let Some(leaves) = base_leaves.checked_div(arity) {
            base_leaves = leaves;
            upper.push(arity);
        }
    }
    let depth = base_leaves.ilog(base) as usize;
    let level = |arity: usize, rng: &mut ChaCha8Rng| {
        let siblings = (0..arity - 1).map(|_| <Tree::Hasher as Hasher>::Domain::random(rng)).collect();
        (siblings, rng.gen_range(0..arity))
    };
    let mut path: Vec<_> = (0..depth).map(|_| level(base, rng)).collect();
    path.extend(upper.into_iter().map(|a| level(a, rng)));
    MerkleProof::from_parts(Domain::random(rng), root, path)
}

/// A binary inclusion proof over `nodes` leaves whose top siblings are `top`
/// (leaf side first), the others random.
fn binary_path<H: Hasher>(nodes: usize, root: H::Domain, top: &[H::Domain], rng: &mut ChaCha8Rng) -> MerkleProof<H, U2> {
    let random = nodes.ilog2() as usize - top.len();
    let path = (0..random + top.len())
        .map(|level| {
            let sibling = top.get(level.wrapping_sub(random)).copied().unwrap_or_else(|| H::Domain::random(rng));
            (vec![sibling], rng.gen_range(0..2))
        })
        .collect();
    MerkleProof::from_parts(H::Domain::random(rng), root, path)
}

/// The api's enum of the typed vanilla proofs: the variant whose type is `v`'s.
fn untyped<Tree: 'static + MerkleTreeTrait>(v: Vec<Vec<Proof<Tree, DefaultPieceHasher>>>) -> Result<VanillaSealProof> {
    macro_rules! first_matching {
        ($any:expr, $($variant:ident),+) => {{
            let any: Box<dyn Any> = $any;
            $(
                let any = match any.downcast() {
                    Ok(v) => return Ok(VanillaSealProof::$variant(*v)),
                    Err(other) => other,
                };
            )+
            drop(any);
            Err(anyhow!("no vanilla proof variant has this tree shape"))
        }};
    }
    first_matching!(Box::new(v), StackedDrg2KiBV1, StackedDrg8MiBV1, StackedDrg512MiBV1, StackedDrg32GiBV1, StackedDrg64GiBV1)
}

//! Local generation of Groth16 parameters and verifying keys, for machines that
//! cannot download the production ones: by cuzk's generator (the circuit's
//! matrices recorded from a random instance of its exact shape, then
//! `groth16::generator`), or by stock's (storage-proofs'
//! `CompoundProof::groth_params` with an RNG). Files land in
//! `FIL_PROOFS_PARAMETER_CACHE` under the standard names; existing files are kept.

use std::{
    collections::BTreeSet,
    fs::File,
    io::{BufWriter, Write},
    path::{Path, PathBuf},
    time::Instant,
};

use anyhow::{bail, Context, Result};
use filecoin_proofs::{
    parameters::{public_params, window_post_public_params, winning_post_public_params},
    DefaultPieceHasher, PoRepConfig, PoStConfig,
};
use filecoin_proofs_api::{RegisteredPoStProof, RegisteredSealProof};
use rand::rngs::OsRng;
use storage_proofs_core::{
    compound_proof::CompoundProof,
    merkle::MerkleTreeTrait,
    parameter_cache::{parameter_cache_params_path, parameter_cache_verifying_key_path, CacheableParameters},
};
use storage_proofs_porep::stacked::{StackedCompound, StackedDrg};
use storage_proofs_post::fallback::{FallbackPoSt, FallbackPoStCircuit, FallbackPoStCompound};
use storage_proofs_update::{
    circuit::EmptySectorUpdateCircuit, compound::EmptySectorUpdateCompound, constants::TreeRHasher,
    EmptySectorUpdate,
};

use super::{
    porep::{self, SEAL_PROOFS},
    random_vanilla,
    shape::with_shape,
    snap::update_proof_for,
};
use crate::{
    circuit::{record, Matrices},
    groth16::generator::{self, ToxicWaste},
};

/// Families of circuits, to generate only some of a sector size's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    PoRep,
    NiPoRep,
    WinningPost,
    WindowPost,
    SnapDeals,
}

impl Family {
    pub const ALL: [Family; 5] =
        [Family::PoRep, Family::NiPoRep, Family::WinningPost, Family::WindowPost, Family::SnapDeals];

    pub fn parse(s: &str) -> Result<Self> {
        Ok(match s {
            "porep" => Family::PoRep,
            "ni-porep" => Family::NiPoRep,
            "winning-post" => Family::WinningPost,
            "window-post" => Family::WindowPost,
            "snapdeals" => Family::SnapDeals,
            other => bail!("unknown circuit family {other:?} (porep, ni-porep, winning-post, window-post, snapdeals)"),
        })
    }
}

/// Which generator makes the missing files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Generator {
    /// cuzk's, from the circuit's recorded matrices (stock's for NI-PoRep).
    Cuzk,
    /// Stock's, for comparison.
    Stock,
}

/// One parameter file and what happened to it.
#[derive(Debug)]
pub struct Outcome {
    pub circuit: String,
    pub path: PathBuf,
    pub generated: bool,
    pub seconds: f64,
}

/// Parses `2KiB`, `8MiB`, `512MiB`, `32GiB`, `64GiB` (or a byte count).
pub fn parse_sector_size(s: &str) -> Result<u64> {
    let size = match s {
        "2KiB" => 2 << 10,
        "8MiB" => 8 << 20,
        "512MiB" => 512 << 20,
        "32GiB" => 32 << 30,
        "64GiB" => 64 << 30,
        other => other.parse::<u64>().map_err(|_| anyhow::anyhow!("unknown sector size {other:?}"))?,
    };
    if !matches!(size, 2048 | 8388608 | 536870912 | 34359738368 | 68719476736) {
        bail!("unsupported sector size {size}");
    }
    Ok(size)
}

/// Generates, where missing, the parameters and verifying keys of `families` for
/// `sector_size` with cuzk's generator. Proof types that share a circuit share one file.
pub fn generate(sector_size: u64, families: &[Family]) -> Result<Vec<Outcome>> {
    generate_with(Generator::Cuzk, sector_size, families)
}

/// `generate` with the generator named.
pub fn generate_with(generator: Generator, sector_size: u64, families: &[Family]) -> Result<Vec<Outcome>> {
    let ours = generator == Generator::Cuzk;
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    let mut run = |circuit: String, params: PathBuf, vk: PathBuf, gen: &dyn Fn() -> Result<()>| -> Result<()> {
        if !seen.insert(params.clone()) {
            return Ok(());
        }
        let start = Instant::now();
        let generated = !(params.exists() && vk.exists());
        if generated {
            // The verifying key is written after the parameters: parameters
            // without it are a write that was cut short, and stock would fail
            // to read them rather than regenerate.
            if params.exists() && !vk.exists() {
                std::fs::remove_file(&params)?;
            }
            log::info!("cuzk: generating parameters for {circuit} into {}", params.display());
            gen()?;
        }
        out.push(Outcome { circuit, path: params, generated, seconds: start.elapsed().as_secs_f64() });
        Ok(())
    };
    for &proof in SEAL_PROOFS.iter().filter(|p| u64::from(p.sector_size()) == sector_size) {
        let ni = proof.feature_enabled(filecoin_proofs_api::ApiFeature::NonInteractivePoRep);
        let family = if ni { Family::NiPoRep } else { Family::PoRep };
        if families.contains(&family) {
            let config = proof.as_v1_config();
            let (params, vk) = (proof.cache_params_path()?, proof.cache_verifying_key_path()?);
            run(proof.circuit_identifier()?, params.clone(), vk.clone(), &|| match ours && !ni {
                true => write_generated(&with_shape!(sector_size, porep_matrices, proof)?, &params, &vk),
                false => with_shape!(sector_size, porep, &config),
            })?;
        }
    }
    for &proof in POST_PROOFS.iter().filter(|p| u64::from(p.sector_size()) == sector_size) {
        let family = match proof.typ() {
            filecoin_proofs::PoStType::Winning => Family::WinningPost,
            filecoin_proofs::PoStType::Window => Family::WindowPost,
        };
        if families.contains(&family) {
            let config = proof.as_v1_config();
            let (params, vk) = (proof.cache_params_path()?, proof.cache_verifying_key_path()?);
            run(proof.circuit_identifier()?, params.clone(), vk.clone(), &|| match ours {
                true => write_generated(&with_shape!(sector_size, post_matrices, proof)?, &params, &vk),
                false => with_shape!(sector_size, post, &config),
            })?;
        }
    }
    if families.contains(&Family::SnapDeals) {
        // Not `RegisteredUpdateProof::cache_params_path`: stock derives it from
        // the PoRep config, so it names the PoRep file.
        let id = with_shape!(sector_size, update_circuit_id, sector_size)?;
        let (params, vk) = (parameter_cache_params_path(&id), parameter_cache_verifying_key_path(&id));
        run(id, params.clone(), vk.clone(), &|| match ours {
            true => write_generated(&with_shape!(sector_size, update_matrices, sector_size)?, &params, &vk),
            false => with_shape!(sector_size, update, sector_size),
        })?;
    }
    Ok(out)
}

/// The PoSt proof types of the C ABI, in the order of its enum values.
pub const POST_PROOFS: [RegisteredPoStProof; 15] = {
    use RegisteredPoStProof::*;
    [
        StackedDrgWinning2KiBV1, StackedDrgWinning8MiBV1, StackedDrgWinning512MiBV1,
        StackedDrgWinning32GiBV1, StackedDrgWinning64GiBV1,
        StackedDrgWindow2KiBV1, StackedDrgWindow8MiBV1, StackedDrgWindow512MiBV1,
        StackedDrgWindow32GiBV1, StackedDrgWindow64GiBV1,
        StackedDrgWindow2KiBV1_2, StackedDrgWindow8MiBV1_2, StackedDrgWindow512MiBV1_2,
        StackedDrgWindow32GiBV1_2, StackedDrgWindow64GiBV1_2,
    ]
};

/// The matrices of `proof`'s first partition circuit, recorded from random
/// vanilla proofs of its exact shape (the structure is the same for every
/// instance; tests/matrices.rs).
fn porep_matrices<Tree: 'static + MerkleTreeTrait>(proof: RegisteredSealProof) -> Result<Matrices> {
    let mut parts = porep::partition_circuits::<Tree>(random_vanilla::porep_c1(proof, 1)?)?;
    Ok(record(parts.circuits.swap_remove(0))?.0)
}

fn post_matrices<Tree: 'static + MerkleTreeTrait>(proof: RegisteredPoStProof) -> Result<Matrices> {
    Ok(record(random_vanilla::post_circuit::<Tree>(proof, 1)?)?.0)
}

fn update_matrices<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(sector_size: u64) -> Result<Matrices> {
    Ok(record(random_vanilla::update_circuit::<Tree>(update_proof_for(sector_size)?, 1)?)?.0)
}

/// cuzk's parameters of the circuit of matrices `m`, under fresh toxic waste
/// (dropped here), written to `params` and then `vk`, each through a
/// temporary file renamed into place.
fn write_generated(m: &Matrices, params: &Path, vk: &Path) -> Result<()> {
    let generated = generator::generate(m, &ToxicWaste::random(&mut OsRng))?;
    write_atomically(params, |w| generated.write(w))?;
    write_atomically(vk, |w| generated.vk.write(w))
}

fn write_atomically(path: &Path, write: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let mut file = BufWriter::new(File::create(&tmp)?);
    write(&mut file).and_then(|()| file.flush()).with_context(|| format!("writing {}", tmp.display()))?;
    drop(file);
    std::fs::rename(&tmp, path)?;
    Ok(())
}

fn porep<Tree: 'static + MerkleTreeTrait>(config: &PoRepConfig) -> Result<()> {
    type C<Tree> = StackedCompound<Tree, DefaultPieceHasher>;
    let pp = public_params::<Tree>(config)?;
    <C<Tree> as CompoundProof<StackedDrg<'_, Tree, DefaultPieceHasher>, _>>::groth_params(Some(&mut OsRng), &pp)?;
    <C<Tree> as CompoundProof<StackedDrg<'_, Tree, DefaultPieceHasher>, _>>::verifying_key(Some(&mut OsRng), &pp)?;
    Ok(())
}

fn post<Tree: 'static + MerkleTreeTrait>(config: &PoStConfig) -> Result<()> {
    type C<Tree> = FallbackPoStCompound<Tree>;
    let pp = match config.typ {
        filecoin_proofs::PoStType::Winning => winning_post_public_params::<Tree>(config)?,
        filecoin_proofs::PoStType::Window => window_post_public_params::<Tree>(config)?,
    };
    <C<Tree> as CompoundProof<FallbackPoSt<'_, Tree>, FallbackPoStCircuit<Tree>>>::groth_params(Some(&mut OsRng), &pp)?;
    <C<Tree> as CompoundProof<FallbackPoSt<'_, Tree>, FallbackPoStCircuit<Tree>>>::verifying_key(Some(&mut OsRng), &pp)?;
    Ok(())
}

/// The circuit id of SnapDeals for `sector_size` (its parameter file's stem).
pub fn update_circuit_id<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(sector_size: u64) -> Result<String> {
    let pp = storage_proofs_update::PublicParams::from_sector_size(sector_size);
    Ok(<EmptySectorUpdateCompound<Tree> as CacheableParameters<EmptySectorUpdateCircuit<Tree>, _>>::cache_identifier(&pp))
}

fn update<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(sector_size: u64) -> Result<()> {
    type C<Tree> = EmptySectorUpdateCompound<Tree>;
    let pp = storage_proofs_update::PublicParams::from_sector_size(sector_size);
    <C<Tree> as CompoundProof<EmptySectorUpdate<Tree>, EmptySectorUpdateCircuit<Tree>>>::groth_params(Some(&mut OsRng), &pp)?;
    <C<Tree> as CompoundProof<EmptySectorUpdate<Tree>, EmptySectorUpdateCircuit<Tree>>>::verifying_key(Some(&mut OsRng), &pp)?;
    Ok(())
}

/// Points `FIL_PROOFS_PARAMETER_CACHE` at cuzk's local cache
/// (`$CUZK_PARAMS_DIR`, else `~/.cache/cuzk/params`) unless it is already set,
/// so that the CLI, tests and CI reuse parameters generated once on a machine.
/// Must run before anything reads the stock settings (they are read once).
pub fn use_local_cache_unless_set() -> PathBuf {
    if let Some(dir) = std::env::var_os("FIL_PROOFS_PARAMETER_CACHE") {
        return PathBuf::from(dir);
    }
    let dir = std::env::var_os("CUZK_PARAMS_DIR").map(PathBuf::from).unwrap_or_else(|| {
        let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/tmp"));
        home.join(".cache/cuzk/params")
    });
    std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", &dir);
    dir
}

/// Writes a SnarkPack inner-product SRS for up to `max_proofs` proofs
/// (bellperson's `setup_fake_srs`, OS randomness) where stock's aggregation
/// reads it, `v28-fil-inner-product-v1.srs` in the parameter cache, unless a
/// file is already there. For tests only: production aggregation needs the
/// ceremony's SRS (a locally made one is not trusted by other verifiers).
pub fn generate_inner_product_srs(max_proofs: usize) -> Result<Outcome> {
    let path = storage_proofs_core::parameter_cache::parameter_cache_srs_key_path("", max_proofs);
    let start = Instant::now();
    let generated = !path.exists();
    if generated {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let srs = bellperson::groth16::aggregate::setup_fake_srs::<blstrs::Bls12, _>(&mut OsRng, max_proofs);
        // Written aside, then renamed: a reader never sees a partial file.
        let tmp = path.with_extension(format!("srs.tmp{}", std::process::id()));
        let mut file = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
        srs.write(&mut file)?;
        std::io::Write::flush(&mut file)?;
        drop(file);
        std::fs::rename(&tmp, &path)?;
    }
    Ok(Outcome { circuit: "fil-inner-product-v1".into(), path, generated, seconds: start.elapsed().as_secs_f64() })
}

//! A partition's synthesis: its witness alone, with a, b and c from the
//! circuit's recorded matrices (evaluated here or by the GPU). The
//! matrices are read from their file beside the proving key when there is a
//! good one, else recorded from the first partition synthesized under the
//! key (its witness comes with them) and written there for later processes;
//! they are kept with the key and serve every later partition. Concurrent
//! first partitions wait for that one reading or recording.

use std::{
    path::{Path, PathBuf},
    sync::Arc,
    time::Instant,
};

use anyhow::Result;

use crate::{
    circuit::{matrices_file, Assignment, Matrices, PackedWitness},
    engine::{
        bulk_pool,
        job::{SynthesisKind, SynthesizeFn},
    },
    groth16::ProvingKey,
};

/// Runs `synthesize` for a partition under `pk`, on the bulk pool when
/// `bulk` (C2 and SnapDeals); with `files`, the matrices are read from and
/// written to `matrices_path(pk)`. A witness goes to the prover as it is
/// when a GPU will prove it (a, b and c are evaluated in device memory),
/// packed here too where that pays (the GPU copies the packed bytes, and
/// synthesis, not the proof, spends the time packing: on threads of its
/// own, not in the pool), else with a, b and c evaluated here, on the
/// synthesis threads.
///
/// The wait for another partition's recording happens on the calling
/// thread, never on a pool thread: a pool thread recording waits in rayon's
/// joins by running other queued pool jobs, and one of those blocking on
/// the recording it is part of would never return.
pub(super) fn synthesize(
    synthesize: SynthesizeFn,
    pk: &Arc<ProvingKey>,
    files: bool,
    gpu_prover: bool,
    bulk: bool,
) -> Result<Assignment> {
    let file = files.then(|| matrices_path(pk)).flatten();
    let mut synthesize = Some(synthesize);
    let mut recorded = None;
    let matrices = pk.matrices.get_or_try_init(|| -> Result<Matrices> {
        if let Some(m) = file.as_ref().and_then(|(path, key)| read(pk, path, key)) {
            return Ok(m);
        }
        let start = Instant::now();
        let record = synthesize.take().expect("the partition's synthesis is there until used");
        let (matrices, witness) = run(bulk, || record(SynthesisKind::Record))?.into_recorded()?;
        log::info!(
            "cuzk: recorded the circuit's matrices in {:?}: {} constraints, {} terms, {} MiB",
            start.elapsed(),
            matrices.num_constraints(),
            matrices.num_terms(),
            matrices.size_bytes() >> 20
        );
        recorded = Some(witness);
        Ok(matrices)
    })?;
    if let (Some(_), Some((path, key))) = (&recorded, file) {
        write_later(pk.clone(), path, key);
    }
    let witness = match (recorded, synthesize) {
        (Some(witness), _) => witness,
        (None, Some(synthesize)) => run(bulk, || synthesize(SynthesisKind::Witness))?.into_witness()?,
        (None, None) => unreachable!("a partition recorded gives its witness"),
    };
    if gpu_prover {
        let packed = PackedWitness::pack(&witness);
        return Ok(Assignment::Witness(witness, packed));
    }
    Ok(run(bulk, || matrices.evaluate(witness))?.into())
}

/// `f` on the bulk pool when `bulk`, else on this thread.
fn run<T: Send>(bulk: bool, f: impl FnOnce() -> T + Send) -> T {
    if bulk {
        bulk_pool::install(f)
    } else {
        f()
    }
}

/// The matrices file beside `pk`'s `.params` file, and that file's name
/// (which the matrices file records); `None` for a key read from no file.
pub fn matrices_path(pk: &ProvingKey) -> Option<(PathBuf, String)> {
    let params = pk.source.as_ref()?;
    let key = params.file_name()?.to_str()?.to_owned();
    Some((params.with_extension("cuzk-r1cs"), key))
}

/// The matrices in `path` when it holds good ones for `pk`; a bad file is
/// logged and recorded again (then replaced).
fn read(pk: &ProvingKey, path: &Path, key: &str) -> Option<Matrices> {
    if !path.exists() {
        return None;
    }
    let start = Instant::now();
    match matrices_file::read(path, key, pk.vk.ic.len(), pk.l.len()) {
        Ok(m) => {
            log::info!("cuzk: read the circuit's matrices from {} in {:?}", path.display(), start.elapsed());
            Some(m)
        }
        Err(e) => {
            log::warn!("cuzk: {e:#}; recording the circuit again");
            None
        }
    }
}

/// Writes `pk`'s matrices to `path` on a thread of its own (gigabytes: the
/// partition need not wait); a failure (a read-only parameter folder) is logged.
fn write_later(pk: Arc<ProvingKey>, path: PathBuf, key: String) {
    let spawned = std::thread::Builder::new().name("cuzk-r1cs-write".into()).spawn(move || {
        let Some(m) = pk.matrices.get() else { return };
        let start = Instant::now();
        match matrices_file::write(m, &key, &path) {
            Ok(()) => log::info!("cuzk: wrote the circuit's matrices to {} in {:?}", path.display(), start.elapsed()),
            Err(e) => log::warn!("cuzk: {e:#}; the next process records the circuit again"),
        }
    });
    if let Err(e) = spawned {
        log::warn!("cuzk: no thread to write the circuit's matrices ({e}); the next process records them again");
    }
}

//! The proving step every proof type shares: synthesize each partition's
//! circuit, check its inputs against what the verifier derives, prove with
//! cuzk's Groth16 prover, and verify before accepting the proof.

use std::{sync::Arc, time::Instant};

use anyhow::{anyhow, bail, ensure, Context, Result};
use bellperson::{
    groth16::{prepare_verifying_key, verify_proofs_batch},
    Circuit,
};
use blstrs::Scalar as Fr;
use rand::rngs::OsRng;

use crate::{
    circuit::synthesize,
    engine::prover::prove,
    groth16::{random_rs, Proof, ProvingKey},
};

/// Proves `circuits[k]` with public inputs `public_inputs[k]` (without the
/// leading one) under `pk`; `what` names the proof type in errors and logs.
pub fn prove_circuits<C: Circuit<Fr>>(
    pk: &Arc<ProvingKey>,
    circuits: Vec<C>,
    public_inputs: Vec<Vec<Fr>>,
    what: &str,
) -> Result<Vec<Proof>> {
    ensure!(circuits.len() == public_inputs.len(), "{what}: {} circuits for {} input sets", circuits.len(), public_inputs.len());
    let pvk = prepare_verifying_key(&pk.vk);
    let mut proofs = Vec::with_capacity(circuits.len());
    for (k, (circuit, expected)) in circuits.into_iter().zip(public_inputs).enumerate() {
        let start = Instant::now();
        let cs = synthesize(circuit).map_err(|e| anyhow!("{what}: synthesizing partition {k}: {e}"))?;
        let synthesized = start.elapsed();
        ensure!(
            cs.inputs[1..] == expected[..],
            "{what}: partition {k}: circuit inputs differ from the public inputs the verifier derives"
        );
        let (r, s) = random_rs(&mut OsRng);
        let proof = prove(pk, cs, r, s).with_context(|| format!("{what}: proving partition {k}"))?;
        if !verify_proofs_batch(&pvk, &mut OsRng, &[&proof.to_bellperson()], &[expected])? {
            bail!("{what}: partition {k}: the proof does not verify (inconsistent inputs); it was not returned");
        }
        log::info!("cuzk: {what} partition {k}: synthesis {synthesized:?}, prove and verify {:?}", start.elapsed() - synthesized);
        proofs.push(proof);
    }
    Ok(proofs)
}

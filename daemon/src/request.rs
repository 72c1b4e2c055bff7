//! A `SubmitProofRequest` decoded as Curio encodes each proof kind, into the
//! proof call the C ABI would make for it.

use anyhow::{anyhow, bail, ensure, Context, Result};
use base64::Engine as _;
use cuzk::{
    api::{porep, post, snap},
    engine::{CallContext, Priority, ProofKind as EngineKind},
    ffi,
};
use filecoin_proofs_api::{PoStType, RegisteredPoStProof};
use serde::Deserialize;

use crate::proto::{self, ProofKind};

/// A whole proof call, giving the proof's bytes.
pub type Call = Box<dyn FnOnce(&CallContext) -> Result<Vec<u8>> + Send>;

/// A proof call ready to run, with what the engine schedules it by.
pub struct Work {
    pub kind: EngineKind,
    pub priority: Priority,
    pub call: Call,
}

/// Curio's PoRep request body: the C1 output, base64 as Go encodes `[]byte`.
#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct PorepWrapper {
    sector_num: u64,
    phase1_out: String,
    sector_size: u64,
}

/// The prover id of miner actor `miner_id`: its ID address's payload (the
/// id as an unsigned LEB128 varint), zero-padded, as filecoin-ffi passes it.
pub fn prover_id(miner_id: u64) -> [u8; 32] {
    let mut out = [0u8; 32];
    let (mut v, mut i) = (miner_id, 0);
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        out[i] = if v == 0 { byte } else { byte | 0x80 };
        i += 1;
        if v == 0 {
            return out;
        }
    }
}

fn bytes32(bytes: &[u8], what: &str) -> Result<[u8; 32]> {
    bytes.try_into().map_err(|_| anyhow!("{what} must be 32 bytes, got {}", bytes.len()))
}

fn registered(value: u64) -> Result<i32> {
    i32::try_from(value).map_err(|_| anyhow!("registered_proof {value} is out of range"))
}

/// Curio's priorities onto the engine's (the kind orders Winning before
/// Window before C2 and SnapDeals already).
fn priority(p: proto::Priority) -> Priority {
    match p {
        proto::Priority::Low => Priority::Low,
        proto::Priority::Unspecified | proto::Priority::Normal => Priority::Medium,
        proto::Priority::High | proto::Priority::Critical => Priority::High,
    }
}

fn post_proof(r: &proto::SubmitProofRequest, typ: PoStType) -> Result<RegisteredPoStProof> {
    let rp = ffi::post::post_proof(registered(r.registered_proof)?)?;
    ensure!(rp.typ() == typ, "registered_proof {} ({rp:?}) is not a {typ:?} PoSt proof", r.registered_proof);
    Ok(rp)
}

/// Checks and decodes `r` (everything that can be checked before proving),
/// giving the call that proves it.
/// The engine's kind of the proof `r` asks for, read before anything is
/// decoded (admission counts jobs by it).
pub fn kind(r: &proto::SubmitProofRequest) -> Result<EngineKind> {
    Ok(match ProofKind::try_from(r.proof_kind).map_err(|_| anyhow!("unknown proof_kind {}", r.proof_kind))? {
        ProofKind::Unspecified => bail!("proof_kind is unspecified"),
        ProofKind::PorepSealCommit => EngineKind::PorepC2,
        ProofKind::SnapDealsUpdate => EngineKind::SnapDeals,
        ProofKind::WindowPostPartition => EngineKind::WindowPost,
        ProofKind::WinningPost => EngineKind::WinningPost,
    })
}

pub fn decode(r: proto::SubmitProofRequest) -> Result<Work> {
    let kind = kind(&r)?;
    let priority = priority(proto::Priority::try_from(r.priority).unwrap_or(proto::Priority::Unspecified));
    let call: Call = match kind {
        EngineKind::PorepC2 => {
            ensure!(!r.vanilla_proof.is_empty(), "vanilla_proof is empty: a PoRep request carries the C1 output wrapper");
            let wrapper: PorepWrapper =
                serde_json::from_slice(&r.vanilla_proof).context("vanilla_proof is not Curio's PoRep JSON (SectorNum, Phase1Out, SectorSize)")?;
            let c1 = base64::engine::general_purpose::STANDARD
                .decode(wrapper.phase1_out.as_bytes())
                .context("Phase1Out is not base64")?;
            let rp = ffi::seal::seal_proof(registered(r.registered_proof)?)?;
            let parsed = porep::parse_c1(&c1)?;
            ensure!(
                parsed.registered_proof == rp,
                "the C1 output is for {:?}, the request names {rp:?}",
                parsed.registered_proof
            );
            let size = u64::from(rp.sector_size());
            ensure!(wrapper.sector_size == size, "SectorSize {} does not match {rp:?} ({size} bytes)", wrapper.sector_size);
            ensure!(r.sector_size == 0 || r.sector_size == size, "sector_size {} does not match {rp:?}", r.sector_size);
            ensure!(
                wrapper.sector_num == r.sector_number,
                "SectorNum {} differs from sector_number {}",
                wrapper.sector_num,
                r.sector_number
            );
            let (sector, prover) = (r.sector_number, prover_id(r.miner_id));
            Box::new(move |context: &CallContext| porep::seal_commit_phase2_of(context, parsed, sector, prover))
        }
        EngineKind::SnapDeals => {
            ensure!(!r.vanilla_proofs.is_empty(), "vanilla_proofs is empty: one partition proof per partition");
            let rp = ffi::snap::update_proof(registered(r.registered_proof)?)?;
            let comms = snap::UpdateCommitments {
                comm_r_old: bytes32(&r.comm_r_old, "comm_r_old")?,
                comm_r_new: bytes32(&r.comm_r_new, "comm_r_new")?,
                comm_d_new: bytes32(&r.comm_d_new, "comm_d_new")?,
            };
            let vanilla = r.vanilla_proofs;
            Box::new(move |context: &CallContext| snap::update_proof_with_vanilla(context, rp, &vanilla, comms))
        }
        EngineKind::WindowPost => {
            ensure!(!r.vanilla_proofs.is_empty(), "vanilla_proofs is empty: one proof per sector of the partition");
            let rp = post_proof(&r, PoStType::Window)?;
            let randomness = bytes32(&r.randomness, "randomness")?;
            let (prover, partition, vanilla) = (prover_id(r.miner_id), r.partition_index as usize, r.vanilla_proofs);
            let call = move |context: &CallContext| post::single_window_post_with_vanilla(context, rp, randomness, prover, &vanilla, partition);
            Box::new(call)
        }
        EngineKind::WinningPost => {
            ensure!(!r.vanilla_proofs.is_empty(), "vanilla_proofs is empty: one proof per sector");
            let rp = post_proof(&r, PoStType::Winning)?;
            let randomness = bytes32(&r.randomness, "randomness")?;
            let (prover, vanilla) = (prover_id(r.miner_id), r.vanilla_proofs);
            let call = move |context: &CallContext| post::post_with_vanilla(context, PoStType::Winning, rp, randomness, prover, &vanilla);
            Box::new(call)
        }
    };
    Ok(Work { kind, priority, call })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prover_ids_are_id_address_payloads() {
        assert_eq!(prover_id(0)[..2], [0, 0]);
        assert_eq!(prover_id(1000)[..3], [0xe8, 0x07, 0]);
        assert_eq!(prover_id(127)[..2], [0x7f, 0]);
        assert_eq!(prover_id(128)[..3], [0x80, 0x01, 0]);
        assert_eq!(prover_id(u64::MAX)[9..11], [0x01, 0]);
    }

    fn request(kind: ProofKind) -> proto::SubmitProofRequest {
        proto::SubmitProofRequest { proof_kind: kind as i32, ..Default::default() }
    }

    fn error(r: proto::SubmitProofRequest) -> String {
        format!("{:#}", decode(r).err().expect("an error"))
    }

    #[test]
    fn malformed_requests_say_what_is_wrong() {
        assert!(error(request(ProofKind::Unspecified)).contains("unspecified"));
        assert!(error(proto::SubmitProofRequest { proof_kind: 17, ..Default::default() }).contains("unknown proof_kind 17"));
        assert!(error(request(ProofKind::PorepSealCommit)).contains("vanilla_proof is empty"));
        let garbage = proto::SubmitProofRequest { vanilla_proof: b"{\"SectorNum\":".to_vec(), ..request(ProofKind::PorepSealCommit) };
        assert!(error(garbage).contains("not Curio's PoRep JSON"));
        let not_base64 = br#"{"SectorNum":1,"Phase1Out":"%%%","SectorSize":2048}"#.to_vec();
        assert!(error(proto::SubmitProofRequest { vanilla_proof: not_base64, ..request(ProofKind::PorepSealCommit) }).contains("base64"));
        assert!(error(request(ProofKind::WinningPost)).contains("vanilla_proofs is empty"));
        let winning = |rp: u64, randomness: Vec<u8>| proto::SubmitProofRequest {
            registered_proof: rp,
            randomness,
            vanilla_proofs: vec![vec![1]],
            ..request(ProofKind::WinningPost)
        };
        assert!(error(winning(5, vec![0; 32])).contains("is not a Winning PoSt proof"));
        assert!(error(winning(0, vec![0; 31])).contains("randomness must be 32 bytes"));
        assert!(error(winning(99, vec![0; 32])).contains("invalid RegisteredPoStProof"));
        assert!(error(winning(1 << 40, vec![0; 32])).contains("out of range"));
        let snap = proto::SubmitProofRequest { vanilla_proofs: vec![vec![1]], comm_r_old: vec![1; 32], ..request(ProofKind::SnapDealsUpdate) };
        assert!(error(snap).contains("comm_r_new must be 32 bytes"));
    }
}

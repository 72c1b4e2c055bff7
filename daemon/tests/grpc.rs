//! The daemon on a unix socket, driven by a gRPC client generated from its
//! `.proto`: a real 2 KiB sector's C2 sent as Curio wraps it, submit /
//! await / cancel / idempotent resubmission, status and metrics, and bad
//! requests answered with FAILED and a message while the daemon keeps
//! serving.

use std::{path::PathBuf, time::Duration};

use base64::Engine as _;
use cuzk::api::{params, porep, sample};
use cuzk_daemon::{
    proto::{
        await_proof_response::Status as ProofStatus, proving_engine_client::ProvingEngineClient, AwaitProofRequest,
        CancelProofRequest, GetMetricsRequest, GetStatusRequest, PreloadSrsRequest, ProofKind, ProveRequest,
        SubmitProofRequest,
    },
    prover_id, serve, Limits, Listen,
};
use filecoin_proofs_api::RegisteredSealProof;
use hyper_util::rt::TokioIo;
use tokio::sync::oneshot;
use tonic::transport::{Channel, Endpoint, Uri};

type Client = ProvingEngineClient<Channel>;

/// A daemon serving on a socket of its own until dropped.
struct Daemon {
    socket: PathBuf,
    stop: Option<oneshot::Sender<()>>,
    served: Option<tokio::task::JoinHandle<anyhow::Result<()>>>,
}

impl Daemon {
    async fn start(name: &str) -> Daemon {
        let socket = std::env::temp_dir().join(format!("cuzk-daemon-{name}-{}.sock", std::process::id()));
        let (stop, stopped) = oneshot::channel::<()>();
        let served = tokio::spawn(serve(Listen::Unix(socket.clone()), Limits::default(), async move {
            let _ = stopped.await;
        }));
        Daemon { socket, stop: Some(stop), served: Some(served) }
    }

    async fn client(&self) -> Client {
        let path = self.socket.clone();
        for _ in 0..500 {
            let path = path.clone();
            let connector = tower::service_fn(move |_: Uri| {
                let path = path.clone();
                async move { Ok::<_, std::io::Error>(TokioIo::new(tokio::net::UnixStream::connect(path).await?)) }
            });
            // The URI is required and ignored: the connector dials the socket.
            if let Ok(channel) = Endpoint::from_static("http://daemon.invalid").connect_with_connector(connector).await {
                return ProvingEngineClient::new(channel).max_decoding_message_size(1 << 30).max_encoding_message_size(1 << 30);
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the daemon does not listen on {}", self.socket.display());
    }

    async fn stop(mut self) {
        let _ = self.stop.take().expect("running").send(());
        self.served.take().expect("running").await.unwrap().unwrap();
        assert!(!self.socket.exists(), "the socket is removed on shutdown");
    }
}

fn porep_request(sector: &sample::SealedSector, miner: u64, request_id: &str) -> SubmitProofRequest {
    let wrapper = serde_json::json!({
        "SectorNum": sector.sector_id,
        "Phase1Out": base64::engine::general_purpose::STANDARD.encode(&sector.c1_json),
        "SectorSize": 2048,
    });
    SubmitProofRequest {
        request_id: request_id.into(),
        proof_kind: ProofKind::PorepSealCommit as i32,
        sector_size: 2048,
        registered_proof: RegisteredSealProof::StackedDrg2KiBV1_1 as u64,
        vanilla_proof: serde_json::to_vec(&wrapper).unwrap(),
        sector_number: sector.sector_id,
        miner_id: miner,
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_requests_are_answered_and_the_daemon_keeps_serving() {
    let daemon = Daemon::start("bad").await;
    let mut c = daemon.client().await;
    let status = c.get_status(GetStatusRequest {}).await.unwrap().into_inner();
    assert!(status.queues.is_empty() && status.total_proofs_completed == 0);

    let prove = |submit: SubmitProofRequest| ProveRequest { submit: Some(submit) };
    let failed = |r: cuzk_daemon::proto::ProveResponse| {
        let r = r.result.expect("a result");
        assert_eq!(r.status, ProofStatus::Failed as i32, "{r:?}");
        r.error_message
    };
    let unknown = SubmitProofRequest { proof_kind: 9, ..Default::default() };
    assert!(failed(c.prove(prove(unknown)).await.unwrap().into_inner()).contains("unknown proof_kind 9"));
    let garbage = SubmitProofRequest {
        proof_kind: ProofKind::PorepSealCommit as i32,
        vanilla_proof: b"not json".to_vec(),
        ..Default::default()
    };
    assert!(failed(c.prove(prove(garbage.clone())).await.unwrap().into_inner()).contains("not Curio's PoRep JSON"));
    let winning = SubmitProofRequest {
        proof_kind: ProofKind::WinningPost as i32,
        registered_proof: 0,
        randomness: vec![1; 32],
        vanilla_proofs: vec![vec![7; 40]],
        ..Default::default()
    };
    let message = failed(c.prove(prove(winning)).await.unwrap().into_inner());
    assert!(!message.is_empty(), "a garbage vanilla proof fails with a message");

    let refused = c.submit_proof(garbage).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);
    let waited = c.await_proof(AwaitProofRequest { job_id: "job-none".into(), timeout_ms: 10 }).await.unwrap().into_inner();
    assert_eq!(waited.status, ProofStatus::Unknown as i32);
    assert!(!c.cancel_proof(CancelProofRequest { job_id: "job-none".into() }).await.unwrap().into_inner().was_running);
    let preload = c.preload_srs(PreloadSrsRequest { circuit_id: "no-such-circuit".into() }).await.unwrap_err();
    assert_eq!(preload.code(), tonic::Code::NotFound);

    let status = c.get_status(GetStatusRequest {}).await.unwrap().into_inner();
    assert_eq!(status.total_proofs_failed, 1, "the garbage Winning PoSt reached the engine and failed there");
    let metrics = c.get_metrics(GetMetricsRequest {}).await.unwrap().into_inner().prometheus_text;
    assert!(metrics.contains("cuzk_proofs_total{kind=\"winning_post\",outcome=\"failed\"} 1"), "{metrics}");
    assert!(metrics.contains("# TYPE cuzk_uptime_seconds gauge"));
    daemon.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_porep_c2_sent_as_curio_sends_it_verifies() {
    let miner = 1000;
    params::use_local_cache_unless_set();
    params::generate(2048, &[params::Family::PoRep]).unwrap();
    let sector = tokio::task::spawn_blocking(move || {
        let dir = std::env::temp_dir().join(format!("cuzk-daemon-sector-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let sector = sample::seal_sector_for(RegisteredSealProof::StackedDrg2KiBV1_1, &dir, 11, Some(prover_id(miner))).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        sector
    })
    .await
    .unwrap();
    let daemon = Daemon::start("c2").await;
    let mut c = daemon.client().await;

    // Submitted twice under one request id: one job.
    let submitted = c.submit_proof(porep_request(&sector, miner, "c2-a")).await.unwrap().into_inner();
    let again = c.submit_proof(porep_request(&sector, miner, "c2-a")).await.unwrap().into_inner();
    assert_eq!(submitted.job_id, again.job_id);
    // `job-<this start's random prefix>-<count>`: no id outlives a restart.
    let parts: Vec<&str> = submitted.job_id.split('-').collect();
    assert!(parts.len() == 3 && parts[0] == "job" && parts[1].len() == 8 && u32::from_str_radix(parts[1], 16).is_ok(), "{}", submitted.job_id);
    let early = c.await_proof(AwaitProofRequest { job_id: submitted.job_id.clone(), timeout_ms: 1 }).await.unwrap().into_inner();
    assert_eq!(early.status, ProofStatus::Timeout as i32);

    // Another job, cancelled while it runs.
    let other = c.submit_proof(porep_request(&sector, miner, "c2-b")).await.unwrap().into_inner();
    assert_ne!(other.job_id, submitted.job_id);
    assert!(c.cancel_proof(CancelProofRequest { job_id: other.job_id.clone() }).await.unwrap().into_inner().was_running);
    let cancelled = c.await_proof(AwaitProofRequest { job_id: other.job_id, timeout_ms: 0 }).await.unwrap().into_inner();
    assert_eq!(cancelled.status, ProofStatus::Cancelled as i32);

    // Prove under the first request id waits for the first job.
    let proved = c.prove(ProveRequest { submit: Some(porep_request(&sector, miner, "c2-a")) }).await.unwrap().into_inner();
    let result = proved.result.unwrap();
    assert_eq!(result.status, ProofStatus::Completed as i32, "{}", result.error_message);
    assert_eq!(result.job_id, submitted.job_id);
    let s = &sector;
    let valid = porep::verify_seal(s.registered_proof, s.comm_r, s.comm_d, prover_id(miner), s.ticket, s.seed, s.sector_id, &result.proof);
    assert!(valid.unwrap(), "the daemon's proof verifies");
    // Where its time went: the partition synthesized and proved, within the total.
    assert!(result.synthesis_ms > 0 && result.gpu_compute_ms > 0, "stage times: {result:?}");
    assert!(result.srs_load_ms + result.queue_wait_ms <= result.total_ms, "stage times: {result:?}");
    // A later waiter gets the same proof.
    let later = c.await_proof(AwaitProofRequest { job_id: submitted.job_id, timeout_ms: 0 }).await.unwrap().into_inner();
    assert_eq!(later.proof, result.proof);

    // A Prove without a request id whose caller goes away is cancelled.
    let gone = tokio::time::timeout(Duration::from_millis(500), c.prove(ProveRequest { submit: Some(porep_request(&sector, miner, "")) })).await;
    assert!(gone.is_err(), "the C2 outlived its caller's patience");
    let cancelled_twice = "cuzk_proofs_total{kind=\"porep_seal_commit\",outcome=\"cancelled\"} 2";
    let mut metrics = String::new();
    for _ in 0..100 {
        metrics = c.get_metrics(GetMetricsRequest {}).await.unwrap().into_inner().prometheus_text;
        if metrics.contains(cancelled_twice) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(metrics.contains(cancelled_twice), "the abandoned Prove was not cancelled:\n{metrics}");

    let status = c.get_status(GetStatusRequest {}).await.unwrap().into_inner();
    assert_eq!(status.total_proofs_completed, 1);
    assert!(status.loaded_srs.iter().any(|k| k.size_bytes > 0), "the PoRep key is resident");
    daemon.stop().await;
}

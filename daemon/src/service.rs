//! The `cuzk.v1.ProvingEngine` service on cuzk's engine, and the server
//! that listens on a unix socket or a TCP address.

use std::{
    future::Future,
    net::SocketAddr,
    path::PathBuf,
    sync::Arc,
    time::{Duration, Instant},
};

use anyhow::{anyhow, Context, Result};
use cuzk::{
    api::{keys::KeyOf, params::POST_PROOFS, porep::SEAL_PROOFS, snap::UPDATE_PROOFS},
    engine::{self, devices, srs_cache},
};
use tonic::{Request, Response, Status};

use crate::{
    jobs::{kind_name, Busy, Finished, Jobs, Outcome},
    metrics,
    socket,
    proto::{
        await_proof_response::Status as ProofStatus,
        proving_engine_server::{ProvingEngine, ProvingEngineServer},
        srs_status::Tier,
        AwaitProofRequest, AwaitProofResponse, CancelProofRequest, CancelProofResponse, EvictSrsRequest, EvictSrsResponse,
        GetMetricsRequest, GetMetricsResponse, GetStatusRequest, GetStatusResponse, GpuStatus, PreloadSrsRequest,
        PreloadSrsResponse, ProveRequest, ProveResponse, QueueStatus, SrsStatus, SubmitProofRequest, SubmitProofResponse,
    },
    request,
};

/// Where the daemon listens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Listen {
    Unix(PathBuf),
    Tcp(SocketAddr),
}

impl Listen {
    /// Refuses an address other hosts can reach unless `allow_remote`:
    /// the service has no authentication of its own.
    pub fn check_reach(&self, allow_remote: bool) -> Result<()> {
        match self {
            Listen::Tcp(addr) if !addr.ip().is_loopback() => {
                anyhow::ensure!(
                    allow_remote,
                    "listening on {addr} lets any host that reaches it submit, await and cancel proofs, unauthenticated: listen on a unix socket or 127.0.0.1, or pass --allow-remote (allow_remote = true) to accept that"
                );
                log::warn!("cuzk-daemon: listening on {addr}, reachable from other hosts, without authentication (--allow-remote)");
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// `unix:///path/to.sock` or `host:port`.
    pub fn parse(s: &str) -> Result<Self> {
        match s.strip_prefix("unix://") {
            Some(path) if !path.is_empty() => Ok(Listen::Unix(PathBuf::from(path))),
            Some(_) => Err(anyhow!("listen address {s:?} names no socket path")),
            None => s.parse().map(Listen::Tcp).map_err(|e| anyhow!("listen address {s:?}: {e} (unix:///path or host:port)")),
        }
    }
}

/// Large enough for a 32 GiB C1 output or a Window PoSt partition's vanilla
/// proofs in one message.
const MAX_MESSAGE_BYTES: usize = 1 << 30;

/// Calls one client connection runs at once: room for an await of every
/// job the admission limits allow, and a bound on the tasks one client
/// can make the daemon hold.
const MAX_CALLS_PER_CONNECTION: usize = 512;

/// What the daemon admits.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Unfinished jobs of one proof kind (requests being decoded
    /// included); beyond it a submission is refused with RESOURCE_EXHAUSTED
    /// before it is decoded.
    pub max_unfinished_jobs: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self { max_unfinished_jobs: crate::jobs::DEFAULT_MAX_UNFINISHED }
    }
}

/// Serves until `shutdown` completes; requests in progress then finish
/// before it returns. A unix socket is made as `socket::claim` says.
pub async fn serve(listen: Listen, limits: Limits, shutdown: impl Future<Output = ()> + Send + 'static) -> Result<()> {
    let service = ProvingEngineServer::new(Service { jobs: Arc::new(Jobs::new(limits.max_unfinished_jobs)), started: Instant::now() })
        .max_decoding_message_size(MAX_MESSAGE_BYTES)
        .max_encoding_message_size(MAX_MESSAGE_BYTES);
    let server = tonic::transport::Server::builder()
        .concurrency_limit_per_connection(MAX_CALLS_PER_CONNECTION)
        .max_concurrent_streams(Some(MAX_CALLS_PER_CONNECTION as u32))
        .add_service(service);
    match listen {
        Listen::Unix(path) => {
            let (listener, _claimed) = socket::claim(&path)?;
            log::info!("cuzk-daemon listening on unix://{}", path.display());
            let incoming = tokio_stream::wrappers::UnixListenerStream::new(listener);
            server.serve_with_incoming_shutdown(incoming, shutdown).await?;
        }
        Listen::Tcp(addr) => {
            let listener = tokio::net::TcpListener::bind(addr).await.with_context(|| format!("listening on {addr}"))?;
            log::info!("cuzk-daemon listening on {}", listener.local_addr()?);
            let incoming = tokio_stream::wrappers::TcpListenerStream::new(listener);
            server.serve_with_incoming_shutdown(incoming, shutdown).await?;
        }
    }
    Ok(())
}

struct Service {
    jobs: Arc<Jobs>,
    started: Instant,
}

fn response(job_id: String, finished: Option<Finished>, timed_out: bool) -> AwaitProofResponse {
    let mut r = AwaitProofResponse { job_id, ..Default::default() };
    match finished {
        Some(Finished { outcome, total, times }) => {
            r.total_ms = total.as_millis() as u64;
            if let Some(t) = times {
                let ms = |d: Duration| d.as_millis() as u64;
                (r.srs_load_ms, r.queue_wait_ms) = (ms(t.setup), ms(t.queue_wait));
                (r.synthesis_ms, r.gpu_compute_ms) = (ms(t.synthesis), ms(t.proving));
            }
            match outcome {
                Outcome::Proof(proof) => (r.status, r.proof) = (ProofStatus::Completed as i32, proof),
                Outcome::Failed(message) => (r.status, r.error_message) = (ProofStatus::Failed as i32, message),
                Outcome::Cancelled => (r.status, r.error_message) = (ProofStatus::Cancelled as i32, "cancelled".into()),
            }
        }
        None if timed_out => (r.status, r.error_message) = (ProofStatus::Timeout as i32, "still running at the timeout".into()),
        None => (r.status, r.error_message) = (ProofStatus::Unknown as i32, format!("no job {:?}", r.job_id)),
    }
    r
}

impl Service {
    async fn submit(&self, r: SubmitProofRequest) -> Result<crate::jobs::Submitted, Status> {
        let (jobs, request_id) = (self.jobs.clone(), r.request_id.clone());
        let kind = request::kind(&r).map_err(|e| Status::invalid_argument(format!("{e:#}")))?;
        // Decoding parses the C1 output: off the async threads.
        let submitted = tokio::task::spawn_blocking(move || jobs.submit(&request_id, kind, || request::decode(r)))
            .await
            .map_err(|e| Status::internal(format!("decoding the request: {e}")))?;
        submitted.map_err(|e| match e.downcast_ref::<Busy>() {
            Some(busy) => Status::resource_exhausted(busy.to_string()),
            None => Status::invalid_argument(format!("{e:#}")),
        })
    }

    async fn wait(&self, job_id: String, timeout: Option<Duration>) -> AwaitProofResponse {
        match self.jobs.wait(&job_id, timeout).await {
            None => response(job_id, None, false),
            Some(finished) => response(job_id, finished, true),
        }
    }
}

/// Cancels a job when dropped armed (disarmed once its caller has the answer).
struct CancelOnDrop {
    jobs: Arc<Jobs>,
    job_id: String,
    armed: bool,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if self.armed && self.jobs.cancel(&self.job_id) {
            log::info!("cuzk-daemon: {} cancelled: its Prove caller went away", self.job_id);
        }
    }
}

/// The proving key that `circuit_id` names: a circuit identifier as
/// `GetStatus` lists it, or its parameter file's name.
fn key_named(circuit_id: &str) -> Result<KeyOf, Status> {
    let id = circuit_id.trim_start_matches("v28-").trim_end_matches(".params");
    let keys = (SEAL_PROOFS.iter().map(|&p| KeyOf::Seal(p)))
        .chain(POST_PROOFS.iter().map(|&p| KeyOf::Post(p)))
        .chain(UPDATE_PROOFS.iter().map(|&p| KeyOf::Update(p)));
    keys.into_iter()
        .find(|k| k.circuit_id().is_ok_and(|c| c == id))
        .ok_or_else(|| Status::not_found(format!("no registered proof has circuit id {circuit_id:?}")))
}

fn resident_bytes(circuit_id: &str) -> Option<usize> {
    srs_cache::resident().into_iter().find(|(id, _)| id == circuit_id).map(|(_, bytes)| bytes)
}

#[tonic::async_trait]
impl ProvingEngine for Service {
    async fn submit_proof(&self, req: Request<SubmitProofRequest>) -> Result<Response<SubmitProofResponse>, Status> {
        let submitted = self.submit(req.into_inner()).await?;
        Ok(Response::new(SubmitProofResponse {
            job_id: submitted.job_id,
            queue_position: submitted.ahead as u32,
            assigned_gpu: String::new(),
        }))
    }

    async fn await_proof(&self, req: Request<AwaitProofRequest>) -> Result<Response<AwaitProofResponse>, Status> {
        let AwaitProofRequest { job_id, timeout_ms } = req.into_inner();
        let timeout = (timeout_ms > 0).then(|| Duration::from_millis(timeout_ms));
        Ok(Response::new(self.wait(job_id, timeout).await))
    }

    async fn prove(&self, req: Request<ProveRequest>) -> Result<Response<ProveResponse>, Status> {
        let submit = req.into_inner().submit.unwrap_or_default();
        let anonymous = submit.request_id.is_empty();
        let result = match self.submit(submit).await {
            Ok(submitted) => {
                // Without a request id nobody else can ever ask for this job:
                // if the caller goes away (this future dropped), cancel it.
                let mut abandoned =
                    anonymous.then(|| CancelOnDrop { jobs: self.jobs.clone(), job_id: submitted.job_id.clone(), armed: true });
                let result = self.wait(submitted.job_id, None).await;
                abandoned.iter_mut().for_each(|guard| guard.armed = false);
                result
            }
            Err(e) if e.code() == tonic::Code::ResourceExhausted => return Err(e),
            Err(e) => AwaitProofResponse { status: ProofStatus::Failed as i32, error_message: e.message().to_string(), ..Default::default() },
        };
        Ok(Response::new(ProveResponse { result: Some(result) }))
    }

    async fn cancel_proof(&self, req: Request<CancelProofRequest>) -> Result<Response<CancelProofResponse>, Status> {
        Ok(Response::new(CancelProofResponse { was_running: self.jobs.cancel(&req.into_inner().job_id) }))
    }

    async fn get_status(&self, _: Request<GetStatusRequest>) -> Result<Response<GetStatusResponse>, Status> {
        let engine = engine::global().map_err(|e| Status::internal(format!("{e:#}")))?.status();
        let mut queues: Vec<QueueStatus> = Vec::new();
        for (kind, unfinished) in self.jobs.unfinished() {
            let running = engine.jobs.iter().filter(|j| kind_name(j.kind) == kind && j.state.is_under_way()).count() as u32;
            let in_progress = running.min(unfinished);
            queues.push(QueueStatus { proof_kind: kind.into(), pending: unfinished - in_progress, in_progress });
        }
        queues.sort_by(|a, b| a.proof_kind.cmp(&b.proof_kind));
        let totals = self.jobs.totals();
        Ok(Response::new(GetStatusResponse {
            gpus: devices::gpu_status()
                .into_iter()
                .map(|g| GpuStatus {
                    ordinal: g.index.max(0) as u32,
                    name: g.name,
                    vram_total_bytes: g.total_bytes,
                    vram_free_bytes: g.free_bytes.unwrap_or(0),
                    ..Default::default()
                })
                .collect(),
            loaded_srs: srs_cache::resident()
                .into_iter()
                .map(|(circuit_id, bytes)| SrsStatus { circuit_id, tier: Tier::Hot as i32, size_bytes: bytes as u64, ref_count: 0 })
                .collect(),
            queues,
            total_proofs_completed: totals.values().map(|t| t.completed).sum(),
            total_proofs_failed: totals.values().map(|t| t.failed).sum(),
            uptime_seconds: self.started.elapsed().as_secs(),
            pinned_memory_bytes: 0,
            pinned_memory_limit_bytes: 0,
        }))
    }

    async fn get_metrics(&self, _: Request<GetMetricsRequest>) -> Result<Response<GetMetricsResponse>, Status> {
        let engine = engine::global().map_err(|e| Status::internal(format!("{e:#}")))?.status();
        let text = metrics::render(&self.jobs, &engine, self.started.elapsed());
        Ok(Response::new(GetMetricsResponse { prometheus_text: text }))
    }

    async fn preload_srs(&self, req: Request<PreloadSrsRequest>) -> Result<Response<PreloadSrsResponse>, Status> {
        let key = key_named(&req.into_inner().circuit_id)?;
        let id = key.circuit_id().map_err(|e| Status::invalid_argument(format!("{e:#}")))?;
        let already_loaded = resident_bytes(&id).is_some();
        let start = Instant::now();
        tokio::task::spawn_blocking(move || key.load())
            .await
            .map_err(|e| Status::internal(e.to_string()))?
            .map_err(|e| Status::failed_precondition(format!("{e:#}")))?;
        Ok(Response::new(PreloadSrsResponse { already_loaded, load_time_ms: start.elapsed().as_millis() as u64 }))
    }

    async fn evict_srs(&self, req: Request<EvictSrsRequest>) -> Result<Response<EvictSrsResponse>, Status> {
        let key = key_named(&req.into_inner().circuit_id)?;
        let id = key.circuit_id().map_err(|e| Status::invalid_argument(format!("{e:#}")))?;
        let freed_bytes = resident_bytes(&id).unwrap_or(0) as u64;
        let was_loaded = key.evict().map_err(|e| Status::internal(format!("{e:#}")))?;
        Ok(Response::new(EvictSrsResponse { was_loaded, freed_bytes: if was_loaded { freed_bytes } else { 0 } }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listen_addresses() {
        assert_eq!(Listen::parse("unix:///run/cuzk.sock").unwrap(), Listen::Unix("/run/cuzk.sock".into()));
        assert_eq!(Listen::parse("127.0.0.1:9820").unwrap(), Listen::Tcp("127.0.0.1:9820".parse().unwrap()));
        assert!(Listen::parse("unix://").is_err());
        assert!(Listen::parse("localhost").unwrap_err().to_string().contains("unix:///path or host:port"));
    }
}

//! `cuzk-daemon`: the `cuzk.v1.ProvingEngine` gRPC service that Curio's
//! proving client speaks (proto/cuzk/v1/proving.proto), served from cuzk's
//! process-global engine, so that the proving keys stay resident across
//! proofs. Requests are decoded as Curio encodes them (`request`), run as
//! the engine's asynchronous requests (`jobs`), and answered with verified
//! proofs or a FAILED status and a message.

pub mod config;
mod jobs;
mod metrics;
mod request;
mod service;
mod socket;

pub use request::prover_id;
pub use service::{serve, Limits, Listen};

/// The generated messages, client and server of `cuzk.v1`.
pub mod proto {
    tonic::include_proto!("cuzk.v1");
}

//! The CUDA backend: device discovery, proving keys resident on devices, and
//! the GPU implementation of the prover's heavy steps. The kernels are in
//! cuda/ (built by build.rs with nvcc when the `cuda` feature is on).

mod devices;
mod direct;
mod h_poly;
mod placement;
mod priority_lock;
mod prover;
mod r1cs;
mod resident;
mod scalars;
mod step;
mod sys;

pub use devices::{devices, set_step_limit, Device};
pub use direct::{h_coefficients, DevicePoints};
pub use h_poly::HPlan;
pub use prover::GpuProver;
pub use r1cs::{DeviceAbc, DeviceMatrices};
pub use placement::{KeyShape, Part, Residency};
pub use resident::{drop_unused_keys, matrices_on_all, streamed_key_room, MsmHow, WindowedMsm};
pub use scalars::DeviceScalars;
pub use sys::{MsmSplit, SplitMode};

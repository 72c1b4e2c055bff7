//! The H polynomial on a device: its coefficients stay in device memory for
//! the H MSM, and come back to the host only when asked (tests, benchmarks).

use std::ptr;

use anyhow::{Context, Result};
use blstrs::Scalar as Fr;

use super::{
    devices::Device,
    r1cs::DeviceMatrices,
    scalars::DeviceScalars,
    sys::{self, check},
};
use crate::groth16::ntt::Domain;

/// Where the coset vectors of the H step live, by the device memory free.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HPlan {
    /// Two domain-sized vectors on the device: the fastest.
    TwoVectors,
    /// One on the device (plus a 32 MiB chunk), the other in host memory,
    /// brought back in chunks: for devices without room for two.
    OneVector,
}

const SCALAR: usize = 32;
/// cuda/h_poly.cu's chunk, and room for sppark's NTT twiddles and the runtime.
const H_SLACK: usize = (32 << 20) + (256 << 20);

impl HPlan {
    /// Device bytes the plan needs for a domain of `n`.
    pub fn device_bytes(self, n: usize) -> usize {
        let vectors = match self {
            Self::TwoVectors => 2,
            Self::OneVector => 1,
        };
        vectors * n * SCALAR + H_SLACK
    }

    /// The fastest plan that fits in `free` bytes for a domain of `n`; `None`
    /// when not even one vector fits (the H step then runs on the CPU).
    pub fn fitting(free: usize, n: usize) -> Option<Self> {
        [Self::TwoVectors, Self::OneVector].into_iter().find(|plan| plan.device_bytes(n) <= free)
    }
}

/// The coefficients of H in device memory, `domain - 1` of them in use.
pub struct DeviceH {
    scalars: DeviceScalars,
    copy_seconds: f64,
    abc_seconds: f64,
}

impl DeviceH {
    /// Seconds the stream spent in host-device copies (staging included)
    /// while computing H.
    pub fn copy_seconds(&self) -> f64 {
        self.copy_seconds
    }

    /// Seconds the device spent evaluating a, b and c from a witness (0 when
    /// they came from the host).
    pub fn abc_seconds(&self) -> f64 {
        self.abc_seconds
    }

    /// The domain's scalars; the first `len()` are the coefficients.
    pub(super) fn scalars(&self) -> &DeviceScalars {
        &self.scalars
    }

    /// The coefficients the SRS has points for.
    pub fn len(&self) -> usize {
        self.scalars.len() - 1
    }

    pub fn to_host(&self) -> Result<Vec<Fr>> {
        self.scalars.to_host(self.len())
    }
}

/// The host memory the one-vector plan parks a coset vector in (none for
/// two vectors), and the pointer cuda/ takes for it.
struct Scratch(Vec<Fr>);

impl Scratch {
    fn for_plan(plan: HPlan, domain: usize) -> Self {
        Self(match plan {
            HPlan::TwoVectors => Vec::new(),
            HPlan::OneVector => Vec::with_capacity(domain),
        })
    }

    /// Null, or room for the domain's scalars that cuda writes before it
    /// reads them, within the call.
    fn as_mut_ptr(&mut self) -> *mut Fr {
        if self.0.capacity() == 0 {
            ptr::null_mut()
        } else {
            self.0.as_mut_ptr()
        }
    }
}

/// H from the evaluations of A, B and C with the vectors placed as `plan`
/// says; `None` for a one-point domain, where H has no coefficients. The
/// caller holds the device's lock.
pub fn h_on_device(device: &Device, a: &[Fr], b: &[Fr], c: &[Fr], plan: HPlan) -> Result<Option<DeviceH>> {
    anyhow::ensure!(a.len() == b.len() && b.len() == c.len(), "A, B and C differ in length");
    let domain = Domain::new(a.len())?;
    if domain.size() == 1 {
        return Ok(None);
    }
    let z_inv = domain.vanishing_on_coset_inverse();
    let mut scratch = Scratch::for_plan(plan, domain.size());
    let (mut d_h, mut copy_ms) = (ptr::null_mut(), 0f32);
    // SAFETY: a, b, c hold `a.len()` scalars each, at most the domain's size;
    // `scratch` is as its `as_mut_ptr` says; on success `d_h` receives device
    // memory we own (freed by DeviceH); `copy_ms` is a plain out-value.
    check(unsafe {
        sys::cuzk_gpu_h_on_device(
            device.index,
            a.as_ptr(),
            b.as_ptr(),
            c.as_ptr(),
            a.len(),
            domain.size().trailing_zeros(),
            &z_inv,
            scratch.as_mut_ptr(),
            &mut d_h,
            &mut copy_ms,
        )
    })
    .with_context(|| format!("GPU NTT ({plan:?})"))?;
    // SAFETY: on success `d_h` holds the domain's scalars on `device`, ours.
    let scalars = unsafe { DeviceScalars::from_raw(device.index, d_h, domain.size()) };
    Ok(Some(DeviceH { scalars, copy_seconds: f64::from(copy_ms) / 1e3, abc_seconds: 0.0 }))
}

/// Device bytes a witness's H step needs beside its matrices: the witness,
/// and the plan's vectors for `rows` constraints.
pub fn witness_step_bytes(num_z: usize, rows: usize, plan: HPlan) -> usize {
    num_z * SCALAR + plan.device_bytes(rows.next_power_of_two())
}

/// H of the witness `z` (from `DeviceMatrices::new_witness`, uploaded), a,
/// b and c evaluated on the device from `m` and never leaving it; as
/// `h_on_device` otherwise. The caller holds the device's lock.
pub fn h_of_witness(m: &DeviceMatrices, z: &DeviceScalars, plan: HPlan) -> Result<Option<DeviceH>> {
    let domain = Domain::new(m.rows())?;
    if domain.size() == 1 {
        return Ok(None);
    }
    let d_z = z.range(0, m.num_z())?;
    let z_inv = domain.vanishing_on_coset_inverse();
    let mut scratch = Scratch::for_plan(plan, domain.size());
    let (mut d_h, mut copy_ms, mut abc_ms) = (ptr::null_mut(), 0f32, 0f32);
    // SAFETY: `m` is live; `d_z` holds its num_z scalars on its device
    // (checked above); `scratch` is as its `as_mut_ptr` says; on success
    // `d_h` receives device memory we own; the times are plain out-values.
    check(unsafe {
        sys::cuzk_gpu_h_of_witness(
            m.raw(),
            d_z,
            domain.size().trailing_zeros(),
            &z_inv,
            scratch.as_mut_ptr(),
            &mut d_h,
            &mut copy_ms,
            &mut abc_ms,
        )
    })
    .with_context(|| format!("GPU NTT of a witness ({plan:?})"))?;
    // SAFETY: on success `d_h` holds the domain's scalars on the matrices'
    // device, ours.
    let scalars = unsafe { DeviceScalars::from_raw(m.device.index, d_h, domain.size()) };
    let (copy_seconds, abc_seconds) = (f64::from(copy_ms) / 1e3, f64::from(abc_ms) / 1e3);
    Ok(Some(DeviceH { scalars, copy_seconds, abc_seconds }))
}

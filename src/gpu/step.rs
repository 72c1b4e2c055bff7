//! The device for one step of a proof: a guard of the step's own, or the one
//! a small proof holds from its first step to its last (see `GpuProver`).

use std::{
    ops::{Deref, DerefMut},
    sync::MutexGuard,
};

use super::priority_lock::PriorityGuard;

/// Where a step's hold on the device lives; dropping it ends the step (and
/// for `Held`, only the step: the proof keeps the device).
pub enum Step<'a> {
    Own(PriorityGuard<'static>),
    /// Always `Some`: the proof's guard, taken at its first step.
    Held(MutexGuard<'a, Option<PriorityGuard<'static>>>),
}

impl Deref for Step<'_> {
    type Target = PriorityGuard<'static>;

    fn deref(&self) -> &Self::Target {
        match self {
            Step::Own(guard) => guard,
            Step::Held(held) => held.as_ref().expect("a held step has its guard"),
        }
    }
}

impl DerefMut for Step<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        match self {
            Step::Own(guard) => guard,
            Step::Held(held) => held.as_mut().expect("a held step has its guard"),
        }
    }
}

//! Projective points to affine in batches: one field inversion for many
//! points (Montgomery's trick), where `group`'s default conversion pays one
//! per point.

use blstrs::{Fp, Fp2, G1Affine, G1Projective, G2Affine, G2Projective, Scalar as Fr};
use ff::Field;
use group::{Curve, Group};

/// Projective points in blst's Jacobian coordinates (x = X/Z², y = Y/Z³),
/// which `group`'s default `batch_normalize` converts one inversion per point.
pub(crate) trait Jacobian: Curve + Group<Scalar = Fr> + Send + Sync {
    type Base: Field;
    fn coordinates(&self) -> (Self::Base, Self::Base, Self::Base);
    fn affine_unchecked(x: Self::Base, y: Self::Base) -> Self::AffineRepr;
}

impl Jacobian for G1Projective {
    type Base = Fp;
    fn coordinates(&self) -> (Fp, Fp, Fp) {
        (self.x(), self.y(), self.z())
    }
    fn affine_unchecked(x: Fp, y: Fp) -> G1Affine {
        G1Affine::from_raw_unchecked(x, y, false)
    }
}

impl Jacobian for G2Projective {
    type Base = Fp2;
    fn coordinates(&self) -> (Fp2, Fp2, Fp2) {
        (self.x(), self.y(), self.z())
    }
    fn affine_unchecked(x: Fp2, y: Fp2) -> G2Affine {
        G2Affine::from_raw_unchecked(x, y, false)
    }
}

/// Affine forms of `proj` with one field inversion in all (Montgomery's trick).
pub(crate) fn batch_to_affine<P: Jacobian>(proj: &[P], out: &mut [P::AffineRepr]) {
    if proj.iter().any(|p| bool::from(p.is_identity())) {
        return P::batch_normalize(proj, out);
    }
    let mut prefix = Vec::with_capacity(proj.len());
    let mut acc = P::Base::ONE;
    for p in proj {
        prefix.push(acc);
        acc *= p.coordinates().2;
    }
    let mut inv = acc.invert().expect("no Z is zero: identities were excluded");
    for ((p, before), o) in proj.iter().zip(prefix).zip(out.iter_mut()).rev() {
        let (x, y, z) = p.coordinates();
        let z_inv = inv * before;
        inv *= z;
        let z_inv2 = z_inv.square();
        *o = P::affine_unchecked(x * z_inv2, y * z_inv2 * z_inv);
    }
}


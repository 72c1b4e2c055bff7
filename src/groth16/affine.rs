//! Affine arithmetic in batches: one field inversion for many points
//! (Montgomery's trick), for projective points turned affine (`group`'s
//! default conversion pays one inversion per point) and for many
//! independent affine additions (cheaper than mixed projective ones when
//! their slopes share an inversion).

use blstrs::{Fp, Fp2, G1Affine, G1Projective, G2Affine, G2Projective, Scalar as Fr};
use ff::Field;
use group::{prime::PrimeCurveAffine, Curve, Group};

/// Projective points in blst's Jacobian coordinates (x = X/Z², y = Y/Z³),
/// which `group`'s default `batch_normalize` converts one inversion per point.
pub(crate) trait Jacobian: Curve<AffineRepr: PrimeCurveAffine> + From<<Self as Curve>::AffineRepr> + Group<Scalar = Fr> + Send + Sync {
    type Base: Field;
    fn coordinates(&self) -> (Self::Base, Self::Base, Self::Base);
    fn affine_unchecked(x: Self::Base, y: Self::Base) -> Self::AffineRepr;
    /// An affine point's coordinates (not the point at infinity).
    fn xy(p: &Self::AffineRepr) -> (Self::Base, Self::Base);
}

impl Jacobian for G1Projective {
    type Base = Fp;
    fn coordinates(&self) -> (Fp, Fp, Fp) {
        (self.x(), self.y(), self.z())
    }
    fn affine_unchecked(x: Fp, y: Fp) -> G1Affine {
        G1Affine::from_raw_unchecked(x, y, false)
    }
    fn xy(p: &G1Affine) -> (Fp, Fp) {
        (p.x(), p.y())
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
    fn xy(p: &G2Affine) -> (Fp2, Fp2) {
        (p.x(), p.y())
    }
}

/// An affine accumulator: its coordinates, or `None` at infinity.
pub(crate) type Affine<P> = Option<(<P as Jacobian>::Base, <P as Jacobian>::Base)>;

/// Adds each `(lane, point)` of `adds` to `acc[lane]` (each lane at most
/// once), in affine coordinates: the slopes' denominators share one
/// inversion. A lane at infinity takes the point; a lane whose x equals the
/// point's (a doubling, or a sum at infinity) is added projectively.
pub(crate) fn add_batch<P: Jacobian>(acc: &mut [Affine<P>], adds: &[(usize, P::AffineRepr)]) {
    let mut lanes = Vec::with_capacity(adds.len());
    let mut prefix = Vec::with_capacity(adds.len());
    let mut product = P::Base::ONE;
    for (lane, point) in adds {
        let (x2, y2) = P::xy(point);
        match acc[*lane] {
            None => acc[*lane] = Some((x2, y2)),
            Some((x1, y1)) if x1 == x2 => {
                let sum = (P::from(P::affine_unchecked(x1, y1)) + P::from(*point)).to_affine();
                acc[*lane] = (!bool::from(sum.is_identity())).then(|| P::xy(&sum));
            }
            Some((x1, _)) => {
                prefix.push(product);
                product *= x2 - x1;
                lanes.push((*lane, x2, y2));
            }
        }
    }
    let mut inverse = product.invert().expect("no denominator is zero: equal x were added apart");
    for ((lane, x2, y2), before) in lanes.into_iter().zip(prefix).rev() {
        let (x1, y1) = acc[lane].expect("a lane with a denominator has a point");
        let denominator_inverse = inverse * before;
        inverse *= x2 - x1;
        let slope = (y2 - y1) * denominator_inverse;
        let x3 = slope.square() - x1 - x2;
        acc[lane] = Some((x3, slope * (x1 - x3) - y1));
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


#[cfg(test)]
mod tests {
    use group::Group;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    use super::*;

    #[test]
    fn batched_affine_additions_are_group_additions_doublings_and_cancellations_included() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let points: Vec<G1Projective> = (0..6).map(|_| G1Projective::random(&mut rng)).collect();
        let affine = |p: G1Projective| p.to_affine();
        let start = |p: G1Projective| Some(G1Projective::xy(&affine(p)));
        // Lanes: at infinity, a plain sum, a doubling, a sum to infinity, a plain sum.
        let mut acc: Vec<Affine<G1Projective>> = vec![None, start(points[0]), start(points[1]), start(points[2]), start(points[3])];
        let adds = [(0, points[4]), (1, points[5]), (2, points[1]), (3, -points[2]), (4, points[0])].map(|(lane, p)| (lane, affine(p)));
        add_batch::<G1Projective>(&mut acc, &adds);
        let expect = [points[4], points[0] + points[5], points[1].double(), G1Projective::identity(), points[3] + points[0]];
        for (lane, (got, want)) in acc.iter().zip(expect).enumerate() {
            let want = affine(want);
            let want = (!bool::from(want.is_identity())).then(|| G1Projective::xy(&want));
            assert!(*got == want, "lane {lane}");
        }
    }
}

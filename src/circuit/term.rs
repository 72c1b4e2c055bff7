//! One term of a linear combination, `coeff * value`, added the way the
//! gadgets' terms usually allow: a boolean's value 0 costs nothing, a
//! coefficient of 1 or -1 no multiplication. Shared by synthesis (terms of
//! live linear combinations) and by recorded matrices (terms by index).

use blstrs::Scalar as Fr;

/// Montgomery limbs of 1 and -1 (2^256 mod r and r - 2^256 mod r).
pub(super) const ONE: [u64; 4] = [0x0000_0001_ffff_fffe, 0x5884_b7fa_0003_4802, 0x998c_4fef_ecbc_4ff5, 0x1824_b159_acc5_056f];
pub(super) const MINUS_ONE: [u64; 4] =
    [0xffff_fffd_0000_0003, 0xfb38_ec08_fffb_13fc, 0x99ad_8818_1ce5_880f, 0x5bc8_f5f9_7cd8_77d8];

/// An element's Montgomery limbs. Synthesis compares them directly: the
/// field's `==` is constant-time, which costs a tenth of synthesis and
/// protects nothing on the prover's own machine.
#[inline]
pub(super) fn limbs(x: &Fr) -> [u64; 4] {
    blst::blst_fr::from(*x).l
}

/// `acc += coeff * value`, skipping the multiplication where the gadgets'
/// terms usually are: a boolean's value 0, a coefficient of 1 or -1. False
/// for a zero coefficient (the variable is not in the combination).
#[inline]
pub(super) fn add_term(acc: &mut Fr, value: &Fr, coeff: &Fr) -> bool {
    let c = limbs(coeff);
    if c == [0; 4] {
        return false;
    }
    if limbs(value) != [0; 4] {
        match c {
            ONE => *acc += value,
            MINUS_ONE => *acc -= value,
            _ => *acc += *value * coeff,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use ff::Field;

    #[test]
    fn the_limb_constants_are_one_and_minus_one() {
        assert_eq!(limbs(&Fr::ONE), ONE);
        assert_eq!(limbs(&-Fr::ONE), MINUS_ONE);
        assert_eq!(limbs(&Fr::ZERO), [0; 4]);
    }

    #[test]
    fn every_shortcut_of_a_term_adds_what_the_product_adds() {
        let values = [Fr::ZERO, Fr::ONE, -Fr::ONE, Fr::from(7u64), -Fr::from(1u64 << 40)];
        for value in values {
            for coeff in values {
                let mut acc = Fr::from(1000u64);
                let present = add_term(&mut acc, &value, &coeff);
                assert_eq!(acc, Fr::from(1000u64) + value * coeff, "{value:?} * {coeff:?}");
                assert_eq!(present, coeff != Fr::ZERO);
            }
        }
    }
}

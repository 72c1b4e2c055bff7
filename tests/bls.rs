//! BLS through the C ABI: keys, signing, aggregation, verification against the
//! bls-signatures crate; bad input gives NULL or false, never a crash.

use bls_signatures::{PrivateKey, Serialize, Signature};
use cuzk::ffi::{bls::*, destroy::*, types::*};

fn s(b: &[u8]) -> slice_ref_uint8_t {
    slice_ref_uint8_t { ptr: b.as_ptr(), len: b.len() }
}

/// Copies and frees a boxed array.
fn take<const N: usize, T>(p: *mut T, idx: impl Fn(&T) -> [u8; N], free: unsafe extern "C" fn(*mut T)) -> Option<[u8; N]> {
    if p.is_null() {
        return None;
    }
    // SAFETY: a live box from cuzk, freed once here.
    unsafe {
        let v = idx(&*p);
        free(p);
        Some(v)
    }
}

fn key(seed: u8) -> [u8; 32] {
    let seed = uint8_32_array_t { idx: [seed; 32] };
    // SAFETY: a local seed.
    take(unsafe { private_key_generate_with_seed(&seed) }, |k| k.idx, destroy_box_bls_private_key).unwrap()
}

fn public(k: &[u8]) -> [u8; 48] {
    // SAFETY: a local key.
    take(unsafe { private_key_public_key(s(k)) }, |k| k.idx, destroy_box_bls_public_key).unwrap()
}

fn sign(k: &[u8], m: &[u8]) -> [u8; 96] {
    // SAFETY: locals.
    take(unsafe { private_key_sign(s(k), s(m)) }, |k| k.idx, destroy_box_bls_signature).unwrap()
}

#[test]
fn sign_aggregate_verify() {
    let (k1, k2) = (key(1), key(2));
    assert_eq!(k1, key(1), "same seed, same key");
    assert_ne!(k1, k2);
    let random = take(private_key_generate(), |k| k.idx, destroy_box_bls_private_key).unwrap();
    assert_ne!(random, k1);
    // The crate agrees on keys and signatures.
    let sk1 = PrivateKey::from_bytes(&k1).unwrap();
    assert_eq!(public(&k1).to_vec(), sk1.public_key().as_bytes());
    let (m1, m2) = (b"hello".as_slice(), b"filecoin".as_slice());
    let (s1, s2) = (sign(&k1, m1), sign(&k2, m2));
    assert_eq!(s1.to_vec(), sk1.sign(m1).as_bytes());

    let flat_sigs = [s1, s2].concat();
    // SAFETY: locals.
    let agg = take(unsafe { aggregate(s(&flat_sigs)) }, |a| a.idx, destroy_box_bls_signature).unwrap();
    let keys = [public(&k1), public(&k2)].concat();
    let (d1, d2) = unsafe {
        (
            take(hash(s(m1)), |d| d.idx, destroy_box_bls_digest).unwrap(),
            take(hash(s(m2)), |d| d.idx, destroy_box_bls_digest).unwrap(),
        )
    };
    let digests = [d1, d2].concat();
    let sizes = [m1.len(), m2.len()];
    let msgs = [m1, m2].concat();
    let size_ref = slice_ref_size_t { ptr: sizes.as_ptr(), len: 2 };
    // SAFETY (all below): locals, or NULLs with length 0 / malformed on purpose.
    unsafe {
        assert!(verify(s(&agg), s(&digests), s(&keys)));
        assert!(hash_verify(s(&agg), s(&msgs), size_ref, s(&keys)));
        assert!(verify(s(&s1), s(&d1), s(&public(&k1))));
        assert!(hash_verify(s(&s1), s(m1), slice_ref_size_t { ptr: sizes.as_ptr(), len: 1 }, s(&public(&k1))));
        // Wrong key order, wrong message, truncated input, overrunning sizes.
        let swapped = [public(&k2), public(&k1)].concat();
        assert!(!verify(s(&agg), s(&digests), s(&swapped)));
        assert!(!hash_verify(s(&s1), s(m2), slice_ref_size_t { ptr: [m2.len()].as_ptr(), len: 1 }, s(&public(&k1))));
        assert!(!verify(s(&agg), s(&digests[..100]), s(&keys)));
        assert!(!verify(s(&agg), s(&digests), s(&keys[..47])));
        assert!(!hash_verify(s(&agg), s(&msgs), slice_ref_size_t { ptr: [999usize, 1].as_ptr(), len: 2 }, s(&keys)));
        assert!(!hash_verify(s(&agg), s(&msgs), slice_ref_size_t { ptr: [usize::MAX, 2].as_ptr(), len: 2 }, s(&keys)));
        assert!(!verify(s(&[0u8; 96]), s(&digests), s(&keys)));
        assert!(!verify(slice_ref_uint8_t { ptr: std::ptr::null(), len: 96 }, s(&digests), s(&keys)));
        assert!(!hash_verify(s(&agg), s(&msgs), slice_ref_size_t { ptr: std::ptr::null(), len: 2 }, s(&keys)));
        assert!(!verify(s(&agg), s(&[]), s(&[])));
        // Garbage for aggregate, sign and public key: NULL.
        assert!(aggregate(s(&[])).is_null());
        assert!(aggregate(s(&flat_sigs[..95])).is_null());
        assert!(aggregate(s(&[0xffu8; 96])).is_null());
        assert!(aggregate(slice_ref_uint8_t { ptr: std::ptr::null(), len: 96 }).is_null());
        assert!(private_key_sign(s(&[1u8; 5]), s(m1)).is_null());
        assert!(private_key_sign(s(&[0xffu8; 32]), s(m1)).is_null());
        assert!(private_key_public_key(s(&[])).is_null());
        assert!(private_key_generate_with_seed(std::ptr::null()).is_null());
        assert!(hash(slice_ref_uint8_t { ptr: std::ptr::null(), len: 1 }).is_null());
        // NULL frees are no-ops.
        destroy_box_bls_signature(std::ptr::null_mut());
        destroy_box_bls_digest(std::ptr::null_mut());
        destroy_box_bls_public_key(std::ptr::null_mut());
        destroy_box_bls_private_key(std::ptr::null_mut());
    }

    // The zero signature is the point at infinity, as the crate makes it.
    let zero = take(create_zero_signature(), |z| z.idx, destroy_box_bls_signature).unwrap();
    let crate_zero = Signature::from(<blstrs::G2Affine as group::prime::PrimeCurveAffine>::identity());
    assert_eq!(zero.to_vec(), crate_zero.as_bytes());
    assert_eq!(zero[0], 0xc0);
}

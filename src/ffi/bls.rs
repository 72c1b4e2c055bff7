//! BLS exports, delegated to the bls-signatures crate as stock: hashing,
//! signing, aggregation, verification, keys. They return boxed arrays (NULL on
//! bad input) or `bool` (false on bad input), not responses; a panic gives the
//! same NULL or false.

use bls_signatures::{
    aggregate as aggregate_sig, hash as hash_sig, verify as verify_sig, verify_messages, PrivateKey, PublicKey,
    Serialize, Signature,
};
use blstrs::{G2Affine, G2Projective};
use group::prime::PrimeCurveAffine;
use rand::{rngs::OsRng, SeedableRng};
use rand_chacha::ChaChaRng;

use super::{
    boundary::guard,
    boxed::{boxed_value, bytes, list},
    types::*,
};

const SIGNATURE_BYTES: usize = 96;
const PRIVATE_KEY_BYTES: usize = 32;
const PUBLIC_KEY_BYTES: usize = 48;
const DIGEST_BYTES: usize = 96;

fn signature_box(sig: &Signature) -> *mut uint8_96_array_t {
    let mut idx = [0u8; SIGNATURE_BYTES];
    sig.write_bytes(&mut idx.as_mut()).expect("preallocated");
    boxed_value(uint8_96_array_t { idx })
}

fn private_key_box(key: &PrivateKey) -> *mut uint8_32_array_t {
    let mut idx = [0u8; PRIVATE_KEY_BYTES];
    key.write_bytes(&mut idx.as_mut()).expect("preallocated");
    boxed_value(uint8_32_array_t { idx })
}

fn public_keys(flat: &[u8]) -> Option<Vec<PublicKey>> {
    if flat.len() % PUBLIC_KEY_BYTES != 0 {
        return None;
    }
    flat.chunks(PUBLIC_KEY_BYTES).map(|k| PublicKey::from_bytes(k).ok()).collect()
}

/// The digest of `message` (hash to G2, compressed). NULL if `message` is
/// malformed (NULL with a length). Free with `destroy_box_bls_digest`.
///
/// # Safety
/// A non-NULL `message.ptr` must be readable for `message.len` bytes.
#[no_mangle]
pub unsafe extern "C" fn hash(message: slice_ref_uint8_t) -> *mut uint8_96_array_t {
    guard("hash", std::ptr::null_mut(), || {
        // SAFETY: forwarded from this function's contract.
        let Ok(message) = (unsafe { bytes(message, "message") }) else { return std::ptr::null_mut() };
        let digest: G2Affine = hash_sig(message).into();
        boxed_value(uint8_96_array_t { idx: digest.to_compressed() })
    })
}

/// The aggregate of 96-byte signatures laid end to end. NULL on bad input (no
/// signature, a length not a multiple of 96, a byte string not a signature).
/// Free with `destroy_box_bls_signature`.
///
/// # Safety
/// A non-NULL `flattened_signatures.ptr` must be readable for its length.
#[no_mangle]
pub unsafe extern "C" fn aggregate(flattened_signatures: slice_ref_uint8_t) -> *mut uint8_96_array_t {
    guard("aggregate", std::ptr::null_mut(), || {
        // SAFETY: forwarded from this function's contract.
        let Ok(flat) = (unsafe { bytes(flattened_signatures, "flattened_signatures") }) else {
            return std::ptr::null_mut();
        };
        if flat.len() % SIGNATURE_BYTES != 0 {
            return std::ptr::null_mut();
        }
        let Some(sigs) = flat.chunks(SIGNATURE_BYTES).map(|s| Signature::from_bytes(s).ok()).collect::<Option<Vec<_>>>()
        else {
            return std::ptr::null_mut();
        };
        match aggregate_sig(&sigs) {
            Ok(sig) => signature_box(&sig),
            Err(_) => std::ptr::null_mut(),
        }
    })
}

/// Whether `signature` is the aggregate of the signatures of the digests (96
/// bytes each) by the public keys (48 bytes each), in order. False on bad input.
///
/// # Safety
/// Each non-NULL `ptr` must be readable for its length.
#[no_mangle]
pub unsafe extern "C" fn verify(
    signature: slice_ref_uint8_t,
    flattened_digests: slice_ref_uint8_t,
    flattened_public_keys: slice_ref_uint8_t,
) -> bool {
    guard("verify", false, || {
        // SAFETY (three): forwarded from this function's contract.
        let (Ok(signature), Ok(digests), Ok(keys)) = (unsafe {
            (
                bytes(signature, "signature"),
                bytes(flattened_digests, "flattened_digests"),
                bytes(flattened_public_keys, "flattened_public_keys"),
            )
        }) else {
            return false;
        };
        let Ok(signature) = Signature::from_bytes(signature) else { return false };
        if digests.len() % DIGEST_BYTES != 0 || digests.len() / DIGEST_BYTES != keys.len() / PUBLIC_KEY_BYTES {
            return false;
        }
        let Some(digests) = digests
            .chunks(DIGEST_BYTES)
            .map(|d| {
                let d: [u8; DIGEST_BYTES] = d.try_into().expect("chunk of DIGEST_BYTES");
                Option::<G2Affine>::from(G2Affine::from_compressed(&d)).map(G2Projective::from)
            })
            .collect::<Option<Vec<_>>>()
        else {
            return false;
        };
        let Some(keys) = public_keys(keys) else { return false };
        verify_sig(&signature, &digests, &keys)
    })
}

/// Whether `signature` is the aggregate of the signatures of the messages
/// (laid end to end, `message_sizes[i]` bytes each) by the public keys (48
/// bytes each), in order. False on bad input, including sizes that overrun the
/// messages (stock panics there).
///
/// # Safety
/// Each non-NULL `ptr` must be readable for its length.
#[no_mangle]
pub unsafe extern "C" fn hash_verify(
    signature: slice_ref_uint8_t,
    flattened_messages: slice_ref_uint8_t,
    message_sizes: slice_ref_size_t,
    flattened_public_keys: slice_ref_uint8_t,
) -> bool {
    guard("hash_verify", false, || {
        // SAFETY (four): forwarded from this function's contract.
        let (Ok(signature), Ok(flat), Ok(sizes), Ok(keys)) = (unsafe {
            (
                bytes(signature, "signature"),
                bytes(flattened_messages, "flattened_messages"),
                list(message_sizes.ptr, message_sizes.len, "message_sizes"),
                bytes(flattened_public_keys, "flattened_public_keys"),
            )
        }) else {
            return false;
        };
        let Ok(signature) = Signature::from_bytes(signature) else { return false };
        let mut messages = Vec::with_capacity(sizes.len());
        let mut offset = 0usize;
        for &size in sizes {
            let Some(message) = offset.checked_add(size).and_then(|end| flat.get(offset..end)) else { return false };
            messages.push(message);
            offset += size;
        }
        let Some(keys) = public_keys(keys) else { return false };
        verify_messages(&signature, &messages, &keys)
    })
}

/// A new random private key (OS randomness). Free with `destroy_box_bls_private_key`.
#[no_mangle]
pub extern "C" fn private_key_generate() -> *mut uint8_32_array_t {
    guard("private_key_generate", std::ptr::null_mut(), || private_key_box(&PrivateKey::generate(&mut OsRng)))
}

/// The private key ChaCha20 seeded with `raw_seed` gives (same seed, same key;
/// for tests). NULL if `raw_seed` is NULL. Free with `destroy_box_bls_private_key`.
///
/// # Safety
/// A non-NULL `raw_seed` must be readable.
#[no_mangle]
pub unsafe extern "C" fn private_key_generate_with_seed(raw_seed: *const uint8_32_array_t) -> *mut uint8_32_array_t {
    guard("private_key_generate_with_seed", std::ptr::null_mut(), || {
        if raw_seed.is_null() {
            return std::ptr::null_mut();
        }
        // SAFETY: non-NULL, and readable by this function's contract.
        let seed = unsafe { (*raw_seed).idx };
        private_key_box(&PrivateKey::generate(&mut ChaChaRng::from_seed(seed)))
    })
}

/// The signature of `message` by a 32-byte private key. NULL if the key is not
/// one. Free with `destroy_box_bls_signature`.
///
/// # Safety
/// Each non-NULL `ptr` must be readable for its length.
#[no_mangle]
pub unsafe extern "C" fn private_key_sign(raw_private_key: slice_ref_uint8_t, message: slice_ref_uint8_t) -> *mut uint8_96_array_t {
    guard("private_key_sign", std::ptr::null_mut(), || {
        // SAFETY (two): forwarded from this function's contract.
        let (Ok(key), Ok(message)) = (unsafe { (bytes(raw_private_key, "raw_private_key"), bytes(message, "message")) })
        else {
            return std::ptr::null_mut();
        };
        match PrivateKey::from_bytes(key) {
            Ok(key) => signature_box(&key.sign(message)),
            Err(_) => std::ptr::null_mut(),
        }
    })
}

/// The public key of a 32-byte private key. NULL if the key is not one. Free
/// with `destroy_box_bls_public_key`.
///
/// # Safety
/// A non-NULL `raw_private_key.ptr` must be readable for its length.
#[no_mangle]
pub unsafe extern "C" fn private_key_public_key(raw_private_key: slice_ref_uint8_t) -> *mut uint8_48_array_t {
    guard("private_key_public_key", std::ptr::null_mut(), || {
        // SAFETY: forwarded from this function's contract.
        let Ok(key) = (unsafe { bytes(raw_private_key, "raw_private_key") }) else { return std::ptr::null_mut() };
        let Ok(key) = PrivateKey::from_bytes(key) else { return std::ptr::null_mut() };
        let mut idx = [0u8; PUBLIC_KEY_BYTES];
        key.public_key().write_bytes(&mut idx.as_mut()).expect("preallocated");
        boxed_value(uint8_48_array_t { idx })
    })
}

/// The zero signature (the point at infinity), Filecoin's placeholder. Free with
/// `destroy_box_bls_signature`.
#[no_mangle]
pub extern "C" fn create_zero_signature() -> *mut uint8_96_array_t {
    guard("create_zero_signature", std::ptr::null_mut(), || signature_box(&Signature::from(G2Affine::identity())))
}

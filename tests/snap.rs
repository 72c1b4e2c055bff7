//! SnapDeals on a real 2 KiB sector: encode with stock, prove the update through
//! the C ABI (from vanilla proofs and from the sector files) with cuzk's prover,
//! verify with stock; bad input gets clear errors.

mod common;

use std::path::PathBuf;

use common::shape;
use cuzk::{
    api::{params, random_vanilla, sample, snap},
    circuit::{synthesize, Synthesized},
    ffi::{destroy::*, slices::*, snap::*, types::*},
};
use filecoin_proofs::SectorShape2KiB;
use filecoin_proofs_api::{update as stock, RegisteredSealProof};

struct Fixture {
    dir: PathBuf,
    update: sample::UpdatedSector,
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn fixture(seed: u64) -> Fixture {
    common::porep_params();
    params::generate(2048, &[params::Family::SnapDeals]).unwrap();
    let dir = std::env::temp_dir().join(format!("cuzk-snap-{}-{seed}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let sector = sample::seal_sector(RegisteredSealProof::StackedDrg2KiBV1_1, &dir, seed).unwrap();
    let update = sample::update_sector(&sector, &dir, seed + 1).unwrap();
    Fixture { dir, update }
}

impl Fixture {
    fn path(&self, name: &str) -> Vec<u8> {
        self.dir.join(name).to_str().unwrap().as_bytes().to_vec()
    }

    fn vanilla(&self) -> Vec<Vec<u8>> {
        let u = &self.update;
        stock::generate_partition_proofs(
            u.registered_proof,
            u.comm_r_old,
            u.comm_r_new,
            u.comm_d_new,
            self.dir.join("sealed"),
            self.dir.join("cache"),
            self.dir.join("update"),
            self.dir.join("update-cache"),
        )
        .unwrap()
        .into_iter()
        .map(|p| p.0)
        .collect()
    }

    fn stock_verifies(&self, proof: &[u8]) -> bool {
        let u = &self.update;
        stock::verify_empty_sector_update_proof(u.registered_proof, proof, u.comm_r_old, u.comm_r_new, u.comm_d_new)
            .unwrap_or_else(|e| panic!("stock's verifier failed: {e:#}"))
    }
}

const RP_2KIB: RegisteredUpdateProof_t = RegisteredUpdateProof::REGISTERED_UPDATE_PROOF_STACKED_DRG2_KI_B_V1 as i32;

fn boxed(bytes: &[u8]) -> slice_boxed_uint8_t {
    let b = alloc_boxed_slice(bytes.len());
    // SAFETY: `b` is a fresh buffer of exactly `bytes.len()` bytes.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), b.ptr, bytes.len()) };
    b
}

fn slice(b: &[u8]) -> slice_ref_uint8_t {
    slice_ref_uint8_t { ptr: b.as_ptr(), len: b.len() }
}

/// Takes a proof response apart: the proof bytes, or the error message.
fn take(resp: *mut Result_slice_boxed_uint8_t) -> Result<Vec<u8>, String> {
    assert!(!resp.is_null());
    // SAFETY: a live response, read once, then freed once.
    unsafe {
        let r = &*resp;
        let out = if r.status_code == 0 {
            Ok(std::slice::from_raw_parts(r.value.ptr, r.value.len).to_vec())
        } else {
            Err(String::from_utf8_lossy(std::slice::from_raw_parts(r.error_msg.ptr, r.error_msg.len)).into_owned())
        };
        destroy_empty_sector_update_generate_proof_response(resp);
        out
    }
}

type Comms = [uint8_32_array_t; 3];

fn comms(u: &sample::UpdatedSector) -> Comms {
    [u.comm_r_old, u.comm_r_new, u.comm_d_new].map(|idx| uint8_32_array_t { idx })
}

fn with_vanilla(rp: i32, vanilla: &[Vec<u8>], c: &Comms) -> Result<Vec<u8>, String> {
    let held: Vec<slice_boxed_uint8_t> = vanilla.iter().map(|v| boxed(v)).collect();
    let list = slice_ref_slice_boxed_uint8_t { ptr: held.as_ptr(), len: held.len() };
    // SAFETY: every pointer is to a local that outlives the call.
    let resp = unsafe { generate_empty_sector_update_proof_with_vanilla(rp, list, &c[0], &c[1], &c[2]) };
    for b in held {
        // SAFETY: allocated by `alloc_boxed_slice`, freed once.
        unsafe { destroy_boxed_slice(b) };
    }
    take(resp)
}

fn c_verify(proof: &[u8], c: &Comms) -> Result<bool, String> {
    // SAFETY: every pointer is to a local that outlives the call.
    unsafe {
        let resp = verify_empty_sector_update_proof(RP_2KIB, slice(proof), &c[0], &c[1], &c[2]);
        let r = &*resp;
        let out = if r.status_code == 0 {
            Ok(r.value)
        } else {
            Err(String::from_utf8_lossy(std::slice::from_raw_parts(r.error_msg.ptr, r.error_msg.len)).into_owned())
        };
        destroy_empty_sector_update_verify_proof_response(resp);
        out
    }
}

#[test]
fn random_update_circuits_have_the_real_updates_shape() {
    let f = fixture(37);
    let u = &f.update;
    let comms = snap::UpdateCommitments { comm_r_old: u.comm_r_old, comm_r_new: u.comm_r_new, comm_d_new: u.comm_d_new };
    let real = snap::partition_circuits::<SectorShape2KiB>(u.registered_proof, &f.vanilla(), comms).unwrap();
    let real = synthesize(real.circuits.into_iter().next().unwrap()).unwrap();
    let random = synthesize(random_vanilla::update_circuit::<SectorShape2KiB>(u.registered_proof, 7).unwrap()).unwrap();
    assert_eq!(shape(&real), shape(&random));
    assert_ne!(real.aux, random.aux, "random witnesses equal the real update's");
}

#[test]
fn update_partitions_synthesized_in_pieces_equal_the_whole() {
    let f = fixture(53);
    let u = &f.update;
    let comms = snap::UpdateCommitments { comm_r_old: u.comm_r_old, comm_r_new: u.comm_r_new, comm_d_new: u.comm_d_new };
    let circuits = || snap::partition_circuits::<SectorShape2KiB>(u.registered_proof, &f.vanilla(), comms).unwrap();
    let snap::UpdateCircuits { circuits: whole, challenges, .. } = circuits();
    assert!(challenges > 1);
    let whole = synthesize(whole.into_iter().next().unwrap()).unwrap();
    for threads in [1, 12, 8 * challenges + 3] {
        let circuit = circuits().circuits.into_iter().next().unwrap();
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let pieces = pool.install(|| snap::synthesize_partition::<Synthesized, _>(circuit, challenges)).unwrap();
        assert!(pieces == whole, "{threads} threads: pieces differ from the whole");
    }
}

#[test]
fn update_proofs_from_vanilla_and_from_files_verify_with_stock() {
    let f = fixture(41);
    let c = comms(&f.update);
    let vanilla = f.vanilla();
    let proof = with_vanilla(RP_2KIB, &vanilla, &c).unwrap();
    assert_eq!(proof.len(), 192 * vanilla.len());
    assert!(f.stock_verifies(&proof));
    assert_eq!(c_verify(&proof, &c), Ok(true));

    let paths = ["sealed", "cache", "update", "update-cache"].map(|n| f.path(n));
    // SAFETY: every pointer is to a local that outlives the call.
    let resp = unsafe {
        generate_empty_sector_update_proof(
            RP_2KIB, &c[0], &c[1], &c[2], slice(&paths[0]), slice(&paths[1]), slice(&paths[2]), slice(&paths[3]),
        )
    };
    let from_files = take(resp).unwrap();
    assert!(f.stock_verifies(&from_files));

    // Another comm_d_new: the same proof must not verify.
    let mut other = c;
    other[2].idx[0] ^= 1;
    assert_ne!(c_verify(&proof, &other), Ok(true));
}

#[test]
fn bad_update_inputs_are_errors() {
    let f = fixture(43);
    let c = comms(&f.update);
    let vanilla = f.vanilla();
    let err = |r: Result<Vec<u8>, String>| r.expect_err("an error");
    assert!(err(with_vanilla(RP_2KIB, &[], &c)).contains("empty"));
    assert!(err(with_vanilla(RP_2KIB, &[vec![7; 40]], &c)).contains("not a"));
    assert!(err(with_vanilla(99, &vanilla, &c)).contains("invalid RegisteredUpdateProof"));
    let big = RegisteredUpdateProof::REGISTERED_UPDATE_PROOF_STACKED_DRG32_GI_B_V1 as i32;
    assert!(err(with_vanilla(big, &vanilla, &c)).contains("partition"));
    let mut wrong = c;
    wrong[1].idx[3] ^= 1;
    let msg = err(with_vanilla(RP_2KIB, &vanilla, &wrong));
    assert!(msg.contains("does not verify"), "{msg}");
    let mut twice = vanilla.clone();
    twice.extend(vanilla.iter().cloned());
    assert!(err(with_vanilla(RP_2KIB, &twice, &c)).contains("takes"));

    // NULL commitments and paths.
    let list = slice_ref_slice_boxed_uint8_t { ptr: std::ptr::null(), len: 0 };
    // SAFETY: NULL pointers are part of the contract.
    let msg = err(take(unsafe {
        generate_empty_sector_update_proof_with_vanilla(RP_2KIB, list, std::ptr::null(), &c[1], &c[2])
    }));
    assert!(msg.contains("NULL") || msg.contains("empty"), "{msg}");
    let empty = slice_ref_uint8_t { ptr: std::ptr::null(), len: 0 };
    // SAFETY: as above.
    let msg = err(take(unsafe {
        generate_empty_sector_update_proof(RP_2KIB, &c[0], &c[1], &c[2], empty, empty, empty, empty)
    }));
    assert!(msg.contains("sector_key_path"), "{msg}");
    let missing = f.path("no-such-file");
    // SAFETY: as above.
    let msg = err(take(unsafe {
        generate_empty_sector_update_proof(
            RP_2KIB, &c[0], &c[1], &c[2], slice(&missing), slice(&missing), slice(&missing), slice(&missing),
        )
    }));
    assert!(!msg.is_empty());
    // A truncated proof does not verify, and says why.
    assert!(c_verify(&[1, 2, 3], &c).is_err() || c_verify(&[1, 2, 3], &c) == Ok(false));
}

/// A `Result_void_t` response taken apart (and freed with `free`).
fn void(resp: *mut Result_void_t, free: unsafe extern "C" fn(*mut Result_void_t)) -> Result<(), String> {
    assert!(!resp.is_null());
    // SAFETY: a live response, read once, then freed once.
    unsafe {
        let r = &*resp;
        let out = if r.status_code == 0 {
            Ok(())
        } else {
            Err(String::from_utf8_lossy(std::slice::from_raw_parts(r.error_msg.ptr, r.error_msg.len)).into_owned())
        };
        free(resp);
        out
    }
}

fn verify_partitions(vanilla: &[Vec<u8>], c: &Comms) -> Result<bool, String> {
    let held: Vec<slice_boxed_uint8_t> = vanilla.iter().map(|v| boxed(v)).collect();
    let list = slice_ref_slice_boxed_uint8_t { ptr: held.as_ptr(), len: held.len() };
    // SAFETY: locals outlive the call; the response and buffers are freed once.
    unsafe {
        let resp = verify_empty_sector_update_partition_proofs(RP_2KIB, list, &c[0], &c[1], &c[2]);
        let r = &*resp;
        let out = if r.status_code == 0 {
            Ok(r.value)
        } else {
            Err(String::from_utf8_lossy(std::slice::from_raw_parts(r.error_msg.ptr, r.error_msg.len)).into_owned())
        };
        destroy_verify_empty_sector_update_partition_proof_response(resp);
        for b in held {
            destroy_boxed_slice(b);
        }
        out
    }
}

#[test]
fn encode_partition_proofs_decode_remove_through_the_c_abi() {
    use std::{
        fs,
        io::{Read, Seek, SeekFrom},
        os::unix::io::AsRawFd,
    };

    use filecoin_proofs_api::{seal, UnpaddedBytesAmount};
    use rand::{RngCore, SeedableRng};

    // Stock work only (no SnapDeals SNARK here: the tests above prove from
    // stock's vanilla proofs, which are these), so no SnapDeals parameters.
    common::porep_params();
    let dir = std::env::temp_dir().join(format!("cuzk-snap-flow-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let f = Fixture { dir: dir.clone(), update: dummy_update() };
    let sector = sample::seal_sector(RegisteredSealProof::StackedDrg2KiBV1_1, &dir, 45).unwrap();
    let p = |n: &str| f.path(n);

    // New data: one piece filling the sector, staged by stock's add_piece.
    let piece_len = UnpaddedBytesAmount(2032);
    let mut data = vec![0u8; 2032];
    rand_chacha::ChaCha8Rng::seed_from_u64(46).fill_bytes(&mut data);
    let staged = fs::File::create(dir.join("staged-new")).unwrap();
    let (piece, _) = seal::add_piece(RegisteredSealProof::StackedDrg2KiBV1_1, &data[..], &staged, piece_len, &[]).unwrap();
    let staged_bytes = fs::read(dir.join("staged-new")).unwrap();
    fs::File::create(dir.join("update")).unwrap().set_len(2048).unwrap();
    fs::create_dir_all(dir.join("update-cache")).unwrap();
    let pieces = [PublicPieceInfo_t { num_bytes: u64::from(piece.size), comm_p: uint8_32_array_t { idx: piece.commitment } }];
    let piece_ref = slice_ref_PublicPieceInfo_t { ptr: pieces.as_ptr(), len: 1 };

    let names = ["update", "update-cache", "sealed", "cache", "staged-new"].map(p);
    // SAFETY: locals outlive the call; the response is freed once.
    let encoded = unsafe {
        let resp = empty_sector_update_encode_into(
            RP_2KIB, slice(&names[0]), slice(&names[1]), slice(&names[2]), slice(&names[3]), slice(&names[4]), piece_ref,
        );
        assert_eq!((*resp).status_code, 0);
        let v = &(*resp).value;
        let out = (v.comm_r_new.idx, v.comm_r_last_new.idx, v.comm_d_new.idx);
        destroy_empty_sector_update_encode_into_response(resp);
        out
    };
    assert_eq!(encoded.2, piece.commitment, "one piece filling the sector: comm_d_new is its comm_p");
    let c: Comms = [sector.comm_r, encoded.0, encoded.2].map(|idx| uint8_32_array_t { idx });

    // Vanilla partition proofs through the C ABI, checked by the C ABI and by stock.
    let paths = ["sealed", "cache", "update", "update-cache"].map(p);
    // SAFETY: locals outlive the call; the response is freed once.
    let vanilla: Vec<Vec<u8>> = unsafe {
        let resp = generate_empty_sector_update_partition_proofs(
            RP_2KIB, &c[0], &c[1], &c[2], slice(&paths[0]), slice(&paths[1]), slice(&paths[2]), slice(&paths[3]),
        );
        assert_eq!((*resp).status_code, 0);
        let v = &(*resp).value;
        let out = std::slice::from_raw_parts(v.ptr, v.len)
            .iter()
            .map(|b| std::slice::from_raw_parts(b.ptr, b.len).to_vec())
            .collect();
        destroy_generate_empty_sector_update_partition_proof_response(resp);
        out
    };
    assert_eq!(vanilla.len(), 1);
    assert_eq!(verify_partitions(&vanilla, &c), Ok(true));
    let as_stock: Vec<_> = vanilla.iter().cloned().map(filecoin_proofs_api::PartitionProofBytes).collect();
    assert!(stock::verify_partition_proofs(
        filecoin_proofs_api::RegisteredUpdateProof::StackedDrg2KiBV1,
        &as_stock,
        sector.comm_r,
        encoded.0,
        encoded.2
    )
    .unwrap());
    // They are stock's own.
    let from_stock: Vec<Vec<u8>> = stock::generate_partition_proofs(
        filecoin_proofs_api::RegisteredUpdateProof::StackedDrg2KiBV1,
        sector.comm_r,
        encoded.0,
        encoded.2,
        dir.join("sealed"),
        dir.join("cache"),
        dir.join("update"),
        dir.join("update-cache"),
    )
    .unwrap()
    .into_iter()
    .map(|p| p.0)
    .collect();
    assert_eq!(vanilla, from_stock);
    // Bad partition proofs: another comm_r_new, garbage, none.
    let mut other = c;
    other[1].idx[0] ^= 1;
    assert_ne!(verify_partitions(&vanilla, &other), Ok(true));
    assert!(verify_partitions(&[vec![9; 50]], &c).is_err());
    assert_ne!(verify_partitions(&[], &c), Ok(true));

    // Decode: the staged bytes come back, whole and by range. Stock writes into
    // an existing file.
    let out = p("decoded");
    fs::File::create(dir.join("decoded")).unwrap().set_len(2048).unwrap();
    let (sealed_path, update_path) = (p("sealed"), p("update"));
    let cache = p("cache");
    // SAFETY (all below): locals outlive the calls, responses freed once.
    unsafe {
        void(
            empty_sector_update_decode_from(RP_2KIB, slice(&out), slice(&update_path), slice(&sealed_path), slice(&cache), &c[2]),
            destroy_empty_sector_update_decode_from_response,
        )
        .unwrap();
    }
    assert_eq!(fs::read(dir.join("decoded")).unwrap(), staged_bytes);
    // By range: the caller positions both readers at the range (node 2, 10
    // nodes); comm_r is the sector key's (comm_r_old).
    let (mut input, mut key) = (fs::File::open(dir.join("update")).unwrap(), fs::File::open(dir.join("sealed")).unwrap());
    input.seek(SeekFrom::Start(64)).unwrap();
    key.seek(SeekFrom::Start(64)).unwrap();
    let ranged = fs::File::create(dir.join("ranged")).unwrap();
    let comm_d = uint8_32_array_t { idx: encoded.2 };
    let comm_r = uint8_32_array_t { idx: sector.comm_r };
    unsafe {
        void(
            empty_sector_update_decode_from_range(
                RP_2KIB, &comm_d, &comm_r, input.as_raw_fd(), key.as_raw_fd(), ranged.as_raw_fd(), 2, 10,
            ),
            destroy_empty_sector_update_decode_from_range_response,
        )
        .unwrap();
    }
    // The descriptors are still the caller's: still open and usable.
    let mut again = Vec::new();
    (&input).read_to_end(&mut again).unwrap();
    drop(ranged);
    assert_eq!(fs::read(dir.join("ranged")).unwrap(), staged_bytes[64..64 + 320]);
    let bad = unsafe {
        void(
            empty_sector_update_decode_from_range(RP_2KIB, &comm_d, &comm_r, -1, key.as_raw_fd(), 1, 0, 1),
            destroy_empty_sector_update_decode_from_range_response,
        )
    };
    assert!(bad.unwrap_err().contains("input_fd"));

    // Remove the data: the sector key comes back, equal to the sealed replica.
    fs::File::create(dir.join("key-again")).unwrap().set_len(2048).unwrap();
    fs::create_dir_all(dir.join("key-again-cache")).unwrap();
    // As in stock's own test, `replica_cache_path` is the ORIGINAL sealing cache:
    // stock reads comm_c and comm_r_last there to rebuild comm_r_old, and the
    // update's cache holds the new comm_r_last (a wrong key would come back).
    let rm = ["key-again", "key-again-cache", "update", "cache", "staged-new"].map(p);
    unsafe {
        void(
            empty_sector_update_remove_encoded_data(
                RP_2KIB, slice(&rm[0]), slice(&rm[1]), slice(&rm[2]), slice(&rm[3]), slice(&rm[4]), &c[2],
            ),
            destroy_empty_sector_update_remove_encoded_data_response,
        )
        .unwrap();
    }
    assert_eq!(fs::read(dir.join("key-again")).unwrap(), fs::read(dir.join("sealed")).unwrap());

    // Bad input: invalid enum, NULL commitment, empty and missing paths.
    let missing = p("missing");
    let empty = slice_ref_uint8_t { ptr: std::ptr::null(), len: 0 };
    unsafe {
        let e = void(
            empty_sector_update_decode_from(9, slice(&out), slice(&update_path), slice(&sealed_path), slice(&cache), &c[2]),
            destroy_empty_sector_update_decode_from_response,
        );
        assert!(e.unwrap_err().contains("invalid RegisteredUpdateProof"));
        let e = void(
            empty_sector_update_decode_from(RP_2KIB, slice(&out), slice(&missing), slice(&sealed_path), slice(&cache), &c[2]),
            destroy_empty_sector_update_decode_from_response,
        );
        assert!(e.is_err());
        let e = void(
            empty_sector_update_remove_encoded_data(
                RP_2KIB, slice(&rm[0]), slice(&rm[1]), slice(&rm[2]), slice(&rm[3]), slice(&rm[4]), std::ptr::null(),
            ),
            destroy_empty_sector_update_remove_encoded_data_response,
        );
        assert!(e.unwrap_err().contains("comm_d_new is NULL"));
        let resp = empty_sector_update_encode_into(RP_2KIB, empty, empty, empty, empty, empty, piece_ref);
        assert_ne!((*resp).status_code, 0);
        destroy_empty_sector_update_encode_into_response(resp);
        let bad_pieces = slice_ref_PublicPieceInfo_t { ptr: std::ptr::null(), len: 3 };
        let resp = empty_sector_update_encode_into(
            RP_2KIB, slice(&names[0]), slice(&names[1]), slice(&names[2]), slice(&names[3]), slice(&names[4]), bad_pieces,
        );
        assert_ne!((*resp).status_code, 0);
        destroy_empty_sector_update_encode_into_response(resp);
        let resp = generate_empty_sector_update_partition_proofs(
            RP_2KIB, &c[0], &c[1], &c[2], slice(&missing), slice(&missing), slice(&missing), slice(&missing),
        );
        assert_ne!((*resp).status_code, 0);
        assert_eq!((*resp).value.len, 0);
        destroy_generate_empty_sector_update_partition_proof_response(resp);
    }
}

/// A placeholder update for a `Fixture` that only cleans up its folder.
fn dummy_update() -> sample::UpdatedSector {
    sample::UpdatedSector {
        registered_proof: filecoin_proofs_api::RegisteredUpdateProof::StackedDrg2KiBV1,
        comm_r_old: [0; 32],
        comm_r_new: [0; 32],
        comm_d_new: [0; 32],
    }
}

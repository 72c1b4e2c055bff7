//! Sealing through the C ABI on real 2 KiB sectors: pieces written with
//! alignment, piece and data commitments, PC1, PC2, C1, then cuzk's C2 and
//! `verify_seal`; unsealing, the SDR and tree steps, faux replicas and the cache;
//! the info accessors against stock; bad input gets clear errors.

mod common;

use std::{
    fs::{self, File, OpenOptions},
    os::fd::AsRawFd,
    path::{Path, PathBuf},
};

use common::{c_program, TempDir};
use cuzk::ffi::{destroy::*, info::*, logging::init_log_fd, pieces::*, seal::*, sealing::*, types::*};
use filecoin_hashers::{poseidon::PoseidonFunction, Domain, HashFunction};
use filecoin_proofs_api::{seal as stock, PieceInfo, RegisteredPoStProof, RegisteredSealProof, UnpaddedBytesAmount};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// `Ok(value)` or `Err(error_msg)` of a response, which is then freed once.
macro_rules! outcome {
    ($resp:expr, $destroy:ident, |$r:ident| $value:expr) => {{
        let resp = $resp;
        assert!(!resp.is_null());
        // SAFETY: a live response from the export, read before it is freed once.
        unsafe {
            let $r = &*resp;
            let out = if $r.status_code == 0 {
                assert_eq!($r.error_msg.len, 0);
                Ok($value)
            } else {
                assert_eq!($r.status_code, 1);
                Err(String::from_utf8_lossy(std::slice::from_raw_parts($r.error_msg.ptr, $r.error_msg.len)).into_owned())
            };
            $destroy(resp);
            out
        }
    }};
}

/// The bytes of a boxed slice (copied).
///
/// # Safety
/// `b` must be live.
unsafe fn vec(b: &slice_boxed_uint8_t) -> Vec<u8> {
    // SAFETY: forwarded from this function's contract.
    unsafe { std::slice::from_raw_parts(b.ptr, b.len).to_vec() }
}

fn slice(b: &[u8]) -> slice_ref_uint8_t {
    slice_ref_uint8_t { ptr: b.as_ptr(), len: b.len() }
}

fn path_bytes(p: &Path) -> Vec<u8> {
    p.to_str().unwrap().as_bytes().to_vec()
}

fn a32(idx: [u8; 32]) -> uint8_32_array_t {
    uint8_32_array_t { idx }
}

const V1_1_2KIB: RegisteredSealProof_t = 5;
const SYNTH_2KIB: RegisteredSealProof_t = 10;

/// Points the stock settings (read once per process) at cuzk's parameter cache
/// before any test touches them.
fn setup() {
    cuzk::api::params::use_local_cache_unless_set();
}

/// A temporary folder for a test named `name`, after the one-time setup.
fn sealing_dir(name: &str) -> TempDir {
    setup();
    TempDir::new(&format!("sealing-{name}"))
}

fn random(len: usize, seed: u64) -> Vec<u8> {
    let mut data = vec![0u8; len];
    ChaCha8Rng::seed_from_u64(seed).fill_bytes(&mut data);
    data
}

fn write_with_alignment_c(rp: i32, src: &File, size: u64, dst: &File, existing: &[u64]) -> Result<WriteWithAlignment_t, String> {
    let existing = slice_ref_uint64_t { ptr: existing.as_ptr(), len: existing.len() };
    // SAFETY: both descriptors are open for the call; `existing` borrows a live slice.
    outcome!(unsafe { write_with_alignment(rp, src.as_raw_fd(), size, dst.as_raw_fd(), existing) }, destroy_write_with_alignment_response, |r| r.value)
}

fn piece_commitment_c(rp: i32, fd: i32, size: u64) -> Result<GeneratePieceCommitment_t, String> {
    // SAFETY: the descriptor is open (or deliberately bad) for the call.
    outcome!(unsafe { generate_piece_commitment(rp, fd, size) }, destroy_generate_piece_commitment_response, |r| r.value)
}

fn data_commitment_c(rp: i32, pieces: &[PublicPieceInfo_t]) -> Result<[u8; 32], String> {
    let pieces = slice_ref_PublicPieceInfo_t { ptr: pieces.as_ptr(), len: pieces.len() };
    // SAFETY: `pieces` borrows a live slice.
    outcome!(unsafe { generate_data_commitment(rp, pieces) }, destroy_generate_data_commitment_response, |r| r.value.idx)
}

/// A sector sealed through the C ABI up to PC2.
struct Sector {
    dir: TempDir,
    rp: i32,
    sector_id: u64,
    prover_id: [u8; 32],
    ticket: [u8; 32],
    data: Vec<u8>,
    pieces: Vec<PublicPieceInfo_t>,
    pc1: Vec<u8>,
    comm_r: [u8; 32],
    comm_d: [u8; 32],
}

impl Sector {
    fn cache(&self) -> PathBuf {
        self.dir.join("cache")
    }
    fn sealed(&self) -> PathBuf {
        self.dir.join("sealed")
    }
    fn pieces_ref(&self) -> slice_ref_PublicPieceInfo_t {
        slice_ref_PublicPieceInfo_t { ptr: self.pieces.as_ptr(), len: self.pieces.len() }
    }
    fn api_pieces(&self) -> Vec<PieceInfo> {
        self.pieces.iter().map(|p| PieceInfo { commitment: p.comm_p.idx, size: UnpaddedBytesAmount(p.num_bytes) }).collect()
    }

    fn commit_phase1(&self, seed: [u8; 32]) -> Result<Vec<u8>, String> {
        let (cache, sealed) = (path_bytes(&self.cache()), path_bytes(&self.sealed()));
        let (cr, cd, pid, t, sd) = (a32(self.comm_r), a32(self.comm_d), a32(self.prover_id), a32(self.ticket), a32(seed));
        // SAFETY: every pointer and slice borrows a live local.
        let resp = unsafe {
            seal_commit_phase1(self.rp, &cr, &cd, slice(&cache), slice(&sealed), self.sector_id, &pid, &t, &sd, self.pieces_ref())
        };
        outcome!(resp, destroy_seal_commit_phase1_response, |r| vec(&r.value))
    }

    fn prove_and_verify(&self, c1: &[u8], seed: [u8; 32]) -> bool {
        common::porep_params();
        let pid = a32(self.prover_id);
        // SAFETY: `c1` and `pid` outlive the call.
        let proof = outcome!(unsafe { seal_commit_phase2(slice(c1), self.sector_id, &pid) }, destroy_seal_commit_phase2_response, |r| vec(&r.value))
            .expect("C2");
        assert_eq!(proof.len(), 192);
        let (cr, cd, t, sd) = (a32(self.comm_r), a32(self.comm_d), a32(self.ticket), a32(seed));
        // SAFETY: every pointer borrows a live local.
        let resp = unsafe { verify_seal(self.rp, &cr, &cd, &pid, &t, &sd, self.sector_id, slice(&proof)) };
        outcome!(resp, destroy_verify_seal_response, |r| r.value).expect("verify_seal")
    }
}

/// Writes two random pieces filling a 2 KiB sector with `write_with_alignment`,
/// checks their commitments, and runs PC1 and PC2 through the C ABI.
fn seal_through_c(rp: i32, name: &str, seed: u64) -> Sector {
    let dir = sealing_dir(name);
    let (cache, staged, sealed) = (dir.join("cache"), dir.join("staged"), dir.join("sealed"));
    fs::create_dir_all(&cache).unwrap();
    File::create(&sealed).unwrap();
    let staged_file = OpenOptions::new().read(true).write(true).create(true).truncate(true).open(&staged).unwrap();

    let data = random(2032, seed);
    let mut pieces = Vec::new();
    let mut existing = Vec::new();
    for (i, half) in data.chunks(1016).enumerate() {
        let piece_path = dir.join(&format!("piece-{i}"));
        fs::write(&piece_path, half).unwrap();
        let w = write_with_alignment_c(rp, &File::open(&piece_path).unwrap(), 1016, &staged_file, &existing).expect("write_with_alignment");
        assert_eq!((w.left_alignment_unpadded, w.total_write_unpadded), (0, 1016));
        let c = piece_commitment_c(rp, File::open(&piece_path).unwrap().as_raw_fd(), 1016).expect("generate_piece_commitment");
        assert_eq!(c.comm_p.idx, w.comm_p.idx);
        assert_eq!(c.num_bytes_aligned, 1016);
        let rsp = filecoin_proofs_api::RegisteredSealProof::StackedDrg2KiBV1_1;
        let stock_p = stock::generate_piece_commitment(rsp, half, UnpaddedBytesAmount(1016)).unwrap();
        assert_eq!(stock_p.commitment, c.comm_p.idx);
        pieces.push(PublicPieceInfo_t { num_bytes: 1016, comm_p: c.comm_p });
        existing.push(1016);
    }
    assert_eq!(fs::metadata(&staged).unwrap().len(), 2048);

    let (cache_b, staged_b, sealed_b) = (path_bytes(&cache), path_bytes(&staged), path_bytes(&sealed));
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xabc);
    let (mut prover_id, mut ticket) = ([0u8; 32], [0u8; 32]);
    rng.fill_bytes(&mut prover_id);
    rng.fill_bytes(&mut ticket);
    prover_id[31] &= 0x3f;
    ticket[31] &= 0x3f;
    let sector_id = 42 + seed;
    let pr = slice_ref_PublicPieceInfo_t { ptr: pieces.as_ptr(), len: pieces.len() };
    let (pid, t) = (a32(prover_id), a32(ticket));
    // SAFETY: every pointer and slice borrows a live local.
    let resp = unsafe {
        seal_pre_commit_phase1(rp, slice(&cache_b), slice(&staged_b), slice(&sealed_b), sector_id, &pid, &t, pr)
    };
    let pc1 = outcome!(resp, destroy_seal_pre_commit_phase1_response, |r| vec(&r.value)).expect("PC1");
    let parsed: stock::SealPreCommitPhase1Output = serde_json::from_slice(&pc1).expect("PC1 output is JSON of SealPreCommitPhase1Output");
    assert_eq!(parsed.registered_proof, cuzk::api::porep::SEAL_PROOFS[rp as usize]);

    // SAFETY: every slice borrows a live local.
    let resp = unsafe { seal_pre_commit_phase2(slice(&pc1), slice(&cache_b), slice(&sealed_b)) };
    let pc2 = outcome!(resp, destroy_seal_pre_commit_phase2_response, |r| r.value).expect("PC2");
    assert_eq!(pc2.registered_proof, rp);
    Sector { dir, rp, sector_id, prover_id, ticket, data, pieces, pc1, comm_r: pc2.comm_r.idx, comm_d: pc2.comm_d.idx }
}

#[test]
fn seal_through_the_c_abi_proves_verifies_and_unseals() {
    let s = seal_through_c(V1_1_2KIB, "flow", 1);
    let rsp = RegisteredSealProof::StackedDrg2KiBV1_1;
    assert_eq!(data_commitment_c(s.rp, &s.pieces).unwrap(), s.comm_d, "comm_d of PC2 = generate_data_commitment");
    assert_eq!(stock::compute_comm_d(rsp, &s.api_pieces()).unwrap(), s.comm_d);

    // SDR again from C1's replica id gives the cache's label layers.
    let seed = [9u8; 32];
    let c1 = s.commit_phase1(seed).expect("C1");
    let parsed: stock::SealCommitPhase1Output = serde_json::from_slice(&c1).expect("C1 output is JSON of SealCommitPhase1Output");
    assert_eq!((parsed.comm_r, parsed.comm_d, parsed.seed), (s.comm_r, s.comm_d, seed));
    let sdr_dir = s.dir.join("sdr");
    fs::create_dir_all(&sdr_dir).unwrap();
    let replica_id = a32(parsed.replica_id.into_bytes().try_into().unwrap());
    let out = path_bytes(&sdr_dir);
    // SAFETY: borrows live locals.
    let resp = unsafe { generate_sdr(s.rp, slice(&out), &replica_id) };
    outcome!(resp, destroy_generate_sdr_response, |_r| ()).expect("generate_sdr");
    for layer in 1..=2 {
        let name = format!("sc-02-data-layer-{layer}.dat");
        assert_eq!(fs::read(sdr_dir.join(&name)).unwrap(), fs::read(s.cache().join(&name)).unwrap(), "{name}");
    }

    // Tree C and tree R: comm_r = H(comm_c, comm_r_last).
    let trees = s.dir.join("trees");
    fs::create_dir_all(&trees).unwrap();
    let (cache_b, trees_b, sealed_b) = (path_bytes(&s.cache()), path_bytes(&trees), path_bytes(&s.sealed()));
    // SAFETY: borrows live locals.
    let comm_c = outcome!(unsafe { generate_tree_c(s.rp, slice(&cache_b), slice(&trees_b)) }, destroy_generate_tree_c_response, |r| r.value.idx)
        .expect("generate_tree_c");
    // SAFETY: borrows live locals.
    let comm_r_last = outcome!(unsafe { generate_tree_r_last(s.rp, slice(&sealed_b), slice(&trees_b)) }, destroy_generate_tree_r_last_response, |r| r.value.idx)
        .expect("generate_tree_r_last");
    let d = |b: [u8; 32]| filecoin_hashers::poseidon::PoseidonDomain::try_from_bytes(&b).unwrap();
    let comm_r: [u8; 32] = PoseidonFunction::hash2(&d(comm_c), &d(comm_r_last)).into_bytes().try_into().unwrap();
    assert_eq!(comm_r, s.comm_r);

    // cuzk's C2 proves the C1 output, verify_seal accepts it.
    assert!(s.prove_and_verify(&c1, seed));

    // Unsealing gives back the data, whole or a range, into the caller's fd.
    let unseal = |offset: u64, len: u64| -> Result<Vec<u8>, String> {
        let out_path = s.dir.join(&format!("unsealed-{offset}-{len}"));
        let out = File::create(&out_path).unwrap();
        let sealed = File::open(s.sealed()).unwrap();
        let (pid, t, cd) = (a32(s.prover_id), a32(s.ticket), a32(s.comm_d));
        // SAFETY: borrows live locals; both descriptors stay open.
        let resp = unsafe {
            unseal_range(s.rp, slice(&cache_b), sealed.as_raw_fd(), out.as_raw_fd(), s.sector_id, &pid, &t, &cd, offset, len)
        };
        outcome!(resp, destroy_unseal_range_response, |_r| ())?;
        drop(out);
        Ok(fs::read(out_path).unwrap())
    };
    assert_eq!(unseal(0, 2032).unwrap(), s.data);
    assert_eq!(unseal(1016, 1016).unwrap(), s.data[1016..]);
    assert_eq!(unseal(127, 254).unwrap(), s.data[127..381]);

    // clear_cache drops the layers and keeps what PoSt needs.
    let layer = s.cache().join("sc-02-data-layer-1.dat");
    assert!(layer.exists());
    // SAFETY: borrows a live local.
    outcome!(unsafe { clear_cache(slice(&cache_b)) }, destroy_clear_cache_response, |_r| ()).expect("clear_cache");
    assert!(!layer.exists());
    assert!(s.cache().join("p_aux").exists() && s.cache().join("t_aux").exists());
    let _ = &s.pc1;
}

#[test]
fn synthetic_porep_through_the_c_abi() {
    let s = seal_through_c(SYNTH_2KIB, "synth", 2);
    let (cache_b, sealed_b) = (path_bytes(&s.cache()), path_bytes(&s.sealed()));
    let (cr, cd, pid, t) = (a32(s.comm_r), a32(s.comm_d), a32(s.prover_id), a32(s.ticket));
    let synth = |rp: i32| {
        // SAFETY: every pointer and slice borrows a live local.
        let resp = unsafe {
            generate_synth_proofs(rp, &cr, &cd, slice(&cache_b), slice(&sealed_b), s.sector_id, &pid, &t, s.pieces_ref())
        };
        outcome!(resp, destroy_generate_synth_proofs_response, |_r| ())
    };
    let err = synth(V1_1_2KIB).unwrap_err();
    assert!(err.contains("synthetic porep feature MUST be enabled"), "{err}");
    synth(SYNTH_2KIB).expect("generate_synth_proofs");
    let synth_file = s.cache().join("syn-porep-vanilla-proofs.dat");
    assert!(synth_file.exists(), "synthetic proofs are stored in the cache");
    // The layers are not needed any more: C1 reads the stored proofs.
    let seed = [3u8; 32];
    let c1 = s.commit_phase1(seed).expect("C1 from synthetic proofs");
    // SAFETY: borrows a live local.
    outcome!(unsafe { clear_synthetic_proofs(slice(&cache_b)) }, destroy_clear_cache_response, |_r| ()).expect("clear_synthetic_proofs");
    assert!(!synth_file.exists());
    assert!(s.prove_and_verify(&c1, seed));
}

#[test]
fn write_with_alignment_and_without_match_stock() {
    let dir = sealing_dir("align");
    let rsp = RegisteredSealProof::StackedDrg2KiBV1_1;
    let small = random(508, 7);
    let big = random(1016, 8);
    fs::write(dir.join("small"), &small).unwrap();
    fs::write(dir.join("big"), &big).unwrap();
    let ours = OpenOptions::new().read(true).write(true).create(true).truncate(true).open(dir.join("ours")).unwrap();
    let a = write_with_alignment_c(V1_1_2KIB, &File::open(dir.join("small")).unwrap(), 508, &ours, &[]).unwrap();
    assert_eq!((a.left_alignment_unpadded, a.total_write_unpadded), (0, 508));
    let b = write_with_alignment_c(V1_1_2KIB, &File::open(dir.join("big")).unwrap(), 1016, &ours, &[508]).unwrap();
    assert_eq!((b.left_alignment_unpadded, b.total_write_unpadded), (508, 1524), "a 1 KiB piece after 512 B is aligned");

    let theirs = OpenOptions::new().read(true).write(true).create(true).truncate(true).open(dir.join("theirs")).unwrap();
    let (pa, _) = stock::add_piece(rsp, &small[..], &theirs, UnpaddedBytesAmount(508), &[]).unwrap();
    let (pb, wb) = stock::add_piece(rsp, &big[..], &theirs, UnpaddedBytesAmount(1016), &[UnpaddedBytesAmount(508)]).unwrap();
    assert_eq!((a.comm_p.idx, b.comm_p.idx, b.total_write_unpadded), (pa.commitment, pb.commitment, u64::from(wb)));
    assert_eq!(fs::read(dir.join("ours")).unwrap(), fs::read(dir.join("theirs")).unwrap());

    let out = File::create(dir.join("plain")).unwrap();
    let src = File::open(dir.join("big")).unwrap();
    // SAFETY: both descriptors are open for the call.
    let w = outcome!(unsafe { write_without_alignment(V1_1_2KIB, src.as_raw_fd(), 1016, out.as_raw_fd()) }, destroy_write_without_alignment_response, |r| r.value)
        .unwrap();
    assert_eq!((w.comm_p.idx, w.total_write_unpadded), (pb.commitment, 1016));
    assert_eq!(fs::metadata(dir.join("plain")).unwrap().len(), 1024);

    // A whole sector's data commitment, stock's padding included.
    let pieces = [PublicPieceInfo_t { num_bytes: 508, comm_p: a.comm_p }, PublicPieceInfo_t { num_bytes: 1016, comm_p: b.comm_p }];
    let api: Vec<PieceInfo> = pieces.iter().map(|p| PieceInfo { commitment: p.comm_p.idx, size: UnpaddedBytesAmount(p.num_bytes) }).collect();
    assert_eq!(data_commitment_c(V1_1_2KIB, &pieces), stock::compute_comm_d(rsp, &api).map_err(|e| e.to_string()));
}

#[test]
fn fauxrep_and_fauxrep2_make_replicas() {
    let dir = sealing_dir("faux");
    let (cache, sealed, cache2) = (dir.join("cache"), dir.join("sealed"), dir.join("cache2"));
    fs::create_dir_all(&cache).unwrap();
    fs::create_dir_all(&cache2).unwrap();
    let (cache_b, sealed_b, cache2_b) = (path_bytes(&cache), path_bytes(&sealed), path_bytes(&cache2));
    // SAFETY: borrows live locals.
    let comm_r = outcome!(unsafe { fauxrep(V1_1_2KIB, slice(&cache_b), slice(&sealed_b)) }, destroy_fauxrep_response, |r| r.value.idx)
        .expect("fauxrep");
    assert_ne!(comm_r, [0; 32]);
    assert_eq!(fs::metadata(&sealed).unwrap().len(), 2048);
    let p_aux = path_bytes(&cache.join("p_aux"));
    // SAFETY: borrows live locals.
    let comm_r2 = outcome!(unsafe { fauxrep2(V1_1_2KIB, slice(&cache2_b), slice(&p_aux)) }, destroy_fauxrep_response, |r| r.value.idx)
        .expect("fauxrep2");
    assert_ne!(comm_r2, [0; 32]);
    assert!(cache2.join("p_aux").exists());
    let missing = path_bytes(&dir.join("nope/p_aux"));
    // SAFETY: borrows live locals.
    let err = outcome!(unsafe { fauxrep2(V1_1_2KIB, slice(&cache2_b), slice(&missing)) }, destroy_fauxrep_response, |r| r.value.idx)
        .unwrap_err();
    assert!(!err.is_empty());
}

fn string_c(resp: *mut Result_slice_boxed_uint8_t) -> Result<String, String> {
    outcome!(resp, destroy_string_response, |r| String::from_utf8(vec(&r.value)).unwrap())
}

/// Same value, or both errors with stock's message first (the `Debug` form
/// that most exports use may add a cause chain and a backtrace).
fn same<T: PartialEq + std::fmt::Debug>(ours: Result<T, String>, stock: anyhow::Result<T>, what: &str) {
    match (ours, stock) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "{what}"),
        (Err(a), Err(b)) => assert!(a.starts_with(&b.to_string()), "{what}: {a} / {b}"),
        (a, b) => panic!("{what}: ours {a:?}, stock {b:?}"),
    }
}

#[test]
fn info_accessors_return_what_stock_returns() {
    setup();
    let seal = cuzk::api::porep::SEAL_PROOFS;
    for (v, rp) in seal.iter().copied().enumerate() {
        let v = v as i32;
        same(string_c(get_seal_params_path(v)), rp.cache_params_path().map(|p| p.to_string_lossy().into_owned()), "params path");
        same(string_c(get_seal_verifying_key_path(v)), rp.cache_verifying_key_path().map(|p| p.to_string_lossy().into_owned()), "vk path");
        same(string_c(get_seal_params_cid(v)), rp.params_cid(), "params cid");
        same(string_c(get_seal_verifying_key_cid(v)), rp.verifying_key_cid(), "vk cid");
        same(string_c(get_seal_circuit_identifier(v)), rp.circuit_identifier(), "circuit id");
        assert_eq!(string_c(get_seal_version(v)).unwrap(), format!("{rp:?}"));
        assert_eq!(get_max_user_bytes_per_staged_sector(v), u64::from(UnpaddedBytesAmount::from(rp.sector_size())));
    }
    assert_eq!(string_c(get_seal_version(5)).unwrap(), "StackedDrg2KiBV1_1");
    assert_eq!(get_max_user_bytes_per_staged_sector(0), 2032);
    assert_eq!(get_max_user_bytes_per_staged_sector(3), 34359738368 / 128 * 127);
    for bad in [-1, 20, i32::MIN] {
        assert_eq!(get_max_user_bytes_per_staged_sector(bad), 0);
        assert!(string_c(get_seal_params_path(bad)).unwrap_err().contains("invalid RegisteredSealProof"));
        assert!(string_c(get_seal_version(bad)).unwrap_err().contains("invalid RegisteredSealProof"));
    }
    // The CID of a production circuit comes from the published manifest.
    assert!(string_c(get_seal_params_cid(8)).unwrap().starts_with("Qm"));

    let post = cuzk::api::params::POST_PROOFS;
    for (v, rp) in post.iter().copied().enumerate() {
        let v = v as i32;
        same(string_c(get_post_params_path(v)), rp.cache_params_path().map(|p| p.to_string_lossy().into_owned()), "params path");
        same(string_c(get_post_verifying_key_path(v)), rp.cache_verifying_key_path().map(|p| p.to_string_lossy().into_owned()), "vk path");
        same(string_c(get_post_params_cid(v)), rp.params_cid(), "params cid");
        same(string_c(get_post_verifying_key_cid(v)), rp.verifying_key_cid(), "vk cid");
        same(string_c(get_post_circuit_identifier(v)), rp.circuit_identifier(), "circuit id");
        assert_eq!(string_c(get_post_version(v)).unwrap(), format!("{rp:?}"));
        for n in [0usize, 1, 2, 2349, 2350, 2351, 100_000] {
            let ours = outcome!(get_num_partition_for_fallback_post(v, n), destroy_get_num_partition_for_fallback_post_response, |r| r.value);
            same(ours, filecoin_proofs_api::post::get_num_partition_for_fallback_post(rp, n), "partitions");
        }
    }
    // Window V1_1 (C) is api V1_2, as stock.
    assert_eq!(string_c(get_post_version(10)).unwrap(), "StackedDrgWindow2KiBV1_2");
    assert_eq!(string_c(get_post_version(5)).unwrap(), "StackedDrgWindow2KiBV1");
    assert_eq!(post[13], RegisteredPoStProof::StackedDrgWindow32GiBV1_2);
    let parts = |v, n| outcome!(get_num_partition_for_fallback_post(v, n), destroy_get_num_partition_for_fallback_post_response, |r| r.value);
    assert_eq!(parts(13, 0), Ok(1));
    assert_eq!(parts(13, 2349), Ok(1));
    assert_eq!(parts(13, 2350), Ok(2));
    assert!(parts(3, 1).unwrap_err().contains("invalid post type"), "Winning is refused");
    assert!(parts(15, 1).unwrap_err().contains("invalid RegisteredPoStProof"));
    for bad in [-1, 15] {
        assert!(string_c(get_post_version(bad)).unwrap_err().contains("invalid RegisteredPoStProof"));
    }
}

#[test]
fn init_log_fd_only_works_as_the_first_call() {
    let err = outcome!(init_log_fd(-1), destroy_init_log_fd_response, |_r| ()).unwrap_err();
    assert!(err.contains("not a file descriptor"), "{err}");
    let err = outcome!(init_log_fd(1 << 20), destroy_init_log_fd_response, |_r| ()).unwrap_err();
    assert!(err.contains("not open"), "{err}");
    // Any other call but the info accessors sets up the stderr logger first.
    let _ = data_commitment_c(-1, &[]);
    let dir = sealing_dir("log");
    let file = File::create(dir.join("log")).unwrap();
    let err = outcome!(init_log_fd(file.as_raw_fd()), destroy_init_log_fd_response, |_r| ()).unwrap_err();
    assert!(err.contains("There is already an active logger"), "{err}");
    // The refused descriptor is still the caller's, and open.
    // SAFETY: F_GETFD only reads flags.
    assert_ne!(unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETFD) }, -1);
}

#[test]
fn bad_inputs_are_errors_that_say_what_is_wrong() {
    let dir = sealing_dir("bad");
    let data = dir.join("data");
    fs::write(&data, random(1016, 3)).unwrap();
    let src = File::open(&data).unwrap();
    let dst = OpenOptions::new().read(true).write(true).create(true).truncate(true).open(dir.join("dst")).unwrap();

    // Enum values, descriptors and slices.
    for bad in [-1, 20] {
        let err = write_with_alignment_c(bad, &src, 1016, &dst, &[]).unwrap_err();
        assert!(err.contains("invalid RegisteredSealProof"), "{err}");
        assert!(piece_commitment_c(bad, src.as_raw_fd(), 1016).unwrap_err().contains("invalid RegisteredSealProof"));
        assert!(data_commitment_c(bad, &[]).unwrap_err().contains("invalid RegisteredSealProof"));
    }
    let wrap = |src_fd: i32, dst_fd: i32, existing: slice_ref_uint64_t| {
        // SAFETY: bad descriptors and slices are part of the contract under test.
        outcome!(unsafe { write_with_alignment(V1_1_2KIB, src_fd, 1016, dst_fd, existing) }, destroy_write_with_alignment_response, |r| r.value)
    };
    let none = slice_ref_uint64_t { ptr: std::ptr::null(), len: 0 };
    assert!(wrap(-1, dst.as_raw_fd(), none).unwrap_err().contains("src_fd: -1 is not a file descriptor"));
    assert!(wrap(src.as_raw_fd(), 1 << 20, none).unwrap_err().contains("dst_fd: file descriptor 1048576 is not open"));
    let err = wrap(src.as_raw_fd(), dst.as_raw_fd(), slice_ref_uint64_t { ptr: std::ptr::null(), len: 3 }).unwrap_err();
    assert!(err.contains("existing_piece_sizes: NULL pointer with length 3"), "{err}");
    // More bytes asked for than the source holds; a size that is not a piece size.
    assert!(write_with_alignment_c(V1_1_2KIB, &src, 2032, &dst, &[]).is_err());
    assert!(piece_commitment_c(V1_1_2KIB, src.as_raw_fd(), 1000).is_err());
    assert!(piece_commitment_c(V1_1_2KIB, -5, 1016).unwrap_err().contains("piece_fd_raw: -5 is not a file descriptor"));
    let err = outcome!(unsafe { generate_data_commitment(V1_1_2KIB, slice_ref_PublicPieceInfo_t { ptr: std::ptr::null(), len: 1 }) }, destroy_generate_data_commitment_response, |r| r.value.idx)
        .unwrap_err();
    assert!(err.contains("pieces: NULL pointer"), "{err}");
    // Pieces larger than the sector.
    let huge = [PublicPieceInfo_t { num_bytes: 4064, comm_p: a32([1; 32]) }];
    assert!(data_commitment_c(V1_1_2KIB, &huge).is_err());

    // PC1 / PC2 / C1 with missing or malformed inputs.
    let (p, missing) = (path_bytes(&dir.0), path_bytes(&dir.join("missing/nothing")));
    let id = a32([1; 32]);
    let no_pieces = slice_ref_PublicPieceInfo_t { ptr: std::ptr::null(), len: 0 };
    let pc1 = |rp: i32, cache: slice_ref_uint8_t, prover: *const uint8_32_array_t| {
        // SAFETY: NULLs and bad slices are part of the contract under test; the rest borrow live locals.
        let resp = unsafe { seal_pre_commit_phase1(rp, cache, slice(&missing), slice(&missing), 1, prover, &id, no_pieces) };
        outcome!(resp, destroy_seal_pre_commit_phase1_response, |r| vec(&r.value))
    };
    assert!(pc1(20, slice(&p), &id).unwrap_err().contains("invalid RegisteredSealProof value 20"));
    assert!(pc1(V1_1_2KIB, slice(&p), std::ptr::null()).unwrap_err().contains("prover_id is NULL"));
    assert!(pc1(V1_1_2KIB, slice(&[]), &id).unwrap_err().contains("cache_dir_path is empty"));
    assert!(pc1(V1_1_2KIB, slice(&[0xff, 0xfe]), &id).unwrap_err().contains("cache_dir_path is not UTF-8"));
    assert!(pc1(V1_1_2KIB, slice_ref_uint8_t { ptr: std::ptr::null(), len: 4 }, &id).unwrap_err().contains("NULL pointer"));
    assert!(pc1(V1_1_2KIB, slice(&p), &id).is_err(), "missing staged file");

    let pc2 = |json: &[u8]| {
        // SAFETY: borrows live locals.
        let resp = unsafe { seal_pre_commit_phase2(slice(json), slice(&p), slice(&missing)) };
        outcome!(resp, destroy_seal_pre_commit_phase2_response, |r| r.value.comm_r.idx)
    };
    assert!(pc2(b"").unwrap_err().contains("seal_pre_commit_phase1_output is empty"));
    assert!(pc2(b"{not json").unwrap_err().contains("not a valid PC1 output"));
    assert!(pc2(br#"{"registered_proof":"StackedDrg2KiBV1_1"}"#).unwrap_err().contains("not a valid PC1 output"));

    let z = a32([0; 32]);
    // SAFETY: NULL seed is part of the contract under test; the rest borrow live locals.
    let resp = unsafe { seal_commit_phase1(V1_1_2KIB, &z, &z, slice(&p), slice(&missing), 1, &id, &id, std::ptr::null(), no_pieces) };
    assert!(outcome!(resp, destroy_seal_commit_phase1_response, |r| vec(&r.value)).unwrap_err().contains("seed is NULL"));
    // SAFETY: borrows live locals.
    let resp = unsafe { seal_commit_phase1(V1_1_2KIB, &z, &z, slice(&missing), slice(&missing), 1, &id, &id, &id, no_pieces) };
    assert!(outcome!(resp, destroy_seal_commit_phase1_response, |r| vec(&r.value)).is_err(), "missing cache");

    // Unsealing, SDR, trees, cache with bad inputs.
    // SAFETY: bad descriptors are part of the contract under test; the rest borrow live locals.
    let resp = unsafe { unseal_range(V1_1_2KIB, slice(&p), -1, dst.as_raw_fd(), 1, &id, &id, &id, 0, 2032) };
    assert!(outcome!(resp, destroy_unseal_range_response, |_r| ()).unwrap_err().contains("sealed_sector_fd_raw: -1"));
    let unseal = |sealed: &File, offset: u64, amount: u64| {
        // SAFETY: both descriptors are open for the call; the rest borrow live locals.
        let resp = unsafe { unseal_range(V1_1_2KIB, slice(&p), sealed.as_raw_fd(), dst.as_raw_fd(), 1, &id, &id, &id, offset, amount) };
        outcome!(resp, destroy_unseal_range_response, |_r| ()).unwrap_err()
    };
    let err = unseal(&src, 0, 2032);
    assert!(err.contains("the sealed sector is 1016 bytes, not 2048"), "{err}");
    let full = File::open(dir.join("dst")).unwrap();
    dst.set_len(2048).unwrap();
    for (offset, amount) in [(0, 2033), (2032, 1), (u64::MAX, 2)] {
        let err = unseal(&full, offset, amount);
        assert!(err.contains("ends past the sector's 2032 unpadded bytes"), "{err}");
    }
    // SAFETY: NULL replica id is part of the contract under test.
    let resp = unsafe { generate_sdr(V1_1_2KIB, slice(&p), std::ptr::null()) };
    assert!(outcome!(resp, destroy_generate_sdr_response, |_r| ()).unwrap_err().contains("replica_id is NULL"));
    // SAFETY: borrows live locals.
    let resp = unsafe { generate_tree_c(V1_1_2KIB, slice(&missing), slice(&p)) };
    assert!(outcome!(resp, destroy_generate_tree_c_response, |r| r.value.idx).is_err(), "no layers");
    // SAFETY: borrows live locals.
    let resp = unsafe { generate_tree_r_last(V1_1_2KIB, slice(&missing), slice(&p)) };
    assert!(outcome!(resp, destroy_generate_tree_r_last_response, |r| r.value.idx).is_err(), "no replica");
    // SAFETY: borrows live locals.
    let resp = unsafe { fauxrep(-3, slice(&p), slice(&missing)) };
    assert!(outcome!(resp, destroy_fauxrep_response, |r| r.value.idx).unwrap_err().contains("invalid RegisteredSealProof"));
    // SAFETY: malformed slice is part of the contract under test.
    let resp = unsafe { clear_cache(slice_ref_uint8_t { ptr: std::ptr::null(), len: 1 }) };
    assert!(outcome!(resp, destroy_clear_cache_response, |_r| ()).unwrap_err().contains("cache_dir_path: NULL pointer"));
    // SAFETY: borrows a live local.
    let resp = unsafe { clear_synthetic_proofs(slice(&[])) };
    assert!(outcome!(resp, destroy_clear_cache_response, |_r| ()).unwrap_err().contains("cache_dir_path is empty"));

    // The descriptors the caller passed are still open: nothing closed them.
    for fd in [src.as_raw_fd(), dst.as_raw_fd()] {
        // SAFETY: F_GETFD only reads flags.
        assert_ne!(unsafe { libc::fcntl(fd, libc::F_GETFD) }, -1);
    }
    // Every new destructor accepts NULL.
    // SAFETY: NULL is part of every destructor's contract.
    unsafe {
        destroy_write_with_alignment_response(std::ptr::null_mut());
        destroy_write_without_alignment_response(std::ptr::null_mut());
        destroy_generate_piece_commitment_response(std::ptr::null_mut());
        destroy_generate_data_commitment_response(std::ptr::null_mut());
        destroy_seal_pre_commit_phase1_response(std::ptr::null_mut());
        destroy_seal_pre_commit_phase2_response(std::ptr::null_mut());
        destroy_seal_commit_phase1_response(std::ptr::null_mut());
        destroy_unseal_range_response(std::ptr::null_mut());
        destroy_generate_synth_proofs_response(std::ptr::null_mut());
        destroy_clear_cache_response(std::ptr::null_mut());
        destroy_fauxrep_response(std::ptr::null_mut());
        destroy_generate_sdr_response(std::ptr::null_mut());
        destroy_generate_tree_c_response(std::ptr::null_mut());
        destroy_generate_tree_r_last_response(std::ptr::null_mut());
        destroy_finalize_ticket_response(std::ptr::null_mut());
        destroy_string_response(std::ptr::null_mut());
        destroy_get_num_partition_for_fallback_post_response(std::ptr::null_mut());
        destroy_init_log_fd_response(std::ptr::null_mut());
    }
}

/// tests/c/sealing_flow.c under the sanitizers, its log sent to a descriptor.
#[test]
fn c_program_drives_the_sealing_surface_under_asan() {
    let dir = sealing_dir("c");
    let data = random(2032, 31);
    fs::write(dir.join("piece0"), &data[..1016]).unwrap();
    fs::write(dir.join("piece1"), &data[1016..]).unwrap();
    fs::create_dir_all(dir.join("cache")).unwrap();
    File::create(dir.join("sealed")).unwrap();

    let exe = c_program::build("sealing_flow", &dir.0);
    let out = c_program::run(&exe, |cmd| {
        cmd.arg(&dir.0)
            .env("FIL_PROOFS_PARAMETER_CACHE", cuzk::api::params::use_local_cache_unless_set())
            .env("RUST_LOG", "debug")
    });
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("seal_pre_commit_phase1: start"), "the log went to stderr, not the descriptor");
    let stdout = c_program::succeeded(&out);
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
    println!("{stdout}");
}

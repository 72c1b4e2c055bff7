//! Winning and Window PoSt from vanilla proofs of a real 2 KiB sector, proved by
//! cuzk and verified by the stock verifiers; bad input gets clear errors.

mod common;

use std::collections::BTreeMap;

use common::shape;
use cuzk::{
    api::{params, post, random_vanilla, sample},
    circuit::synthesize,
    engine::CallContext,
};
use filecoin_proofs::{PoStType, SectorShape2KiB};
use filecoin_proofs_api::{
    post as stock, PublicReplicaInfo, RegisteredPoStProof, RegisteredSealProof, SectorId,
};

struct Fixture {
    sector: sample::SealedSector,
    dir: std::path::PathBuf,
    randomness: [u8; 32],
}

fn fixture(seed: u64) -> Fixture {
    common::porep_params();
    params::generate(2048, &[params::Family::WinningPost, params::Family::WindowPost]).unwrap();
    let dir = std::env::temp_dir().join(format!("cuzk-post-{}-{seed}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let sector = sample::seal_sector(RegisteredSealProof::StackedDrg2KiBV1_1, &dir, seed).unwrap();
    let mut randomness = [seed as u8; 32];
    randomness[31] &= 0x3f;
    Fixture { sector, dir, randomness }
}

impl Fixture {
    fn vanilla(&self, rp: RegisteredPoStProof) -> Vec<u8> {
        self.sector.post_vanilla_proof(rp, self.randomness, &self.dir).unwrap()
    }

    fn replicas(&self, rp: RegisteredPoStProof) -> BTreeMap<SectorId, PublicReplicaInfo> {
        BTreeMap::from([(SectorId::from(self.sector.sector_id), PublicReplicaInfo::new(rp, self.sector.comm_r))])
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn random_post_circuits_have_the_sealed_sectors_shape() {
    let f = fixture(29);
    for rp in [RegisteredPoStProof::StackedDrgWinning2KiBV1, RegisteredPoStProof::StackedDrgWindow2KiBV1_2] {
        let vanilla = [f.vanilla(rp)];
        let real = post::partition_circuits::<SectorShape2KiB>(rp, f.randomness, f.sector.prover_id, &vanilla, post::Scope::All)
            .unwrap();
        assert_eq!(real.circuits.len(), 1, "{rp:?}: one partition");
        let real = synthesize(real.circuits.into_iter().next().unwrap()).unwrap();
        let random = synthesize(random_vanilla::post_circuit::<SectorShape2KiB>(rp, 7).unwrap()).unwrap();
        assert_eq!(shape(&real), shape(&random), "{rp:?}");
        assert_ne!(real.aux, random.aux, "{rp:?}: random witnesses equal the sealed sector's");
    }
}

#[test]
fn winning_post_verifies_with_stock() {
    let f = fixture(31);
    let rp = RegisteredPoStProof::StackedDrgWinning2KiBV1;
    let proof = post::post_with_vanilla(&CallContext::blocking(), PoStType::Winning, rp, f.randomness, f.sector.prover_id, &[f.vanilla(rp)]).unwrap();
    assert_eq!(proof.len(), 192);
    assert!(stock::verify_winning_post(&f.randomness, &proof, &f.replicas(rp), f.sector.prover_id).unwrap());
    let mut other = f.randomness;
    other[0] ^= 1;
    assert!(!stock::verify_winning_post(&other, &proof, &f.replicas(rp), f.sector.prover_id).unwrap_or(false));
}

#[test]
fn window_post_whole_and_per_partition_verify_with_stock() {
    let f = fixture(32);
    let rp = RegisteredPoStProof::StackedDrgWindow2KiBV1_2;
    let vanilla = vec![f.vanilla(rp)];
    let whole = post::post_with_vanilla(&CallContext::blocking(), PoStType::Window, rp, f.randomness, f.sector.prover_id, &vanilla).unwrap();
    assert_eq!(whole.len(), 192);
    assert!(stock::verify_window_post(&f.randomness, &[(rp, &whole)], &f.replicas(rp), f.sector.prover_id).unwrap());
    let part = post::single_window_post_with_vanilla(&CallContext::blocking(), rp, f.randomness, f.sector.prover_id, &vanilla, 0).unwrap();
    assert!(stock::verify_window_post(&f.randomness, &[(rp, &part)], &f.replicas(rp), f.sector.prover_id).unwrap());
}

#[test]
fn bad_post_inputs_are_errors() {
    let f = fixture(33);
    let (win, window) = (RegisteredPoStProof::StackedDrgWinning2KiBV1, RegisteredPoStProof::StackedDrgWindow2KiBV1_2);
    let vanilla = f.vanilla(win);
    let pid = f.sector.prover_id;
    let err = |r: anyhow::Result<Vec<u8>>| format!("{:#}", r.unwrap_err());
    assert!(err(post::post_with_vanilla(&CallContext::blocking(), PoStType::Winning, window, f.randomness, pid, std::slice::from_ref(&vanilla))).contains("not a Winning"));
    assert!(err(post::post_with_vanilla(&CallContext::blocking(), PoStType::Window, win, f.randomness, pid, std::slice::from_ref(&vanilla))).contains("not a Window"));
    assert!(err(post::post_with_vanilla(&CallContext::blocking(), PoStType::Winning, win, f.randomness, pid, &[])).contains("empty"));
    assert!(err(post::post_with_vanilla(&CallContext::blocking(), PoStType::Winning, win, f.randomness, pid, &[vec![1, 2, 3]])).contains("not a"));
    let big = RegisteredPoStProof::StackedDrgWinning32GiBV1;
    let msg = err(post::post_with_vanilla(&CallContext::blocking(), PoStType::Winning, big, f.randomness, pid, std::slice::from_ref(&vanilla)));
    assert!(msg.contains("vanilla"), "{msg}");
    assert!(err(post::post_with_vanilla(&CallContext::blocking(), PoStType::Winning, win, f.randomness, pid, &[vanilla.clone(), vanilla])).contains("takes 1"));
}

mod c_abi {
    use super::*;
    use cuzk::ffi::{destroy::*, post::*, slices::*, types::*};
    use filecoin_proofs_api::RegisteredPoStProof;

    fn boxed(bytes: &[u8]) -> slice_boxed_uint8_t {
        let b = alloc_boxed_slice(bytes.len());
        // SAFETY: `b` is a fresh buffer of exactly `bytes.len()` bytes.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), b.ptr, bytes.len()) };
        b
    }

    fn message(status: i32, msg: &slice_boxed_uint8_t) -> Result<(), String> {
        if status == 0 {
            return Ok(());
        }
        // SAFETY: a live error message of a live response.
        Err(String::from_utf8_lossy(unsafe { std::slice::from_raw_parts(msg.ptr, msg.len) }).into_owned())
    }

    /// Copies the bytes and tag of a boxed PoSt proof list.
    fn proofs_of(list: &slice_boxed_PoStProof_t) -> Vec<(i32, Vec<u8>)> {
        // SAFETY: a live list of a live response.
        unsafe { std::slice::from_raw_parts(list.ptr, list.len) }
            .iter()
            .map(|p| (p.registered_proof, unsafe { std::slice::from_raw_parts(p.proof.ptr, p.proof.len) }.to_vec()))
            .collect()
    }

    fn verify(f: &Fixture, rp: i32, window: bool, tagged: &[(i32, Vec<u8>)]) -> Result<bool, String> {
        let replica = PublicReplicaInfo_t {
            registered_proof: rp,
            comm_r: uint8_32_array_t { idx: f.sector.comm_r },
            sector_id: f.sector.sector_id,
        };
        let held: Vec<PoStProof_t> =
            tagged.iter().map(|(t, b)| PoStProof_t { registered_proof: *t, proof: boxed(b) }).collect();
        let (rand, pid) = (uint8_32_array_t { idx: f.randomness }, uint8_32_array_t { idx: f.sector.prover_id });
        let replicas = slice_ref_PublicReplicaInfo_t { ptr: &replica, len: 1 };
        let proofs = slice_ref_PoStProof_t { ptr: held.as_ptr(), len: held.len() };
        // SAFETY: every pointer is to a local that outlives the call.
        let resp = unsafe {
            if window {
                verify_window_post(&rand, replicas, proofs, &pid)
            } else {
                verify_winning_post(&rand, replicas, proofs, &pid)
            }
        };
        // SAFETY: a live response, freed once; the proof buffers freed once.
        unsafe {
            let out = message((*resp).status_code, &(*resp).error_msg).map(|()| (*resp).value);
            destroy_verify_winning_post_response(resp);
            for p in held {
                destroy_boxed_slice(p.proof);
            }
            out
        }
    }

    #[test]
    fn winning_and_window_through_the_c_abi() {
        let f = fixture(34);
        let (rand, pid) = (uint8_32_array_t { idx: f.randomness }, uint8_32_array_t { idx: f.sector.prover_id });

        // Winning: C value 0 is StackedDrgWinning2KiBV1.
        let vanilla = [boxed(&f.vanilla(filecoin_proofs_api::RegisteredPoStProof::StackedDrgWinning2KiBV1))];
        let list = slice_ref_slice_boxed_uint8_t { ptr: vanilla.as_ptr(), len: 1 };
        // SAFETY: locals outlive the call; the response is freed once below.
        let resp = unsafe { generate_winning_post_with_vanilla(0, &rand, &pid, list) };
        let winning = unsafe {
            message((*resp).status_code, &(*resp).error_msg).unwrap();
            let p = proofs_of(&(*resp).value);
            destroy_generate_winning_post_response(resp);
            p
        };
        assert_eq!(winning.len(), 1);
        assert_eq!((winning[0].0, winning[0].1.len()), (0, 192));
        assert_eq!(verify(&f, 0, false, &winning), Ok(true));

        // Wrong type for the call, invalid enum, NULL randomness, empty list.
        for (rp, r, l, expect) in [
            (10, &rand as *const _, list, "not a Winning"),
            (77, &rand, list, "invalid RegisteredPoStProof"),
            (0, std::ptr::null(), list, "randomness is NULL"),
            (0, &rand, slice_ref_slice_boxed_uint8_t { ptr: std::ptr::null(), len: 0 }, "empty"),
            (0, &rand, slice_ref_slice_boxed_uint8_t { ptr: std::ptr::null(), len: 3 }, "NULL pointer"),
        ] {
            // SAFETY: NULLs are part of the contract; locals outlive the call.
            let resp = unsafe { generate_winning_post_with_vanilla(rp, r, &pid, l) };
            unsafe {
                let err = message((*resp).status_code, &(*resp).error_msg).unwrap_err();
                assert!(err.contains(expect), "{expect}: {err}");
                assert_eq!((*resp).value.len, 0);
                destroy_generate_winning_post_response(resp);
            }
        }
        for v in vanilla {
            // SAFETY: allocated above, freed once.
            unsafe { destroy_boxed_slice(v) };
        }

        // Window: C value 10 is StackedDrgWindow2KiBV1_1 (api V1_2).
        let vanilla = [boxed(&f.vanilla(filecoin_proofs_api::RegisteredPoStProof::StackedDrgWindow2KiBV1_2))];
        let list = slice_ref_slice_boxed_uint8_t { ptr: vanilla.as_ptr(), len: 1 };
        // SAFETY: as above.
        let resp = unsafe { generate_window_post_with_vanilla(10, &rand, &pid, list) };
        let whole = unsafe {
            message((*resp).status_code, &(*resp).error_msg).unwrap();
            assert_eq!((*resp).value.faulty_sectors.len, 0);
            let p = proofs_of(&(*resp).value.proofs);
            destroy_generate_window_post_response(resp);
            p
        };
        assert_eq!((whole[0].0, whole[0].1.len()), (10, 192));
        assert_eq!(verify(&f, 10, true, &whole), Ok(true));

        // Per partition, then merged.
        let resp = unsafe { generate_single_window_post_with_vanilla(10, &rand, &pid, list, 0) };
        let part = unsafe {
            message((*resp).status_code, &(*resp).error_msg).unwrap();
            let p = &(*resp).value.partition_proof;
            assert_eq!(p.registered_proof, 10);
            let bytes = std::slice::from_raw_parts(p.proof.ptr, p.proof.len).to_vec();
            destroy_generate_single_window_post_with_vanilla_response(resp);
            bytes
        };
        let parts = [boxed(&part)];
        let resp = unsafe { merge_window_post_partition_proofs(10, slice_ref_slice_boxed_uint8_t { ptr: parts.as_ptr(), len: 1 }) };
        let merged = unsafe {
            message((*resp).status_code, &(*resp).error_msg).unwrap();
            let p = &(*resp).value;
            let out = (p.registered_proof, std::slice::from_raw_parts(p.proof.ptr, p.proof.len).to_vec());
            destroy_merge_window_post_partition_proofs_response(resp);
            out
        };
        assert_eq!(verify(&f, 10, true, &[merged]), Ok(true));
        let garbage = [(10, vec![0xffu8; 192])];
        assert_ne!(verify(&f, 10, true, &garbage), Ok(true));
        for v in vanilla.into_iter().chain(parts) {
            // SAFETY: allocated above, freed once.
            unsafe { destroy_boxed_slice(v) };
        }
    }

    /// A `PrivateReplicaInfo_t` of the fixture's sector; paths from `alloc_boxed_slice`.
    fn private_replica(f: &Fixture, rp: i32, comm_r: [u8; 32]) -> PrivateReplicaInfo_t {
        PrivateReplicaInfo_t {
            registered_proof: rp,
            cache_dir_path: boxed(f.dir.join("cache").to_str().unwrap().as_bytes()),
            comm_r: uint8_32_array_t { idx: comm_r },
            replica_path: boxed(f.dir.join("sealed").to_str().unwrap().as_bytes()),
            sector_id: f.sector.sector_id,
        }
    }

    fn free_replicas(replicas: Vec<PrivateReplicaInfo_t>) {
        for r in replicas {
            // SAFETY: allocated by `private_replica`, freed once.
            unsafe {
                destroy_boxed_slice(r.cache_dir_path);
                destroy_boxed_slice(r.replica_path);
            }
        }
    }

    /// Window PoSt from replicas: (proofs, faulty sectors) or the error message.
    fn window_from(f: &Fixture, replicas: &[PrivateReplicaInfo_t]) -> (Result<Vec<(i32, Vec<u8>)>, String>, Vec<u64>) {
        let (rand, pid) = (uint8_32_array_t { idx: f.randomness }, uint8_32_array_t { idx: f.sector.prover_id });
        let list = slice_ref_PrivateReplicaInfo_t { ptr: replicas.as_ptr(), len: replicas.len() };
        // SAFETY: locals outlive the call; the response is freed once.
        unsafe {
            let resp = generate_window_post(&rand, list, &pid);
            let v = &(*resp).value;
            let faulty = std::slice::from_raw_parts(v.faulty_sectors.ptr, v.faulty_sectors.len).to_vec();
            let out = message((*resp).status_code, &(*resp).error_msg).map(|()| proofs_of(&v.proofs));
            destroy_generate_window_post_response(resp);
            (out, faulty)
        }
    }

    #[test]
    fn posts_from_replicas_through_the_c_abi() {
        let (f, g) = (fixture(35), fixture(36));
        let (rand, pid) = (uint8_32_array_t { idx: f.randomness }, uint8_32_array_t { idx: f.sector.prover_id });

        // Winning (C 0) from the replica: verified by stock.
        let replicas = vec![private_replica(&f, 0, f.sector.comm_r)];
        let list = slice_ref_PrivateReplicaInfo_t { ptr: replicas.as_ptr(), len: 1 };
        // SAFETY: locals outlive the call; the response is freed once.
        let winning = unsafe {
            let resp = generate_winning_post(&rand, list, &pid);
            message((*resp).status_code, &(*resp).error_msg).unwrap();
            let p = proofs_of(&(*resp).value);
            destroy_generate_winning_post_response(resp);
            p
        };
        assert_eq!((winning.len(), winning[0].0, winning[0].1.len()), (1, 0, 192));
        assert_eq!(verify(&f, 0, false, &winning), Ok(true));
        // Wrong type for the call, empty list, NULL randomness, malformed list.
        for (r, l, expect) in [
            (&rand as *const _, slice_ref_PrivateReplicaInfo_t { ptr: std::ptr::null(), len: 0 }, "empty"),
            (std::ptr::null(), list, "randomness is NULL"),
            (&rand, slice_ref_PrivateReplicaInfo_t { ptr: std::ptr::null(), len: 2 }, "NULL pointer"),
        ] {
            // SAFETY: NULLs are part of the contract; locals outlive the call.
            unsafe {
                let resp = generate_winning_post(r, l, &pid);
                let err = message((*resp).status_code, &(*resp).error_msg).unwrap_err();
                assert!(err.contains(expect), "{expect}: {err}");
                destroy_generate_winning_post_response(resp);
            }
        }
        free_replicas(replicas);
        let replicas = vec![private_replica(&f, 10, f.sector.comm_r)];
        let list = slice_ref_PrivateReplicaInfo_t { ptr: replicas.as_ptr(), len: 1 };
        // SAFETY: as above.
        unsafe {
            let resp = generate_winning_post(&rand, list, &pid);
            let err = message((*resp).status_code, &(*resp).error_msg).unwrap_err();
            assert!(err.contains("not a Winning"), "{err}");
            destroy_generate_winning_post_response(resp);
        }

        // Window (C 10) from the replica alone.
        let (whole, faulty) = window_from(&f, &replicas);
        let whole = whole.unwrap();
        assert!(faulty.is_empty());
        assert_eq!((whole[0].0, whole[0].1.len()), (10, 192));
        assert_eq!(verify(&f, 10, true, &whole), Ok(true));
        free_replicas(replicas);

        // Two sectors, both sound: one proof, verified by stock over both.
        let rp = RegisteredPoStProof::StackedDrgWindow2KiBV1_2;
        let replicas = vec![private_replica(&f, 10, f.sector.comm_r), private_replica(&g, 10, g.sector.comm_r)];
        let (both, faulty) = window_from(&f, &replicas);
        let both = both.unwrap();
        assert!(faulty.is_empty());
        let public = BTreeMap::from([
            (SectorId::from(f.sector.sector_id), PublicReplicaInfo::new(rp, f.sector.comm_r)),
            (SectorId::from(g.sector.sector_id), PublicReplicaInfo::new(rp, g.sector.comm_r)),
        ]);
        assert!(stock::verify_window_post(&f.randomness, &[(rp, &both[0].1)], &public, f.sector.prover_id).unwrap());
        free_replicas(replicas);

        // The second sector's files do not match its comm_r: stock's FaultySectors.
        let replicas = vec![private_replica(&f, 10, f.sector.comm_r), private_replica(&g, 10, f.sector.comm_r)];
        let (out, faulty) = window_from(&f, &replicas);
        let err = out.unwrap_err();
        assert_eq!(faulty, vec![g.sector.sector_id], "{err}");
        assert!(err.starts_with("faulty sectors"), "{err}");
        free_replicas(replicas);

        // Its cache dir is gone: a plain error, as stock (p_aux cannot be read).
        std::fs::remove_dir_all(g.dir.join("cache")).unwrap();
        let replicas = vec![private_replica(&f, 10, f.sector.comm_r), private_replica(&g, 10, g.sector.comm_r)];
        let (out, faulty) = window_from(&f, &replicas);
        let err = out.unwrap_err();
        assert!(faulty.is_empty());
        assert!(err.contains(&format!("sector {}", g.sector.sector_id)), "{err}");
        // Mixed types, and a Winning type for the Window call.
        let mixed = vec![private_replica(&f, 10, f.sector.comm_r), private_replica(&g, 5, g.sector.comm_r)];
        let err = window_from(&f, &mixed).0.unwrap_err();
        assert!(err.contains("same kind"), "{err}");
        let winning_type = vec![private_replica(&f, 0, f.sector.comm_r)];
        let err = window_from(&f, &winning_type).0.unwrap_err();
        assert!(err.contains("not a Window"), "{err}");
        let bad_enum = vec![private_replica(&f, 99, f.sector.comm_r)];
        let err = window_from(&f, &bad_enum).0.unwrap_err();
        assert!(err.contains("invalid RegisteredPoStProof"), "{err}");
        for r in [replicas, mixed, winning_type, bad_enum] {
            free_replicas(r);
        }
    }

    #[test]
    fn challenges_and_single_vanilla_proofs_through_the_c_abi() {
        let f = fixture(37);
        let (rand, pid) = (uint8_32_array_t { idx: f.randomness }, uint8_32_array_t { idx: f.sector.prover_id });
        let ids = [f.sector.sector_id];
        // SAFETY: locals outlive the calls; each response is freed once.
        let (got_ids, challenges) = unsafe {
            let resp = generate_fallback_sector_challenges(10, &rand, slice_ref_uint64_t { ptr: ids.as_ptr(), len: 1 }, &pid);
            message((*resp).status_code, &(*resp).error_msg).unwrap();
            let v = &(*resp).value;
            let got = std::slice::from_raw_parts(v.ids.ptr, v.ids.len).to_vec();
            let ch: Vec<Vec<u64>> = std::slice::from_raw_parts(v.challenges.ptr, v.challenges.len)
                .iter()
                .map(|c| std::slice::from_raw_parts(c.ptr, c.len).to_vec())
                .collect();
            destroy_generate_fallback_sector_challenges_response(resp);
            (got, ch)
        };
        let rp = RegisteredPoStProof::StackedDrgWindow2KiBV1_2;
        let sid = SectorId::from(f.sector.sector_id);
        let expected = stock::generate_fallback_sector_challenges(rp, &f.randomness, &[sid], f.sector.prover_id).unwrap();
        assert_eq!(got_ids, ids);
        assert_eq!(challenges, vec![expected[&sid].clone()]);

        // The vanilla proof (replica by value: its paths are freed by the call),
        // equal to stock's, and proved into a Window PoSt that stock verifies.
        let replica = private_replica(&f, 10, f.sector.comm_r);
        let ch = &challenges[0];
        let vanilla = unsafe {
            let resp = generate_single_vanilla_proof(replica, slice_ref_uint64_t { ptr: ch.as_ptr(), len: ch.len() });
            message((*resp).status_code, &(*resp).error_msg).unwrap();
            let v = std::slice::from_raw_parts((*resp).value.ptr, (*resp).value.len).to_vec();
            destroy_generate_single_vanilla_proof_response(resp);
            v
        };
        assert_eq!(vanilla, f.vanilla(rp));
        let held = [boxed(&vanilla)];
        let resp = unsafe {
            generate_window_post_with_vanilla(10, &rand, &pid, slice_ref_slice_boxed_uint8_t { ptr: held.as_ptr(), len: 1 })
        };
        let proofs = unsafe {
            message((*resp).status_code, &(*resp).error_msg).unwrap();
            let p = proofs_of(&(*resp).value.proofs);
            destroy_generate_window_post_response(resp);
            p
        };
        assert_eq!(verify(&f, 10, true, &proofs), Ok(true));
        for h in held {
            unsafe { destroy_boxed_slice(h) };
        }

        // Bad input: no challenges, a missing cache dir, an invalid enum, NULLs.
        for (rp, cache, challenges, expect) in [
            (10, true, slice_ref_uint64_t { ptr: std::ptr::null(), len: 0 }, "no challenges"),
            (10, false, slice_ref_uint64_t { ptr: ch.as_ptr(), len: ch.len() }, "p_aux"),
            (42, true, slice_ref_uint64_t { ptr: ch.as_ptr(), len: ch.len() }, "invalid RegisteredPoStProof"),
            (10, true, slice_ref_uint64_t { ptr: std::ptr::null(), len: 4 }, "NULL pointer"),
        ] {
            let mut r = private_replica(&f, rp, f.sector.comm_r);
            if !cache {
                unsafe { destroy_boxed_slice(r.cache_dir_path) };
                r.cache_dir_path = boxed(b"/nonexistent/cuzk-cache");
            }
            unsafe {
                let resp = generate_single_vanilla_proof(r, challenges);
                let err = message((*resp).status_code, &(*resp).error_msg).unwrap_err();
                assert!(err.contains(expect), "{expect}: {err}");
                destroy_generate_single_vanilla_proof_response(resp);
            }
        }
        unsafe {
            let resp = generate_fallback_sector_challenges(10, std::ptr::null(), slice_ref_uint64_t { ptr: ids.as_ptr(), len: 1 }, &pid);
            assert!(message((*resp).status_code, &(*resp).error_msg).unwrap_err().contains("randomness is NULL"));
            destroy_generate_fallback_sector_challenges_response(resp);
            let resp = generate_fallback_sector_challenges(10, &rand, slice_ref_uint64_t { ptr: std::ptr::null(), len: 0 }, &pid);
            assert!(message((*resp).status_code, &(*resp).error_msg).unwrap_err().contains("no sectors"));
            destroy_generate_fallback_sector_challenges_response(resp);
        }

        // Winning sector challenge: stock's indices into the sector set.
        unsafe {
            let resp = generate_winning_post_sector_challenge(0, &rand, 5, &pid);
            message((*resp).status_code, &(*resp).error_msg).unwrap();
            let got = std::slice::from_raw_parts((*resp).value.ptr, (*resp).value.len).to_vec();
            destroy_generate_winning_post_sector_challenge(resp);
            let want = stock::generate_winning_post_sector_challenge(
                RegisteredPoStProof::StackedDrgWinning2KiBV1,
                &f.randomness,
                5,
                f.sector.prover_id,
            )
            .unwrap();
            assert_eq!(got, want);
            assert!(got.iter().all(|&i| i < 5));
            let resp = generate_winning_post_sector_challenge(10, &rand, 5, &pid);
            assert!(message((*resp).status_code, &(*resp).error_msg).is_err());
            destroy_generate_winning_post_sector_challenge(resp);
        }
    }
}

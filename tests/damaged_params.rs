//! Damaged parameter files, the commonest field failure (a download cut
//! short, a failing disk): an empty, truncated, bit-flipped or lengthened
//! `.params` file is an error that names the file, from the key cache that
//! every blocking call and the engine load through and from
//! `cuzk_preload_params`; a file of another circuit under the name is an
//! error naming it when a proof is attempted. A failed load is not kept: a
//! good file put in its place then loads in the same process. This binary
//! runs on a parameter folder of its own (copies of the local cache's 2 KiB
//! PoSt keys), so the shared cache is never damaged.

use std::{fs, path::PathBuf, process::Command};

use blstrs::Scalar as Fr;
use cuzk::{
    api::{keys::KeyOf, params, random_vanilla},
    circuit::synthesize,
    ffi::engine::{cuzk_last_error, cuzk_preload_params},
    groth16,
};
use filecoin_proofs::SectorShape2KiB;
use filecoin_proofs_api::RegisteredPoStProof;

const WINNING: RegisteredPoStProof = RegisteredPoStProof::StackedDrgWinning2KiBV1;
const WINDOW: RegisteredPoStProof = RegisteredPoStProof::StackedDrgWindow2KiBV1_2;

/// The 2 KiB Winning and Window PoSt keys of the local cache (generated
/// there first if missing), and this binary's own folder, now the
/// parameter cache, holding the Winning verifying key.
fn own_cache() -> (PathBuf, PathBuf, PathBuf) {
    let local = params::use_local_cache_unless_set();
    let status = Command::new(env!("CARGO_BIN_EXE_cuzk"))
        .args(["params", "2KiB", "--only", "winning-post,window-post"])
        .env("FIL_PROOFS_PARAMETER_CACHE", &local)
        .status()
        .unwrap();
    assert!(status.success(), "generating the 2 KiB PoSt parameters");
    let own = std::env::temp_dir().join(format!("cuzk-damaged-params-{}", std::process::id()));
    fs::create_dir_all(&own).unwrap();
    // Before anything reads the stock settings (they are read once).
    std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", &own);
    let file = |rp: RegisteredPoStProof| KeyOf::Post(rp).stock_path().unwrap().file_name().unwrap().to_owned();
    let (winning, window) = (local.join(file(WINNING)), local.join(file(WINDOW)));
    fs::copy(winning.with_extension("vk"), own.join(file(WINNING)).with_extension("vk")).unwrap();
    (winning, window, own)
}

/// The Winning key loaded through the cache, after evicting it.
fn load() -> anyhow::Result<()> {
    KeyOf::Post(WINNING).evict().unwrap();
    KeyOf::Post(WINNING).load().map(drop)
}

/// The Winning key preloaded through the C ABI: its status and message.
fn preload() -> (i32, String) {
    KeyOf::Post(WINNING).evict().unwrap();
    let winning_2kib = 0;
    let code = cuzk_preload_params(1, winning_2kib);
    let mut buf = vec![0u8; 4096];
    // SAFETY: `buf` is writable for its length.
    let n = unsafe { cuzk_last_error(buf.as_mut_ptr(), buf.len()) };
    (code, String::from_utf8_lossy(&buf[..n.min(buf.len() - 1)]).into_owned())
}

/// `good` with `damage` done to it.
fn damaged(good: &[u8], damage: impl Fn(&mut Vec<u8>)) -> Vec<u8> {
    let mut bytes = good.to_vec();
    damage(&mut bytes);
    bytes
}

#[test]
fn damaged_parameter_files_are_errors_naming_the_file_and_a_good_one_loads_after() {
    let (winning, window, own) = own_cache();
    let target = KeyOf::Post(WINNING).stock_path().unwrap();
    assert!(target.starts_with(&own));
    let good = fs::read(&winning).unwrap();
    let named = target.display().to_string();

    // The first point of section h: after the verifying key, IC, and h's length.
    let ic_len = u32::from_be_bytes(good[864..868].try_into().unwrap()) as usize;
    let h_at = 868 + 96 * ic_len;
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty", Vec::new(), "truncated"),
        ("cut in half", good[..good.len() / 2].to_vec(), "truncated"),
        ("one byte short", good[..good.len() - 1].to_vec(), "truncated"),
        ("one byte more", damaged(&good, |b| b.push(0)), "trailing"),
        ("a bit of a point flipped", damaged(&good, |b| b[h_at + 4 + 95] ^= 1), "not on the curve"),
        ("a length's top bit flipped", damaged(&good, |b| b[h_at] ^= 0x80), "truncated"),
    ];
    for (what, bytes, says) in cases {
        fs::write(&target, &bytes).unwrap();
        let message = format!("{:#}", load().expect_err(what));
        assert!(message.contains(&named) && message.contains(says), "{what}: {message}");
        let (code, message) = preload();
        assert_ne!(code, 0, "{what}: cuzk_preload_params");
        assert!(message.contains(&named) && message.contains(says), "{what}: cuzk_preload_params: {message}");

        // The failure is not cached: the good file loads in its place.
        fs::write(&target, &good).unwrap();
        load().unwrap_or_else(|e| panic!("{what}: the good file after the damaged one: {e:#}"));
    }
    assert_eq!(preload().0, 0);

    // Another circuit's key under this name loads (it is a valid key) but
    // proves nothing: the error names the file.
    fs::copy(&window, &target).unwrap();
    load().unwrap();
    let pk = KeyOf::Post(WINNING).load().unwrap();
    let circuit = random_vanilla::post_circuit::<SectorShape2KiB>(WINNING, 1).unwrap();
    let error = groth16::prove(&pk, synthesize(circuit).unwrap(), Fr::from(1u64), Fr::from(2u64)).expect_err("a Window key for a Winning circuit");
    let message = format!("{error:#}");
    assert!(message.contains(&named) && message.contains("not this circuit's"), "{message}");

    fs::write(&target, &good).unwrap();
    load().unwrap();
    fs::remove_dir_all(&own).unwrap();
}

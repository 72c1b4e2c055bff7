//! The fuzz targets on the seeds and on every finding of earlier runs: each
//! seed (a real input) passes its target, so fuzzing starts deep in it;
//! each finding (fuzz/regressions/<target>/, once a panic) is an error.
//! Needs the 2 KiB parameters (`cuzk params 2KiB`).

use std::{fs, path::Path};

use cuzk_fuzz::{seeds, targets::ALL};

#[test]
fn seeds_pass_and_every_finding_is_an_error() {
    let root = std::env::temp_dir().join(format!("cuzk-fuzz-regressions-{}", std::process::id()));
    let (out, work) = (root.join("seeds"), root.join("work"));
    fs::create_dir_all(&work).unwrap();
    seeds::write(&out, &work).unwrap();
    let regressions = Path::new(env!("CARGO_MANIFEST_DIR")).join("regressions");
    let mut findings = 0;
    for (name, target) in ALL {
        let seeds = files(&out.join(name));
        assert!(!seeds.is_empty(), "no seed for {name}");
        for (file, bytes) in seeds {
            target(&bytes).unwrap_or_else(|e| panic!("{name}'s seed {file} is refused: {e:#}"));
        }
        for (file, bytes) in files(&regressions.join(name)) {
            let error = target(&bytes).expect_err(&format!("{name}'s finding {file} is accepted"));
            eprintln!("{name}/{file}: {error:#}");
            findings += 1;
        }
    }
    assert!(findings > 0, "no findings read from {}", regressions.display());
    let _ = fs::remove_dir_all(&root);
}

/// The files in `dir` (none if it does not exist), by name.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<_> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .map(|e| e.unwrap().path())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), fs::read(&p).unwrap()))
        .collect();
    out.sort();
    out
}

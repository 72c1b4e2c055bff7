//! libFuzzer over the target named by `CUZK_FUZZ_TARGET` (`targets::ALL`);
//! the arguments are libFuzzer's. Built with coverage by scripts/fuzz.sh.
#![no_main]

use std::sync::OnceLock;

use cuzk_fuzz::targets::{Target, ALL};

fn target() -> Target {
    static TARGET: OnceLock<Target> = OnceLock::new();
    *TARGET.get_or_init(|| {
        let name = std::env::var("CUZK_FUZZ_TARGET").unwrap_or_default();
        let names: Vec<&str> = ALL.iter().map(|(n, _)| *n).collect();
        let found = ALL.iter().find(|(n, _)| *n == name);
        found.unwrap_or_else(|| panic!("CUZK_FUZZ_TARGET={name:?} names none of {names:?}")).1
    })
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = target()(data);
});

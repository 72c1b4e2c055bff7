//! Writes each fuzz target's seeds under the folder given (`cuzk_fuzz::seeds`).

use anyhow::{Context, Result};

fn main() -> Result<()> {
    let out = std::env::args().nth(1).context("usage: fuzz-seeds <corpus folder>")?;
    let work = std::env::temp_dir().join(format!("cuzk-fuzz-seeds-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    let written = cuzk_fuzz::seeds::write(out.as_ref(), &work);
    let _ = std::fs::remove_dir_all(&work);
    written
}

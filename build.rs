//! Generates include/cuzk.h from src/ffi with cbindgen.

use std::{env, fs, path::Path};

fn main() {
    println!("cargo:rerun-if-changed=src/ffi");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    let dir = env::var("CARGO_MANIFEST_DIR").unwrap();
    let config = cbindgen::Config::from_file(Path::new(&dir).join("cbindgen.toml"))
        .expect("cbindgen.toml is invalid");
    let bindings = match cbindgen::Builder::new().with_crate(&dir).with_config(config).generate() {
        Ok(b) => b,
        Err(e) => panic!("cbindgen failed to generate include/cuzk.h: {e}"),
    };
    let mut raw = Vec::new();
    bindings.write(&mut raw);
    let header = c_names(&String::from_utf8(raw).unwrap());
    let path = Path::new(&dir).join("include/cuzk.h");
    if fs::read_to_string(&path).ok().as_deref() != Some(header.as_str()) {
        fs::write(&path, header).expect("cannot write include/cuzk.h");
    }
}

/// filcrypto.h names each type twice: the tag `struct slice_ref_uint8` and the
/// typedef `slice_ref_uint8_t`; its enums are `enum X { ... }` with
/// `typedef int32_t X_t`. Rust items carry the typedef name, so restore the tags
/// and drop the typedef cbindgen adds under the enum's own name.
fn c_names(header: &str) -> String {
    let mut out = String::with_capacity(header.len());
    let mut enum_names = Vec::new();
    for line in header.lines() {
        if let Some(rest) = line.strip_prefix("typedef struct ") {
            if let Some((name, tail)) = rest.split_once(' ') {
                if let Some(tag) = name.strip_suffix("_t") {
                    out.push_str(&format!("typedef struct {tag} {tail}\n"));
                    continue;
                }
            }
        }
        if let Some(name) = line.strip_prefix("enum ").and_then(|r| r.strip_suffix(" {")) {
            enum_names.push(name.to_owned());
        }
        if let Some(name) = line.strip_prefix("typedef int32_t ").and_then(|r| r.strip_suffix(';')) {
            if enum_names.iter().any(|e| e == name) {
                continue;
            }
        }
        out.push_str(&typedef_uses(line));
        out.push('\n');
    }
    out
}

/// `struct X_t` (a use of a typedef cbindgen spells with its tag) becomes `X_t`.
fn typedef_uses(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find("struct ") {
        let after = &rest[at + 7..];
        let ident_len = after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(after.len());
        let ident = &after[..ident_len];
        out.push_str(&rest[..at]);
        if !ident.ends_with("_t") {
            out.push_str("struct ");
        }
        out.push_str(ident);
        rest = &after[ident_len..];
    }
    out.push_str(rest);
    out
}

//! Generates include/cuzk.h from src/ffi with cbindgen and, with the `cuda`
//! feature, compiles the GPU engine in cuda/ with nvcc.

use std::{
    env, fs,
    path::{Path, PathBuf},
    process::Command,
};

fn main() {
    generate_header();
    if env::var_os("CARGO_FEATURE_CUDA").is_some() {
        compile_cuda();
    }
}

/// Architectures compiled by default: Turing to Blackwell, plus PTX of the
/// newest so that later GPUs can JIT it.
const DEFAULT_CUDA_ARCHS: &str = "75,80,86,89,90,120";

fn compile_cuda() {
    println!("cargo:rerun-if-changed=cuda");
    println!("cargo:rerun-if-env-changed=NVCC");
    println!("cargo:rerun-if-env-changed=CUZK_CUDA_ARCHS");
    let nvcc = env::var("NVCC").unwrap_or_else(|_| "nvcc".into());
    match Command::new(&nvcc).arg("--version").output() {
        Ok(out) if out.status.success() => {}
        _ => panic!(
            "the `cuda` feature needs the CUDA compiler, but `{nvcc} --version` failed. Install the \
             CUDA toolkit (>= 12), or run `eval \"$(scripts/cuda-toolchain.sh)\"` (from the repository), or set NVCC \
             to the nvcc binary; build without `--features cuda` for the CPU-only library."
        ),
    }
    let archs = env::var("CUZK_CUDA_ARCHS").unwrap_or_else(|_| DEFAULT_CUDA_ARCHS.into());
    let archs: Vec<&str> = archs.split(',').map(str::trim).filter(|a| !a.is_empty()).collect();
    assert!(
        !archs.is_empty() && archs.iter().all(|a| a.chars().all(|c| c.is_ascii_digit())),
        "CUZK_CUDA_ARCHS must list compute capabilities such as 80,90 (got {archs:?})"
    );
    let sppark = env::var("DEP_SPPARK_ROOT").expect("the sppark crate did not export its headers");
    let blst = env::var("DEP_BLST_C_SRC").expect("the blst crate did not export its sources");

    let mut build = cc::Build::new();
    build
        .cuda(true)
        .cudart("static")
        .include(&sppark)
        .include(&blst)
        .flag("-std=c++17")
        .flag("-t0")
        .define("FEATURE_BLS12_381", None)
        .define("TAKE_RESPONSIBILITY_FOR_ERROR_MESSAGE", None)
        .flag("-Xcompiler")
        .flag("-Wno-unused-function")
        .flag("-Xcompiler")
        .flag("-Wno-subobject-linkage");
    if blst_uses_adx() {
        // Host-side field code of sppark calls blst's mulx/adx entry points
        // exactly when blst itself was built with them.
        build.define("__ADX__", None);
    }
    for arch in &archs {
        build.flag(format!("-gencode=arch=compute_{arch},code=sm_{arch}"));
    }
    let newest = archs.iter().max_by_key(|a| a.parse::<u32>().unwrap()).unwrap();
    build.flag(format!("-gencode=arch=compute_{newest},code=compute_{newest}"));
    let mut sources: Vec<PathBuf> = fs::read_dir("cuda")
        .expect("cuda/ is missing")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "cu"))
        .collect();
    sources.sort();
    build.files(&sources).compile("cuzk_cuda");
}

/// Mirrors blst's build: ADX when target-cpu asks for it, else when the host has it.
fn blst_uses_adx() -> bool {
    let rustflags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    if rustflags.contains("target-cpu=") {
        return env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default().split(',').any(|f| f == "adx");
    }
    #[cfg(target_arch = "x86_64")]
    return std::is_x86_feature_detected!("adx");
    #[cfg(not(target_arch = "x86_64"))]
    return false;
}

fn generate_header() {
    println!("cargo:rerun-if-changed=src/ffi");
    println!("cargo:rerun-if-changed=src/lib.rs");
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
    let header = instance_names(&c_names(&String::from_utf8(raw).unwrap()));
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

/// Each instance of the generic `Response<T>` comes out as a struct named by
/// cbindgen (`Response_bool`) followed by its alias (`typedef struct
/// Response_bool Result_bool_t;`); filcrypto.h has one struct under the
/// alias's names (tag `Result_bool`, typedef `Result_bool_t`).
fn instance_names(header: &str) -> String {
    let mut lines: Vec<String> = header.lines().map(str::to_owned).collect();
    let mut aliases = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let alias = lines[i].strip_prefix("typedef struct ").and_then(|r| r.strip_suffix(';')).and_then(|r| r.split_once(' '));
        let Some((tag, alias)) = alias.map(|(t, a)| (t.to_owned(), a.to_owned())) else {
            i += 1;
            continue;
        };
        let Some(start) = lines[..i].iter().position(|l| *l == format!("typedef struct {tag} {{")) else {
            i += 1;
            continue;
        };
        let end = start + lines[start..i].iter().position(|l| l.starts_with("} ")).expect("a struct without its end");
        let alias_tag = alias.strip_suffix("_t").unwrap_or(&alias);
        lines[start] = format!("typedef struct {alias_tag} {{");
        lines[end] = format!("}} {alias};");
        aliases.push(alias);
        // The alias and the blank line cbindgen puts before it.
        lines.drain(i - 1..=i);
        i -= 1;
    }
    // Functions returning an instance: cbindgen aligned their arguments after
    // the alias, while those of every other struct type were aligned after
    // `struct X_t`, a `struct ` that c_names then dropped. Keep the header's
    // one alignment.
    let returns_instance = |l: &str| aliases.iter().any(|a| l.starts_with(&format!("{a} *")));
    let mut in_declaration = false;
    for line in &mut lines {
        if in_declaration && line.starts_with(' ') {
            line.insert_str(0, "       ");
        }
        if returns_instance(line) || (in_declaration && line.starts_with(' ')) {
            in_declaration = !line.ends_with(';');
        } else {
            in_declaration = false;
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

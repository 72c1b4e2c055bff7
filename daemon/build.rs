//! Generates the cuzk.v1 messages and service from proto/ (protoc from
//! protoc-bin-vendored unless PROTOC names one).

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::var_os("PROTOC").is_none() {
        std::env::set_var("PROTOC", protoc_bin_vendored::protoc_bin_path()?);
    }
    println!("cargo:rerun-if-changed=proto/cuzk/v1/proving.proto");
    tonic_prost_build::configure().compile_protos(&["proto/cuzk/v1/proving.proto"], &["proto"])?;
    Ok(())
}

//! Dispatch from a sector size to the Merkle tree shape its circuits use.

/// Calls `$f::<Shape>(args...)` for the tree shape of `$size` (a `u64` of bytes);
/// evaluates to an error for a size without a shape.
macro_rules! with_shape {
    ($size:expr, $f:ident $(, $arg:expr)* $(,)?) => {{
        use filecoin_proofs::constants::*;
        match $size {
            SECTOR_SIZE_2_KIB => $f::<SectorShape2KiB>($($arg),*),
            SECTOR_SIZE_8_MIB => $f::<SectorShape8MiB>($($arg),*),
            SECTOR_SIZE_512_MIB => $f::<SectorShape512MiB>($($arg),*),
            SECTOR_SIZE_32_GIB => $f::<SectorShape32GiB>($($arg),*),
            SECTOR_SIZE_64_GIB => $f::<SectorShape64GiB>($($arg),*),
            other => Err(anyhow::anyhow!("unsupported sector size {other}")),
        }
    }};
}
pub(crate) use with_shape;

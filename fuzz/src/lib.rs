//! cuzk's fuzz targets (`targets`, run by the `cuzk-fuzz` binary through
//! scripts/fuzz.sh) and how one input is cut into the arguments of a call
//! (fixed-size fields, then a list of byte strings), with the same cut in
//! reverse for the seeds, so that both always agree.

pub mod seeds;
pub mod targets;

/// Reads an input front to back.
pub struct Cut<'a> {
    rest: &'a [u8],
}

impl<'a> Cut<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Self { rest: data }
    }

    /// The next `N` bytes, zero-padded where the input ends.
    pub fn array<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0; N];
        let n = N.min(self.rest.len());
        out[..n].copy_from_slice(&self.rest[..n]);
        self.rest = &self.rest[n..];
        out
    }

    pub fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.array())
    }

    /// Everything not read yet.
    pub fn rest(self) -> &'a [u8] {
        self.rest
    }

    /// The rest, as byte strings each after its u32 little-endian length; a
    /// length past the end takes what is left.
    pub fn list(self) -> Vec<Vec<u8>> {
        let mut rest = self.rest;
        let mut out = Vec::new();
        while rest.len() >= 4 {
            let len = u32::from_le_bytes(rest[..4].try_into().expect("4 bytes")) as usize;
            let item = &rest[4..4 + len.min(rest.len() - 4)];
            rest = &rest[4 + item.len()..];
            out.push(item.to_vec());
        }
        out
    }
}

/// The input that `Cut` reads as `fields` followed by `list`.
pub fn join(fields: &[&[u8]], list: &[Vec<u8>]) -> Vec<u8> {
    let mut out = fields.concat();
    for item in list {
        out.extend_from_slice(&(item.len() as u32).to_le_bytes());
        out.extend_from_slice(item);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_joined_input_cuts_back_into_its_parts() {
        let list = vec![b"first".to_vec(), Vec::new(), vec![7; 300]];
        let data = join(&[&[1, 2, 3], &9u64.to_le_bytes()], &list);
        let mut cut = Cut::new(&data);
        assert_eq!(cut.array::<3>(), [1, 2, 3]);
        assert_eq!(cut.u64(), 9);
        assert_eq!(cut.list(), list);
    }

    #[test]
    fn a_short_input_is_padded_and_a_long_length_takes_the_rest() {
        let mut cut = Cut::new(&[5, 6]);
        assert_eq!(cut.array::<4>(), [5, 6, 0, 0]);
        assert!(cut.list().is_empty());
        let cut = Cut::new(&[200, 0, 0, 0, 1, 2]);
        assert_eq!(cut.list(), vec![vec![1, 2]]);
    }
}

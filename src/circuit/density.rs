//! Which variables a query touches: one bit per variable, plus the running count,
//! so the prover can pick the matching SRS points without scanning twice.

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Density {
    bits: Vec<u64>,
    len: usize,
    count: usize,
}

impl Density {
    /// Registers one more variable, initially untouched.
    pub fn push(&mut self) {
        if self.len % 64 == 0 {
            self.bits.push(0);
        }
        self.len += 1;
    }

    /// Marks variable `idx` as used by the query.
    pub fn mark(&mut self, idx: usize) {
        debug_assert!(idx < self.len);
        let (word, bit) = (idx / 64, 1u64 << (idx % 64));
        if self.bits[word] & bit == 0 {
            self.bits[word] |= bit;
            self.count += 1;
        }
    }

    /// Appends the variables of `other` from index `skip` on, with their marks.
    pub fn append(&mut self, other: &Density, skip: usize) {
        for idx in skip..other.len {
            self.push();
            if other.is_set(idx) {
                self.mark(self.len - 1);
            }
        }
    }

    pub fn is_set(&self, idx: usize) -> bool {
        self.bits[idx / 64] & (1u64 << (idx % 64)) != 0
    }

    /// Number of variables registered.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of variables marked.
    pub fn count(&self) -> usize {
        self.count
    }

    /// The values of the marked variables, in order: the scalars that pair with a
    /// density-filtered query of the SRS.
    pub fn select<T: Copy + Send + Sync>(&self, values: &[T]) -> Vec<T> {
        debug_assert_eq!(values.len(), self.len);
        let mut out = Vec::with_capacity(self.count);
        out.extend(
            values
                .iter()
                .enumerate()
                .filter(|(i, _)| self.is_set(*i))
                .map(|(_, v)| *v),
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_count_once_and_select_keeps_order() {
        let mut d = Density::default();
        for _ in 0..130 {
            d.push();
        }
        d.mark(3);
        d.mark(3);
        d.mark(64);
        d.mark(129);
        assert_eq!(d.count(), 3);
        assert_eq!(d.len(), 130);
        let values: Vec<usize> = (0..130).collect();
        assert_eq!(d.select(&values), vec![3, 64, 129]);
        assert!(!d.is_set(4));

        let mut joined = d.clone();
        joined.append(&d, 64);
        assert_eq!((joined.len(), joined.count()), (130 + 66, 3 + 2));
        assert_eq!(joined.select(&(0..196).collect::<Vec<_>>()), vec![3, 64, 129, 130, 195]);
    }
}

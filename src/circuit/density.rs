//! Which variables a query touches: one bit per variable, plus the running count,
//! so the prover can pick the matching SRS points without scanning twice.

use rayon::prelude::*;

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

    /// Marks the variables below `len` that `other` marks.
    pub fn merge_prefix(&mut self, other: &Density, len: usize) {
        for idx in 0..len {
            if other.is_set(idx) {
                self.mark(idx);
            }
        }
    }

    /// The marks as words of 64 variables, the first variable in the lowest bit.
    pub fn words(&self) -> &[u64] {
        &self.bits
    }

    /// The density of `len` variables marked as `words` say; bits past `len`
    /// must be clear.
    pub fn from_words(words: Vec<u64>, len: usize) -> Option<Self> {
        if words.len() != len.div_ceil(64) || (!len.is_multiple_of(64) && words.last().is_some_and(|w| w >> (len % 64) != 0)) {
            return None;
        }
        let count = words.par_iter().map(|w| w.count_ones() as usize).sum();
        Some(Density { bits: words, len, count })
    }

    pub fn is_set(&self, idx: usize) -> bool {
        self.bits[idx / 64] & (1u64 << (idx % 64)) != 0
    }

    /// The indices of the marked variables, ascending.
    pub fn marked(&self) -> impl Iterator<Item = usize> + '_ {
        self.bits.iter().enumerate().flat_map(|(w, &word)| {
            let mut rest = word;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let bit = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    w * 64 + bit
                })
            })
        })
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
        self.select_after(&[], values)
    }

    /// `head` followed by `select(values)`, written once into one allocation
    /// (at 32 GiB these are gigabytes). In parallel over blocks of variables,
    /// each written at the offset its marks before it give.
    pub fn select_after<T: Copy + Send + Sync>(&self, head: &[T], values: &[T]) -> Vec<T> {
        assert_eq!(values.len(), self.len, "one value per variable");
        const WORDS: usize = 1 << 10;
        let counts: Vec<usize> =
            self.bits.par_chunks(WORDS).map(|ws| ws.iter().map(|w| w.count_ones() as usize).sum()).collect();
        let mut out = Vec::with_capacity(head.len() + self.count);
        out.extend_from_slice(head);
        let mut rest = &mut out.spare_capacity_mut()[..self.count];
        let mut slots = Vec::with_capacity(counts.len());
        for &n in &counts {
            let (block, tail) = rest.split_at_mut(n);
            slots.push(block);
            rest = tail;
        }
        slots.into_par_iter().zip(self.bits.par_chunks(WORDS)).enumerate().for_each(|(b, (slot, words))| {
            let base = b * WORDS * 64;
            let marked = (0..words.len() * 64).filter(|i| words[i / 64] & (1 << (i % 64)) != 0);
            for (dst, i) in slot.iter_mut().zip(marked) {
                dst.write(values[base + i]);
            }
        });
        // SAFETY: the blocks' slots partition the `count` spare elements after
        // `head` (their lengths are the blocks' mark counts, which sum to
        // `count`), and each slot got one value per mark of its block: all
        // `head.len() + count` elements are initialised.
        unsafe { out.set_len(head.len() + self.count) };
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
        assert_eq!(d.marked().collect::<Vec<_>>(), vec![3, 64, 129]);
        assert!(!d.is_set(4));

        let mut joined = d.clone();
        joined.append(&d, 64);
        assert_eq!((joined.len(), joined.count()), (130 + 66, 3 + 2));
        assert_eq!(joined.select(&(0..196).collect::<Vec<_>>()), vec![3, 64, 129, 130, 195]);

        let mut other = Density::default();
        for _ in 0..70 {
            other.push();
        }
        other.mark(3);
        other.mark(5);
        other.mark(69);
        joined.merge_prefix(&other, 69);
        assert_eq!(joined.count(), 6, "5 is new, 3 was marked, 69 is past the prefix");
        assert!(joined.is_set(5) && !joined.is_set(69));
    }

    #[test]
    fn words_round_trip_and_stray_bits_are_refused() {
        let mut d = Density::default();
        for i in 0..130 {
            d.push();
            if i % 3 == 0 {
                d.mark(i);
            }
        }
        assert_eq!(Density::from_words(d.words().to_vec(), 130), Some(d.clone()));
        let mut stray = d.words().to_vec();
        stray[2] |= 1 << 5;
        assert_eq!(Density::from_words(stray, 130), None);
        assert_eq!(Density::from_words(d.words().to_vec(), 200), None);
        assert_eq!(Density::from_words(Vec::new(), 0), Some(Density::default()));
    }

    #[test]
    fn select_over_many_blocks_keeps_every_marked_value_in_order() {
        let mut d = Density::default();
        let n = 3 * 65536 + 77;
        for i in 0..n {
            d.push();
            if i % 7 == 0 || i % 64 == 63 || (70_000..70_100).contains(&i) {
                d.mark(i);
            }
        }
        let values: Vec<u64> = (0..n as u64).map(|i| i * 3).collect();
        let expected: Vec<u64> = (0..n).filter(|&i| d.is_set(i)).map(|i| values[i]).collect();
        assert_eq!(d.select(&values), expected);
        let head = [7u64, 8];
        assert_eq!(d.select_after(&head, &values), [&head[..], &expected[..]].concat());
        assert_eq!(Density::default().select::<u64>(&[]), Vec::<u64>::new());
    }
}

//! A byte a slot, read and swapped by many threads, kept in 64-bit words so that a scan
//! compares eight slots at once.
//!
//! The one-byte solver scans its whole value array twice a depth for the slots holding
//! one byte. Atomic bytes are loaded one at a time (the compiler does not vectorise
//! atomics); words of eight, compared with a few arithmetic steps, make that scan several
//! times cheaper. A byte is changed by a compare-and-swap of its word, which fails only
//! if that byte differs (a change to a neighbour is retried), so updates keep the
//! semantics of byte-wide compare-and-swaps.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::huge::HugeArray;

/// Every byte of a word set to 1.
const ONES: u64 = 0x0101_0101_0101_0101;

/// `len` bytes in words of eight; the bytes past `len` in the last word are never read.
pub struct Bytes {
    words: HugeArray<AtomicU64>,
    len: usize,
}

impl Bytes {
    /// `len` bytes, each `byte`, filled in parallel.
    pub fn filled(len: usize, byte: u8) -> std::io::Result<Bytes> {
        let words = HugeArray::<AtomicU64>::zeroed(len.div_ceil(8))?;
        if byte != 0 {
            words
                .par_chunks(1 << 18)
                .for_each(|c| c.iter().for_each(|w| w.store(ONES * byte as u64, Relaxed)));
        }
        Ok(Bytes { words, len })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// The byte of slot `i`.
    #[inline]
    pub fn get(&self, i: usize) -> u8 {
        (self.words[i / 8].load(Relaxed) >> (i % 8 * 8)) as u8
    }

    /// Set slot `i` to `new` if it holds `old`; true if it did.
    #[inline]
    pub fn swap(&self, i: usize, old: u8, new: u8) -> bool {
        let (word, shift) = (&self.words[i / 8], i % 8 * 8);
        let mut w = word.load(Relaxed);
        loop {
            if (w >> shift) as u8 != old {
                return false;
            }
            let next = w & !(0xff << shift) | (new as u64) << shift;
            match word.compare_exchange_weak(w, next, Relaxed, Relaxed) {
                Ok(_) => return true,
                Err(now) => w = now,
            }
        }
    }

    /// Set slot `i` to `new`, whatever it holds.
    pub fn set(&self, i: usize, new: u8) {
        let shift = i % 8 * 8;
        // The closure always returns Some: the update cannot fail.
        let _ = self.words[i / 8].fetch_update(Relaxed, Relaxed, |w| {
            Some(w & !(0xff << shift) | (new as u64) << shift)
        });
    }

    /// The slots of `first..first + len` (`len` at most 64, inside the array) holding
    /// `b`, as the bits of a mask (bit `k`: slot `first + k`).
    #[inline]
    pub fn holding(&self, first: usize, len: usize, b: u8) -> u64 {
        self.holding_within(first, len, b, !0)
    }

    /// [`Bytes::holding`] among the slots of `within` (bit `k`: slot `first + k`): the
    /// words with none of them are not read.
    #[inline]
    pub fn holding_within(&self, first: usize, len: usize, b: u8, within: u64) -> u64 {
        debug_assert!(len <= 64 && first + len <= self.len);
        let pattern = ONES * b as u64;
        let end = first + len;
        let mut mask = 0u64;
        let mut i = first;
        while i < end {
            let o = i % 8;
            let take = (8 - o).min(end - i);
            let part = (1u64 << take) - 1;
            if (within >> (i - first)) & part != 0 {
                let zero = (zero_bytes(self.words[i / 8].load(Relaxed) ^ pattern) >> o) as u64;
                mask |= (zero & part) << (i - first);
            }
            i += take;
        }
        mask & within
    }
}

/// Bit `k` set where byte `k` of `x` is zero.
#[inline]
fn zero_bytes(x: u64) -> u8 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    // A byte's high bit ends up set exactly when the byte is not zero: adding 0x7f to its
    // low seven bits cannot carry out of the byte.
    let nonzero = ((x & LOW7) + LOW7) | x;
    let zero = !nonzero & (ONES << 7);
    // Gather the eight high bits (moved to bits 0, 8, .., 56) into the top byte: each
    // lands at a distinct place, so the product has no carries.
    ((zero >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn zero_bytes_marks_exactly_the_zero_bytes(x: u64) {
            let want = (0..8).filter(|k| (x >> (8 * k)) as u8 == 0).fold(0u8, |m, k| m | 1 << k);
            prop_assert_eq!(zero_bytes(x), want);
        }

        #[test]
        fn holding_matches_byte_by_byte(
            bytes in proptest::collection::vec(0u8..4, 1..200),
            first in 0usize..200,
            len in 0usize..=64,
            b in 0u8..4,
            within: u64,
        ) {
            let a = Bytes::filled(bytes.len(), 0).unwrap();
            for (i, &x) in bytes.iter().enumerate() {
                a.set(i, x);
            }
            let first = first % bytes.len();
            let len = len.min(bytes.len() - first);
            let want = (0..len).filter(|&k| bytes[first + k] == b).fold(0u64, |m, k| m | 1 << k);
            prop_assert_eq!(a.holding(first, len, b), want);
            prop_assert_eq!(a.holding_within(first, len, b, within), want & within);
        }
    }

    #[test]
    fn swap_changes_one_byte_only_if_it_holds_the_old_value() {
        let a = Bytes::filled(20, 7).unwrap();
        assert_eq!(a.len(), 20);
        assert!(!a.swap(9, 6, 1));
        assert!(a.swap(9, 7, 1));
        assert_eq!((0..20).map(|i| a.get(i)).filter(|&x| x == 7).count(), 19);
        assert_eq!(a.get(9), 1);
        a.set(19, 255);
        assert_eq!((a.get(18), a.get(19)), (7, 255));
    }
}

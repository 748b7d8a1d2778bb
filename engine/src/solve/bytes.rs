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

    /// Ask for the cache lines of slots `i..i + 64` (those inside the array), so that a
    /// read to come finds them there.
    #[inline]
    pub fn prefetch(&self, i: usize) {
        for j in [i, i + 63] {
            if let Some(w) = self.words.get(j / 8) {
                prefetch(w);
            }
        }
    }

    /// The bytes of slots `first..first + out.len()` (inside the array) into `out`, a word
    /// at a time.
    #[inline]
    pub fn copy_to(&self, first: usize, out: &mut [u8]) {
        let mut k = 0;
        while k < out.len() {
            let i = first + k;
            let word = self.words[i / 8].load(Relaxed).to_le_bytes();
            let o = i % 8;
            let take = (8 - o).min(out.len() - k);
            if take == 8 {
                // A whole word: a copy of known length, no call to a copying routine.
                out[k..k + 8].copy_from_slice(&word);
            } else {
                out[k..k + take].copy_from_slice(&word[o..o + take]);
            }
            k += take;
        }
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

    /// Set the slots `first + b` for each bit `b` of `mask` (inside the array) to `new`, a
    /// word at a time. No other thread may change these words meanwhile: each is read,
    /// then stored whole.
    pub fn set_where(&self, first: usize, mask: u64, new: u8) {
        self.each_word(first, mask, |word, lanes| {
            word.store(
                word.load(Relaxed) & !lanes | lanes & (ONES * new as u64),
                Relaxed,
            );
        });
    }

    /// [`Bytes::set_where`], each word changed atomically: other threads may write the
    /// words' other slots meanwhile.
    pub fn set_where_shared(&self, first: usize, mask: u64, new: u8) {
        self.each_word(first, mask, |word, lanes| {
            // The closure always returns Some: the update cannot fail.
            let _ = word.fetch_update(Relaxed, Relaxed, |w| {
                Some(w & !lanes | lanes & (ONES * new as u64))
            });
        });
    }

    /// `f(word, lanes)` on each word holding slots `first + b`, `b` a bit of `mask`: the
    /// word, and 0xff in each of its bytes that is such a slot.
    #[inline]
    fn each_word(&self, first: usize, mask: u64, mut f: impl FnMut(&AtomicU64, u64)) {
        let mut m = mask;
        while m != 0 {
            let w = (first + m.trailing_zeros() as usize) / 8;
            // The word's eight slots, as bits of `m` (those before `first` are none).
            let (lo, hi) = ((w * 8).saturating_sub(first), w * 8 + 8 - first);
            let part = m & (first_bits(hi) & !first_bits(lo));
            f(
                &self.words[w],
                spread((part >> lo << (first + lo - w * 8)) as u8) * 0xff,
            );
            m &= !part;
        }
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
        if first % 8 == 0 {
            // Whole words, as the scans mostly ask (groups of 64 slots, or of 48 where a
            // pawn is the last piece): compared sixteen bytes a step, the words holding
            // none of the slots not read.
            let within = within & first_bits(len);
            return equal_bytes(&self.words_of(first, within), b) & within;
        }
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

    /// The eight words from slot `first` (which starts a word) on, those holding none of
    /// the slots `within` (bit `k`: slot `first + k`, inside the array) not read: 0.
    #[inline]
    fn words_of(&self, first: usize, within: u64) -> [u64; 8] {
        let w = first / 8;
        std::array::from_fn(|k| {
            if within >> (8 * k) & 0xff != 0 {
                self.words[w + k].load(Relaxed)
            } else {
                0
            }
        })
    }
}

/// The `n` lowest bits (all 64 from 64 on).
fn first_bits(n: usize) -> u64 {
    if n >= 64 {
        !0
    } else {
        (1 << n) - 1
    }
}

/// Bit `k` set where byte `k` of the eight words `w` (byte `k % 8` of word `k / 8`) is `b`.
#[inline]
pub fn equal_bytes(w: &[u64; 8], b: u8) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_movemask_epi8, _mm_set1_epi8, _mm_set_epi64x};
        // SSE2, which every x86-64 processor has: one comparison and one gather of the
        // high bits for sixteen bytes, where the arithmetic below takes some ten steps
        // for eight.
        let mut m = 0u64;
        // Safety: SSE2 is part of the x86-64 baseline, so every processor this code runs
        // on has these instructions; they work on registers only, no memory.
        unsafe {
            let pattern = _mm_set1_epi8(b as i8);
            for k in 0..4 {
                let v = _mm_set_epi64x(w[2 * k + 1] as i64, w[2 * k] as i64);
                m |= (_mm_movemask_epi8(_mm_cmpeq_epi8(v, pattern)) as u16 as u64) << (16 * k);
            }
        }
        m
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let pattern = ONES * b as u64;
        (0..8).fold(0, |m, k| m | (zero_bytes(w[k] ^ pattern) as u64) << (8 * k))
    }
}

/// Bit `k` set where byte `k` of `x` is zero.
#[inline]
pub fn zero_bytes(x: u64) -> u8 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    // A byte's high bit ends up set exactly when the byte is not zero: adding 0x7f to its
    // low seven bits cannot carry out of the byte.
    let nonzero = ((x & LOW7) + LOW7) | x;
    let zero = !nonzero & (ONES << 7);
    // Gather the eight high bits (moved to bits 0, 8, .., 56) into the top byte: each
    // lands at a distinct place, so the product has no carries.
    ((zero >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8
}

/// Ask for the cache line holding `at`, so that a read to come finds it there: a hint,
/// with no effect on any value. For the solvers' arrays, whose reads land far apart.
#[inline(always)]
pub fn prefetch<T>(at: &T) {
    #[cfg(target_arch = "x86_64")]
    // Safety: prefetching is a hint; it never faults, whatever the address, and here the
    // address is a live reference.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            at as *const T as *const i8,
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

/// Bit `k` of `m` spread to byte `k` of the result (1 or 0).
#[inline]
pub fn spread(m: u8) -> u64 {
    // Halves, then quarters, then single bits move up to their bytes.
    let mut x = m as u64;
    x = (x | x << 28) & 0x0000_000f_0000_000f;
    x = (x | x << 14) & 0x0003_0003_0003_0003;
    (x | x << 7) & ONES
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// An array holding `bytes`, set one byte at a time.
    fn holding_bytes(bytes: &[u8]) -> Bytes {
        let b = Bytes::filled(bytes.len(), 0).unwrap();
        for (i, &x) in bytes.iter().enumerate() {
            b.set(i, x);
        }
        b
    }

    proptest! {
        #[test]
        fn zero_bytes_marks_exactly_the_zero_bytes(x: u64) {
            let want = (0..8).filter(|k| (x >> (8 * k)) as u8 == 0).fold(0u8, |m, k| m | 1 << k);
            prop_assert_eq!(zero_bytes(x), want);
        }

        #[test]
        fn spread_puts_each_bit_in_its_byte(m: u8) {
            let want = (0..8).fold(0u64, |w, k| w | (((m >> k) & 1) as u64) << (8 * k));
            prop_assert_eq!(spread(m), want);
        }

        #[test]
        fn set_where_and_copy_to_match_byte_by_byte(
            bytes in proptest::collection::vec(any::<u8>(), 64..200),
            start in 0usize..64,
            mask: u64,
            new: u8,
            first in 0usize..64,
            len in 0usize..=64,
        ) {
            let b = holding_bytes(&bytes);
            // Inside the array: at least 64 bytes, so some lie past `start`.
            let inside = (bytes.len() - start).min(64);
            let mask = if inside == 64 { mask } else { mask & ((1 << inside) - 1) };
            // The shared form on a copy: the same bytes.
            let c = holding_bytes(&bytes);
            b.set_where(start, mask, new);
            c.set_where_shared(start, mask, new);
            let mut want = bytes.clone();
            for k in 0..64 {
                if mask >> k & 1 == 1 {
                    want[start + k] = new;
                }
            }
            for (i, &x) in want.iter().enumerate() {
                prop_assert_eq!(b.get(i), x, "slot {}", i);
                prop_assert_eq!(c.get(i), x, "slot {}, shared", i);
            }
            let len = len.min(want.len() - first);
            let mut out = vec![0; len];
            b.copy_to(first, &mut out);
            prop_assert_eq!(&out[..], &want[first..first + len]);
        }

        #[test]
        fn equal_bytes_marks_exactly_the_bytes_of_b(
            bytes in proptest::collection::vec(0u8..4, 64),
            b in 0u8..4,
        ) {
            let w = std::array::from_fn(|k| {
                u64::from_le_bytes(bytes[8 * k..8 * k + 8].try_into().unwrap())
            });
            let want = (0..64).filter(|&k| bytes[k] == b).fold(0u64, |m, k| m | 1 << k);
            prop_assert_eq!(equal_bytes(&w, b), want);
        }

        #[test]
        fn holding_a_whole_group_matches_byte_by_byte(
            bytes in proptest::collection::vec(0u8..4, 128..200),
            word in 0usize..8,
            b in 0u8..4,
            within: u64,
            words: u8,
        ) {
            // Some words with no slot of `within`: not read, whatever they hold.
            let within = within & (spread(words) * 0xff);
            let a = holding_bytes(&bytes);
            let first = 8 * word;
            let want = (0..64).filter(|&k| bytes[first + k] == b).fold(0u64, |m, k| m | 1 << k);
            prop_assert_eq!(a.holding(first, 64, b), want);
            prop_assert_eq!(a.holding_within(first, 64, b, within), want & within);
        }

        #[test]
        fn holding_matches_byte_by_byte(
            bytes in proptest::collection::vec(0u8..4, 1..200),
            first in 0usize..200,
            len in 0usize..=64,
            b in 0u8..4,
            within: u64,
        ) {
            let a = holding_bytes(&bytes);
            let first = first % bytes.len();
            // Word-aligned starts, the fast path, as often as the others.
            let first = if within >> 63 == 0 { first / 8 * 8 } else { first };
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

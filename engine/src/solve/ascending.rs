//! Ascending lists of slot numbers stored as LEB128 gaps: the solver's seed lists, which
//! can hold one entry for most slots of a large table (a 5-piece pawn table has hundreds of
//! millions of positions with a capture or promotion into a sub-table) and are built in
//! slot order. Neighbouring entries are close, so most gaps take one byte instead of four.

/// Slot numbers in ascending order (repeats allowed).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ascending {
    bytes: Vec<u8>,
    /// The last number pushed (0 before the first).
    last: u64,
    len: usize,
}

fn put(out: &mut Vec<u8>, mut x: u64) {
    while x >= 0x80 {
        out.push(x as u8 | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

/// The number at the start of `bytes` and its length in bytes.
fn get(bytes: &[u8]) -> (u64, usize) {
    let mut x = 0u64;
    for (k, &b) in bytes.iter().enumerate() {
        x |= u64::from(b & 0x7f) << (7 * k);
        if b < 0x80 {
            return (x, k + 1);
        }
    }
    unreachable!("lists are only written by `put`")
}

impl Ascending {
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Add `x`, which must not be below the last number pushed.
    pub fn push(&mut self, x: u64) {
        assert!(x >= self.last, "{x} pushed after {}", self.last);
        put(&mut self.bytes, x - self.last);
        self.last = x;
        self.len += 1;
    }

    /// Add every number of `other`, whose first must not be below the last of `self`.
    pub fn append(&mut self, other: Ascending) {
        if other.is_empty() {
            return;
        }
        // `other`'s first gap is its first number: re-state it as a gap from ours.
        let (first, k) = get(&other.bytes);
        self.push(first);
        self.bytes.extend_from_slice(&other.bytes[k..]);
        self.last = other.last;
        self.len += other.len - 1;
    }

    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        let mut at = 0;
        let mut x = 0u64;
        std::iter::from_fn(move || {
            if at == self.bytes.len() {
                return None;
            }
            let (gap, k) = get(&self.bytes[at..]);
            at += k;
            x += gap;
            Some(x)
        })
    }

    /// Bytes held.
    #[cfg(test)]
    pub fn bytes(&self) -> usize {
        self.bytes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn split_anywhere_and_appended_it_reads_back(
            mut xs in prop::collection::vec(0u64..1 << 40, 0..200),
            cut in 0usize..200,
        ) {
            xs.sort_unstable();
            let cut = cut.min(xs.len());
            let (mut a, mut b) = (Ascending::default(), Ascending::default());
            xs[..cut].iter().for_each(|&x| a.push(x));
            xs[cut..].iter().for_each(|&x| b.push(x));
            a.append(b);
            prop_assert_eq!(a.len(), xs.len());
            prop_assert_eq!(a.iter().collect::<Vec<_>>(), xs);
        }
    }

    #[test]
    fn close_numbers_take_a_byte_each() {
        let mut a = Ascending::default();
        (1_000_000u64..1_001_000).step_by(3).for_each(|x| a.push(x));
        // The first gap is the number itself (3 bytes), then one byte a number.
        assert_eq!(a.bytes(), 3 + 333);
    }

    #[test]
    #[should_panic(expected = "pushed after")]
    fn a_smaller_number_is_refused() {
        let mut a = Ascending::default();
        a.push(5);
        a.push(4);
    }
}

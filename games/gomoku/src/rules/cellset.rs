//! Sets of cells (up to 256) as four 64-bit words: what proofs, zones and candidate lists
//! are made of.

/// A set of cells (up to 256).
pub type CellSet = [u64; 4];

#[inline]
pub fn bb_set(b: &mut CellSet, c: usize) {
    b[c >> 6] |= 1 << (c & 63);
}
#[inline]
pub fn bb_has(b: &CellSet, c: usize) -> bool {
    b[c >> 6] & (1 << (c & 63)) != 0
}
#[inline]
pub fn bb_count(b: &CellSet) -> u32 {
    b.iter().map(|w| w.count_ones()).sum()
}
/// The number of cells in the set counted up to two (0, 1, or 2 for two or more): what the
/// searches ask at every node, without a population count (a long instruction sequence on
/// the baseline x86-64 target).
#[inline]
pub fn bb_count_to_two(b: &CellSet) -> u32 {
    let (mut seen, mut two) = (0u64, 0u64);
    for &w in b {
        // Two in this word, or one here and one in an earlier word.
        two |= (w & w.wrapping_sub(1)) | (w & ((seen != 0) as u64).wrapping_neg());
        seen |= w;
    }
    (seen != 0) as u32 + (two != 0) as u32
}
#[inline]
pub fn bb_first(b: &CellSet) -> Option<usize> {
    b.iter()
        .enumerate()
        .find(|(_, &w)| w != 0)
        .map(|(i, w)| i * 64 + w.trailing_zeros() as usize)
}
/// Cells of a set, in increasing order.
pub fn bb_cells(b: &CellSet) -> Vec<usize> {
    bb_iter(b).collect()
}

/// Cells of a set, in increasing order, without allocating (the searches' inner loops).
#[inline]
pub fn bb_iter(b: &CellSet) -> impl Iterator<Item = usize> {
    let b = *b;
    (0..4).flat_map(move |i| {
        let mut x = b[i];
        std::iter::from_fn(move || {
            (x != 0).then(|| {
                let c = i * 64 + x.trailing_zeros() as usize;
                x &= x - 1;
                c
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iter_lists_the_cells_in_order() {
        let mut s = [0u64; 4];
        for c in [0, 5, 63, 64, 130, 200, 255] {
            bb_set(&mut s, c);
        }
        assert_eq!(bb_cells(&s), vec![0, 5, 63, 64, 130, 200, 255]);
        assert_eq!(bb_iter(&[0; 4]).count(), 0);
    }

    #[test]
    fn count_to_two_caps_the_count() {
        let mut s = [0u64; 4];
        assert_eq!(bb_count_to_two(&s), 0);
        for (i, c) in [200, 3, 255, 64, 5].into_iter().enumerate() {
            bb_set(&mut s, c);
            assert_eq!(bb_count_to_two(&s), (i as u32 + 1).min(2), "{s:?}");
            let mut one = [0u64; 4];
            bb_set(&mut one, c);
            assert_eq!(bb_count_to_two(&one), 1);
        }
        assert_eq!(bb_count_to_two(&[0, 0, 0b11, 0]), 2);
    }
}

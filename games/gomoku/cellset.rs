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
}

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
    let mut out = Vec::new();
    for (i, &w) in b.iter().enumerate() {
        let mut x = w;
        while x != 0 {
            out.push(i * 64 + x.trailing_zeros() as usize);
            x &= x - 1;
        }
    }
    out
}

//! A compressed block's symbols in planes: each symbol's low byte, then, where symbols take
//! two bytes, each one's high byte (the layout in [`super::compressed`]). Read by the
//! compressed table and by the cache of its decoded blocks: here, below both, because the
//! compressed table uses the cache.

/// Symbol `k` of `bytes`, which hold symbols of `width` bytes in planes.
#[inline]
pub(super) fn plane_symbol(bytes: &[u8], width: usize, k: usize) -> u16 {
    if width == 1 {
        bytes[k] as u16
    } else {
        let n = bytes.len() / 2;
        bytes[k] as u16 | (bytes[n + k] as u16) << 8
    }
}

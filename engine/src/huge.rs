//! The solvers' per-slot arrays, in anonymous memory that the kernel is asked to back with
//! huge pages.
//!
//! A solver reads one slot of its value array for nearly every move it looks at, at
//! random: a 5-piece table's array is 242 MB, a 6-piece one's 15.5 GB. With 4 KiB pages
//! almost every such read also misses the TLB and walks the page tables; 2 MiB pages
//! cover a thousand times more memory per TLB entry. Linux gives them to an anonymous
//! map advised `MADV_HUGEPAGE` when transparent huge pages are in `madvise` mode (the
//! usual default), which a `Vec` never is. Elsewhere the advice is refused, harmlessly.

use std::marker::PhantomData;
use std::ops::Deref;
use std::sync::atomic::{AtomicU64, AtomicU8};

use memmap2::{MmapMut, MmapOptions};
use rayon::prelude::*;

/// An atomic integer whose all-zero bytes are the value 0.
///
/// # Safety
///
/// Implement only for types with the size and alignment of an integer, any bit pattern of
/// which is valid (the atomic integers of `std`).
pub unsafe trait ZeroIsValid: Sync + Send {}
// Safety: `AtomicU8` has the in-memory representation of `u8`.
unsafe impl ZeroIsValid for AtomicU8 {}
// Safety: `AtomicU64` has the in-memory representation of `u64`.
unsafe impl ZeroIsValid for AtomicU64 {}

/// A fixed-length array of atomics in its own anonymous map, zeroed when made.
pub struct HugeArray<T> {
    map: MmapMut,
    len: usize,
    _t: PhantomData<T>,
}

impl<T: ZeroIsValid> HugeArray<T> {
    /// `len` zeroed atomics; an error if the system will not map that much.
    pub fn zeroed(len: usize) -> std::io::Result<HugeArray<T>> {
        let bytes = len
            .checked_mul(size_of::<T>())
            .ok_or_else(|| std::io::Error::other("array too large for the address space"))?;
        // Safety: an anonymous map is private memory of this process, not a file another
        // process could change under us.
        let mut map = MmapOptions::new().len(bytes.max(1)).map_anon()?;
        // Only advice: without huge pages the array works the same, slower.
        advise_huge(&mut map[..bytes]);
        Ok(HugeArray {
            map,
            len,
            _t: PhantomData,
        })
    }
}

/// The smallest array advised to take huge pages ([`HugeArray`], [`advise_huge`]). Below
/// it, 4 KiB pages' TLB entries cover much of it anyway, and a huge page zeroes 2 MiB where
/// a few KiB may be written: the small tables of `generate chess --all 4` took about 6 % more
/// CPU with every array advised (two runs beside two of the build before).
const HUGE_WORTH: usize = 32 << 20;

/// Advise the kernel to back the whole pages of `buf` with huge pages: for memory a solver
/// writes at random (a [`HugeArray`], a solution's records), made but not yet written, since
/// pages are placed when first written. Only advice: elsewhere, or refused, nothing changes.
pub fn advise_huge<T>(buf: &mut [T]) {
    let len = std::mem::size_of_val(buf);
    #[cfg(target_os = "linux")]
    if len >= HUGE_WORTH {
        let page = rustix::param::page_size();
        let start = buf.as_mut_ptr() as usize;
        let (lo, hi) = (start.next_multiple_of(page), (start + len) / page * page);
        if hi > lo {
            // Safety: `lo..hi` lies inside `buf`, which this process owns and holds borrowed
            // uniquely; the advice changes how its pages are backed, never what they hold.
            let _ = unsafe {
                rustix::mm::madvise(
                    lo as *mut std::ffi::c_void,
                    hi - lo,
                    rustix::mm::Advice::LinuxHugepage,
                )
            };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (buf, len);
}

impl HugeArray<AtomicU8> {
    /// `len` bytes, each `byte`, filled in parallel (a page is placed when first written).
    pub fn filled(len: usize, byte: u8) -> std::io::Result<HugeArray<AtomicU8>> {
        let a = HugeArray::<AtomicU8>::zeroed(len)?;
        if byte != 0 {
            a.par_chunks(1 << 21).for_each(|c| {
                c.iter()
                    .for_each(|b| b.store(byte, std::sync::atomic::Ordering::Relaxed))
            });
        }
        Ok(a)
    }
}

impl<T: ZeroIsValid> Deref for HugeArray<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        // Safety: the map is page-aligned (so aligned for `T`), at least `len * size_of::<T>()`
        // bytes long, zero-filled by the kernel and valid for `T` at any bit pattern
        // (`ZeroIsValid`). It lives as long as `self`, and is only ever touched through
        // these atomics: the one `&mut [u8]` to it, to advise it, ends in `zeroed`, before
        // any of these views exists.
        unsafe { std::slice::from_raw_parts(self.map.as_ptr().cast::<T>(), self.len) }
    }
}

/// Bytes appended to an anonymous map that grows by moving its pages, not by copying them
/// (on Linux; elsewhere it copies): a list built while most of memory is taken holds no
/// second copy of itself at any moment, which a `Vec` does each time it grows (and its
/// allocator may keep the old block resident a while after). Pages are placed when first
/// written, so the room reserved ahead costs nothing.
pub struct GrowingMap {
    map: MmapMut,
    len: usize,
}

impl GrowingMap {
    /// An empty buffer (64 KiB of address space, no memory until written).
    pub fn new() -> std::io::Result<GrowingMap> {
        Ok(GrowingMap {
            map: MmapOptions::new().len(1 << 16).map_anon()?,
            len: 0,
        })
    }

    /// Append `bytes`; an error if the system will not map that much.
    pub fn extend(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        let need = self
            .len
            .checked_add(bytes.len())
            .ok_or_else(|| std::io::Error::other("buffer too large for the address space"))?;
        if need > self.map.len() {
            let room = need.max(self.map.len().saturating_mul(2));
            self.grow(room)?;
        }
        self.map[self.len..need].copy_from_slice(bytes);
        self.len = need;
        Ok(())
    }

    #[cfg(target_os = "linux")]
    fn grow(&mut self, room: usize) -> std::io::Result<()> {
        // Safety: the map is anonymous, so no file ends inside the new length, and no view
        // of it outlives this `&mut self`; the kernel moves its pages, zero-filling the rest.
        unsafe {
            self.map
                .remap(room, memmap2::RemapOptions::new().may_move(true))
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn grow(&mut self, room: usize) -> std::io::Result<()> {
        let mut map = MmapOptions::new().len(room).map_anon()?;
        map[..self.len].copy_from_slice(&self.map[..self.len]);
        self.map = map;
        Ok(())
    }

    /// The bytes appended.
    pub fn bytes(&self) -> &[u8] {
        &self.map[..self.len]
    }

    /// The bytes appended, to change in place.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.map[..self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering::Relaxed;

    #[test]
    fn zeroed_filled_and_written() {
        let a = HugeArray::<AtomicU64>::zeroed(1000).unwrap();
        assert_eq!(a.len(), 1000);
        assert!(a.iter().all(|w| w.load(Relaxed) == 0));
        a[999].store(u64::MAX, Relaxed);
        assert_eq!(a[999].load(Relaxed), u64::MAX);
        let b = HugeArray::filled(5 << 20, 7).unwrap();
        assert_eq!(b.len(), 5 << 20);
        assert!(b.iter().all(|x| x.load(Relaxed) == 7));
        assert!(HugeArray::<AtomicU8>::zeroed(0).unwrap().is_empty());
    }

    #[test]
    fn a_growing_map_keeps_what_was_appended() {
        let mut g = GrowingMap::new().unwrap();
        assert!(g.bytes().is_empty());
        let mut want = Vec::new();
        // Past its first page several times, by pieces of odd lengths.
        for k in 0..12_000u32 {
            let piece: Vec<u8> = (0..k % 97).map(|i| (k + i) as u8).collect();
            g.extend(&piece).unwrap();
            want.extend_from_slice(&piece);
        }
        assert!(want.len() > 4 << 16);
        assert_eq!(g.bytes(), &want[..]);
        g.bytes_mut()[0] ^= 0xff;
        assert_eq!(g.bytes()[0], want[0] ^ 0xff);
    }

    #[test]
    fn an_impossible_size_is_an_error_not_an_abort() {
        assert!(HugeArray::<AtomicU64>::zeroed(usize::MAX / 4).is_err());
    }
}

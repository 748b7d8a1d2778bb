//! Where a table's bytes live while it is open: a private copy in memory, or a read-only
//! memory map of the file.
//!
//! A map reflects the file: if another program truncates or rewrites it in place (`cp
//! new.rtb tables/kbnk.rtb`), a read of a page that no longer exists kills the reader with
//! SIGBUS. A copy cannot be changed from outside. Small tables (all the default ones) are
//! therefore copied; only tables too large to copy are mapped.

use std::fs::File;
use std::io::Read;
use std::ops::Deref;

use memmap2::Mmap;

/// The bytes of an open table file.
pub enum Storage {
    Memory(Vec<u8>),
    Mapped(Mmap),
}

impl Storage {
    /// Read the whole of `file` (`len` bytes by its metadata) into memory. A file that grows
    /// while read is cut at `len + 1` bytes, which the size check then refuses.
    pub fn read(file: &File, len: u64) -> std::io::Result<Storage> {
        let mut buf = Vec::with_capacity(len as usize);
        file.take(len.saturating_add(1)).read_to_end(&mut buf)?;
        Ok(Storage::Memory(buf))
    }

    /// Map `file` read-only.
    pub fn map(file: &File) -> std::io::Result<Storage> {
        // Safety: the map is read-only and private to this process, and nothing in this
        // process writes the file. Table files are written once under a temporary name and
        // renamed into place, never modified in place by retro. If another program
        // truncates the file while it is mapped, reads beyond the new end fault (SIGBUS):
        // that is why only tables above `IN_MEMORY_MAX` are mapped, why `retro serve` copies
        // every table, and why the README says to replace tables by renaming.
        let map = unsafe { Mmap::map(file)? };
        Ok(Storage::Mapped(map))
    }

    /// Whether the bytes are a private copy (immune to changes of the file).
    pub fn is_copy(&self) -> bool {
        matches!(self, Storage::Memory(_))
    }
}

impl Deref for Storage {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Storage::Memory(v) => v,
            Storage::Mapped(m) => m,
        }
    }
}

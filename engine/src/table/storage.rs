//! Where a table's bytes live while it is open: a private copy in memory, a read-only
//! memory map of the file, or the open file itself, read at positions.
//!
//! A map reflects the file: if another program truncates or rewrites it in place (`cp
//! new.rtb tables/kbnk.rtb`), a read of a page that no longer exists kills the reader with
//! SIGBUS. A copy cannot be changed from outside, and a positioned read of a file that
//! shrank fails with an error instead of a signal. Small tables (all the default ones) are
//! therefore copied; large ones are mapped where speed matters (the solver reading
//! sub-tables) and read at positions where surviving matters (`retro serve`, which may hold
//! a whole 5-piece set, far more than memory, and `retro probe`).

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;

use memmap2::Mmap;

/// The bytes of an open table file.
pub enum Storage {
    Memory(Vec<u8>),
    Mapped(Mmap),
    /// The open file and its length when opened.
    File(File, u64),
}

/// Bytes hashed per read when a file's payload is checksummed.
const CHUNK: u64 = 4 << 20;

fn beyond_end() -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        "read beyond the end of the file",
    )
}

impl Storage {
    /// Read the whole of `file` (`len` bytes by its metadata) into memory. A file that grows
    /// while read is cut at `len + 1` bytes, which the size check then refuses.
    pub fn read(file: &File, len: u64) -> io::Result<Storage> {
        let mut buf = Vec::with_capacity(len as usize);
        file.take(len.saturating_add(1)).read_to_end(&mut buf)?;
        Ok(Storage::Memory(buf))
    }

    /// Map `file` read-only.
    pub fn map(file: &File) -> io::Result<Storage> {
        // Safety: the map is read-only and private to this process, and nothing in this
        // process writes the file. Table files are written once under a temporary name and
        // renamed into place, never modified in place by retro. If another program
        // truncates the file while it is mapped, reads beyond the new end fault (SIGBUS):
        // that is why only tables above `IN_MEMORY_MAX` are mapped, why `retro serve` and
        // `retro probe` never map (see `Load::Safe`, `set_never_map`), and why the README
        // says to replace tables by renaming.
        let map = unsafe { Mmap::map(file)? };
        Ok(Storage::Mapped(map))
    }

    /// Keep `file` open and read it at positions.
    pub fn positioned(file: File, len: u64) -> Storage {
        Storage::File(file, len)
    }

    /// Whether nothing done to the file can crash a reader (a copy, or positioned reads).
    pub fn survives_changes(&self) -> bool {
        !matches!(self, Storage::Mapped(_))
    }

    /// The file's length (when opened, for positioned reads).
    pub fn len(&self) -> u64 {
        match self {
            Storage::Memory(v) => v.len() as u64,
            Storage::Mapped(m) => m.len() as u64,
            Storage::File(_, len) => *len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `n` bytes at offset `at`: borrowed from memory or a map, read from a file. An error
    /// for a range beyond the end (also when the file shrank since it was opened).
    pub fn bytes(&self, at: u64, n: u64) -> io::Result<Cow<'_, [u8]>> {
        let end = at.checked_add(n).filter(|&e| e <= self.len());
        let end = end.ok_or_else(beyond_end)?;
        match self {
            Storage::Memory(v) => Ok(Cow::Borrowed(&v[at as usize..end as usize])),
            Storage::Mapped(m) => Ok(Cow::Borrowed(&m[at as usize..end as usize])),
            Storage::File(f, _) => {
                let mut buf = vec![0; n as usize];
                f.read_exact_at(&mut buf, at)?;
                Ok(Cow::Owned(buf))
            }
        }
    }

    /// The two bytes at `at`, or `None` beyond the end or on a read error.
    #[inline]
    pub fn pair(&self, at: u64) -> Option<[u8; 2]> {
        let slice = |s: &[u8]| s.get(at as usize..at as usize + 2).map(|r| [r[0], r[1]]);
        match self {
            Storage::Memory(v) => slice(v),
            Storage::Mapped(m) => slice(m),
            Storage::File(f, len) => {
                if at.checked_add(2).is_none_or(|e| e > *len) {
                    return None;
                }
                let mut r = [0; 2];
                f.read_exact_at(&mut r, at).ok().map(|_| r)
            }
        }
    }

    /// The xxh3-64 checksum of `n` bytes at `at` (a file is read in chunks, never whole).
    pub fn checksum(&self, at: u64, n: u64) -> io::Result<u64> {
        match self {
            Storage::File(..) => {
                let mut h = xxhash_rust::xxh3::Xxh3::new();
                let mut done = 0;
                while done < n {
                    let k = CHUNK.min(n - done);
                    h.update(&self.bytes(at + done, k)?);
                    done += k;
                }
                Ok(h.digest())
            }
            _ => Ok(super::checksum(&self.bytes(at, n)?)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn positioned_reads_agree_with_a_copy_and_survive_a_shrinking_file() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        let data: Vec<u8> = (0..10_000_000u32).map(|i| (i * 7 % 251) as u8).collect();
        f.write_all(&data).unwrap();
        let len = data.len() as u64;
        let copy = Storage::read(&f.reopen().unwrap(), len).unwrap();
        let file = Storage::positioned(f.reopen().unwrap(), len);
        assert!(file.survives_changes() && copy.survives_changes());
        assert_eq!(
            file.bytes(123, 4567).unwrap(),
            copy.bytes(123, 4567).unwrap()
        );
        assert_eq!(
            file.pair(len - 2),
            Some([data[len as usize - 2], data[len as usize - 1]])
        );
        assert_eq!(file.pair(len - 1), None);
        // The streamed checksum (several chunks) is the one-shot one.
        assert_eq!(
            file.checksum(1, len - 1).unwrap(),
            copy.checksum(1, len - 1).unwrap()
        );
        assert_eq!(
            file.checksum(1, len - 1).unwrap(),
            crate::table::checksum(&data[1..])
        );
        assert!(file.bytes(len - 1, 2).is_err() && file.bytes(u64::MAX, 2).is_err());
        // Another program cuts the file: reads fail, nothing crashes.
        f.as_file().set_len(len / 2).unwrap();
        assert_eq!(file.pair(len - 2), None);
        assert!(file.bytes(len - 100, 10).is_err());
        assert!(file.checksum(0, len).is_err());
        assert_eq!(file.pair(2), Some([data[2], data[3]]));
    }
}

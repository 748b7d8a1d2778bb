//! Where a table's bytes live while it is open: a private copy in memory, a read-only
//! memory map of the file, or the open file itself, read at positions.
//!
//! Each keeps the open file and its [`Stamp`], so that what was opened can be told apart
//! from what the name leads to now, and a change in place is noticed.
//!
//! A map reflects the file: if another program truncates or rewrites it in place (`cp
//! new.rtb tables/kbnk.rtb`), a read of a page that no longer exists kills the reader with
//! SIGBUS. A copy cannot be changed from outside, and a positioned read of a file that
//! shrank fails with an error instead of a signal. Small tables (all the default ones) are
//! therefore copied; large ones are mapped where speed matters (the solver reading
//! sub-tables) and read at positions where surviving matters (`retro serve`, which may hold
//! a whole 5-piece set, far more than memory, and `retro probe`). There, compressed tables
//! of any size are read at positions: only their decoded blocks are worth holding.

use std::borrow::Cow;
use std::fs::{File, Metadata};
use std::hash::Hasher as _;
use std::io::{self, Read};
use std::os::unix::fs::{FileExt, MetadataExt};

use memmap2::Mmap;

/// What a file was when it was opened: which file (device and inode), its length, and its
/// modification and change times. Writing, cutting or replacing it in place moves its
/// change time, which no program can set back, so a file still bearing its stamp holds
/// the bytes that were checked when it was opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Stamp {
    pub dev: u64,
    pub ino: u64,
    pub len: u64,
    pub modified: (i64, i64),
    pub changed: (i64, i64),
}

impl Stamp {
    pub fn of(meta: &Metadata) -> Stamp {
        Stamp {
            dev: meta.dev(),
            ino: meta.ino(),
            len: meta.len(),
            modified: (meta.mtime(), meta.mtime_nsec()),
            changed: (meta.ctime(), meta.ctime_nsec()),
        }
    }
}

/// The error of a read from a file that changed since it was opened (see [`Stamp`]).
#[derive(Debug)]
pub struct ChangedOnDisk;

impl std::fmt::Display for ChangedOnDisk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the file changed on disk after it was opened")
    }
}

impl std::error::Error for ChangedOnDisk {}

/// Whether `e` is a [`ChangedOnDisk`] error.
pub fn is_changed(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|e| e.is::<ChangedOnDisk>())
}

/// The bytes of an open table file, and the file itself with its [`Stamp`].
pub struct Storage {
    held: Held,
    file: File,
    stamp: Stamp,
}

enum Held {
    Memory(Vec<u8>),
    Mapped(Mmap),
    /// Read at positions from the file.
    Positioned,
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
    /// Read the whole of `file` (`meta` is what it was opened as) into memory. A file that
    /// grows while read is cut at its length + 1 bytes, which the size check then refuses.
    pub fn read(file: File, meta: &Metadata) -> io::Result<Storage> {
        let len = meta.len();
        let mut buf = Vec::with_capacity(len as usize);
        (&file).take(len.saturating_add(1)).read_to_end(&mut buf)?;
        Ok(Storage {
            held: Held::Memory(buf),
            file,
            stamp: Stamp::of(meta),
        })
    }

    /// Map `file` read-only.
    pub fn map(file: File, meta: &Metadata) -> io::Result<Storage> {
        // Safety: the map is read-only and private to this process, and nothing in this
        // process writes the file. Table files are written once under a temporary name and
        // renamed into place, never modified in place by retro. If another program
        // truncates the file while it is mapped, reads beyond the new end fault (SIGBUS):
        // that is why only tables above `IN_MEMORY_MAX` are mapped (and small ones only
        // by `retro generate`, `set_map_small`), why `retro serve` and
        // `retro probe` never map (see `Load::Safe`, `set_never_map`), and why
        // docs/file-formats.md says to replace tables by renaming.
        let map = unsafe { Mmap::map(&file)? };
        Ok(Storage {
            held: Held::Mapped(map),
            file,
            stamp: Stamp::of(meta),
        })
    }

    /// Keep `file` open and read it at positions. Every read is followed by a look at the
    /// file's stamp, so no bytes written over it since it was opened are ever returned.
    pub fn positioned(file: File, meta: &Metadata) -> Storage {
        Storage {
            held: Held::Positioned,
            file,
            stamp: Stamp::of(meta),
        }
    }

    /// Whether nothing done to the file can crash a reader (a copy, or positioned reads).
    pub fn survives_changes(&self) -> bool {
        !matches!(self.held, Held::Mapped(_))
    }

    /// Whether the bytes are a private copy in memory (every read as cheap as it gets).
    pub fn in_memory(&self) -> bool {
        matches!(self.held, Held::Memory(_))
    }

    /// The open file (the one whose bytes these are, whatever its name now leads to).
    pub fn file(&self) -> &File {
        &self.file
    }

    /// What the file was when opened.
    pub fn stamp(&self) -> Stamp {
        self.stamp
    }

    /// An error unless the open file still bears its stamp (one `fstat`).
    pub fn check(&self) -> io::Result<()> {
        let now = self.file.metadata().map(|m| Stamp::of(&m));
        match now {
            Ok(now) if now == self.stamp => Ok(()),
            _ => Err(io::Error::other(ChangedOnDisk)),
        }
    }

    /// A failed positioned read: the change of the file if that is the cause.
    fn failed(&self, e: io::Error) -> io::Error {
        match self.check() {
            Err(changed) => changed,
            Ok(()) => e,
        }
    }

    /// The file's length (when opened, for positioned reads).
    pub fn len(&self) -> u64 {
        match &self.held {
            Held::Memory(v) => v.len() as u64,
            Held::Mapped(m) => m.len() as u64,
            Held::Positioned => self.stamp.len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `n` bytes at offset `at`: borrowed from memory or a map, read from a file. An error
    /// for a range beyond the end, and for a file read at positions that changed since it
    /// was opened ([`ChangedOnDisk`]).
    pub fn bytes(&self, at: u64, n: u64) -> io::Result<Cow<'_, [u8]>> {
        let end = at.checked_add(n).filter(|&e| e <= self.len());
        let end = end.ok_or_else(beyond_end)?;
        match &self.held {
            Held::Memory(v) => Ok(Cow::Borrowed(&v[at as usize..end as usize])),
            Held::Mapped(m) => Ok(Cow::Borrowed(&m[at as usize..end as usize])),
            Held::Positioned => {
                let mut buf = vec![0; n as usize];
                self.file
                    .read_exact_at(&mut buf, at)
                    .map_err(|e| self.failed(e))?;
                self.check()?;
                Ok(Cow::Owned(buf))
            }
        }
    }

    /// The two bytes at `at`: an error beyond the end, or as [`Storage::bytes`].
    #[inline]
    pub fn pair(&self, at: u64) -> io::Result<[u8; 2]> {
        let slice = |s: &[u8]| {
            s.get(at as usize..at as usize + 2)
                .map(|r| [r[0], r[1]])
                .ok_or_else(beyond_end)
        };
        match &self.held {
            Held::Memory(v) => slice(v),
            Held::Mapped(m) => slice(m),
            Held::Positioned => {
                if at.checked_add(2).is_none_or(|e| e > self.stamp.len) {
                    return Err(beyond_end());
                }
                let mut r = [0; 2];
                self.file
                    .read_exact_at(&mut r, at)
                    .map_err(|e| self.failed(e))?;
                self.check()?;
                Ok(r)
            }
        }
    }

    /// The xxh3-64 checksum of `n` bytes at `at` (a file is read in chunks, never whole).
    pub fn checksum(&self, at: u64, n: u64) -> io::Result<u64> {
        match &self.held {
            Held::Positioned => {
                let mut h = twox_hash::XxHash3_64::new();
                let mut done = 0;
                while done < n {
                    let k = CHUNK.min(n - done);
                    h.write(&self.bytes(at + done, k)?);
                    done += k;
                }
                Ok(h.finish())
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
        let open = || {
            let file = f.reopen().unwrap();
            let meta = file.metadata().unwrap();
            (file, meta)
        };
        let (c, meta) = open();
        let copy = Storage::read(c, &meta).unwrap();
        let (p, meta) = open();
        let file = Storage::positioned(p, &meta);
        assert!(file.survives_changes() && copy.survives_changes());
        assert_eq!(
            file.bytes(123, 4567).unwrap(),
            copy.bytes(123, 4567).unwrap()
        );
        assert_eq!(
            file.pair(len - 2).unwrap(),
            [data[len as usize - 2], data[len as usize - 1]]
        );
        assert!(file.pair(len - 1).is_err());
        assert!(file.check().is_ok());
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
        // Another program cuts the file: reads fail, nothing crashes, and even the bytes
        // still there are refused, as no longer the ones opened; the copy is unmoved.
        f.as_file().set_len(len / 2).unwrap();
        fn changed<T>(r: io::Result<T>) -> bool {
            r.is_err_and(|e| is_changed(&e))
        }
        assert!(changed(file.pair(len - 2)));
        assert!(changed(file.bytes(len - 100, 10)));
        assert!(changed(file.checksum(0, len)));
        assert!(changed(file.pair(2)));
        assert!(changed(file.check()) && changed(copy.check()));
        assert_eq!(copy.pair(2).unwrap(), [data[2], data[3]]);
    }
}

//! Writing a table's records past the page cache (`O_DIRECT`), where the system allows it.
//!
//! A table is written once and rarely read back soon in full: through the page cache, each
//! byte is copied into a fresh cache page and tracked as dirty until written back, which
//! costs the writer more system time than the device takes to store it (a 1.6 GB table:
//! 3.6 s of system time buffered, 0.13 s direct, here), and pushes out the sub-tables it
//! reads. Direct writes need a buffer, an offset and a length that are multiples of the
//! device's block; [`ALIGN`] (a page) is one on every device we know of. The records of a
//! section are written in whole pages at their page-aligned offsets, the last page padded
//! with zeros: the file's padding between sections is zeros anyway, and the file is cut
//! to its length once written.
//!
//! Where direct writes are refused (a file system without them, as tmpfs once was, or
//! another system), the same writes go through the page cache: only slower, never different.

use std::fs::File;
use std::io;

use super::ALIGN;

/// A buffer whose usable part starts at a multiple of [`ALIGN`] in memory.
#[derive(Default)]
pub struct Aligned {
    raw: Vec<u8>,
}

impl Aligned {
    /// `len` bytes, starting aligned, then zeros up to the next multiple of [`ALIGN`]: the
    /// caller fills the first `len`; [`DirectFile::write_at`] takes the whole padded slice.
    pub fn pages(&mut self, len: usize) -> &mut [u8] {
        let padded = (len as u64).div_ceil(ALIGN) as usize * ALIGN as usize;
        if self.raw.len() < padded + ALIGN as usize {
            self.raw = vec![0; padded + ALIGN as usize];
        }
        let start = self.raw.as_ptr().align_offset(ALIGN as usize);
        let region = &mut self.raw[start..start + padded];
        region[len..].fill(0);
        region
    }
}

/// A file written at aligned offsets, directly where possible.
pub struct DirectFile<'a> {
    file: &'a File,
    direct: bool,
}

impl<'a> DirectFile<'a> {
    /// Writes to `file` bypassing the page cache if the system lets it.
    pub fn new(file: &'a File) -> DirectFile<'a> {
        let mut d = DirectFile {
            file,
            direct: false,
        };
        d.direct = d.set_direct(true).is_ok();
        d
    }

    /// Turn `O_DIRECT` on or off.
    fn set_direct(&self, on: bool) -> io::Result<()> {
        #[cfg(target_os = "linux")]
        {
            use rustix::fs::{fcntl_getfl, fcntl_setfl, OFlags};
            let flags = fcntl_getfl(self.file)?;
            let want = if on {
                flags | OFlags::DIRECT
            } else {
                flags - OFlags::DIRECT
            };
            Ok(fcntl_setfl(self.file, want)?)
        }
        #[cfg(not(target_os = "linux"))]
        {
            match on {
                true => Err(io::ErrorKind::Unsupported.into()),
                false => Ok(()),
            }
        }
    }

    /// Write `buf` at `offset`: both multiples of [`ALIGN`] in length and place, and `buf`
    /// aligned in memory ([`Aligned::pages`]).
    pub fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<()> {
        debug_assert!(offset % ALIGN == 0 && buf.len() as u64 % ALIGN == 0);
        debug_assert!(!self.direct || buf.as_ptr() as usize % ALIGN as usize == 0);
        match write_all_at(self.file, buf, offset) {
            // A device with a block larger than a page (or a file system that took the flag
            // but not the write): the same bytes, through the page cache.
            Err(e) if self.direct && e.kind() == io::ErrorKind::InvalidInput => {
                self.buffered()?;
                write_all_at(self.file, buf, offset)
            }
            r => r,
        }
    }

    /// From now on through the page cache: for writes of any length and place (the header).
    fn buffered(&mut self) -> io::Result<()> {
        if self.direct {
            self.set_direct(false)?;
            self.direct = false;
        }
        Ok(())
    }

    /// Write `buf` at `offset`, any length and place.
    pub fn write_any_at(&mut self, buf: &[u8], offset: u64) -> io::Result<()> {
        self.buffered()?;
        write_all_at(self.file, buf, offset)
    }
}

#[cfg(unix)]
fn write_all_at(file: &File, buf: &[u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, buf, offset)
}

#[cfg(not(unix))]
fn write_all_at(mut file: &File, buf: &[u8], offset: u64) -> io::Result<()> {
    use std::io::{Seek, SeekFrom, Write};
    file.seek(SeekFrom::Start(offset))?;
    file.write_all(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_start_aligned_and_pad_with_zeros() {
        let mut a = Aligned::default();
        let pages = a.pages(5000);
        assert_eq!(pages.len(), 8192);
        assert_eq!(pages.as_ptr() as usize % ALIGN as usize, 0);
        pages.fill(7);
        // Asked again, shorter: the bytes past the length asked are zeros again.
        let pages = a.pages(100);
        assert_eq!(pages.len(), 4096);
        assert!(pages[..100].iter().all(|&b| b == 7));
        assert!(pages[100..].iter().all(|&b| b == 0));
    }

    #[test]
    fn pages_and_a_header_written_read_back_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t");
        let file = File::create(&path).unwrap();
        let mut out = DirectFile::new(&file);
        let mut a = Aligned::default();
        let pages = a.pages(6000);
        for (i, b) in pages[..6000].iter_mut().enumerate() {
            *b = (i % 251) as u8 + 1;
        }
        out.write_at(pages, 4096).unwrap();
        // The last page again, over its padding, as a section's next range would.
        let pages = a.pages(4096);
        pages.fill(9);
        out.write_at(pages, 8192).unwrap();
        out.write_any_at(b"head", 0).unwrap();
        let got = std::fs::read(&path).unwrap();
        assert_eq!(got.len(), 12288);
        assert_eq!(&got[..4], b"head");
        assert!(got[4..4096].iter().all(|&b| b == 0));
        assert!(got[4096..8192]
            .iter()
            .enumerate()
            .all(|(i, &b)| b == (i % 251) as u8 + 1));
        assert!(got[8192..].iter().all(|&b| b == 9));
    }
}

//! Reading a file a user names as input (a strategy graph, a search checkpoint): only a
//! regular file, opened without waiting for a writer, and only up to a stated limit. A
//! named pipe then cannot hang a command, nor `/dev/urandom` fill its memory.

use std::fs::{File, Metadata};
use std::io::Read;
use std::path::{Path, PathBuf};

/// Why an input file was not read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a regular file ({kind}); {what} must be a plain file")]
    NotRegular {
        path: PathBuf,
        kind: &'static str,
        what: &'static str,
    },
    #[error("{path}: larger than {}, the most read as {what}", size_text(*limit))]
    TooLarge {
        path: PathBuf,
        what: &'static str,
        limit: u64,
    },
    #[error("{path}: not UTF-8 text (bad byte at offset {offset})")]
    NotText { path: PathBuf, offset: usize },
}

/// `limit` in words: whole mebibytes as such, else bytes.
fn size_text(limit: u64) -> String {
    if limit >= 1 << 20 && limit % (1 << 20) == 0 {
        format!("{} MiB", limit >> 20)
    } else {
        format!("{limit} bytes")
    }
}

/// What kind of file `meta` describes, for a message.
pub fn kind_of(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a named pipe";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
    }
    "a special file"
}

/// The bytes of the regular file `path` (`what` it is, for messages), at most `limit` of
/// them: a larger file, or one that grows past the limit while read, is refused.
pub fn read(path: &Path, what: &'static str, limit: u64) -> Result<Vec<u8>, InputError> {
    let io = |source| InputError::Io {
        path: path.to_path_buf(),
        source,
    };
    let regular = |meta: &Metadata| {
        if meta.is_file() {
            Ok(())
        } else {
            Err(InputError::NotRegular {
                path: path.to_path_buf(),
                kind: kind_of(meta),
                what,
            })
        }
    };
    // Look before opening, and open without blocking: opening a named pipe for reading
    // otherwise waits for a writer.
    regular(&std::fs::metadata(path).map_err(io)?)?;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32);
    }
    let file: File = options.open(path).map_err(io)?;
    // And again on what was opened, in case the name was swapped in between.
    let meta = file.metadata().map_err(io)?;
    regular(&meta)?;
    let too_large = || InputError::TooLarge {
        path: path.to_path_buf(),
        what,
        limit,
    };
    if meta.len() > limit {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(bytes)
}

/// [`read`], as UTF-8 text.
pub fn read_text(path: &Path, what: &'static str, limit: u64) -> Result<String, InputError> {
    String::from_utf8(read(path, what, limit)?).map_err(|e| InputError::NotText {
        path: path.to_path_buf(),
        offset: e.utf8_error().valid_up_to(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_regular_file_within_the_limit_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("s.json");
        std::fs::write(&f, b"{}").unwrap();
        assert_eq!(read_text(&f, "a strategy", 2).unwrap(), "{}");
        let e = read(&f, "a strategy", 1).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{}: larger than 1 bytes, the most read as a strategy",
                f.display()
            )
        );
        let e = read(dir.path(), "a strategy", 10).unwrap_err();
        assert!(
            e.to_string().contains("not a regular file (a directory)"),
            "{e}"
        );
        // A device that never ends, and a named pipe no one writes: refused at once.
        let e = read(Path::new("/dev/urandom"), "a strategy", 10).unwrap_err();
        assert!(e.to_string().contains("(a device)"), "{e}");
        let fifo = dir.path().join("pipe");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let e = read(&fifo, "a strategy", 10).unwrap_err();
        assert!(e.to_string().contains("(a named pipe)"), "{e}");
        let e = InputError::TooLarge {
            path: f.clone(),
            what: "a strategy",
            limit: 256 << 20,
        };
        assert!(e.to_string().contains("larger than 256 MiB"), "{e}");
        std::fs::write(&f, b"\xff").unwrap();
        assert!(matches!(
            read_text(&f, "a strategy", 10),
            Err(InputError::NotText { offset: 0, .. })
        ));
    }
}

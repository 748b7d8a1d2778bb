//! Files written whole or not at all. Every file retro writes (a table, its compressed
//! form, a strategy, a search checkpoint) is written to a temporary file beside its final
//! name, synced, made readable by all (mode 0644: ordinary data that other users and the
//! server may read) and renamed over the final name. An error on the way (a full disk, a
//! file too large) leaves what was there before, or nothing, under the final name, and the
//! temporary file is removed; only a killed process leaves its temporary file, which
//! [`remove_stale_temps`] clears.
//!
//! The temporary file (`.<stem>.XXXXXX.tmp`, the stem being the final name without its
//! last extension) is locked (`flock`) while it is written: a file still locked belongs to
//! a writer at work and is left alone. Two runs writing one file at once (a retried task of
//! a distributed run while its first copy still works) therefore never touch each other's
//! temporary file: see [`AtomicFile::create`] for the moment between its creation and its
//! lock.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A file being written under a temporary name, renamed over its final name by
/// [`AtomicFile::commit`]; dropped without it, the temporary file is removed.
pub struct AtomicFile {
    tmp: tempfile::NamedTempFile,
    /// The final name (a symbolic link's target: the link stays a link).
    path: PathBuf,
}

/// How many temporary files [`AtomicFile::create`] tries before giving up.
const TEMP_ATTEMPTS: usize = 100;

/// The stem of `path`'s temporary files: its file name without the last extension.
fn stem_of(path: &Path) -> String {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    match name.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem.to_string(),
        _ => name.into_owned(),
    }
}

/// The file `path` names in the end: the target of a symbolic link, so that writing
/// through a link replaces what it points to, not the link. Refused if that is something
/// other than a regular file (a folder, a device such as `/dev/null`, a named pipe), which
/// a rename would replace.
fn final_path(path: &Path) -> io::Result<PathBuf> {
    if path.file_name().is_none() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a file name",
        ));
    }
    let target = match std::fs::canonicalize(path) {
        Ok(t) => t,
        // Not there yet (or a dangling link, whose own name is then written).
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(path.to_path_buf()),
        Err(e) => return Err(e),
    };
    let meta = std::fs::metadata(&target)?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} is {}, not a regular file: it is not replaced",
                target.display(),
                crate::input::kind_of(&meta)
            ),
        ));
    }
    Ok(target)
}

impl AtomicFile {
    /// A new temporary file for `path`, in its folder (made if missing), locked.
    pub fn create(path: &Path) -> io::Result<AtomicFile> {
        let path = final_path(path)?;
        let stem = stem_of(&path);
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&dir)?;
        // Another writer of the same stem clears unlocked temporary files as it starts, and
        // can catch this one between its creation and its lock: it then holds the lock, or
        // has already deleted the file. Either way the file is given up for a new one, so a
        // writer never writes into a file that is not under its name.
        for _ in 0..TEMP_ATTEMPTS {
            let tmp = tempfile::Builder::new()
                .prefix(&format!(".{stem}."))
                .suffix(".tmp")
                .tempfile_in(&dir)?;
            match tmp.as_file().try_lock() {
                Ok(()) => {}
                Err(std::fs::TryLockError::WouldBlock) => continue,
                Err(std::fs::TryLockError::Error(e)) => return Err(e),
            }
            if still_named(tmp.as_file(), tmp.path()) {
                return Ok(AtomicFile { tmp, path });
            }
        }
        Err(io::Error::other(format!(
            "{TEMP_ATTEMPTS} temporary files for {stem} were taken away as they were made"
        )))
    }

    /// The temporary file, to write.
    pub fn file(&self) -> &File {
        self.tmp.as_file()
    }

    /// The temporary file's name (for messages about writing it).
    pub fn temp_path(&self) -> &Path {
        self.tmp.path()
    }

    /// The final name.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Make the written file the final one: readable by all, synced, renamed over it.
    pub fn commit(self) -> io::Result<()> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            self.tmp
                .as_file()
                .set_permissions(std::fs::Permissions::from_mode(0o644))?;
        }
        self.tmp.as_file().sync_all()?;
        self.tmp.persist(&self.path).map_err(|e| e.error)?;
        Ok(())
    }
}

/// Write `bytes` as the file `path`, whole or not at all (see the module's notes).
pub fn write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let out = AtomicFile::create(path)?;
    let mut w = io::BufWriter::with_capacity(1 << 20, out.file());
    w.write_all(bytes)?;
    w.flush()?;
    drop(w);
    out.commit()
}

/// Whether `path` still names the open `file` (it was not removed or replaced).
fn still_named(file: &File, path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (file.metadata(), std::fs::metadata(path)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        path.exists()
    }
}

/// Whether `file_name` is a temporary file of stem `stem`.
fn is_temp_of(file_name: &str, stem: &str) -> bool {
    file_name
        .strip_prefix(&format!(".{stem}."))
        .and_then(|rest| rest.strip_suffix(".tmp"))
        .is_some_and(|mid| !mid.is_empty() && !mid.contains('.'))
}

/// Remove the temporary files of stem `stem` in `dir` that no running writer holds (left
/// by a killed run). Returns the files removed; a folder that does not exist has none.
pub fn remove_stale_temps(dir: &Path, stem: &str) -> io::Result<Vec<PathBuf>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut removed = Vec::new();
    for entry in entries {
        let entry = entry?;
        let file_name = entry.file_name();
        let Some(file_name) = file_name.to_str() else {
            continue;
        };
        if !is_temp_of(file_name, stem) || !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let path = entry.path();
        let Ok(file) = File::open(&path) else {
            continue;
        };
        // Locked: a writer is still at work on it.
        if file.try_lock().is_err() {
            continue;
        }
        match std::fs::remove_file(&path) {
            Ok(()) => removed.push(path),
            // Renamed into place by its writer since it was listed: a finished file.
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_file_is_replaced_whole_and_an_unfinished_one_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        write(&path, b"one").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"one");
        // Dropped before its commit: the old file stays, the temporary file goes.
        let out = AtomicFile::create(&path).unwrap();
        out.file().write_all(b"two, half").unwrap();
        let tmp = out.temp_path().file_name().unwrap().to_str().unwrap();
        assert!(is_temp_of(tmp, "s"), "{tmp}");
        drop(out);
        assert_eq!(names(dir.path()), ["s.json"]);
        assert_eq!(std::fs::read(&path).unwrap(), b"one");
        // Through a link, the target is replaced and the link stays.
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        write(&link, b"three").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(std::fs::read(&path).unwrap(), b"three");
        // A device or a folder is never replaced.
        let e = write(Path::new("/dev/null"), b"x").unwrap_err();
        assert!(e.to_string().contains("/dev/null is a device"), "{e}");
        let e = write(dir.path(), b"x").unwrap_err();
        assert!(e.to_string().contains("is a directory"), "{e}");
        use std::os::unix::fs::FileTypeExt;
        let null = std::fs::metadata("/dev/null").unwrap();
        assert!(null.file_type().is_char_device());
        assert_eq!(names(dir.path()), ["link.json", "s.json"]);
    }
}

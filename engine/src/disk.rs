//! Free disk space. A table set too large for the disk its files go to is refused before
//! anything is written, as one too large for memory is: a 6-piece table is a 31 GB file,
//! and running out of room hours into its solve would waste them.

use std::path::Path;

/// The bytes an unprivileged user may still write on the filesystem holding `dir`, or on
/// that of its nearest existing ancestor when `dir` is not made yet. `None` where that
/// cannot be asked (not Unix) or the question fails.
pub fn available(dir: &Path) -> Option<u64> {
    // An empty relative path (the parent of `tables`) is the current folder.
    let existing = dir
        .ancestors()
        .map(|d| {
            if d.as_os_str().is_empty() {
                Path::new(".")
            } else {
                d
            }
        })
        .find(|d| d.is_dir())?;
    free_on(existing)
}

#[cfg(unix)]
fn free_on(dir: &Path) -> Option<u64> {
    let s = rustix::fs::statvfs(dir).ok()?;
    s.f_bavail.checked_mul(s.f_frsize)
}

#[cfg(not(unix))]
fn free_on(_: &Path) -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_to_be_made_is_on_its_parents_disk() {
        let dir = tempfile::tempdir().unwrap();
        let here = available(dir.path()).expect("a temporary folder's disk");
        assert!(here > 0);
        let later = available(&dir.path().join("not/made/yet")).unwrap();
        // The same filesystem: the figures differ only by what others wrote meanwhile.
        assert!(later.abs_diff(here) < 1 << 30, "{later} vs {here}");
        assert!(available(Path::new("relative-not-made")).is_some());
    }
}

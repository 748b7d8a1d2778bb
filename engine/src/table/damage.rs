//! Damage met while probing: a compressed table's block that no longer reads (the file
//! changed after it was opened and checked).
//!
//! Values are looked up deep inside a game's move generation (a chess capture reads its
//! sub-table through [`crate::game::Game::successors`]), where no error can be returned.
//! So a lookup that meets a bad block records the damage on its thread and answers
//! `Value::Illegal`, and [`watch`] around a probe turns what was recorded into that
//! probe's error: no answer built on a damaged block gets out.

use std::cell::RefCell;

use super::TableError;

thread_local! {
    /// The first damage met since the innermost [`watch`] began, on this thread.
    static FOUND: RefCell<Option<TableError>> = const { RefCell::new(None) };
}

/// Record damage met by a lookup on this thread (the first is kept).
pub(crate) fn report(e: TableError) {
    FOUND.with(|f| {
        let mut f = f.borrow_mut();
        if f.is_none() {
            *f = Some(e);
        }
    });
}

/// Run `f` (which must not hand its lookups to other threads), and fail with the first
/// damage its lookups met. Watches nest: an inner one does not hide damage from an outer
/// one that had already met some.
pub fn watch<T>(f: impl FnOnce() -> T) -> Result<T, TableError> {
    let outer = FOUND.with(|x| x.borrow_mut().take());
    let out = f();
    let found = FOUND.with(|x| std::mem::replace(&mut *x.borrow_mut(), outer));
    match found {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn damage(n: u32) -> TableError {
        TableError::Block {
            path: PathBuf::from("t.rtbc"),
            detail: format!("block {n}"),
        }
    }

    #[test]
    fn a_watch_fails_with_the_first_damage_met_inside_it() {
        assert_eq!(watch(|| 7).unwrap(), 7);
        let e = watch(|| {
            report(damage(1));
            report(damage(2));
        })
        .unwrap_err();
        assert_eq!(e.to_string(), "t.rtbc: block 1");
        // Nothing carries over to the next watch.
        assert!(watch(|| ()).is_ok());
        // An inner watch's damage is its own; the outer one keeps what it met before.
        let outer = watch(|| {
            report(damage(3));
            assert!(watch(|| report(damage(4))).is_err());
            assert!(watch(|| ()).is_ok());
        });
        assert_eq!(outer.unwrap_err().to_string(), "t.rtbc: block 3");
    }
}

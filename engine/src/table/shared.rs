//! Tables opened once per process and shared: a chess table is the sub-table of many
//! others, and `retro serve` opens every table of a folder plus each one's sub-tables, so
//! without sharing a 5-piece set would hold each 4-piece table a dozen times.
//!
//! The key is the file's identity and state (its [`Stamp`]: device, inode, length, times)
//! and how its bytes are held, so a file replaced or rewritten since is opened afresh.
//! Entries are weak: a table no longer used by anyone is freed.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, Weak};

use super::storage::Stamp;
use super::{Load, Table, TableError};

type Key = (Stamp, Load);

static OPEN: Mutex<Option<HashMap<Key, Weak<Table>>>> = Mutex::new(None);

/// [`Table::open_with`], sharing a table already open in this process.
pub fn open(path: &Path, load: Load) -> Result<Arc<Table>, TableError> {
    // What the open will do, so that both requests share one table.
    let load = if super::reader::never_map() && load == Load::Auto {
        Load::Safe
    } else {
        load
    };
    let Ok(meta) = std::fs::metadata(path) else {
        // Let the real open name the problem.
        return Table::open_with(path, load).map(Arc::new);
    };
    let key = (Stamp::of(&meta), load);
    let cached = {
        let open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
        open.as_ref()
            .and_then(|m| m.get(&key))
            .and_then(Weak::upgrade)
    };
    if let Some(t) = cached {
        return Ok(t);
    }
    // Opened outside the lock: checking a large table's checksums takes a while.
    let t = Arc::new(Table::open_with(path, load)?);
    let mut open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
    let map = open.get_or_insert_with(HashMap::new);
    map.retain(|_, w| w.strong_count() > 0);
    map.insert(key, Arc::downgrade(&t));
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Game, Outcome, SolveOptions, Value};
    use crate::progress::Silent;
    use crate::solve::Solve;
    use crate::table::write_records;

    #[test]
    fn one_file_is_opened_once_and_a_rewritten_one_afresh() {
        let dir = tempfile::tempdir().unwrap();
        // A game of two positions: the first moves to the second, which is lost.
        let game = crate::testgame::Graph::new(
            vec![vec![Outcome::Index(1)], vec![]],
            vec![None, Some(Value::Loss(0))],
            vec![false, false],
        );
        let solution = game.solve(&SolveOptions { progress: &Silent }).unwrap();
        let sections = game.sections();
        let write = || {
            let (id, params) = game.params();
            write_records(
                dir.path(),
                id,
                "graph",
                params,
                &sections,
                &solution,
                &Silent,
            )
            .unwrap()
            .0
        };
        let path = write();
        let a = open(&path, Load::Auto).unwrap();
        let b = open(&path, Load::Auto).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        // A new file under the same name (a new inode) is a new table.
        std::fs::remove_file(&path).unwrap();
        write();
        let c = open(&path, Load::Auto).unwrap();
        assert!(!Arc::ptr_eq(&a, &c));
        assert_eq!(a.header(), c.header());
    }
}

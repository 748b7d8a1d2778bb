//! Which tables a request needs, in the order to make them: every sub-table before the
//! tables that read it.

use std::path::Path;

use super::material::Material;
use super::subtables::path_of;

/// `targets` and everything their captures and promotions lead to, recursively, each
/// after all of its children (fewer pieces first, then fewer pawns, then by name).
pub fn closure(targets: &[Material]) -> Vec<Material> {
    let mut all: Vec<Material> = Vec::new();
    let mut stack: Vec<Material> = targets.iter().map(|m| m.canonical().0).collect();
    while let Some(m) = stack.pop() {
        if all.contains(&m) {
            continue;
        }
        stack.extend(m.children());
        all.push(m);
    }
    all.sort_by_key(|m| (m.count(), m.has_pawns(), pawns(m), m.to_string()));
    all
}

fn pawns(m: &Material) -> usize {
    m.sides
        .iter()
        .flatten()
        .filter(|&&r| r == super::material::Role::Pawn)
        .count()
}

/// Whether the table of `m` in `dir` is there to use: `Ok(true)` present and intact
/// (checksums and shape: a resumed run skips it), `Ok(false)` absent or written by an older
/// retro in a format this build cannot read (generating it again is the only use of such a
/// file), and an error for a file that is there but damaged or of another table, which is
/// never overwritten silently: the user decides what to do with it.
pub fn present(dir: &Path, m: &Material) -> Result<bool, crate::table::TableError> {
    let path = path_of(dir, m);
    if !path.exists() || crate::table::written_in_older_format(&path) {
        return Ok(false);
    }
    let t = crate::table::Table::open(&path)?;
    let l = super::index::Layout::new(m);
    let h = t.header();
    let shape = h.game == "chess"
        && h.name == m.to_string()
        && h.sections.len() == 2
        && h.sections.iter().all(|s| s.records == l.section);
    if !shape {
        return Err(crate::table::TableError::WrongGame {
            path,
            found: format!("{} '{}'", h.game, h.name),
            expected: format!("chess '{m}'"),
        });
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order() {
        let v = closure(&[Material::parse("KRvKP").unwrap()]);
        let names: Vec<String> = v.iter().map(|m| m.to_string()).collect();
        // Every child comes before its parent.
        for (i, m) in v.iter().enumerate() {
            for c in m.children() {
                assert!(v[..i].contains(&c), "{c} before {m} in {names:?}");
            }
        }
        assert_eq!(names.last().unwrap(), "KRvKP");
        assert!(names.contains(&"KQvKR".to_string()));
    }

    #[test]
    fn a_table_of_an_older_format_is_made_again_a_damaged_one_refused() {
        let dir = tempfile::tempdir().unwrap();
        let m = Material::parse("KQvK").unwrap();
        assert!(!present(dir.path(), &m).unwrap());
        let p = crate::registry::plugin_in("KQvK", dir.path()).unwrap();
        crate::generate::generate(&*p, dir.path(), &crate::progress::Silent).unwrap();
        assert!(present(dir.path(), &m).unwrap());
        let path = path_of(dir.path(), &m);
        let good = std::fs::read(&path).unwrap();
        let mut old = good.clone();
        old[8..12].copy_from_slice(&2u32.to_le_bytes());
        std::fs::write(&path, &old).unwrap();
        assert!(
            !present(dir.path(), &m).unwrap(),
            "format 2: generate again"
        );
        let mut bad = good;
        bad[5000] ^= 1;
        std::fs::write(&path, &bad).unwrap();
        assert!(present(dir.path(), &m).is_err(), "damaged: refused");
    }
}

//! How to fix an error, in the words of the CLI and the server. The library's errors carry
//! data (a missing table's name, an old table's path); this names the command that fixes
//! each, so no command line is spelled anywhere below.

use std::error::Error;

use crate::chess::plan::TooBig;
use crate::chess::router::RouteError;
use crate::chess::set::SetError;
use crate::chess::subtables::{SubTableError, DTZ_SUFFIX};
use crate::generate::set::MakeError;
use crate::generate::GenerateError;
use crate::present::ProbeError;
use crate::registry::RegistryError;
use crate::table::TableError;
use crate::GAMES;

/// The command that makes table `name`, if a game knows the name.
pub fn generate_command(name: &str) -> Option<String> {
    GAMES
        .generate_args(name)
        .map(|args| format!("retro generate {}", args.join(" ")))
}

/// What to do about `e` or the first of its causes that says: `": create it with …"`, to
/// follow the error's message.
pub fn fix(e: &(dyn Error + 'static)) -> Option<String> {
    let mut cause = Some(e);
    while let Some(c) = cause {
        if let Some(f) = own_fix(c) {
            return Some(f);
        }
        cause = c.source();
    }
    None
}

/// `e`'s message, followed by its fix if it has one.
pub fn explained(e: &(dyn Error + 'static)) -> String {
    format!("{e}{}", fix(e).unwrap_or_default())
}

/// The fix of `e` itself, or of the error it wraps transparently (such an error's
/// `source` skips the wrapped one).
fn own_fix(e: &(dyn Error + 'static)) -> Option<String> {
    if let Some(e) = e.downcast_ref::<RegistryError>() {
        return match e {
            RegistryError::Missing { name, dir } | RegistryError::NoFolder { name, dir } => {
                generate_command(name)
                    .map(|c| format!(": create it with `{c} --out {}`", dir.display()))
            }
            RegistryError::Table(t) => table_fix(t),
            RegistryError::Open(e) => fix(e.as_ref()),
            RegistryError::Unknown { .. } | RegistryError::BadParams(_) => None,
        };
    }
    if let Some(t) = e.downcast_ref::<TableError>() {
        return table_fix(t);
    }
    if let Some(e) = e.downcast_ref::<MakeError>() {
        return match e {
            MakeError::Open(e) => fix(e.as_ref()),
            MakeError::Generate(e) => own_fix(e),
            MakeError::Table(t) => table_fix(t),
            MakeError::Threads(_) | MakeError::Remove { .. } | MakeError::Report(_) => None,
        };
    }
    if let Some(GenerateError::Table(t)) = e.downcast_ref::<GenerateError>() {
        return table_fix(t);
    }
    if let Some(ProbeError::Table(t)) = e.downcast_ref::<ProbeError>() {
        return table_fix(t);
    }
    if let Some(e) = e.downcast_ref::<RouteError>() {
        return match e {
            RouteError::Damaged(t) => table_fix(t),
            RouteError::Table(r) => own_fix(r),
            RouteError::Position(_) => None,
        };
    }
    let too_big = match e.downcast_ref::<SetError>() {
        Some(SetError::TooBig(t)) => Some(t),
        _ => e.downcast_ref::<TooBig>(),
    };
    if let Some(t) = too_big {
        // A figure the user gave is taken as meant; the one this machine reports may be
        // raised.
        return (t.source_of != "--max-memory").then(|| {
            " (or free some, or raise the figure with --max-memory if you know better)".into()
        });
    }
    if let Some(SubTableError::Missing {
        material,
        child,
        dir,
    }) = e.downcast_ref::<SubTableError>()
    {
        let (child_material, flag) = match child.strip_suffix(DTZ_SUFFIX) {
            Some(m) => (m, " --metric dtz"),
            None => (child.as_str(), ""),
        };
        return Some(format!(
            ": create it with `retro generate chess {child_material}{flag} --out {}` (or \
             generate {material} itself, which makes missing sub-tables first)",
            dir.display()
        ));
    }
    None
}

fn table_fix(t: &TableError) -> Option<String> {
    match t {
        TableError::OldVersion { path, name, .. } => {
            let command = generate_command(name).unwrap_or_else(|| "retro generate".into());
            Some(match path.parent() {
                Some(d) if d.as_os_str().is_empty() => {
                    format!(": regenerate it with `{command} --out .`")
                }
                Some(d) => format!(": regenerate it with `{command} --out {}`", d.display()),
                None => format!(": regenerate it with `{command}`"),
            })
        }
        TableError::OldCompressed { dense, .. } => Some(format!(
            ": make it again from its dense table with `retro compress {}`",
            dense.display()
        )),
        TableError::Version { .. } => {
            Some(": use a newer retro, or regenerate it with `retro generate`".into())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn missing(name: &str) -> RegistryError {
        RegistryError::Missing {
            name: name.into(),
            dir: PathBuf::from("t"),
        }
    }

    #[test]
    fn a_missing_table_is_named_with_its_family_s_command() {
        assert_eq!(
            fix(&missing("mnk-4x3-3")).as_deref(),
            Some(": create it with `retro generate mnk --width 4 --height 3 --k 3 --out t`")
        );
        assert_eq!(
            explained(&missing("KQvKR")),
            "no table 'KQvKR' in t: create it with `retro generate chess KQvKR --out t`"
        );
        // Wrapped transparently (whose `source` skips the wrapped error): still found.
        let routed = RouteError::Table(missing("kbnk"));
        assert_eq!(
            fix(&routed).as_deref(),
            Some(": create it with `retro generate kbnk --out t`")
        );
        // An error with nothing to do about it has no fix.
        assert_eq!(fix(&RegistryError::BadParams("bad".into())), None);
    }

    #[test]
    fn an_old_table_is_made_again_in_its_folder() {
        let old = RegistryError::Table(TableError::OldVersion {
            path: PathBuf::from("tables/KQvK.rtb"),
            found: 2,
            expected: 3,
            name: "KQvK".into(),
        });
        assert_eq!(
            fix(&old).as_deref(),
            Some(": regenerate it with `retro generate chess KQvK --out tables`")
        );
        let too_big = |source_of: &str| TooBig {
            table: "KQRvKR".into(),
            needed: 2,
            available: 1,
            source_of: source_of.into(),
        };
        assert!(fix(&too_big("MemAvailable")).is_some_and(|f| f.contains("--max-memory")));
        assert_eq!(fix(&SetError::TooBig(too_big("--max-memory"))), None);
    }
}

//! How to fix an error, in the words of the CLI and the server. The library's errors carry
//! data (a missing table's name, an old table's path); this names the command that fixes
//! each, so no command line is spelled anywhere below.

use std::error::Error;

use crate::chess::router::RouteError;
use crate::chess::subtables::{SubTableError, DTZ_SUFFIX};
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
            RegistryError::Missing { name, dir } => generate_command(name)
                .map(|c| format!(": create it with `{c} --out {}`", dir.display())),
            RegistryError::Table(t) => table_fix(t),
            RegistryError::Open(e) => fix(e.as_ref()),
            RegistryError::Unknown { .. } | RegistryError::BadParams(_) => None,
        };
    }
    #[cfg(feature = "server")]
    if let Some(crate::serve::ServeError::Registry(r)) = e.downcast_ref() {
        return own_fix(r);
    }
    if let Some(t) = e.downcast_ref::<TableError>() {
        return table_fix(t);
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

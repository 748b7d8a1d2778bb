//! The viewer's files, embedded in the binary: no build step, no CDN.
//!
//! A game's viewer is one JavaScript module in `assets/` exporting `viewer` (what `app.js`
//! asks of one: see `VIEWERS` there), and one entry in [`FILES`]: `viewer!("ID",
//! "FILE.js")`, where `ID` is what the game's family answers to `Family::viewer` (and
//! `/api/tables` says of each of its tables). Any other module it imports is one `file!`
//! entry more. The server makes `viewers.js`, the map `app.js` reads, from those entries.

use std::sync::OnceLock;

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

/// An embedded file: its name under `/assets/`, its bytes, and for a game's viewer the
/// viewer id it shows.
struct Asset {
    name: &'static str,
    bytes: &'static [u8],
    viewer: Option<&'static str>,
}

/// `assets/NAME`, embedded.
macro_rules! file {
    ($name:literal) => {
        Asset {
            name: $name,
            bytes: include_bytes!(concat!("assets/", $name)),
            viewer: None,
        }
    };
}

/// `assets/NAME`, embedded: the viewer of the tables whose viewer id is `ID`.
macro_rules! viewer {
    ($id:literal, $name:literal) => {
        Asset {
            viewer: Some($id),
            ..file!($name)
        }
    };
}

/// Every embedded file.
const FILES: &[Asset] = &[
    file!("index.html"),
    file!("app.js"),
    file!("picker.js"),
    file!("tables.js"),
    file!("stats.js"),
    file!("style.css"),
    file!("favicon.svg"),
    // The games' viewers, each with the modules it imports.
    viewer!("chess", "chess.js"),
    file!("chess-pos.js"),
    file!("chess-line.js"),
    file!("chess-practice.js"),
    file!("pieces.js"),
    viewer!("board", "mnk.js"),
    file!("mnk-chart.js"),
];

/// The module that maps each viewer id to its viewer, made from [`FILES`].
const VIEWERS: &str = "viewers.js";

/// The text of [`VIEWERS`]: `import { viewer as v0 } from "./chess.js"; …
/// export const VIEWERS = { "chess": v0, … };`.
fn viewers_module() -> &'static [u8] {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        let viewers: Vec<(&str, &str)> = FILES
            .iter()
            .filter_map(|a| a.viewer.map(|id| (id, a.name)))
            .collect();
        let mut text = String::from(
            "// The games' viewers by id, made by the server from its table of files.\n",
        );
        for (k, (_, name)) in viewers.iter().enumerate() {
            text.push_str(&format!("import {{ viewer as v{k} }} from \"./{name}\";\n"));
        }
        let entries: Vec<String> = (viewers.iter().enumerate())
            .map(|(k, (id, _))| format!("{id:?}: v{k}"))
            .collect();
        text.push_str(&format!(
            "export const VIEWERS = {{ {} }};\n",
            entries.join(", ")
        ));
        text
    })
    .as_bytes()
}

/// The content type of a file, from its extension.
fn mime(name: &str) -> &'static str {
    match name.rsplit_once('.').map_or("", |(_, ext)| ext) {
        "html" => "text/html; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        _ => "application/octet-stream",
    }
}

/// The page may load only its own files.
const CSP: &str = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The embedded file `name`, with an ETag; `304` when the client already has it.
pub fn respond(name: &str, headers: &HeaderMap) -> Option<Response> {
    let bytes = match name {
        VIEWERS => viewers_module(),
        _ => FILES.iter().find(|a| a.name == name)?.bytes,
    };
    let mime = mime(name);
    let etag = format!("\"{:016x}\"", crate::table::checksum(bytes));
    let etag = HeaderValue::from_str(&etag).expect("hex is a valid header value");
    let fresh = headers
        .get(header::IF_NONE_MATCH)
        .is_some_and(|v| v.as_bytes() == etag.as_bytes());
    let common = [
        (header::ETAG, etag),
        (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        (
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ),
        (
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CSP),
        ),
    ];
    if fresh {
        return Some((StatusCode::NOT_MODIFIED, common).into_response());
    }
    Some(
        (
            StatusCode::OK,
            common,
            [(header::CONTENT_TYPE, HeaderValue::from_static(mime))],
            bytes,
        )
            .into_response(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every viewer a game's family names has its entry, and the module made of the entries
    /// imports each viewer's file under its id.
    #[test]
    fn every_family_s_viewer_has_its_module() {
        let text = std::str::from_utf8(viewers_module()).unwrap();
        for f in crate::GAMES.families() {
            let id = f.viewer();
            if id == "none" {
                continue;
            }
            let a = FILES.iter().find(|a| a.viewer == Some(id));
            let a = a.unwrap_or_else(|| panic!("no viewer!({id:?}, …) entry for {}", f.id()));
            let js = std::str::from_utf8(a.bytes).unwrap();
            assert!(js.contains("export const viewer = {"), "{}", a.name);
            assert!(text.contains(&format!("from \"./{}\";", a.name)), "{text}");
        }
        assert!(
            text.ends_with("export const VIEWERS = { \"chess\": v0, \"board\": v1 };\n"),
            "{text}"
        );
    }

    #[test]
    fn content_types_follow_the_extension() {
        assert_eq!(mime("app.js"), "text/javascript; charset=utf-8");
        assert_eq!(mime("index.html"), "text/html; charset=utf-8");
        assert_eq!(mime("favicon.svg"), "image/svg+xml");
        assert_eq!(mime("style.css"), "text/css; charset=utf-8");
    }
}

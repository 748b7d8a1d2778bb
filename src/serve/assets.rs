//! The viewer's files, embedded in the binary: no build step, no CDN.

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

/// `(name, content type, bytes)` of every embedded file.
const FILES: &[(&str, &str, &[u8])] = &[
    (
        "index.html",
        "text/html; charset=utf-8",
        include_bytes!("assets/index.html"),
    ),
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_bytes!("assets/app.js"),
    ),
    (
        "chess.js",
        "text/javascript; charset=utf-8",
        include_bytes!("assets/chess.js"),
    ),
    (
        "chess-pos.js",
        "text/javascript; charset=utf-8",
        include_bytes!("assets/chess-pos.js"),
    ),
    (
        "chess-line.js",
        "text/javascript; charset=utf-8",
        include_bytes!("assets/chess-line.js"),
    ),
    (
        "chess-practice.js",
        "text/javascript; charset=utf-8",
        include_bytes!("assets/chess-practice.js"),
    ),
    (
        "picker.js",
        "text/javascript; charset=utf-8",
        include_bytes!("assets/picker.js"),
    ),
    (
        "tables.js",
        "text/javascript; charset=utf-8",
        include_bytes!("assets/tables.js"),
    ),
    (
        "stats.js",
        "text/javascript; charset=utf-8",
        include_bytes!("assets/stats.js"),
    ),
    (
        "mnk-chart.js",
        "text/javascript; charset=utf-8",
        include_bytes!("assets/mnk-chart.js"),
    ),
    (
        "mnk.js",
        "text/javascript; charset=utf-8",
        include_bytes!("assets/mnk.js"),
    ),
    (
        "pieces.js",
        "text/javascript; charset=utf-8",
        include_bytes!("assets/pieces.js"),
    ),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_bytes!("assets/style.css"),
    ),
    (
        "favicon.svg",
        "image/svg+xml",
        include_bytes!("assets/favicon.svg"),
    ),
];

/// The page may load only its own files.
const CSP: &str = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The embedded file `name`, with an ETag; `304` when the client already has it.
pub fn respond(name: &str, headers: &HeaderMap) -> Option<Response> {
    let &(_, mime, bytes) = FILES.iter().find(|(n, _, _)| *n == name)?;
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

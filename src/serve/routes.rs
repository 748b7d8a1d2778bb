//! The router: API, raw table files, embedded viewer.

use std::panic::{catch_unwind, AssertUnwindSafe};

use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use tower_http::services::ServeDir;

use super::api::ProbeQuery;
use super::assets;
use super::error::ApiError;
use super::state::AppState;

/// The longest position text accepted (a FEN is under 100 characters; the largest boards
/// are a few hundred).
pub const MAX_POSITION_LEN: usize = 1024;

/// Every route of `retro serve`.
pub fn router(state: AppState) -> Router {
    let files = tower::ServiceBuilder::new()
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            table_file_etag,
        ))
        .service(ServeDir::new(state.dir()).append_index_html_on_directories(false));
    Router::new()
        .route("/api/tables", get(tables))
        .route("/api/probe/{table}", get(probe))
        .route("/api", get(api_fallback))
        .route("/api/{*rest}", get(api_fallback))
        .nest_service("/tables", files)
        .route("/", get(index))
        .route("/assets/{file}", get(asset))
        .fallback(not_found)
        .with_state(state)
}

async fn tables(State(state): State<AppState>) -> Response {
    json_bytes(StatusCode::OK, state.list_json())
}

async fn probe(
    State(state): State<AppState>,
    table: Result<Path<String>, PathRejection>,
    query: Result<Query<ProbeQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let Path(name) = table.map_err(|e| ApiError::BadRequest(e.body_text()))?;
    let Query(q) = query.map_err(|e| ApiError::BadRequest(e.body_text()))?;
    let raw = q.position.or(q.fen).unwrap_or_default();
    if raw.trim().is_empty() {
        return Err(ApiError::MissingPosition);
    }
    if raw.len() > MAX_POSITION_LEN {
        return Err(ApiError::TooLong(MAX_POSITION_LEN));
    }
    // `_` stands for a space (no notation uses it), so FENs fit in URLs unescaped.
    let text = raw.replace('_', " ");
    let text = text.trim();
    // `chess`: the table follows the material on the board.
    let name = if name == "chess" && state.table("chess").is_none() {
        crate::chess::router::Router::table_for(text)?
    } else {
        name
    };
    let served = state.table(&name).ok_or_else(|| ApiError::UnknownTable {
        name: name.clone(),
        known: state.known().to_string(),
    })?;
    // A plug-in bug must not take a connection down: report it as a 500 instead.
    let body = catch_unwind(AssertUnwindSafe(|| {
        served
            .plugin
            .probe(&served.table, text)
            .map(|answer| answer.json().into_bytes())
    }))
    .map_err(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic".into());
        ApiError::Internal(what)
    })??;
    let mut res = json_bytes(StatusCode::OK, body);
    // Tables never change while served: the answer for a position is stable.
    res.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=3600"),
    );
    Ok(res)
}

async fn api_fallback(uri: Uri) -> ApiError {
    ApiError::NoRoute(uri.path().to_string())
}

async fn index(headers: HeaderMap) -> Response {
    assets::respond("index.html", &headers).unwrap_or_else(|| not_found_text().into_response())
}

async fn asset(Path(file): Path<String>, headers: HeaderMap) -> Response {
    assets::respond(&file, &headers).unwrap_or_else(|| not_found_text().into_response())
}

async fn not_found(uri: Uri) -> Response {
    if uri.path().starts_with("/api/") {
        return ApiError::NoRoute(uri.path().to_string()).into_response();
    }
    not_found_text().into_response()
}

fn not_found_text() -> (StatusCode, &'static str) {
    (StatusCode::NOT_FOUND, "not found\n")
}

/// A JSON answer; any page may read the API (simple GETs need no preflight).
fn json_bytes(status: StatusCode, body: impl Into<axum::body::Body>) -> Response {
    (
        status,
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            ),
            (
                header::ACCESS_CONTROL_ALLOW_ORIGIN,
                HeaderValue::from_static("*"),
            ),
        ],
        body.into(),
    )
        .into_response()
}

/// The file under `dir` a request path names, refusing anything that is not plain names
/// (`..`, `.`, absolute or drive paths, encoded or not): the same rule ServeDir applies.
fn file_under(dir: &std::path::Path, uri_path: &str) -> Option<std::path::PathBuf> {
    let decoded = percent_decode(uri_path.trim_start_matches('/'))?;
    let mut out = dir.to_path_buf();
    for c in std::path::Path::new(&decoded).components() {
        match c {
            std::path::Component::Normal(n) => out.push(n),
            _ => return None,
        }
    }
    Some(out)
}

fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A strong validator from the file's size and modification time (as nginx does).
fn etag_of(meta: &std::fs::Metadata) -> Option<HeaderValue> {
    let mtime = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    HeaderValue::from_str(&format!(
        "\"{:x}-{:x}{:09x}\"",
        meta.len(),
        mtime.as_secs(),
        mtime.subsec_nanos()
    ))
    .ok()
}

fn etag_matches(list: &HeaderValue, tag: &HeaderValue) -> bool {
    let Ok(list) = list.to_str() else {
        return false;
    };
    let tag = tag.to_str().unwrap_or_default();
    list.split(',')
        .map(str::trim)
        .any(|t| t == "*" || t == tag || t.strip_prefix("W/") == Some(tag))
}

/// ETag and conditional GET (`If-None-Match`, `If-Range`) for the raw table files; ServeDir
/// does Range and `If-Modified-Since` itself.
async fn table_file_etag(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let tag = file_under(state.dir(), req.uri().path())
        .and_then(|p| std::fs::metadata(p).ok())
        .filter(|m| m.is_file())
        .and_then(|m| etag_of(&m));
    if let Some(tag) = &tag {
        if let Some(inm) = req.headers().get(header::IF_NONE_MATCH) {
            if etag_matches(inm, tag) {
                return (StatusCode::NOT_MODIFIED, [(header::ETAG, tag.clone())]).into_response();
            }
        }
        // A Range only applies to the version the client names; otherwise send it all.
        let stale_range = req
            .headers()
            .get(header::IF_RANGE)
            .is_some_and(|v| v.as_bytes().first() == Some(&b'"') && v != tag);
        if stale_range {
            req.headers_mut().remove(header::RANGE);
        }
    }
    let mut res = next.run(req).await;
    if let Some(tag) = tag {
        if matches!(res.status(), StatusCode::OK | StatusCode::PARTIAL_CONTENT) {
            res.headers_mut().insert(header::ETAG, tag);
        }
    }
    res
}

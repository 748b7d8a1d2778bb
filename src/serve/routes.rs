//! The router: API, raw table files, embedded viewer.

use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use super::api::ProbeQuery;
use super::assets;
use super::error::{guarded, ApiError};
use super::state::{unchanged, AppState, Served, Snapshot};

/// The longest position text accepted (a FEN is under 100 characters; the largest boards
/// are a few hundred).
pub const MAX_POSITION_LEN: usize = 1024;

/// Every route of `retro serve`.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/api/tables", get(tables))
        .route("/api/tables/{table}/stats.json", get(stats))
        .route("/api/probe/{table}", get(probe))
        .route("/api/chess/materials", get(materials))
        .route("/api", get(api_fallback))
        .route("/api/{*rest}", get(api_fallback))
        .route("/tables/{file}", get(super::files::table_file))
        .route("/", get(index))
        .route("/assets/{file}", get(asset))
        .fallback(not_found)
        .with_state(state.clone())
        // The Lichess tablebase API (`/standard`, `/standard/mainline`).
        .merge(super::lichess::routes(state))
}

async fn tables(State(state): State<AppState>) -> Response {
    json_bytes(StatusCode::OK, state.now().tables.list_json())
}

async fn materials(State(state): State<AppState>) -> Response {
    json_bytes(StatusCode::OK, state.now().tables.materials_json())
}

async fn stats(
    State(state): State<AppState>,
    table: Result<Path<String>, PathRejection>,
) -> Result<Response, ApiError> {
    let Path(name) = table.map_err(|e| ApiError::BadRequest(e.body_text()))?;
    let now = state.now();
    let served = served(&now.tables, &name)?;
    // Made from the bytes as they were opened: not to be shown once the file changed.
    unchanged(served)?;
    let body = match served.stats.get().cloned() {
        Some(b) => b,
        // The first request reads the whole file for its checksums (a second or two for
        // the largest tables): on a blocking thread, not on the workers answering others.
        None => {
            let now = now.clone();
            tokio::task::spawn_blocking(move || make_stats(&now.tables, &name))
                .await
                .map_err(|e| ApiError::Internal(e.to_string()))??
        }
    };
    let mut res = json_bytes(StatusCode::OK, body);
    res.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=3600"),
    );
    Ok(res)
}

/// The served table `name`, or 404.
fn served<'a>(tables: &'a Snapshot, name: &str) -> Result<&'a Served, ApiError> {
    tables.table(name).ok_or_else(|| ApiError::UnknownTable {
        name: name.to_string(),
        known: tables.known().to_string(),
    })
}

/// Make (once) and return the statistics JSON of table `name`.
fn make_stats(tables: &Snapshot, name: &str) -> Result<axum::body::Bytes, ApiError> {
    let served = served(tables, name)?;
    // One at a time per table: the others wait, then take what it made.
    let _making = (served.making_stats.lock()).unwrap_or_else(|e| e.into_inner());
    if let Some(b) = served.stats.get() {
        return Ok(b.clone());
    }
    // Decoding the longest positions runs plug-in code: a bug becomes a 500.
    let made = guarded(|| {
        let s = super::stats::table_stats(name, served);
        serde_json::to_vec(&s).expect("plain data serialises")
    })?;
    // A change met while scanning is no statistics of the table.
    unchanged(served)?;
    Ok(served.stats.get_or_init(|| made.into()).clone())
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
    let now = state.now();
    // `chess`: the table follows the material on the board (its chess table, or a table
    // of another game that holds it).
    let answering = if name == "chess" && now.tables.table("chess").is_none() {
        let material = crate::chess::router::Router::table_for(text)?;
        crate::chess_answers::answering(&material, |n| now.tables.table(n).is_some())
    } else {
        crate::chess_answers::Answering {
            table: name,
            stand_in: None,
        }
    };
    let served = served(&now.tables, &answering.table)?;
    unchanged(served)?;
    // A plug-in bug must not take a connection down: report it as a 500 instead.
    let body = guarded(|| {
        answering
            .probe(&*served.plugin, &served.table, text)
            .map(|answer| answer.json().into_bytes())
    })??;
    let mut res = json_bytes(StatusCode::OK, body);
    // The answer for a position is stable while the table is (a replaced table answers
    // anew, under a new ETag of its file).
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

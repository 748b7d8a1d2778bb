//! The one error type of the HTTP API, and the one place it becomes a status code.

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

use super::api::ErrorBody;
use crate::game::PositionError;

/// Everything a request can get wrong (or, never expected, the server).
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// No table of that name is being served (the command that makes it is named when
    /// the name is one a game knows).
    #[error("no table '{name}' here{} (tables: {known})", make_hint(name))]
    UnknownTable { name: String, known: String },
    /// The position parameter is absent or empty.
    #[error("missing query parameter 'position' (a FEN for kbnk, a board string such as '.../.x./...' for k-in-a-row)")]
    MissingPosition,
    /// The position text is absurdly long.
    #[error("malformed position: longer than {0} characters")]
    TooLong(usize),
    /// The query string or path could not be decoded.
    #[error("bad request: {0}")]
    BadRequest(String),
    /// The game refused the position.
    #[error("{0}")]
    Position(#[from] PositionError),
    /// Not an API route.
    #[error("no such API endpoint: {0} (try /api/tables or /api/probe/<table>?position=...)")]
    NoRoute(String),
    /// Lichess API (`/standard`): no `fen`, or a query string that cannot be read.
    #[error("{0}")]
    TablebaseQuery(String),
    /// Lichess API: text that is not a FEN.
    #[error("invalid fen: {0}")]
    InvalidFen(String),
    /// Lichess API: a FEN of a position that cannot occur.
    #[error("illegal position: {0}")]
    IllegalPosition(String),
    /// Lichess API: no table holds the position (its material, more than 6 pieces, or
    /// castling rights).
    #[error("{0}")]
    NotInTablebase(String),
    /// A table read while probing is damaged (a compressed block that no longer reads):
    /// no answer, and the message names the file and the block.
    #[error("{0}")]
    Damaged(crate::table::TableError),
    /// A table's file changed on disk since it was opened: no answer from it until the
    /// folder is looked at again (within a second) and the table reopened.
    #[error("{0}")]
    Changed(crate::table::TableError),
    /// A bug: the plug-in panicked on this input. Reported, never propagated.
    #[error("internal error while probing: {0}")]
    Internal(String),
}

impl From<crate::present::ProbeError> for ApiError {
    fn from(e: crate::present::ProbeError) -> ApiError {
        match e {
            crate::present::ProbeError::Position(p) => ApiError::Position(p),
            crate::present::ProbeError::Table(t) => ApiError::table(t),
        }
    }
}

impl From<crate::chess::lichess::LichessError> for ApiError {
    fn from(e: crate::chess::lichess::LichessError) -> ApiError {
        use crate::chess::lichess::LichessError as L;
        match e {
            L::Query(q) => ApiError::TablebaseQuery(q),
            L::InvalidFen(f) => ApiError::InvalidFen(f),
            L::IllegalPosition(p) => ApiError::IllegalPosition(p),
            L::NotInTablebase(why) => ApiError::NotInTablebase(why),
            L::Missing { name } => ApiError::NotInTablebase(format!(
                "required table not found: {name} (make it with `{}`)",
                crate::fixes::generate_command(&name).unwrap_or_default()
            )),
            L::SubTables(e) => ApiError::NotInTablebase(crate::fixes::explained(&e)),
            L::Damaged(t) => ApiError::table(t),
        }
    }
}

impl ApiError {
    /// A table that no longer reads: changed on disk (503, try again) or damaged (500).
    fn table(t: crate::table::TableError) -> ApiError {
        match t {
            crate::table::TableError::Changed { .. } => ApiError::Changed(t),
            t => ApiError::Damaged(t),
        }
    }

    /// The status of each error: the only mapping in the server.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::UnknownTable { .. } | ApiError::NoRoute(_) | ApiError::NotInTablebase(_) => {
                StatusCode::NOT_FOUND
            }
            ApiError::MissingPosition
            | ApiError::TooLong(_)
            | ApiError::BadRequest(_)
            | ApiError::Position(_)
            | ApiError::TablebaseQuery(_)
            | ApiError::InvalidFen(_)
            | ApiError::IllegalPosition(_) => StatusCode::BAD_REQUEST,
            ApiError::Internal(_) | ApiError::Damaged(_) => StatusCode::INTERNAL_SERVER_ERROR,
            ApiError::Changed(_) => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    /// The JSON body: `{"error": ...}`, plus `"category": "illegal"` for a well-formed position
    /// that cannot occur (so a viewer can show it like any other result).
    pub fn body(&self) -> ErrorBody {
        ErrorBody {
            category: matches!(self, ApiError::Position(PositionError::Illegal(_)))
                .then_some("illegal"),
            reason: match self {
                ApiError::Position(PositionError::Illegal(r) | PositionError::Malformed(r)) => {
                    Some(r.clone())
                }
                _ => None,
            },
            missing: match self {
                ApiError::UnknownTable { name, .. } => Some(name.clone()),
                _ => None,
            },
            command: match self {
                ApiError::UnknownTable { name, .. } => make_command(name),
                _ => None,
            },
            error: self.to_string(),
        }
    }

    /// True for the errors of the Lichess API, which are plain text as lila-tablebase
    /// sends them (clients show the body as the message).
    pub fn is_plain_text(&self) -> bool {
        matches!(
            self,
            ApiError::TablebaseQuery(_)
                | ApiError::InvalidFen(_)
                | ApiError::IllegalPosition(_)
                | ApiError::NotInTablebase(_)
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if matches!(self, ApiError::Changed(_)) {
            // The table is opened again within a second of its change.
            let mut res = (self.status(), Json(self.body())).into_response();
            res.headers_mut()
                .insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
            return res;
        }
        if self.is_plain_text() {
            return (
                self.status(),
                [(header::ACCESS_CONTROL_ALLOW_ORIGIN, "*")],
                self.to_string(),
            )
                .into_response();
        }
        (self.status(), Json(self.body())).into_response()
    }
}

/// The command that makes table `name`, if a game knows the name.
fn make_command(name: &str) -> Option<String> {
    crate::fixes::generate_command(name)
}

/// `"; make it with `retro generate …`"`, or nothing for a name no game knows.
fn make_hint(name: &str) -> String {
    make_command(name)
        .map(|c| format!("; make it with `{c}`"))
        .unwrap_or_default()
}

/// Run plug-in code; a panic is reported as [`ApiError::Internal`], never propagated, so a
/// bug in one answer cannot take a connection down.
pub(crate) fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, ApiError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic".into());
        ApiError::Internal(what)
    })
}

//! The Lichess tablebase API over retro's chess tables, so that existing Lichess clients
//! work with only their base URL changed:
//!
//! | route | answer |
//! |---|---|
//! | `GET /standard?fen=<FEN>` | [`types::TablebaseResponse`]: lila-tablebase's fields, every legal move best first |
//! | `GET /standard/mainline?fen=<FEN>` | [`types::MainlineResponse`]: the line of best moves to mate (DTZ-optimal where DTZ tables answer) |
//!
//! Errors are plain text, as lila-tablebase sends them: 400 for a malformed FEN or an
//! illegal position, 404 for a material with no table (or more than 5 pieces, or usable
//! castling rights). DTZ comes from the DTZ tables served beside the DTM tables
//! (`KQvKR.dtz`, [`dtz`]), exact; without them, what retro cannot know exactly (DTZ outside
//! the materials where it is DTM, DTC) is `null`, never a guess: the rules are in [`rules`].

mod answer;
mod dtz;
mod fen;
pub mod rules;
pub mod types;

use std::sync::Arc;

use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use serde::Serialize;

use super::{ApiError, AppState};
use answer::Tablebase;
use types::TablebaseQuery;

/// The routes of the Lichess API, over the chess tables of `app`.
pub fn routes(app: AppState) -> Router {
    Router::new()
        .route("/standard", get(standard))
        .route("/standard/mainline", get(mainline))
        .with_state(Arc::new(Tablebase::new(app)))
}

type Tb = State<Arc<Tablebase>>;
type Q = Result<Query<TablebaseQuery>, QueryRejection>;

async fn standard(State(tb): Tb, query: Q) -> Result<Response, ApiError> {
    answer(query, |pos| tb.standard(pos))
}

async fn mainline(State(tb): Tb, query: Q) -> Result<Response, ApiError> {
    answer(query, |pos| tb.mainline(pos))
}

/// Read the FEN, answer, and send the JSON; a bug in the answer is a 500, never a
/// dropped connection.
fn answer<T: Serialize>(
    query: Q,
    f: impl FnOnce(&crate::chess::Position) -> Result<T, ApiError>,
) -> Result<Response, ApiError> {
    let Query(q) = query.map_err(|e| ApiError::TablebaseQuery(e.body_text()))?;
    let pos = fen::read(q.fen.as_deref())?;
    let body = super::error::guarded(|| f(&pos))??;
    let bytes = serde_json::to_vec(&body).map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok((
        StatusCode::OK,
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            ),
            (
                header::ACCESS_CONTROL_ALLOW_ORIGIN,
                HeaderValue::from_static("*"),
            ),
            // Tables never change while served: the answer for a FEN is stable.
            (
                header::CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=3600"),
            ),
        ],
        bytes,
    )
        .into_response())
}

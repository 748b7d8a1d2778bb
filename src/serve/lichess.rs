//! The Lichess tablebase API's routes (`/standard`, `/standard/mainline`): the answers are
//! the chess family's ([`crate::chess::lichess`]); here they are read from the query, sent
//! as JSON, and their errors given their status ([`ApiError`]).

use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use serde::Serialize;

use super::{ApiError, AppState};
use crate::chess::lichess::fen;
use crate::chess::lichess::types::TablebaseQuery;

/// The routes of the Lichess API, over the chess tables of `app`.
pub fn routes(app: AppState) -> Router {
    Router::new()
        .route("/standard", get(standard))
        .route("/standard/mainline", get(mainline))
        .with_state(app)
}

type Q = Result<Query<TablebaseQuery>, QueryRejection>;

async fn standard(State(app): State<AppState>, query: Q) -> Result<Response, ApiError> {
    answer(query, |pos| Ok(app.now().lichess.standard(pos)?))
}

async fn mainline(State(app): State<AppState>, query: Q) -> Result<Response, ApiError> {
    answer(query, |pos| Ok(app.now().lichess.mainline(pos)?))
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

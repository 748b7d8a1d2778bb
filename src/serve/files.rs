//! `GET /tables/<file>`: the raw table files, and nothing else.
//!
//! Only the file names `/api/tables` lists are served: each a table's file, a regular file
//! inside the tables folder when it was opened. What is sent is that open file, the very
//! bytes the probes read, never what its name leads to now: a link to `/etc/passwd` put
//! in its place later is not followed, and a file changed in place since it was opened
//! answers 503 until the folder's next look opens it again. No stray file, temporary
//! file, special file or link out of the folder is reachable, whatever the name.
//!
//! tower-http's `ServeFile` sends the bytes (Range, `Last-Modified`), from the open file
//! (through `/proc/self/fd`); the request's validators are first brought in line with RFC
//! 9110, where `ServeFile` is looser:
//!
//! - a `Range` that is not one well-formed byte range (several ranges, `500-100`, garbage)
//!   is ignored: 200 with the whole file (§14.2), not 416;
//! - `If-Range` keeps the Range only for our strong ETag or the exact `Last-Modified` date;
//!   a weak tag, another tag or another date means the whole file (§13.1.5);
//! - `If-Modified-Since` is ignored when `If-None-Match` is present or the date is in the
//!   future (§13.1.3);
//! - `If-None-Match` matching the ETag (weak comparison) gives 304;
//! - `If-Match` not naming the ETag (strong comparison) gives 412 (§13.1.1).

use std::os::fd::AsRawFd;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::extract::{Path as UrlPath, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use tower::ServiceExt;
use tower_http::services::ServeFile;

use super::state::AppState;
use crate::table::storage::Stamp;

/// A strong validator from the file's size and modification time (as nginx does).
fn etag_of(stamp: &Stamp) -> Option<HeaderValue> {
    let (secs, nanos) = stamp.modified;
    HeaderValue::from_str(&format!("\"{:x}-{:x}{:09x}\"", stamp.len, secs, nanos)).ok()
}

/// The modification time of a stamp.
fn modified(stamp: &Stamp) -> Option<SystemTime> {
    let (secs, nanos) = stamp.modified;
    let secs = u64::try_from(secs).ok()?;
    Some(UNIX_EPOCH + Duration::new(secs, u32::try_from(nanos).ok()?))
}

/// Whether an `If-Match` list names `tag` (strong comparison: a weak tag never matches).
fn any_match(list: &HeaderValue, tag: &HeaderValue) -> bool {
    let (Ok(list), Ok(tag)) = (list.to_str(), tag.to_str()) else {
        return false;
    };
    list.split(',').map(str::trim).any(|t| t == "*" || t == tag)
}

/// Whether an `If-None-Match` list names `tag` (weak comparison: `W/` is ignored).
fn none_match(list: &HeaderValue, tag: &HeaderValue) -> bool {
    let (Ok(list), Ok(tag)) = (list.to_str(), tag.to_str()) else {
        return false;
    };
    list.split(',')
        .map(str::trim)
        .any(|t| t == "*" || t.strip_prefix("W/").unwrap_or(t) == tag)
}

/// Whether `range` is exactly one satisfiable-looking byte range: `bytes=a-b` with a <= b,
/// `bytes=a-` or `bytes=-n`. Anything else is to be ignored (RFC 9110 §14.2).
pub fn single_range(range: &HeaderValue) -> bool {
    let Some(spec) = range.to_str().ok().and_then(|r| r.strip_prefix("bytes=")) else {
        return false;
    };
    let Some((a, b)) = spec.trim().split_once('-') else {
        return false;
    };
    let num = |s: &str| -> Option<u64> {
        (!s.is_empty() && s.bytes().all(|c| c.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    match (a.is_empty(), b.is_empty()) {
        (false, false) => matches!((num(a), num(b)), (Some(x), Some(y)) if x <= y),
        (false, true) => num(a).is_some(),
        (true, false) => num(b).is_some(),
        (true, true) => false,
    }
}

/// Whether an `If-Range` value lets the Range apply to this version of the file.
fn if_range_holds(value: &HeaderValue, tag: &HeaderValue, modified: Option<SystemTime>) -> bool {
    if value.as_bytes().starts_with(b"\"") {
        // Strong comparison: only our exact strong tag (a `W/` tag never starts with `"`).
        return value == tag;
    }
    if value.as_bytes().starts_with(b"W/") {
        return false;
    }
    let (Some(date), Some(modified)) = (
        value
            .to_str()
            .ok()
            .and_then(|v| httpdate::parse_http_date(v).ok()),
        modified,
    ) else {
        return false;
    };
    // HTTP dates have whole seconds: the file's time, truncated, must be exactly the date.
    let secs = |t: SystemTime| t.duration_since(UNIX_EPOCH).map(|d| d.as_secs()).ok();
    secs(date).is_some() && secs(date) == secs(modified)
}

/// Drop the validators RFC 9110 says to ignore, so `ServeFile` sees only those that apply.
fn normalise(headers: &mut HeaderMap, tag: &HeaderValue, modified: Option<SystemTime>) {
    if headers.get(header::RANGE).is_some_and(|r| !single_range(r)) {
        headers.remove(header::RANGE);
    }
    if let Some(v) = headers.remove(header::IF_RANGE) {
        if !if_range_holds(&v, tag, modified) {
            headers.remove(header::RANGE);
        }
    }
    let future_ims = headers
        .get(header::IF_MODIFIED_SINCE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| httpdate::parse_http_date(v).ok())
        .is_some_and(|d| d > SystemTime::now());
    if future_ims || headers.contains_key(header::IF_NONE_MATCH) {
        headers.remove(header::IF_MODIFIED_SINCE);
    }
}

fn not_found() -> Response {
    (StatusCode::NOT_FOUND, "not found\n").into_response()
}

/// `GET /tables/<file>`.
pub async fn table_file(
    State(state): State<AppState>,
    UrlPath(name): UrlPath<String>,
    mut req: Request,
) -> Response {
    let now = state.now();
    let Some(served) = now.tables.file(&name) else {
        return not_found();
    };
    if let Err(e) = super::state::unchanged(served) {
        return e.into_response();
    }
    let (file, stamp) = served.table.file();
    let Some(tag) = etag_of(&stamp) else {
        return not_found();
    };
    if let Some(im) = req.headers().get(header::IF_MATCH) {
        if !any_match(im, &tag) {
            return (StatusCode::PRECONDITION_FAILED, [(header::ETAG, tag)]).into_response();
        }
    }
    if req
        .headers()
        .get(header::IF_NONE_MATCH)
        .is_some_and(|inm| none_match(inm, &tag))
    {
        return (StatusCode::NOT_MODIFIED, [(header::ETAG, tag)]).into_response();
    }
    normalise(req.headers_mut(), &tag, modified(&stamp));
    // The open file itself: `/proc/self/fd/N` opens the file this descriptor holds, not
    // whatever the table's name leads to now.
    let open = format!("/proc/self/fd/{}", file.as_raw_fd());
    let mut res = match ServeFile::new(open).oneshot(req).await {
        Ok(r) => r.into_response(),
        Err(never) => match never {},
    };
    if matches!(res.status(), StatusCode::OK | StatusCode::PARTIAL_CONTENT) {
        res.headers_mut().insert(header::ETAG, tag);
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_one_well_formed_range_is_honoured() {
        for ok in ["bytes=0-99", "bytes=5-5", "bytes=100-", "bytes=-500"] {
            assert!(single_range(&HeaderValue::from_static(ok)), "{ok}");
        }
        for bad in [
            "bytes=0-1,5-9",
            "bytes=500-100",
            "bytes=-",
            "bytes=a-b",
            "bytes=1-2-3",
            "items=0-1",
            "bytes=+1-2",
            "bytes=99999999999999999999999-",
        ] {
            assert!(!single_range(&HeaderValue::from_static(bad)), "{bad}");
        }
    }

    #[test]
    fn if_range_needs_the_strong_tag_or_the_exact_date() {
        let tag = HeaderValue::from_static("\"abc\"");
        let t = UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        let date = httpdate::fmt_http_date(t);
        let hv = |s: &str| HeaderValue::from_str(s).unwrap();
        assert!(if_range_holds(&hv("\"abc\""), &tag, Some(t)));
        assert!(!if_range_holds(&hv("W/\"abc\""), &tag, Some(t)));
        assert!(!if_range_holds(&hv("\"abd\""), &tag, Some(t)));
        assert!(if_range_holds(&hv(&date), &tag, Some(t)));
        let later = httpdate::fmt_http_date(t + std::time::Duration::from_secs(1));
        assert!(!if_range_holds(&hv(&later), &tag, Some(t)));
        assert!(!if_range_holds(&hv("yesterday"), &tag, Some(t)));
    }
}

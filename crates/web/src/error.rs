//! The API's one error shape, `{"error": message, "code": name}`, and the
//! extractors that turn every malformed request into it, in the API's own
//! sentences (axum's rejections answer in plain text, in its own words).

use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::path::ErrorKind;
use axum::extract::rejection::PathRejection;
use axum::extract::{FromRequest, FromRequestParts, Path, Query, Request};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;

use crate::AppState;

/// A failed request: the status, a stable machine-readable code and a
/// sentence for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ApiError {
    pub(crate) status: StatusCode,
    pub(crate) code: &'static str,
    pub(crate) message: String,
}

impl ApiError {
    pub(crate) fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError { status, code, message: message.into() }
    }

    pub(crate) fn unknown_game() -> Self {
        ApiError::new(StatusCode::NOT_FOUND, "unknown_game", "no such game (it may have expired)")
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "error": self.message, "code": self.code });
        (self.status, Json(body)).into_response()
    }
}

/// A JSON request body, read within the body limit. An empty body reads as
/// `{}`, so that requests with nothing to say need not send anything.
/// Syntax errors are 400, well-formed JSON of the wrong shape 422, a body
/// over the limit 413, a body not sent as `application/json` 415 (a page of
/// another site can send `text/plain` without asking first; see guard.rs),
/// a body slower than [`crate::Limits::body_timeout`] 408.
#[derive(Debug)]
pub(crate) struct Body<T>(pub(crate) T);

impl<T: DeserializeOwned> FromRequest<Arc<AppState>> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &Arc<AppState>) -> Result<Self, ApiError> {
        let json = req
            .headers()
            .get(axum::http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
        let timeout = state.limits().body_timeout;
        let read = tokio::time::timeout(timeout, Bytes::from_request(req, state)).await;
        let bytes = read
            .map_err(|_| {
                ApiError::new(
                    StatusCode::REQUEST_TIMEOUT,
                    "slow_body",
                    format!("the request body did not arrive within {} s", timeout.as_secs_f64()),
                )
            })?
            .map_err(|rejection| {
                let status = rejection.status();
                if status == StatusCode::PAYLOAD_TOO_LARGE {
                    let limit = state.limits().max_body_bytes;
                    let message = format!("the request body is over the limit of {limit} bytes");
                    return ApiError::new(status, "too_large", message);
                }
                ApiError::new(status, "bad_body", "the request body could not be read to its end")
            })?;
        let empty = bytes.iter().all(u8::is_ascii_whitespace);
        if !empty && !json {
            return Err(ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "bad_content_type",
                "a request body must be sent as content-type: application/json",
            ));
        }
        let text: &[u8] = if empty { b"{}" } else { &bytes };
        serde_json::from_slice(text).map(Body).map_err(|err| {
            let (status, code) = match err.classify() {
                serde_json::error::Category::Data => {
                    (StatusCode::UNPROCESSABLE_ENTITY, "bad_field")
                }
                _ => (StatusCode::BAD_REQUEST, "bad_json"),
            };
            ApiError::new(status, code, format!("invalid JSON body: {err}"))
        })
    }
}

/// A path parameter, refused with a JSON 400.
#[derive(Debug)]
pub(crate) struct ApiPath<T>(pub(crate) T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for ApiPath<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        Path::<T>::from_request_parts(parts, state).await.map(|Path(value)| ApiPath(value)).map_err(
            |rejection| ApiError::new(rejection.status(), "bad_path", path_message(&rejection)),
        )
    }
}

/// What is wrong with the address, in the API's words (axum's messages
/// name its own types: "Invalid URL: Cannot parse ...").
fn path_message(rejection: &PathRejection) -> String {
    let PathRejection::FailedToDeserializePathParams(err) = rejection else {
        return "the server could not read the address's parameters".to_owned();
    };
    let what = |key: &str| if key == "id" { "game id".to_owned() } else { key.to_owned() };
    match err.kind() {
        ErrorKind::InvalidUtf8InPathParam { key } => {
            format!("the {} in the address is not valid UTF-8 text", what(key))
        }
        ErrorKind::ParseErrorAtKey { key, value, .. } => {
            format!("the {} in the address cannot be {value:?}", what(key))
        }
        _ => "the address does not name anything this API has".to_owned(),
    }
}

/// A query string, refused with a JSON 400.
#[derive(Debug)]
pub(crate) struct ApiQuery<T>(pub(crate) T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        Query::<T>::from_request_parts(parts, state)
            .await
            .map(|Query(value)| ApiQuery(value))
            .map_err(|rejection| {
                let message = query_message(&rejection.body_text(), parts.uri.query());
                ApiError::new(rejection.status(), "bad_query", message)
            })
    }
}

/// A query string's fault in the API's words, from axum's rejection text
/// ("Failed to deserialize query string: delay_ms: invalid digit found in
/// string") and the query itself.
fn query_message(rejection: &str, query: Option<&str>) -> String {
    let detail =
        rejection.strip_prefix("Failed to deserialize query string: ").unwrap_or(rejection);
    // serde_path_to_error puts the parameter's name first: "delay_ms: ...".
    let (key, why) = match detail.split_once(": ") {
        Some((key, why)) if !key.contains(' ') => (Some(key), why),
        _ => (None, detail),
    };
    let quoted: Vec<&str> = why.split('`').skip(1).step_by(2).collect();
    if why.starts_with("unknown field")
        && let Some((name, known)) = quoted.split_first()
    {
        return format!("unknown query parameter {name} (this request takes {})", list(known));
    }
    if why.starts_with("missing field")
        && let Some(name) = quoted.first()
    {
        return format!("the query parameter {name} is missing");
    }
    let Some(key) = key else {
        return "the query string does not read as this request's parameters".to_owned();
    };
    let value = query
        .unwrap_or_default()
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find_map(|(k, v)| (k == key).then_some(v))
        .unwrap_or_default();
    // Rust's integer parse errors: the parameter is a number.
    if why.contains("digit") || why.contains("number") || why.contains("empty string") {
        return format!("the query parameter {key} must be a whole number, not {value}");
    }
    format!("the query parameter {key} cannot be {value:?}")
}

/// `a`, `a and b`, `a, b and c`.
fn list(names: &[&str]) -> String {
    match names {
        [] => "no parameters".to_owned(),
        [one] => format!("only {one}"),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

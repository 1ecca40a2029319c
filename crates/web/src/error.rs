//! The API's one error shape, `{"error": message, "code": name}`, and the
//! extractors that turn every malformed request into it (axum's own
//! rejections answer in plain text).

use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
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
                let code =
                    if status == StatusCode::PAYLOAD_TOO_LARGE { "too_large" } else { "bad_body" };
                ApiError::new(status, code, rejection.body_text())
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
            |rejection| ApiError::new(rejection.status(), "bad_path", rejection.body_text()),
        )
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
                ApiError::new(rejection.status(), "bad_query", rejection.body_text())
            })
    }
}

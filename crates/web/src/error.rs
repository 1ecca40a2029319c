//! The API's one error shape, `{"error": message, "code": name}`, and the
//! extractors that turn every malformed request into it (axum's own
//! rejections answer in plain text).

use axum::Json;
use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, Query, Request};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;

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
/// over the limit 413. The content type is not checked: the body is JSON or
/// it is refused.
#[derive(Debug)]
pub(crate) struct Body<T>(pub(crate) T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            let status = rejection.status();
            let code =
                if status == StatusCode::PAYLOAD_TOO_LARGE { "too_large" } else { "bad_body" };
            ApiError::new(status, code, rejection.body_text())
        })?;
        let text: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) { b"{}" } else { &bytes };
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

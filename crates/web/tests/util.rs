//! Helpers: a router with small limits, and one call returning status and
//! JSON.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use serde_json::Value;
use tower::ServiceExt;
use web::{AppState, Limits};

/// Limits that keep tests quick: short searches, small tables.
pub(crate) fn limits() -> Limits {
    Limits {
        search_budget: Duration::from_millis(40),
        table_bytes: 1 << 20,
        search_slots: 2,
        ..Limits::default()
    }
}

/// A weights path that does not exist, so the learned presets are
/// unavailable whatever the tree holds.
pub(crate) fn missing_weights() -> PathBuf {
    PathBuf::from("/nonexistent/web-tests/missing.n2048")
}

pub(crate) fn app_with(limits: Limits) -> (Router, Arc<AppState>) {
    let state = AppState::new(limits, Some(missing_weights()), None, web::Hosts::any());
    (web::router(Arc::clone(&state)), state)
}

pub(crate) fn app() -> Router {
    app_with(limits()).0
}

/// Sends one request; the body is sent as JSON when given.
pub(crate) async fn send(app: &Router, method: &str, uri: &str, body: Option<&str>) -> Response {
    let mut req = Request::builder().method(method).uri(uri);
    if body.is_some() {
        req = req.header(header::CONTENT_TYPE, "application/json");
    }
    let req = req.body(Body::from(body.unwrap_or("").to_owned())).expect("a valid request");
    let res = app.clone().oneshot(req).await.expect("the router never fails");
    let status = res.status();
    let content_type = res
        .headers()
        .get(header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap_or("").to_owned())
        .unwrap_or_default();
    let bytes = axum::body::to_bytes(res.into_body(), 1 << 20).await.expect("a readable body");
    Response { status, content_type, text: String::from_utf8_lossy(&bytes).into_owned() }
}

/// A response, read whole.
#[derive(Debug)]
pub(crate) struct Response {
    pub(crate) status: StatusCode,
    pub(crate) content_type: String,
    pub(crate) text: String,
}

impl Response {
    #[track_caller]
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.text)
            .unwrap_or_else(|err| panic!("not JSON ({err}): {:?}", self.text))
    }

    /// Asserts an API error with this status and code.
    #[track_caller]
    pub(crate) fn assert_error(&self, status: StatusCode, code: &str) {
        assert_eq!(self.status, status, "{}", self.text);
        assert!(self.content_type.starts_with("application/json"), "{}", self.content_type);
        let json = self.json();
        assert_eq!(json["code"], code, "{json}");
        assert!(json["error"].as_str().is_some_and(|m| !m.is_empty()), "{json}");
    }
}

/// Starts a game from `seed` and returns its state.
pub(crate) async fn new_game(app: &Router, seed: u64) -> Value {
    let res = send(app, "POST", "/api/games", Some(&format!(r#"{{"seed":{seed}}}"#))).await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.text);
    res.json()
}

pub(crate) fn id(state: &Value) -> String {
    state["id"].as_str().expect("an id").to_owned()
}

pub(crate) fn legal(state: &Value) -> Vec<String> {
    state["legal"]
        .as_array()
        .expect("legal")
        .iter()
        .map(|d| d.as_str().unwrap().to_owned())
        .collect()
}

pub(crate) async fn play(app: &Router, id: &str, dir: &str) -> Response {
    send(
        app,
        "POST",
        &format!("/api/games/{id}/move"),
        Some(&format!(r#"{{"direction":"{dir}"}}"#)),
    )
    .await
}

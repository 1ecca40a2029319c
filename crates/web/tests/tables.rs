//! The corner tables from the page: the server offers them where they are
//! missing, builds them in the background on request (one build at a
//! time), says how far it has come, and then plays the corner preset by
//! default.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::http::StatusCode;
use serde_json::Value;
use web::{AppState, CornerTables, Hosts};

use crate::util::{limits, missing_weights, new_game, send};

/// A server whose corner tables live in `dir` (the smallest corner set:
/// real tables, built in a moment).
fn app_with_tables(dir: &std::path::Path) -> Router {
    let corner = CornerTables { dir: dir.to_path_buf(), max_states: Some(2_000_000) };
    let state = AppState::with_corner_tables(
        limits(),
        Some(missing_weights()),
        None,
        Hosts::any(),
        Some(corner),
    );
    web::router(Arc::clone(&state))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("web-tables-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// `GET /api/tables` until its state is no longer `building` (the page
/// polls it the same way), within a minute.
async fn until_built(app: &Router) -> Value {
    let started = Instant::now();
    loop {
        let json = send(app, "GET", "/api/tables", None).await.json();
        if json["state"] != "building" {
            return json;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "still building: {json}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn default_of(presets: &Value) -> &str {
    presets["default"].as_str().unwrap()
}

#[tokio::test]
async fn the_page_builds_the_corner_tables_and_corner_becomes_the_default() {
    let dir = scratch("build");
    let app = app_with_tables(&dir);
    let tables = send(&app, "GET", "/api/tables", None).await.json();
    assert_eq!(tables["state"], "missing", "{tables}");
    assert!(tables["message"].as_str().unwrap().starts_with("the strongest player, corner, needs"));
    assert!(tables["bytes"].as_u64().unwrap() > 0 && tables["total"].as_u64().unwrap() > 0);
    let presets = send(&app, "GET", "/api/presets", None).await.json();
    assert_eq!(default_of(&presets), "heuristic", "the tests' network is missing");
    let corner = presets["presets"].as_array().unwrap().iter().find(|p| p["name"] == "corner");
    let reason = corner.unwrap()["reason"].as_str().unwrap();
    assert!(reason.contains("build them from the menu"), "{reason}");

    let res = send(&app, "POST", "/api/tables/build", None).await;
    assert_eq!(res.status, StatusCode::ACCEPTED, "{}", res.text);
    // One build at a time: a second request is refused, while the first
    // runs or once it is done.
    let again = send(&app, "POST", "/api/tables/build", None).await;
    assert_eq!(again.status, StatusCode::CONFLICT, "{}", again.text);
    let code = again.json()["code"].as_str().unwrap().to_owned();
    assert!(code == "build_running" || code == "tables_built", "{}", again.text);

    let tables = until_built(&app).await;
    assert_eq!(tables["state"], "built", "{tables}");
    let presets = send(&app, "GET", "/api/presets", None).await.json();
    assert_eq!(default_of(&presets), "corner");
    // The corner preset plays now.
    let game = new_game(&app, 3).await;
    let id = game["id"].as_str().unwrap();
    let hint =
        send(&app, "POST", &format!("/api/games/{id}/hint"), Some(r#"{"preset":"corner"}"#)).await;
    assert_eq!(hint.status, StatusCode::OK, "{}", hint.text);
    send(&app, "POST", "/api/tables/build", None)
        .await
        .assert_error(StatusCode::CONFLICT, "tables_built");
    // A server started on that folder plays the corner preset from the
    // start.
    let later = app_with_tables(&dir);
    let presets = send(&later, "GET", "/api/presets", None).await.json();
    assert_eq!(default_of(&presets), "corner");
    assert_eq!(send(&later, "GET", "/api/tables", None).await.json()["state"], "built");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A folder the build cannot write is one clear message, and the page can
/// ask again.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_build_that_fails_says_why() {
    // /sys refuses new folders even to root.
    let app = app_with_tables(std::path::Path::new("/sys/web-tables-test"));
    let res = send(&app, "POST", "/api/tables/build", None).await;
    assert_eq!(res.status, StatusCode::ACCEPTED, "{}", res.text);
    let tables = until_built(&app).await;
    assert_eq!(tables["state"], "failed", "{tables}");
    let message = tables["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "the corner tables could not be built: cannot write the endgame tables' folder \
             /sys/web-tables-test"
        ),
        "{message}"
    );
    let res = send(&app, "POST", "/api/tables/build", None).await;
    assert_eq!(res.status, StatusCode::ACCEPTED, "a failed build can be tried again");
    until_built(&app).await;
}

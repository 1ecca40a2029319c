//! A bounded local load test: thousands of requests, loopback only, each
//! test bounded in time. It checks that the server keeps answering
//! correctly, never how fast (a busy machine must not fail it).

use std::time::Duration;

use axum::http::StatusCode;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::task::JoinSet;

use crate::util::{app, id, new_game, send};

/// Requests in the router flood, and how many run at once.
const FLOOD: usize = 3000;
const IN_FLIGHT: usize = 64;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_router_keeps_serving_under_a_flood() {
    let app = app();
    let game = id(&new_game(&app, 1).await);
    let run = async {
        let mut tasks = JoinSet::new();
        let mut statuses = Vec::new();
        for n in 0..FLOOD {
            if tasks.len() >= IN_FLIGHT {
                statuses.push(tasks.join_next().await.unwrap().unwrap());
            }
            let app = app.clone();
            let game = game.clone();
            tasks.spawn(async move {
                let (method, uri, body) = match n % 6 {
                    0 => ("GET", "/api/presets".to_owned(), None),
                    1 => ("POST", "/api/games".to_owned(), Some(format!(r#"{{"seed":{n}}}"#))),
                    2 => ("GET", format!("/api/games/{game}"), None),
                    3 => (
                        "POST",
                        format!("/api/games/{game}/move"),
                        Some(r#"{"direction":"up"}"#.to_owned()),
                    ),
                    4 => ("POST", format!("/api/games/{game}/move"), Some("{not json".to_owned())),
                    _ => ("GET", format!("/api/games/missing{n}"), None),
                };
                (n % 6, send(&app, method, &uri, body.as_deref()).await.status)
            });
        }
        while let Some(done) = tasks.join_next().await {
            statuses.push(done.unwrap());
        }
        statuses
    };
    let statuses = tokio::time::timeout(Duration::from_secs(120), run)
        .await
        .expect("the flood ends within 2 minutes");
    assert_eq!(statuses.len(), FLOOD);
    for (kind, status) in statuses {
        let expected: &[StatusCode] = match kind {
            0 | 2 => &[StatusCode::OK],
            1 => &[StatusCode::CREATED],
            // Up, up, up: soon nothing moves, or the game ends.
            3 => &[StatusCode::OK, StatusCode::CONFLICT],
            4 => &[StatusCode::BAD_REQUEST],
            _ => &[StatusCode::NOT_FOUND],
        };
        assert!(expected.contains(&status), "request kind {kind} got {status}");
    }
    // Still serving, and the sessions stayed within their bound (the
    // flood's many new games evicted older ones, not the server).
    let res = send(&app, "POST", "/api/games", Some(r#"{"seed":5}"#)).await;
    assert_eq!(res.status, StatusCode::CREATED);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bound_loopback_port_keeps_serving_under_a_flood() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(axum::serve(listener, app()).into_future());
    let connections = 16;
    let per_connection = 60;
    let run = async {
        let mut tasks = JoinSet::new();
        for c in 0..connections {
            tasks.spawn(async move {
                let mut ok = 0;
                for r in 0..per_connection {
                    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
                    let request = if (c + r) % 2 == 0 {
                        "GET /api/presets HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".to_owned()
                    } else {
                        let body = format!(r#"{{"seed":{r}}}"#);
                        format!(
                            "POST /api/games HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
                             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                            body.len()
                        )
                    };
                    stream.write_all(request.as_bytes()).await.unwrap();
                    let mut response = String::new();
                    stream.read_to_string(&mut response).await.unwrap();
                    if response.starts_with("HTTP/1.1 200") || response.starts_with("HTTP/1.1 201") {
                        ok += 1;
                    }
                }
                ok
            });
        }
        let mut ok = 0;
        while let Some(done) = tasks.join_next().await {
            ok += done.unwrap();
        }
        ok
    };
    let ok = tokio::time::timeout(Duration::from_secs(120), run)
        .await
        .expect("the flood ends within 2 minutes");
    assert_eq!(ok, connections * per_connection);
    server.abort();
}

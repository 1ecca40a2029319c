//! The autoplay stream: its events, its end, and that it stops when the
//! client goes away.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, BodyDataStream};
use axum::http::{Request, StatusCode, header};
use serde_json::Value;
use tokio_stream::StreamExt;
use tower::ServiceExt;

use crate::util::{app, app_with, id, legal, limits, new_game, play, send};

/// An open event stream, read one event at a time.
struct Events {
    body: BodyDataStream,
    buffer: String,
}

impl Events {
    async fn open(app: &Router, uri: &str) -> Events {
        let req = Request::builder().uri(uri).body(Body::empty()).unwrap();
        let res = app.clone().oneshot(req).await.unwrap();
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(res.headers()[header::CONTENT_TYPE], "text/event-stream");
        Events { body: res.into_body().into_data_stream(), buffer: String::new() }
    }

    /// The next event's name and JSON data (keep-alive comments skipped),
    /// or `None` when the stream ends.
    async fn next(&mut self) -> Option<(String, Value)> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let frame: String = self.buffer.drain(..end + 2).collect();
                let mut name = None;
                let mut data = String::new();
                for line in frame.lines() {
                    if let Some(v) = line.strip_prefix("event:") {
                        name = Some(v.trim().to_owned());
                    } else if let Some(v) = line.strip_prefix("data:") {
                        data.push_str(v.trim_start());
                    }
                }
                match name {
                    Some(name) => return Some((name, serde_json::from_str(&data).unwrap())),
                    None => continue,
                }
            }
            let chunk = tokio::time::timeout(Duration::from_secs(30), self.body.next())
                .await
                .expect("an event within 30 s")?
                .expect("a readable stream");
            self.buffer.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }
}

#[tokio::test]
async fn autoplay_plays_moves_and_stops_when_the_client_leaves() {
    let (app, state) = app_with(limits());
    let game = id(&new_game(&app, 21).await);
    // The autoplay's task holds the app's state while it runs.
    let idle = Arc::strong_count(&state);
    let mut events =
        Events::open(&app, &format!("/api/games/{game}/autoplay?preset=fast&delay_ms=0")).await;
    let (name, first) = events.next().await.unwrap();
    assert_eq!(name, "state");
    assert_eq!(first["moves"], 0);
    let mut score = 0;
    for n in 1..=20u64 {
        let (name, data) = events.next().await.unwrap();
        assert_eq!(name, "move", "{data}");
        assert_eq!(data["state"]["moves"], n);
        assert_eq!(data["hint"]["preset"], "fast");
        assert_eq!(data["state"]["last_move"]["direction"], data["hint"]["direction"]);
        score = data["state"]["score"].as_u64().unwrap();
    }
    assert!(score > 0, "20 moves merged nothing");
    assert!(Arc::strong_count(&state) > idle, "the autoplay runs");
    // The page goes away: the autoplay's task ends within a move or two,
    // and with it every move it could still play.
    drop(events);
    let deadline = Instant::now() + Duration::from_secs(30);
    while Arc::strong_count(&state) > idle {
        assert!(Instant::now() < deadline, "autoplay went on without a client");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let moves =
        send(&app, "GET", &format!("/api/games/{game}"), None).await.json()["moves"].clone();
    assert!(moves.as_u64().unwrap() >= 20, "{moves}");
    // Its moves can be undone one by one, like the player's.
    let undone = send(&app, "POST", &format!("/api/games/{game}/undo"), None).await.json();
    assert_eq!(undone["moves"].as_u64().unwrap(), moves.as_u64().unwrap() - 1);
}

#[tokio::test]
async fn autoplay_of_a_finished_game_ends_at_once() {
    let app = app();
    let state = new_game(&app, 11).await;
    let game = id(&state);
    let mut last = state;
    while last["over"] == false {
        last = play(&app, &game, &legal(&last)[0].clone()).await.json();
    }
    let mut events = Events::open(&app, &format!("/api/games/{game}/autoplay?preset=fast")).await;
    assert_eq!(events.next().await.unwrap().0, "state");
    let (name, end) = events.next().await.unwrap();
    assert_eq!(name, "end");
    assert_eq!(end["reason"], "over");
    assert_eq!(end["state"]["over"], true);
    assert!(events.next().await.is_none(), "the stream closes after `end`");
}

#[tokio::test]
async fn a_second_autoplay_supersedes_the_first() {
    let app = app();
    let game = id(&new_game(&app, 4).await);
    let uri = format!("/api/games/{game}/autoplay?preset=fast&delay_ms=200");
    let mut first = Events::open(&app, &uri).await;
    assert_eq!(first.next().await.unwrap().0, "state");
    let mut second = Events::open(&app, &uri).await;
    assert_eq!(second.next().await.unwrap().0, "state");
    loop {
        let (name, data) = first.next().await.expect("an end event");
        if name == "end" {
            assert_eq!(data["reason"], "superseded");
            break;
        }
    }
    assert_eq!(second.next().await.unwrap().0, "move");
}

/// A game the server forgets during its autoplay (here deleted; expired or
/// pushed out by other games alike) ends the stream with the API's code, so
/// that the page can bring the game back (rather than showing the same
/// error at every key until a reload).
#[tokio::test]
async fn an_autoplay_whose_game_is_forgotten_ends_with_its_code() {
    let app = app();
    let game = id(&new_game(&app, 4).await);
    let uri = format!("/api/games/{game}/autoplay?preset=fast&delay_ms=200");
    let mut events = Events::open(&app, &uri).await;
    assert_eq!(events.next().await.unwrap().0, "state");
    assert_eq!(send(&app, "DELETE", &format!("/api/games/{game}"), None).await.status, 204);
    loop {
        let (name, data) = events.next().await.expect("an end event");
        if name == "end" {
            assert_eq!(data["reason"], "error", "{data}");
            assert_eq!(data["code"], "unknown_game", "{data}");
            assert!(data["message"].is_string(), "{data}");
            break;
        }
    }
}

#[tokio::test]
async fn autoplay_errors_are_json_before_the_stream_starts() {
    let app = app();
    let game = id(&new_game(&app, 4).await);
    let base = format!("/api/games/{game}/autoplay");
    send(&app, "GET", &format!("{base}?preset=nope"), None)
        .await
        .assert_error(StatusCode::BAD_REQUEST, "unknown_preset");
    send(&app, "GET", &format!("{base}?delay_ms=999999"), None)
        .await
        .assert_error(StatusCode::BAD_REQUEST, "bad_delay");
    send(&app, "GET", &format!("{base}?delay_ms=-3"), None)
        .await
        .assert_error(StatusCode::BAD_REQUEST, "bad_query");
    send(&app, "GET", &format!("{base}?speed=3"), None)
        .await
        .assert_error(StatusCode::BAD_REQUEST, "bad_query");
    send(&app, "GET", &format!("{base}?preset=ntuple-deep"), None)
        .await
        .assert_error(StatusCode::SERVICE_UNAVAILABLE, "weights_unavailable");
    send(&app, "GET", "/api/games/nope/autoplay?preset=fast", None)
        .await
        .assert_error(StatusCode::NOT_FOUND, "unknown_game");
}

/// 100 first autoplays of a preset at once build its solver once: each
/// build allocates a table, and they used to build one each (4.3 GB
/// resident for 100 `max` streams, 11.7 GB for 200 `ntuple-deep`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_first_autoplays_build_one_solver() {
    let (app, state) = crate::util::app_with(crate::util::limits());
    let mut games = Vec::new();
    for seed in 0..100 {
        games.push(id(&new_game(&app, seed).await));
    }
    assert_eq!(state.solvers_built(), 0);
    let opened = games.iter().map(|game| {
        let app = app.clone();
        let uri = format!("/api/games/{game}/autoplay?preset=max");
        async move { Events::open(&app, &uri).await }
    });
    let run = async {
        let mut streams = Vec::new();
        for stream in opened.collect::<Vec<_>>() {
            streams.push(tokio::spawn(stream));
        }
        let mut events = Vec::new();
        for s in streams {
            events.push(s.await.unwrap());
        }
        // Every stream starts with the game's state.
        for e in &mut events {
            assert_eq!(e.next().await.unwrap().0, "state");
        }
        events
    };
    let events = tokio::time::timeout(Duration::from_secs(60), run).await.expect("within 60 s");
    assert_eq!(state.solvers_built(), 1, "one `max` solver for 100 streams");
    drop(events);
}

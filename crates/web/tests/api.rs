//! Every JSON endpoint, its answers and its errors, with fixed seeds.

use std::time::Duration;

use axum::http::StatusCode;
use serde_json::Value;
use web::Limits;

use crate::util::{app, app_with, id, legal, limits, new_game, play, send};

fn tiles(state: &Value) -> usize {
    let rows = state["board"].as_array().unwrap();
    rows.iter().flat_map(|r| r.as_array().unwrap()).filter(|v| v.as_u64() != Some(0)).count()
}

#[tokio::test]
async fn the_page_and_its_assets_are_served() {
    let app = app();
    let page = send(&app, "GET", "/", None).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.content_type.starts_with("text/html"), "{}", page.content_type);
    assert!(page.text.contains(r#"<script src="/app.js">"#));
    assert!(page.text.contains(r#"id="board""#));
    let js = send(&app, "GET", "/app.js", None).await;
    assert_eq!(js.status, StatusCode::OK);
    assert!(js.content_type.starts_with("text/javascript"));
    assert!(js.text.contains("/api/games"));
    let css = send(&app, "GET", "/style.css", None).await;
    assert_eq!(css.status, StatusCode::OK);
    assert!(css.content_type.starts_with("text/css"));
    assert!(css.text.contains(".tile-2048"));
}

#[tokio::test]
async fn presets_list_every_preset_and_whether_it_can_run() {
    let res = send(&app(), "GET", "/api/presets", None).await;
    assert_eq!(res.status, StatusCode::OK);
    let json = res.json();
    // The tests' server has no network: the default falls back.
    assert_eq!(json["default"], "heuristic");
    assert_eq!(json["search_budget_ms"], 40);
    let names: Vec<&str> =
        json["presets"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "tutorial",
            "fast",
            "heuristic",
            "heuristic-max",
            "ntuple",
            "ntuple-deep",
            "corner",
            "corner-big"
        ]
    );
    for preset in json["presets"].as_array().unwrap() {
        let name = preset["name"].as_str().unwrap();
        let learned = name.starts_with("ntuple");
        assert_eq!(preset["learned"], learned);
        // The tests' weights path is missing on purpose, and the server
        // has no endgame tables, which the corner presets play by.
        let corner = name.starts_with("corner");
        assert_eq!(preset["available"], !learned && !corner, "{name}");
        // What an unavailable preset lacks, in a word and a sentence (the
        // corner preset's is its tables, not the weights file, which it
        // does not use).
        let missing = if learned {
            "weights"
        } else if corner {
            "tables"
        } else {
            assert!(preset["missing"].is_null() && preset["reason"].is_null(), "{preset}");
            continue;
        };
        assert_eq!(preset["missing"], missing, "{preset}");
        let reason = preset["reason"].as_str().unwrap();
        let says = match name {
            _ if learned => "missing.n2048",
            "corner-big" => "does not serve",
            _ => "--endgame",
        };
        assert!(reason.contains(says), "{reason}");
    }
}

#[tokio::test]
async fn a_seeded_game_starts_the_same_way_every_time() {
    let app = app();
    let a = new_game(&app, 42).await;
    let b = new_game(&app, 42).await;
    assert_ne!(a["id"], b["id"]);
    assert_eq!(a["board"], b["board"]);
    assert_eq!(a["seed"], 42);
    assert_eq!(a["score"], 0);
    assert_eq!(a["moves"], 0);
    assert_eq!(tiles(&a), 2);
    assert_eq!(a["over"], false);
    assert_eq!(a["won"], false);
    assert_eq!(a["can_undo"], false);
    assert_eq!(a["last_move"], Value::Null);
    let shown = send(&app, "GET", &format!("/api/games/{}", id(&a)), None).await;
    assert_eq!(shown.status, StatusCode::OK);
    assert_eq!(shown.json(), a);
}

#[tokio::test]
async fn a_new_game_without_a_body_gets_a_seed_from_the_clock() {
    let app = app();
    let res = send(&app, "POST", "/api/games", None).await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.text);
    assert!(res.json()["seed"].as_u64().is_some());
    let res = send(&app, "POST", "/api/games", Some("{}")).await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.text);
}

#[tokio::test]
async fn moves_change_the_board_and_the_score() {
    let app = app();
    let state = new_game(&app, 7).await;
    let game = id(&state);
    let mut last = state;
    let mut gained = false;
    for _ in 0..40 {
        let dir = legal(&last)[0].clone();
        let res = play(&app, &game, &dir).await;
        assert_eq!(res.status, StatusCode::OK, "{}", res.text);
        let next = res.json();
        assert_ne!(next["board"], last["board"]);
        assert_eq!(next["moves"], last["moves"].as_u64().unwrap() + 1);
        let mv = &next["last_move"];
        assert_eq!(mv["direction"], dir.as_str());
        let score_gained = mv["score_gained"].as_u64().unwrap();
        assert_eq!(next["score"], last["score"].as_u64().unwrap() + score_gained);
        gained |= score_gained > 0;
        let spawn = &mv["spawned"];
        let (r, c) = (spawn["row"].as_u64().unwrap(), spawn["col"].as_u64().unwrap());
        assert_eq!(next["board"][r as usize][c as usize], spawn["value"]);
        assert!(next["can_undo"].as_bool().unwrap());
        last = next;
    }
    assert!(gained, "40 moves merged nothing");
}

#[tokio::test]
async fn a_direction_that_changes_nothing_is_a_conflict() {
    let app = app();
    // The first seed whose opening board has a direction that changes
    // nothing (two tiles on one edge, say).
    for seed in 0..200 {
        let state = new_game(&app, seed).await;
        let stuck = ["up", "down", "left", "right"]
            .into_iter()
            .find(|d| !legal(&state).iter().any(|l| l == d));
        if let Some(dir) = stuck {
            play(&app, &id(&state), dir).await.assert_error(StatusCode::CONFLICT, "nothing_moves");
            let after = send(&app, "GET", &format!("/api/games/{}", id(&state)), None).await;
            assert_eq!(after.json(), state, "a refused move changes nothing");
            return;
        }
    }
    panic!("no seed below 200 opens with a stuck direction");
}

#[tokio::test]
async fn malformed_moves_get_json_errors() {
    let app = app();
    let game = id(&new_game(&app, 1).await);
    let uri = format!("/api/games/{game}/move");
    play(&app, &game, "sideways")
        .await
        .assert_error(StatusCode::UNPROCESSABLE_ENTITY, "bad_direction");
    send(&app, "POST", &uri, Some("{")).await.assert_error(StatusCode::BAD_REQUEST, "bad_json");
    send(&app, "POST", &uri, Some("[1,2]"))
        .await
        .assert_error(StatusCode::UNPROCESSABLE_ENTITY, "bad_field");
    send(&app, "POST", &uri, None)
        .await
        .assert_error(StatusCode::UNPROCESSABLE_ENTITY, "bad_field");
    send(&app, "POST", &uri, Some(r#"{"direction":"up","extra":1}"#))
        .await
        .assert_error(StatusCode::UNPROCESSABLE_ENTITY, "bad_field");
    send(&app, "POST", &uri, Some(r#"{"direction":3}"#))
        .await
        .assert_error(StatusCode::UNPROCESSABLE_ENTITY, "bad_field");
    send(&app, "POST", &uri, Some("\u{0}\u{ff}garbage"))
        .await
        .assert_error(StatusCode::BAD_REQUEST, "bad_json");
    play(&app, "no-such-game", "up").await.assert_error(StatusCode::NOT_FOUND, "unknown_game");
}

#[tokio::test]
async fn bodies_over_the_limit_are_refused() {
    let app = app();
    let game = id(&new_game(&app, 1).await);
    let big = format!(r#"{{"direction":"up","pad":"{}"}}"#, "x".repeat(64 * 1024));
    send(&app, "POST", &format!("/api/games/{game}/move"), Some(&big))
        .await
        .assert_error(StatusCode::PAYLOAD_TOO_LARGE, "too_large");
    send(&app, "POST", "/api/games", Some(&big))
        .await
        .assert_error(StatusCode::PAYLOAD_TOO_LARGE, "too_large");
}

/// Every way a request can fail to read is answered in the API's own
/// sentences, never in the words of the framework or of a library type the
/// page does not know ("Failed to buffer the request body", "use Grid").
#[tokio::test]
async fn malformed_requests_are_answered_in_the_apis_words() {
    let app = app();
    let game = id(&new_game(&app, 1).await);
    let big = format!(r#"{{"direction":"up","pad":"{}"}}"#, "x".repeat(64 * 1024));
    let three = serde_json::json!({ "restore": {
        "board": "2 0 0/0 0 0/0 0 0", "score": 0, "moves": 0, "seed": 1, "spawns": "00".repeat(48),
    } });
    let cases = [
        (
            "POST",
            format!("/api/games/{game}/move"),
            Some(big.clone()),
            413,
            "too_large",
            "the request body is over the limit of 4096 bytes",
        ),
        (
            "POST",
            "/api/games".to_owned(),
            Some(three.to_string()),
            422,
            "bad_position",
            "the game to restore is not one this server can play on: its board is 3x3, and this game is played on 4x4",
        ),
        (
            "GET",
            format!("/api/games/{game}/autoplay?delay_ms=-3"),
            None,
            400,
            "bad_query",
            "the query parameter delay_ms must be a whole number, not -3",
        ),
        (
            "GET",
            format!("/api/games/{game}/autoplay?delay_ms=1e3"),
            None,
            400,
            "bad_query",
            "the query parameter delay_ms must be a whole number, not 1e3",
        ),
        (
            "GET",
            format!("/api/games/{game}/autoplay?speed=3"),
            None,
            400,
            "bad_query",
            "unknown query parameter speed (this request takes preset and delay_ms)",
        ),
        (
            "GET",
            "/api/games/%FF".to_owned(),
            None,
            400,
            "bad_path",
            "the game id in the address is not valid UTF-8 text",
        ),
    ];
    for (method, uri, body, status, code, message) in cases {
        let res = send(&app, method, &uri, body.as_deref()).await;
        res.assert_error(StatusCode::from_u16(status).unwrap(), code);
        assert_eq!(res.json()["error"], message, "{method} {uri}");
    }
}

#[tokio::test]
async fn seeds_must_be_exact_in_javascript() {
    let app = app();
    let max = (1u64 << 53) - 1;
    let res = send(&app, "POST", "/api/games", Some(&format!(r#"{{"seed":{max}}}"#))).await;
    assert_eq!(res.status, StatusCode::CREATED);
    assert_eq!(res.json()["seed"], max);
    send(&app, "POST", "/api/games", Some(&format!(r#"{{"seed":{}}}"#, max + 1)))
        .await
        .assert_error(StatusCode::UNPROCESSABLE_ENTITY, "bad_seed");
    // Each refusal says what a seed is, not what serde expected: the
    // person who typed it knows nothing of serde's types.
    for bad in [
        r#"{"seed":-5}"#,
        r#"{"seed":1.5}"#,
        r#"{"seed":"7"}"#,
        r#"{"seed":1e30}"#,
        r#"{"seed":true}"#,
    ] {
        let res = send(&app, "POST", "/api/games", Some(bad)).await;
        res.assert_error(StatusCode::UNPROCESSABLE_ENTITY, "bad_seed");
        let message = res.json()["error"].as_str().unwrap().to_owned();
        assert!(message.starts_with("the seed must be a whole number from 0 to "), "{message}");
        assert!(!message.contains("expected") && !message.contains("line 1"), "{message}");
    }
    let res = send(&app, "POST", "/api/games", Some(r#"{"seed":null}"#)).await;
    assert_eq!(res.status, StatusCode::CREATED);
}

#[tokio::test]
async fn undo_restores_the_game_and_its_spawns() {
    let app = app();
    let start = new_game(&app, 99).await;
    let game = id(&start);
    let undo = format!("/api/games/{game}/undo");
    send(&app, "POST", &undo, None).await.assert_error(StatusCode::CONFLICT, "nothing_to_undo");
    let dir = legal(&start)[0].clone();
    let first = play(&app, &game, &dir).await.json();
    let second_dir = legal(&first)[0].clone();
    play(&app, &game, &second_dir).await;
    let back = send(&app, "POST", &undo, None).await;
    assert_eq!(back.status, StatusCode::OK);
    let back = back.json();
    assert_eq!(back["board"], first["board"]);
    assert_eq!(back["score"], first["score"]);
    assert_eq!(back["moves"], 1);
    assert_eq!(back["last_move"], Value::Null);
    let back = send(&app, "POST", &undo, None).await.json();
    assert_eq!(back["board"], start["board"]);
    assert_eq!(back["can_undo"], false);
    // The spawn stream went back too: the same move spawns the same tile.
    let again = play(&app, &game, &dir).await.json();
    assert_eq!(again["board"], first["board"]);
}

/// A game the server forgot comes back from the position the page kept,
/// spawns and all, as the original keeps a game in the browser; a position
/// that is not one is refused.
#[tokio::test]
async fn a_game_comes_back_from_its_position() {
    let app = app();
    let start = new_game(&app, 5).await;
    let game = id(&start);
    let mut now = start;
    for _ in 0..6 {
        let dir = legal(&now)[0].clone();
        now = play(&app, &game, &dir).await.json();
    }
    let body = serde_json::json!({ "restore": now["position"], "keep_going": true }).to_string();
    let res = send(&app, "POST", "/api/games", Some(&body)).await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.text);
    let back = res.json();
    assert_ne!(back["id"], now["id"]);
    for key in ["board", "score", "moves", "seed", "position"] {
        assert_eq!(back[key], now[key], "{key}");
    }
    assert_eq!(back["keep_going"], true);
    assert_eq!(back["can_undo"], false);
    // The same move spawns the same tile in both.
    let dir = legal(&now)[0].clone();
    let a = play(&app, &game, &dir).await.json();
    let b = play(&app, &id(&back), &dir).await.json();
    assert_eq!(a["board"], b["board"]);

    let mut bad = now["position"].clone();
    bad["spawns"] = Value::from("00ff");
    // A count past 2^53 - 1 would overflow as the game goes on.
    let mut huge_moves = now["position"].clone();
    huge_moves["moves"] = Value::from(u64::MAX);
    for (body, code) in [
        (serde_json::json!({ "restore": bad }), "bad_position"),
        (serde_json::json!({ "restore": 5 }), "bad_position"),
        (serde_json::json!({ "restore": { "board": "2 2/2" } }), "bad_position"),
        (serde_json::json!({ "restore": huge_moves }), "bad_position"),
        (serde_json::json!({ "restore": now["position"], "seed": 1 }), "bad_field"),
        (serde_json::json!({ "keep_going": true }), "bad_field"),
    ] {
        send(&app, "POST", "/api/games", Some(&body.to_string()))
            .await
            .assert_error(StatusCode::UNPROCESSABLE_ENTITY, code);
    }
}

/// A games file read by a server that keeps fewer undo steps keeps only
/// the newest of them.
#[tokio::test]
async fn stored_undo_steps_follow_the_servers_limit() {
    let (app, state) = app_with(limits());
    let game = id(&new_game(&app, 8).await);
    let mut now = send(&app, "GET", &format!("/api/games/{game}"), None).await.json();
    for _ in 0..5 {
        let dir = legal(&now)[0].clone();
        now = play(&app, &game, &dir).await.json();
    }
    let file = std::env::temp_dir().join(format!("web-undo-{}.json", std::process::id()));
    assert_eq!(state.save_games(&file).unwrap(), 1);
    let (app2, state2) = app_with(Limits { max_undo: 2, ..limits() });
    assert_eq!(state2.load_games(&file).unwrap(), 1);
    std::fs::remove_file(&file).unwrap();
    let undo = format!("/api/games/{game}/undo");
    for _ in 0..2 {
        assert_eq!(send(&app2, "POST", &undo, None).await.status, StatusCode::OK);
    }
    send(&app2, "POST", &undo, None).await.assert_error(StatusCode::CONFLICT, "nothing_to_undo");
}

#[tokio::test]
async fn undo_history_is_bounded() {
    let (app, _) = app_with(Limits { max_undo: 2, ..limits() });
    let state = new_game(&app, 5).await;
    let game = id(&state);
    let mut last = state;
    for _ in 0..4 {
        last = play(&app, &game, &legal(&last)[0].clone()).await.json();
    }
    let undo = format!("/api/games/{game}/undo");
    assert_eq!(send(&app, "POST", &undo, None).await.status, StatusCode::OK);
    assert_eq!(send(&app, "POST", &undo, None).await.json()["moves"], 2);
    send(&app, "POST", &undo, None).await.assert_error(StatusCode::CONFLICT, "nothing_to_undo");
}

#[tokio::test]
async fn a_hint_names_a_legal_direction_and_values_each_one() {
    let app = app();
    let state = new_game(&app, 3).await;
    let game = id(&state);
    for preset in ["fast", "heuristic"] {
        let res = send(
            &app,
            "POST",
            &format!("/api/games/{game}/hint"),
            Some(&format!(r#"{{"preset":"{preset}"}}"#)),
        )
        .await;
        assert_eq!(res.status, StatusCode::OK, "{}", res.text);
        let hint = res.json();
        assert_eq!(hint["preset"], preset);
        let legal = legal(&state);
        assert!(legal.iter().any(|d| hint["direction"] == d.as_str()), "{hint}");
        for dir in ["up", "down", "left", "right"] {
            let is_legal = legal.iter().any(|d| d == dir);
            assert_eq!(hint["values"][dir].is_number(), is_legal, "{dir}: {hint}");
        }
        assert!(hint["depth"].as_u64().unwrap() >= 1);
        assert!(hint["elapsed_ms"].is_u64());
    }
    // No body: the default preset (the heuristic on a server without the
    // network, as here).
    let res = send(&app, "POST", &format!("/api/games/{game}/hint"), None).await;
    assert_eq!(res.json()["preset"], "heuristic");
    // A hint does not play.
    let after = send(&app, "GET", &format!("/api/games/{game}"), None).await.json();
    assert_eq!(after["moves"], 0);
}

#[tokio::test]
async fn hint_errors_are_json() {
    let app = app();
    let game = id(&new_game(&app, 3).await);
    let uri = format!("/api/games/{game}/hint");
    send(&app, "POST", &uri, Some(r#"{"preset":"best"}"#))
        .await
        .assert_error(StatusCode::BAD_REQUEST, "unknown_preset");
    for learned in ["ntuple", "ntuple-deep"] {
        let body = format!(r#"{{"preset":"{learned}"}}"#);
        let res = send(&app, "POST", &uri, Some(&body)).await;
        res.assert_error(StatusCode::SERVICE_UNAVAILABLE, "weights_unavailable");
        assert!(res.json()["error"].as_str().unwrap().contains("missing.n2048"), "{}", res.text);
    }
    // Without its tables the corner preset would play a weak game: refused,
    // in the words the preset list gives.
    let res = send(&app, "POST", &uri, Some(r#"{"preset":"corner"}"#)).await;
    res.assert_error(StatusCode::SERVICE_UNAVAILABLE, "tables_unavailable");
    let presets = send(&app, "GET", "/api/presets", None).await.json();
    let corner = presets["presets"].as_array().unwrap().iter().find(|p| p["name"] == "corner");
    assert_eq!(res.json()["error"], corner.unwrap()["reason"]);
    send(&app, "POST", "/api/games/nope/hint", None)
        .await
        .assert_error(StatusCode::NOT_FOUND, "unknown_game");
}

#[tokio::test]
async fn a_finished_game_refuses_moves_and_hints() {
    let app = app();
    let state = new_game(&app, 11).await;
    let game = id(&state);
    let mut last = state;
    // Always the first legal direction: a weak player, over in a few
    // hundred moves.
    for _ in 0..5000 {
        if last["over"] == true {
            break;
        }
        last = play(&app, &game, &legal(&last)[0].clone()).await.json();
    }
    assert_eq!(last["over"], true);
    assert!(legal(&last).is_empty());
    play(&app, &game, "up").await.assert_error(StatusCode::CONFLICT, "game_over");
    send(&app, "POST", &format!("/api/games/{game}/hint"), Some(r#"{"preset":"fast"}"#))
        .await
        .assert_error(StatusCode::CONFLICT, "game_over");
    // Undo brings it back to life.
    let back = send(&app, "POST", &format!("/api/games/{game}/undo"), None).await.json();
    assert_eq!(back["over"], false);
}

#[tokio::test]
async fn keep_going_is_remembered() {
    let app = app();
    let game = id(&new_game(&app, 8).await);
    let res = send(&app, "POST", &format!("/api/games/{game}/keep-going"), None).await;
    assert_eq!(res.status, StatusCode::OK);
    assert_eq!(res.json()["keep_going"], true);
    let shown = send(&app, "GET", &format!("/api/games/{game}"), None).await.json();
    assert_eq!(shown["keep_going"], true);
}

#[tokio::test]
async fn a_deleted_game_is_gone() {
    let app = app();
    let game = id(&new_game(&app, 8).await);
    let uri = format!("/api/games/{game}");
    let res = send(&app, "DELETE", &uri, None).await;
    assert_eq!(res.status, StatusCode::NO_CONTENT);
    send(&app, "GET", &uri, None).await.assert_error(StatusCode::NOT_FOUND, "unknown_game");
    send(&app, "DELETE", &uri, None).await.assert_error(StatusCode::NOT_FOUND, "unknown_game");
}

#[tokio::test]
async fn unknown_routes_and_methods_get_json_errors() {
    let app = app();
    send(&app, "GET", "/api/nothing", None).await.assert_error(StatusCode::NOT_FOUND, "not_found");
    send(&app, "GET", "/favicon.ico", None).await.assert_error(StatusCode::NOT_FOUND, "not_found");
    send(&app, "PUT", "/api/games", Some("{}"))
        .await
        .assert_error(StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed");
    send(&app, "GET", "/api/games/x/move", None)
        .await
        .assert_error(StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed");
}

#[tokio::test]
async fn sessions_are_bounded_in_number() {
    let (app, _) = app_with(Limits { max_sessions: 3, ..limits() });
    let mut ids = Vec::new();
    for seed in 0..4 {
        ids.push(id(&new_game(&app, seed).await));
        // Distinct last-use times, so the eviction order is defined.
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // The game idle longest made room for the fourth.
    send(&app, "GET", &format!("/api/games/{}", ids[0]), None)
        .await
        .assert_error(StatusCode::NOT_FOUND, "unknown_game");
    for game in &ids[1..] {
        assert_eq!(
            send(&app, "GET", &format!("/api/games/{game}"), None).await.status,
            StatusCode::OK
        );
    }
}

#[tokio::test]
async fn idle_sessions_expire() {
    let (app, _) = app_with(Limits { idle: Duration::from_millis(100), ..limits() });
    let old = id(&new_game(&app, 1).await);
    // Only a lower bound on time is relied on: a slow machine cannot make
    // this fail.
    tokio::time::sleep(Duration::from_millis(300)).await;
    send(&app, "GET", &format!("/api/games/{old}"), None)
        .await
        .assert_error(StatusCode::NOT_FOUND, "unknown_game");
    // Expired games are purged when a new game is made, and never come back.
    new_game(&app, 2).await;
    send(&app, "POST", &format!("/api/games/{old}/undo"), None)
        .await
        .assert_error(StatusCode::NOT_FOUND, "unknown_game");
}

/// Game ids are 128 bits from the operating system's randomness: 32 hex
/// digits, never repeated, and not the same stream in two servers started
/// together (they were a ChaCha8 stream seeded from the clock and the
/// process id, which another player could guess and so play their game).
#[tokio::test]
async fn game_ids_are_random_128_bit_hex() {
    let (a, _) = crate::util::app_with(crate::util::limits());
    let (b, _) = crate::util::app_with(crate::util::limits());
    let mut seen = std::collections::HashSet::new();
    for seed in 0..300 {
        for app in [&a, &b] {
            let id = crate::util::id(&crate::util::new_game(app, seed).await);
            assert_eq!(id.len(), 32, "{id}");
            assert!(id.bytes().all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c)), "{id}");
            assert!(seen.insert(id.clone()), "{id} repeated");
        }
    }
}

#[tokio::test]
async fn with_the_network_the_default_is_the_engines() {
    let weights = engine::weights_path(None);
    if !weights.is_file() {
        return;
    }
    let state = web::AppState::new(limits(), Some(weights), None, web::Hosts::any());
    let app = web::router(state);
    let json = send(&app, "GET", "/api/presets", None).await.json();
    assert_eq!(json["default"], engine::DEFAULT_PRESET.name());
}

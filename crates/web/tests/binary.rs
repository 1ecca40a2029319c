//! The server binary itself: a port already taken is one error line.

use std::process::Command;

/// The server binary, its tables folder one of no tables: the page's
/// default player is then the same on every machine, and no test maps a
/// machine's gigabytes of tables.
fn server() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_web"));
    let cache = std::env::temp_dir().join(format!("web-tests-no-cache-{}", std::process::id()));
    cmd.env("XDG_CACHE_HOME", cache);
    cmd
}

#[test]
fn a_port_in_use_is_one_error_line_even_with_backtraces_on() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let port = taken.local_addr().expect("bound").port().to_string();
    let out = server()
        .args(["--port", &port, "--no-games-file"])
        .env("RUST_BACKTRACE", "1")
        .output()
        .expect("the server starts");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with(&format!("error: cannot listen on 127.0.0.1:{port}: ")), "{stderr}");
}

/// Starts the server with `args` and `--port 0`, reads its address line and
/// what it wrote to stderr before it, sends one request with `host`, and
/// stops it.
fn start_and_ask(args: &[&str], host_header: Option<&str>) -> (String, String, String) {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::process::Stdio;
    let mut child = server()
        .args(args)
        .args(["--port", "0", "--no-games-file"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let addr =
        line.trim().strip_prefix("listening on http://").expect("the address line").to_owned();
    let port = addr.rsplit(':').next().unwrap().to_owned();
    let mut answer = String::new();
    if let Some(host) = host_header {
        let connect = addr.replace("0.0.0.0", "127.0.0.1");
        let mut s = std::net::TcpStream::connect(&connect).unwrap();
        let host = host.replace("PORT", &port);
        write!(s, "GET /api/presets HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n")
            .unwrap();
        s.read_to_string(&mut answer).unwrap();
    }
    child.kill().unwrap();
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    child.wait().unwrap();
    (addr, stderr, answer)
}

/// `--host localhost` is a name, not refused; the server answers to it and
/// to the loopback addresses, and not to another name (a page on another
/// site could reach it under a name of its own: DNS rebinding).
#[test]
fn a_host_name_is_accepted_and_other_names_are_refused() {
    let (addr, stderr, answer) = start_and_ask(&["--host", "localhost"], Some("localhost:PORT"));
    assert!(addr.starts_with("127.0.0.1:"), "{addr}");
    assert!(stderr.is_empty(), "{stderr}");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let (_, _, answer) = start_and_ask(&[], Some("evil.example:PORT"));
    assert!(answer.starts_with("HTTP/1.1 421"), "{answer}");
}

/// All interfaces: a warning that anyone who can reach the machine can play
/// (and spend its CPU on searches), so that no one exposes it unknowingly.
#[test]
fn listening_beyond_loopback_warns() {
    let (addr, stderr, answer) = start_and_ask(&["--host", "0.0.0.0"], Some("box.lan:PORT"));
    assert!(addr.starts_with("0.0.0.0:"), "{addr}");
    assert!(stderr.starts_with("warning: listening on 0.0.0.0:"), "{stderr}");
    assert!(stderr.contains("anyone who can reach this machine"), "{stderr}");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

/// Sends one HTTP/1.1 request to `addr` and returns the response's body.
fn http(addr: &str, method: &str, path: &str, body: &str) -> String {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    answer.split_once("\r\n\r\n").map(|(_, b)| b.to_owned()).unwrap_or_default()
}

/// A field of a JSON body.
fn field(body: &str, name: &str) -> serde_json::Value {
    serde_json::from_str::<serde_json::Value>(body).unwrap()[name].clone()
}

/// A game survives a restart: kept in the games file when the server stops
/// (SIGINT), read back at start, the same board, score and moves, and its
/// next spawn the one it would have had, so that restarting the server
/// (an upgrade, say) costs no one their game.
#[test]
fn games_survive_a_restart() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let dir = std::env::temp_dir().join(format!("web-games-{}", std::process::id()));
    let file = dir.join("games.json");
    let start = || {
        let mut child = server()
            .args(["--port", "0", "--games", file.to_str().unwrap()])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let addr = line.trim().strip_prefix("listening on http://").unwrap().to_owned();
        (child, addr)
    };
    let stop = |mut child: std::process::Child| {
        // SIGINT, as Ctrl-C.
        Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
        assert!(child.wait().unwrap().success());
    };
    let (server, addr) = start();
    let game = http(&addr, "POST", "/api/games", r#"{"seed":77}"#);
    let id = field(&game, "id").as_str().unwrap().to_owned();
    let mut played = String::new();
    for d in ["left", "up", "right", "down", "left", "up"] {
        let res = http(
            &addr,
            "POST",
            &format!("/api/games/{id}/move"),
            &format!(r#"{{"direction":"{d}"}}"#),
        );
        if field(&res, "board").is_array() {
            played = res;
        }
    }
    // A twin game with the same seed and moves, kept running, gives what the
    // restored game's next move must spawn.
    let twin = http(&addr, "POST", "/api/games", r#"{"seed":77}"#);
    let twin_id = field(&twin, "id").as_str().unwrap().to_owned();
    for d in ["left", "up", "right", "down", "left", "up"] {
        http(
            &addr,
            "POST",
            &format!("/api/games/{twin_id}/move"),
            &format!(r#"{{"direction":"{d}"}}"#),
        );
    }
    stop(server);
    assert!(file.is_file(), "the games file was written");
    let (server, addr) = start();
    let back = http(&addr, "GET", &format!("/api/games/{id}"), "");
    for key in ["board", "score", "moves", "seed"] {
        assert_eq!(field(&back, key), field(&played, key), "{key}");
    }
    let legal = field(&back, "legal");
    let d = legal[0].as_str().unwrap();
    let next =
        http(&addr, "POST", &format!("/api/games/{id}/move"), &format!(r#"{{"direction":"{d}"}}"#));
    let twin_next = http(
        &addr,
        "POST",
        &format!("/api/games/{twin_id}/move"),
        &format!(r#"{{"direction":"{d}"}}"#),
    );
    assert_eq!(
        field(&next, "board"),
        field(&twin_next, "board"),
        "the same spawn after the restart"
    );
    // The undo history came back too: undoing the move played since, then
    // the last one before the restart, gives the twin's positions.
    let undone = http(&addr, "POST", &format!("/api/games/{id}/undo"), "");
    assert_eq!(field(&undone, "board"), field(&played, "board"), "undo after the restart");
    let before_last = http(&addr, "POST", &format!("/api/games/{id}/undo"), "");
    assert_eq!(field(&before_last, "can_undo"), true);
    assert_ne!(field(&before_last, "board"), field(&played, "board"), "an undo from before");
    stop(server);
    // A damaged file is set aside with a warning, not lost.
    std::fs::write(&file, "{not json").unwrap();
    let (mut server, _) = start();
    Command::new("kill").args(["-INT", &server.id().to_string()]).status().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut server.stderr.take().unwrap(), &mut stderr).unwrap();
    server.wait().unwrap();
    assert!(
        stderr.contains("is not a games file") && stderr.contains("games.json.bad"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(dir.join("games.json.bad")).unwrap(), "{not json");
    let _ = std::fs::remove_dir_all(&dir);
}

//! The server binary itself: a port already taken is one error line.

use std::process::Command;

#[test]
fn a_port_in_use_is_one_error_line_even_with_backtraces_on() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let port = taken.local_addr().expect("bound").port().to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_web"))
        .args(["--port", &port])
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
    let mut child = Command::new(env!("CARGO_BIN_EXE_web"))
        .args(args)
        .args(["--port", "0"])
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
/// to the loopback addresses, and not to another name. See: issue 34, items
/// 4 and 10.
#[test]
fn a_host_name_is_accepted_and_other_names_are_refused() {
    let (addr, stderr, answer) = start_and_ask(&["--host", "localhost"], Some("localhost:PORT"));
    assert!(addr.starts_with("127.0.0.1:"), "{addr}");
    assert!(stderr.is_empty(), "{stderr}");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let (_, _, answer) = start_and_ask(&[], Some("evil.example:PORT"));
    assert!(answer.starts_with("HTTP/1.1 421"), "{answer}");
}

/// All interfaces: a warning that anyone can play. See: issue 34, item 10.
#[test]
fn listening_beyond_loopback_warns() {
    let (addr, stderr, answer) = start_and_ask(&["--host", "0.0.0.0"], Some("box.lan:PORT"));
    assert!(addr.starts_with("0.0.0.0:"), "{addr}");
    assert!(stderr.starts_with("warning: listening on 0.0.0.0:"), "{stderr}");
    assert!(stderr.contains("anyone who can reach this machine"), "{stderr}");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

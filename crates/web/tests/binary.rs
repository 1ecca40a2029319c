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

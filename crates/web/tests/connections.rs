//! What a client can hold open: a bounded number of connections, headers
//! that must arrive in time, bodies that must arrive in time. Loopback, each
//! test bounded in time: a client that opens connections and sends nothing,
//! or sends a byte at a time, must not use up the connections the server
//! allows and lock everyone else out.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use web::{AppState, Hosts, Limits};

use crate::util::{limits, missing_weights};

/// A server on a free loopback port with these limits; its address.
async fn start(limits: Limits) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app =
        web::router(AppState::new(limits.clone(), Some(missing_weights()), None, Hosts::any()));
    tokio::spawn(async move { web::serve(listener, app, &limits, std::future::pending()).await });
    addr
}

fn tight() -> Limits {
    Limits {
        max_connections: 4,
        header_timeout: Duration::from_millis(800),
        body_timeout: Duration::from_millis(800),
        ..limits()
    }
}

/// How long a test waits for the server to close a connection before it
/// calls the server stuck: a bound on a broken server, far above every
/// timeout here, not a timing the tests rely on.
const STUCK: Duration = Duration::from_secs(10);

/// Reads until the server closes the connection (an end or a reset); what
/// came, or `None` if it is still open after [`STUCK`].
async fn read_to_close(stream: &mut TcpStream) -> Option<String> {
    let mut out = Vec::new();
    let read = tokio::time::timeout(STUCK, stream.read_to_end(&mut out)).await;
    read.is_ok().then(|| String::from_utf8_lossy(&out).into_owned())
}

/// Whether the server holds `stream` open: nothing to read and no end
/// seen, asked without waiting.
fn still_open(stream: &TcpStream) -> bool {
    let mut byte = [0];
    matches!(stream.try_read(&mut byte), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock)
}

async fn get_presets(addr: SocketAddr) -> String {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(b"GET /api/presets HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    read_to_close(&mut s).await.expect("the answer ends")
}

#[tokio::test]
async fn idle_connections_are_bounded_and_closed_in_time() {
    // A header timeout long enough that the four below still hold their
    // slots when the server takes the fifth, however loaded the machine.
    let addr = start(Limits { header_timeout: Duration::from_secs(2), ..tight() }).await;
    let mut idle = Vec::new();
    for _ in 0..4 {
        idle.push(TcpStream::connect(addr).await.unwrap());
    }
    // The server takes connections in the order they came, so the fifth
    // finds the four slots taken: it is closed without an answer while the
    // four are still open, before any header timeout.
    let mut fifth = TcpStream::connect(addr).await.unwrap();
    assert_eq!(read_to_close(&mut fifth).await.as_deref(), Some(""));
    assert!(idle.iter().all(still_open), "the fifth outlived an idle one");
    // The idle four are closed once the header timeout passes...
    for s in &mut idle {
        assert_eq!(read_to_close(s).await.as_deref(), Some(""));
    }
    // ...and the server answers again.
    assert!(get_presets(addr).await.starts_with("HTTP/1.1 200"));
}

#[tokio::test]
async fn headers_dripped_slowly_are_cut_off() {
    let addr = start(tight()).await;
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(b"GET /api/presets HTTP/1.1\r\n").await.unwrap();
    // A header line at most every 300 ms, well within the header timeout
    // of the one before: the server must cut the request off anyway. The
    // client waits for that close between lines and stops as it comes.
    let mut got = Vec::new();
    let mut cut = false;
    for n in 0..20 {
        if s.write_all(format!("X-Drip-{n}: 1\r\n").as_bytes()).await.is_err() {
            cut = true;
            break;
        }
        let mut buf = [0; 1024];
        match tokio::time::timeout(Duration::from_millis(300), s.read(&mut buf)).await {
            Err(_) => {}
            Ok(Ok(0) | Err(_)) => {
                cut = true;
                break;
            }
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
        }
    }
    let got = String::from_utf8_lossy(&got);
    assert!(cut, "twenty header lines, each in time, were all taken: {got}");
    assert!(!got.starts_with("HTTP/1.1 200"), "{got}");
}

#[tokio::test]
async fn a_body_that_never_ends_gets_a_408() {
    let addr = start(tight()).await;
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(
        b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
          Content-Length: 100\r\n\r\n{\"seed\":",
    )
    .await
    .unwrap();
    let got = read_to_close(&mut s).await.expect("the server ends the request");
    assert!(got.starts_with("HTTP/1.1 408"), "{got}");
    assert!(got.contains("slow_body"), "{got}");
}

#[tokio::test]
async fn the_default_bounds_fit_a_1024_file_limit() {
    let limits = Limits::default();
    assert!(limits.max_connections <= 900, "{}", limits.max_connections);
    assert!(limits.header_timeout <= Duration::from_secs(30));
    assert!(limits.body_timeout <= Duration::from_secs(30));
}

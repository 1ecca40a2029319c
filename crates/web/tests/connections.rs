//! What a client can hold open: a bounded number of connections, headers
//! that must arrive in time, bodies that must arrive in time. Loopback, each
//! test bounded in time. See: issue 34, item 3.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

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

/// Reads until the server closes the connection (or 10 s pass); what came.
async fn read_to_close(stream: &mut TcpStream) -> String {
    let mut out = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut out)).await;
    String::from_utf8_lossy(&out).into_owned()
}

async fn get_presets(addr: SocketAddr) -> String {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(b"GET /api/presets HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    read_to_close(&mut s).await
}

#[tokio::test]
async fn idle_connections_are_bounded_and_closed_in_time() {
    let addr = start(tight()).await;
    let mut idle = Vec::new();
    for _ in 0..4 {
        idle.push(TcpStream::connect(addr).await.unwrap());
    }
    // Give the server time to take all four.
    tokio::time::sleep(Duration::from_millis(100)).await;
    // A fifth is closed at once, without an answer.
    let mut fifth = TcpStream::connect(addr).await.unwrap();
    let start = Instant::now();
    assert_eq!(read_to_close(&mut fifth).await, "");
    assert!(start.elapsed() < Duration::from_millis(700), "{:?}", start.elapsed());
    // The idle four are closed once the header timeout passes...
    let start = Instant::now();
    for s in &mut idle {
        assert_eq!(read_to_close(s).await, "");
    }
    assert!(start.elapsed() < Duration::from_secs(5), "{:?}", start.elapsed());
    // ...and the server answers again.
    assert!(get_presets(addr).await.starts_with("HTTP/1.1 200"));
}

#[tokio::test]
async fn headers_dripped_slowly_are_cut_off() {
    let addr = start(tight()).await;
    let mut s = TcpStream::connect(addr).await.unwrap();
    let start = Instant::now();
    s.write_all(b"GET /api/presets HTTP/1.1\r\n").await.unwrap();
    let mut closed = false;
    for n in 0..20 {
        tokio::time::sleep(Duration::from_millis(300)).await;
        if s.write_all(format!("X-Drip-{n}: 1\r\n").as_bytes()).await.is_err() {
            closed = true;
            break;
        }
    }
    let got = read_to_close(&mut s).await;
    assert!(closed || !got.starts_with("HTTP/1.1 200"), "{got}");
    assert!(start.elapsed() < Duration::from_secs(8), "{:?}", start.elapsed());
}

#[tokio::test]
async fn a_body_that_never_ends_gets_a_408() {
    let addr = start(tight()).await;
    let mut s = TcpStream::connect(addr).await.unwrap();
    let start = Instant::now();
    s.write_all(
        b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
          Content-Length: 100\r\n\r\n{\"seed\":",
    )
    .await
    .unwrap();
    let got = read_to_close(&mut s).await;
    assert!(got.starts_with("HTTP/1.1 408"), "{got}");
    assert!(got.contains("slow_body"), "{got}");
    assert!(start.elapsed() < Duration::from_secs(5), "{:?}", start.elapsed());
}

#[tokio::test]
async fn the_default_bounds_fit_a_1024_file_limit() {
    let limits = Limits::default();
    assert!(limits.max_connections <= 900, "{}", limits.max_connections);
    assert!(limits.header_timeout <= Duration::from_secs(30));
    assert!(limits.body_timeout <= Duration::from_secs(30));
}

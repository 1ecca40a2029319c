//! Whom the server answers: Host (DNS rebinding), Origin and Sec-Fetch-Site
//! (another site's page), the content type of bodies, and the security
//! headers of every response: a page on another site must not play or read
//! games on a server that listens on this machine.

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use tower::ServiceExt;
use web::{AppState, Hosts};

use crate::util::{limits, missing_weights};

/// A router that answers to a loopback server's names at port 8048.
fn app() -> Router {
    let hosts = Hosts::listening_on("127.0.0.1:8048".parse().unwrap(), &[]);
    web::router(AppState::new(limits(), Some(missing_weights()), None, hosts))
}

/// Sends a request with these headers; the status and the response headers.
async fn send(
    app: &Router,
    method: &str,
    uri: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (StatusCode, axum::http::HeaderMap, String) {
    let mut req = Request::builder().method(method).uri(uri);
    for (name, value) in headers {
        req = req.header(*name, *value);
    }
    let res = app.clone().oneshot(req.body(Body::from(body.to_owned())).unwrap()).await.unwrap();
    let (parts, body) = res.into_parts();
    let bytes = axum::body::to_bytes(body, 1 << 20).await.unwrap();
    (parts.status, parts.headers, String::from_utf8_lossy(&bytes).into_owned())
}

const JSON: (&str, &str) = ("content-type", "application/json");

#[tokio::test]
async fn only_its_own_host_names_are_answered() {
    let app = app();
    for host in ["localhost:8048", "127.0.0.1:8048", "[::1]:8048", "LocalHost:8048"] {
        let (status, _, _) = send(&app, "GET", "/api/presets", &[("host", host)], "").await;
        assert_eq!(status, StatusCode::OK, "{host}");
    }
    for host in ["evil.example", "evil.example:8048", "localhost:9999", ""] {
        for uri in ["/", "/api/presets", "/app.js"] {
            let (status, _, text) = send(&app, "GET", uri, &[("host", host)], "").await;
            assert_eq!(status, StatusCode::MISDIRECTED_REQUEST, "{host} {uri}");
            assert!(text.contains("wrong_host") && text.contains("localhost:8048"), "{text}");
        }
    }
}

#[tokio::test]
async fn another_sites_page_is_refused_on_the_api() {
    let app = app();
    let host = ("host", "localhost:8048");
    // The page's own requests: same origin.
    let own = [host, JSON, ("origin", "http://localhost:8048"), ("sec-fetch-site", "same-origin")];
    let (status, _, _) = send(&app, "POST", "/api/games", &own, "{}").await;
    assert_eq!(status, StatusCode::CREATED);
    // curl and other programs send neither header.
    let (status, _, _) = send(&app, "POST", "/api/games", &[host, JSON], "{}").await;
    assert_eq!(status, StatusCode::CREATED);
    for bad in [
        vec![host, JSON, ("origin", "http://evil.example")],
        vec![host, JSON, ("origin", "http://localhost:9999")],
        vec![host, JSON, ("origin", "null")],
        vec![host, JSON, ("sec-fetch-site", "cross-site")],
        vec![host, JSON, ("sec-fetch-site", "same-site")],
    ] {
        let (status, _, text) = send(&app, "POST", "/api/games", &bad, "{}").await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{bad:?}");
        assert!(text.contains("cross_origin"), "{text}");
        let (status, _, _) = send(&app, "GET", "/api/presets", &bad, "").await;
        assert_eq!(status, StatusCode::FORBIDDEN, "GET {bad:?}");
    }
    // The page itself may be linked from anywhere.
    let (status, _, _) =
        send(&app, "GET", "/", &[host, ("sec-fetch-site", "cross-site")], "").await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn a_body_must_be_sent_as_json() {
    // fetch(no-cors) can send text/plain across sites without asking first.
    let app = app();
    let host = ("host", "localhost:8048");
    for ct in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"] {
        let (status, _, text) =
            send(&app, "POST", "/api/games", &[host, ("content-type", ct)], r#"{"seed":1}"#).await;
        assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{ct}");
        assert!(text.contains("bad_content_type"), "{text}");
    }
    let (status, _, _) = send(&app, "POST", "/api/games", &[host], r#"{"seed":1}"#).await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    // No body needs no content type; JSON with a charset is JSON.
    let (status, _, _) = send(&app, "POST", "/api/games", &[host], "").await;
    assert_eq!(status, StatusCode::CREATED);
    let charset = ("content-type", "application/json; charset=utf-8");
    let (status, _, _) = send(&app, "POST", "/api/games", &[host, charset], "{}").await;
    assert_eq!(status, StatusCode::CREATED);
}

#[tokio::test]
async fn every_response_carries_the_security_headers() {
    let app = app();
    for (uri, host) in [
        ("/", "localhost:8048"),
        ("/api/presets", "localhost:8048"),
        ("/nowhere", "localhost:8048"),
        ("/", "evil.example"),
    ] {
        let (_, headers, _) = send(&app, "GET", uri, &[("host", host)], "").await;
        let csp = headers["content-security-policy"].to_str().unwrap();
        assert!(
            csp.contains("frame-ancestors 'none'") && csp.contains("script-src 'self'"),
            "{csp}"
        );
        assert_eq!(headers["x-content-type-options"], "nosniff", "{uri}");
        assert_eq!(headers["x-frame-options"], "DENY", "{uri}");
        assert_eq!(headers["referrer-policy"], "no-referrer", "{uri}");
    }
}

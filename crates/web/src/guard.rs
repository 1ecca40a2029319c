//! Whom the server answers: the `Host` a request names (against DNS
//! rebinding: a page of another site whose name was made to resolve to
//! 127.0.0.1), the `Origin` and `Sec-Fetch-Site` of requests a browser sends
//! for another site's page (against cross-site requests that start games,
//! push a player's game out of the store or spend the CPU on searches), and
//! the security headers of every response.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::AppState;
use crate::error::ApiError;

/// The `Host` values (name and port, lower case) a server answers to; none
/// listed means any.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hosts {
    names: Vec<String>,
}

impl Hosts {
    /// Any `Host`: for in-process use and for a server on all interfaces,
    /// whose clients may name it by any of the machine's addresses.
    pub fn any() -> Hosts {
        Hosts::default()
    }

    /// The names a server listening on `addr` answers to: on loopback,
    /// `localhost`, `127.0.0.1` and `[::1]`; on one other address, that
    /// address; on all interfaces (`0.0.0.0`, `::`), any name. `names` (the
    /// host names the user gave, say `localhost` or `box.lan`) are added,
    /// and a server on all interfaces then answers to those only. Each at
    /// `addr`'s port.
    pub fn listening_on(addr: SocketAddr, names: &[String]) -> Hosts {
        let port = addr.port();
        let ip = addr.ip();
        let mut hosts: Vec<String> = if ip.is_loopback() {
            vec!["localhost".into(), "127.0.0.1".into(), "[::1]".into()]
        } else if ip.is_unspecified() {
            Vec::new()
        } else if addr.is_ipv6() {
            vec![format!("[{ip}]")]
        } else {
            vec![ip.to_string()]
        };
        hosts.extend(names.iter().map(|n| n.to_ascii_lowercase()));
        let mut names: Vec<String> = hosts.into_iter().map(|h| format!("{h}:{port}")).collect();
        names.sort();
        names.dedup();
        Hosts { names }
    }

    /// Whether a request naming `host` (its `Host` header) is answered.
    fn allows(&self, host: &str) -> bool {
        self.names.is_empty() || self.names.iter().any(|n| n.eq_ignore_ascii_case(host))
    }

    /// The names, for messages (empty: any).
    pub fn names(&self) -> &[String] {
        &self.names
    }
}

/// What every response carries: the page loads only its own script, style
/// and images, nobody frames it, nothing is sniffed, nothing leaks in a
/// referrer.
const SECURITY_HEADERS: [(&str, &str); 4] = [
    (
        "content-security-policy",
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
         connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    ),
    ("x-content-type-options", "nosniff"),
    ("x-frame-options", "DENY"),
    ("referrer-policy", "no-referrer"),
];

/// The middleware: refuses what [`check`] refuses, with the API's JSON
/// error, and adds the security headers to every response.
pub(crate) async fn guard(State(app): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    let mut res = match check(&app.hosts, req.headers(), req.uri().path()) {
        Ok(()) => next.run(req).await,
        Err(err) => err.into_response(),
    };
    let headers = res.headers_mut();
    for (name, value) in SECURITY_HEADERS {
        headers.insert(name, HeaderValue::from_static(value));
    }
    res
}

/// Whether a request may be served: its `Host` is one of `hosts`; a
/// browser's request from another site's page (`Origin` of another host,
/// `Sec-Fetch-Site` other than same-origin or none) is refused on the API.
fn check(hosts: &Hosts, headers: &HeaderMap, path: &str) -> Result<(), ApiError> {
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("");
    if !hosts.allows(host) {
        return Err(ApiError::new(
            StatusCode::MISDIRECTED_REQUEST,
            "wrong_host",
            format!("this server answers to {} only", hosts.names().join(", ")),
        ));
    }
    if !path.starts_with("/api/") {
        return Ok(());
    }
    let cross_site = || {
        ApiError::new(
            StatusCode::FORBIDDEN,
            "cross_origin",
            "the API answers this server's own page only",
        )
    };
    if let Some(site) = headers.get("sec-fetch-site")
        && !matches!(site.as_bytes(), b"same-origin" | b"none")
    {
        return Err(cross_site());
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let own = origin
            .to_str()
            .ok()
            .and_then(|o| o.strip_prefix("http://"))
            .is_some_and(|authority| !host.is_empty() && authority.eq_ignore_ascii_case(host));
        if !own {
            return Err(cross_site());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_names_and_all_interfaces() {
        let h = Hosts::listening_on("127.0.0.1:8048".parse().unwrap(), &[]);
        assert_eq!(h.names(), ["127.0.0.1:8048", "[::1]:8048", "localhost:8048"]);
        assert!(
            h.allows("LOCALHOST:8048") && !h.allows("localhost:80") && !h.allows("evil.example")
        );
        let any = Hosts::listening_on("0.0.0.0:80".parse().unwrap(), &[]);
        assert!(any.allows("whatever:1"));
        let named = Hosts::listening_on("0.0.0.0:80".parse().unwrap(), &["Box.lan".into()]);
        assert_eq!(named.names(), ["box.lan:80"]);
        let v6 = Hosts::listening_on("[fe80::1]:9".parse().unwrap(), &[]);
        assert_eq!(v6.names(), ["[fe80::1]:9"]);
    }
}

//! The accept loop: HTTP/1.1 connections served by hyper, at most
//! [`Limits::max_connections`] at once (one more is closed as soon as it is
//! accepted, so idle sockets cannot lock everyone out of the process's open
//! files), each closed when a request's headers take longer than
//! [`Limits::header_timeout`] to arrive. `axum::serve` has neither bound.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use crate::Limits;

/// Serves `app` on `listener` until `shutdown` completes (connections then
/// still open are dropped).
///
/// # Errors
/// Never for a client's doing: failed accepts (out of file descriptors, a
/// connection reset before it was taken) are waited out and retried.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: &Limits,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let header_timeout = limits.header_timeout;
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => return Ok(()),
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(_) => {
                // EMFILE and friends: give the open connections time to end.
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(permit) = Arc::clone(&slots).try_acquire_owned() else {
            drop(stream);
            continue;
        };
        let service = TowerToHyperService::new(app.clone());
        tokio::spawn(async move {
            let _permit = permit;
            let connection = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(header_timeout)
                .serve_connection(TokioIo::new(stream), service);
            // A client that goes away mid-request is not the server's error.
            let _ = connection.await;
        });
    }
}

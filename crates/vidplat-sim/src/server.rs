//! The listener: the router served over hyper's HTTP/1 connections with a
//! header-read timeout. `axum::serve` sets no timer, so a client sending half
//! a request would hold its connection (and a task) for as long as it likes.

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::{oneshot, watch};

/// The longest timeout applied: a far deadline, without overflowing `Instant`.
const LONGEST_TIMEOUT: Duration = Duration::from_secs(365 * 24 * 3600);

/// Serves `app` on `listener` until `stop` fires (or its sender is dropped),
/// then lets open connections finish the request they are in. A connection
/// whose request head (line and headers) does not arrive within
/// `header_read_timeout` is closed, as is one idle that long between requests.
pub(crate) async fn serve(
    listener: TcpListener,
    app: Router,
    header_read_timeout: Duration,
    stop: oneshot::Receiver<()>,
) {
    let header_read_timeout = header_read_timeout.min(LONGEST_TIMEOUT);
    // Dropped when the server stops: every connection then shuts down gracefully.
    let (stopping, _) = watch::channel(());
    tokio::pin!(stop);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(error) => {
                    // Out of file descriptors and the like: wait rather than spin.
                    tracing::debug!(%error, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            _ = &mut stop => break,
        };
        let service = TowerToHyperService::new(app.clone());
        let mut stopped = stopping.subscribe();
        tokio::spawn(async move {
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(TokioTimer::new()).header_read_timeout(header_read_timeout);
            let connection = http.serve_connection(TokioIo::new(stream), service);
            tokio::pin!(connection);
            let result = tokio::select! {
                result = connection.as_mut() => result,
                _ = stopped.changed() => {
                    connection.as_mut().graceful_shutdown();
                    connection.await
                }
            };
            if let Err(error) = result {
                // A header-read timeout, a client gone mid-request: the connection's own business.
                tracing::debug!(%error, "connection ended with an error");
            }
        });
    }
}

//! The `/metrics` HTTP endpoint (axum) shared by `zshm router` and `zshm exporter`, hardened for
//! a robot's network: at most [`MAX_CONNECTIONS`] connections, each closed after
//! [`CONNECTION_LIFETIME`], each request head due within [`HEAD_DEADLINE`](super::conn_guard::HEAD_DEADLINE), and at
//! the cap the connections that have not sent a request are shed first ([`conn_guard`](super::conn_guard): half-open
//! clients cannot keep a scrape out),
//! at most [`MAX_CONCURRENT_SCRAPES`] scrapes gathering at once (a scrape fans out to every node;
//! more are answered 503 at once), each bounded by [`SCRAPE_DEADLINE`], and a graceful stop on
//! SIGINT/SIGTERM.
//!
//! Routes: `/metrics` (Prometheus), `/` (the status page, [`status_page`]) and `/status.json`
//! (what the page shows). The status JSON is gathered like a scrape and shares its limits.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

use anyhow::Context;
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;
use axum::routing::get;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use zshm_ops::telemetry::exporter::{CONTENT_TYPE as METRICS_CONTENT_TYPE, Exporter};

use super::conn_guard::{Guard, Guarded};
use super::{shutdown, status_page};

/// Connections served at once (see [`conn_guard`](super::conn_guard) for what happens at the cap).
pub const MAX_CONNECTIONS: usize = 16;
/// How long one connection may stay open, idle or not.
pub const CONNECTION_LIFETIME: Duration = Duration::from_secs(30);
/// Scrapes gathering at once.
pub const MAX_CONCURRENT_SCRAPES: usize = 2;
/// The longest a scrape may take, queries to every node included.
pub const SCRAPE_DEADLINE: Duration = Duration::from_secs(5);

/// The endpoint's socket, bound before anything is announced so that a taken port is known
/// while the caller can still decide what to do.
pub struct MetricsSocket {
    listener: TcpListener,
    /// The bound address (the real port when port 0 was asked).
    pub addr: SocketAddr,
}

/// Binds `addr`.
pub async fn bind(addr: SocketAddr) -> anyhow::Result<MetricsSocket> {
    let listener = TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen for metrics on {addr}"))?;
    let addr = listener.local_addr()?;
    Ok(MetricsSocket { listener, addr })
}

/// Serves the metrics of the robot `session` sees at `/metrics`, and the status page, on `socket` in the background until SIGINT/SIGTERM; the
/// returned handle ends once in-flight requests are answered.
pub fn serve(socket: MetricsSocket, session: zshm::Session) -> tokio::task::JoinHandle<()> {
    let exporter = Exporter::new(session.clone());
    let status = status_page::StatusSource::new(session, exporter.clone());
    let scrapes = Arc::new(Semaphore::new(MAX_CONCURRENT_SCRAPES));
    let status_scrapes = scrapes.clone();
    let app = axum::Router::new()
        .route(
            "/metrics",
            get(move || {
                let (exporter, scrapes) = (exporter.clone(), scrapes.clone());
                async move { scrape(&exporter, &scrapes).await }
            }),
        )
        .route(
            "/status.json",
            get(move || {
                let (status, scrapes) = (status.clone(), status_scrapes.clone());
                async move { status_json(&status, &scrapes).await }
            }),
        )
        .route(
            "/",
            get(|| async {
                (
                    [
                        (CONTENT_TYPE, "text/html; charset=utf-8"),
                        // The page runs its own inline script and talks to this server only.
                        (
                            axum::http::header::CONTENT_SECURITY_POLICY,
                            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'",
                        ),
                    ],
                    status_page::HTML,
                )
            }),
        );
    let listener = Capped {
        inner: socket.listener,
        guard: Guard::new("metrics endpoint", MAX_CONNECTIONS, true),
    };
    tokio::spawn(async move {
        let stop = async {
            let _ = shutdown::signal().await;
        };
        if let Err(err) = axum::serve(listener, app).with_graceful_shutdown(stop).await {
            tracing::error!("metrics endpoint stopped: {err}");
        }
    })
}

async fn scrape(exporter: &Exporter, scrapes: &Semaphore) -> axum::response::Response {
    let Ok(_permit) = scrapes.try_acquire() else {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "zshm exporter: too many scrapes at once, retry later\n",
        )
            .into_response();
    };
    match tokio::time::timeout(SCRAPE_DEADLINE, exporter.render()).await {
        Ok(text) => ([(CONTENT_TYPE, METRICS_CONTENT_TYPE)], text).into_response(),
        Err(_) => (
            StatusCode::GATEWAY_TIMEOUT,
            format!("zshm exporter: gathering took longer than {SCRAPE_DEADLINE:?}\n"),
        )
            .into_response(),
    }
}

async fn status_json(status: &status_page::StatusSource, scrapes: &Semaphore) -> axum::response::Response {
    let Ok(_permit) = scrapes.try_acquire() else {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "zshm: too many scrapes at once, retry later\n",
        )
            .into_response();
    };
    match tokio::time::timeout(SCRAPE_DEADLINE, status.gather()).await {
        Ok(status) => match serde_json::to_string(&status) {
            Ok(json) => ([(CONTENT_TYPE, "application/json")], json).into_response(),
            Err(err) => (StatusCode::INTERNAL_SERVER_ERROR, format!("zshm: {err}\n")).into_response(),
        },
        Err(_) => (
            StatusCode::GATEWAY_TIMEOUT,
            format!("zshm: gathering took longer than {SCRAPE_DEADLINE:?}\n"),
        )
            .into_response(),
    }
}

/// A listener that serves at most [`MAX_CONNECTIONS`] connections at once, each for a limited
/// time.
struct Capped {
    inner: TcpListener,
    guard: Guard,
}

impl axum::serve::Listener for Capped {
    type Io = Limited;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            match self.inner.accept().await {
                Ok((stream, addr)) => {
                    // None: every slot serves a request; the stream is dropped (closed).
                    if let Some(stream) = self.guard.admit(stream) {
                        let io = Limited {
                            stream,
                            deadline: Box::pin(tokio::time::sleep(CONNECTION_LIFETIME)),
                        };
                        return (io, addr);
                    }
                }
                // Out of file descriptors, a connection reset before accept: try the next one
                // after a breath rather than spinning.
                Err(err) => {
                    tracing::debug!("metrics endpoint: accept failed: {err}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.inner.local_addr()
    }
}

/// A connection that ends at its deadline and gives its slot back when dropped.
struct Limited {
    stream: Guarded<TcpStream>,
    deadline: Pin<Box<tokio::time::Sleep>>,
}

impl Limited {
    fn expired(&mut self, cx: &mut TaskContext<'_>) -> bool {
        self.deadline.as_mut().poll(cx).is_ready()
    }
}

fn timed_out() -> io::Error {
    io::Error::new(io::ErrorKind::TimedOut, "metrics connection lifetime over")
}

impl AsyncRead for Limited {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.expired(cx) {
            return Poll::Ready(Err(timed_out()));
        }
        Pin::new(&mut this.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Limited {
    fn poll_write(self: Pin<&mut Self>, cx: &mut TaskContext<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if this.expired(cx) {
            return Poll::Ready(Err(timed_out()));
        }
        Pin::new(&mut this.stream).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

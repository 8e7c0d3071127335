//! The `/metrics` HTTP endpoint (axum) shared by `zshm router` and `zshm exporter`, hardened for
//! a robot's network: at most [`MAX_CONNECTIONS`] connections, each closed after
//! [`CONNECTION_LIFETIME`] (a client that opens a connection and sends nothing cannot hold it),
//! at most [`MAX_CONCURRENT_SCRAPES`] scrapes gathering at once (a scrape fans out to every node;
//! more are answered 503 at once), each bounded by [`SCRAPE_DEADLINE`], and a graceful stop on
//! SIGINT/SIGTERM.

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
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use zshm::telemetry::exporter::{CONTENT_TYPE as METRICS_CONTENT_TYPE, Exporter};

use super::shutdown;

/// Connections served at once; more wait in the kernel's backlog.
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

/// Serves `exporter` at `/metrics` on `socket` in the background until SIGINT/SIGTERM; the
/// returned handle ends once in-flight requests are answered.
pub fn serve(socket: MetricsSocket, exporter: Exporter) -> tokio::task::JoinHandle<()> {
    let scrapes = Arc::new(Semaphore::new(MAX_CONCURRENT_SCRAPES));
    let app = axum::Router::new()
        .route(
            "/metrics",
            get(move || {
                let (exporter, scrapes) = (exporter.clone(), scrapes.clone());
                async move { scrape(&exporter, &scrapes).await }
            }),
        )
        .route("/", get(|| async { "zshm exporter: metrics at /metrics\n" }));
    let listener = Capped {
        inner: socket.listener,
        permits: Arc::new(Semaphore::new(MAX_CONNECTIONS)),
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

/// A listener that serves at most `permits` connections at once, each for a limited time.
struct Capped {
    inner: TcpListener,
    permits: Arc<Semaphore>,
}

impl axum::serve::Listener for Capped {
    type Io = Limited;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        // The semaphore is never closed, so acquiring only waits.
        let permit = self
            .permits
            .clone()
            .acquire_owned()
            .await
            .expect("the connection semaphore is never closed");
        loop {
            match self.inner.accept().await {
                Ok((stream, addr)) => {
                    let io = Limited {
                        stream,
                        deadline: Box::pin(tokio::time::sleep(CONNECTION_LIFETIME)),
                        _permit: permit,
                    };
                    return (io, addr);
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
    stream: TcpStream,
    deadline: Pin<Box<tokio::time::Sleep>>,
    _permit: OwnedSemaphorePermit,
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

//! [`Guard`]: keeps a small TCP server (the metrics endpoint, the Foxglove endpoint) reachable
//! when clients misbehave.
//!
//! * A connection must send its request head (an HTTP request line and headers, ending with an
//!   empty line) within [`HEAD_DEADLINE`] of being accepted, and of the previous response on a
//!   keep-alive connection; otherwise it is closed.
//! * At most `cap` connections are served at once. When a new connection arrives at the cap, the
//!   oldest connection still waiting for its request head is shed to make room; only when every
//!   connection is in the middle of a request is the new one refused (closed at once).
//!
//! Admission is one decision under one lock: the new connection takes the shed one's place at
//! once instead of waiting for its slot to be given back. (Waiting raced: under load, a burst of
//! new connections could shed every waiting one before any had closed, and the next arrival,
//! finding nothing left to shed, was refused although the slots were about to free.) A shed
//! connection closes at its next poll, so the connections open exceed `cap` only by the shed
//! ones still closing.
//!
//! So half-open connections (a request line sent halfway, then silence) cannot keep a scrape
//! out: each one holds a slot for at most [`HEAD_DEADLINE`], and fewer than that when others
//! arrive. This is not a defence against a flood of complete requests; that is what the
//! scrape semaphore of [`super::metrics_http`] is for.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

/// How long a client has to send its request head (request line and headers).
pub const HEAD_DEADLINE: Duration = Duration::from_secs(3);

/// Admits connections under a cap, shedding the ones that have not sent a request head.
#[derive(Debug, Clone)]
pub struct Guard {
    inner: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    /// What the guard protects, for the log.
    name: &'static str,
    /// Connections served at once, not counting the shed ones still closing.
    cap: usize,
    /// Live connections, oldest first.
    live: Mutex<Vec<Weak<Conn>>>,
    /// Whether a keep-alive connection gets a new head deadline after each response (HTTP) or
    /// only the first head is bounded (a WebSocket handshake, after which the connection is
    /// the protocol's).
    every_request: bool,
    shed: AtomicU64,
    refused: AtomicU64,
    timed_out: AtomicU64,
}

/// What the guard and a connection share.
#[derive(Debug, Default)]
struct Conn {
    /// Waiting for a request head (no request in progress).
    waiting: AtomicBool,
    /// Told to close by the guard.
    shed: AtomicBool,
    /// The waker of the connection's pending read, woken when it is shed.
    waker: Mutex<Option<Waker>>,
}

/// Counts of what the guard did, since start.
#[cfg(test)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GuardCounts {
    /// Connections closed to make room for a new one.
    pub shed: u64,
    /// New connections closed because every slot was serving a request.
    pub refused: u64,
    /// Connections closed because their request head did not arrive in time.
    pub timed_out: u64,
}

impl Guard {
    /// A guard of at most `cap` connections for the server `name`. With `every_request`, each
    /// request head on a connection is bounded by [`HEAD_DEADLINE`]; without, only the first.
    pub fn new(name: &'static str, cap: usize, every_request: bool) -> Self {
        Self {
            inner: Arc::new(Shared {
                name,
                cap,
                live: Mutex::new(Vec::new()),
                every_request,
                shed: AtomicU64::new(0),
                refused: AtomicU64::new(0),
                timed_out: AtomicU64::new(0),
            }),
        }
    }

    /// What the guard did so far.
    #[cfg(test)]
    pub fn counts(&self) -> GuardCounts {
        GuardCounts {
            shed: self.inner.shed.load(Ordering::Relaxed),
            refused: self.inner.refused.load(Ordering::Relaxed),
            timed_out: self.inner.timed_out.load(Ordering::Relaxed),
        }
    }

    /// Admits `stream`, shedding the oldest connection without a request in progress when the
    /// cap is reached; `None` (the stream is closed) when every connection is serving a request.
    pub fn admit<S>(&self, stream: S) -> Option<Guarded<S>> {
        let conn = Arc::new(Conn {
            waiting: AtomicBool::new(true),
            ..Conn::default()
        });
        {
            let mut live = self.inner.live.lock().expect("no panics under the guard lock");
            live.retain(|c| c.strong_count() > 0);
            let serving = live
                .iter()
                .filter_map(Weak::upgrade)
                .filter(|c| !c.shed.load(Ordering::Acquire))
                .count();
            if serving >= self.inner.cap && !self.shed_oldest_waiting(&live) {
                if self.inner.refused.fetch_add(1, Ordering::Relaxed) == 0 {
                    tracing::warn!(
                        "{}: every connection is serving a request; refusing new ones until one \
                         ends (counted; logged once)",
                        self.inner.name
                    );
                }
                return None;
            }
            live.push(Arc::downgrade(&conn));
        }
        Some(Guarded {
            stream,
            conn,
            guard: self.inner.clone(),
            head_deadline: Box::pin(tokio::time::sleep(HEAD_DEADLINE)),
            tail: [0; 3],
        })
    }

    /// Tells the oldest connection of `live` waiting for a request head to close; false when
    /// there is none.
    fn shed_oldest_waiting(&self, live: &[Weak<Conn>]) -> bool {
        let victim = live
            .iter()
            .filter_map(Weak::upgrade)
            .find(|c| c.waiting.load(Ordering::Acquire) && !c.shed.load(Ordering::Acquire));
        let Some(victim) = victim else {
            return false;
        };
        victim.shed.store(true, Ordering::Release);
        if let Some(waker) = victim
            .waker
            .lock()
            .expect("no panics under the waker lock")
            .take()
        {
            waker.wake();
        }
        if self.inner.shed.fetch_add(1, Ordering::Relaxed) == 0 {
            tracing::warn!(
                "{}: connection cap reached; closing connections that have not sent a request \
                 to make room (counted; logged once)",
                self.inner.name
            );
        }
        true
    }
}

/// A connection admitted by a [`Guard`]: its reads fail once it is shed or its request head is
/// late, and it leaves the guard's count when dropped.
#[derive(Debug)]
pub struct Guarded<S> {
    stream: S,
    conn: Arc<Conn>,
    guard: Arc<Shared>,
    head_deadline: Pin<Box<Sleep>>,
    /// The last three bytes read, to find a head's end across reads.
    tail: [u8; 3],
}

impl<S> Guarded<S> {
    /// Whether the request head (or, without `every_request`, the first one) has arrived.
    #[cfg(test)]
    pub fn head_received(&self) -> bool {
        !self.conn.waiting.load(Ordering::Acquire)
    }

    /// Looks for the empty line ending a request head in `bytes`.
    fn scan(&mut self, bytes: &[u8]) {
        let mut window: Vec<u8> = Vec::with_capacity(3 + bytes.len().min(64 * 1024));
        window.extend_from_slice(&self.tail);
        window.extend_from_slice(bytes);
        if window.windows(4).any(|w| w == b"\r\n\r\n") {
            self.conn.waiting.store(false, Ordering::Release);
        }
        let n = window.len();
        self.tail.copy_from_slice(&window[n - 3..]);
    }
}

fn closed(why: &'static str) -> io::Error {
    io::Error::new(io::ErrorKind::TimedOut, why)
}

impl<S: AsyncRead + Unpin> AsyncRead for Guarded<S> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let waiting = this.conn.waiting.load(Ordering::Acquire);
        if waiting {
            *this.conn.waker.lock().expect("no panics under the waker lock") = Some(cx.waker().clone());
            if this.conn.shed.load(Ordering::Acquire) {
                return Poll::Ready(Err(closed(
                    "connection shed: the server is at its connection cap",
                )));
            }
            if this.head_deadline.as_mut().poll(cx).is_ready() {
                if this.guard.timed_out.fetch_add(1, Ordering::Relaxed) == 0 {
                    tracing::info!(
                        "{}: closing a connection that sent no request within {HEAD_DEADLINE:?} \
                         (counted; logged once)",
                        this.guard.name
                    );
                }
                return Poll::Ready(Err(closed("request head not received in time")));
            }
        }
        let before = buf.filled().len();
        let result = Pin::new(&mut this.stream).poll_read(cx, buf);
        if waiting && matches!(result, Poll::Ready(Ok(()))) {
            let new = buf.filled()[before..].to_vec();
            this.scan(&new);
        }
        result
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Guarded<S> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.stream).poll_write(cx, buf);
        // A response went out: the next request's head gets its own deadline, counted from
        // the response's last write.
        if this.guard.every_request && matches!(result, Poll::Ready(Ok(n)) if n > 0) {
            if !this.conn.waiting.swap(true, Ordering::AcqRel) {
                this.tail = [0; 3];
            }
            this.head_deadline.as_mut().reset(Instant::now() + HEAD_DEADLINE);
        }
        result
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt, duplex};

    use super::*;

    #[tokio::test]
    async fn a_full_cap_sheds_the_connection_without_a_request() {
        let guard = Guard::new("test", 2, true);
        let (a, mut a_peer) = duplex(1024);
        let (b, mut b_peer) = duplex(1024);
        let mut a = guard.admit(a).expect("a slot is free");
        let mut b = guard.admit(b).expect("a slot is free");
        // b completes a request head; a does not.
        a_peer.write_all(b"GET /met").await.unwrap();
        b_peer
            .write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            .await
            .unwrap();
        let mut buf = [0u8; 256];
        let _ = a.read(&mut buf).await.unwrap();
        let _ = b.read(&mut buf).await.unwrap();
        assert!(b.head_received() && !a.head_received());

        let (c, _c_peer) = duplex(1024);
        let shed = tokio::spawn(async move { a.read(&mut [0u8; 16]).await });
        let c = guard.admit(c);
        assert!(c.is_some(), "a's slot went to c");
        assert!(shed.await.unwrap().is_err(), "a was closed");
        assert_eq!(guard.counts().shed, 1);

        // Every slot now serves a request or is the newest: b is mid-request, c waits; c is
        // shed next, never b.
        drop(c);
        let (d, _d_peer) = duplex(1024);
        assert!(guard.admit(d).is_some());
        let (e, _e_peer) = duplex(1024);
        assert!(guard.admit(e).is_some(), "d (waiting) shed for e");
        assert!(b.head_received());
    }

    #[tokio::test]
    async fn a_burst_at_the_cap_is_admitted_while_the_shed_connections_are_still_closing() {
        let guard = Guard::new("test", 2, false);
        // Nothing reads these, so none of them closes while the burst arrives: each arrival
        // must take a place of its own at once.
        let mut held = Vec::new();
        for _ in 0..40 {
            let (conn, peer) = duplex(64);
            held.push((
                guard.admit(conn).expect("a waiting connection is shed for it"),
                peer,
            ));
        }
        assert_eq!(guard.counts().shed, 38);
        assert_eq!(guard.counts().refused, 0);
        let newest: Vec<bool> = held
            .iter()
            .map(|(c, _)| c.conn.shed.load(Ordering::Acquire))
            .collect();
        assert!(
            newest[..38].iter().all(|&s| s) && !newest[38] && !newest[39],
            "the oldest are shed"
        );
    }

    #[tokio::test]
    async fn a_cap_of_busy_connections_refuses() {
        let guard = Guard::new("test", 1, true);
        let (a, mut a_peer) = duplex(1024);
        let mut a = guard.admit(a).expect("a slot is free");
        a_peer.write_all(b"GET / HTTP/1.1\r\n\r\n").await.unwrap();
        let _ = a.read(&mut [0u8; 64]).await.unwrap();
        let (b, _b_peer) = duplex(1024);
        assert!(guard.admit(b).is_none());
        assert_eq!(guard.counts().refused, 1);
    }

    #[tokio::test]
    async fn a_late_request_head_closes_the_connection() {
        let guard = Guard::new("test", 4, true);
        let (a, mut a_peer) = duplex(1024);
        let mut a = guard.admit(a).expect("a slot is free");
        a_peer.write_all(b"GET /").await.unwrap();
        let mut buf = [0u8; 64];
        let _ = a.read(&mut buf).await.unwrap();
        let err = a.read(&mut buf).await.expect_err("deadline");
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        assert_eq!(guard.counts().timed_out, 1);
    }

    #[tokio::test]
    async fn a_head_split_across_reads_is_found() {
        let guard = Guard::new("test", 1, false);
        let (a, mut a_peer) = duplex(1024);
        let mut a = guard.admit(a).expect("a slot is free");
        let mut buf = [0u8; 64];
        for part in [&b"GET / HTTP/1.1\r"[..], b"\n\r", b"\n"] {
            a_peer.write_all(part).await.unwrap();
            let _ = a.read(&mut buf).await.unwrap();
        }
        assert!(a.head_received());
        // Without every_request, a response does not start a new deadline.
        a.write_all(b"HTTP/1.1 101\r\n\r\n").await.unwrap();
        assert!(a.head_received());
    }
}

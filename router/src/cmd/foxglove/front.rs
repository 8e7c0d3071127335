//! The accept side of `zshm foxglove`: the socket users connect to, in front of the `foxglove`
//! crate's WebSocket server, which listens on a loopback port of its own.
//!
//! It is there for two things the crate (0.30) does not do:
//!
//! * **A handshake deadline and shedding of half-open connections.** The crate accepts every
//!   connection and waits for its upgrade request without a deadline or a cap
//!   (`websocket/server.rs`, `accept_connections`, `handshake::do_handshake`), and takes no
//!   listener or stream from outside. Here every connection goes through the same
//!   [`Guard`] as the metrics server: the upgrade request must arrive within
//!   [`HEAD_DEADLINE`](crate::support::conn_guard::HEAD_DEADLINE), and at [`MAX_CLIENTS`] the
//!   oldest connection that has not sent one is shed first. A connection only reaches the
//!   crate's server once its request has arrived, so half-open ones never cost it a task.
//! * **Counted drops.** The crate gives each client a bounded queue that drops the oldest
//!   message when full, but discards the count (`connected_client/send_lossy.rs`: the
//!   `SentLossy(n)` result is ignored, and only a throttled log line remains). Here each client
//!   has a bounded [`Queue`] of its own between the crate's socket and the client's: the
//!   crate's socket is read as fast as it writes (so its queue does not fill while this
//!   process has CPU), and when the client reads slower than its topics arrive, the oldest
//!   *data* message waiting here is dropped and counted; control messages are never dropped.
//!
//! Whatever a client falls behind by, the zenoh callbacks feeding the channels never wait: the
//! crate's `log` only tries to queue.

use std::collections::VecDeque;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;

use super::frames::{self, Frame};
use crate::support::conn_guard::Guard;
use crate::support::out::outln;

/// Connections served at once (clients, plus connections still sending their request).
pub const MAX_CLIENTS: usize = 16;
/// The longest upgrade request accepted from a client.
const MAX_REQUEST_HEAD: usize = 16 * 1024;

/// How much a client may have waiting before its oldest data messages are dropped.
#[derive(Debug, Clone, Copy)]
pub struct QueueLimits {
    /// Data messages waiting at most.
    pub messages: usize,
    /// Bytes of data messages waiting at most (the newest message always fits).
    pub bytes: usize,
}

/// Counts over every client since start.
#[derive(Debug, Default)]
pub struct Totals {
    /// Clients that completed a handshake.
    pub clients: AtomicU64,
    /// Data messages written to clients.
    pub sent: AtomicU64,
    /// Data messages dropped because a client was behind.
    pub dropped: AtomicU64,
}

/// Accepts clients on `listener` and serves each through the crate's server at `upstream`,
/// until the returned task is aborted (which closes every connection).
pub fn serve(
    listener: TcpListener,
    upstream: SocketAddr,
    limits: QueueLimits,
    totals: Arc<Totals>,
) -> tokio::task::JoinHandle<()> {
    let guard = Guard::new("foxglove endpoint", MAX_CLIENTS, false);
    tokio::spawn(async move {
        // Dropping the set (the task is aborted) aborts every connection with it.
        let mut connections = tokio::task::JoinSet::new();
        loop {
            let (stream, addr) = match listener.accept().await {
                Ok(accepted) => accepted,
                // Out of file descriptors, or reset before accept: try again after a breath
                // instead of spinning.
                Err(err) => {
                    tracing::debug!("foxglove endpoint: accept failed: {err}");
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
            };
            while connections.try_join_next().is_some() {}
            let _ = stream.set_nodelay(true);
            // Admitted in the order accepted. None: every slot is serving a client; the
            // stream is dropped (closed).
            let Some(client) = guard.admit(stream) else {
                continue;
            };
            let totals = totals.clone();
            connections.spawn(async move {
                if let Err(err) = connection(client, addr, upstream, limits, &totals).await {
                    tracing::debug!("foxglove client {addr}: {err}");
                }
            });
        }
    })
}

/// Serves one admitted client until either side closes.
async fn connection<C: AsyncRead + AsyncWrite + Unpin>(
    mut client: C,
    addr: SocketAddr,
    upstream: SocketAddr,
    limits: QueueLimits,
    totals: &Totals,
) -> io::Result<()> {
    let request = read_request_head(&mut client).await?;
    let server = TcpStream::connect(upstream).await?;
    server.set_nodelay(true)?;
    let (server_read, mut server_write) = server.into_split();
    server_write.write_all(&request).await?;
    let (mut client_read, mut client_write) = tokio::io::split(client);

    let queue = Queue::new(limits);
    let mut server_read = BufReader::with_capacity(256 * 1024, server_read);
    let (head, upgraded) = frames::read_response_head(&mut server_read).await?;
    client_write.write_all(&head).await?;
    if !upgraded {
        // A refused handshake: its body (a reason) goes to the client as it is.
        tokio::io::copy(&mut server_read, &mut client_write).await?;
        return Ok(());
    }
    totals.clients.fetch_add(1, Ordering::Relaxed);
    let reading = async {
        let outcome = pump(&mut server_read, &queue, addr, totals).await;
        queue.close();
        outcome
    };
    let writing = drain(&queue, &mut client_write, totals);
    let upward = tokio::io::copy(&mut client_read, &mut server_write);
    let outcome = tokio::select! {
        // The server ended (the client said goodbye, or the server stops): what is queued
        // still goes out.
        outcome = async { let (read, write) = tokio::join!(reading, writing); read.and(write) } => outcome,
        outcome = upward => outcome.map(|_| ()),
    };
    let (sent, dropped) = queue.counts();
    outln!("client {addr} left: {sent} messages sent, {dropped} dropped");
    outcome
}

/// Reads the client's upgrade request: the head must arrive before the guard's deadline.
async fn read_request_head<C: AsyncRead + Unpin>(client: &mut C) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    loop {
        let n = client.read(&mut chunk).await?;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "closed before its request",
            ));
        }
        let scan_from = head.len().saturating_sub(3);
        head.extend_from_slice(&chunk[..n]);
        if head[scan_from..].windows(4).any(|w| w == b"\r\n\r\n") {
            return Ok(head);
        }
        if head.len() > MAX_REQUEST_HEAD {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "request head too long",
            ));
        }
    }
}

/// Moves the server's frames into the queue; never waits for the client.
async fn pump<R: AsyncRead + Unpin>(
    server: &mut R,
    queue: &Queue,
    addr: SocketAddr,
    totals: &Totals,
) -> io::Result<()> {
    let mut logged = false;
    while let Some(frame) = frames::read_frame(server).await? {
        let dropped = queue.push(frame);
        if dropped == 0 {
            continue;
        }
        totals.dropped.fetch_add(dropped, Ordering::Relaxed);
        if !logged {
            logged = true;
            tracing::warn!(
                "foxglove client {addr} reads slower than its topics arrive: dropping its oldest \
                 messages (counted; logged once per client)"
            );
        }
    }
    Ok(())
}

/// Writes the queue to the client until the queue is closed and empty.
async fn drain<W: AsyncWrite + Unpin>(queue: &Queue, client: &mut W, totals: &Totals) -> io::Result<()> {
    while let Some(frame) = queue.pop().await {
        client.write_all(&frame.bytes).await?;
        if frame.data {
            queue.sent.fetch_add(1, Ordering::Relaxed);
            totals.sent.fetch_add(1, Ordering::Relaxed);
        }
    }
    client.flush().await
}

/// One client's frames waiting to be written, oldest first.
#[derive(Debug)]
pub struct Queue {
    limits: QueueLimits,
    state: std::sync::Mutex<State>,
    ready: Notify,
    sent: AtomicU64,
}

#[derive(Debug, Default)]
struct State {
    frames: VecDeque<Frame>,
    data_messages: usize,
    data_bytes: usize,
    dropped: u64,
    closed: bool,
}

impl Queue {
    /// An empty queue.
    pub fn new(limits: QueueLimits) -> Self {
        Self {
            limits,
            state: std::sync::Mutex::default(),
            ready: Notify::new(),
            sent: AtomicU64::new(0),
        }
    }

    /// Queues `frame`, dropping the oldest data messages while a data frame would exceed the
    /// limits; returns how many it dropped.
    pub fn push(&self, frame: Frame) -> u64 {
        let mut state = self.state.lock().expect("no panics under the queue lock");
        let dropped_before = state.dropped;
        if frame.data {
            let len = frame.bytes.len();
            while state.data_messages > 0
                && (state.data_messages + 1 > self.limits.messages
                    || state.data_bytes + len > self.limits.bytes)
            {
                let oldest = state
                    .frames
                    .iter()
                    .position(|f| f.data)
                    .expect("data_messages counts data frames in the queue");
                let removed = state.frames.remove(oldest).expect("the position is in the queue");
                state.data_messages -= 1;
                state.data_bytes -= removed.bytes.len();
                state.dropped += 1;
            }
            state.data_messages += 1;
            state.data_bytes += len;
        }
        state.frames.push_back(frame);
        let dropped = state.dropped - dropped_before;
        drop(state);
        self.ready.notify_one();
        dropped
    }

    /// The next frame; `None` once closed and empty.
    pub async fn pop(&self) -> Option<Frame> {
        loop {
            let notified = self.ready.notified();
            {
                let mut state = self.state.lock().expect("no panics under the queue lock");
                if let Some(frame) = state.frames.pop_front() {
                    if frame.data {
                        state.data_messages -= 1;
                        state.data_bytes -= frame.bytes.len();
                    }
                    return Some(frame);
                }
                if state.closed {
                    return None;
                }
            }
            notified.await;
        }
    }

    /// No more frames will come.
    pub fn close(&self) {
        self.state.lock().expect("no panics under the queue lock").closed = true;
        self.ready.notify_one();
    }

    fn dropped(&self) -> u64 {
        self.state.lock().expect("no panics under the queue lock").dropped
    }

    /// Data messages written to the client and dropped, so far.
    pub fn counts(&self) -> (u64, u64) {
        (self.sent.load(Ordering::Relaxed), self.dropped())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(n: u8, len: usize) -> Frame {
        Frame {
            bytes: vec![n; len],
            data: true,
        }
    }

    fn control(n: u8) -> Frame {
        Frame {
            bytes: vec![n],
            data: false,
        }
    }

    #[tokio::test]
    async fn a_full_queue_drops_the_oldest_data_and_keeps_every_control_frame() {
        let queue = Queue::new(QueueLimits {
            messages: 2,
            bytes: 1 << 20,
        });
        assert_eq!(queue.push(control(0)), 0);
        assert_eq!(queue.push(data(1, 10)), 0);
        assert_eq!(queue.push(data(2, 10)), 0);
        assert_eq!(queue.push(data(3, 10)), 1, "1 goes");
        assert_eq!(queue.push(control(4)), 0, "control frames never push data out");
        assert_eq!(queue.push(data(5, 10)), 1, "2 goes");
        queue.close();
        let mut order = Vec::new();
        while let Some(frame) = queue.pop().await {
            order.push(frame.bytes[0]);
        }
        assert_eq!(order, [0, 3, 4, 5]);
        assert_eq!(queue.counts().1, 2);
    }

    #[tokio::test]
    async fn the_byte_limit_drops_too_but_the_newest_always_fits() {
        let queue = Queue::new(QueueLimits {
            messages: 100,
            bytes: 25,
        });
        assert_eq!(queue.push(data(1, 10)), 0);
        assert_eq!(queue.push(data(2, 10)), 0);
        assert_eq!(queue.push(data(3, 10)), 1);
        assert_eq!(queue.push(data(4, 100)), 2);
        queue.close();
        let mut order = Vec::new();
        while let Some(frame) = queue.pop().await {
            order.push(frame.bytes[0]);
        }
        assert_eq!(order, [4]);
        assert_eq!(queue.counts().1, 3);
    }
}

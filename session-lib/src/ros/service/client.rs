//! [`Client`]: calls one service and waits for the first reply.

use std::collections::{HashMap, HashSet};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::super::attachment::Attachment;
use super::super::gid::Gid;
use super::super::graph::GraphWatch;
use super::super::liveliness::{self, EndpointInfo, EntityKind};
use super::super::node_base::{NodeBase, NodeError, declare_token};
use super::super::qos::QosProfile;
use crate::cdr::CdrError;
use crate::msgs::wall_clock_nanos;
use crate::msgs::{Message, ServiceType};
use crate::raw::{DataPath, DeclareError, RawLoan, RawReply, RawSample};
use crate::session::Session;

/// How long zenoh keeps a query open beyond the caller's timeout: the caller's own deadline ends
/// the call first, so a timeout is always reported as [`CallError::Timeout`].
const ZENOH_GRACE: Duration = Duration::from_secs(1);

/// How long a call still waits for its reply after the last server's token went away. A server
/// that answers and exits at once sends its reply and withdraws its token on different links
/// (the reply straight to this peer, the withdrawal through the router), so the withdrawal can
/// arrive first; the reply sent before it is still the call's answer. A server that died without
/// answering ends the call sooner: zenoh finishes the query when the server's link closes.
const SERVER_GONE_GRACE: Duration = Duration::from_secs(2);

/// Why a call returned no response. Each says what to do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CallError {
    /// No server of the service was known when the call was made, and none answered: start the
    /// server, or [`Client::wait_for_service`] first.
    #[error("no server for service {service}: start one, or wait for it first")]
    NoServer {
        /// The service.
        service: String,
    },
    /// No reply within the timeout: the server is slow or stuck; call again with a longer
    /// timeout, or check the server.
    #[error("service {service} did not answer within {timeout:?}")]
    Timeout {
        /// The service.
        service: String,
        /// The timeout of the call.
        timeout: Duration,
    },
    /// Every server of the service went away during the call (its liveliness token
    /// disappeared): restart it and call again.
    #[error("the server of service {service} went away during the call")]
    ServerGone {
        /// The service.
        service: String,
    },
    /// The call ended without a reply: a server that could not read the request or dropped it
    /// without answering (check its log), or a reply lost on the way. zenoh before 1.10 drops
    /// a shared-memory message whose buffer it can no longer read, logging it only at debug
    /// level (eclipse-zenoh/zenoh#2628); the `faults::starved` test sees replies of a starved
    /// server lost this way.
    #[error("the call to service {service} ended without a reply{}", match detail.as_deref() {
        Some(d) => format!(": {d}"),
        None => ": the server sent none (check its log), or its reply was lost on the way (zenoh \
                   drops a shared-memory message it can no longer read, eclipse-zenoh/zenoh#2628)"
            .to_owned(),
    })]
    NoReply {
        /// The service.
        service: String,
        /// An error reply's text, if a server sent one.
        detail: Option<String>,
    },
    /// The reply is not valid CDR for the response type: the server's type differs from the
    /// client's (same name, another definition).
    #[error("the reply of service {service} is not a valid response: {source}")]
    Malformed {
        /// The service.
        service: String,
        /// What is wrong with it.
        #[source]
        source: CdrError,
    },
    /// zenoh refused to send the query (the session is closed).
    #[error(transparent)]
    Send(#[from] DeclareError),
}

/// What reaches a call while it waits.
enum Event {
    Reply(Box<RawSample>),
    Error(String),
    /// zenoh ended the query: every server answered, or its timeout ran out.
    Done,
    /// The last known server's token went away.
    ServersGone,
}

/// What an event means for a waiting call.
enum Verdict {
    Ended(Result<Box<RawSample>, CallError>),
    Waiting,
    /// The last server's token went away: a reply already sent may still come, for a short while.
    ServersGone,
}

/// Sends `Done` when zenoh drops the query's callback, i.e. when the query is over.
struct DoneOnDrop(flume::Sender<Event>);

impl Drop for DoneOnDrop {
    fn drop(&mut self) {
        let _ = self.0.send(Event::Done);
    }
}

/// The servers a client knows from their liveliness tokens, and the calls waiting on them.
#[derive(Default)]
struct Servers {
    tokens: Mutex<HashSet<String>>,
    changed: Condvar,
    notify: tokio::sync::Notify,
    calls: Mutex<HashMap<i64, flume::Sender<Event>>>,
}

impl Servers {
    fn count(&self) -> usize {
        self.tokens.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    fn update(&self, token: String, alive: bool) {
        let mut tokens = self.tokens.lock().unwrap_or_else(PoisonError::into_inner);
        if alive {
            tokens.insert(token);
        } else {
            tokens.remove(&token);
            if tokens.is_empty() {
                for call in self.calls.lock().unwrap_or_else(PoisonError::into_inner).values() {
                    let _ = call.send(Event::ServersGone);
                }
            }
        }
        drop(tokens);
        self.changed.notify_all();
        self.notify.notify_waiters();
    }
}

/// Calls service `S` until dropped; announces itself with an `SC` token.
#[derive(Debug)]
pub struct Client<S: ServiceType> {
    inner: Arc<ClientInner>,
    info: EndpointInfo,
    _servers_watch: GraphWatch,
    _token: zenoh::liveliness::LivelinessToken,
    _type: PhantomData<fn(S)>,
}

pub(crate) struct ClientInner {
    pub(crate) session: Session,
    pub(crate) service: String,
    key: String,
    gid: Gid,
    sequence: AtomicI64,
    servers: Servers,
    extra_replies: AtomicU64,
    warned_extra: AtomicBool,
}

impl std::fmt::Debug for ClientInner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("service", &self.service)
            .finish_non_exhaustive()
    }
}

/// One call in flight: what it waits on.
struct Call {
    sequence: i64,
    events: flume::Receiver<Event>,
    had_server: bool,
}

impl<S: ServiceType> Client<S> {
    /// The client as its token describes it.
    pub fn info(&self) -> &EndpointInfo {
        &self.info
    }

    /// Servers of the service known now (from their tokens).
    pub fn servers(&self) -> usize {
        self.inner.servers.count()
    }

    /// Replies beyond the first that calls received (several servers answered; as rmw_zenoh,
    /// the first is used). Logged once.
    pub fn extra_replies(&self) -> u64 {
        self.inner.extra_replies.load(Ordering::Relaxed)
    }

    /// Waits until a server of the service is known, or `timeout` passes; true when one is.
    /// Blocks the thread: from async code use [`wait_for_service_async`](Self::wait_for_service_async).
    pub fn wait_for_service(&self, timeout: Duration) -> bool {
        self.inner.wait_for_service(timeout)
    }

    /// [`wait_for_service`](Self::wait_for_service) for async code.
    pub async fn wait_for_service_async(&self, timeout: Duration) -> bool {
        self.inner.wait_for_service_async(timeout).await
    }

    /// Calls the service and waits for the first reply, at most `timeout`. Blocks the thread:
    /// from async code use [`call_async`](Self::call_async).
    pub fn call(&self, request: &S::Request, timeout: Duration) -> Result<S::Response, CallError> {
        self.call_reply(request, timeout)?.decode()
    }

    /// Calls the service and waits for the first reply, at most `timeout`.
    pub async fn call_async(
        &self,
        request: &S::Request,
        timeout: Duration,
    ) -> Result<S::Response, CallError> {
        self.call_reply_async(request, timeout).await?.decode()
    }

    /// [`call`](Self::call), with the reply as it arrived, to be read in place with
    /// [`Reply::view`]: a large response that came through shared memory is not copied.
    pub fn call_reply(&self, request: &S::Request, timeout: Duration) -> Result<Reply<S>, CallError> {
        let mut buffer = self.inner.session.buffer_blocking(request.cdr_len());
        request.write_cdr(&mut buffer);
        let sample = self.inner.call(buffer, timeout)?;
        Ok(self.reply(sample))
    }

    /// [`call_async`](Self::call_async), with the reply as it arrived (see
    /// [`call_reply`](Self::call_reply)).
    pub async fn call_reply_async(
        &self,
        request: &S::Request,
        timeout: Duration,
    ) -> Result<Reply<S>, CallError> {
        let mut buffer = self.inner.session.buffer(request.cdr_len()).await;
        request.write_cdr(&mut buffer);
        let sample = self.inner.call_async(buffer, timeout).await?;
        Ok(self.reply(sample))
    }

    fn reply(&self, sample: RawSample) -> Reply<S> {
        Reply {
            sample,
            service: self.inner.service.clone(),
            _type: PhantomData,
        }
    }
}

/// A service's response as it arrived: in the server's shared memory when
/// [`is_shm`](Self::is_shm), read in place by [`view`](Self::view), or copied out by
/// [`decode`](Self::decode). Holding it keeps the server's buffer from being reused.
///
/// Unlike a subscription's [`Sample`](super::super::Sample), a reply is not parsed before it is
/// handed over (it may be held and read later): each `view` parses the bytes' layout, which for
/// a response with one large `uint8[]` costs the same at any size.
pub struct Reply<S: ServiceType> {
    sample: RawSample,
    service: String,
    _type: PhantomData<fn(S)>,
}

impl<S: ServiceType> std::fmt::Debug for Reply<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reply")
            .field("service", &self.service)
            .field("path", &self.sample.path())
            .field("bytes", &self.sample.payload().len())
            .finish()
    }
}

impl<S: ServiceType> Reply<S> {
    /// The response read in place: large fields borrow from the received buffer (the server's
    /// shared memory when [`is_shm`](Self::is_shm)).
    pub fn view(&self) -> Result<<S::Response as Message>::View<'_>, CallError> {
        S::Response::view_cdr(self.sample.payload()).map_err(|source| self.malformed(source))
    }

    /// An owned copy of the response.
    pub fn decode(&self) -> Result<S::Response, CallError> {
        S::Response::from_cdr(self.sample.payload()).map_err(|source| self.malformed(source))
    }

    /// True when the response came through shared memory.
    pub fn is_shm(&self) -> bool {
        self.sample.is_shm()
    }

    /// The path the response came through.
    pub fn path(&self) -> DataPath {
        self.sample.path()
    }

    /// The raw CDR payload.
    pub fn payload(&self) -> &[u8] {
        self.sample.payload()
    }

    fn malformed(&self, source: CdrError) -> CallError {
        CallError::Malformed {
            service: self.service.clone(),
            source,
        }
    }
}

impl ClientInner {
    /// Waits until a server of the service is known, or `timeout` passes; true when one is.
    pub(crate) fn wait_for_service(&self, timeout: Duration) -> bool {
        let servers = &self.servers;
        let deadline = Instant::now() + timeout;
        let mut tokens = servers.tokens.lock().unwrap_or_else(PoisonError::into_inner);
        while tokens.is_empty() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            tokens = servers
                .changed
                .wait_timeout(tokens, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        true
    }

    /// [`wait_for_service`](Self::wait_for_service) for async code.
    pub(crate) async fn wait_for_service_async(&self, timeout: Duration) -> bool {
        let servers = &self.servers;
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let changed = servers.notify.notified();
            if servers.count() > 0 {
                return true;
            }
            if tokio::time::timeout_at(deadline, changed).await.is_err() {
                return servers.count() > 0;
            }
        }
    }

    /// Calls with the request in `buffer`; the first reply that is this call's.
    pub(crate) fn call(self: &Arc<Self>, buffer: RawLoan, timeout: Duration) -> Result<RawSample, CallError> {
        let call = self.start(buffer, timeout)?;
        let mut deadline = Instant::now() + timeout;
        let mut gone = false;
        let outcome = loop {
            let event = match call.events.recv_deadline(deadline) {
                Ok(event) => event,
                Err(_) => break Err(self.expired(gone, timeout)),
            };
            match self.judge(&call, event) {
                Verdict::Ended(outcome) => break outcome.map(|sample| *sample),
                Verdict::Waiting => {}
                Verdict::ServersGone => {
                    gone = true;
                    deadline = deadline.min(Instant::now() + SERVER_GONE_GRACE);
                }
            }
        };
        self.finish(&call);
        outcome
    }

    /// [`call`](Self::call) for async code.
    pub(crate) async fn call_async(
        self: &Arc<Self>,
        buffer: RawLoan,
        timeout: Duration,
    ) -> Result<RawSample, CallError> {
        let call = self.start(buffer, timeout)?;
        let mut deadline = tokio::time::Instant::now() + timeout;
        let mut gone = false;
        let outcome = loop {
            let event = match tokio::time::timeout_at(deadline, call.events.recv_async()).await {
                Ok(Ok(event)) => event,
                Ok(Err(_)) | Err(_) => break Err(self.expired(gone, timeout)),
            };
            match self.judge(&call, event) {
                Verdict::Ended(outcome) => break outcome.map(|sample| *sample),
                Verdict::Waiting => {}
                Verdict::ServersGone => {
                    gone = true;
                    deadline = deadline.min(tokio::time::Instant::now() + SERVER_GONE_GRACE);
                }
            }
        };
        self.finish(&call);
        outcome
    }

    /// The call's deadline passed: the servers' going away if they went, or else a timeout.
    fn expired(&self, gone: bool, timeout: Duration) -> CallError {
        if gone {
            CallError::ServerGone {
                service: self.service.clone(),
            }
        } else {
            self.timeout(timeout)
        }
    }

    fn timeout(&self, timeout: Duration) -> CallError {
        CallError::Timeout {
            service: self.service.clone(),
            timeout,
        }
    }

    /// Sends the query: the request in `buffer`, the attachment with the next sequence number.
    fn start(self: &Arc<Self>, buffer: RawLoan, timeout: Duration) -> Result<Call, CallError> {
        let inner = self;
        let attachment = Attachment {
            sequence_number: inner.sequence.fetch_add(1, Ordering::Relaxed) + 1,
            source_timestamp: wall_clock_nanos(),
            source_gid: inner.gid,
        };
        let (tx, events) = flume::unbounded();
        let had_server = inner.servers.count() > 0;
        inner
            .servers
            .calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(attachment.sequence_number, tx.clone());
        let replies = Arc::new(AtomicUsize::new(0));
        let done = DoneOnDrop(tx.clone());
        let counter = self.clone();
        let sent = inner.session.query(
            &inner.key,
            buffer,
            &attachment.encode(),
            timeout + ZENOH_GRACE,
            move |reply| {
                let _keep = &done;
                let event = match reply {
                    RawReply::Reply(sample) => {
                        // The first reply is the call's; later ones (several servers) are counted.
                        if replies.fetch_add(1, Ordering::Relaxed) > 0 {
                            counter.extra_reply();
                        }
                        Event::Reply(sample)
                    }
                    RawReply::Error(text) => Event::Error(text),
                };
                let _ = tx.send(event);
            },
        );
        let call = Call {
            sequence: attachment.sequence_number,
            events,
            had_server,
        };
        if let Err(err) = sent {
            self.finish(&call);
            return Err(err.into());
        }
        Ok(call)
    }

    /// What an event means for the call.
    fn judge(&self, call: &Call, event: Event) -> Verdict {
        let service = || self.service.clone();
        match event {
            Event::Reply(sample) => {
                let attachment = sample
                    .attachment_bytes()
                    .and_then(|a| Attachment::decode(&a).ok());
                // A reply to another call (or another client) is not this call's answer.
                if !attachment.is_some_and(|a| a.sequence_number == call.sequence && a.source_gid == self.gid)
                {
                    tracing::debug!(service = %self.service, "ignored a reply whose attachment is not this call's");
                    return Verdict::Waiting;
                }
                Verdict::Ended(Ok(sample))
            }
            Event::Error(text) => {
                tracing::debug!(service = %self.service, "error reply: {text}");
                Verdict::Waiting
            }
            Event::Done if !call.had_server && self.servers.count() == 0 => {
                Verdict::Ended(Err(CallError::NoServer { service: service() }))
            }
            Event::Done if self.servers.count() == 0 => {
                Verdict::Ended(Err(CallError::ServerGone { service: service() }))
            }
            Event::Done => Verdict::Ended(Err(CallError::NoReply {
                service: service(),
                detail: None,
            })),
            Event::ServersGone => Verdict::ServersGone,
        }
    }

    fn finish(&self, call: &Call) {
        self.servers
            .calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&call.sequence);
    }

    fn extra_reply(&self) {
        self.extra_replies.fetch_add(1, Ordering::Relaxed);
        if !self.warned_extra.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                service = %self.service,
                "several servers answered one call; the first reply was used (the others are counted, later ones not logged)"
            );
        }
    }
}

/// What every client is made of, typed or not: the shared state, the watch on the servers'
/// tokens and its own token.
pub(crate) struct ClientParts {
    pub(crate) inner: Arc<ClientInner>,
    pub(crate) servers_watch: GraphWatch,
    pub(crate) token: zenoh::liveliness::LivelinessToken,
}

/// Declares a client of the service `info` describes, querying `key`.
pub(crate) async fn declare_client(
    node: &NodeBase,
    info: &EndpointInfo,
    key: String,
) -> Result<ClientParts, NodeError> {
    let token = liveliness::endpoint_token(info);
    let inner = Arc::new(ClientInner {
        session: node.session().clone(),
        service: info.topic.clone(),
        key,
        gid: Gid::of_token(&token),
        sequence: AtomicI64::new(0),
        servers: Servers::default(),
        extra_replies: AtomicU64::new(0),
        warned_extra: AtomicBool::new(false),
    });
    // Availability as rmw_zenoh sees it: a server token with the same name and type.
    let servers_key = liveliness::endpoints_key(
        info.node.domain,
        EntityKind::ServiceServer,
        &info.topic,
        &info.type_name,
        None,
    );
    let watcher = inner.clone();
    let servers_watch = GraphWatch::with_callback(node.session(), servers_key.clone(), move |event| {
        watcher.servers.update(event.token.clone(), event.alive);
    })
    .await
    .map_err(|source| NodeError::Token {
        token: servers_key,
        source,
    })?;
    let token = declare_token(node.session(), token).await?;
    Ok(ClientParts {
        inner,
        servers_watch,
        token,
    })
}

impl NodeBase {
    /// A client of service `name` (expanded for this node), with the services QoS.
    pub async fn create_client<S: ServiceType>(&self, name: &str) -> Result<Client<S>, NodeError> {
        let info = self.endpoint(
            EntityKind::ServiceClient,
            name,
            (S::TYPE.dds_name, S::TYPE.hash),
            QosProfile::services_default(),
        )?;
        let key = super::super::keyexpr::topic_keyexpr(info.node.domain, &info.topic, &S::TYPE);
        let parts = declare_client(self, &info, key).await?;
        Ok(Client {
            inner: parts.inner,
            info,
            _servers_watch: parts.servers_watch,
            _token: parts.token,
            _type: PhantomData,
        })
    }
}

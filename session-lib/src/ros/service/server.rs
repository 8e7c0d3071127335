//! [`Service`]: answers the requests of one service on the node's executor.

use std::marker::PhantomData;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use super::super::attachment::Attachment;
use super::super::delivery::{Gate, Queue, Queued};
use super::super::executor::{CallbackGroup, Registration, Waitable};
use super::super::gid::Gid;
use super::super::liveliness::{self, EndpointInfo, EntityKind};
use super::super::node_base::{NodeBase, NodeError, declare_token};
use super::super::publisher::Loan;
use super::super::qos::QosProfile;
use crate::msgs::wall_clock_nanos;
use crate::msgs::{LoanableMessage, Message, ServiceType};
use crate::raw::{PublishError, RawLoan, RawQuery, RawQueryable};
use crate::session::Session;
use crate::stats::DropReason;

/// How a service server is set up, beside its name and handler.
#[derive(Debug, Clone)]
pub struct ServiceOptions {
    /// The group its handler belongs to; the node's default (mutually exclusive) one if `None`.
    pub callback_group: Option<CallbackGroup>,
    /// The QoS its token announces and its request queue follows (the services default: reliable,
    /// volatile, keep last 10).
    pub qos: QosProfile,
}

impl Default for ServiceOptions {
    fn default() -> Self {
        Self {
            callback_group: None,
            qos: QosProfile::services_default(),
        }
    }
}

impl ServiceOptions {
    /// These options with the handler in `group`.
    pub fn callback_group(mut self, group: &CallbackGroup) -> Self {
        self.callback_group = Some(group.clone());
        self
    }
}

/// Answers one request, now or later, from any thread (rclcpp's deferred response). Dropping it
/// without [`send`](Self::send)ing ends the call with no reply: the client sees it as the
/// server's refusal (`CallError::NoReply`), at once, not after its timeout.
#[derive(Debug)]
pub struct Responder<S: ServiceType> {
    query: RawQuery,
    key: Arc<str>,
    session: Session,
    request: Attachment,
    _type: PhantomData<fn(S)>,
}

impl<S: ServiceType> Responder<S> {
    /// The client's GID and the request's sequence number, as the request's attachment says.
    pub fn request_id(&self) -> (Gid, i64) {
        (self.request.source_gid, self.request.sequence_number)
    }

    /// Sends `response`, serialized straight into its buffer (the SHM pool at or above the
    /// session's threshold), with the attachment rmw_zenoh expects: the request's sequence
    /// number and client GID, and the time of the reply. Blocks only while the SHM pool is full
    /// (bounded: then the heap); call it from any thread.
    pub fn send(self, response: &S::Response) -> Result<(), PublishError> {
        let mut buffer = self.session.buffer_blocking(response.cdr_len());
        response.write_cdr(&mut buffer);
        self.reply(buffer)
    }

    fn reply(self, buffer: RawLoan) -> Result<(), PublishError> {
        let attachment = Attachment {
            source_timestamp: wall_clock_nanos(),
            ..self.request
        };
        self.query.reply(&self.key, buffer, &attachment.encode())
    }
}

impl<S: ServiceType> Responder<S>
where
    S::Response: LoanableMessage,
{
    /// Starts a response shaped like `shape` (its own `data` is ignored) with `data_len` bytes of
    /// data to be written in place, in the SHM pool at or above the session's threshold: the
    /// zero-copy reply, read in place by [`Client::call_reply`](super::Client::call_reply). Blocks
    /// as [`send`](Self::send) does.
    pub fn loan(&self, shape: &S::Response, data_len: usize) -> Loan<S::Response> {
        let buffer = self.session.buffer_blocking(shape.shape_len(data_len));
        Loan::shaped(buffer, shape, data_len)
    }

    /// Sends a response built with [`loan`](Self::loan), without copying it, with the attachment
    /// [`send`](Self::send) gives.
    pub fn send_loan(self, loan: Loan<S::Response>) -> Result<(), PublishError> {
        self.reply(loan.into_buffer())
    }
}

/// Answers the requests of service `S` until dropped. Dropping it withdraws its token and its
/// queryable; requests still queued end without a reply, and a handler that is running is
/// waited for (unless the handler itself drops it).
#[derive(Debug)]
pub struct Service<S: ServiceType> {
    // Dropped in this order: no new requests, then the entity leaves its executor, then the token.
    _queryable: RawQueryable,
    _registration: Registration,
    info: EndpointInfo,
    _token: zenoh::liveliness::LivelinessToken,
    _type: PhantomData<fn(S)>,
}

impl<S: ServiceType> Service<S> {
    /// The server as its token describes it (service name, type, hash, QoS).
    pub fn info(&self) -> &EndpointInfo {
        &self.info
    }
}

/// A request whose attachment was accepted, waiting for its handler.
struct Pending {
    query: RawQuery,
    attachment: Attachment,
}

impl Queued for Pending {
    fn heap_bytes(&self) -> usize {
        if self.query.is_shm() {
            0
        } else {
            self.query.payload().len()
        }
    }
}

/// A user's handler: gets the decoded request and the way to answer it.
type Handler<S> = Box<dyn FnMut(<S as ServiceType>::Request, Responder<S>) + Send>;

/// A service as its executor sees it.
struct ServerEntity<S: ServiceType> {
    name: String,
    key: Arc<str>,
    session: Session,
    gate: Arc<Gate>,
    queue: Queue<Pending>,
    handler: Mutex<Handler<S>>,
}

impl<S: ServiceType> Waitable for ServerEntity<S> {
    fn is_ready(&self, _now: Instant) -> bool {
        !self.queue.is_empty()
    }

    fn execute(&self, _now: Instant) {
        let Some(pending) = self.queue.pop() else {
            return;
        };
        // A request that is not valid CDR is dropped (counted, logged once); its query ends
        // without a reply, which the client reports at once.
        let request = match S::Request::from_cdr(pending.query.payload()) {
            Ok(request) => request,
            Err(err) => {
                let _: Option<()> = self.gate.reject(DropReason::MalformedCdr, &err.to_string());
                return;
            }
        };
        let responder = Responder {
            query: pending.query,
            key: self.key.clone(),
            session: self.session.clone(),
            request: pending.attachment,
            _type: PhantomData,
        };
        let mut handler = self.handler.lock().unwrap_or_else(PoisonError::into_inner);
        handler(request, responder);
    }

    fn name(&self) -> String {
        format!("service {}", self.name)
    }
}

impl<S: ServiceType> Drop for ServerEntity<S> {
    fn drop(&mut self) {
        self.queue.stop();
    }
}

impl<S: ServiceType> ServerEntity<S> {
    /// On zenoh's thread: checks the attachment and queues the request; never waits.
    fn admit(&self, query: RawQuery) {
        let Some(attachment) = self.gate.check_attachment(query.attachment_bytes().as_deref()) else {
            return;
        };
        self.queue.push(Pending { query, attachment });
    }
}

impl NodeBase {
    /// Offers service `name` (expanded for this node); `handler` answers each request on the
    /// node's executor, in the node's default callback group.
    pub async fn create_service<S: ServiceType>(
        &self,
        name: &str,
        mut handler: impl FnMut(S::Request) -> S::Response + Send + 'static,
    ) -> Result<Service<S>, NodeError> {
        let name_for_log = name.to_owned();
        self.create_service_with::<S>(name, ServiceOptions::default(), move |request, responder| {
            if let Err(err) = responder.send(&handler(request)) {
                tracing::warn!(service = %name_for_log, "cannot send a reply: {err}");
            }
        })
        .await
    }

    /// Offers service `name` with a handler that answers through its [`Responder`], at once or
    /// later from another thread (a deferred response), with the given options.
    pub async fn create_service_with<S: ServiceType>(
        &self,
        name: &str,
        options: ServiceOptions,
        handler: impl FnMut(S::Request, Responder<S>) + Send + 'static,
    ) -> Result<Service<S>, NodeError> {
        let info = self.endpoint(
            EntityKind::ServiceServer,
            name,
            (S::TYPE.dds_name, S::TYPE.hash),
            options.qos,
        )?;
        let key: Arc<str> =
            super::super::keyexpr::topic_keyexpr(info.node.domain, &info.topic, &S::TYPE).into();
        let stats = self.session().stats().clone();
        let group = options
            .callback_group
            .unwrap_or_else(|| self.default_callback_group().clone());
        let (entity, registration) = self.executor_entry(group, |notifier| ServerEntity::<S> {
            name: info.topic.clone(),
            key: key.clone(),
            session: self.session().clone(),
            gate: Arc::new(Gate::new(&info.topic, stats.clone())),
            queue: Queue::new(&info.topic, &options.qos, stats.clone(), notifier),
            handler: Mutex::new(Box::new(handler)),
        });
        let receiver = entity.clone();
        let queryable = self
            .session()
            .declare_queryable(&key, move |query| receiver.admit(query))
            .await?;
        let token = declare_token(self.session(), liveliness::endpoint_token(&info)).await?;
        Ok(Service {
            _queryable: queryable,
            _registration: registration,
            info,
            _token: token,
            _type: PhantomData,
        })
    }
}

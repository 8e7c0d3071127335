//! Endpoints for types known only by name at run time, such as the topics of a bag: the same key
//! expressions, liveliness tokens, QoS mapping, attachments and SHM/lane path as the typed API,
//! with the CDR bytes handled as they are (never decoded).
//!
//! Not for application code that knows its types: [`NodeBase::create_publisher`] and
//! [`NodeBase::create_subscription`] check the type at compile time.

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use super::attachment::Attachment;
use super::gid::Gid;
use super::liveliness::{self, EndpointInfo, EntityKind};
use super::node_base::{NodeBase, NodeError, declare_token};
use super::qos::QosProfile;
use super::service::CallError;
use crate::msgs::wall_clock_nanos;
use crate::raw::{
    PublishError, RawCallbackSubscription, RawLoan, RawPublisher, RawQuery, RawQueryable, RawSample,
};
use crate::session::Session;

/// A message type by its names, as liveliness tokens and key expressions carry it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DynamicType {
    /// The DDS name, e.g. `sensor_msgs::msg::dds_::PointCloud2_`.
    pub dds_name: String,
    /// The REP-2011 hash, `RIHS01_<sha256 hex>` (`TypeHashNotSupported` from Humble peers).
    pub hash: String,
}

impl DynamicType {
    /// The data key expression of `topic` (fully qualified) in `domain`.
    pub fn keyexpr(&self, domain: u32, topic: &str) -> String {
        let topic = topic.strip_prefix('/').unwrap_or(topic);
        let topic = topic.strip_suffix('/').unwrap_or(topic);
        format!("{domain}/{topic}/{}/{}", self.dds_name, self.hash)
    }
}

/// Publishes already-serialized CDR messages of a [`DynamicType`] on one topic.
#[derive(Debug)]
pub struct DynamicPublisher {
    raw: RawPublisher,
    info: EndpointInfo,
    gid: Gid,
    sequence: AtomicI64,
    _token: zenoh::liveliness::LivelinessToken,
    _lane: Option<super::lane::publisher::PublisherLane>,
}

impl DynamicPublisher {
    /// A writable buffer of `len` bytes in the lane or the SHM pool when possible (see
    /// [`RawPublisher::loan`]); fill it, then [`publish_loan`](Self::publish_loan).
    pub async fn loan(&self, len: usize) -> RawLoan {
        self.raw.loan(len).await
    }

    /// A buffer for `len` bytes: SHM at or above the session's threshold, the heap below it.
    pub async fn buffer(&self, len: usize) -> RawLoan {
        self.raw.buffer(len).await
    }

    /// Publishes a filled buffer, stamped `source_timestamp` (ns since the UNIX epoch) in its
    /// attachment, with the next sequence number.
    pub async fn publish_loan(&self, loan: RawLoan, source_timestamp: i64) -> Result<(), PublishError> {
        let attachment = Attachment {
            sequence_number: self.sequence.fetch_add(1, Ordering::Relaxed) + 1,
            source_timestamp,
            source_gid: self.gid,
        };
        self.raw
            .send(loan, &attachment.encode(), attachment.sequence_number)
            .await
    }

    /// The endpoint as its token describes it.
    pub fn info(&self) -> &EndpointInfo {
        &self.info
    }

    /// Waits until a subscriber matches, or `timeout` passes. Returns whether one did.
    pub async fn wait_for_subscribers(&self, timeout: Duration) -> bool {
        self.raw.wait_for_subscribers(timeout).await
    }

    /// Waits until no subscriber matches, or `timeout` passes.
    pub async fn wait_for_no_subscribers(&self, timeout: Duration) -> bool {
        self.raw.wait_for_no_subscribers(timeout).await
    }
}

/// A subscription to a [`DynamicType`] that hands over every raw sample (payload in SHM when it
/// came that way) and announces itself with its token while it lives.
#[derive(Debug)]
pub struct DynamicSubscription {
    info: EndpointInfo,
    _receiver: RawCallbackSubscription,
    _token: zenoh::liveliness::LivelinessToken,
}

impl DynamicSubscription {
    /// The endpoint as its token describes it.
    pub fn info(&self) -> &EndpointInfo {
        &self.info
    }
}

/// A client of a service whose type is known only by name (`zshm service call`): requests and
/// replies as CDR bytes, with the same wire, tokens and errors as [`Client`](super::Client).
#[derive(Debug)]
pub struct DynamicClient {
    inner: std::sync::Arc<super::service::client::ClientInner>,
    info: EndpointInfo,
    _servers_watch: super::graph::GraphWatch,
    _token: zenoh::liveliness::LivelinessToken,
}

impl DynamicClient {
    /// The client as its token describes it.
    pub fn info(&self) -> &EndpointInfo {
        &self.info
    }

    /// Waits until a server with the service's name and type is known, or `timeout` passes.
    pub async fn wait_for_service(&self, timeout: Duration) -> bool {
        self.inner.wait_for_service_async(timeout).await
    }

    /// Sends the CDR request `request` and waits at most `timeout` for the first reply.
    pub async fn call_cdr(&self, request: &[u8], timeout: Duration) -> Result<RawSample, CallError> {
        let mut buffer = self.inner.session.buffer(request.len()).await;
        buffer.copy_from_slice(request);
        self.inner.call_async(buffer, timeout).await
    }
}

/// A server of a service whose type is known only by name (the DDS bridge): requests are handed
/// over as CDR bytes with their attachment checked, on zenoh's thread; the handler must not
/// block and answers through [`DynamicRequest::reply`], now or later from any thread.
#[derive(Debug)]
pub struct DynamicService {
    info: EndpointInfo,
    // Dropped before the token: no new requests once the server stops announcing itself.
    _queryable: RawQueryable,
    _token: zenoh::liveliness::LivelinessToken,
}

impl DynamicService {
    /// The server as its token describes it.
    pub fn info(&self) -> &EndpointInfo {
        &self.info
    }
}

/// One request to a [`DynamicService`]. Dropping it without replying ends the call with no
/// reply, which the client reports at once.
#[derive(Debug)]
pub struct DynamicRequest {
    query: RawQuery,
    key: std::sync::Arc<str>,
    session: Session,
    attachment: Attachment,
}

impl DynamicRequest {
    /// The request's CDR bytes, encapsulation header included.
    pub fn payload(&self) -> &[u8] {
        self.query.payload()
    }

    /// The client's GID and the request's sequence number.
    pub fn request_id(&self) -> (Gid, i64) {
        (self.attachment.source_gid, self.attachment.sequence_number)
    }

    /// Replies with the CDR bytes `response` (encapsulation header included), copied once into
    /// the session's buffer (SHM at or above its threshold), with the attachment rmw_zenoh
    /// expects: the request's sequence number and client GID, and the time of the reply.
    pub fn reply(self, response: &[u8]) -> Result<(), PublishError> {
        let mut buffer = self.session.buffer_blocking(response.len());
        buffer.copy_from_slice(response);
        let attachment = Attachment {
            source_timestamp: wall_clock_nanos(),
            ..self.attachment
        };
        self.query.reply(&self.key, buffer, &attachment.encode())
    }
}

impl NodeBase {
    /// Offers service `name` of the service type `ty` (its `pkg::srv::dds_::X_` name and the
    /// service's hash) with the services QoS. `handler` runs on zenoh's thread for each request
    /// whose attachment is valid (others are counted and logged once) and must not block.
    pub async fn create_dynamic_service(
        &self,
        name: &str,
        ty: &DynamicType,
        handler: impl Fn(DynamicRequest) + Send + Sync + 'static,
    ) -> Result<DynamicService, NodeError> {
        let info = self.dynamic_endpoint(
            EntityKind::ServiceServer,
            name,
            ty,
            QosProfile::services_default(),
        )?;
        let key: std::sync::Arc<str> = ty.keyexpr(info.node.domain, &info.topic).into();
        let gate = super::delivery::Gate::new(&info.topic, self.session().stats().clone());
        let (session, reply_key) = (self.session().clone(), key.clone());
        let queryable = self
            .session()
            .declare_queryable(&key, move |query| {
                let Some(attachment) = gate.check_attachment(query.attachment_bytes().as_deref()) else {
                    return;
                };
                handler(DynamicRequest {
                    query,
                    key: reply_key.clone(),
                    session: session.clone(),
                    attachment,
                });
            })
            .await?;
        let token = declare_token(self.session(), liveliness::endpoint_token(&info)).await?;
        Ok(DynamicService {
            info,
            _queryable: queryable,
            _token: token,
        })
    }

    /// A client of service `name` of the service type `ty` (its `pkg::srv::dds_::X_` name and
    /// the service's hash), with the services QoS.
    pub async fn create_dynamic_client(
        &self,
        name: &str,
        ty: &DynamicType,
    ) -> Result<DynamicClient, NodeError> {
        let info = self.dynamic_endpoint(
            EntityKind::ServiceClient,
            name,
            ty,
            QosProfile::services_default(),
        )?;
        let key = ty.keyexpr(info.node.domain, &info.topic);
        let parts = super::service::client::declare_client(self, &info, key).await?;
        Ok(DynamicClient {
            inner: parts.inner,
            info,
            _servers_watch: parts.servers_watch,
            _token: parts.token,
        })
    }

    fn dynamic_endpoint(
        &self,
        kind: EntityKind,
        topic: &str,
        ty: &DynamicType,
        qos: QosProfile,
    ) -> Result<EndpointInfo, NodeError> {
        self.endpoint(kind, topic, (&ty.dds_name, &ty.hash), qos)
    }

    /// Creates a publisher of `ty` on `topic` (expanded for this node), as
    /// [`create_publisher`](NodeBase::create_publisher) does for a compiled type.
    pub async fn create_dynamic_publisher(
        &self,
        topic: &str,
        ty: &DynamicType,
        qos: QosProfile,
    ) -> Result<DynamicPublisher, NodeError> {
        let info = self.dynamic_endpoint(EntityKind::Publisher, topic, ty, qos)?;
        let key = ty.keyexpr(info.node.domain, &info.topic);
        let mut raw = self
            .session()
            .declare_publisher(&key, super::publisher::publisher_options(&qos))
            .await?;
        let token = liveliness::endpoint_token(&info);
        let gid = Gid::of_token(&token);
        let lane = super::lane::publisher::start(self.session(), &info, gid, &key, &mut raw).await;
        let token = declare_token(self.session(), token).await?;
        Ok(DynamicPublisher {
            raw,
            info,
            gid,
            sequence: AtomicI64::new(0),
            _token: token,
            _lane: lane,
        })
    }

    /// Subscribes to `topic` of type `ty` through zenoh (a publisher's lane keeps sending through
    /// zenoh for it); `callback` runs on zenoh's thread for each sample and must not block.
    pub async fn create_dynamic_subscription(
        &self,
        topic: &str,
        ty: &DynamicType,
        qos: QosProfile,
        callback: impl Fn(RawSample) + Send + Sync + 'static,
    ) -> Result<DynamicSubscription, NodeError> {
        let info = self.dynamic_endpoint(EntityKind::Subscription, topic, ty, qos)?;
        let key = ty.keyexpr(info.node.domain, &info.topic);
        let receiver = self
            .session()
            .declare_callback_subscription(&key, super::subscription::zenoh_options(&qos), callback)
            .await?;
        let token = declare_token(self.session(), liveliness::endpoint_token(&info)).await?;
        Ok(DynamicSubscription {
            info,
            _receiver: receiver,
            _token: token,
        })
    }
}

//! [`Publisher`]: typed publishing with rmw_zenoh's QoS mapping, token and attachment, and
//! zero-copy serialization into shared memory.

use std::marker::PhantomData;
use std::ops::Range;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use super::attachment::Attachment;
use super::gid::Gid;
use super::liveliness::{self, EndpointInfo, EntityKind};
use super::node_base::{NodeBase, NodeError, declare_token};
use super::qos::{Durability, QosProfile, Reliability};
use crate::cdr::CdrWriter;
use crate::msgs::builtin_interfaces::msg::Time;
use crate::msgs::wall_clock_nanos;
use crate::msgs::{LoanableMessage, Message};
use crate::raw::{AdvancedPublisherOptions, PublishError, PublisherOptions, RawLoan, RawPublisher};

/// The heartbeat period rmw_zenoh uses for reliable transient-local publishers
/// (`SAMPLE_MISS_DETECTION_HEARTBEAT_PERIOD`).
const HEARTBEAT_PERIOD: Duration = Duration::from_millis(500);

/// Publishes messages of type `T` on one topic.
#[derive(Debug)]
pub struct Publisher<T> {
    raw: RawPublisher,
    info: EndpointInfo,
    gid: Gid,
    sequence: AtomicI64,
    _token: zenoh::liveliness::LivelinessToken,
    _lane: Option<super::lane::publisher::PublisherLane>,
    _type: PhantomData<fn(T)>,
}

/// The zenoh options rmw_zenoh derives from a QoS profile (`rmw_publisher_data.cpp`).
///
/// rmw_zenoh always declares a zenoh-ext advanced publisher. For VOLATILE it has no cache, no
/// detection token and no heartbeat, and its puts are what a plain publisher sends (the session
/// timestamps every put the same way when `timestamping` is on), so zshm declares a plain one
/// there: the same bytes on the wire, without the advanced publisher's per-sample bookkeeping.
pub(crate) fn publisher_options(qos: &QosProfile) -> PublisherOptions {
    let transient_local = qos.durability == Durability::TransientLocal;
    let reliable = qos.reliability == Reliability::Reliable;
    PublisherOptions {
        reliable,
        block_when_congested: qos.blocks_when_congested(),
        express: false,
        advanced: transient_local.then(|| AdvancedPublisherOptions {
            cache_depth: Some(qos.depth() as usize),
            publisher_detection: true,
            miss_detection_heartbeat: reliable.then_some(HEARTBEAT_PERIOD),
        }),
    }
}

impl NodeBase {
    /// Creates a publisher of `T` on `topic` (expanded for this node).
    pub async fn create_publisher<T: Message>(
        &self,
        topic: &str,
        qos: QosProfile,
    ) -> Result<Publisher<T>, NodeError> {
        let info = self.endpoint(
            EntityKind::Publisher,
            topic,
            (T::TYPE.dds_name, T::TYPE.hash),
            qos,
        )?;
        let key = super::keyexpr::topic_keyexpr(info.node.domain, &info.topic, &T::TYPE);
        let mut raw = self
            .session()
            .declare_publisher(&key, publisher_options(&qos))
            .await?;
        let token = liveliness::endpoint_token(&info);
        let gid = Gid::of_token(&token);
        // The lane exists before the token: subscribers look for it when they see the token.
        let lane = super::lane::publisher::start(self.session(), &info, gid, &key, &mut raw).await;
        let token = declare_token(self.session(), token).await?;
        Ok(Publisher {
            raw,
            info,
            gid,
            sequence: AtomicI64::new(0),
            _token: token,
            _lane: lane,
            _type: PhantomData,
        })
    }
}

impl<T: Message> Publisher<T> {
    /// Serializes `msg` straight into its send buffer (a loan from the SHM pool at or above the
    /// threshold) and publishes it with its attachment.
    pub async fn publish(&self, msg: &T) -> Result<(), PublishError> {
        let mut buffer = self.raw.buffer(msg.cdr_len()).await;
        msg.write_cdr(&mut buffer);
        self.send(buffer).await
    }

    async fn send(&self, buffer: RawLoan) -> Result<(), PublishError> {
        let attachment = Attachment {
            sequence_number: self.sequence.fetch_add(1, Ordering::Relaxed) + 1,
            source_timestamp: wall_clock_nanos(),
            source_gid: self.gid,
        };
        self.raw
            .send(buffer, &attachment.encode(), attachment.sequence_number)
            .await
    }

    /// Whether messages currently skip zenoh because every subscriber is served by the lane.
    pub fn skips_zenoh(&self) -> bool {
        self.raw.lane().is_some_and(|route| route.skips_zenoh())
    }

    /// Subscribers this publisher's lane serves now (0 without a lane).
    pub fn lane_subscribers(&self) -> usize {
        self.raw
            .lane()
            .map_or(0, |route| route.sender().subscriber_count())
    }

    /// Subscribers this publisher's lane can serve before it must grow (0 without a lane): 4 at
    /// first, 32 once a fifth subscriber came ([`crate::internal::lane::generation`]).
    pub fn lane_capacity(&self) -> usize {
        self.raw.lane().map_or(0, |route| {
            crate::lane::generation::capacity(route.sender().generation_number())
        })
    }

    /// The publisher's GID (carried in every attachment).
    pub fn gid(&self) -> Gid {
        self.gid
    }

    /// The endpoint as its token describes it (topic, type, QoS, ids).
    pub fn info(&self) -> &EndpointInfo {
        &self.info
    }

    /// The data key expression.
    pub fn key_expr(&self) -> &str {
        self.raw.key_expr()
    }

    /// Messages published so far (the last sequence number).
    pub fn published(&self) -> i64 {
        self.sequence.load(Ordering::Relaxed)
    }

    /// Waits until a subscriber matches, or `timeout` passes. Returns whether one did.
    pub async fn wait_for_subscribers(&self, timeout: Duration) -> bool {
        self.raw.wait_for_subscribers(timeout).await
    }

    /// Waits until no subscriber matches, or `timeout` passes (see
    /// [`RawPublisher::wait_for_no_subscribers`]).
    pub async fn wait_for_no_subscribers(&self, timeout: Duration) -> bool {
        self.raw.wait_for_no_subscribers(timeout).await
    }
}

/// A message being built in place in its send buffer: everything but the data is written; fill
/// [`data_mut`](Loan::data_mut), optionally [`set_stamp`](Loan::set_stamp) last,
/// then [`Publisher::publish_loan`] (or, for a service's response,
/// [`Responder::send_loan`](super::Responder::send_loan)).
#[derive(Debug)]
pub struct Loan<T> {
    buffer: RawLoan,
    data: Range<usize>,
    _type: PhantomData<fn(T)>,
}

impl<T: LoanableMessage> Loan<T> {
    /// `shape` written into `buffer` (which must be [`LoanableMessage::shape_len`] bytes) with
    /// `data_len` bytes of data left to fill: a publisher's loan and a service reply's.
    pub(crate) fn shaped(mut buffer: RawLoan, shape: &T, data_len: usize) -> Self {
        let start = shape.write_shape(&mut CdrWriter::new(&mut buffer), data_len);
        Self {
            buffer,
            data: start..start + data_len,
            _type: PhantomData,
        }
    }

    /// The whole message, ready to send.
    pub(crate) fn into_buffer(self) -> RawLoan {
        self.buffer
    }

    /// The data bytes, in the send buffer (shared memory when [`is_shm`](Self::is_shm)).
    pub fn data_mut(&mut self) -> &mut [u8] {
        &mut self.buffer[self.data.clone()]
    }

    /// Overwrites `header.stamp`, so it can be taken as late as possible before publishing.
    pub fn set_stamp(&mut self, stamp: Time) {
        let at = T::STAMP_OFFSET;
        self.buffer[at..at + 4].copy_from_slice(&stamp.sec.to_le_bytes());
        self.buffer[at + 4..at + 8].copy_from_slice(&stamp.nanosec.to_le_bytes());
    }

    /// True when the buffer is in shared memory (zenoh's pool or the lane).
    pub fn is_shm(&self) -> bool {
        self.buffer.is_shm()
    }

    /// True when the buffer is in the publisher's lane segment.
    pub fn is_lane(&self) -> bool {
        self.buffer.is_lane()
    }
}

impl<T: LoanableMessage> Publisher<T> {
    /// Starts a message shaped like `shape` (its own `data` is ignored) with `data_len` bytes of
    /// data to be written in place: the zero-copy path for point clouds and images.
    pub async fn loan(&self, shape: &T, data_len: usize) -> Loan<T> {
        let buffer = self.raw.buffer(shape.shape_len(data_len)).await;
        Loan::shaped(buffer, shape, data_len)
    }

    /// Publishes a message built with [`loan`](Self::loan), without copying it.
    pub async fn publish_loan(&self, loan: Loan<T>) -> Result<(), PublishError> {
        self.send(loan.into_buffer()).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ros::qos::History;

    #[test]
    fn qos_maps_onto_zenoh_as_rmw_zenoh_does() {
        let volatile = publisher_options(&QosProfile::default());
        assert!(volatile.reliable && !volatile.block_when_congested);
        assert_eq!(
            volatile.advanced, None,
            "nothing advanced on the wire for VOLATILE"
        );

        let latched = publisher_options(&QosProfile::keep_last(1).durability(Durability::TransientLocal));
        let advanced = latched.advanced.unwrap();
        assert_eq!(advanced.cache_depth, Some(1));
        assert!(advanced.publisher_detection);
        assert_eq!(advanced.miss_detection_heartbeat, Some(HEARTBEAT_PERIOD));

        let best_effort =
            publisher_options(&QosProfile::sensor_data().durability(Durability::TransientLocal));
        assert!(!best_effort.reliable);
        assert_eq!(best_effort.advanced.unwrap().miss_detection_heartbeat, None);

        let keep_all = publisher_options(&QosProfile {
            history: History::KeepAll,
            ..QosProfile::default()
        });
        assert!(keep_all.block_when_congested);
    }
}

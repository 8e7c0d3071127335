//! [`Subscription`]: typed receiving. Each sample is checked before it is delivered: it must
//! carry rmw_zenoh's attachment and its payload must be valid CDR for the topic's type. A sample
//! that fails is dropped, counted in the session stats by reason, and logged once per reason.
//!
//! Callbacks run on one worker thread per subscription, fed by a bounded queue shaped by the QoS
//! (see [`delivery`](super::delivery)): zenoh's receive thread never waits for a callback.

use std::marker::PhantomData;
use std::sync::Arc;

use super::attachment::Attachment;
use super::delivery::{self, Worker};
use super::gid::Gid;
use super::lane::attach::{self, SubscriptionLane};
use super::lane::paths::Paths;
use super::liveliness::{self, EndpointInfo, EntityKind};
use super::node::{Node, NodeError, declare_token};
use super::qos::{Durability, QosProfile, Reliability};
use crate::msgs::Message;
use crate::raw::{
    AdvancedSubscriptionOptions, DataPath, RawCallbackSubscription, RawSample, SubscriptionOptions,
};

/// A received message of type `T` with its rmw_zenoh metadata, lent to a subscription callback.
///
/// The payload was parsed once, when it was checked; [`view`](Sample::view) is the result of that
/// parse, reading the message in place, and [`decode`](Sample::decode) copies from it. The bytes
/// are never parsed a second time, so a publisher that rewrites its shared-memory buffer after
/// publishing can change the data the view shows, but cannot make it fail.
pub struct Sample<'a, T: Message> {
    sample: &'a RawSample,
    attachment: Attachment,
    view: T::View<'a>,
}

impl<T: Message> std::fmt::Debug for Sample<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sample")
            .field("type", &T::TYPE.name)
            .field("attachment", &self.attachment)
            .field("shm", &self.sample.is_shm())
            .field("bytes", &self.sample.payload().len())
            .finish()
    }
}

impl<'a, T: Message> Sample<'a, T> {
    pub(super) fn new(sample: &'a RawSample, attachment: Attachment, view: T::View<'a>) -> Self {
        Self {
            sample,
            attachment,
            view,
        }
    }

    /// The message read in place: large fields borrow from the received buffer (the publisher's
    /// shared memory when [`is_shm`](Self::is_shm)).
    pub fn view(&self) -> &T::View<'a> {
        &self.view
    }

    /// An owned copy of the message, built from the view (no second parse).
    pub fn decode(&self) -> T {
        T::from_view(&self.view)
    }

    /// The publisher's sequence number (from 1, contiguous per publisher).
    pub fn sequence_number(&self) -> i64 {
        self.attachment.sequence_number
    }

    /// When the publisher sent it, ns since the UNIX epoch.
    pub fn source_timestamp(&self) -> i64 {
        self.attachment.source_timestamp
    }

    /// The publisher's GID.
    pub fn publisher_gid(&self) -> Gid {
        self.attachment.source_gid
    }

    /// True when the payload came through shared memory (zenoh's or the lane).
    pub fn is_shm(&self) -> bool {
        self.sample.is_shm()
    }

    /// The path the message came through: the lane, zenoh's shared memory, or the network.
    pub fn path(&self) -> DataPath {
        self.sample.path()
    }

    /// The raw CDR payload.
    pub fn payload(&self) -> &'a [u8] {
        self.sample.payload()
    }
}

/// Receives messages of type `T` on one topic until dropped.
///
/// Dropping it stops the deliveries: samples still queued are discarded, and a callback that is
/// running is waited for (so do not drop a subscription while holding something its callback
/// waits for).
#[derive(Debug)]
pub struct Subscription<T> {
    // Dropped in this order: the lane's thread stops, then zenoh's subscriber is undeclared, so
    // no sample arrives once the worker stops.
    _lane: Option<SubscriptionLane>,
    _receiver: RawCallbackSubscription,
    _worker: Worker,
    info: EndpointInfo,
    _token: zenoh::liveliness::LivelinessToken,
    _type: PhantomData<fn() -> T>,
}

impl<T> Subscription<T> {
    /// The endpoint as its token describes it.
    pub fn info(&self) -> &EndpointInfo {
        &self.info
    }
}

/// The zenoh options rmw_zenoh derives from a QoS profile (`rmw_subscription_data.cpp`).
///
/// As for publishers, rmw_zenoh's advanced subscriber does nothing visible on the wire for
/// VOLATILE (no history query, no detection token, no recovery), so zshm subscribes plainly there.
pub(crate) fn subscription_options(qos: &QosProfile) -> SubscriptionOptions {
    SubscriptionOptions {
        advanced: (qos.durability == Durability::TransientLocal).then(|| AdvancedSubscriptionOptions {
            history_depth: Some(qos.depth() as usize),
            subscriber_detection: true,
            recovery: qos.reliability == Reliability::Reliable,
        }),
    }
}

impl Node {
    /// Subscribes to `topic` (expanded for this node); `callback` runs for each valid message,
    /// in order, on the subscription's own thread.
    ///
    /// When the callback does not keep up, the queue drops the oldest samples as the QoS says
    /// (KEEP_LAST: `depth`; KEEP_ALL: a bound, see [`delivery`](super::delivery)), counts them
    /// in the session stats and logs the first; the gap shows in the sequence numbers.
    pub async fn create_subscription<T: Message>(
        &self,
        topic: &str,
        qos: QosProfile,
        callback: impl FnMut(Sample<'_, T>) + Send + 'static,
    ) -> Result<Subscription<T>, NodeError> {
        let info = self.endpoint::<T>(EntityKind::Subscription, topic, qos)?;
        let key = super::keyexpr::topic_keyexpr(info.node.domain, &info.topic, &T::TYPE);
        let (inlet, worker) = delivery::start(&info.topic, &qos, self.session().stats().clone(), callback)
            .map_err(|source| NodeError::Worker {
                topic: info.topic.clone(),
                source,
            })?;
        // zenoh's callback and the lane's thread check the attachment, merge by publisher and
        // sequence number when the lane is on, and queue into the same bounded QoS queue: neither
        // receive path ever waits for the callback, and drops are counted the same way.
        let lane = attach::wanted(self.session(), &info);
        let checker = inlet.clone();
        let admit = move |sample| {
            let admitted = checker.admit(sample)?;
            let attachment = admitted.attachment();
            let (gid, sequence) = (attachment.source_gid, attachment.sequence_number);
            Some((admitted, gid, sequence))
        };
        let queue = move |admitted| inlet.queue(admitted);
        let paths = Arc::new(Paths::new(admit, queue, lane, self.session().stats().clone()));
        let from_zenoh = paths.clone();
        let receiver = self
            .session()
            .declare_callback_subscription(&key, subscription_options(&qos), move |sample| {
                from_zenoh.zenoh(sample)
            })
            .await?;
        let lane = match lane {
            true => attach::start(self.session(), &info, &key, paths).await,
            false => None,
        };
        let token = declare_token(self.session(), liveliness::endpoint_token(&info)).await?;
        Ok(Subscription {
            _lane: lane,
            _receiver: receiver,
            _worker: worker,
            info,
            _token: token,
            _type: PhantomData,
        })
    }
}

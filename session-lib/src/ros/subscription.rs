//! [`Subscription`]: typed receiving. Each sample is checked before it is delivered: it must
//! carry rmw_zenoh's attachment and its payload must be valid CDR for the topic's type. A sample
//! that fails is dropped, counted in the session stats by reason, and logged once per reason.

use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::attachment::Attachment;
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
use crate::stats::{DropReason, SessionStats};

/// A received message of type `T` with its rmw_zenoh metadata. The payload was validated on
/// receipt; [`view`](Sample::view) reads it in place.
#[derive(Debug)]
pub struct Sample<T> {
    sample: RawSample,
    attachment: Attachment,
    _type: PhantomData<fn() -> T>,
}

impl<T: Message> Sample<T> {
    /// The message read in place: large fields borrow from the received buffer (the publisher's
    /// shared memory when [`is_shm`](Self::is_shm)).
    pub fn view(&self) -> T::View<'_> {
        T::view_cdr(self.sample.payload()).expect("the payload was validated when it was received")
    }

    /// An owned copy of the message.
    pub fn decode(&self) -> T {
        T::from_cdr(self.sample.payload()).expect("the payload was validated when it was received")
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
    pub fn payload(&self) -> &[u8] {
        self.sample.payload()
    }
}

/// Receives messages of type `T` on one topic until dropped.
#[derive(Debug)]
pub struct Subscription<T> {
    // The lane goes first: its thread stops before zenoh's subscriber is undeclared.
    _lane: Option<SubscriptionLane>,
    _receiver: RawCallbackSubscription,
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
fn subscription_options(qos: &QosProfile) -> SubscriptionOptions {
    SubscriptionOptions {
        advanced: (qos.durability == Durability::TransientLocal).then(|| AdvancedSubscriptionOptions {
            history_depth: Some(qos.depth() as usize),
            subscriber_detection: true,
            recovery: qos.reliability == Reliability::Reliable,
        }),
    }
}

/// Checks one sample; counts and logs (once per reason) what it rejects.
struct Gate {
    topic: String,
    stats: Arc<SessionStats>,
    warned: [AtomicBool; DropReason::ALL.len()],
}

impl Gate {
    fn admit<T: Message>(&self, sample: RawSample) -> Option<Sample<T>> {
        let attachment = match sample.attachment_bytes().map(|a| Attachment::decode(&a)) {
            None => return self.reject(DropReason::MissingAttachment, "no attachment"),
            Some(Err(err)) => return self.reject(DropReason::BadAttachment, &err.to_string()),
            Some(Ok(attachment)) => attachment,
        };
        if let Err(err) = T::view_cdr(sample.payload()) {
            return self.reject(DropReason::MalformedCdr, &err.to_string());
        }
        Some(Sample {
            sample,
            attachment,
            _type: PhantomData,
        })
    }

    fn reject<R>(&self, reason: DropReason, detail: &str) -> Option<R> {
        self.stats.dropped(reason);
        if !self.warned[reason.index()].swap(true, Ordering::Relaxed) {
            tracing::warn!(
                topic = %self.topic,
                reason = reason.label(),
                "dropped a sample (counted; later ones are not logged): {detail}"
            );
        }
        None
    }
}

impl Node {
    /// Subscribes to `topic` (expanded for this node); `callback` runs on zenoh's receive thread
    /// for each valid message.
    pub async fn create_subscription<T: Message>(
        &self,
        topic: &str,
        qos: QosProfile,
        callback: impl Fn(Sample<T>) + Send + Sync + 'static,
    ) -> Result<Subscription<T>, NodeError> {
        let info = self.endpoint::<T>(EntityKind::Subscription, topic, qos)?;
        let key = super::keyexpr::topic_keyexpr(info.node.domain, &info.topic, &T::TYPE);
        let gate = Gate {
            topic: info.topic.clone(),
            stats: self.session().stats().clone(),
            warned: Default::default(),
        };
        // zenoh's callback and the lane's thread deliver through the same checks and callback.
        let lane = attach::wanted(self.session(), &info);
        let admit = move |sample| {
            let sample = gate.admit::<T>(sample)?;
            let (gid, sequence) = (sample.publisher_gid(), sample.sequence_number());
            Some((sample, gid, sequence))
        };
        let paths = Arc::new(Paths::new(admit, callback, lane, self.session().stats().clone()));
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
            info,
            _token: token,
            _type: PhantomData,
        })
    }
}

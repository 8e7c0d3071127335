//! [`Subscription`]: typed receiving. Each sample is checked before it is delivered: it must
//! carry rmw_zenoh's attachment and its payload must be valid CDR for the topic's type. A sample
//! that fails is dropped, counted in the session stats by reason, and logged once per reason.
//!
//! Callbacks run on the node's [`Executor`](super::executor::Executor), fed by a bounded queue
//! shaped by the QoS (see [`delivery`](super::delivery)): zenoh's receive thread never waits for
//! a callback. A subscription may instead ask for inline delivery ([`Dispatch::Inline`]).

use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use super::delivery::{Admitted, Handler, Queue};
use super::executor::{CallbackGroup, Registration, Waitable};
use super::lane::paths::Paths;
use super::lane::subscription::{self as lane_subscription, SubscriptionLane};
use super::liveliness::{self, EndpointInfo, EntityKind};
use super::node_base::{NodeBase, NodeError, declare_token};
use super::qos::{Durability, QosProfile, Reliability};
use super::sample::Sample;
use crate::msgs::Message;
use crate::raw::{AdvancedSubscriptionOptions, RawCallbackSubscription, RawSample};

/// Where a subscription's callback runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Dispatch {
    /// On the node's executor, after the sample waited in the subscription's bounded QoS queue:
    /// one thread hand-off for a zenoh sample, none for a lane sample. The default.
    #[default]
    Executor,
    /// On the thread that received the sample: zenoh's receive thread, or the executor thread
    /// that read it from the lane, as zenoh's own callbacks run. For callbacks that never block:
    /// while one runs, zenoh reads nothing else from that link. It saves the hand-off (tens of
    /// microseconds on a VM whose idle vCPU must wake up); there is no queue, so nothing is
    /// dropped for a slow callback, and the callback is outside any callback group. Samples
    /// without a valid attachment or CDR are still dropped and counted.
    Inline,
}

/// How a subscription delivers, beside its topic and QoS.
#[derive(Debug, Clone, Default)]
pub struct SubscriptionOptions {
    /// The group its callback belongs to; the node's default (mutually exclusive) one if `None`.
    pub callback_group: Option<CallbackGroup>,
    /// Where the callback runs.
    pub dispatch: Dispatch,
}

impl SubscriptionOptions {
    /// These options with the callback in `group`.
    pub fn callback_group(mut self, group: &CallbackGroup) -> Self {
        self.callback_group = Some(group.clone());
        self
    }

    /// These options with the callback run on the receiving thread ([`Dispatch::Inline`]).
    pub fn inline(mut self) -> Self {
        self.dispatch = Dispatch::Inline;
        self
    }
}

/// Receives messages of type `T` on one topic until dropped.
///
/// Dropping it stops the deliveries: samples still queued are discarded, and a callback that is
/// running is waited for, unless the callback itself drops it (so do not drop a subscription
/// while holding something its callback waits for).
#[derive(Debug)]
pub struct Subscription<T> {
    // Dropped in this order: zenoh's subscriber is undeclared, then the entity leaves its
    // executor (with its lane), then the token goes.
    _receiver: RawCallbackSubscription,
    _registration: Registration,
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
pub(crate) fn zenoh_options(qos: &QosProfile) -> crate::raw::SubscriptionOptions {
    crate::raw::SubscriptionOptions {
        advanced: (qos.durability == Durability::TransientLocal).then(|| AdvancedSubscriptionOptions {
            history_depth: Some(qos.depth() as usize),
            subscriber_detection: true,
            recovery: qos.reliability == Reliability::Reliable,
        }),
    }
}

/// A subscription as its executor sees it: the queue it pops, the lane it reads.
struct Entity<T: Message> {
    topic: String,
    handler: Arc<Handler<T>>,
    /// `None` for inline delivery.
    queue: Option<Arc<Queue>>,
    paths: Arc<Paths<Admitted>>,
    lane: OnceLock<SubscriptionLane>,
}

impl<T: Message> Waitable for Entity<T> {
    fn fired(&self, slot: usize) {
        if let Some(lane) = self.lane.get() {
            lane.receiver().fired(slot);
        }
    }

    fn unwatch(&self) {
        if let Some(lane) = self.lane.get() {
            lane.receiver().close();
        }
    }

    fn collect(&self, signalled: bool, now: Instant) {
        if signalled && let Some(lane) = self.lane.get() {
            lane.receiver().process();
        }
        if self.paths.deadline().is_some_and(|at| at <= now) {
            self.paths.tick(now);
        }
    }

    fn is_ready(&self, _now: Instant) -> bool {
        self.queue.as_ref().is_some_and(|queue| !queue.is_empty())
    }

    fn execute(&self, _now: Instant) {
        if let Some(admitted) = self.queue.as_ref().and_then(|queue| queue.pop()) {
            self.handler.run(admitted);
        }
    }

    fn deadline(&self) -> Option<Instant> {
        self.paths.deadline()
    }

    fn name(&self) -> String {
        format!("subscription to {}", self.topic)
    }
}

impl<T: Message> Drop for Entity<T> {
    fn drop(&mut self) {
        if let Some(queue) = &self.queue {
            queue.stop();
        }
    }
}

impl NodeBase {
    /// Subscribes to `topic` (expanded for this node); `callback` runs for each valid message,
    /// in order, on the node's executor, in the node's default callback group.
    ///
    /// When the callback does not keep up, the queue drops the oldest samples as the QoS says
    /// (KEEP_LAST: `depth`; KEEP_ALL: a bound, [`KEEP_ALL_BOUND`](super::KEEP_ALL_BOUND)), counts them
    /// in the session stats and logs the first; the gap shows in the sequence numbers.
    pub async fn create_subscription<T: Message>(
        &self,
        topic: &str,
        qos: QosProfile,
        callback: impl FnMut(Sample<'_, T>) + Send + 'static,
    ) -> Result<Subscription<T>, NodeError> {
        self.create_subscription_with::<T>(topic, qos, SubscriptionOptions::default(), callback)
            .await
    }

    /// [`create_subscription`](Self::create_subscription) with a callback group or inline
    /// delivery.
    pub async fn create_subscription_with<T: Message>(
        &self,
        topic: &str,
        qos: QosProfile,
        options: SubscriptionOptions,
        callback: impl FnMut(Sample<'_, T>) + Send + 'static,
    ) -> Result<Subscription<T>, NodeError> {
        let info = self.endpoint(
            EntityKind::Subscription,
            topic,
            (T::TYPE.dds_name, T::TYPE.hash),
            qos,
        )?;
        let key = super::keyexpr::topic_keyexpr(info.node.domain, &info.topic, &T::TYPE);
        let stats = self.session().stats().clone();
        let handler = Arc::new(Handler::new(&info.topic, stats.clone(), callback));
        let lane = lane_subscription::wanted(self.session(), &info);
        let group = options
            .callback_group
            .unwrap_or_else(|| self.default_callback_group().clone());
        // zenoh's callback and the lane check the attachment, merge by publisher and sequence
        // number when the lane is on, and queue into the same bounded QoS queue (or, inline, run
        // the callback): neither receive path ever waits for the executor, and drops are counted
        // the same way.
        let (entity, registration) = self.executor_entry(group, |notifier| {
            let queue = (options.dispatch == Dispatch::Executor)
                .then(|| Arc::new(Queue::new(&info.topic, &qos, stats.clone(), notifier.clone())));
            let checker = handler.clone();
            let admit = move |sample| {
                let admitted = checker.admit(sample)?;
                let attachment = admitted.attachment();
                let (gid, sequence) = (attachment.source_gid, attachment.sequence_number);
                Some((admitted, gid, sequence))
            };
            let moved = move || notifier.deadline_moved();
            let paths = match &queue {
                Some(queue) => {
                    let queue = queue.clone();
                    let deliver = move |admitted| queue.push(admitted);
                    Paths::new(admit, deliver, lane, stats.clone(), moved)
                }
                None => {
                    let inline = handler.clone();
                    let deliver = move |admitted| inline.run(admitted);
                    Paths::new(admit, deliver, lane, stats.clone(), moved)
                }
            };
            Entity {
                topic: info.topic.clone(),
                handler: handler.clone(),
                queue,
                paths: Arc::new(paths),
                lane: OnceLock::new(),
            }
        });
        let from_zenoh = entity.paths.clone();
        let receiver = self
            .session()
            .declare_callback_subscription(&key, zenoh_options(&qos), move |sample: RawSample| {
                from_zenoh.zenoh(sample)
            })
            .await?;
        // Announced as soon as zenoh can deliver to it (rmw_zenoh's order), and before the lane
        // starts (a few milliseconds): a lane publisher that skips zenoh learns of it from this
        // token and sends through zenoh again. Zenoh routes to the subscription from its
        // declaration on, so a message it gets through zenoh before the publisher knows it could
        // be followed by one that skipped zenoh; the shorter that window, the rarer (the
        // publisher closes the rest, see `ros::lane::publisher`).
        let token = declare_token(self.session(), liveliness::endpoint_token(&info)).await?;
        if lane
            && let Some(started) =
                lane_subscription::start(self.session(), &info, &key, entity.paths.clone()).await
        {
            // Watched only once the entity holds it, so that no slot fires before it can be told.
            let lane = entity.lane.get_or_init(|| started);
            lane.receiver()
                .watch(registration.wait_set())
                .map_err(|err| NodeError::Executor(err.into()))?;
        }
        Ok(Subscription {
            _receiver: receiver,
            _registration: registration,
            info,
            _token: token,
            _type: PhantomData,
        })
    }
}

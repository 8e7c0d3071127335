//! [`RawSubscription`] and [`RawCallbackSubscription`]: receiving raw bytes through zenoh, read
//! in place ([`RawSample`]).

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_core::Stream;

use super::error::DeclareError;
use super::inbox::{self, InboxBounds, InboxReceiver};
use super::sample::RawSample;
use crate::session::Session;
use crate::stats::{QueueOverflow, SessionStats};

/// A subscription that queues samples; read them with [`recv`](Self::recv) or as a stream.
///
/// The queue holds [`SUBSCRIPTION_QUEUE`] samples and [`SUBSCRIPTION_QUEUE_HEAP_BYTES`] of
/// payload on the heap. When the application does not keep up, the oldest queued sample is
/// dropped and counted ([`QueueOverflow::Raw`]); zenoh's receive thread never waits for the
/// application, so one slow reader does not stall the other topics of the link.
#[derive(Debug)]
pub struct RawSubscription {
    _inner: RawCallbackSubscription,
    queue: InboxReceiver<RawSample>,
}

impl RawSubscription {
    /// The next sample; `None` once the session is closed.
    pub async fn recv(&self) -> Option<RawSample> {
        self.queue.recv_async().await
    }

    /// The samples as an async stream.
    pub fn stream(&self) -> impl Stream<Item = RawSample> + '_ {
        SampleStream {
            subscription: self,
            next: None,
        }
    }
}

/// [`RawSubscription::stream`]: one `recv` at a time.
struct SampleStream<'a> {
    subscription: &'a RawSubscription,
    next: Option<Pin<Box<dyn Future<Output = Option<RawSample>> + Send + 'a>>>,
}

impl Stream for SampleStream<'_> {
    type Item = RawSample;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<RawSample>> {
        let subscription = self.subscription;
        let next = self.next.get_or_insert_with(|| Box::pin(subscription.recv()));
        let polled = next.as_mut().poll(cx);
        if polled.is_ready() {
            self.next = None;
        }
        polled
    }
}

/// A subscription that calls a function for each sample, on zenoh's receive thread. It stops
/// when dropped.
///
/// The function must return quickly: while it runs, zenoh reads nothing else from that link
/// (no other topic, no liveliness, no keep-alive). Hand slow work to another thread, as
/// [`RawSubscription`] and the typed [`Subscription`](crate::ros::Subscription) do.
#[derive(Debug)]
pub struct RawCallbackSubscription {
    _inner: Receiver,
}

/// The zenoh subscriber behind a zshm one; undeclared when dropped.
enum Receiver {
    Plain(#[allow(dead_code)] zenoh::pubsub::Subscriber<()>),
    Advanced(#[allow(dead_code)] zenoh_ext::AdvancedSubscriber<()>),
}

// By hand: zenoh-ext 1.9's AdvancedSubscriber has no Debug.
impl std::fmt::Debug for Receiver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Receiver::Plain(subscriber) => f.debug_tuple("Plain").field(subscriber).finish(),
            Receiver::Advanced(_) => f.write_str("Advanced"),
        }
    }
}

/// How a subscription receives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SubscriptionOptions {
    /// Declare a zenoh-ext advanced subscriber (what rmw_zenoh declares for `TRANSIENT_LOCAL`).
    pub advanced: Option<AdvancedSubscriptionOptions>,
}

/// zenoh-ext advanced-subscriber features (rmw_zenoh uses them for `TRANSIENT_LOCAL`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AdvancedSubscriptionOptions {
    /// Ask publishers' caches for up to this many past samples, including late-joining publishers.
    pub history_depth: Option<usize>,
    /// Declare the `@adv/sub` liveliness token so publishers detect this subscriber.
    pub subscriber_detection: bool,
    /// Recover missed samples from heartbeats.
    pub recovery: bool,
}

/// Samples a [`RawSubscription`] queues at most.
pub const SUBSCRIPTION_QUEUE: usize = 64;

/// Payload bytes on the heap a [`RawSubscription`] queues at most (samples in shared memory do
/// not count: they live in the publisher's pool).
pub const SUBSCRIPTION_QUEUE_HEAP_BYTES: usize = 256 << 20;

impl Session {
    /// Declares a queueing subscription on `key_expr`.
    pub async fn declare_subscription(&self, key_expr: &str) -> Result<RawSubscription, DeclareError> {
        let bounds = InboxBounds {
            samples: SUBSCRIPTION_QUEUE,
            heap_bytes: SUBSCRIPTION_QUEUE_HEAP_BYTES,
            kind: QueueOverflow::Raw,
        };
        let (inbox, queue) = inbox::inbox(key_expr, bounds, self.stats().clone());
        let inner = self
            .declare_callback_subscription(key_expr, SubscriptionOptions::default(), move |sample| {
                let bytes = sample.heap_bytes();
                inbox.push(sample, bytes);
            })
            .await?;
        Ok(RawSubscription { _inner: inner, queue })
    }

    /// Declares a subscription that calls `callback` for each sample.
    pub async fn declare_callback_subscription(
        &self,
        key_expr: &str,
        options: SubscriptionOptions,
        callback: impl Fn(RawSample) + Send + Sync + 'static,
    ) -> Result<RawCallbackSubscription, DeclareError> {
        let key = DeclareError::parse_key(key_expr)?;
        let stats: Arc<SessionStats> = self.stats().clone();
        let callback = move |sample| {
            let sample = RawSample::new(sample);
            stats.received(sample.is_shm(), sample.payload().len());
            callback(sample);
        };
        let zenoh_error = |source| DeclareError::Zenoh {
            key: key_expr.to_owned(),
            source,
        };
        let builder = self.zenoh().declare_subscriber(key);
        let Some(advanced) = options.advanced else {
            let inner = Receiver::Plain(builder.callback(callback).await.map_err(zenoh_error)?);
            return Ok(RawCallbackSubscription { _inner: inner });
        };
        use zenoh_ext::AdvancedSubscriberBuilderExt;
        let mut builder = builder.advanced().callback(callback);
        if let Some(depth) = advanced.history_depth {
            builder = builder
                .history(zenoh_ext::HistoryConfig::default().detect_late_publishers().max_samples(depth))
                // rmw_zenoh waits for history replies without a deadline.
                .query_timeout(Duration::MAX);
        }
        if advanced.subscriber_detection {
            builder = builder.subscriber_detection();
        }
        if advanced.recovery {
            builder = builder.recovery(zenoh_ext::RecoveryConfig::default().heartbeat());
        }
        let inner = Receiver::Advanced(builder.await.map_err(zenoh_error)?);
        Ok(RawCallbackSubscription { _inner: inner })
    }
}

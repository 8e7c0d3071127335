//! [`Subscriber`] and [`Sample`]: receiving raw bytes, read in place.

use std::sync::Arc;
use std::time::Duration;

use futures_core::Stream;

use crate::session::Session;
use crate::stats::SessionStats;

/// Why a subscriber could not be declared.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SubscribeError {
    /// The key expression is not valid zenoh syntax.
    #[error("invalid key expression `{key}`")]
    KeyExpr {
        /// The key expression.
        key: String,
        /// zenoh's error.
        #[source]
        source: zenoh::Error,
    },
    /// zenoh refused the declaration.
    #[error("zenoh refused to subscribe")]
    Zenoh {
        /// zenoh's error.
        #[source]
        source: zenoh::Error,
    },
}

/// One received message. [`payload`](Self::payload) borrows the received bytes: for a sample
/// that came through shared memory, these are the publisher's bytes in /dev/shm.
#[derive(Debug)]
pub struct Sample {
    inner: zenoh::sample::Sample,
    /// Only set when zenoh delivered the payload in several pieces (large messages fragmented
    /// over TCP); they are joined once so that `payload()` is always one slice.
    joined: Option<Vec<u8>>,
    shm: bool,
}

impl Sample {
    pub(crate) fn new(inner: zenoh::sample::Sample) -> Self {
        let payload = inner.payload();
        let shm = payload.as_shm().is_some();
        let joined = (payload.slices().nth(1).is_some()).then(|| payload.to_bytes().into_owned());
        Self { inner, joined, shm }
    }

    /// The payload bytes, without a copy when they arrived in one piece (always for SHM).
    pub fn payload(&self) -> &[u8] {
        match &self.joined {
            Some(bytes) => bytes,
            None => self.inner.payload().slices().next().unwrap_or(&[]),
        }
    }

    /// True when the payload is in shared memory.
    pub fn is_shm(&self) -> bool {
        self.shm
    }

    /// The key expression the sample was published on.
    pub fn key_expr(&self) -> &str {
        self.inner.key_expr().as_str()
    }

    /// The attachment, if any.
    pub fn attachment(&self) -> Option<&zenoh::bytes::ZBytes> {
        self.inner.attachment()
    }

    /// The underlying zenoh sample.
    pub fn zenoh(&self) -> &zenoh::sample::Sample {
        &self.inner
    }
}

/// A subscriber that queues samples; read them with [`recv`](Self::recv) or as a stream.
///
/// The queue is bounded: when the application does not keep up, zenoh's receive path waits
/// (backpressure to the publisher) instead of dropping samples.
#[derive(Debug)]
pub struct Subscriber {
    _inner: Receiver,
    queue: flume::Receiver<Sample>,
}

impl Subscriber {
    /// The next sample; `None` once the session is closed.
    pub async fn recv(&self) -> Option<Sample> {
        self.queue.recv_async().await.ok()
    }

    /// The samples as an async stream.
    pub fn stream(&self) -> impl Stream<Item = Sample> + '_ {
        self.queue.stream()
    }
}

/// A subscriber that calls a function for each sample, on zenoh's receive thread. It stops when
/// dropped.
#[derive(Debug)]
pub struct CallbackSubscriber {
    _inner: Receiver,
}

/// The zenoh subscriber behind a zshm one; undeclared when dropped.
#[derive(Debug)]
pub(crate) enum Receiver {
    Plain(#[allow(dead_code)] zenoh::pubsub::Subscriber<()>),
    Advanced(#[allow(dead_code)] zenoh_ext::AdvancedSubscriber<()>),
}

/// zenoh-ext advanced-subscriber features (rmw_zenoh uses them for `TRANSIENT_LOCAL`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AdvancedSubscriberOptions {
    /// Ask publishers' caches for up to this many past samples, including late-joining publishers.
    pub history_depth: Option<usize>,
    /// Declare the `@adv/sub` liveliness token so publishers detect this subscriber.
    pub subscriber_detection: bool,
    /// Recover missed samples from heartbeats.
    pub recovery: bool,
}

/// Queue length of [`Subscriber`].
pub const SUBSCRIBER_QUEUE: usize = 64;

impl Session {
    /// Declares a queueing subscriber on `key_expr`.
    pub async fn declare_subscriber(&self, key_expr: &str) -> Result<Subscriber, SubscribeError> {
        let (tx, queue) = flume::bounded(SUBSCRIBER_QUEUE);
        let inner = self
            .declare_receiver(key_expr, None, move |sample| {
                // The receiver is gone only when the Subscriber was dropped: nobody wants it.
                let _ = tx.send(sample);
            })
            .await?;
        Ok(Subscriber { _inner: inner, queue })
    }

    /// Declares a subscriber that calls `callback` for each sample.
    pub async fn declare_callback_subscriber(
        &self,
        key_expr: &str,
        callback: impl Fn(Sample) + Send + Sync + 'static,
    ) -> Result<CallbackSubscriber, SubscribeError> {
        let inner = self.declare_receiver(key_expr, None, callback).await?;
        Ok(CallbackSubscriber { _inner: inner })
    }

    pub(crate) async fn declare_receiver(
        &self,
        key_expr: &str,
        advanced: Option<AdvancedSubscriberOptions>,
        deliver: impl Fn(Sample) + Send + Sync + 'static,
    ) -> Result<Receiver, SubscribeError> {
        let key = zenoh::key_expr::KeyExpr::try_from(key_expr.to_owned()).map_err(|source| {
            SubscribeError::KeyExpr {
                key: key_expr.to_owned(),
                source,
            }
        })?;
        let stats: Arc<SessionStats> = self.stats().clone();
        let callback = move |sample| {
            let sample = Sample::new(sample);
            stats.received(sample.is_shm(), sample.payload().len());
            deliver(sample);
        };
        let zenoh_error = |source| SubscribeError::Zenoh { source };
        let builder = self.zenoh().declare_subscriber(key);
        let Some(advanced) = advanced else {
            return Ok(Receiver::Plain(
                builder.callback(callback).await.map_err(zenoh_error)?,
            ));
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
        Ok(Receiver::Advanced(builder.await.map_err(zenoh_error)?))
    }
}

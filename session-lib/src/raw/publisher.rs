//! [`RawPublisher`]: raw-bytes publishing that goes through shared memory at or above the
//! threshold, with zero-copy loans, and through the same-host lane when it has one
//! ([`RawPublisher::set_lane`], [`RawPublisher::send`]).

use std::sync::Arc;
use std::time::{Duration, Instant};

use zenoh::bytes::ZBytes;
use zenoh::qos::{CongestionControl, Reliability};

use super::error::{DeclareError, PublishError};
use super::lane_route::LaneRoute;
use super::loan::{Buffer, RawLoan};
use crate::lane::{LaneHeader, LaneSendError, Sent};
use crate::session::Session;
use crate::shm::ShmPool;
use crate::stats::{LaneFallback, SessionStats};

/// How a publisher delivers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PublisherOptions {
    /// Reliable (retransmitted) or best effort.
    pub reliable: bool,
    /// When a link is congested: block the publisher (true) or let zenoh drop the message (false).
    pub block_when_congested: bool,
    /// Send immediately, without batching with other messages.
    pub express: bool,
    /// Declare a zenoh-ext advanced publisher (what rmw_zenoh always declares).
    pub advanced: Option<AdvancedPublisherOptions>,
}

impl Default for PublisherOptions {
    /// Reliable and blocking: nothing is dropped without the publisher noticing.
    fn default() -> Self {
        Self {
            reliable: true,
            block_when_congested: true,
            express: false,
            advanced: None,
        }
    }
}

/// zenoh-ext advanced-publisher features (rmw_zenoh uses them for `TRANSIENT_LOCAL`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AdvancedPublisherOptions {
    /// Keep the last N samples for late-joining subscribers.
    pub cache_depth: Option<usize>,
    /// Declare the `@adv/pub` liveliness token so subscribers detect this publisher.
    pub publisher_detection: bool,
    /// Send sporadic heartbeats with this period so subscribers detect missed samples.
    pub miss_detection_heartbeat: Option<Duration>,
}

/// Publishes raw bytes on one key expression.
#[derive(Debug)]
pub struct RawPublisher {
    sender: Sender,
    pool: Option<Arc<ShmPool>>,
    threshold: usize,
    stats: Arc<SessionStats>,
    lane: Option<Arc<LaneRoute>>,
}

enum Sender {
    Plain(zenoh::pubsub::Publisher<'static>),
    Advanced(zenoh_ext::AdvancedPublisher<'static>),
}

// By hand: zenoh-ext 1.9's AdvancedPublisher has no Debug.
impl std::fmt::Debug for Sender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Sender::Plain(publisher) => f.debug_tuple("Plain").field(publisher).finish(),
            Sender::Advanced(publisher) => f.debug_tuple("Advanced").field(&publisher.key_expr()).finish(),
        }
    }
}

impl Session {
    /// Declares a publisher on `key_expr`.
    pub async fn declare_publisher(
        &self,
        key_expr: &str,
        options: PublisherOptions,
    ) -> Result<RawPublisher, DeclareError> {
        let key = DeclareError::parse_key(key_expr)?;
        let zenoh_error = |source| DeclareError::Zenoh {
            key: key_expr.to_owned(),
            source,
        };
        let builder = self
            .zenoh()
            .declare_publisher(key)
            .reliability(if options.reliable {
                Reliability::Reliable
            } else {
                Reliability::BestEffort
            })
            .congestion_control(if options.block_when_congested {
                CongestionControl::Block
            } else {
                CongestionControl::Drop
            })
            .express(options.express);
        let sender = match options.advanced {
            None => Sender::Plain(builder.await.map_err(zenoh_error)?),
            Some(advanced) => {
                use zenoh_ext::AdvancedPublisherBuilderExt;
                let mut builder = builder.advanced();
                if let Some(depth) = advanced.cache_depth {
                    builder = builder.cache(zenoh_ext::CacheConfig::default().max_samples(depth));
                }
                if advanced.publisher_detection {
                    builder = builder.publisher_detection();
                }
                if let Some(period) = advanced.miss_detection_heartbeat {
                    builder = builder.sample_miss_detection(
                        zenoh_ext::MissDetectionConfig::default().sporadic_heartbeat(period),
                    );
                }
                Sender::Advanced(builder.await.map_err(zenoh_error)?)
            }
        };
        Ok(RawPublisher {
            sender,
            pool: self.shm_pool().cloned(),
            threshold: self.shm_threshold(),
            stats: self.stats().clone(),
            lane: None,
        })
    }
}

impl RawPublisher {
    /// The key expression published on.
    pub fn key_expr(&self) -> &str {
        match &self.sender {
            Sender::Plain(p) => p.key_expr().as_str(),
            Sender::Advanced(p) => p.key_expr().as_str(),
        }
    }

    /// Gives the publisher a same-host lane: from now on, loans come from the lane while it has
    /// subscribers, and [`send`](Self::send) routes each message as the route decides.
    pub(crate) fn set_lane(&mut self, route: Arc<LaneRoute>) {
        self.lane = Some(route);
    }

    /// The lane's route, when the publisher has a lane.
    pub(crate) fn lane(&self) -> Option<&Arc<LaneRoute>> {
        self.lane.as_ref()
    }

    /// A buffer for a payload of `len` bytes: in the lane when it has subscribers, else a loan
    /// from the SHM pool at or above the threshold, the heap below it (small messages gain
    /// nothing from zenoh's SHM).
    pub async fn buffer(&self, len: usize) -> RawLoan {
        if let Some(loan) = self.lane_loan(len) {
            loan
        } else if len >= self.threshold {
            self.zenoh_loan(len).await
        } else {
            RawLoan::heap(len)
        }
    }

    /// A writable buffer of `len` bytes: in the lane when it has subscribers, else from the SHM
    /// pool when shared memory is active (see [`RawLoan`] for the fallback). Fill it, then
    /// [`publish_loan`](Self::publish_loan) it.
    pub async fn loan(&self, len: usize) -> RawLoan {
        match self.lane_loan(len) {
            Some(loan) => loan,
            None => self.zenoh_loan(len).await,
        }
    }

    async fn zenoh_loan(&self, len: usize) -> RawLoan {
        match &self.pool {
            Some(pool) => match pool.loan(len).await {
                Some(buffer) => RawLoan::shm(buffer),
                None => RawLoan::heap(len),
            },
            None => RawLoan::heap(len),
        }
    }

    fn lane_loan(&self, len: usize) -> Option<RawLoan> {
        let route = self.lane.as_ref()?;
        if !route.plan().lane {
            return None;
        }
        match route.sender().loan(len) {
            Ok(loan) => Some(RawLoan::lane(loan)),
            Err(err) => {
                let reason = match err {
                    LaneSendError::NoRoom { .. } => LaneFallback::DevShmFull,
                    _ => LaneFallback::SendFailed,
                };
                self.lane_failed(reason, &err.to_string());
                None
            }
        }
    }

    fn lane_failed(&self, reason: LaneFallback, error: &str) {
        if self.stats.lane().fallback(reason) {
            tracing::warn!(
                key = self.key_expr(),
                "lane: a message went through zenoh instead (counted; later ones are not logged): {error}"
            );
        }
    }

    /// Sends a filled loan without copying it.
    pub async fn publish_loan(&self, loan: RawLoan) -> Result<(), PublishError> {
        self.publish_loan_with_attachment(loan, None).await
    }

    /// Sends a filled loan with an attachment, through zenoh (a lane loan is copied once).
    pub async fn publish_loan_with_attachment(
        &self,
        loan: RawLoan,
        attachment: Option<ZBytes>,
    ) -> Result<(), PublishError> {
        self.put_buffer(loan.into_buffer(), attachment).await
    }

    async fn put_buffer(&self, buffer: Buffer, attachment: Option<ZBytes>) -> Result<(), PublishError> {
        let (payload, shm) = match buffer.into_zbytes() {
            Ok(payload) => {
                let shm = payload.as_shm().is_some();
                (payload, shm)
            }
            Err(lane_loan) => {
                let payload = self.zenoh_copy(lane_loan.bytes()).await;
                let shm = payload.as_shm().is_some();
                (payload, shm)
            }
        };
        let len = payload.len();
        self.put(payload, attachment).await?;
        self.stats.published(shm, len);
        Ok(())
    }

    /// Sends a filled loan numbered `sequence` (increasing per publisher) with its attachment:
    /// through the lane when it has subscribers, and through zenoh unless every subscriber zenoh
    /// knows is served by the lane (the lane route). Without a lane, the same as
    /// [`publish_loan_with_attachment`](Self::publish_loan_with_attachment).
    pub async fn send(&self, loan: RawLoan, attachment: &[u8], sequence: i64) -> Result<(), PublishError> {
        let Some(route) = self.lane.clone() else {
            return self
                .publish_loan_with_attachment(loan, Some(ZBytes::from(attachment.to_vec())))
                .await;
        };
        let plan = route.plan();
        let lane_loan = match loan.into_buffer() {
            Buffer::Lane(lane_loan) => lane_loan,
            zenoh_buffer => {
                // Loaned for zenoh (the lane had no subscriber then): lane subscribers have a zenoh
                // subscription too, and the headers of later lane messages say it went this way.
                route.zenoh_until(sequence, true);
                return self
                    .put_buffer(zenoh_buffer, Some(ZBytes::from(attachment.to_vec())))
                    .await;
            }
        };
        let zenoh_until = route.zenoh_until(sequence, plan.zenoh);
        let Some(header) = LaneHeader::new(sequence, zenoh_until, attachment) else {
            self.lane_failed(
                LaneFallback::SendFailed,
                "the attachment is too long for the lane header",
            );
            route.zenoh_until(sequence, true);
            return self
                .put_buffer(Buffer::Lane(lane_loan), Some(ZBytes::from(attachment.to_vec())))
                .await;
        };
        let len = lane_loan.bytes().len();
        let copy = if plan.zenoh {
            Some(self.zenoh_copy(lane_loan.bytes()).await)
        } else {
            None
        };
        let sender = route.sender().clone();
        let sent = if sender.is_blocking() {
            blocking(move || sender.send(lane_loan, header))
        } else {
            sender.send(lane_loan, header)
        };
        let copy = match sent {
            Ok(Sent::Reached) => copy,
            Ok(Sent::Moved(lane_loan)) => {
                // The lane moved to a larger generation after the loan was taken: its
                // subscribers are on their way there, so this one goes through zenoh, and the
                // next lane headers say so.
                route.zenoh_until(sequence, true);
                match copy {
                    Some(copy) => Some(copy),
                    None => Some(self.zenoh_copy(lane_loan.bytes()).await),
                }
            }
            Err(err) => {
                self.lane_failed(LaneFallback::SendFailed, &err.to_string());
                copy
            }
        };
        match copy {
            Some(payload) => {
                let shm = payload.as_shm().is_some();
                self.put(payload, Some(ZBytes::from(attachment.to_vec()))).await?;
                self.stats.published(shm, len);
            }
            None => self.stats.lane().zenoh_skipped(),
        }
        Ok(())
    }

    /// A copy of `bytes` for zenoh: in the SHM pool at or above the threshold, else on the heap.
    async fn zenoh_copy(&self, bytes: &[u8]) -> ZBytes {
        if bytes.len() >= self.threshold
            && let Some(pool) = &self.pool
            && let Some(mut buffer) = pool.loan(bytes.len()).await
        {
            buffer.copy_from_slice(bytes);
            return buffer.into();
        }
        bytes.to_vec().into()
    }

    /// Sends a copy of `data`: one copy into the SHM pool at or above the threshold, into the
    /// heap below it or when shared memory is off. Always through zenoh.
    pub async fn publish(&self, data: &[u8]) -> Result<(), PublishError> {
        self.publish_with_attachment(data, None).await
    }

    /// [`publish`](Self::publish) with an attachment.
    pub async fn publish_with_attachment(
        &self,
        data: &[u8],
        attachment: Option<ZBytes>,
    ) -> Result<(), PublishError> {
        let payload = self.zenoh_copy(data).await;
        let (shm, len) = (payload.as_shm().is_some(), payload.len());
        self.put(payload, attachment).await?;
        self.stats.published(shm, len);
        Ok(())
    }

    async fn put(&self, payload: ZBytes, attachment: Option<ZBytes>) -> Result<(), PublishError> {
        let result = match &self.sender {
            Sender::Plain(p) => p.put(payload).attachment(attachment).await,
            Sender::Advanced(p) => p.put(payload).attachment(attachment).await,
        };
        result.map_err(|source| PublishError::Zenoh {
            key: self.key_expr().to_owned(),
            source,
        })
    }

    async fn is_matched(&self) -> bool {
        let status = match &self.sender {
            Sender::Plain(p) => p.matching_status().await,
            Sender::Advanced(p) => p.matching_status().await,
        };
        status.is_ok_and(|s| s.matching())
    }

    /// Waits until at least one subscriber matches, or `timeout` passes. Returns whether one did.
    pub async fn wait_for_subscribers(&self, timeout: Duration) -> bool {
        self.wait_for_matching(true, timeout).await
    }

    /// Waits until no subscriber matches any more, or `timeout` passes. Returns whether they all
    /// left. Call it before closing, so that messages still in flight are not cut off.
    pub async fn wait_for_no_subscribers(&self, timeout: Duration) -> bool {
        self.wait_for_matching(false, timeout).await
    }

    async fn wait_for_matching(&self, matched: bool, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            if self.is_matched().await == matched {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

/// Runs `send`, which may wait (a RELIABLE + KEEP_ALL lane waits for full subscribers), without
/// stalling the other tasks of a multi-threaded runtime.
fn blocking<R>(send: impl FnOnce() -> R) -> R {
    match tokio::runtime::Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(send)
        }
        _ => send(),
    }
}

//! [`RawPublisher`]: raw-bytes publishing that goes through shared memory at or above the
//! threshold, with zero-copy loans.

use std::sync::Arc;
use std::time::{Duration, Instant};

use zenoh::bytes::ZBytes;
use zenoh::qos::{CongestionControl, Reliability};

use super::error::{DeclareError, PublishError};
use crate::session::Session;
use crate::shm::{RawLoan, ShmPool};
use crate::stats::SessionStats;

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
}

#[derive(Debug)]
enum Sender {
    Plain(zenoh::pubsub::Publisher<'static>),
    Advanced(zenoh_ext::AdvancedPublisher<'static>),
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

    /// A buffer for a payload of `len` bytes: a loan from the SHM pool at or above the
    /// threshold, the heap below it (small messages gain nothing from SHM).
    pub async fn buffer(&self, len: usize) -> RawLoan {
        if len >= self.threshold {
            self.loan(len).await
        } else {
            RawLoan::heap(len)
        }
    }

    /// A writable buffer of `len` bytes, from the SHM pool when shared memory is active (see
    /// [`RawLoan`] for the fallback). Fill it, then [`publish_loan`](Self::publish_loan) it.
    pub async fn loan(&self, len: usize) -> RawLoan {
        match &self.pool {
            Some(pool) => pool.loan(len).await,
            None => RawLoan::heap(len),
        }
    }

    /// Sends a filled loan without copying it.
    pub async fn publish_loan(&self, loan: RawLoan) -> Result<(), PublishError> {
        self.publish_loan_with_attachment(loan, None).await
    }

    /// Sends a filled loan with an attachment.
    pub async fn publish_loan_with_attachment(
        &self,
        loan: RawLoan,
        attachment: Option<ZBytes>,
    ) -> Result<(), PublishError> {
        let (shm, len) = (loan.is_shm(), loan.len());
        self.put(loan.into_zbytes(), attachment).await?;
        self.stats.published(shm, len);
        Ok(())
    }

    /// Sends a copy of `data`: one copy into the SHM pool at or above the threshold, into the
    /// heap below it or when shared memory is off.
    pub async fn publish(&self, data: &[u8]) -> Result<(), PublishError> {
        self.publish_with_attachment(data, None).await
    }

    /// [`publish`](Self::publish) with an attachment.
    pub async fn publish_with_attachment(
        &self,
        data: &[u8],
        attachment: Option<ZBytes>,
    ) -> Result<(), PublishError> {
        let buffer = if self.pool.is_some() && data.len() >= self.threshold {
            let mut loan = self.loan(data.len()).await;
            loan.copy_from_slice(data);
            loan
        } else {
            RawLoan::from_vec(data.to_vec())
        };
        self.publish_loan_with_attachment(buffer, attachment).await
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

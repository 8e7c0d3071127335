//! [`Publisher`]: raw-bytes publishing that goes through shared memory at or above the threshold,
//! with zero-copy loans.

use std::sync::Arc;
use std::time::{Duration, Instant};

use zenoh::bytes::ZBytes;
use zenoh::qos::{CongestionControl, Reliability};

use crate::session::Session;
use crate::shm::{Loan, ShmPool};
use crate::stats::SessionStats;

/// Why a publisher could not be declared or a message not sent.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PublishError {
    /// The key expression is not valid zenoh syntax.
    #[error("invalid key expression `{key}`")]
    KeyExpr {
        /// The key expression.
        key: String,
        /// zenoh's error.
        #[source]
        source: zenoh::Error,
    },
    /// zenoh refused the declaration or the put (for example, the session is closed).
    #[error("zenoh refused to publish")]
    Zenoh {
        /// zenoh's error.
        #[source]
        source: zenoh::Error,
    },
}

/// How a publisher delivers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PublisherOptions {
    /// Reliable (retransmitted) or best effort.
    pub reliable: bool,
    /// When a link is congested: block the publisher (true) or let zenoh drop the message (false).
    pub block_when_congested: bool,
    /// Send immediately, without batching with other messages.
    pub express: bool,
}

impl Default for PublisherOptions {
    /// Reliable and blocking: nothing is dropped without the publisher noticing.
    fn default() -> Self {
        Self {
            reliable: true,
            block_when_congested: true,
            express: false,
        }
    }
}

/// Publishes raw bytes on one key expression.
#[derive(Debug)]
pub struct Publisher {
    inner: zenoh::pubsub::Publisher<'static>,
    pool: Option<Arc<ShmPool>>,
    threshold: usize,
    stats: Arc<SessionStats>,
}

impl Session {
    /// Declares a publisher on `key_expr`.
    pub async fn declare_publisher(
        &self,
        key_expr: &str,
        options: PublisherOptions,
    ) -> Result<Publisher, PublishError> {
        let key = zenoh::key_expr::KeyExpr::try_from(key_expr.to_owned()).map_err(|source| {
            PublishError::KeyExpr {
                key: key_expr.to_owned(),
                source,
            }
        })?;
        let inner = self
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
            .express(options.express)
            .await
            .map_err(|source| PublishError::Zenoh { source })?;
        Ok(Publisher {
            inner,
            pool: self.shm_pool().cloned(),
            threshold: self.shm_threshold(),
            stats: self.stats().clone(),
        })
    }
}

impl Publisher {
    /// The key expression published on.
    pub fn key_expr(&self) -> &str {
        self.inner.key_expr().as_str()
    }

    /// A writable buffer of `len` bytes, from the SHM pool when shared memory is active (see
    /// [`Loan`] for the fallback). Fill it, then [`publish_loan`](Self::publish_loan) it.
    pub async fn loan(&self, len: usize) -> Loan {
        match &self.pool {
            Some(pool) => pool.loan(len).await,
            None => Loan::heap(len),
        }
    }

    /// Sends a filled loan without copying it.
    pub async fn publish_loan(&self, loan: Loan) -> Result<(), PublishError> {
        self.publish_loan_with_attachment(loan, None).await
    }

    /// Sends a filled loan with an attachment.
    pub async fn publish_loan_with_attachment(
        &self,
        loan: Loan,
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
        let loan = match &self.pool {
            Some(pool) if data.len() >= self.threshold => {
                let mut loan = pool.loan(data.len()).await;
                loan.copy_from_slice(data);
                loan
            }
            _ => {
                self.put(ZBytes::from(data.to_vec()), attachment).await?;
                self.stats.published(false, data.len());
                return Ok(());
            }
        };
        self.publish_loan_with_attachment(loan, attachment).await
    }

    async fn put(&self, payload: ZBytes, attachment: Option<ZBytes>) -> Result<(), PublishError> {
        self.inner
            .put(payload)
            .attachment(attachment)
            .await
            .map_err(|source| PublishError::Zenoh { source })
    }

    /// Waits until at least one subscriber matches, or `timeout` passes. Returns whether one did.
    pub async fn wait_for_subscribers(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            if self.inner.matching_status().await.is_ok_and(|s| s.matching()) {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

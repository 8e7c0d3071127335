//! Queries as bytes: a [`RawQueryable`] answers them, [`Session::query`] asks. The typed service
//! servers and clients (`ros::service`) are built on these, as rmw_zenoh builds its services on
//! zenoh's queryables and queries.
//!
//! Payloads at or above the session's SHM threshold travel in the SHM pool, request and reply
//! alike ([`Session::buffer`]): a map of several MiB is written once, in place.

use std::borrow::Cow;
use std::time::Duration;

use zenoh::Wait;
use zenoh::bytes::ZBytes;
use zenoh::query::{ConsolidationMode, Query, QueryTarget, Reply};

use super::error::{DeclareError, PublishError};
use super::loan::RawLoan;
use super::sample::RawSample;
use crate::session::Session;

/// A query received by a [`RawQueryable`]: its payload and attachment, and the way to answer.
///
/// zenoh ends the query (the asker's final reply) when this drops, so keep it until every reply
/// is sent: a server that answers later keeps it meanwhile.
#[derive(Debug)]
pub struct RawQuery {
    query: Query,
    joined: Option<Vec<u8>>,
}

impl RawQuery {
    fn new(query: Query) -> Self {
        let joined = query
            .payload()
            .filter(|p| p.slices().nth(1).is_some())
            .map(|p| p.to_bytes().into_owned());
        Self { query, joined }
    }

    /// The request bytes (empty when the query carried none), without a copy when they arrived
    /// in one piece.
    pub fn payload(&self) -> &[u8] {
        if let Some(joined) = &self.joined {
            return joined;
        }
        match self.query.payload().and_then(|p| p.slices().next()) {
            Some(slice) => slice,
            None => &[],
        }
    }

    /// True when the request arrived in shared memory.
    pub fn is_shm(&self) -> bool {
        self.query.payload().is_some_and(|p| p.as_shm().is_some())
    }

    /// The attachment bytes, if any.
    pub fn attachment_bytes(&self) -> Option<Cow<'_, [u8]>> {
        self.query.attachment().map(ZBytes::to_bytes)
    }

    /// The key expression the query was sent to.
    pub fn key_expr(&self) -> &str {
        self.query.key_expr().as_str()
    }

    /// Replies on `key` with a filled buffer (no copy for the SHM pool; a lane loan cannot be
    /// sent through zenoh and is copied once) and an attachment. Does not wait for the network,
    /// so it may run on any thread, inside or outside an async runtime.
    pub fn reply(&self, key: &str, payload: RawLoan, attachment: &[u8]) -> Result<(), PublishError> {
        let payload = match payload.into_buffer().into_zbytes() {
            Ok(bytes) => bytes,
            Err(lane) => ZBytes::from(lane.bytes().to_vec()),
        };
        self.query
            .reply(key.to_owned(), payload)
            .attachment(attachment.to_vec())
            .wait()
            .map_err(|source| PublishError::Zenoh {
                key: key.to_owned(),
                source,
            })
    }
}

/// Answers the queries on one key expression until dropped. Declared *complete* (it answers for
/// the whole key expression), as rmw_zenoh's servers are: rmw_zenoh clients ask only complete
/// queryables.
#[derive(Debug)]
pub struct RawQueryable {
    _inner: zenoh::query::Queryable<()>,
}

/// One answer to a [`Session::query`].
#[derive(Debug)]
pub enum RawReply {
    /// A server's reply.
    Reply(Box<RawSample>),
    /// An error reply (zenoh's, e.g. the query timed out, or one a server sent).
    Error(String),
}

impl Session {
    /// Declares a complete queryable on `key_expr` that calls `callback` for each query on
    /// zenoh's thread (it must not block: queue the query and answer from elsewhere).
    pub async fn declare_queryable(
        &self,
        key_expr: &str,
        callback: impl Fn(RawQuery) + Send + Sync + 'static,
    ) -> Result<RawQueryable, DeclareError> {
        let key = DeclareError::parse_key(key_expr)?;
        let stats = self.stats().clone();
        let inner = self
            .zenoh()
            .declare_queryable(key)
            .complete(true)
            .callback(move |query| {
                let query = RawQuery::new(query);
                stats.received(query.is_shm(), query.payload().len());
                callback(query)
            })
            .await
            .map_err(|source| DeclareError::Zenoh {
                key: key_expr.to_owned(),
                source,
            })?;
        Ok(RawQueryable { _inner: inner })
    }

    /// Sends a query to every complete queryable of `key_expr` (rmw_zenoh's `ALL_COMPLETE`, no
    /// consolidation: each server's reply comes back) with a filled buffer and an attachment,
    /// and calls `callback` on zenoh's thread for each answer (it must not block). zenoh drops
    /// `callback` once the query is over (every server answered, or `timeout` ran out), so a
    /// value it owns can tell that in its `Drop`. Does not wait for the network.
    pub fn query(
        &self,
        key_expr: &str,
        payload: RawLoan,
        attachment: &[u8],
        timeout: Duration,
        callback: impl Fn(RawReply) + Send + Sync + 'static,
    ) -> Result<(), DeclareError> {
        let key = DeclareError::parse_key(key_expr)?;
        let payload = match payload.into_buffer().into_zbytes() {
            Ok(bytes) => bytes,
            Err(lane) => ZBytes::from(lane.bytes().to_vec()),
        };
        let stats = self.stats().clone();
        self.zenoh()
            .get(key)
            .payload(payload)
            .attachment(attachment.to_vec())
            .target(QueryTarget::AllComplete)
            .consolidation(ConsolidationMode::None)
            .timeout(timeout)
            .callback(move |reply: Reply| {
                let answer = match reply.into_result() {
                    Ok(sample) => {
                        let sample = RawSample::new(sample);
                        stats.received(sample.is_shm(), sample.payload().len());
                        RawReply::Reply(Box::new(sample))
                    }
                    Err(err) => {
                        RawReply::Error(String::from_utf8_lossy(&err.payload().to_bytes()).into_owned())
                    }
                };
                callback(answer)
            })
            .wait()
            .map_err(|source| DeclareError::Zenoh {
                key: key_expr.to_owned(),
                source,
            })
    }

    /// A buffer for a payload of `len` bytes outside any publisher (a request, a reply): from
    /// the SHM pool at or above the threshold when shared memory is active, else the heap.
    pub async fn buffer(&self, len: usize) -> RawLoan {
        if len >= self.shm_threshold()
            && let Some(pool) = self.shm_pool()
            && let Some(buffer) = pool.loan(len).await
        {
            return RawLoan::shm(buffer);
        }
        RawLoan::heap(len)
    }

    /// [`buffer`](Self::buffer) for threads outside the async runtime.
    pub fn buffer_blocking(&self, len: usize) -> RawLoan {
        if len >= self.shm_threshold()
            && let Some(pool) = self.shm_pool()
            && let Some(buffer) = pool.loan_blocking(len)
        {
            return RawLoan::shm(buffer);
        }
        RawLoan::heap(len)
    }
}

//! [`RawSample`]: one received message, from zenoh or from the same-host lane, read in place.

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use zenoh::bytes::ZBytes;

use crate::lane::LaneSample;

/// Which path a message came through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DataPath {
    /// The same-host lane (iceoryx2): the publisher's segment, read in place.
    Lane,
    /// zenoh with shared memory: the publisher's SHM pool, read in place.
    Shm,
    /// zenoh over the network (TCP loopback on one host).
    Network,
}

impl DataPath {
    /// The Prometheus `path` label.
    pub fn label(self) -> &'static str {
        match self {
            DataPath::Lane => "lane",
            DataPath::Shm => "shm",
            DataPath::Network => "network",
        }
    }
}

/// One received message. [`payload`](Self::payload) borrows the received bytes: for a sample
/// that came through shared memory (zenoh's or the lane), these are the publisher's bytes in
/// /dev/shm.
#[derive(Debug)]
pub struct RawSample {
    inner: Inner,
}

#[derive(Debug)]
enum Inner {
    Zenoh {
        sample: zenoh::sample::Sample,
        /// Only set when zenoh delivered the payload in several pieces (large messages
        /// fragmented over TCP); they are joined once so that `payload()` is always one slice.
        joined: Option<Vec<u8>>,
        shm: bool,
    },
    Lane {
        sample: LaneSample,
        key: Arc<str>,
        /// The header's attachment as zenoh would have carried it, made when first asked for
        /// ([`RawSample::attachment_bytes`] needs no copy).
        attachment: OnceLock<Option<ZBytes>>,
    },
}

impl RawSample {
    pub(crate) fn new(sample: zenoh::sample::Sample) -> Self {
        let payload = sample.payload();
        let shm = payload.as_shm().is_some();
        let joined = (payload.slices().nth(1).is_some()).then(|| payload.to_bytes().into_owned());
        Self {
            inner: Inner::Zenoh { sample, joined, shm },
        }
    }

    /// A sample received through the lane on the subscription of `key`.
    pub fn from_lane(sample: LaneSample, key: Arc<str>) -> Self {
        Self {
            inner: Inner::Lane {
                sample,
                key,
                attachment: OnceLock::new(),
            },
        }
    }

    /// The payload bytes, without a copy when they arrived in one piece (always for shared memory).
    pub fn payload(&self) -> &[u8] {
        match &self.inner {
            Inner::Zenoh {
                joined: Some(bytes), ..
            } => bytes,
            Inner::Zenoh { sample, .. } => sample.payload().slices().next().unwrap_or(&[]),
            Inner::Lane { sample, .. } => sample.payload(),
        }
    }

    /// True when the payload is in shared memory (zenoh's or the lane's).
    pub fn is_shm(&self) -> bool {
        self.path() != DataPath::Network
    }

    /// The path the message came through.
    pub fn path(&self) -> DataPath {
        match &self.inner {
            Inner::Zenoh { shm: true, .. } => DataPath::Shm,
            Inner::Zenoh { .. } => DataPath::Network,
            Inner::Lane { .. } => DataPath::Lane,
        }
    }

    /// The key expression the sample was published on.
    pub fn key_expr(&self) -> &str {
        match &self.inner {
            Inner::Zenoh { sample, .. } => sample.key_expr().as_str(),
            Inner::Lane { key, .. } => key,
        }
    }

    /// The attachment, if any (for a lane sample, the one its header carries).
    pub fn attachment(&self) -> Option<&ZBytes> {
        match &self.inner {
            Inner::Zenoh { sample, .. } => sample.attachment(),
            Inner::Lane {
                sample, attachment, ..
            } => attachment
                .get_or_init(|| {
                    let bytes = sample.header().attachment();
                    (!bytes.is_empty()).then(|| ZBytes::from(bytes.to_vec()))
                })
                .as_ref(),
        }
    }

    /// The attachment's bytes, if any: borrowed, without a copy, from a lane sample's header
    /// (and from a zenoh attachment in one piece).
    pub fn attachment_bytes(&self) -> Option<Cow<'_, [u8]>> {
        match &self.inner {
            Inner::Zenoh { sample, .. } => sample.attachment().map(ZBytes::to_bytes),
            Inner::Lane { sample, .. } => {
                let bytes = sample.header().attachment();
                (!bytes.is_empty()).then_some(Cow::Borrowed(bytes))
            }
        }
    }

    /// For a lane sample, the sequence number of the last message its publisher also sent
    /// through zenoh (see the lane's `LaneHeader`).
    pub fn lane_zenoh_until(&self) -> Option<i64> {
        match &self.inner {
            Inner::Lane { sample, .. } => Some(sample.header().zenoh_until),
            Inner::Zenoh { .. } => None,
        }
    }

    /// The payload bytes this sample holds on the heap: 0 in shared memory (they are the
    /// publisher's), the payload's length otherwise.
    pub fn heap_bytes(&self) -> usize {
        if self.is_shm() { 0 } else { self.payload().len() }
    }

    /// The underlying zenoh sample; `None` for a lane sample.
    pub fn zenoh(&self) -> Option<&zenoh::sample::Sample> {
        match &self.inner {
            Inner::Zenoh { sample, .. } => Some(sample),
            Inner::Lane { .. } => None,
        }
    }
}

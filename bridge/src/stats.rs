//! What each route carried and what it dropped, with the reason. Each drop reason is logged once
//! per route (WARN, with what to do) and counted every time; the summary at the end prints the
//! counts.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Why a message was not bridged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum DropReason {
    /// The topic's `--max-frequency` cap: a message came sooner than the cap's period after the
    /// last one forwarded.
    MaxFrequency,
    /// The sample's encapsulation is not plain CDR (XCDR1): XCDR2 or parameter lists, which
    /// rmw_zenoh nodes cannot read.
    UnsupportedEncoding,
    /// Shorter than its 4-byte encapsulation header.
    TooShort,
    /// A type zshm knows, whose CDR does not decode as that type.
    MalformedCdr,
    /// Big-endian CDR from zenoh: the bridge's DDS writers write little-endian only.
    BigEndian,
    /// The queue towards a DDS writer was full (the DDS side does not keep up).
    QueueFull,
    /// zenoh or DDS refused to send it.
    SendFailed,
    /// A request across the bridge got no reply (the server did not answer in time, refused,
    /// or left).
    NoReply,
    /// A DDS sample the DDS stack handed over a second time (same writer, same sequence
    /// number, e.g. after a retransmission under load): forwarded once only.
    Duplicate,
    /// A DDS writer's sequence numbers jumped: the DDS stack never handed the samples in between
    /// to the bridge (they were lost on the way, or the writer had let them go when asked again).
    DdsGap,
    /// A sample RustDDS's topic cache kept from before a volatile route's reader existed: not
    /// for that route.
    Stale,
    /// A zenoh message for DDS while no DDS reader matched the bridge's writer.
    NoDdsReader,
    /// Written to DDS, but the reliable DDS readers had not acknowledged it when the route went:
    /// they may never have received it.
    Unacknowledged,
}

impl DropReason {
    /// The label for logs and summaries.
    pub fn label(self) -> &'static str {
        match self {
            DropReason::MaxFrequency => "max_frequency",
            DropReason::UnsupportedEncoding => "unsupported_encoding",
            DropReason::TooShort => "too_short",
            DropReason::MalformedCdr => "malformed_cdr",
            DropReason::BigEndian => "big_endian",
            DropReason::QueueFull => "queue_full",
            DropReason::SendFailed => "send_failed",
            DropReason::NoReply => "no_reply",
            DropReason::Duplicate => "duplicate",
            DropReason::DdsGap => "dds_gap",
            DropReason::Stale => "stale",
            DropReason::NoDdsReader => "no_dds_reader",
            DropReason::Unacknowledged => "unacknowledged",
        }
    }

    fn remedy(self) -> &'static str {
        match self {
            DropReason::MaxFrequency => "as configured with --max-frequency",
            DropReason::UnsupportedEncoding => {
                "publish XCDR1 (ROS 2's default; in Cyclone DDS set DataRepresentation XCDR1)"
            }
            DropReason::TooShort | DropReason::MalformedCdr => {
                "the publisher sends something else than the type it announces"
            }
            DropReason::BigEndian => "publish little-endian CDR",
            DropReason::QueueFull => "the DDS readers do not keep up; lower the rate or use best effort",
            DropReason::SendFailed => "see the error logged with it",
            DropReason::Duplicate => "nothing: the first copy was forwarded",
            DropReason::Stale => "nothing: a volatile route starts with what is written after it",
            DropReason::DdsGap => {
                "the DDS side lost them before the bridge got them: a best-effort or keep-last writer \
                 under load, or a writer that joined while the bridge's reader existed (docs/bridging.md)"
            }
            DropReason::NoDdsReader => {
                "nothing to do if the DDS subscription left; else check its QoS against the zenoh publisher's"
            }
            DropReason::Unacknowledged => {
                "the DDS readers could not be reached (check --dds-interface and the readers' locators in RUST_LOG=rustdds=warn)"
            }
            DropReason::NoReply => {
                "the server is slow, refused the request or left; the caller got its own timeout"
            }
        }
    }
}

/// A DDS feature an endpoint of a route uses that the bridge does not carry to the zenoh side.
/// Nothing is lost by it unless its explanation says so; each is logged once per route with the
/// endpoint that uses it, and the endpoints are counted in the route's last line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum NotCarried {
    /// A DDS reader's content filter (a ContentFilteredTopic).
    ContentFilter,
    /// Fast DDS data-sharing (zero-copy delivery between Fast DDS processes of one host).
    DataSharing,
}

impl NotCarried {
    /// The label for logs and summaries.
    pub fn label(self) -> &'static str {
        match self {
            NotCarried::ContentFilter => "content_filter",
            NotCarried::DataSharing => "data_sharing",
        }
    }

    fn explanation(self) -> &'static str {
        match self {
            NotCarried::ContentFilter => {
                "zenoh has no content filters: the bridge sends this reader every message of the \
                 topic, and its DDS stack drops those the filter refuses"
            }
            NotCarried::DataSharing => {
                "data-sharing works only between Fast DDS processes: Fast DDS sends the bridge \
                 copies over its transports instead (nothing is lost)"
            }
        }
    }
}

/// The counters of one route.
#[derive(Debug, Default)]
pub struct RouteStats {
    messages: AtomicU64,
    bytes: AtomicU64,
    drops: Mutex<BTreeMap<DropReason, u64>>,
    /// The DDS endpoints met, by the feature they use that is not carried (GUIDs).
    not_carried: Mutex<BTreeMap<NotCarried, BTreeSet<[u8; 16]>>>,
}

impl RouteStats {
    /// Counts one forwarded message of `bytes`.
    pub fn forwarded(&self, bytes: usize) {
        self.messages.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(bytes as u64, Ordering::Relaxed);
    }

    /// Counts a drop; logs the first of each reason for `route`.
    pub fn dropped(&self, route: &str, reason: DropReason, detail: &str) {
        self.dropped_many(route, reason, 1, detail);
    }

    /// Counts `n` drops of one cause (the samples a gap skipped); logs the first of each reason.
    pub fn dropped_many(&self, route: &str, reason: DropReason, n: u64, detail: &str) {
        let mut drops = self.drops.lock().unwrap_or_else(|e| e.into_inner());
        let count = drops.entry(reason).or_insert(0);
        let first = *count == 0;
        *count += n;
        if first {
            tracing::warn!(
                route,
                reason = reason.label(),
                "dropped a message ({detail}): {}; further drops of this reason are counted, not logged",
                reason.remedy()
            );
        }
    }

    /// Notes that the DDS endpoint `guid` of `route` uses `feature` (`detail` names it); logs the
    /// first endpoint of each feature.
    pub fn met(&self, route: &str, feature: NotCarried, guid: [u8; 16], detail: &str) {
        let mut met = self.not_carried.lock().unwrap_or_else(|e| e.into_inner());
        let endpoints = met.entry(feature).or_default();
        let first = endpoints.is_empty();
        if endpoints.insert(guid) && first {
            tracing::warn!(
                route,
                feature = feature.label(),
                "not carried: {detail}; {}; further endpoints with it are counted, not logged",
                feature.explanation()
            );
        }
    }

    /// The DDS endpoints met per feature not carried.
    pub fn not_carried(&self) -> BTreeMap<NotCarried, usize> {
        let met = self.not_carried.lock().unwrap_or_else(|e| e.into_inner());
        met.iter()
            .map(|(feature, guids)| (*feature, guids.len()))
            .collect()
    }

    /// Messages forwarded.
    pub fn messages(&self) -> u64 {
        self.messages.load(Ordering::Relaxed)
    }

    /// Payload bytes forwarded.
    pub fn bytes(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }

    /// Drops by reason.
    pub fn drops(&self) -> BTreeMap<DropReason, u64> {
        self.drops.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// `N messages, B bytes, drops: reason=N …` for the route's last line.
    pub fn summary(&self) -> String {
        let drops = self.drops();
        let mut text = format!("{} messages, {} bytes", self.messages(), self.bytes());
        if drops.is_empty() {
            text.push_str(", no drops");
        } else {
            text.push_str(", dropped");
            for (reason, count) in drops {
                text.push_str(&format!(" {}={count}", reason.label()));
            }
        }
        let not_carried = self.not_carried();
        if !not_carried.is_empty() {
            text.push_str(", not carried:");
            for (feature, endpoints) in not_carried {
                let noun = if endpoints == 1 { "endpoint" } else { "endpoints" };
                text.push_str(&format!(" {} ({endpoints} DDS {noun})", feature.label()));
            }
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_are_counted_per_reason() {
        let stats = RouteStats::default();
        stats.forwarded(10);
        stats.dropped("/t", DropReason::MaxFrequency, "x");
        stats.dropped("/t", DropReason::MaxFrequency, "x");
        stats.dropped("/t", DropReason::MalformedCdr, "y");
        assert_eq!(stats.drops()[&DropReason::MaxFrequency], 2);
        assert_eq!(
            stats.summary(),
            "1 messages, 10 bytes, dropped max_frequency=2 malformed_cdr=1"
        );
    }

    #[test]
    fn features_not_carried_are_counted_once_per_endpoint_after_the_drops() {
        let stats = RouteStats::default();
        stats.met("/t", NotCarried::ContentFilter, [1; 16], "reader 1");
        stats.met("/t", NotCarried::ContentFilter, [1; 16], "reader 1 again");
        stats.met("/t", NotCarried::ContentFilter, [2; 16], "reader 2");
        stats.met("/t", NotCarried::DataSharing, [2; 16], "reader 2");
        assert_eq!(
            stats.summary(),
            "0 messages, 0 bytes, no drops, not carried: content_filter (2 DDS endpoints) \
             data_sharing (1 DDS endpoint)"
        );
    }
}

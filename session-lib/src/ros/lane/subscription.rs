//! A subscription's lane ([`SubscriptionLane`]): it watches the liveliness tokens of its topic's
//! publishers and attaches to the lane of each one it may receive that way ([`super::pair`]).
//! A publisher whose lane does not exist here (another host, another user, rmw_zenoh, the lane
//! off) stays on zenoh; so does one in the subscription's own session, which zenoh serves in
//! process.

use std::sync::Arc;

use super::paths::Paths;
use super::{lane_id, pair, sender_profile, subscription_buffer, subscription_fits, tokens_of_topic};
use crate::lane::{LaneEvent, LaneReceiver, ReceiverProfile};
use crate::raw::RawSample;
use crate::ros::gid::Gid;
use crate::ros::graph::GraphWatch;
use crate::ros::liveliness::{self, EndpointInfo, EntityKind, Token};
use crate::session::Session;
use crate::stats::{LaneFallback, SessionStats};

/// The lane side of one subscription; stops when dropped. Its executor watches the receiver's
/// descriptors (`LaneReceiver::watch`) and calls [`SubscriptionLane::receiver`]`.process()` when
/// one fired.
pub(crate) struct SubscriptionLane {
    // Dropped first: no attach order arrives once the receiver goes.
    _tokens: GraphWatch,
    receiver: Arc<LaneReceiver>,
}

impl SubscriptionLane {
    /// The receiver the executor serves.
    pub(crate) fn receiver(&self) -> &LaneReceiver {
        &self.receiver
    }
}

impl std::fmt::Debug for SubscriptionLane {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SubscriptionLane").finish_non_exhaustive()
    }
}

/// Whether a subscription with this QoS on this session may use the lane at all (when not,
/// the reason is counted and logged once).
pub(crate) fn wanted(session: &Session, info: &EndpointInfo) -> bool {
    if !session.lane_status().is_on() {
        return false;
    }
    match subscription_fits(&info.qos) {
        Ok(()) => true,
        Err(reason) => {
            fallback(session.stats(), reason, &info.topic, "");
            false
        }
    }
}

/// Starts the lane of the subscription `info` on the data key `key`, delivering into `paths`.
/// `None` when the lane is off (the reason is in `Session::lane_status`) or cannot start.
pub(crate) async fn start<S: Send + 'static>(
    session: &Session,
    info: &EndpointInfo,
    key: &str,
    paths: Arc<Paths<S>>,
) -> Option<SubscriptionLane> {
    let opener = session.clone();
    let ctx = tokio::task::spawn_blocking(move || opener.lane())
        .await
        .ok()?
        .ok()?;
    let own_gid = Gid::of_token(&liveliness::endpoint_token(info));
    let profile = ReceiverProfile {
        port_name: own_gid.to_string(),
        buffer: subscription_buffer(&info.qos),
    };
    let (key, topic, stats) = (Arc::<str>::from(key), info.topic.clone(), session.stats().clone());
    let from_lane = paths.clone();
    let receiver = LaneReceiver::new(ctx, profile, move |event| match event {
        LaneEvent::Sample(sample) => from_lane.lane(RawSample::from_lane(sample, key.clone())),
        LaneEvent::Attached { id, result } => match (result, gid_of(&id)) {
            (Ok(()), Some(gid)) => {
                tracing::debug!(topic, publisher = id, "lane: attached");
                from_lane.attached(gid);
            }
            (Ok(()), None) => {}
            (Err(failure), _) => fallback(&stats, failure.reason, &topic, &failure.error),
        },
    });
    let receiver = match receiver {
        Ok(receiver) => Arc::new(receiver),
        Err(err) => {
            tracing::warn!(
                topic = info.topic,
                "lane: cannot set up the receiver, staying on zenoh: {err}"
            );
            return None;
        }
    };
    let watch = tokens_of_topic(
        info.node.domain,
        EntityKind::Publisher,
        &info.topic,
        &info.type_name,
        &info.type_hash,
    );
    let (attacher, own_zid, qos) = (receiver.clone(), session.zid(), info.qos);
    let (stats, topic) = (session.stats().clone(), info.topic.clone());
    let tokens = GraphWatch::with_callback(session, watch, move |token| {
        let key = token.token.as_str();
        let Ok(Token::Endpoint(publisher)) = liveliness::parse_token(key) else {
            return;
        };
        if publisher.node.zid == own_zid {
            return; // zenoh delivers within the session, in process
        }
        let gid = Gid::of_token(key);
        if token.alive {
            match pair(&publisher.qos, &qos) {
                Ok(history) => attacher.attach(&lane_id(gid), history, sender_profile(&publisher.qos)),
                Err(reason) => fallback(&stats, reason, &topic, ""),
            }
        } else {
            attacher.detach(&lane_id(gid));
            paths.gone(gid);
        }
    })
    .await;
    match tokens {
        Ok(tokens) => Some(SubscriptionLane {
            _tokens: tokens,
            receiver,
        }),
        Err(err) => {
            tracing::warn!(
                topic = info.topic,
                "lane: cannot watch the publishers' tokens: {err}"
            );
            None
        }
    }
}

/// The GID a lane id names (its 32 hex digits).
fn gid_of(id: &str) -> Option<Gid> {
    let mut gid = [0u8; 16];
    for (i, byte) in gid.iter_mut().enumerate() {
        *byte = u8::from_str_radix(id.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    (id.len() == 32).then_some(Gid(gid))
}

/// Counts a pair that stays on zenoh; the first of each reason is logged (at INFO for foreign
/// publishers, which is normal, else at WARN).
fn fallback(stats: &SessionStats, reason: LaneFallback, topic: &str, error: &str) {
    if !stats.lane().fallback(reason) {
        return;
    }
    let detail = if error.is_empty() {
        String::new()
    } else {
        format!(" ({error})")
    };
    if reason == LaneFallback::PeerNotOnLane {
        tracing::info!(
            topic,
            reason = reason.label(),
            "lane: a publisher is received through zenoh: {}{detail} (counted; not logged again)",
            reason.explain()
        );
    } else {
        tracing::warn!(
            topic,
            reason = reason.label(),
            "lane: received through zenoh instead: {}{detail} (counted; not logged again)",
            reason.explain()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_ids_name_their_gid() {
        let gid = Gid([0xab; 16]);
        assert_eq!(gid_of(&lane_id(gid)), Some(gid));
        assert_eq!(gid_of("abc"), None);
        assert_eq!(gid_of(&"zz".repeat(16)), None);
    }
}

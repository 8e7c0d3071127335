//! The typed layer's part of the same-host lane ([`crate::lane`]): which publishers a
//! subscription receives through the lane, when a publisher may skip zenoh, and how a
//! subscription merges what reaches it through both paths.
//!
//! Sending, one home: `publisher.rs`: a publisher creates its lane, watches the tokens of its
//! topic's subscriptions and zenoh's own list of subscribers, and skips zenoh while every one of
//! them is served by its lane (the per-message choice itself is the raw layer's `LaneRoute`).
//!
//! Receiving, in the order a sample flows: `subscription.rs`: a subscription watches the tokens
//! of its topic's publishers and attaches to the lane of each one it may receive that way
//! ([`pair`]); `paths.rs` and `merge.rs`: both paths meet, one delivery per message and
//! publisher, in sequence order, whichever path it came through (switching paths loses nothing
//! and repeats nothing); then the subscription's bounded queue (`ros/delivery.rs`) and its
//! executor.
//!
//! A publisher's lane is named after its GID, which every sample carries and every token
//! yields, so both sides name it without asking each other.

pub(crate) mod merge;
pub(crate) mod paths;
pub(crate) mod publisher;
pub(crate) mod subscription;

use super::gid::Gid;
use super::liveliness::EntityKind;
use super::qos::{Durability, History, QosProfile};
use crate::lane::{MAX_HISTORY, SUBSCRIBER_MAX_BUFFER, SenderProfile};
use crate::stats::LaneFallback;

/// The lane id of the publisher with this GID.
pub fn lane_id(gid: Gid) -> String {
    gid.to_string()
}

/// What a subscription with this QoS needs from the lane at all: a KEEP_LAST queue the lane
/// can hold.
pub fn subscription_fits(subscription: &QosProfile) -> Result<(), LaneFallback> {
    match subscription.history {
        History::KeepLast(_) if subscription.depth() as usize > SUBSCRIBER_MAX_BUFFER => {
            Err(LaneFallback::DepthAboveLimit)
        }
        _ => Ok(()),
    }
}

/// Whether a subscription may receive a publisher through the lane; `Ok` gives how many past
/// messages (TRANSIENT_LOCAL history) it asks for, as zenoh would give it: the smaller depth.
pub fn pair(publisher: &QosProfile, subscription: &QosProfile) -> Result<usize, LaneFallback> {
    subscription_fits(subscription)?;
    // A blocking publisher waits for full lane subscribers; one that would not wait over zenoh
    // (a KEEP_LAST or BEST_EFFORT subscription) must not slow it down through the lane.
    if publisher.blocks_when_congested() && !subscription.blocks_when_congested() {
        return Err(LaneFallback::QosMismatch);
    }
    let transient = |qos: &QosProfile| qos.durability == Durability::TransientLocal;
    let history = if transient(publisher) && transient(subscription) {
        publisher.depth().min(subscription.depth()) as usize
    } else {
        0
    };
    if history > MAX_HISTORY {
        return Err(LaneFallback::HistoryAboveLimit);
    }
    Ok(history)
}

/// The lane a publisher with this QoS creates.
pub fn sender_profile(publisher: &QosProfile) -> SenderProfile {
    SenderProfile {
        history: match publisher.durability {
            Durability::TransientLocal => (publisher.depth() as usize).min(MAX_HISTORY),
            Durability::Volatile => 0,
        },
        blocking: publisher.blocks_when_congested(),
    }
}

/// The lane queue of a subscription: always the lane's deepest. It is only a transit queue: the
/// executor thread that wakes up for it empties it at once into the subscription's own queue,
/// which applies the QoS depth and counts what it drops ([`crate::ros::delivery`]); a lane
/// queue of `depth` would overwrite messages silently whenever the publisher outran the
/// executor.
pub fn subscription_buffer(_subscription: &QosProfile) -> usize {
    SUBSCRIBER_MAX_BUFFER
}

/// The key expression of the liveliness tokens of `kind` endpoints of one topic (any node, any
/// QoS), as `liveliness::endpoint_token` writes them.
pub(crate) fn tokens_of_topic(
    domain: u32,
    kind: EntityKind,
    topic: &str,
    type_name: &str,
    type_hash: &str,
) -> String {
    super::liveliness::endpoints_key(domain, kind, topic, type_name, Some(type_hash))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_late_joiner_gets_the_smaller_history_and_a_volatile_one_none() {
        let latched = QosProfile::keep_last(1).durability(Durability::TransientLocal);
        assert_eq!(
            pair(
                &latched,
                &QosProfile::keep_last(10).durability(Durability::TransientLocal)
            ),
            Ok(1)
        );
        assert_eq!(pair(&latched, &QosProfile::keep_last(10)), Ok(0));
    }
    use crate::ros::qos::Reliability;

    fn keep_all_reliable() -> QosProfile {
        QosProfile {
            history: History::KeepAll,
            ..QosProfile::default()
        }
    }

    #[test]
    fn pairs_follow_the_table_of_the_module() {
        let default = QosProfile::default();
        assert_eq!(pair(&default, &default), Ok(0));
        assert_eq!(pair(&default, &QosProfile::sensor_data()), Ok(0));
        assert_eq!(pair(&default, &keep_all_reliable()), Ok(0));
        assert_eq!(
            pair(&default, &QosProfile::keep_last(17)),
            Err(LaneFallback::DepthAboveLimit)
        );
        assert_eq!(pair(&keep_all_reliable(), &keep_all_reliable()), Ok(0));
        assert_eq!(
            pair(&keep_all_reliable(), &default),
            Err(LaneFallback::QosMismatch)
        );
        let best_effort_all = keep_all_reliable().reliability(Reliability::BestEffort);
        assert_eq!(
            pair(&best_effort_all, &default),
            Ok(0),
            "a BEST_EFFORT publisher never waits"
        );
        let tl = |depth| QosProfile::keep_last(depth).durability(Durability::TransientLocal);
        assert_eq!(pair(&tl(5), &tl(10)), Ok(5));
        assert_eq!(pair(&tl(16), &tl(16)), Ok(16));
        assert_eq!(
            pair(
                &tl(40),
                &keep_all_reliable().durability(Durability::TransientLocal)
            ),
            Err(LaneFallback::HistoryAboveLimit)
        );
    }

    #[test]
    fn publishers_keep_at_most_the_lane_history() {
        let tl = QosProfile::keep_last(100).durability(Durability::TransientLocal);
        assert_eq!(sender_profile(&tl).history, MAX_HISTORY);
        assert_eq!(sender_profile(&QosProfile::default()).history, 0);
        assert!(sender_profile(&keep_all_reliable()).blocking);
    }

    #[test]
    fn the_topic_tokens_key_matches_real_tokens() {
        use zenoh::key_expr::KeyExpr;
        let token = "@ros2_lv/0/8b20917502ee955ac4476e0266340d5c/0/7/MP/%/%/camera_driver/%camera%points/sensor_msgs::msg::dds_::PointCloud2_/RIHS01_9198/2::,5:,:,:,,";
        let key = tokens_of_topic(
            0,
            EntityKind::Publisher,
            "/camera/points",
            "sensor_msgs::msg::dds_::PointCloud2_",
            "RIHS01_9198",
        );
        let key = KeyExpr::try_from(key).unwrap();
        assert!(key.intersects(&KeyExpr::try_from(token).unwrap()));
        let rolling = KeyExpr::try_from(format!("{token}/backends:cpu:")).unwrap();
        assert!(key.intersects(&rolling));
        let other = token.replace("%camera%points", "%camera%image");
        assert!(!key.intersects(&KeyExpr::try_from(other).unwrap()));
        let subscription = token.replace("/MP/", "/MS/");
        assert!(!key.intersects(&KeyExpr::try_from(subscription).unwrap()));
    }
}

//! A publisher's lane ([`PublisherLane`]): it creates the lane, then keeps deciding whether
//! messages must also go through zenoh ([`LaneRoute`]).
//!
//! zenoh must carry a message while it routes to any subscriber the lane does not serve. The
//! publisher knows two lists: the liveliness tokens of its topic's ROS subscriptions (each names
//! its session and its GID) and its lane's subscribers (named by GID). A third comes from zenoh
//! itself: the sessions it routes this key to, read from the publisher's own admin space, which
//! also shows subscribers without a token (a plain zenoh subscriber, a bridge). zenoh is skipped
//! only when every ROS subscription is a lane subscriber and every session zenoh routes to is one
//! whose ROS subscriptions explain its subscriber. Anything else, or any doubt, keeps zenoh:
//!
//! * a new ROS subscription is seen with its token, at once;
//! * a subscriber without a token is seen at the next look at the admin space, every
//!   [`RECHECK`] while zenoh is skipped;
//! * a TRANSIENT_LOCAL publisher always uses zenoh too, so that zenoh's cache answers late
//!   rmw_zenoh joiners, and always its lane, which keeps the history; it connects new lane
//!   subscribers at once to hand them that history.
//!
//! Limit: a process that has a lane subscription of the topic and also a subscriber of the same
//! key that is not a ROS subscription (a raw zenoh one) is taken as served by the lane.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use zenoh::query::ConsolidationMode;
use zenoh::sample::SampleKind;

use super::{lane_id, sender_profile, tokens_of_topic};
use crate::lane::LaneSender;
use crate::raw::{LaneRoute, RawPublisher};
use crate::ros::gid::Gid;
use crate::ros::liveliness::{self, EndpointInfo, EntityKind, Token};
use crate::ros::qos::Durability;
use crate::session::Session;
use crate::stats::LaneFallback;

/// How often a publisher that skips zenoh looks again at zenoh's subscribers.
pub const RECHECK: Duration = Duration::from_millis(250);

/// How often a TRANSIENT_LOCAL publisher looks for new lane subscribers to hand its history to.
const HISTORY_CHECK: Duration = Duration::from_millis(20);

/// How often dead processes' ports are removed at the latest.
const CLEANUP: Duration = Duration::from_secs(1);

/// How long a look at the admin space may take.
const ADMIN_TIMEOUT: Duration = Duration::from_secs(1);

/// The lane side of one publisher; stops deciding when dropped (the route then keeps zenoh).
#[derive(Debug)]
pub(crate) struct PublisherLane {
    watcher: tokio::task::JoinHandle<()>,
}

impl Drop for PublisherLane {
    fn drop(&mut self) {
        self.watcher.abort();
    }
}

/// Creates the lane of the publisher `info` (GID `gid`) publishing `raw` on `key`. `None` when
/// the lane is off (the reason is in `Session::lane_status`) or cannot be created (counted).
pub(crate) async fn start(
    session: &Session,
    info: &EndpointInfo,
    gid: Gid,
    key: &str,
    raw: &mut RawPublisher,
) -> Option<PublisherLane> {
    if !session.lane_status().is_on() {
        return None;
    }
    let opener = session.clone();
    let ctx = tokio::task::spawn_blocking(move || opener.lane())
        .await
        .ok()?
        .ok()?;
    let (id, profile) = (lane_id(gid), sender_profile(&info.qos));
    let sender = tokio::task::spawn_blocking(move || LaneSender::create(ctx, &id, profile))
        .await
        .ok()?;
    let sender = match sender {
        Ok(sender) => Arc::new(sender),
        Err(err) => {
            if session.stats().lane().fallback(LaneFallback::OpenFailed) {
                tracing::warn!(topic = info.topic, "lane: publishing through zenoh only: {err}");
            }
            return None;
        }
    };
    let route = Arc::new(LaneRoute::new(sender, profile.history > 0));
    raw.set_lane(route.clone());
    let watcher = Watcher {
        session: session.clone(),
        route,
        key: key.to_owned(),
        own_zid: session.zid(),
        transient: info.qos.durability == Durability::TransientLocal,
        subscriptions: HashMap::new(),
    };
    let tokens = tokens_of_topic(
        info.node.domain,
        EntityKind::Subscription,
        &info.topic,
        &info.type_name,
        &info.type_hash,
    );
    Some(PublisherLane {
        watcher: tokio::spawn(watcher.run(tokens)),
    })
}

/// One ROS subscription of the topic, from its token.
struct Subscription {
    zid: String,
    gid: Gid,
}

struct Watcher {
    session: Session,
    route: Arc<LaneRoute>,
    key: String,
    own_zid: String,
    transient: bool,
    subscriptions: HashMap<String, Subscription>,
}

impl Watcher {
    async fn run(mut self, tokens: String) {
        let (tx, events) = flume::unbounded();
        let declared = self
            .session
            .zenoh()
            .liveliness()
            .declare_subscriber(tokens)
            .history(true)
            .callback(move |token| {
                let _ = tx.send((token.kind(), token.key_expr().as_str().to_owned()));
            })
            .await;
        let _tokens = match declared {
            Ok(subscriber) => subscriber,
            Err(err) => {
                tracing::warn!(
                    key = self.key,
                    "lane: cannot watch the subscriptions' tokens, zenoh stays on: {err}"
                );
                return;
            }
        };
        let mut connected = 0;
        let mut cleaned = Instant::now();
        loop {
            let sender = self.route.sender().clone();
            let period = if self.transient {
                HISTORY_CHECK
            } else if self.route.skips_zenoh() {
                RECHECK
            } else {
                CLEANUP
            };
            let mut someone_left = false;
            tokio::select! {
                event = events.recv_async() => match event {
                    Ok(event) => someone_left |= self.apply(event),
                    Err(_) => return,
                },
                _ = self.route.changed() => {}
                _ = tokio::time::sleep(period) => {}
            }
            while let Ok(event) = events.try_recv() {
                someone_left |= self.apply(event);
            }
            if someone_left || cleaned.elapsed() >= CLEANUP {
                // A killed subscriber stays a lane subscriber until this; KEEP_ALL would wait for it.
                let cleaner = sender.clone();
                let _ = tokio::task::spawn_blocking(move || cleaner.cleanup_dead_nodes()).await;
                cleaned = Instant::now();
            }
            let count = sender.subscriber_count();
            if self.transient && count > connected {
                sender.connect_new_subscribers();
            }
            connected = count;
            let needed = self.zenoh_needed(&sender).await;
            if needed == self.route.skips_zenoh() {
                tracing::debug!(
                    key = self.key,
                    lane_subscribers = count,
                    "lane: {}",
                    if needed {
                        "publishing through zenoh too"
                    } else {
                        "every subscriber is on the lane: zenoh skipped"
                    }
                );
            }
            self.route.set(needed, count);
        }
    }

    /// Takes one token event; true when a subscription left.
    fn apply(&mut self, (kind, token): (SampleKind, String)) -> bool {
        match kind {
            SampleKind::Put => {
                if let Ok(Token::Endpoint(endpoint)) = liveliness::parse_token(&token) {
                    let gid = Gid::of_token(&token);
                    let zid = endpoint.node.zid;
                    self.subscriptions.insert(token, Subscription { zid, gid });
                }
                false
            }
            SampleKind::Delete => self.subscriptions.remove(&token).is_some(),
        }
    }

    /// Whether zenoh routes this key to anyone the lane does not serve (see the module docs).
    async fn zenoh_needed(&self, sender: &LaneSender) -> bool {
        if self.transient || !self.session.admin_space_readable() {
            return true;
        }
        let lane: HashSet<String> = sender.subscriber_names().into_iter().collect();
        if self
            .subscriptions
            .values()
            .any(|s| !lane.contains(&lane_id(s.gid)))
        {
            return true;
        }
        let Some(sessions) = self.zenoh_subscribers().await else {
            return true;
        };
        sessions
            .iter()
            .any(|zid| *zid == self.own_zid || !self.subscriptions.values().any(|s| s.zid == *zid))
    }

    /// The sessions zenoh routes this key to, from this session's admin space; `None` when the
    /// admin space did not answer as expected.
    async fn zenoh_subscribers(&self) -> Option<HashSet<String>> {
        let selector = format!("@/{}/*/subscriber/{}", self.own_zid, self.key);
        let replies = self
            .session
            .zenoh()
            .get(selector)
            .consolidation(ConsolidationMode::None)
            .timeout(ADMIN_TIMEOUT)
            .await
            .ok()?;
        let mut sessions = HashSet::new();
        while let Ok(reply) = replies.recv_async().await {
            let sample = reply.into_result().ok()?;
            let sources: Sources = serde_json::from_slice(&sample.payload().to_bytes()).ok()?;
            sessions.extend(
                sources
                    .routers
                    .into_iter()
                    .chain(sources.peers)
                    .chain(sources.clients),
            );
        }
        Some(sessions)
    }
}

/// zenoh's admin-space description of who declared a subscriber (`zenoh/src/net/routing`).
#[derive(serde::Deserialize)]
struct Sources {
    #[serde(default)]
    routers: Vec<String>,
    #[serde(default)]
    peers: Vec<String>,
    #[serde(default)]
    clients: Vec<String>,
}

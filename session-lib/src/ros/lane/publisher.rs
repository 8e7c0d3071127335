//! A publisher's lane ([`PublisherLane`]): it creates the lane, then keeps deciding whether
//! messages must also go through zenoh ([`LaneRoute`]).
//!
//! zenoh must carry a message while it routes to any subscriber the lane does not serve. The
//! publisher knows two lists: the liveliness tokens of its topic's ROS subscriptions (each names
//! its session and its GID) and its lane's subscribers (named by GID). zenoh is skipped only when
//! every ROS subscription is a lane subscriber. Anything else keeps zenoh:
//!
//! * a new ROS subscription is seen with its token, at once: its token's callback forces zenoh
//!   on before anything else, and an evaluation that began before it cannot turn zenoh off
//!   ([`LaneRoute::set`]). A subscription that zenoh already routes to (its declaration comes
//!   just before its token) could otherwise get a message through zenoh, while zenoh was on for
//!   another joiner, and miss the next, sent through the lane alone before the publisher knew
//!   it. Limit: the window between the subscription's declaration and its token remains (the
//!   token comes right after the declaration, before the subscription's lane starts). Measured
//!   with nine subscribers joining a stream 20 ms apart (BENCHMARKS.md, "A lane sized to its
//!   subscribers"): a gap after a subscriber's first message in 2 runs of 8 before, 0 of 15
//!   after on an idle machine, 2 of 8 after with three busy loops beside it;
//! * a TRANSIENT_LOCAL publisher always uses zenoh too, so that zenoh's cache answers late
//!   rmw_zenoh joiners, and always its lane, which keeps the history; it connects new lane
//!   subscribers at once to hand them that history.
//!
//! A zenoh subscriber that is not a ROS subscription announces itself with an observer token
//! ([`liveliness::observer_token`]: the status page's rate meter does); zenoh is kept while one
//! exists. Limit: one without any token (`z_sub`, a storage) is not seen, so it gets the topic
//! only while some ROS subscription or observer needs zenoh. Every subscriber zshm makes
//! (nodes, the bridge, `bag record`, `foxglove`, the status page) has one of the two. zenoh
//! lists subscribers in its admin space, and zshm used to read it every [`RECHECK`]; but zenoh
//! 1.10.2 replies to those queries while holding its routing tables' read lock and takes it again
//! to send each reply, so a declaration arriving in between wedges the session's routing for good
//! (eclipse-zenoh/zenoh#2619). It did, in CI.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use super::{lane_id, sender_profile, tokens_of_topic};
use crate::lane::LaneSender;
use crate::raw::{LaneRoute, RawPublisher};
use crate::ros::gid::Gid;
use crate::ros::graph::{GraphEvent, GraphWatch};
use crate::ros::liveliness::{self, EndpointInfo, EntityKind, Token};
use crate::ros::qos::Durability;
use crate::session::Session;
use crate::stats::LaneFallback;

/// How often a publisher that skips zenoh checks its lane subscribers again (a subscriber that
/// died without its token going yet).
pub const RECHECK: Duration = Duration::from_millis(250);

/// How often a TRANSIENT_LOCAL publisher looks for new lane subscribers to hand its history to.
const HISTORY_CHECK: Duration = Duration::from_millis(20);

/// How often a publisher that sends through zenoh looks at its lane subscribers again (one that
/// attached gives no event).
const POLL: Duration = Duration::from_secs(1);

/// How often a publisher with no subscriber at all looks again. Nothing it decides can change
/// then without a token event, which wakes it at once: a subscriber announces itself with its
/// token, and a lane subscriber without one is only one whose token went, which the count of
/// lane subscribers still shows (then [`RECHECK`] or [`POLL`] applies). Most publishers of a
/// node are such (`/parameter_events`, `/rosout`), and a wake-up of each every [`RECHECK`] was
/// most of an idle lane node's own timers. As long as the process's dead-node cleanup backstop
/// (`lane::context`), which the look also runs.
const IDLE: Duration = Duration::from_secs(30);

/// The next instant, after now, that is a whole number of `period`s after the process's first
/// look. Every lane publisher of a process then looks at the same instants, and one wake-up of
/// tokio's worker serves them all: each on its own schedule, the 20 publishers of a node at
/// T = 200 woke it 80 times a second.
fn aligned(period: Duration) -> tokio::time::Instant {
    static EPOCH: OnceLock<tokio::time::Instant> = OnceLock::new();
    let epoch = *EPOCH.get_or_init(tokio::time::Instant::now);
    let period_ns = period.as_nanos().max(1);
    let periods = (epoch.elapsed().as_nanos() / period_ns) + 1;
    u64::try_from(periods * period_ns)
        .ok()
        .and_then(|since| epoch.checked_add(Duration::from_nanos(since)))
        .unwrap_or_else(|| tokio::time::Instant::now() + period)
}

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
        transient: info.qos.durability == Durability::TransientLocal,
        subscriptions: HashMap::new(),
        observers: HashSet::new(),
        domain: info.node.domain,
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

struct Watcher {
    session: Session,
    route: Arc<LaneRoute>,
    key: String,
    transient: bool,
    /// The topic's ROS subscriptions: their tokens and GIDs.
    subscriptions: HashMap<String, Gid>,
    /// The domain's observer tokens.
    observers: HashSet<String>,
    domain: u32,
}

impl Watcher {
    async fn run(mut self, tokens: String) {
        let (tx, events) = flume::unbounded::<GraphEvent>();
        let session = &self.session;
        let watch = |key: String| {
            let (tx, route) = (tx.clone(), self.route.clone());
            GraphWatch::with_callback(session, key, move |event| {
                // Queued first, forced after: an evaluation that the force does not make stale
                // (it began after it) finds the token in the queue.
                let _ = tx.send(event.clone());
                if event.alive {
                    // On zenoh's receiving thread, as the token arrives (right behind the
                    // subscription's own declaration): zenoh carries every message from here
                    // until an evaluation that knows the token (below).
                    route.force_zenoh();
                }
            })
        };
        let declared = match watch(tokens).await {
            Ok(subscriptions) => watch(liveliness::observer_tokens(self.domain))
                .await
                .map(|observers| (subscriptions, observers)),
            Err(err) => Err(err),
        };
        drop(tx);
        let _tokens = match declared {
            Ok(subscribers) => subscribers,
            Err(err) => {
                tracing::warn!(
                    key = self.key,
                    "lane: cannot watch the subscriptions' tokens, zenoh stays on: {err}"
                );
                return;
            }
        };
        // The lane subscribers at the last look; none before the first.
        let mut connected = None;
        loop {
            let sender = self.route.sender().clone();
            let period = if self.transient {
                HISTORY_CHECK
            } else if self.subscriptions.is_empty() && self.observers.is_empty() && connected == Some(0) {
                IDLE
            } else if self.route.skips_zenoh() {
                RECHECK
            } else {
                POLL
            };
            let mut someone_left = false;
            tokio::select! {
                event = events.recv_async() => match event {
                    Ok(event) => someone_left |= self.apply(event),
                    Err(_) => return,
                },
                _ = self.route.changed() => {}
                _ = tokio::time::sleep_until(aligned(period)) => {}
            }
            let begun = self.route.epoch();
            while let Ok(event) = events.try_recv() {
                someone_left |= self.apply(event);
            }
            if someone_left {
                sender.subscriber_left();
            }
            if someone_left || sender.cleanup_due() {
                // A killed subscriber stays a lane subscriber until this; KEEP_ALL would wait for it.
                // Run here rather than on tokio's blocking pool: it takes well under a millisecond
                // (it tries each dead node's lock, never waits for one), and a blocking thread
                // started for it every second would be one more thread in every lane node.
                sender.cleanup_dead_nodes();
            }
            // While someone is not on the lane, or the lane is full: a subscriber that found it
            // full may wait in a larger generation it created, and subscribers may be left in a
            // smaller one (`lane::generation`).
            if !self.route.skips_zenoh() || sender.is_full() {
                if sender.grow_if_asked() {
                    connected = Some(0);
                }
                sender.wake_lower_generations();
            }
            let count = sender.subscriber_count();
            if self.transient && count > connected.unwrap_or(0) {
                sender.connect_new_subscribers();
            }
            connected = Some(count);
            let needed = self.zenoh_needed(&sender);
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
            self.route.set(begun, needed, count);
        }
    }

    /// Takes one token event; true when a subscription left.
    fn apply(&mut self, GraphEvent { token, alive }: GraphEvent) -> bool {
        if token.starts_with(liveliness::OBSERVER_PREFIX) {
            if alive {
                self.observers.insert(token);
            } else {
                self.observers.remove(&token);
            }
            return false;
        }
        if !alive {
            return self.subscriptions.remove(&token).is_some();
        }
        if let Ok(Token::Endpoint(_)) = liveliness::parse_token(&token) {
            let gid = Gid::of_token(&token);
            self.subscriptions.insert(token, gid);
        }
        false
    }

    /// Whether zenoh must carry the messages: a ROS subscription that is not a lane subscriber
    /// (see the module docs).
    fn zenoh_needed(&self, sender: &LaneSender) -> bool {
        if self.transient || !self.observers.is_empty() {
            return true;
        }
        let lane: HashSet<String> = sender.subscriber_names().into_iter().collect();
        self.subscriptions
            .values()
            .any(|gid| !lane.contains(&lane_id(*gid)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn publishers_look_at_the_same_instants_within_one_period() {
        for period in [HISTORY_CHECK, RECHECK, POLL, IDLE] {
            let before = tokio::time::Instant::now();
            let (first, second) = (aligned(period), aligned(period));
            let after = tokio::time::Instant::now();
            assert!(first > before && first <= after + period, "{period:?}");
            // Two publishers looking within the same period wait for the same instant.
            assert!(second == first || second == first + period, "{period:?}");
        }
    }
}

//! [`Bridge`]: discovery on both sides and the routes between them.
//!
//! The bridge keeps no state machine of its own: at each [`Bridge::reconcile`] it lists what each
//! side has (DDS endpoints of other participants from RustDDS's discovery, rmw_zenoh endpoints
//! of other sessions from their liveliness tokens), works out which routes should exist (a topic
//! and type with a publisher on one side and a subscription on the other, or a service and type
//! with a server on one side and a client on the other, allowed by the filters), and creates or
//! removes routes to match. So a route exists only while both sides
//! have a matching endpoint, and every restart on either side converges.
//!
//! No loops: the bridge's own DDS endpoints share its participant's GUID prefix and its own
//! tokens carry its zid, so neither counts as "the other side"; and a message the bridge wrote
//! on one side is not read back into the other ([`crate::route`]). With several bridges on one
//! DDS domain and zenoh network, only the oldest bridges and no bridge takes another's endpoints
//! for real ones ([`crate::peers`]).
//!
//! Each look runs one way: `watch` takes both sides' snapshot, [`crate::peers`] elects which
//! bridge bridges, `plan` works out the routes that should exist (pure functions), and
//! `build` creates the missing ones; `ledger` keeps what every route carried.

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use zshm::Session;
use zshm::internal::session::report::RouteSource;
use zshm::ros::{Node, NodeError, NodeOptions};

use crate::config::BridgeConfig;
use crate::dds::{Dds, DdsError, DdsQos};
use crate::peers::{self, Announcement, Election, RoleChange};

mod build;
mod ledger;
mod plan;
mod watch;

use build::{Builder, Route};
use ledger::Ledger;
use plan::{Context, Holds, NODE_NAME_GRACE, RouteKey};
pub use plan::{Direction, RouteInfo};
use watch::Watch;

/// Why the bridge could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BridgeError {
    /// The DDS participant could not be created.
    #[error(transparent)]
    Dds(#[from] DdsError),
    /// The bridge's node could not be declared on zenoh.
    #[error(transparent)]
    Node(#[from] NodeError),
    /// zenoh refused the graph subscription.
    #[error("cannot subscribe to the ROS graph's liveliness tokens")]
    Graph(#[source] zenoh::Error),
    /// zenoh refused the token that tells other bridges about this one.
    #[error("cannot declare the bridge's own liveliness token")]
    Announce(#[source] zenoh::Error),
}

/// A route appearing or disappearing.
#[derive(Debug, Clone)]
pub enum RouteEvent {
    /// The route now exists.
    Up(RouteInfo),
    /// The route is gone, with what it carried (`N messages, B bytes, dropped …`).
    Down(RouteInfo, String),
    /// A DDS or zenoh endpoint the bridge will not bridge, with the reason (said once per
    /// topic and reason).
    Skipped {
        /// The topic as that side names it.
        topic: String,
        /// Why.
        reason: String,
    },
    /// This bridge stands by: an older zshm bridge sees the same DDS domain and zenoh network
    /// and bridges them (two bridges would duplicate every message and loop); this one takes
    /// over when that one goes. Its routes, if it had any, went down just before.
    Standby {
        /// The zid of the bridge that bridges.
        active: String,
    },
    /// This bridge bridges again: the bridge it stood by for went.
    TakingOver {
        /// The zid of the bridge that went.
        after: String,
    },
}

/// The bridge: one DDS participant, one zenoh node, the routes.
pub struct Bridge {
    config: BridgeConfig,
    /// Declared first so dropped first: each route's endpoints go before the nodes they
    /// belong to.
    routes: BTreeMap<RouteKey, Route>,
    watch: Watch,
    election: Election,
    holds: Holds,
    builder: Builder,
    started: Instant,
    /// What was said once already (topic, reason).
    said: HashSet<(String, String)>,
    /// The routes that could not be created: retried only after they went away and came back.
    failed: HashSet<RouteKey>,
    ledger: Arc<Mutex<Ledger>>,
    /// Held: the session reports the routes through it while it lives.
    _route_source: Arc<RouteSource>,
    _announcement: zenoh::liveliness::LivelinessToken,
    _marker: crate::dds::RawWriter,
}

impl Bridge {
    /// Joins the DDS domain and the zenoh network of `session`.
    pub async fn start(session: &Session, config: BridgeConfig) -> Result<Self, BridgeError> {
        let domain = u16::try_from(config.domain).unwrap_or(u16::MAX);
        let dds = Arc::new(Dds::join(domain, &config.interfaces)?);
        let node = Node::new(
            session,
            &config.node_name,
            NodeOptions {
                domain: Some(config.domain),
                ..NodeOptions::default()
            },
        )
        .await?;
        let watch = Watch::start(session, dds.clone(), config.domain).await?;
        let marker = dds.writer(
            peers::DDS_MARKER_TOPIC,
            peers::DDS_MARKER_TYPE,
            DdsQos {
                reliable: true,
                transient_local: false,
                depth: Some(1),
            },
        )?;
        let me = Announcement {
            started: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |since| since.as_nanos()),
            zid: session.zid().to_string(),
            participant: peers::hex(dds.guid().prefix.as_ref()),
        };
        let announcement = session
            .zenoh()
            .liveliness()
            .declare_token(me.token(config.domain))
            .await
            .map_err(BridgeError::Announce)?;
        tracing::info!(guid = ?dds.guid(), zid = %session.zid(), "bridge started");
        let builder = Builder::new(session, config.domain, node, dds)?;
        let ledger: Arc<Mutex<Ledger>> = Arc::default();
        let reported = ledger.clone();
        let route_source: Arc<RouteSource> =
            Arc::new(move || reported.lock().unwrap_or_else(|e| e.into_inner()).reports());
        session.report_routes(&route_source);
        Ok(Self {
            config,
            routes: BTreeMap::new(),
            watch,
            election: Election::new(me),
            holds: Holds::default(),
            builder,
            started: Instant::now(),
            said: HashSet::new(),
            failed: HashSet::new(),
            ledger,
            _route_source: route_source,
            _announcement: announcement,
            _marker: marker,
        })
    }

    /// Waits until the zenoh graph changed, or DDS discovery is due for another look.
    pub async fn changed(&self) {
        self.watch.changed().await;
    }

    /// The routes that exist now.
    pub fn routes(&self) -> Vec<RouteInfo> {
        self.routes.values().map(|r| r.info.clone()).collect()
    }

    /// Creates and removes routes to match both sides now; returns what changed.
    pub async fn reconcile(&mut self) -> Vec<RouteEvent> {
        let mut events = Vec::new();
        let now = Instant::now();
        let mut said = Vec::new();
        let sides = self.watch.look(now, &mut said);
        // Other bridges show on DDS by writing the marker topic.
        let on_dds = sides
            .dds_writers
            .iter()
            .filter(|w| w.topic == peers::DDS_MARKER_TOPIC)
            .map(|w| w.participant.clone())
            .collect();
        let (twins, change) = self
            .election
            .elect(&self.watch.bridges(), on_dds, self.started.elapsed());
        match change {
            Some(RoleChange::Standby(active)) => events.push(RouteEvent::Standby { active }),
            Some(RoleChange::TakingOver(after)) => events.push(RouteEvent::TakingOver { after }),
            None => {}
        }
        let active = self.election.is_active();
        let wanted = if active {
            let election = &self.election;
            let sides = sides.without_twins(&twins, |p| election.is_twin_participant(p));
            let routes = &self.routes;
            let watch = &self.watch;
            let plan = plan::plan(
                &sides,
                &Context {
                    config: &self.config,
                    dds_nodes: watch.dds_nodes(),
                    now,
                    first_seen: &|guid| watch.writer_first_seen(guid),
                    running: &|key| routes.contains_key(key),
                },
            );
            said.extend(plan.skipped);
            plan.routes
        } else {
            BTreeMap::new()
        };
        for (topic, reason) in said {
            if self.said.insert((topic.clone(), reason.clone())) {
                events.push(RouteEvent::Skipped { topic, reason });
            }
        }
        // A new participant's writers may have matched a held route's reader already, before
        // RustDDS lists them (they follow its discovery by up to a second): held routes wait
        // for discovery to settle.
        let discovery_settling = self
            .watch
            .participant_discovered()
            .is_some_and(|at| now.duration_since(at) < NODE_NAME_GRACE);
        for key in self
            .holds
            .expired(self.routes.keys(), &wanted, active, discovery_settling, now)
        {
            if let Some(route) = self.routes.remove(&key) {
                events.push(RouteEvent::Down(route.info.clone(), route.stats.summary()));
                self.ledger.lock().unwrap_or_else(|e| e.into_inner()).retire(&key);
            }
        }
        self.failed.retain(|key| wanted.contains_key(key));
        for (key, want) in wanted {
            if let Some(route) = self.routes.get(&key) {
                route.note_not_carried(&want.dds_endpoints);
                continue;
            }
            if self.failed.contains(&key) {
                continue;
            }
            match self.builder.create(&want).await {
                Ok(route) => {
                    events.push(RouteEvent::Up(want.info.clone()));
                    route.note_not_carried(&want.dds_endpoints);
                    self.ledger
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .open(key.clone(), route.stats.clone());
                    self.routes.insert(key, route);
                }
                Err(err) => {
                    // Once per route: it is retried only after it went away and came back.
                    tracing::error!(route = %want.info, "cannot create the route: {err}");
                    self.failed.insert(key);
                }
            }
        }
        let gid_size = self.watch.dds_nodes().gid_size();
        self.builder.announce_nodes(self.routes.values(), gid_size);
        events
    }

    /// Removes every route (so every reader, writer, publisher, subscription and token the
    /// bridge declared), and returns what each carried.
    pub async fn shutdown(mut self) -> Vec<RouteEvent> {
        let routes = std::mem::take(&mut self.routes);
        let events = routes
            .into_values()
            .map(|route| RouteEvent::Down(route.info.clone(), route.stats.summary()))
            .collect();
        // Let the aborted tasks drop their readers and publishers before the node goes.
        tokio::task::yield_now().await;
        events
    }
}

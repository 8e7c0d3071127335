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

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use zshm::Session;
use zshm::dynamic::MessageType;
use zshm::ros::dynamic::DynamicType;
use zshm::ros::{Node, NodeError, NodeOptions};
use zshm::session::report::{RouteReport, RouteSource};
use zshm_protocol::gid::Gid;
use zshm_protocol::keyexpr::ros_type_name;
use zshm_protocol::liveliness::{self, EndpointInfo, EntityKind, Token};
use zshm_protocol::qos::{Durability, History, QosProfile, Reliability};

use crate::config::{BridgeConfig, Kind};
use crate::dds::{Dds, DdsError, DdsQos, RemoteEndpoint};
use crate::names::{self, TypeHashSource};
use crate::peers::{self, Announcement, Role};
use crate::ros_graph::{self, DdsNodes, NodeName};
use crate::route::{self, Checks, DdsToZenoh, OwnGids, ZenohToDds};
use crate::service::framing::Framing;
use crate::service::{Counters, DdsToZenohServer, ZenohToDdsServer};
use crate::stats::RouteStats;

/// How long a new DDS writer's route waits for its participant's `ros_discovery_info` (its
/// node's name) before it is bridged under the `zshm_bridge` node: rmw_cyclonedds_cpp and
/// rmw_fastrtps_cpp announce a node when it is created, so this only delays DDS writers that
/// are not ROS nodes' (or whose RMW announces nothing).
const NODE_NAME_GRACE: Duration = Duration::from_secs(2);
/// How long a topic route outlives the last endpoint it served on either side. A DDS writer
/// that starts while an old writer of its topic is leaving matches the route's reader before
/// RustDDS's discovery lists the new writer: removing the route at that moment took the reader
/// from under the new writer, which lost what it wrote until the route came back (28 of 45
/// clouds in `tools/bench_bridge.py`). Held this long, the route is still there when the new
/// writer (or a new zenoh endpoint) shows up, and simply goes on.
const ROUTE_HOLD: Duration = Duration::from_secs(3);
/// How often DDS discovery is looked at (RustDDS keeps it; the bridge polls its snapshot).
const DDS_POLL: Duration = Duration::from_millis(200);

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

/// Which way a route carries messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    /// A DDS publisher to rmw_zenoh subscriptions.
    DdsToZenoh,
    /// An rmw_zenoh publisher to DDS subscriptions.
    ZenohToDds,
    /// rmw_zenoh clients to a DDS service server.
    ToDdsServer,
    /// DDS clients to an rmw_zenoh service server.
    ToZenohServer,
}

impl Direction {
    /// The label of the direction in metrics (`direction="dds_to_zenoh"`).
    pub fn label(self) -> &'static str {
        match self {
            Direction::DdsToZenoh => "dds_to_zenoh",
            Direction::ZenohToDds => "zenoh_to_dds",
            Direction::ToDdsServer => "to_dds_server",
            Direction::ToZenohServer => "to_zenoh_server",
        }
    }

    /// Whether the route carries a service (requests and replies) rather than a topic.
    pub fn is_service(self) -> bool {
        matches!(self, Direction::ToDdsServer | Direction::ToZenohServer)
    }
}

impl std::fmt::Display for Direction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Direction::DdsToZenoh => "DDS -> zenoh",
            Direction::ZenohToDds => "zenoh -> DDS",
            Direction::ToDdsServer => "zenoh clients -> DDS server",
            Direction::ToZenohServer => "DDS clients -> zenoh server",
        })
    }
}

/// What a route bridges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteInfo {
    /// Which way.
    pub direction: Direction,
    /// The ROS topic or service, fully qualified.
    pub topic: String,
    /// The DDS type name (`pkg::msg::dds_::Type_`; a service's `pkg::srv::dds_::Type_`).
    pub dds_type: String,
    /// The type hash in the zenoh key expression.
    pub type_hash: String,
    /// Where the hash came from.
    pub hash_source: TypeHashSource,
    /// Reliable on the publishing side.
    pub reliable: bool,
    /// Transient local on the publishing side.
    pub transient_local: bool,
    /// A service route's framing on DDS, as its DDS endpoints' RMW frames requests and replies.
    pub framing: Option<Framing>,
}

impl std::fmt::Display for RouteInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} [{}] {} ({}, {}; type hash from {}",
            self.topic,
            ros_type_name(&self.dds_type),
            self.direction,
            if self.reliable { "reliable" } else { "best effort" },
            if self.transient_local {
                "transient local"
            } else {
                "volatile"
            },
            self.hash_source.label()
        )?;
        if let Some(framing) = self.framing {
            write!(f, "; {}", framing.label())?;
        }
        f.write_str(")")
    }
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

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct RouteKey {
    direction: Direction,
    topic: String,
    dds_type: String,
}

/// What keeps a route running; it is only held, and dropping it removes the route's endpoints.
#[allow(dead_code)] // held for its `Drop`, never read
enum Running {
    Publications(DdsToZenoh),
    Subscriptions(Box<ZenohToDds>),
    DdsServer(Box<ZenohToDdsServer>),
    ZenohServer(DdsToZenohServer),
}

struct Route {
    info: RouteInfo,
    stats: Arc<RouteStats>,
    /// The zenoh node and the GUID of the bridge's DDS reader (`false`) or writer (`true`) that
    /// stands for it, for `ros_discovery_info`.
    announced: Option<(NodeName, [u8; 16], bool)>,
    _running: Running,
    /// The DDS node the route's zenoh endpoints belong to, when `ros_discovery_info` named it
    /// (dropped after them: its token goes last).
    _node: Option<Arc<Node>>,
}

/// What every route carried since the bridge started, for the exporter's series (counters that
/// only grow: a route that goes and comes back adds to its old counts).
#[derive(Default)]
struct Ledger {
    live: BTreeMap<RouteKey, Arc<RouteStats>>,
    retired: BTreeMap<RouteKey, RouteReport>,
}

impl Ledger {
    fn retire(&mut self, key: &RouteKey) {
        let Some(stats) = self.live.remove(key) else {
            return;
        };
        let entry = self
            .retired
            .entry(key.clone())
            .or_insert_with(|| empty_report(key));
        add_counts(entry, &stats);
    }

    /// One report per topic and direction (two types on one topic share their series).
    fn reports(&self) -> Vec<RouteReport> {
        let mut all: BTreeMap<(String, Direction), RouteReport> = BTreeMap::new();
        for (key, retired) in &self.retired {
            let entry = all
                .entry((key.topic.clone(), key.direction))
                .or_insert_with(|| empty_report(key));
            entry.messages += retired.messages;
            entry.bytes += retired.bytes;
            for (reason, count) in &retired.drops {
                *entry.drops.entry(reason.clone()).or_insert(0) += count;
            }
        }
        for (key, stats) in &self.live {
            let entry = all
                .entry((key.topic.clone(), key.direction))
                .or_insert_with(|| empty_report(key));
            add_counts(entry, stats);
            entry.up = true;
        }
        all.into_values().collect()
    }
}

/// How a route is named in its log lines.
fn route_name(info: &RouteInfo) -> String {
    format!("{} {}", info.topic, info.direction)
}

/// Counts (and logs the first of) each DDS feature the route's DDS endpoints use that the bridge
/// does not carry.
fn note_not_carried(route: &Route, endpoints: &[RemoteEndpoint]) {
    let name = route_name(&route.info);
    for endpoint in endpoints {
        for (feature, detail) in endpoint.not_carried() {
            route.stats.met(&name, feature, endpoint.guid, &detail);
        }
    }
}

fn empty_report(key: &RouteKey) -> RouteReport {
    RouteReport {
        topic: key.topic.clone(),
        direction: key.direction.label().to_owned(),
        up: false,
        messages: 0,
        bytes: 0,
        drops: BTreeMap::new(),
    }
}

fn add_counts(report: &mut RouteReport, stats: &RouteStats) {
    report.messages += stats.messages();
    report.bytes += stats.bytes();
    for (reason, count) in stats.drops() {
        *report.drops.entry(reason.label().to_owned()).or_insert(0) += count;
    }
}

/// The spec of a route that should exist.
struct Wanted {
    info: RouteInfo,
    zenoh_qos: QosProfile,
    dds_qos: DdsQos,
    /// The DDS node of the route's DDS publisher, from `ros_discovery_info`.
    dds_node: Option<NodeName>,
    /// The zenoh node of the route's zenoh endpoint, announced on `ros_discovery_info` for the
    /// bridge's DDS reader or writer.
    zenoh_node: Option<NodeName>,
    /// The DDS endpoints on the route's DDS side (a topic's writers or readers), for what they
    /// use that the bridge does not carry.
    dds_endpoints: Vec<RemoteEndpoint>,
}

/// The bridge: one DDS participant, one zenoh node, the routes.
pub struct Bridge {
    config: BridgeConfig,
    session: Session,
    node: Node,
    dds: Arc<Dds>,
    tokens: Arc<Mutex<BTreeSet<String>>>,
    changed: Arc<tokio::sync::Notify>,
    _graph: zenoh::pubsub::Subscriber<()>,
    routes: BTreeMap<RouteKey, Route>,
    own_gids: OwnGids,
    said: HashSet<(String, String)>,
    failed: HashSet<RouteKey>,
    /// The running topic routes nothing wants any more, and since when ([`ROUTE_HOLD`]).
    unwanted_since: HashMap<RouteKey, Instant>,
    /// When DDS discovery last reported a new participant.
    participant_discovered: Option<Instant>,
    /// This bridge as other bridges see it, and since when it runs.
    me: Announcement,
    started: Instant,
    /// The tokens of every bridge on this domain (this one's included).
    bridges: Arc<Mutex<BTreeSet<String>>>,
    role: Role,
    /// The DDS participants seen writing the bridges' marker topic, kept while DDS or zenoh
    /// still shows them: RustDDS's snapshot of remote writers can miss an entry for a moment,
    /// and a bridge that went leaves its endpoints in DDS discovery until its lease ends.
    bridges_on_dds: BTreeSet<String>,
    /// Those of them that were twins (on zenoh too), kept as long: their endpoints are never
    /// taken for real ones. A bridge seen on DDS only bridges another zenoh network, and what
    /// it writes on DDS is as real to this one as any DDS node's.
    twin_participants: BTreeSet<String>,
    ledger: Arc<Mutex<Ledger>>,
    /// Per topic, what its volatile DDS → zenoh routes forwarded, kept across their lifetimes
    /// (a transient-local route's new reader gets the history again on purpose, for the new
    /// zenoh publisher's cache).
    forwarded: HashMap<String, route::Forwarded>,
    /// The DDS writers and readers discovered, each held a moment after it drops out.
    dds_writers: crate::dds::Lingering,
    dds_readers: crate::dds::Lingering,
    /// `ros_discovery_info`: the DDS nodes, and the zenoh nodes declared for them.
    discovery_info: crate::dds::RawReader,
    /// This participant's own `ros_discovery_info`: the zenoh nodes behind its DDS endpoints.
    discovery_writer: crate::dds::RawWriter,
    announced_nodes: Vec<u8>,
    dds_nodes: DdsNodes,
    named_nodes: BTreeMap<NodeName, std::sync::Weak<Node>>,
    /// Held: the session reports the routes through it while it lives.
    _route_source: Arc<RouteSource>,
    _bridges: zenoh::pubsub::Subscriber<()>,
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
        let tokens: Arc<Mutex<BTreeSet<String>>> = Arc::default();
        let changed = Arc::new(tokio::sync::Notify::new());
        let (seen, notify) = (tokens.clone(), changed.clone());
        let graph = session
            .zenoh()
            .liveliness()
            .declare_subscriber(format!("{}/{}/**", liveliness::PREFIX, config.domain))
            .history(true)
            .callback(move |sample| {
                let key = sample.key_expr().as_str().to_owned();
                let mut seen = seen.lock().unwrap_or_else(|e| e.into_inner());
                match sample.kind() {
                    zenoh::sample::SampleKind::Put => seen.insert(key),
                    zenoh::sample::SampleKind::Delete => seen.remove(&key),
                };
                notify.notify_one();
            })
            .await
            .map_err(BridgeError::Graph)?;
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
        let bridges: Arc<Mutex<BTreeSet<String>>> = Arc::default();
        let (seen, notify) = (bridges.clone(), changed.clone());
        let bridges_subscriber = session
            .zenoh()
            .liveliness()
            .declare_subscriber(peers::tokens_of(config.domain))
            .history(true)
            .callback(move |sample| {
                let key = sample.key_expr().as_str().to_owned();
                let mut seen = seen.lock().unwrap_or_else(|e| e.into_inner());
                match sample.kind() {
                    zenoh::sample::SampleKind::Put => seen.insert(key),
                    zenoh::sample::SampleKind::Delete => seen.remove(&key),
                };
                notify.notify_one();
            })
            .await
            .map_err(BridgeError::Graph)?;
        let announcement = session
            .zenoh()
            .liveliness()
            .declare_token(me.token(config.domain))
            .await
            .map_err(BridgeError::Announce)?;
        let discovery_info = dds.reader(
            ros_graph::TOPIC,
            ros_graph::TYPE,
            DdsQos {
                reliable: true,
                transient_local: true,
                depth: None,
            },
        )?;
        let discovery_writer = dds.writer(
            ros_graph::TOPIC,
            ros_graph::TYPE,
            DdsQos {
                reliable: true,
                transient_local: true,
                depth: Some(1),
            },
        )?;
        let ledger: Arc<Mutex<Ledger>> = Arc::default();
        let reported = ledger.clone();
        let route_source: Arc<RouteSource> =
            Arc::new(move || reported.lock().unwrap_or_else(|e| e.into_inner()).reports());
        session.report_routes(&route_source);
        tracing::info!(guid = ?dds.guid(), zid = %session.zid(), "bridge started");
        Ok(Self {
            config,
            session: session.clone(),
            node,
            dds,
            tokens,
            changed,
            _graph: graph,
            routes: BTreeMap::new(),
            own_gids: OwnGids::default(),
            said: HashSet::new(),
            failed: HashSet::new(),
            unwanted_since: HashMap::new(),
            participant_discovered: None,
            me,
            started: Instant::now(),
            bridges,
            role: Role::Active,
            bridges_on_dds: BTreeSet::new(),
            twin_participants: BTreeSet::new(),
            ledger,
            forwarded: HashMap::new(),
            dds_writers: crate::dds::Lingering::default(),
            dds_readers: crate::dds::Lingering::default(),
            discovery_info,
            discovery_writer,
            announced_nodes: Vec::new(),
            dds_nodes: DdsNodes::default(),
            named_nodes: BTreeMap::new(),
            _route_source: route_source,
            _bridges: bridges_subscriber,
            _announcement: announcement,
            _marker: marker,
        })
    }

    /// Waits until the zenoh graph changed, or DDS discovery is due for another look.
    pub async fn changed(&self) {
        tokio::select! {
            _ = self.changed.notified() => {}
            _ = tokio::time::sleep(DDS_POLL) => {}
        }
    }

    /// The routes that exist now.
    pub fn routes(&self) -> Vec<RouteInfo> {
        self.routes.values().map(|r| r.info.clone()).collect()
    }

    /// Creates and removes routes to match both sides now; returns what changed.
    pub async fn reconcile(&mut self) -> Vec<RouteEvent> {
        let mut events = Vec::new();
        let wanted = self.wanted(&mut events);
        // A standby bridge gives its routes up at once: the active one carries them now, and
        // both carrying them would deliver every message twice.
        let active = matches!(self.role, Role::Active);
        let now = Instant::now();
        if self.dds.participants_discovered() {
            self.participant_discovered = Some(now);
        }
        // A new participant's writers may have matched a held route's reader already, before
        // RustDDS lists them (they follow its discovery by up to a second): removing the reader
        // then would take it from under them. Held routes wait for discovery to settle.
        let discovery_settling = self
            .participant_discovered
            .is_some_and(|at| now.duration_since(at) < NODE_NAME_GRACE);
        self.unwanted_since.retain(|key, _| !wanted.contains_key(key));
        let mut gone = Vec::new();
        for (key, route) in &self.routes {
            if wanted.contains_key(key) {
                continue;
            }
            let since = *self.unwanted_since.entry(key.clone()).or_insert(now);
            let held = active
                && !route.info.direction.is_service()
                && (now.duration_since(since) < ROUTE_HOLD || discovery_settling);
            if !held {
                gone.push(key.clone());
            }
        }
        for key in gone {
            self.unwanted_since.remove(&key);
            if let Some(route) = self.routes.remove(&key) {
                let summary = route.stats.summary();
                events.push(RouteEvent::Down(route.info.clone(), summary));
                self.ledger.lock().unwrap_or_else(|e| e.into_inner()).retire(&key);
            }
        }
        self.failed.retain(|key| wanted.contains_key(key));
        for (key, want) in wanted {
            if let Some(route) = self.routes.get(&key) {
                note_not_carried(route, &want.dds_endpoints);
                continue;
            }
            if self.failed.contains(&key) {
                continue;
            }
            match self.create(&want).await {
                Ok(route) => {
                    events.push(RouteEvent::Up(want.info.clone()));
                    note_not_carried(&route, &want.dds_endpoints);
                    self.ledger
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .live
                        .insert(key.clone(), route.stats.clone());
                    self.routes.insert(key, route);
                }
                Err(err) => {
                    // Once per route: it is retried only after it went away and came back.
                    tracing::error!(route = %want.info, "cannot create the route: {err}");
                    self.failed.insert(key);
                }
            }
        }
        self.announce_nodes();
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

    fn say_once(&mut self, events: &mut Vec<RouteEvent>, topic: &str, reason: String) {
        if self.said.insert((topic.to_owned(), reason.clone())) {
            events.push(RouteEvent::Skipped {
                topic: topic.to_owned(),
                reason,
            });
        }
    }

    /// The ROS topic of a DDS endpoint, if it is one the bridge may bridge.
    fn ros_endpoint(
        &mut self,
        endpoint: &RemoteEndpoint,
        kind: Kind,
        events: &mut Vec<RouteEvent>,
    ) -> Option<String> {
        let Some(topic) = names::ros_topic(&endpoint.topic) else {
            if !endpoint.topic.starts_with("DCPS")
                && endpoint.topic != "ros_discovery_info"
                && endpoint.topic != peers::DDS_MARKER_TOPIC
                && names::ros_service(&endpoint.topic).is_none()
            {
                self.say_once(
                    events,
                    &endpoint.topic,
                    "not a ROS topic (no rt/ prefix), not bridged".into(),
                );
            }
            return None;
        };
        if endpoint.keyed {
            self.say_once(
                events,
                &topic,
                "keyed topic (its type has key members; ROS 2 topics never do): DDS matches it only \
                 with keyed endpoints and the bridge's are unkeyed, so it is not bridged"
                    .into(),
            );
            return None;
        }
        if !names::is_ros_message_type(&endpoint.type_name) {
            let reason = format!(
                "type `{}` is not a ROS message type, not bridged",
                endpoint.type_name
            );
            self.say_once(events, &endpoint.topic, reason);
            return None;
        }
        if !self.config.allows(kind, &topic) {
            self.say_once(events, &topic, format!("denied by the {} filters", kind.label()));
            return None;
        }
        Some(topic)
    }

    fn zenoh_endpoints(&self, twins: &[Announcement]) -> Vec<EndpointInfo> {
        let own = self.session.zid();
        let tokens = self.tokens.lock().unwrap_or_else(|e| e.into_inner()).clone();
        tokens
            .iter()
            .filter_map(|token| match liveliness::parse_token(token) {
                Ok(Token::Endpoint(endpoint)) => Some(endpoint),
                _ => None,
            })
            .filter(|e| e.node.zid != own && e.node.domain == self.config.domain)
            .filter(|e| !twins.iter().any(|twin| twin.zid == e.node.zid))
            .collect()
    }

    /// Whether this bridge bridges, or stands by for an older one (see [`crate::peers`]); the
    /// twins, whose endpoints are never taken for real ones.
    fn elect(
        &mut self,
        dds_writers: &[RemoteEndpoint],
        events: &mut Vec<RouteEvent>,
    ) -> (bool, Vec<Announcement>) {
        let others: Vec<Announcement> = self
            .bridges
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .filter_map(|token| Announcement::parse(token))
            .filter(|other| *other != self.me)
            .collect();
        let on_dds: BTreeSet<String> = dds_writers
            .iter()
            .filter(|w| w.topic == peers::DDS_MARKER_TOPIC)
            .map(|w| w.participant.clone())
            .collect();
        self.bridges_on_dds
            .retain(|p| on_dds.contains(p) || others.iter().any(|o| o.participant == *p));
        self.bridges_on_dds.extend(on_dds);
        let (role, twins) = peers::role(&self.me, &others, &self.bridges_on_dds, self.started.elapsed());
        let on_dds = &self.bridges_on_dds;
        self.twin_participants.retain(|p| on_dds.contains(p));
        self.twin_participants
            .extend(twins.iter().map(|twin| twin.participant.clone()));
        if role != self.role {
            tracing::info!(from = ?self.role, to = ?role, "bridge role");
            match (&self.role, &role) {
                (_, Role::Standby { active }) => events.push(RouteEvent::Standby {
                    active: active.zid.clone(),
                }),
                (Role::Standby { active }, Role::Active) => events.push(RouteEvent::TakingOver {
                    after: active.zid.clone(),
                }),
                (_, Role::Waiting) => tracing::info!(
                    "an older zshm bridge is on zenoh: waiting up to {:?} to see whether it is on this DDS network too",
                    peers::DDS_GRACE
                ),
                _ => {}
            }
            self.role = role;
        }
        (self.role == Role::Active, twins)
    }

    /// Writes this participant's `ros_discovery_info` when what it stands for changed: each
    /// zenoh node whose endpoints the bridge carries, with the GUIDs of the bridge's DDS readers
    /// and writers for them, so that DDS tools (`ros2 node list` on rmw_cyclonedds_cpp) see
    /// the rmw_zenoh nodes rather than anonymous endpoints.
    fn announce_nodes(&mut self) {
        type Endpoints = (Vec<[u8; 16]>, Vec<[u8; 16]>);
        let mut nodes: BTreeMap<NodeName, Endpoints> = BTreeMap::new();
        for (node, guid, is_writer) in self.routes.values().filter_map(|r| r.announced.as_ref()) {
            let (readers, writers) = nodes.entry(node.clone()).or_default();
            if *is_writer {
                writers.push(*guid);
            } else {
                readers.push(*guid);
            }
        }
        let nodes: Vec<ros_graph::AnnouncedNode> = nodes
            .into_iter()
            .map(|(node, (readers, writers))| (node, readers, writers))
            .collect();
        let body = ros_graph::encode(self.dds.guid().to_bytes(), &nodes, self.dds_nodes.gid_size());
        if body == self.announced_nodes {
            return;
        }
        let sample = crate::dds::RawCdr {
            encoding: rustdds::RepresentationIdentifier::CDR_LE,
            body: body.clone().into(),
        };
        match self.discovery_writer.write(sample, None) {
            Ok(()) => self.announced_nodes = body,
            Err(err) => tracing::warn!("cannot write ros_discovery_info (retried at the next change): {err}"),
        }
    }

    /// Takes the `ros_discovery_info` samples that arrived since the last look.
    fn read_discovery_info(&mut self, events: &mut Vec<RouteEvent>) {
        loop {
            let sample = match self.discovery_info.take_next_sample() {
                Ok(Some(sample)) => sample,
                Ok(None) => break,
                Err(err) => {
                    tracing::debug!("ros_discovery_info: {err}");
                    break;
                }
            };
            if self.dds.is_own(sample.sample_info().writer_guid()) {
                continue;
            }
            let raw = sample.into_value();
            let little_endian = raw.encoding == rustdds::RepresentationIdentifier::CDR_LE;
            match ros_graph::parse(&raw.body, little_endian) {
                Some(info) => self.dds_nodes.update(info),
                None => self.say_once(
                    events,
                    ros_graph::TOPIC,
                    "a sample that is not a ParticipantEntitiesInfo, ignored (its DDS nodes show as zshm_bridge)".into(),
                ),
            }
        }
    }

    /// The zenoh node that stands for DDS node `name`: one per name, while a route uses it.
    async fn node_for(&mut self, name: &NodeName) -> Result<Arc<Node>, String> {
        if let Some(node) = self.named_nodes.get(name).and_then(std::sync::Weak::upgrade) {
            return Ok(node);
        }
        let options = NodeOptions {
            namespace: name.namespace.clone(),
            domain: Some(self.config.domain),
            executor: Some(self.node.executor().clone()),
            // The DDS node answers for its own parameters and types, on DDS.
            start_type_description_service: false,
            start_parameter_services: false,
            start_parameter_event_publisher: false,
            ..NodeOptions::default()
        };
        let node = Arc::new(
            Node::new(&self.session, &name.name, options)
                .await
                .map_err(|e| format!("cannot declare node {}/{}: {e}", name.namespace, name.name))?,
        );
        self.named_nodes.retain(|_, weak| weak.strong_count() > 0);
        self.named_nodes.insert(name.clone(), Arc::downgrade(&node));
        Ok(node)
    }

    fn wanted(&mut self, events: &mut Vec<RouteEvent>) -> BTreeMap<RouteKey, Wanted> {
        self.read_discovery_info(events);
        let now = Instant::now();
        let mut dds_writers = self.dds_writers.update(self.dds.remote_writers(), now);
        let mut dds_readers = self.dds_readers.update(self.dds.remote_readers(), now);
        let mut wanted = BTreeMap::new();
        let (active, twins) = self.elect(&dds_writers, events);
        if !active {
            return wanted;
        }
        let of_twin = |e: &RemoteEndpoint| self.twin_participants.contains(&e.participant);
        dds_writers.retain(|e| !of_twin(e));
        dds_readers.retain(|e| !of_twin(e));
        let zenoh = self.zenoh_endpoints(&twins);
        self.wanted_services(&zenoh, &dds_writers, &dds_readers, events, &mut wanted);
        // DDS publishers → zenoh subscriptions.
        let mut writers: BTreeMap<(String, String), Vec<RemoteEndpoint>> = BTreeMap::new();
        for writer in dds_writers {
            if let Some(topic) = self.ros_endpoint(&writer, Kind::Publisher, events) {
                writers
                    .entry((topic, writer.type_name.clone()))
                    .or_default()
                    .push(writer);
            }
        }
        for ((topic, dds_type), writers) in writers {
            let Some(subscription) = zenoh
                .iter()
                .find(|e| e.kind == EntityKind::Subscription && e.topic == topic && e.type_name == dds_type)
            else {
                continue;
            };
            // A ROS node's RMW announces it on ros_discovery_info, which can reach the bridge a
            // moment after its writers: wait for it (a little while), so that the route's
            // publisher is declared under the node's own name rather than renamed later.
            let running = self.routes.contains_key(&RouteKey {
                direction: Direction::DdsToZenoh,
                topic: topic.clone(),
                dds_type: dds_type.clone(),
            });
            let unnamed_yet = !running
                && writers.iter().any(|w| {
                    !self.dds_nodes.knows_participant(&w.guid)
                        && self
                            .dds_writers
                            .first_seen(&w.guid)
                            .is_some_and(|seen| now.duration_since(seen) < NODE_NAME_GRACE)
                });
            if unnamed_yet {
                continue;
            }
            // The reader takes the weakest promise of the writers, so that it matches them all.
            let reliable = writers.iter().all(|w| w.reliable);
            let transient_local = writers.iter().all(|w| w.transient_local);
            let (type_hash, hash_source) =
                names::resolve_type_hash(&dds_type, &writers[0].user_data, Some(&subscription.type_hash));
            let zenoh_qos = QosProfile {
                reliability: if reliable {
                    Reliability::Reliable
                } else {
                    Reliability::BestEffort
                },
                durability: if transient_local {
                    Durability::TransientLocal
                } else {
                    Durability::Volatile
                },
                // DDS discovery carries no history: UNKNOWN, as ROS 2 itself reports a DDS
                // endpoint (the graph shows it so). A reliable writer's messages are not dropped
                // by the bridge either: zenoh blocks for RELIABLE + UNKNOWN as for KEEP_ALL.
                history: History::Unknown,
                ..QosProfile::keep_last(10)
            };
            let info = RouteInfo {
                direction: Direction::DdsToZenoh,
                topic: topic.clone(),
                dds_type: dds_type.clone(),
                type_hash,
                hash_source,
                reliable,
                transient_local,
                framing: None,
            };
            let dds_qos = DdsQos {
                reliable,
                transient_local,
                depth: if reliable { None } else { Some(10) },
            };
            let dds_node = writers
                .iter()
                .find_map(|w| self.dds_nodes.node_of(&w.guid))
                .cloned();
            let key = RouteKey {
                direction: Direction::DdsToZenoh,
                topic,
                dds_type,
            };
            wanted.insert(
                key,
                Wanted {
                    info,
                    zenoh_qos,
                    dds_qos,
                    dds_node,
                    zenoh_node: Some(NodeName {
                        namespace: subscription.node.namespace.clone(),
                        name: subscription.node.name.clone(),
                    }),
                    dds_endpoints: writers,
                },
            );
        }
        // zenoh publishers → DDS subscriptions.
        let mut readers: BTreeMap<(String, String), Vec<RemoteEndpoint>> = BTreeMap::new();
        for reader in dds_readers {
            if let Some(topic) = self.ros_endpoint(&reader, Kind::Subscriber, events) {
                readers
                    .entry((topic, reader.type_name.clone()))
                    .or_default()
                    .push(reader);
            }
        }
        for ((topic, dds_type), readers) in readers {
            let Some(publisher) = zenoh
                .iter()
                .find(|e| e.kind == EntityKind::Publisher && e.topic == topic && e.type_name == dds_type)
            else {
                continue;
            };
            let qos = publisher.qos;
            let transient_local = qos.durability == Durability::TransientLocal;
            let info = RouteInfo {
                direction: Direction::ZenohToDds,
                topic: topic.clone(),
                dds_type: dds_type.clone(),
                type_hash: publisher.type_hash.clone(),
                hash_source: TypeHashSource::Zenoh,
                reliable: qos.reliability == Reliability::Reliable,
                transient_local,
                framing: None,
            };
            // The writer is reliable whatever the zenoh publisher is: a reliable writer serves
            // reliable and best-effort readers alike (zenoh-bridge-ros2dds does the same, #23).
            let dds_qos = DdsQos {
                reliable: true,
                transient_local,
                depth: match qos.history {
                    History::KeepAll | History::Unknown => None,
                    History::KeepLast(_) => Some(qos.depth()),
                },
            };
            let key = RouteKey {
                direction: Direction::ZenohToDds,
                topic,
                dds_type,
            };
            wanted.insert(
                key,
                Wanted {
                    info,
                    zenoh_qos: qos,
                    dds_qos,
                    dds_node: None,
                    zenoh_node: Some(NodeName {
                        namespace: publisher.node.namespace.clone(),
                        name: publisher.node.name.clone(),
                    }),
                    dds_endpoints: readers,
                },
            );
        }
        wanted
    }

    /// The service routes: a DDS server (a reader of `rq/<name>Request` and a writer of
    /// `rr/<name>Reply` with the service's request and response types) and an rmw_zenoh client
    /// of the same service and type, or the reverse. The zenoh side's token gives the hash.
    fn wanted_services(
        &mut self,
        zenoh: &[EndpointInfo],
        dds_writers: &[RemoteEndpoint],
        dds_readers: &[RemoteEndpoint],
        events: &mut Vec<RouteEvent>,
        wanted: &mut BTreeMap<RouteKey, Wanted>,
    ) {
        use names::ServiceHalf::{Reply, Request};
        let halves = |endpoints: &[RemoteEndpoint]| -> BTreeSet<(String, String, names::ServiceHalf)> {
            endpoints
                .iter()
                .filter_map(|e| {
                    let (service, topic_half) = names::ros_service(&e.topic)?;
                    let (ty, type_half) = names::service_type(&e.type_name)?;
                    (topic_half == type_half).then_some((service, ty, topic_half))
                })
                .collect()
        };
        let (written, read) = (halves(dds_writers), halves(dds_readers));
        let all_reliable = |service: &str, endpoints: &[RemoteEndpoint]| {
            let (requests, replies) = names::dds_service_topics(service);
            endpoints
                .iter()
                .filter(|e| e.topic == requests || e.topic == replies)
                .all(|e| e.reliable)
        };
        for (direction, kind, zenoh_kind) in [
            (
                Direction::ToDdsServer,
                Kind::ServiceServer,
                EntityKind::ServiceClient,
            ),
            (
                Direction::ToZenohServer,
                Kind::ServiceClient,
                EntityKind::ServiceServer,
            ),
        ] {
            // A DDS server reads requests and writes replies; a DDS client the other way round.
            let (reads, writes) = if direction == Direction::ToDdsServer {
                (Request, Reply)
            } else {
                (Reply, Request)
            };
            let services: BTreeSet<(String, String)> = read
                .iter()
                .filter(|(service, ty, half)| {
                    *half == reads && written.contains(&(service.clone(), ty.clone(), writes))
                })
                .map(|(service, ty, _)| (service.clone(), ty.clone()))
                .collect();
            for (service, dds_type) in services {
                let Some(peer) = zenoh
                    .iter()
                    .find(|e| e.kind == zenoh_kind && e.topic == service && e.type_name == dds_type)
                else {
                    continue;
                };
                if !self.config.allows(kind, &service) {
                    self.say_once(
                        events,
                        &service,
                        format!("denied by the {} filters", kind.label()),
                    );
                    continue;
                }
                let reliable = all_reliable(&service, dds_writers) && all_reliable(&service, dds_readers);
                // The DDS side's requests: read by its servers, written by its clients.
                let requests = names::dds_service_topics(&service).0;
                let request_endpoints = if direction == Direction::ToDdsServer {
                    dds_readers
                } else {
                    dds_writers
                };
                let framings: BTreeSet<Framing> = request_endpoints
                    .iter()
                    .filter(|e| e.topic == requests)
                    .map(|e| Framing::of_vendor(e.vendor))
                    .collect();
                // A request goes to every server at once, in one framing: servers of both RMWs
                // on one service cannot all be answered (DDS clients are read one by one).
                if direction == Direction::ToDdsServer && framings.len() > 1 {
                    self.say_once(
                        events,
                        &service,
                        "DDS servers of both rmw_fastrtps_cpp and rmw_cyclonedds_cpp serve it: requests go in rmw_fastrtps_cpp's framing, which the others' servers cannot read".into(),
                    );
                }
                let framing = framings.iter().max().copied().unwrap_or(Framing::RequestHeader);
                let info = RouteInfo {
                    direction,
                    topic: service.clone(),
                    dds_type: dds_type.clone(),
                    type_hash: peer.type_hash.clone(),
                    hash_source: TypeHashSource::Zenoh,
                    reliable,
                    transient_local: false,
                    framing: Some(framing),
                };
                let dds_qos = DdsQos {
                    reliable,
                    transient_local: false,
                    depth: Some(10),
                };
                let key = RouteKey {
                    direction,
                    topic: service,
                    dds_type,
                };
                wanted.insert(
                    key,
                    Wanted {
                        info,
                        zenoh_qos: QosProfile::services_default(),
                        dds_qos,
                        dds_node: None,
                        zenoh_node: None,
                        // Not looked at for services: ROS 2 service types are not keyed and
                        // not filtered.
                        dds_endpoints: Vec::new(),
                    },
                );
            }
        }
    }

    async fn create(&mut self, want: &Wanted) -> Result<Route, String> {
        if want.info.direction.is_service() {
            return self.create_service_route(want).await;
        }
        let named = match &want.dds_node {
            Some(name) => Some(self.node_for(name).await?),
            None => None,
        };
        let node: &Node = named.as_deref().unwrap_or(&self.node);
        let (guid, is_writer): ([u8; 16], bool);
        let info = &want.info;
        let stats = Arc::new(RouteStats::default());
        let name = route_name(info);
        // Types zshm ships are checked (small payloads); others pass on their header alone.
        let validator = MessageType::shipped(&ros_type_name(&info.dds_type)).ok();
        let cap = self.config.cap(&info.topic).map(|cap| cap.period);
        let checks = Checks::new(&name, stats.clone(), validator, cap);
        let ty = DynamicType {
            dds_name: info.dds_type.clone(),
            hash: info.type_hash.clone(),
        };
        let dds_topic = names::dds_topic(&info.topic);
        let running = match info.direction {
            Direction::DdsToZenoh => {
                let mut reader = self
                    .dds
                    .reader(&dds_topic, &info.dds_type, want.dds_qos)
                    .map_err(|e| e.to_string())?;
                // A transient-local route wants the history; a volatile one only what comes.
                let cached = if want.dds_qos.transient_local {
                    Vec::new()
                } else {
                    let live: HashSet<rustdds::GUID> = self
                        .dds
                        .remote_writers()
                        .iter()
                        .map(|w| rustdds::GUID::from_bytes(w.guid))
                        .collect();
                    route::take_cached(&mut reader, &live, &checks)
                };
                (guid, is_writer) = (rustdds::RTPSEntity::guid(&reader).to_bytes(), false);
                let publisher = node
                    .create_dynamic_publisher(&info.topic, &ty, want.zenoh_qos)
                    .await
                    .map_err(|e| e.to_string())?;
                let gid = Gid::of_token(&liveliness::endpoint_token(publisher.info()));
                let dds = self.dds.clone();
                let forwarded = if want.dds_qos.transient_local {
                    route::Forwarded::default()
                } else {
                    self.forwarded.entry(info.topic.clone()).or_default().clone()
                };
                Running::Publications(DdsToZenoh::start(
                    route::RouteReader { reader, cached },
                    publisher,
                    gid,
                    self.own_gids.clone(),
                    move |guid| dds.is_own(guid),
                    checks,
                    forwarded,
                ))
            }
            Direction::ToDdsServer | Direction::ToZenohServer => unreachable!("handled above"),
            Direction::ZenohToDds => {
                let writer = self
                    .dds
                    .writer(&dds_topic, &info.dds_type, want.dds_qos)
                    .map_err(|e| e.to_string())?;
                (guid, is_writer) = (rustdds::RTPSEntity::guid(&writer).to_bytes(), true);
                let (queue, incoming) = route::to_dds_queue();
                let callback = route::zenoh_callback(checks.clone(), self.own_gids.clone(), queue);
                let subscription = self
                    .node
                    .create_dynamic_subscription(&info.topic, &ty, want.zenoh_qos, callback)
                    .await
                    .map_err(|e| e.to_string())?;
                Running::Subscriptions(Box::new(
                    ZenohToDds::start(subscription, writer, incoming, checks)
                        .map_err(|e| format!("cannot start the writer thread: {e}"))?,
                ))
            }
        };
        Ok(Route {
            info: want.info.clone(),
            stats,
            announced: want.zenoh_node.clone().map(|node| (node, guid, is_writer)),
            _running: running,
            _node: named,
        })
    }

    async fn create_service_route(&self, want: &Wanted) -> Result<Route, String> {
        let info = &want.info;
        let stats = Arc::new(RouteStats::default());
        let counters = Counters {
            name: format!("{} {}", info.topic, info.direction).into(),
            stats: stats.clone(),
        };
        let ty = DynamicType {
            dds_name: info.dds_type.clone(),
            hash: info.type_hash.clone(),
        };
        let (request_topic, reply_topic) = names::dds_service_topics(&info.topic);
        let (request_type, reply_type) = names::service_message_types(&info.dds_type);
        let running = if info.direction == Direction::ToDdsServer {
            let writer = self
                .dds
                .writer(&request_topic, &request_type, want.dds_qos)
                .map_err(|e| e.to_string())?;
            let reader = self
                .dds
                .reader(&reply_topic, &reply_type, want.dds_qos)
                .map_err(|e| e.to_string())?;
            Running::DdsServer(Box::new(
                ZenohToDdsServer::start(
                    &self.node,
                    &info.topic,
                    &ty,
                    crate::service::DdsServerSide {
                        writer,
                        reader,
                        framing: info.framing.unwrap_or(Framing::RequestHeader),
                    },
                    self.own_gids.clone(),
                    counters,
                )
                .await
                .map_err(|e| e.to_string())?,
            ))
        } else {
            let reader = self
                .dds
                .reader(&request_topic, &request_type, want.dds_qos)
                .map_err(|e| e.to_string())?;
            let writer = self
                .dds
                .writer(&reply_topic, &reply_type, want.dds_qos)
                .map_err(|e| e.to_string())?;
            let client = self
                .node
                .create_dynamic_client(&info.topic, &ty)
                .await
                .map_err(|e| e.to_string())?;
            let (dds, vendors) = (self.dds.clone(), self.dds.clone());
            Running::ZenohServer(DdsToZenohServer::start(
                client,
                reader,
                writer,
                move |guid| dds.is_own(guid),
                move |guid| vendors.vendor(guid),
                self.own_gids.clone(),
                counters,
            ))
        };
        Ok(Route {
            info: want.info.clone(),
            stats,
            announced: None,
            _running: running,
            _node: None,
        })
    }
}

//! Planning: which routes should exist, given what both sides show.
//!
//! Pure functions of a [`Sides`] snapshot and the bridge's configuration: no DDS, no zenoh, no
//! clock of their own (the caller passes `now`), so each rule is tested here on its own. A route
//! is wanted for a topic and type with a publisher on one side and a subscription on the other,
//! or a service and type with a server on one side and a client on the other, allowed by the
//! filters; [`Holds`] decides when a route nothing wants any more goes.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::{Duration, Instant};

use zshm_protocol::keyexpr::ros_type_name;
use zshm_protocol::liveliness::{EndpointInfo, EntityKind};
use zshm_protocol::qos::{Durability, History, QosProfile, Reliability};

use super::watch::Sides;
use crate::config::{BridgeConfig, Kind};
use crate::dds::{DdsQos, RemoteEndpoint};
use crate::names::{self, TypeHashSource};
use crate::peers;
use crate::ros_graph::{DdsNodes, NodeName};
use crate::service::framing::Framing;

/// How long a new DDS writer's route waits for its participant's `ros_discovery_info` (its
/// node's name) before it is bridged under the `zshm_bridge` node: rmw_cyclonedds_cpp and
/// rmw_fastrtps_cpp announce a node when it is created, so this only delays DDS writers that
/// are not ROS nodes' (or whose RMW announces nothing).
pub(super) const NODE_NAME_GRACE: Duration = Duration::from_secs(2);
/// How long a topic route outlives the last endpoint it served on either side. A DDS writer
/// that starts while an old writer of its topic is leaving matches the route's reader before
/// RustDDS's discovery lists the new writer: removing the route at that moment took the reader
/// from under the new writer, which lost what it wrote until the route came back (28 of 45
/// clouds in `tools/bench_bridge.py`). Held this long, the route is still there when the new
/// writer (or a new zenoh endpoint) shows up, and simply goes on.
pub(super) const ROUTE_HOLD: Duration = Duration::from_secs(3);

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

impl RouteInfo {
    /// How the route is named in its log lines.
    pub(super) fn name(&self) -> String {
        format!("{} {}", self.topic, self.direction)
    }
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

/// A route as the bridge keys it: one per direction, topic and type.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) struct RouteKey {
    pub direction: Direction,
    pub topic: String,
    pub dds_type: String,
}

/// The spec of a route that should exist: everything building it needs.
#[derive(Debug)]
pub(super) struct Wanted {
    pub info: RouteInfo,
    pub zenoh_qos: QosProfile,
    pub dds_qos: DdsQos,
    /// The DDS node of the route's DDS publisher, from `ros_discovery_info`.
    pub dds_node: Option<NodeName>,
    /// The zenoh node of the route's zenoh endpoint, announced on `ros_discovery_info` for the
    /// bridge's DDS reader or writer.
    pub zenoh_node: Option<NodeName>,
    /// The DDS endpoints on the route's DDS side (a topic's writers or readers), for what they
    /// use that the bridge does not carry.
    pub dds_endpoints: Vec<RemoteEndpoint>,
    /// The least time between two messages the route forwards (`--max-frequency`).
    pub min_period: Option<Duration>,
}

/// What planning looks at besides the two sides.
pub(super) struct Context<'a> {
    pub config: &'a BridgeConfig,
    /// The DDS nodes `ros_discovery_info` named.
    pub dds_nodes: &'a DdsNodes,
    pub now: Instant,
    /// When a DDS writer was first seen (by GUID).
    pub first_seen: &'a dyn Fn(&[u8; 16]) -> Option<Instant>,
    /// Whether a route runs now.
    pub running: &'a dyn Fn(&RouteKey) -> bool,
}

/// The routes that should exist, and the endpoints not bridged with why (topic, reason), in
/// the order they were met.
#[derive(Debug, Default)]
pub(super) struct Plan {
    pub routes: BTreeMap<RouteKey, Wanted>,
    pub skipped: Vec<(String, String)>,
}

/// The routes both sides call for.
pub(super) fn plan(sides: &Sides, cx: &Context<'_>) -> Plan {
    let mut plan = Plan::default();
    services(sides, cx, &mut plan);
    dds_to_zenoh(sides, cx, &mut plan);
    zenoh_to_dds(sides, cx, &mut plan);
    plan
}

/// The ROS topic of a DDS endpoint, if it is one the bridge may bridge; else why not, if that
/// is worth saying (DDS's own topics and the bridge's are not).
fn ros_topic(
    endpoint: &RemoteEndpoint,
    kind: Kind,
    config: &BridgeConfig,
) -> Result<String, Option<(String, String)>> {
    let Some(topic) = names::ros_topic(&endpoint.topic) else {
        let quiet = endpoint.topic.starts_with("DCPS")
            || endpoint.topic == "ros_discovery_info"
            || endpoint.topic == peers::DDS_MARKER_TOPIC
            || names::ros_service(&endpoint.topic).is_some();
        return Err((!quiet).then(|| {
            (
                endpoint.topic.clone(),
                "not a ROS topic (no rt/ prefix), not bridged".into(),
            )
        }));
    };
    if endpoint.keyed {
        return Err(Some((
            topic,
            "keyed topic (its type has key members; ROS 2 topics never do): DDS matches it only \
             with keyed endpoints and the bridge's are unkeyed, so it is not bridged"
                .into(),
        )));
    }
    if !names::is_ros_message_type(&endpoint.type_name) {
        let reason = format!(
            "type `{}` is not a ROS message type, not bridged",
            endpoint.type_name
        );
        return Err(Some((endpoint.topic.clone(), reason)));
    }
    if !config.allows(kind, &topic) {
        let reason = format!("denied by the {} filters", kind.label());
        return Err(Some((topic, reason)));
    }
    Ok(topic)
}

/// The DDS endpoints the bridge may bridge, by ROS topic and type.
fn by_topic(
    endpoints: &[RemoteEndpoint],
    kind: Kind,
    config: &BridgeConfig,
    plan: &mut Plan,
) -> BTreeMap<(String, String), Vec<RemoteEndpoint>> {
    let mut grouped: BTreeMap<(String, String), Vec<RemoteEndpoint>> = BTreeMap::new();
    for endpoint in endpoints {
        match ros_topic(endpoint, kind, config) {
            Ok(topic) => grouped
                .entry((topic, endpoint.type_name.clone()))
                .or_default()
                .push(endpoint.clone()),
            Err(Some(skipped)) => plan.skipped.push(skipped),
            Err(None) => {}
        }
    }
    grouped
}

/// The zenoh endpoint of `kind` on `topic` with `dds_type`, if any.
fn zenoh_peer<'s>(
    zenoh: &'s [EndpointInfo],
    kind: EntityKind,
    topic: &str,
    dds_type: &str,
) -> Option<&'s EndpointInfo> {
    zenoh
        .iter()
        .find(|e| e.kind == kind && e.topic == topic && e.type_name == dds_type)
}

fn node_name(endpoint: &EndpointInfo) -> NodeName {
    NodeName {
        namespace: endpoint.node.namespace.clone(),
        name: endpoint.node.name.clone(),
    }
}

/// DDS publishers → zenoh subscriptions.
fn dds_to_zenoh(sides: &Sides, cx: &Context<'_>, plan: &mut Plan) {
    let writers = by_topic(&sides.dds_writers, Kind::Publisher, cx.config, plan);
    for ((topic, dds_type), writers) in writers {
        let Some(subscription) = zenoh_peer(&sides.zenoh, EntityKind::Subscription, &topic, &dds_type) else {
            continue;
        };
        let key = RouteKey {
            direction: Direction::DdsToZenoh,
            topic,
            dds_type,
        };
        // A ROS node's RMW announces it on ros_discovery_info, which can reach the bridge a
        // moment after its writers: wait for it (a little while), so that the route's
        // publisher is declared under the node's own name rather than renamed later.
        let unnamed_yet = !(cx.running)(&key)
            && writers.iter().any(|w| {
                !cx.dds_nodes.knows_participant(&w.guid)
                    && (cx.first_seen)(&w.guid)
                        .is_some_and(|seen| cx.now.duration_since(seen) < NODE_NAME_GRACE)
            });
        if unnamed_yet {
            continue;
        }
        // The reader takes the weakest promise of the writers, so that it matches them all.
        let reliable = writers.iter().all(|w| w.reliable);
        let transient_local = writers.iter().all(|w| w.transient_local);
        let (type_hash, hash_source) = names::resolve_type_hash(
            &key.dds_type,
            &writers[0].user_data,
            Some(&subscription.type_hash),
        );
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
            topic: key.topic.clone(),
            dds_type: key.dds_type.clone(),
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
            .find_map(|w| cx.dds_nodes.node_of(&w.guid))
            .cloned();
        let min_period = cx.config.cap(&key.topic).map(|cap| cap.period);
        let want = Wanted {
            info,
            zenoh_qos,
            dds_qos,
            dds_node,
            zenoh_node: Some(node_name(subscription)),
            dds_endpoints: writers,
            min_period,
        };
        plan.routes.insert(key, want);
    }
}

/// zenoh publishers → DDS subscriptions.
fn zenoh_to_dds(sides: &Sides, cx: &Context<'_>, plan: &mut Plan) {
    let readers = by_topic(&sides.dds_readers, Kind::Subscriber, cx.config, plan);
    for ((topic, dds_type), readers) in readers {
        let Some(publisher) = zenoh_peer(&sides.zenoh, EntityKind::Publisher, &topic, &dds_type) else {
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
        let min_period = cx.config.cap(&topic).map(|cap| cap.period);
        let key = RouteKey {
            direction: Direction::ZenohToDds,
            topic,
            dds_type,
        };
        let want = Wanted {
            info,
            zenoh_qos: qos,
            dds_qos,
            dds_node: None,
            zenoh_node: Some(node_name(publisher)),
            dds_endpoints: readers,
            min_period,
        };
        plan.routes.insert(key, want);
    }
}

/// The service routes: a DDS server (a reader of `rq/<name>Request` and a writer of
/// `rr/<name>Reply` with the service's request and response types) and an rmw_zenoh client
/// of the same service and type, or the reverse. The zenoh side's token gives the hash.
fn services(sides: &Sides, cx: &Context<'_>, plan: &mut Plan) {
    use names::ServiceHalf::{Reply, Request};
    let (dds_writers, dds_readers) = (&sides.dds_writers, &sides.dds_readers);
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
            let Some(peer) = zenoh_peer(&sides.zenoh, zenoh_kind, &service, &dds_type) else {
                continue;
            };
            if !cx.config.allows(kind, &service) {
                let reason = format!("denied by the {} filters", kind.label());
                plan.skipped.push((service, reason));
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
                plan.skipped.push((
                    service.clone(),
                    "DDS servers of both rmw_fastrtps_cpp and rmw_cyclonedds_cpp serve it: requests go in rmw_fastrtps_cpp's framing, which the others' servers cannot read".into(),
                ));
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
            let want = Wanted {
                info,
                zenoh_qos: QosProfile::services_default(),
                dds_qos,
                dds_node: None,
                zenoh_node: None,
                // Not looked at for services: ROS 2 service types are not keyed and not
                // filtered.
                dds_endpoints: Vec::new(),
                min_period: None,
            };
            plan.routes.insert(key, want);
        }
    }
}

/// When running routes that nothing wants any more go: a topic route outlives its last
/// endpoint by [`ROUTE_HOLD`], and longer while DDS discovery is settling; a service route, or
/// any route of a bridge that stands by, goes at once.
#[derive(Debug, Default)]
pub(super) struct Holds {
    /// The running routes nothing wants, and since when.
    unwanted_since: HashMap<RouteKey, Instant>,
}

impl Holds {
    /// The running routes to remove now. `active`: this bridge bridges (a standby bridge gives
    /// its routes up at once: the active one carries them now, and both carrying them would
    /// deliver every message twice). `discovery_settling`: a new DDS participant was
    /// discovered a moment ago (its writers may have matched a held route's reader already,
    /// before RustDDS lists them: removing the reader then would take it from under them).
    pub fn expired<'k>(
        &mut self,
        running: impl IntoIterator<Item = &'k RouteKey>,
        wanted: &BTreeMap<RouteKey, Wanted>,
        active: bool,
        discovery_settling: bool,
        now: Instant,
    ) -> Vec<RouteKey> {
        self.unwanted_since.retain(|key, _| !wanted.contains_key(key));
        let mut gone = Vec::new();
        for key in running {
            if wanted.contains_key(key) {
                continue;
            }
            let since = *self.unwanted_since.entry(key.clone()).or_insert(now);
            let held = active
                && !key.direction.is_service()
                && (now.duration_since(since) < ROUTE_HOLD || discovery_settling);
            if !held {
                self.unwanted_since.remove(key);
                gone.push(key.clone());
            }
        }
        gone
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dds::Vendor;
    use crate::ros_graph::ParticipantInfo;
    use zshm_protocol::liveliness::NodeInfo;

    const STRING: &str = "std_msgs::msg::dds_::String_";
    const HASH: &str = "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18";
    const TRIGGER: &str = "std_srvs::srv::dds_::Trigger_";
    /// A type zshm does not ship, so that its hash comes from the zenoh side.
    const CUSTOM: &str = "my_msgs::msg::dds_::Thing_";

    fn dds(topic: &str, type_name: &str, participant: u8, id: u8, writer: bool) -> RemoteEndpoint {
        let mut guid = [participant; 16];
        guid[12..].copy_from_slice(&[0, 0, id, if writer { 0x03 } else { 0x04 }]);
        RemoteEndpoint {
            topic: topic.into(),
            type_name: type_name.into(),
            reliable: true,
            transient_local: false,
            user_data: Vec::new(),
            participant: peers::hex(&guid[..12]),
            guid,
            vendor: Vendor::CycloneDds,
            keyed: false,
            content_filter: None,
            data_sharing: false,
        }
    }

    fn zenoh(kind: EntityKind, topic: &str, type_name: &str, qos: QosProfile) -> EndpointInfo {
        EndpointInfo {
            node: NodeInfo {
                domain: 0,
                zid: "1234".into(),
                nid: 0,
                enclave: "/".into(),
                namespace: "/".into(),
                name: "listener".into(),
            },
            id: 10,
            kind,
            topic: topic.into(),
            type_name: type_name.into(),
            type_hash: HASH.into(),
            qos,
        }
    }

    /// Plans `sides` with the default configuration, every writer first seen long ago, no
    /// DDS node named and no route running.
    fn plan_of(sides: &Sides) -> Plan {
        plan_with(
            sides,
            &BridgeConfig::new(0).unwrap(),
            &DdsNodes::default(),
            Duration::from_secs(60),
        )
    }

    fn plan_with(sides: &Sides, config: &BridgeConfig, dds_nodes: &DdsNodes, writers_age: Duration) -> Plan {
        let now = Instant::now() + Duration::from_secs(3600);
        let cx = Context {
            config,
            dds_nodes,
            now,
            first_seen: &|_| Some(now - writers_age),
            running: &|_| false,
        };
        plan(sides, &cx)
    }

    fn only_route(plan: &Plan) -> (&RouteKey, &Wanted) {
        assert_eq!(
            plan.routes.len(),
            1,
            "{:?}",
            plan.routes.keys().collect::<Vec<_>>()
        );
        plan.routes.iter().next().unwrap()
    }

    #[test]
    fn a_dds_writer_and_a_zenoh_subscription_make_one_route_with_the_writers_weakest_promise() {
        let mut best_effort = dds("rt/chatter", CUSTOM, 1, 1, true);
        best_effort.reliable = false;
        let sides = Sides {
            dds_writers: vec![dds("rt/chatter", CUSTOM, 2, 1, true), best_effort],
            zenoh: vec![zenoh(
                EntityKind::Subscription,
                "/chatter",
                CUSTOM,
                QosProfile::default(),
            )],
            ..Sides::default()
        };
        let plan = plan_of(&sides);
        let (key, want) = only_route(&plan);
        assert_eq!(
            (key.direction, key.topic.as_str()),
            (Direction::DdsToZenoh, "/chatter")
        );
        assert!(
            !want.info.reliable,
            "one best-effort writer makes the reader best effort"
        );
        assert_eq!(want.zenoh_qos.reliability, Reliability::BestEffort);
        assert_eq!(want.zenoh_qos.history, History::Unknown);
        assert_eq!(want.dds_qos.depth, Some(10));
        assert_eq!(want.dds_endpoints.len(), 2);
        assert_eq!(
            want.info.type_hash, HASH,
            "the subscription's hash, none in USER_DATA"
        );
        assert_eq!(want.info.hash_source, TypeHashSource::Zenoh);
        assert_eq!(
            want.zenoh_node.as_ref().map(|n| n.name.as_str()),
            Some("listener")
        );
        assert!(plan.skipped.is_empty(), "{:?}", plan.skipped);
    }

    #[test]
    fn nothing_is_wanted_without_both_sides_or_with_another_type() {
        let writer = dds("rt/chatter", STRING, 2, 1, true);
        let alone = Sides {
            dds_writers: vec![writer.clone()],
            ..Sides::default()
        };
        assert!(plan_of(&alone).routes.is_empty());
        let other_type = Sides {
            dds_writers: vec![writer],
            zenoh: vec![zenoh(
                EntityKind::Subscription,
                "/chatter",
                "std_msgs::msg::dds_::Int32_",
                QosProfile::default(),
            )],
            ..Sides::default()
        };
        assert!(plan_of(&other_type).routes.is_empty());
    }

    #[test]
    fn a_new_writer_waits_for_its_nodes_name_unless_its_participant_announced_itself() {
        let writer = dds("rt/chatter", STRING, 2, 1, true);
        let sides = Sides {
            dds_writers: vec![writer.clone()],
            zenoh: vec![zenoh(
                EntityKind::Subscription,
                "/chatter",
                STRING,
                QosProfile::default(),
            )],
            ..Sides::default()
        };
        let config = BridgeConfig::new(0).unwrap();
        let young = Duration::from_millis(500);
        let nobody = DdsNodes::default();
        assert!(plan_with(&sides, &config, &nobody, young).routes.is_empty());
        assert_eq!(
            plan_with(&sides, &config, &nobody, NODE_NAME_GRACE).routes.len(),
            1
        );
        let mut named = DdsNodes::default();
        let talker = NodeName {
            namespace: "/".into(),
            name: "talker".into(),
        };
        named.update(ParticipantInfo {
            participant: writer.guid,
            nodes: vec![(talker.clone(), vec![writer.guid])],
            gid_size: 16,
        });
        let plan = plan_with(&sides, &config, &named, young);
        assert_eq!(only_route(&plan).1.dds_node, Some(talker));
    }

    #[test]
    fn a_zenoh_publisher_and_a_dds_reader_make_a_reliable_writer_with_the_publishers_depth() {
        let sides = Sides {
            dds_readers: vec![dds("rt/scan", STRING, 2, 1, false)],
            zenoh: vec![zenoh(
                EntityKind::Publisher,
                "/scan",
                STRING,
                QosProfile {
                    reliability: Reliability::BestEffort,
                    ..QosProfile::keep_last(5)
                },
            )],
            ..Sides::default()
        };
        let plan = plan_of(&sides);
        let (key, want) = only_route(&plan);
        assert_eq!(key.direction, Direction::ZenohToDds);
        assert!(!want.info.reliable);
        assert!(
            want.dds_qos.reliable,
            "a reliable writer serves both kinds of readers"
        );
        assert_eq!(want.dds_qos.depth, Some(5));
    }

    #[test]
    fn what_is_not_bridged_is_said_with_its_reason_and_dds_own_topics_are_not() {
        let mut keyed = dds("rt/keyed", STRING, 2, 1, true);
        keyed.keyed = true;
        let sides = Sides {
            dds_writers: vec![
                keyed,
                dds("plain", STRING, 2, 2, true),
                dds("rt/odd", "Foo", 2, 3, true),
                dds("rt/secret", STRING, 2, 4, true),
                dds("DCPSParticipant", STRING, 2, 5, true),
                dds("ros_discovery_info", STRING, 2, 6, true),
            ],
            ..Sides::default()
        };
        let config = BridgeConfig::new(0)
            .unwrap()
            .rule("publisher=^/secret$", false)
            .unwrap();
        let plan = plan_with(&sides, &config, &DdsNodes::default(), Duration::from_secs(60));
        let said: Vec<(&str, &str)> = plan
            .skipped
            .iter()
            .map(|(topic, reason)| (topic.as_str(), reason.split(' ').next().unwrap()))
            .collect();
        assert_eq!(
            said,
            [
                ("/keyed", "keyed"),
                ("plain", "not"),
                ("rt/odd", "type"),
                ("/secret", "denied")
            ]
        );
    }

    fn dds_server(participant: u8, vendor: Vendor) -> (RemoteEndpoint, RemoteEndpoint) {
        let mut requests = dds(
            "rq/triggerRequest",
            "std_srvs::srv::dds_::Trigger_Request_",
            participant,
            1,
            false,
        );
        let mut replies = dds(
            "rr/triggerReply",
            "std_srvs::srv::dds_::Trigger_Response_",
            participant,
            2,
            true,
        );
        requests.vendor = vendor;
        replies.vendor = vendor;
        (requests, replies)
    }

    /// A zenoh server or client of `/trigger`.
    fn trigger(kind: EntityKind) -> EndpointInfo {
        zenoh(kind, "/trigger", TRIGGER, QosProfile::services_default())
    }

    #[test]
    fn a_dds_server_and_a_zenoh_client_make_a_service_route_in_the_servers_framing() {
        let (requests, replies) = dds_server(2, Vendor::FastDds);
        let sides = Sides {
            dds_readers: vec![requests],
            dds_writers: vec![replies],
            zenoh: vec![trigger(EntityKind::ServiceClient)],
        };
        let plan = plan_of(&sides);
        let (key, want) = only_route(&plan);
        assert_eq!(
            (key.direction, key.topic.as_str()),
            (Direction::ToDdsServer, "/trigger")
        );
        assert_eq!(want.info.framing, Some(Framing::SampleIdentity));
        assert!(plan.skipped.is_empty(), "{:?}", plan.skipped);
    }

    #[test]
    fn servers_of_both_rmws_on_one_service_are_said_and_served_in_fast_dds_framing() {
        let (fast_requests, fast_replies) = dds_server(2, Vendor::FastDds);
        let (cyclone_requests, cyclone_replies) = dds_server(3, Vendor::CycloneDds);
        let sides = Sides {
            dds_readers: vec![fast_requests, cyclone_requests],
            dds_writers: vec![fast_replies, cyclone_replies],
            zenoh: vec![trigger(EntityKind::ServiceClient)],
        };
        let plan = plan_of(&sides);
        assert_eq!(only_route(&plan).1.info.framing, Some(Framing::SampleIdentity));
        assert_eq!(plan.skipped.len(), 1);
        assert!(
            plan.skipped[0]
                .1
                .contains("both rmw_fastrtps_cpp and rmw_cyclonedds_cpp")
        );
    }

    #[test]
    fn a_dds_client_and_a_zenoh_server_make_the_reverse_service_route() {
        let (requests, replies) = dds_server(2, Vendor::CycloneDds);
        // A DDS client writes requests and reads replies.
        let (mut request_writer, mut reply_reader) = (requests.clone(), replies.clone());
        request_writer.guid[15] = 0x03;
        reply_reader.guid[15] = 0x04;
        let sides = Sides {
            dds_writers: vec![request_writer],
            dds_readers: vec![reply_reader],
            zenoh: vec![trigger(EntityKind::ServiceServer)],
        };
        let plan = plan_of(&sides);
        let (key, want) = only_route(&plan);
        assert_eq!(key.direction, Direction::ToZenohServer);
        assert_eq!(want.info.framing, Some(Framing::RequestHeader));
    }

    fn key(direction: Direction) -> RouteKey {
        RouteKey {
            direction,
            topic: "/chatter".into(),
            dds_type: STRING.into(),
        }
    }

    #[test]
    fn an_unwanted_topic_route_is_held_then_removed_and_a_service_route_goes_at_once() {
        let (topic, service) = (key(Direction::DdsToZenoh), key(Direction::ToDdsServer));
        let running = [topic.clone(), service.clone()];
        let none = BTreeMap::new();
        let mut holds = Holds::default();
        let start = Instant::now();
        assert_eq!(holds.expired(&running, &none, true, false, start), [service]);
        let later = start + ROUTE_HOLD - Duration::from_millis(1);
        assert!(holds.expired(&running[..1], &none, true, false, later).is_empty());
        let settling = start + ROUTE_HOLD * 2;
        assert!(
            holds
                .expired(&running[..1], &none, true, true, settling)
                .is_empty(),
            "held while DDS discovery settles"
        );
        assert_eq!(
            holds.expired(&running[..1], &none, true, false, settling),
            [topic]
        );
    }

    #[test]
    fn a_route_wanted_again_starts_its_hold_afresh_and_a_standby_bridge_drops_all_at_once() {
        let topic = key(Direction::DdsToZenoh);
        let running = [topic.clone()];
        let (none, mut holds) = (BTreeMap::new(), Holds::default());
        let start = Instant::now();
        assert!(holds.expired(&running, &none, true, false, start).is_empty());
        let mut wanted = BTreeMap::new();
        let sides = Sides {
            dds_writers: vec![dds("rt/chatter", STRING, 2, 1, true)],
            zenoh: vec![zenoh(
                EntityKind::Subscription,
                "/chatter",
                STRING,
                QosProfile::default(),
            )],
            ..Sides::default()
        };
        wanted.append(&mut plan_of(&sides).routes);
        let back = start + ROUTE_HOLD;
        assert!(holds.expired(&running, &wanted, true, false, back).is_empty());
        let gone_again = back + Duration::from_millis(10);
        assert!(
            holds.expired(&running, &none, true, false, gone_again).is_empty(),
            "the hold counts from when it went the second time"
        );
        assert_eq!(holds.expired(&running, &none, false, false, gone_again), [topic]);
    }
}

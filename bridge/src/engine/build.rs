//! Building: a planned route's DDS reader or writer, its zenoh publisher, subscription, client
//! or server, and the task that carries messages between them; and this participant's
//! `ros_discovery_info`, which tells DDS tools the zenoh nodes behind the bridge's endpoints.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use zshm::Session;
use zshm::dynamic::MessageType;
use zshm::ros::dynamic::DynamicType;
use zshm::ros::{Node, NodeOptions};
use zshm_protocol::gid::Gid;
use zshm_protocol::keyexpr::ros_type_name;
use zshm_protocol::liveliness;

use super::plan::{Direction, RouteInfo, Wanted};
use crate::dds::{Dds, DdsError, DdsQos, RawWriter, RemoteEndpoint};
use crate::names;
use crate::ros_graph::{self, NodeName};
use crate::route::{self, Checks, DdsToZenoh, OwnGids, ZenohToDds};
use crate::service::framing::Framing;
use crate::service::{Counters, DdsToZenohServer, ZenohToDdsServer};
use crate::stats::RouteStats;

/// What keeps a route running; it is only held, and dropping it removes the route's endpoints.
#[allow(dead_code)] // held for its `Drop`, never read
enum Running {
    Publications(DdsToZenoh),
    Subscriptions(Box<ZenohToDds>),
    DdsServer(Box<ZenohToDdsServer>),
    ZenohServer(DdsToZenohServer),
}

/// A running route.
pub(super) struct Route {
    pub info: RouteInfo,
    pub stats: Arc<RouteStats>,
    /// The zenoh node and the GUID of the bridge's DDS reader (`false`) or writer (`true`) that
    /// stands for it, for `ros_discovery_info`.
    announced: Option<(NodeName, [u8; 16], bool)>,
    _running: Running,
    /// The DDS node the route's zenoh endpoints belong to, when `ros_discovery_info` named it
    /// (dropped after them: its token goes last).
    _node: Option<Arc<Node>>,
}

impl Route {
    /// Counts (and logs the first of) each DDS feature the route's DDS endpoints use that the
    /// bridge does not carry.
    pub fn note_not_carried(&self, endpoints: &[RemoteEndpoint]) {
        let name = self.info.name();
        for endpoint in endpoints {
            for (feature, detail) in endpoint.not_carried() {
                self.stats.met(&name, feature, endpoint.guid, &detail);
            }
        }
    }
}

/// Builds routes on the bridge's DDS participant and zenoh node.
pub(super) struct Builder {
    session: Session,
    domain: u32,
    /// The bridge's own node: zenoh endpoints of DDS nodes `ros_discovery_info` did not name.
    node: Node,
    dds: Arc<Dds>,
    /// The GIDs of the bridge's own zenoh publishers, whose messages are not carried back.
    own_gids: OwnGids,
    /// Per topic, what its volatile DDS → zenoh routes forwarded, kept across their lifetimes
    /// (a transient-local route's new reader gets the history again on purpose, for the new
    /// zenoh publisher's cache).
    forwarded: HashMap<String, route::Forwarded>,
    /// The zenoh node standing for each DDS node, while a route uses it.
    named_nodes: BTreeMap<NodeName, std::sync::Weak<Node>>,
    /// This participant's own `ros_discovery_info`: the zenoh nodes behind its DDS endpoints.
    discovery_writer: RawWriter,
    /// What was last written on it.
    announced_nodes: Vec<u8>,
}

impl Builder {
    /// A builder on `node` (the bridge's own) and the participant `dds`.
    pub fn new(session: &Session, domain: u32, node: Node, dds: Arc<Dds>) -> Result<Self, DdsError> {
        let discovery_writer = dds.writer(
            ros_graph::TOPIC,
            ros_graph::TYPE,
            DdsQos {
                reliable: true,
                transient_local: true,
                depth: Some(1),
            },
        )?;
        Ok(Self {
            session: session.clone(),
            domain,
            node,
            dds,
            own_gids: OwnGids::default(),
            forwarded: HashMap::new(),
            named_nodes: BTreeMap::new(),
            discovery_writer,
            announced_nodes: Vec::new(),
        })
    }

    /// Builds the route `want` asks for.
    pub async fn create(&mut self, want: &Wanted) -> Result<Route, String> {
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
        // Types zshm ships are checked (small payloads); others pass on their header alone.
        let validator = MessageType::shipped(&ros_type_name(&info.dds_type)).ok();
        let checks = Checks::new(&info.name(), stats.clone(), validator, want.min_period);
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
            name: info.name().into(),
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

    /// The zenoh node that stands for DDS node `name`: one per name, while a route uses it.
    async fn node_for(&mut self, name: &NodeName) -> Result<Arc<Node>, String> {
        if let Some(node) = self.named_nodes.get(name).and_then(std::sync::Weak::upgrade) {
            return Ok(node);
        }
        let options = NodeOptions {
            namespace: name.namespace.clone(),
            domain: Some(self.domain),
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

    /// Writes this participant's `ros_discovery_info` when what it stands for changed: each
    /// zenoh node whose endpoints `routes` carry, with the GUIDs of the bridge's DDS readers
    /// and writers for them, so that DDS tools (`ros2 node list` on rmw_cyclonedds_cpp) see
    /// the rmw_zenoh nodes rather than anonymous endpoints. `gid_size`: what the domain's DDS
    /// nodes read (Humble's 24 or Jazzy's 16).
    pub fn announce_nodes<'r>(&mut self, routes: impl IntoIterator<Item = &'r Route>, gid_size: usize) {
        type Endpoints = (Vec<[u8; 16]>, Vec<[u8; 16]>);
        let mut nodes: BTreeMap<NodeName, Endpoints> = BTreeMap::new();
        for (node, guid, is_writer) in routes.into_iter().filter_map(|r| r.announced.as_ref()) {
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
        let body = ros_graph::encode(self.dds.guid().to_bytes(), &nodes, gid_size);
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
}

//! Watching both sides: what DDS discovery and the zenoh graph show, one [`Sides`] snapshot per
//! look.
//!
//! zenoh's side arrives as liveliness tokens (the ROS graph's and other bridges'), each kind in a
//! [`GraphWatch`], which also wakes the bridge; DDS's side is RustDDS's
//! discovery snapshot, polled, each endpoint held a moment after it drops out
//! ([`Lingering`]), and `ros_discovery_info`, which names the DDS nodes behind the endpoints.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use zshm::Session;
use zshm::ros::graph::GraphWatch;
use zshm_protocol::liveliness::{self, EndpointInfo};

use super::BridgeError;
use crate::dds::{Dds, DdsQos, Lingering, RawReader, RemoteEndpoint};
use crate::peers::{self, Announcement};
use crate::ros_graph::{self, DdsNodes};

/// How often DDS discovery is looked at (RustDDS keeps it; the bridge polls its snapshot).
const DDS_POLL: Duration = Duration::from_millis(200);

/// What both sides show at one look.
#[derive(Debug, Default)]
pub(super) struct Sides {
    /// Other participants' DDS writers.
    pub dds_writers: Vec<RemoteEndpoint>,
    /// Other participants' DDS readers.
    pub dds_readers: Vec<RemoteEndpoint>,
    /// Other sessions' rmw_zenoh endpoints on the bridge's domain.
    pub zenoh: Vec<EndpointInfo>,
}

impl Sides {
    /// Leaves out the endpoints of `twins` (bridges seen on both sides, whose endpoints stand
    /// for other nodes' and are never taken for real ones): on zenoh by their zid, on DDS by
    /// participant.
    pub fn without_twins(mut self, twins: &[Announcement], twin_participant: impl Fn(&str) -> bool) -> Self {
        self.dds_writers.retain(|e| !twin_participant(&e.participant));
        self.dds_readers.retain(|e| !twin_participant(&e.participant));
        self.zenoh
            .retain(|e| !twins.iter().any(|twin| twin.zid == e.node.zid));
        self
    }
}

/// Both sides' discovery, as the bridge sees it.
pub(super) struct Watch {
    domain: u32,
    own_zid: String,
    dds: Arc<Dds>,
    /// The domain's ROS graph on zenoh.
    graph: GraphWatch,
    /// The tokens of every bridge on this domain (this one's included).
    bridges: GraphWatch,
    /// The DDS writers and readers discovered, each held a moment after it drops out.
    dds_writers: Lingering,
    dds_readers: Lingering,
    /// `ros_discovery_info`: the DDS nodes, and the zenoh nodes declared for them.
    discovery_info: RawReader,
    dds_nodes: DdsNodes,
    /// When DDS discovery last reported a new participant.
    participant_discovered: Option<Instant>,
    /// What the last look showed, one line per endpoint, for the debug log of what came and went.
    shown: BTreeSet<String>,
}

impl Watch {
    /// Starts watching the ROS graph and the bridges of `domain` on zenoh, and reading DDS's
    /// `ros_discovery_info`.
    pub async fn start(session: &Session, dds: Arc<Dds>, domain: u32) -> Result<Self, BridgeError> {
        let graph = GraphWatch::start(session, liveliness::domain_tokens(domain))
            .await
            .map_err(BridgeError::Graph)?;
        let bridges = GraphWatch::start(session, peers::tokens_of(domain))
            .await
            .map_err(BridgeError::Graph)?;
        let discovery_info = dds.reader(
            ros_graph::TOPIC,
            ros_graph::TYPE,
            DdsQos {
                reliable: true,
                transient_local: true,
                depth: None,
            },
        )?;
        Ok(Self {
            domain,
            own_zid: session.zid().to_string(),
            dds,
            graph,
            bridges,
            dds_writers: Lingering::default(),
            dds_readers: Lingering::default(),
            discovery_info,
            dds_nodes: DdsNodes::default(),
            participant_discovered: None,
            shown: BTreeSet::new(),
        })
    }

    /// Waits until the zenoh graph changed, or DDS discovery is due for another look.
    pub async fn changed(&self) {
        tokio::select! {
            _ = self.graph.changed() => {}
            _ = self.bridges.changed() => {}
            _ = tokio::time::sleep(DDS_POLL) => {}
        }
    }

    /// Both sides now; `said` gets what is worth telling the user (topic, reason).
    pub fn look(&mut self, now: Instant, said: &mut Vec<(String, String)>) -> Sides {
        self.read_discovery_info(said);
        if self.dds.participants_discovered() {
            self.participant_discovered = Some(now);
        }
        let sides = Sides {
            dds_writers: self.dds_writers.update(self.dds.remote_writers(), now),
            dds_readers: self.dds_readers.update(self.dds.remote_readers(), now),
            zenoh: self.zenoh_endpoints(),
        };
        if tracing::enabled!(tracing::Level::DEBUG) {
            self.log_changes(&sides);
        }
        sides
    }

    /// Logs (at debug) each endpoint that appeared or went since the last look: what a route
    /// that does not come up is missing shows here.
    fn log_changes(&mut self, sides: &Sides) {
        let dds = |kind: &str, e: &RemoteEndpoint| {
            format!(
                "DDS {kind} {} [{}] participant {} guid {}",
                e.topic,
                e.type_name,
                e.participant,
                peers::hex(&e.guid)
            )
        };
        let now: BTreeSet<String> = sides
            .dds_writers
            .iter()
            .map(|e| dds("writer", e))
            .chain(sides.dds_readers.iter().map(|e| dds("reader", e)))
            .chain(sides.zenoh.iter().map(|e| {
                format!(
                    "zenoh {:?} {} [{}] zid {} id {}",
                    e.kind, e.topic, e.type_name, e.node.zid, e.id
                )
            }))
            .collect();
        for came in now.difference(&self.shown) {
            tracing::debug!("seen: {came}");
        }
        for went in self.shown.difference(&now) {
            tracing::debug!("gone: {went}");
        }
        self.shown = now;
    }

    /// Every bridge on the domain, this one included, as their tokens announce them.
    pub fn bridges(&self) -> Vec<Announcement> {
        let tokens = self.bridges.tokens();
        tokens
            .iter()
            .filter_map(|token| Announcement::parse(token))
            .collect()
    }

    /// The DDS nodes `ros_discovery_info` named.
    pub fn dds_nodes(&self) -> &DdsNodes {
        &self.dds_nodes
    }

    /// When the DDS writer `guid` was first seen (in this run of sightings).
    pub fn writer_first_seen(&self, guid: &[u8; 16]) -> Option<Instant> {
        self.dds_writers.first_seen(guid)
    }

    /// When DDS discovery last reported a new participant.
    pub fn participant_discovered(&self) -> Option<Instant> {
        self.participant_discovered
    }

    fn zenoh_endpoints(&self) -> Vec<EndpointInfo> {
        self.graph
            .graph()
            .endpoints
            .into_iter()
            .filter(|e| e.node.zid != self.own_zid && e.node.domain == self.domain)
            .collect()
    }

    /// Takes the `ros_discovery_info` samples that arrived since the last look.
    fn read_discovery_info(&mut self, said: &mut Vec<(String, String)>) {
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
                None => said.push((
                    ros_graph::TOPIC.to_owned(),
                    "a sample that is not a ParticipantEntitiesInfo, ignored (its DDS nodes show as zshm_bridge)".into(),
                )),
            }
        }
    }
}

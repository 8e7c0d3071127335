//! The status page at the root of the metrics server (`/`) and the JSON it refreshes from
//! (`/status.json`): the ROS graph (nodes, topics with their types, publishers and
//! subscribers), message rate and bandwidth per topic, how much payload went through the lane,
//! zenoh's shared memory and the network, and why shared memory is off where it is.
//!
//! The page is one self-contained HTML file (`status_page.html`, inline CSS and script; it
//! fetches nothing but `/status.json` from the same server).
//!
//! Rates are measured by the [`Meter`]: one zenoh subscription on every topic of the domain
//! (`<domain>/**`), declared when the page is first read and dropped once nobody has read it for
//! [`METER_IDLE`]. While it runs the router receives every message (through zenoh's shared
//! memory when the publisher's host has it, else over the network), and a publisher whose
//! subscribers were all served by the same-host lane sends through zenoh as well.
//! Everything else (payload split, SHM status, fallbacks) comes from the same sources as
//! `/metrics`.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;
use zshm::Session;
use zshm::raw::{RawCallbackSubscription, SubscriptionOptions};
use zshm::ros::graph;
use zshm::ros::keyexpr::ros_type_name;
use zshm::ros::liveliness::EntityKind;
use zshm_ops::telemetry::exporter::{Exporter, QUERY_TIMEOUT};

/// The page.
pub const HTML: &str = include_str!("status_page.html");

/// How long the meter keeps subscribed after the last read of `/status.json`.
pub const METER_IDLE: Duration = Duration::from_secs(20);

/// The window a rate is measured over.
const RATE_WINDOW: Duration = Duration::from_secs(2);

/// What `/status.json` returns.
#[derive(Debug, Serialize)]
pub struct Status {
    /// Milliseconds since the Unix epoch, when gathered.
    pub time_ms: u128,
    /// Nodes of the graph.
    pub nodes: Vec<NodeStatus>,
    /// Topics of the graph, with what the meter measured.
    pub topics: Vec<TopicStatus>,
    /// Payload bytes sent, summed over every node, by path (`lane`, `shm`, `network`).
    pub payload_bytes: BTreeMap<String, f64>,
    /// zshm processes, with their SHM and lane state.
    pub processes: Vec<ProcessStatus>,
    /// Counted fallbacks and refusals (non-zero only), with their reasons.
    pub fallbacks: Vec<Fallback>,
    /// The zenoh links of this host's processes, each direction, by the kernel's TCP count: the
    /// traffic of the nodes without statistics of their own (rmw_zenoh_cpp) too.
    pub links: Vec<LinkStatus>,
}

/// One direction of a zenoh link between two processes of the host.
#[derive(Debug, Serialize)]
pub struct LinkStatus {
    /// The sender's ROS nodes (or its zid, and its role, when it has none).
    pub from: String,
    /// The receiver's.
    pub to: String,
    /// Whether the link negotiated shared memory.
    pub shm: bool,
    /// Whether the sender reports statistics of its own (a zshm or zenoh-stats process); the
    /// others' traffic is known only from this count.
    pub reporting: bool,
    /// Bytes sent over the link's TCP connection, by the kernel's count.
    pub tcp_bytes: f64,
}

/// A ROS node.
#[derive(Debug, Serialize)]
pub struct NodeStatus {
    /// Fully qualified name.
    pub name: String,
    /// The zenoh id of its session.
    pub zid: String,
}

/// A topic.
#[derive(Debug, Serialize)]
pub struct TopicStatus {
    /// Fully qualified name.
    pub name: String,
    /// ROS types (more than one: a mismatch in the graph).
    pub types: Vec<String>,
    /// Nodes publishing it.
    pub publishers: Vec<String>,
    /// Nodes subscribing to it.
    pub subscribers: Vec<String>,
    /// Messages per second over the last [`RATE_WINDOW`] (None until measured).
    pub rate_hz: Option<f64>,
    /// Payload bytes per second over the same window.
    pub bytes_per_second: Option<f64>,
    /// Messages the meter received since it started.
    pub messages: u64,
}

/// A zshm process (one session).
#[derive(Debug, Serialize)]
pub struct ProcessStatus {
    /// zenoh id.
    pub zid: String,
    /// e.g. `zshm cam-pub`.
    pub program: String,
    /// Its ROS nodes.
    pub nodes: String,
    /// Whether it publishes through shared memory.
    pub shm: bool,
    /// Why not.
    pub shm_reason: String,
    /// Whether the same-host lane is on.
    pub lane: bool,
    /// Why not.
    pub lane_reason: String,
}

/// A non-zero fallback counter.
#[derive(Debug, Serialize)]
pub struct Fallback {
    /// The series, e.g. `zshm_shm_fallbacks_total`.
    pub what: String,
    /// The process's ROS nodes (or zid).
    pub node: String,
    /// The reason label.
    pub reason: String,
    /// The count.
    pub count: f64,
}

/// Builds [`Status`]es.
#[derive(Clone)]
pub struct StatusSource {
    session: Session,
    exporter: Exporter,
    meter: Arc<Meter>,
}

impl StatusSource {
    /// A source reading through `session`.
    pub fn new(session: Session, exporter: Exporter) -> Self {
        Self {
            meter: Arc::new(Meter::new(session.clone())),
            session,
            exporter,
        }
    }

    /// Gathers the status (and keeps the meter running).
    pub async fn gather(&self) -> Status {
        self.meter.touch().await;
        let domain = self.session.ros_domain_id();
        let (text, graph) = tokio::join!(
            self.exporter.render(),
            graph::snapshot_once(&self.session, domain, QUERY_TIMEOUT)
        );
        let graph = graph.unwrap_or_default();
        let rates = self.meter.rates();
        let mut topics: BTreeMap<String, TopicStatus> = BTreeMap::new();
        for endpoint in &graph.endpoints {
            let is_pub = matches!(endpoint.kind, EntityKind::Publisher);
            if !is_pub && !matches!(endpoint.kind, EntityKind::Subscription) {
                continue;
            }
            let topic = topics
                .entry(endpoint.topic.clone())
                .or_insert_with(|| TopicStatus {
                    name: endpoint.topic.clone(),
                    types: Vec::new(),
                    publishers: Vec::new(),
                    subscribers: Vec::new(),
                    rate_hz: None,
                    bytes_per_second: None,
                    messages: 0,
                });
            let ros_type = ros_type_name(&endpoint.type_name);
            if !topic.types.contains(&ros_type) {
                topic.types.push(ros_type);
            }
            let node = endpoint.node.fully_qualified_name();
            let list = if is_pub {
                &mut topic.publishers
            } else {
                &mut topic.subscribers
            };
            if !list.contains(&node) {
                list.push(node);
            }
        }
        for topic in topics.values_mut() {
            if let Some(rate) = rates.get(&topic.name) {
                topic.rate_hz = rate.rate_hz;
                topic.bytes_per_second = rate.bytes_per_second;
                topic.messages = rate.messages;
            }
        }
        let mut status = from_metrics(&text);
        status.nodes = graph
            .nodes
            .iter()
            .map(|n| NodeStatus {
                name: n.fully_qualified_name(),
                zid: n.zid.clone(),
            })
            .collect();
        status.nodes.sort_by(|a, b| a.name.cmp(&b.name));
        status.topics = topics.into_values().collect();
        status
    }
}

/// The payload split, processes and fallbacks, from the exporter's text (the same numbers as
/// `/metrics`).
fn from_metrics(text: &str) -> Status {
    let mut status = Status {
        time_ms: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis()),
        nodes: Vec::new(),
        topics: Vec::new(),
        payload_bytes: BTreeMap::new(),
        processes: Vec::new(),
        fallbacks: Vec::new(),
        links: Vec::new(),
    };
    let lines = text.lines().map(|l| Ok(l.to_owned()));
    let Ok(scrape) = prometheus_parse::Scrape::parse(lines) else {
        return status;
    };
    let mut processes: BTreeMap<String, ProcessStatus> = BTreeMap::new();
    let reporting: std::collections::HashSet<&str> = scrape
        .samples
        .iter()
        .filter(|s| s.metric == "zshm_payload_bytes_total")
        .filter_map(|s| s.labels.get("zid"))
        .collect();
    for sample in &scrape.samples {
        let value = match sample.value {
            prometheus_parse::Value::Counter(v)
            | prometheus_parse::Value::Gauge(v)
            | prometheus_parse::Value::Untyped(v) => v,
            _ => continue,
        };
        let label = |name: &str| sample.labels.get(name).unwrap_or_default().to_owned();
        let zid = label("zid");
        let process = |processes: &mut BTreeMap<String, ProcessStatus>| {
            ensure_process(processes, &zid, &label("node"));
        };
        match sample.metric.as_str() {
            "zshm_payload_bytes_total" if label("direction") == "tx" => {
                *status.payload_bytes.entry(label("path")).or_default() += value;
            }
            "zshm_node_info" => {
                process(&mut processes);
                if let Some(p) = processes.get_mut(&zid) {
                    p.program = label("program");
                }
            }
            "zshm_shm_enabled" => {
                process(&mut processes);
                let Some(p) = processes.get_mut(&zid) else {
                    continue;
                };
                p.shm = value > 0.0;
                p.shm_reason = label("reason");
            }
            "zshm_lane_enabled" => {
                process(&mut processes);
                let Some(p) = processes.get_mut(&zid) else {
                    continue;
                };
                p.lane = value > 0.0;
                p.lane_reason = label("reason");
            }
            "zshm_link_tcp_bytes_total" => {
                let who = |node: String, zid: String, role: String| {
                    if node.is_empty() {
                        format!("{zid} ({role})")
                    } else {
                        node
                    }
                };
                status.links.push(LinkStatus {
                    from: who(label("node"), zid.clone(), label("role")),
                    to: who(label("peer_node"), label("peer_zid"), label("peer_role")),
                    shm: label("shm") == "true",
                    reporting: reporting.contains(zid.as_str()),
                    tcp_bytes: value,
                });
            }
            "zshm_shm_fallbacks_total"
            | "zshm_lane_fallbacks_total"
            | "zshm_same_host_links_without_shm_total"
            | "zshm_received_dropped_total"
                if value > 0.0 =>
            {
                let node = label("node");
                status.fallbacks.push(Fallback {
                    what: sample.metric.clone(),
                    node: if node.is_empty() { zid.clone() } else { node },
                    reason: label("reason"),
                    count: value,
                });
            }
            _ => {}
        }
    }
    status.processes = processes
        .into_values()
        .filter(|p| !p.program.is_empty())
        .collect();
    status
}

fn ensure_process(processes: &mut BTreeMap<String, ProcessStatus>, zid: &str, nodes: &str) {
    processes.entry(zid.to_owned()).or_insert_with(|| ProcessStatus {
        zid: zid.to_owned(),
        program: String::new(),
        nodes: nodes.to_owned(),
        shm: false,
        shm_reason: String::new(),
        lane: false,
        lane_reason: String::new(),
    });
}

/// One topic's counters as the meter saw them.
#[derive(Debug, Clone, Default)]
pub struct TopicRate {
    /// Messages per second over the window.
    pub rate_hz: Option<f64>,
    /// Bytes per second over the window.
    pub bytes_per_second: Option<f64>,
    /// Messages since the meter started.
    pub messages: u64,
}

/// Arrivals of one topic: (time, payload bytes) within the window, and a total.
#[derive(Debug, Default)]
struct Arrivals {
    recent: std::collections::VecDeque<(Instant, usize)>,
    total: u64,
}

/// Counts messages per topic while someone reads the page.
pub struct Meter {
    session: Session,
    state: Mutex<MeterState>,
    arrivals: Arc<Mutex<HashMap<String, Arrivals>>>,
}

#[derive(Default)]
struct MeterState {
    /// The subscription, and the observer token that keeps lane publishers sending through
    /// zenoh meanwhile (else a topic only lane subscribers read would show no rate).
    subscription: Option<(
        RawCallbackSubscription,
        Option<zenoh::liveliness::LivelinessToken>,
    )>,
    last_read: Option<Instant>,
}

impl Meter {
    fn new(session: Session) -> Self {
        Self {
            session,
            state: Mutex::new(MeterState::default()),
            arrivals: Arc::default(),
        }
    }

    /// Notes a read; subscribes when the meter is not running, and drops the subscription of a
    /// meter nobody read for [`METER_IDLE`] (checked here and by a timer).
    async fn touch(self: &Arc<Self>) {
        {
            let mut state = self.state.lock().expect("no panics under the meter lock");
            state.last_read = Some(Instant::now());
            if state.subscription.is_some() {
                return;
            }
        }
        let domain = self.session.ros_domain_id();
        let arrivals = self.arrivals.clone();
        let prefix = format!("{domain}/");
        let declared = self
            .session
            .declare_callback_subscription(
                &format!("{domain}/**"),
                SubscriptionOptions::default(),
                move |sample| {
                    let Some(topic) = topic_of(sample.key_expr(), &prefix) else {
                        return;
                    };
                    let now = Instant::now();
                    let mut all = arrivals.lock().expect("no panics under the arrivals lock");
                    let entry = all.entry(topic).or_default();
                    entry.total += 1;
                    entry.recent.push_back((now, sample.payload().len()));
                    while entry
                        .recent
                        .front()
                        .is_some_and(|(t, _)| now.duration_since(*t) > RATE_WINDOW)
                    {
                        entry.recent.pop_front();
                    }
                },
            )
            .await;
        match declared {
            Ok(subscription) => {
                let token = zshm::ros::liveliness::observer_token(domain, &self.session.zid(), 0);
                let token = match self.session.zenoh().liveliness().declare_token(token).await {
                    Ok(token) => Some(token),
                    Err(err) => {
                        tracing::warn!("status page: topics only the lane carries will show no rate: {err}");
                        None
                    }
                };
                let subscription = (subscription, token);
                tracing::info!(
                    "status page: measuring topic rates (subscribed to {domain}/** until nobody reads the page for {METER_IDLE:?})"
                );
                self.state
                    .lock()
                    .expect("no panics under the meter lock")
                    .subscription = Some(subscription);
                let meter = Arc::downgrade(self);
                tokio::spawn(async move {
                    loop {
                        tokio::time::sleep(METER_IDLE / 4).await;
                        let Some(meter) = meter.upgrade() else { return };
                        let mut state = meter.state.lock().expect("no panics under the meter lock");
                        if state.last_read.is_some_and(|t| t.elapsed() > METER_IDLE) {
                            state.subscription = None;
                            meter
                                .arrivals
                                .lock()
                                .expect("no panics under the arrivals lock")
                                .clear();
                            tracing::info!("status page: nobody reads it; rate measurement stopped");
                            return;
                        }
                    }
                });
            }
            Err(err) => tracing::warn!("status page: topic rates not measured: {err}"),
        }
    }

    fn rates(&self) -> HashMap<String, TopicRate> {
        let now = Instant::now();
        let all = self.arrivals.lock().expect("no panics under the arrivals lock");
        all.iter()
            .map(|(topic, a)| {
                let recent: Vec<_> = a
                    .recent
                    .iter()
                    .filter(|(t, _)| now.duration_since(*t) <= RATE_WINDOW)
                    .collect();
                // Over the time the window's messages span: n - 1 intervals.
                let rate = match (recent.first(), recent.last()) {
                    (Some((first, _)), Some((last, _))) if recent.len() >= 2 && last > first => {
                        let span = last.duration_since(*first).as_secs_f64();
                        let bytes: usize = recent[1..].iter().map(|(_, b)| b).sum();
                        Some(((recent.len() - 1) as f64 / span, bytes as f64 / span))
                    }
                    _ => None,
                };
                (
                    topic.clone(),
                    TopicRate {
                        rate_hz: rate.map(|r| r.0),
                        bytes_per_second: rate.map(|r| r.1),
                        messages: a.total,
                    },
                )
            })
            .collect()
    }
}

/// The topic of a data key `<domain>/<topic chunks>/<type>/<hash>` (see
/// [`zshm::ros::keyexpr`]); None for keys that are not topics.
fn topic_of(key: &str, domain_prefix: &str) -> Option<String> {
    let rest = key.strip_prefix(domain_prefix)?;
    let mut chunks: Vec<&str> = rest.split('/').collect();
    if chunks.len() < 3 {
        return None;
    }
    chunks.truncate(chunks.len() - 2);
    Some(format!("/{}", chunks.join("/")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_keys_map_to_topics() {
        assert_eq!(
            topic_of(
                "0/camera/points/sensor_msgs::msg::dds_::PointCloud2_/RIHS01_91",
                "0/"
            )
            .as_deref(),
            Some("/camera/points")
        );
        assert_eq!(
            topic_of("0/chatter/std_msgs::msg::dds_::String_/RIHS01_df", "0/").as_deref(),
            Some("/chatter")
        );
        assert_eq!(topic_of("0/x", "0/"), None);
        assert_eq!(topic_of("1/chatter/t/h", "0/"), None);
    }

    #[test]
    fn metrics_give_the_payload_split_and_the_reasons() {
        let text = r#"# TYPE zshm_payload_bytes_total counter
zshm_payload_bytes_total{zid="a",role="peer",node="/cam",host="h",direction="tx",path="shm"} 100
zshm_payload_bytes_total{zid="a",role="peer",node="/cam",host="h",direction="rx",path="shm"} 7
zshm_payload_bytes_total{zid="b",role="peer",node="/talker",host="h",direction="tx",path="lane"} 30
# TYPE zshm_node_info gauge
zshm_node_info{zid="b",role="peer",node="/talker",host="h",program="zshm talker"} 1
# TYPE zshm_shm_enabled gauge
zshm_shm_enabled{zid="b",role="peer",node="/talker",host="h",reason="dev_shm_read_only"} 0
# TYPE zshm_shm_fallbacks_total counter
zshm_shm_fallbacks_total{zid="b",role="peer",node="/talker",host="h",reason="pool_full"} 3
zshm_shm_fallbacks_total{zid="b",role="peer",node="/talker",host="h",reason="too_big"} 0
"#;
        let status = from_metrics(text);
        assert_eq!(status.payload_bytes.get("shm"), Some(&100.0));
        assert_eq!(status.payload_bytes.get("lane"), Some(&30.0));
        assert_eq!(status.processes.len(), 1);
        assert_eq!(status.processes[0].shm_reason, "dev_shm_read_only");
        assert!(!status.processes[0].shm);
        assert_eq!(status.fallbacks.len(), 1);
        assert_eq!(status.fallbacks[0].reason, "pool_full");
    }
}

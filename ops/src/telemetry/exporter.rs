//! [`Exporter`]: gathers, at scrape time, everything zshm exports for the whole robot, and
//! renders it in the Prometheus text format.
//!
//! Sources, queried in parallel over the zenoh network the exporter's session is part of:
//! zenoh's statistics of every node ([`super::zenoh_stats`]), the reports of zshm sessions
//! ([`zshm::internal::session::report`]), ROS node names from the liveliness tokens, and the host ([`super::host`]).
//! Series of a node carry `zid`, `role` (router, peer, client), `node` (its ROS node names,
//! comma-separated, empty when it has none) and `host` (the host name a zshm process reports;
//! empty for other nodes).

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::time::Duration;

use prometheus::proto::{self, MetricFamily, MetricType};

use super::{host, tcp_links, zenoh_stats};
use zshm::Session;
use zshm::internal::session::report::{NodeReport, REPORT_PREFIX};
use zshm::stats::histogram::HistogramSnapshot;
use zshm::stats::{DropReason, LaneFallback, LinkShmCause, LoanFallback, QueueOverflow, ShmUnreadable};

/// How long a scrape waits for the nodes' answers.
pub const QUERY_TIMEOUT: Duration = Duration::from_millis(800);

/// The content type of [`Exporter::render`]'s output.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Collects the whole robot's metrics through one session.
#[derive(Debug, Clone)]
pub struct Exporter {
    session: Session,
    dev_shm: PathBuf,
}

impl Exporter {
    /// An exporter querying through `session`.
    pub fn new(session: Session) -> Self {
        Self {
            session,
            dev_shm: PathBuf::from(zshm::internal::shm::preflight::DEV_SHM),
        }
    }

    /// Gathers every source and renders the Prometheus text format.
    pub async fn render(&self) -> String {
        let families = self.gather().await;
        prometheus::TextEncoder::new()
            .encode_to_string(&families)
            .unwrap_or_else(|err| format!("# zshm exporter could not encode: {err}\n"))
    }

    /// Gathers every source into metric families.
    pub async fn gather(&self) -> Vec<MetricFamily> {
        let zenoh = self.session.zenoh();
        let domain = self.session.ros_domain_id();
        let (stats, reports, graph, links) = tokio::join!(
            zenoh_stats::query(zenoh, QUERY_TIMEOUT),
            query_reports(zenoh),
            zshm::ros::graph::snapshot_once(&self.session, domain, QUERY_TIMEOUT),
            tcp_links::query(zenoh, QUERY_TIMEOUT),
        );
        let mut names: HashMap<String, Vec<String>> = HashMap::default();
        for node in graph.map(|g| g.nodes).unwrap_or_default() {
            names
                .entry(node.zid.clone())
                .or_default()
                .push(node.fully_qualified_name());
        }
        let node_label = |zid: &str| {
            let mut list = names.get(zid).cloned().unwrap_or_default();
            list.sort();
            list.join(",")
        };
        // Only zshm processes say where they run; other nodes (rmw_zenohd, rmw_zenoh_cpp) get "".
        let hosts: HashMap<&str, &str> = reports
            .iter()
            .map(|r| (r.zid.as_str(), r.host.as_str()))
            .collect();
        let host_label = |zid: &str| hosts.get(zid).copied().unwrap_or_default();

        let mut out = Families::default();
        let zenoh_version = zshm::internal::shm::compat::ZenohVersion::ours().to_string();
        out.gauge(
            "zshm_build_info",
            "zshm build; the value is always 1.",
            labels(&[
                ("version", env!("CARGO_PKG_VERSION")),
                ("zenoh_version", &zenoh_version),
            ]),
            1.0,
        );
        out.gauge(
            "zshm_nodes_reporting",
            "Nodes that answered this scrape, by source.",
            labels(&[("source", "zenoh_stats")]),
            stats.len() as f64,
        );
        out.gauge(
            "zshm_nodes_reporting",
            "Nodes that answered this scrape, by source.",
            labels(&[("source", "zshm_report")]),
            reports.len() as f64,
        );

        let report_of: HashMap<&str, &NodeReport> = reports.iter().map(|r| (r.zid.as_str(), r)).collect();
        for node in &stats {
            let base = node_labels(
                &node.zid,
                &node.role,
                &node_label(&node.zid),
                host_label(&node.zid),
            );
            let derived = report_of
                .get(node.zid.as_str())
                .map(|report| zenoh_stats::derive_payload_bytes(&node.series, &report.stats))
                .unwrap_or_default();
            for series in node.series.iter().chain(&derived) {
                let mut all = base.clone();
                all.extend(series.labels.iter().map(|(k, v)| ((*k).to_owned(), v.clone())));
                let (help, kind) = zenoh_family(series.family);
                out.add(series.family, help, kind, all, series.value);
            }
        }
        for report in &reports {
            self.add_report(&mut out, report, &node_label(&report.zid), &report.host);
        }
        for link in &links {
            let mut all = node_labels(
                &link.zid,
                &link.role,
                &node_label(&link.zid),
                host_label(&link.zid),
            );
            all.extend(labels(&[
                ("peer_zid", &link.peer_zid),
                ("peer_role", &link.peer_role),
                ("peer_node", &node_label(&link.peer_zid)),
                ("shm", if link.shm { "true" } else { "false" }),
            ]));
            out.counter(
                "zshm_link_tcp_bytes_total",
                "Bytes a process sent to another over their zenoh link's TCP connection, by the \
                 kernel's count (measured by the exporter, for every process of its host, those \
                 without statistics of their own such as rmw_zenoh_cpp nodes included); shm: the \
                 link negotiated shared memory, so its large messages cross as descriptors.",
                all,
                link.sent as f64,
            );
        }
        if let Some(lo) = host::loopback() {
            let help =
                "Bytes through the kernel's loopback interface (what iftop -i lo shows), from /proc/net/dev.";
            out.counter(
                "zshm_loopback_bytes_total",
                help,
                labels(&[("direction", "rx")]),
                lo.rx_bytes as f64,
            );
            out.counter(
                "zshm_loopback_bytes_total",
                help,
                labels(&[("direction", "tx")]),
                lo.tx_bytes as f64,
            );
        }
        if let Some(shm) = zshm::internal::shm::usage::dev_shm(&self.dev_shm) {
            out.gauge(
                "zshm_dev_shm_size_bytes",
                "Size of the /dev/shm filesystem.",
                Vec::new(),
                shm.size_bytes as f64,
            );
            out.gauge(
                "zshm_dev_shm_free_bytes",
                "Free bytes in /dev/shm.",
                Vec::new(),
                shm.free_bytes as f64,
            );
            out.gauge(
                "zshm_dev_shm_zenoh_bytes",
                "Bytes held by zenoh's *.zenoh segments in /dev/shm.",
                Vec::new(),
                shm.zenoh_bytes as f64,
            );
            out.gauge(
                "zshm_dev_shm_zenoh_segments",
                "Number of zenoh *.zenoh segments in /dev/shm.",
                Vec::new(),
                shm.zenoh_segments as f64,
            );
            let (files, bytes) = zshm::internal::lane::clean::dev_shm_usage(&self.dev_shm);
            out.gauge(
                "zshm_dev_shm_lane_bytes",
                "Bytes held in /dev/shm by the files of the same-host lane (every user's).",
                Vec::new(),
                bytes as f64,
            );
            out.gauge(
                "zshm_dev_shm_lane_files",
                "Number of files of the same-host lane in /dev/shm (every user's).",
                Vec::new(),
                files as f64,
            );
        }
        out.finish()
    }

    fn add_report(&self, out: &mut Families, report: &NodeReport, node: &str, host: &str) {
        let base = node_labels(&report.zid, &report.role, node, host);
        let with = |extra: &[(&str, &str)]| {
            let mut all = base.clone();
            all.extend(extra.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
            all
        };
        let s = &report.stats;
        out.gauge(
            "zshm_node_info",
            "A zshm process; the value is always 1.",
            with(&[("program", &report.program)]),
            1.0,
        );
        out.gauge(
            "zshm_shm_enabled",
            "1 when the node publishes through shared memory, 0 when it fell back to the network (reason says why).",
            with(&[("reason", report.shm_reason.as_deref().unwrap_or(""))]),
            f64::from(u8::from(report.shm_active)),
        );
        out.gauge(
            "zshm_shm_pool_size_bytes",
            "Size of the node's SHM pool (0 when SHM is off).",
            with(&[]),
            report.shm_pool_bytes as f64,
        );
        for reason in LoanFallback::ALL {
            out.counter(
                "zshm_shm_fallbacks_total",
                "Loans served from the heap instead of the SHM pool, by reason; the message still went out, over the network.",
                with(&[("reason", reason.label())]),
                s.fallbacks(reason) as f64,
            );
        }
        let published = [
            ("shm", s.published_shm_messages, s.published_shm_bytes),
            ("heap", s.published_heap_messages, s.published_heap_bytes),
        ];
        for (path, messages, bytes) in published {
            out.counter(
                "zshm_published_messages_total",
                "Messages published by zshm, by the buffer they were in.",
                with(&[("path", path)]),
                messages as f64,
            );
            out.counter(
                "zshm_published_bytes_total",
                "Payload bytes published by zshm, by the buffer they were in.",
                with(&[("path", path)]),
                bytes as f64,
            );
        }
        for cause in LinkShmCause::ALL {
            out.counter(
                "zshm_same_host_links_without_shm_total",
                "Links to processes of this host that carry copies over TCP although this node has SHM, by cause.",
                with(&[("reason", cause.label())]),
                s.links_without_shm(cause) as f64,
            );
        }
        self.add_lane(out, report, &with);
        for reason in DropReason::ALL {
            out.counter(
                "zshm_received_dropped_total",
                "ROS samples rejected on receipt (not delivered), by reason.",
                with(&[("reason", reason.label())]),
                s.dropped(reason) as f64,
            );
        }
        for cause in ShmUnreadable::ALL {
            out.counter(
                "zshm_shm_unreadable_total",
                "Received messages dropped because their shared-memory buffer could not be read (counted for the whole process), by cause.",
                with(&[("reason", cause.label())]),
                s.shm_unreadable(cause) as f64,
            );
        }
        out.counter(
            "zshm_shm_reclaimed_total",
            "Loans served from pool buffers reclaimed from readers that stopped confirming them (crashed or stopped), when the pool was full otherwise.",
            with(&[]),
            s.reclaimed_from_dead_readers as f64,
        );
        for kind in QueueOverflow::ALL {
            out.counter(
                "zshm_subscription_dropped_total",
                "Samples a subscription dropped because its callback or reader did not keep up (the oldest queued one), by the subscription's QoS.",
                with(&[("qos", kind.label())]),
                s.overflows(kind) as f64,
            );
        }
        for latency in &report.latency {
            out.histogram(
                "zshm_cam_latency_seconds",
                "Latency measured by zshm cam-latency: receive wall clock minus header.stamp.",
                with(&[("topic", &latency.topic)]),
                &latency.histogram,
            );
        }
        for route in &report.routes {
            let route_labels = [
                ("topic", route.topic.as_str()),
                ("direction", route.direction.as_str()),
            ];
            out.gauge(
                "zshm_bridge_route_up",
                "1 while the bridge has this route (an endpoint on each side), 0 after it went.",
                with(&route_labels),
                f64::from(u8::from(route.up)),
            );
            out.counter(
                "zshm_bridge_messages_total",
                "Messages the bridge forwarded on the route, since it started.",
                with(&route_labels),
                route.messages as f64,
            );
            out.counter(
                "zshm_bridge_bytes_total",
                "Payload bytes the bridge forwarded on the route, since it started.",
                with(&route_labels),
                route.bytes as f64,
            );
            for (reason, count) in &route.drops {
                let mut all = route_labels.to_vec();
                all.push(("reason", reason.as_str()));
                out.counter(
                    "zshm_bridge_dropped_total",
                    "Messages the bridge did not forward on the route, by reason (each logged once).",
                    with(&all),
                    *count as f64,
                );
            }
        }
    }
}

impl Exporter {
    /// The lane's series of one node: its status, what went through it, and every fallback.
    fn add_lane(&self, out: &mut Families, report: &NodeReport, with: &WithLabels<'_>) {
        let lane = &report.stats.lane;
        out.gauge(
            "zshm_lane_enabled",
            "1 when the node's zshm endpoints use the same-host lane, 0 when it is off (reason says why).",
            with(&[("reason", report.lane_reason.as_deref().unwrap_or(""))]),
            f64::from(u8::from(report.lane_on)),
        );
        let flows = [
            ("tx", lane.published_messages, lane.published_bytes),
            ("rx", lane.received_messages, lane.received_bytes),
        ];
        for (direction, messages, bytes) in flows {
            out.counter(
                "zshm_payload_bytes_total",
                PAYLOAD_BYTES_HELP,
                with(&[("direction", direction), ("path", "lane")]),
                bytes as f64,
            );
            out.counter(
                "zshm_payload_messages_total",
                PAYLOAD_MESSAGES_HELP,
                with(&[("direction", direction), ("path", "lane")]),
                messages as f64,
            );
        }
        out.counter(
            "zshm_published_messages_total",
            "Messages published by zshm, by the buffer they were in.",
            with(&[("path", "lane")]),
            lane.published_messages as f64,
        );
        out.counter(
            "zshm_published_bytes_total",
            "Payload bytes published by zshm, by the buffer they were in.",
            with(&[("path", "lane")]),
            lane.published_bytes as f64,
        );
        for reason in LaneFallback::ALL {
            out.counter(
                "zshm_lane_fallbacks_total",
                "Publisher-subscriber pairs (or single messages) that went through zenoh instead of the lane, by reason.",
                with(&[("reason", reason.label())]),
                lane.fallbacks(reason) as f64,
            );
        }
        let events = [
            (
                "zshm_lane_zenoh_skipped_total",
                "Messages not sent through zenoh because every subscriber was served by the lane.",
                lane.zenoh_skipped,
            ),
            (
                "zshm_lane_duplicates_dropped_total",
                "Copies of a message received through both the lane and zenoh, delivered once.",
                lane.duplicates_dropped,
            ),
            (
                "zshm_lane_switch_gaps_total",
                "Switches from zenoh to the lane that stopped waiting for messages zenoh still owed.",
                lane.switch_gaps,
            ),
            (
                "zshm_lane_queue_drops_total",
                "Messages a lane subscriber never read because its queue was full when they came (it did not keep up).",
                lane.queue_drops,
            ),
            (
                "zshm_lane_blocked_discards_total",
                "Messages a RELIABLE + KEEP_ALL lane publisher gave up delivering to a subscriber full for too long.",
                lane.blocked_discards,
            ),
            (
                "zshm_lane_borrow_stalls_total",
                "Times a lane subscriber waited because the application held as many messages as it may.",
                lane.borrow_stalls,
            ),
        ];
        for (name, help, value) in events {
            out.counter(name, help, with(&[]), value as f64);
        }
    }
}

/// Builds a node's labels plus some of a series' own.
type WithLabels<'a> = dyn Fn(&[(&str, &str)]) -> Labels + 'a;

const PAYLOAD_BYTES_HELP: &str = "Payload bytes of user messages, by direction and path (shm: through zenoh's shared memory, network: over the link, from zenoh's statistics; on zenoh 1.9, which counts messages but not their bytes, received bytes are the zshm subscriptions' own count and sent bytes the messages sent times the mean size published; lane: through the same-host lane, from zshm's report).";

const PAYLOAD_MESSAGES_HELP: &str =
    "User messages, by direction and path (shm, network or lane; see zshm_payload_bytes_total).";

async fn query_reports(session: &zenoh::Session) -> Vec<NodeReport> {
    super::query_all(session, &format!("{REPORT_PREFIX}/*/report"), QUERY_TIMEOUT)
        .await
        .iter()
        .filter_map(|sample| serde_json::from_slice(&sample.payload().to_bytes()).ok())
        .collect()
}

fn zenoh_family(family: &str) -> (&'static str, MetricType) {
    match family {
        "zshm_payload_bytes_total" => (PAYLOAD_BYTES_HELP, MetricType::COUNTER),
        "zshm_payload_messages_total" => (PAYLOAD_MESSAGES_HELP, MetricType::COUNTER),
        "zshm_wire_bytes_total" => (
            "Bytes written to or read from the node's sockets, by protocol, from zenoh's statistics.",
            MetricType::COUNTER,
        ),
        "zshm_dropped_payload_bytes_total" => (
            "Payload bytes zenoh dropped (congestion, no link, ...), by reason.",
            MetricType::COUNTER,
        ),
        "zshm_transports" => ("Sessions the node has open with other nodes.", MetricType::GAUGE),
        _ => ("Links the node has open, by protocol.", MetricType::GAUGE),
    }
}

type Labels = Vec<(String, String)>;

fn labels(pairs: &[(&str, &str)]) -> Labels {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn node_labels(zid: &str, role: &str, node: &str, host: &str) -> Labels {
    labels(&[("zid", zid), ("role", role), ("node", node), ("host", host)])
}

/// Families being built, keyed by name so each is written once.
#[derive(Default)]
struct Families(BTreeMap<String, MetricFamily>);

impl Families {
    fn counter(&mut self, name: &str, help: &str, labels: Labels, value: f64) {
        self.add(name, help, MetricType::COUNTER, labels, value);
    }

    fn gauge(&mut self, name: &str, help: &str, labels: Labels, value: f64) {
        self.add(name, help, MetricType::GAUGE, labels, value);
    }

    fn add(&mut self, name: &str, help: &str, kind: MetricType, labels: Labels, value: f64) {
        let mut metric = proto::Metric::from_label(label_pairs(labels));
        match kind {
            MetricType::COUNTER => {
                let mut counter = proto::Counter::default();
                counter.set_value(value);
                metric.set_counter(counter);
            }
            _ => {
                let mut gauge = proto::Gauge::default();
                gauge.set_value(value);
                metric.set_gauge(gauge);
            }
        }
        self.family(name, help, kind).mut_metric().push(metric);
    }

    fn histogram(&mut self, name: &str, help: &str, labels: Labels, snapshot: &HistogramSnapshot) {
        let mut histogram = proto::Histogram::default();
        histogram.set_sample_count(snapshot.count);
        histogram.set_sample_sum(snapshot.sum_seconds);
        histogram.set_bucket(
            snapshot
                .buckets
                .iter()
                .map(|(upper, count)| {
                    let mut bucket = proto::Bucket::default();
                    bucket.set_upper_bound(*upper);
                    bucket.set_cumulative_count(*count);
                    bucket
                })
                .collect(),
        );
        let mut metric = proto::Metric::from_label(label_pairs(labels));
        metric.set_histogram(histogram);
        self.family(name, help, MetricType::HISTOGRAM)
            .mut_metric()
            .push(metric);
    }

    fn family(&mut self, name: &str, help: &str, kind: MetricType) -> &mut MetricFamily {
        self.0.entry(name.to_owned()).or_insert_with(|| {
            let mut family = MetricFamily::default();
            family.set_name(name.to_owned());
            family.set_help(help.to_owned());
            family.set_field_type(kind);
            family
        })
    }

    fn finish(self) -> Vec<MetricFamily> {
        self.0.into_values().collect()
    }
}

fn label_pairs(labels: Labels) -> Vec<proto::LabelPair> {
    labels
        .into_iter()
        .map(|(name, value)| {
            let mut pair = proto::LabelPair::default();
            pair.set_name(name);
            pair.set_value(value);
            pair
        })
        .collect()
}

//! zenoh's own statistics (crate feature `stats`), read from the admin space of every node that
//! enables it, and translated into zshm's series.
//!
//! zenoh (1.9 and 1.10) serves OpenMetrics text at `@/<zid>/<whatami>/metrics`; the families used here
//! (`zenoh-stats/src/registry.rs`):
//!
//! | zenoh | zshm |
//! |---|---|
//! | `zenoh_{tx,rx}_network_message_payload_bytes_sum{space="user",shm}` | `zshm_payload_bytes_total{direction,path}` |
//! | `zenoh_{tx,rx}_network_message_payload_bytes_count{space="user",shm}` | `zshm_payload_messages_total{direction,path}` |
//! | `zenoh_{tx,rx}_bytes_total{protocol}` (bytes on the socket) | `zshm_wire_bytes_total{direction,protocol}` |
//! | `zenoh_{tx,rx}_network_message_dropped_payload_bytes_sum{reason}` | `zshm_dropped_payload_bytes_total{direction,reason}` |
//! | `zenoh_transports_opened` | `zshm_transports` |
//! | `zenoh_links_opened{protocol}` | `zshm_links{protocol}` |
//!
//! Payload series are summed over priority and message kind; `path` is `shm` when zenoh's `shm`
//! label is `true`, else `network`. zenoh 1.9 has the families but records no payload for
//! unicast links: there the puts of `zenoh_{tx,rx}_network_message_total{message="put",shm}`
//! are the message counts, and [`derive_payload_bytes`] gives the bytes.

use std::collections::BTreeMap;
use std::time::Duration;

/// A series' own labels, in order.
type SeriesLabels = Vec<(&'static str, String)>;

/// One translated series, before the node labels are added.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// zshm family name.
    pub family: &'static str,
    /// Its own labels (direction, path, protocol, reason).
    pub labels: SeriesLabels,
    /// The value.
    pub value: f64,
}

/// The statistics of one node.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeSeries {
    /// zenoh id.
    pub zid: String,
    /// `router`, `peer` or `client`.
    pub role: String,
    /// Translated series.
    pub series: Vec<Series>,
}

/// Asks every node for its statistics and translates them.
pub async fn query(session: &zenoh::Session, timeout: Duration) -> Vec<NodeSeries> {
    const SELECTOR: &str = "@/*/*/metrics?compression=false;disconnected=true;per_link=false;per_key=false";
    let mut nodes = Vec::new();
    for sample in super::query_all(session, SELECTOR, timeout).await {
        let mut chunks = sample.key_expr().as_str().split('/').skip(1);
        let (Some(zid), Some(role)) = (chunks.next(), chunks.next()) else {
            continue;
        };
        let Ok(text) = sample.payload().try_to_string() else {
            continue;
        };
        nodes.push(NodeSeries {
            zid: zid.to_owned(),
            role: role.to_owned(),
            series: translate(&text),
        });
    }
    nodes
}

/// Translates zenoh's OpenMetrics text into zshm series (see the module table).
pub fn translate(text: &str) -> Vec<Series> {
    let lines = text.lines().map(|l| Ok(l.to_owned()));
    let Ok(scrape) = prometheus_parse::Scrape::parse(lines) else {
        return Vec::new();
    };
    let mut summed: BTreeMap<(&'static str, SeriesLabels), f64> = BTreeMap::new();
    for sample in &scrape.samples {
        let value = match sample.value {
            prometheus_parse::Value::Counter(v)
            | prometheus_parse::Value::Gauge(v)
            | prometheus_parse::Value::Untyped(v) => v,
            _ => continue,
        };
        let label = |name: &str| sample.labels.get(name).unwrap_or_default().to_owned();
        let direction = if sample.metric.starts_with("zenoh_tx_") {
            "tx"
        } else {
            "rx"
        };
        let path = || {
            if label("shm") == "true" {
                "shm".to_owned()
            } else {
                "network".to_owned()
            }
        };
        let (family, labels) = match sample.metric.as_str() {
            "zenoh_tx_network_message_payload_bytes_sum" | "zenoh_rx_network_message_payload_bytes_sum"
                if label("space") == "user" =>
            {
                (
                    "zshm_payload_bytes_total",
                    vec![("direction", direction.into()), ("path", path())],
                )
            }
            "zenoh_tx_network_message_payload_bytes_count"
            | "zenoh_rx_network_message_payload_bytes_count"
                if label("space") == "user" =>
            {
                (
                    "zshm_payload_messages_total",
                    vec![("direction", direction.into()), ("path", path())],
                )
            }
            "zenoh_tx_bytes_total" | "zenoh_rx_bytes_total" => (
                "zshm_wire_bytes_total",
                vec![("direction", direction.into()), ("protocol", label("protocol"))],
            ),
            "zenoh_tx_network_message_dropped_payload_bytes_sum"
            | "zenoh_rx_network_message_dropped_payload_bytes_sum" => (
                "zshm_dropped_payload_bytes_total",
                vec![("direction", direction.into()), ("reason", label("reason"))],
            ),
            "zenoh_transports_opened" => ("zshm_transports", Vec::new()),
            "zenoh_links_opened" => ("zshm_links", vec![("protocol", label("protocol"))]),
            _ => continue,
        };
        *summed.entry((family, labels)).or_default() += value;
    }
    // zenoh 1.9 records no payload histograms for unicast links (its routing gives their faces
    // no statistics handle; 1.10 does): the puts it counts by path stand in for the message
    // counts, and the exporter derives the bytes ([`derive_payload_bytes`]).
    if !summed
        .keys()
        .any(|(family, _)| *family == "zshm_payload_messages_total")
    {
        for sample in &scrape.samples {
            let (prometheus_parse::Value::Counter(value) | prometheus_parse::Value::Untyped(value)) =
                sample.value
            else {
                continue;
            };
            let label = |name: &str| sample.labels.get(name).unwrap_or_default();
            let direction = match sample.metric.as_str() {
                "zenoh_tx_network_message_total" => "tx",
                "zenoh_rx_network_message_total" => "rx",
                _ => continue,
            };
            if label("message") != "put" {
                continue;
            }
            let path = if label("shm") == "true" { "shm" } else { "network" };
            *summed
                .entry((
                    "zshm_payload_messages_total",
                    vec![("direction", direction.into()), ("path", path.into())],
                ))
                .or_default() += value;
        }
    }
    summed
        .into_iter()
        .map(|((family, labels), value)| Series {
            family,
            labels,
            value,
        })
        .collect()
}

/// The payload bytes of a zshm process whose zenoh counted its messages by path but not their
/// bytes (zenoh 1.9, see [`translate`]): received bytes as the process's own subscriptions
/// counted them (exact), sent bytes as the puts zenoh sent by path times the mean size of what
/// the process published through zenoh (exact for fixed-size messages such as a camera's); for
/// a process that published nothing (a router forwarding others' messages), the bytes it wrote
/// on its sockets stand for what it sent over the network, and what it sent through shared
/// memory is left out (its sizes are unknown). Nothing when zenoh counted the bytes itself.
pub fn derive_payload_bytes(series: &[Series], stats: &zshm::stats::StatsSnapshot) -> Vec<Series> {
    if series.iter().any(|s| s.family == "zshm_payload_bytes_total") {
        return Vec::new();
    }
    let published_messages = stats.published_shm_messages + stats.published_heap_messages;
    let published_bytes = stats.published_shm_bytes + stats.published_heap_bytes;
    let mean_published = if published_messages > 0 {
        published_bytes as f64 / published_messages as f64
    } else {
        0.0
    };
    let label_of = |s: &Series, name: &str| {
        s.labels
            .iter()
            .find(|(k, _)| *k == name)
            .map_or(String::new(), |(_, v)| v.clone())
    };
    // What the process wrote on its sockets: for a process that publishes nothing itself (a
    // router forwarding), the messages it sent over the network are nearly all of it.
    let wire_tx: f64 = series
        .iter()
        .filter(|s| s.family == "zshm_wire_bytes_total" && label_of(s, "direction") == "tx")
        .map(|s| s.value)
        .sum();
    series
        .iter()
        .filter(|s| s.family == "zshm_payload_messages_total")
        .filter_map(|s| {
            let value = match (label_of(s, "direction").as_str(), label_of(s, "path").as_str()) {
                ("rx", "shm") => stats.received_shm_bytes as f64,
                ("rx", _) => stats.received_net_bytes as f64,
                ("tx", path) if published_messages == 0 => {
                    if path != "network" || s.value == 0.0 {
                        return None;
                    }
                    wire_tx
                }
                _ => (s.value * mean_published).round(),
            };
            Some(Series {
                family: "zshm_payload_bytes_total",
                labels: s.labels.clone(),
                value,
            })
        })
        .collect()
}

/// What this process's zenoh exchanged with one other process over their transport, by zenoh's
/// own count (`zenoh_{tx,rx}_network_message_per_transport_total{message="put",shm}` and
/// `zenoh_{tx,rx}_per_transport_bytes_total`): which of the puts a subscriber got went through
/// shared memory, whatever buffer they were published from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LinkTraffic {
    /// The other process's zenoh id.
    pub zid: String,
    /// `peer`, `router` or `client`.
    pub whatami: String,
    /// Puts sent through shared memory.
    pub tx_shm_puts: u64,
    /// Puts sent as copies over the network.
    pub tx_network_puts: u64,
    /// Messages zenoh dropped instead of sending them, because the transport's queue stayed
    /// full (a `CongestionControl::Drop` publisher: rmw_zenoh's mapping of every QoS but
    /// RELIABLE + KEEP_ALL). `put` returned `Ok` for each.
    pub tx_congestion_drops: u64,
    /// Puts received through shared memory.
    pub rx_shm_puts: u64,
    /// Puts received over the network.
    pub rx_network_puts: u64,
    /// Bytes written to the transport's links.
    pub tx_bytes: u64,
    /// Bytes read from them.
    pub rx_bytes: u64,
}

/// The per-transport traffic in a node's zenoh statistics text.
pub fn link_traffic(text: &str) -> Vec<LinkTraffic> {
    let lines = text.lines().map(|l| Ok(l.to_owned()));
    let Ok(scrape) = prometheus_parse::Scrape::parse(lines) else {
        return Vec::new();
    };
    let mut links: BTreeMap<String, LinkTraffic> = BTreeMap::new();
    for sample in &scrape.samples {
        let (prometheus_parse::Value::Counter(value) | prometheus_parse::Value::Untyped(value)) =
            sample.value
        else {
            continue;
        };
        let label = |name: &str| sample.labels.get(name).unwrap_or_default();
        let Some(zid) = sample.labels.get("remote_zid") else {
            continue;
        };
        let link = links.entry(zid.to_owned()).or_insert_with(|| LinkTraffic {
            zid: zid.to_owned(),
            whatami: label("remote_whatami").to_owned(),
            ..Default::default()
        });
        let value = value as u64;
        let shm = label("shm") == "true";
        match sample.metric.as_str() {
            "zenoh_tx_network_message_per_transport_total" if label("message") == "put" => {
                *if shm {
                    &mut link.tx_shm_puts
                } else {
                    &mut link.tx_network_puts
                } += value;
            }
            "zenoh_rx_network_message_per_transport_total" if label("message") == "put" => {
                *if shm {
                    &mut link.rx_shm_puts
                } else {
                    &mut link.rx_network_puts
                } += value;
            }
            "zenoh_tx_network_message_dropped_payload_per_transport_bytes_count"
                if label("reason") == "congestion" =>
            {
                link.tx_congestion_drops += value;
            }
            "zenoh_tx_per_transport_bytes_total" => link.tx_bytes += value,
            "zenoh_rx_per_transport_bytes_total" => link.rx_bytes += value,
            _ => {}
        }
    }
    links.into_values().collect()
}

/// This process's own per-transport traffic (see [`LinkTraffic`]), from its admin space; empty
/// when zenoh was built without `stats` or the admin space is off.
pub async fn own_link_traffic(session: &zenoh::Session, timeout: Duration) -> Vec<LinkTraffic> {
    let selector = format!(
        "@/{}/*/metrics?compression=false;disconnected=true;per_link=false;per_key=false",
        session.zid()
    );
    super::query_all(session, &selector, timeout)
        .await
        .iter()
        .filter_map(|sample| {
            sample
                .payload()
                .try_to_string()
                .ok()
                .map(|text| link_traffic(&text))
        })
        .next()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Trimmed from a real zenoh 1.9.0 camera (cam-pub) sending 56 clouds to an rclpy subscriber
    /// with shared memory off, beside its link to the router.
    const PER_TRANSPORT: &str = r#"# TYPE zenoh_tx_per_transport_bytes counter
zenoh_tx_per_transport_bytes_total{local_id="57",local_whatami="peer",protocol="tcp",remote_zid="10e5",remote_whatami="peer",remote_group="",remote_cn="",disconnected="false"} 412935150
zenoh_tx_per_transport_bytes_total{local_id="57",local_whatami="peer",protocol="tcp",remote_zid="3da6",remote_whatami="router",remote_group="",remote_cn="",disconnected="false"} 4473
zenoh_tx_network_message_per_transport_total{local_id="57",local_whatami="peer",priority="data",message="put",shm="false",protocol="tcp",remote_zid="10e5",remote_whatami="peer",remote_group="",remote_cn="",disconnected="false"} 56
zenoh_tx_network_message_per_transport_total{local_id="57",local_whatami="peer",priority="data",message="put",shm="true",protocol="tcp",remote_zid="10e5",remote_whatami="peer",remote_group="",remote_cn="",disconnected="false"} 4
zenoh_tx_network_message_per_transport_total{local_id="57",local_whatami="peer",priority="control",message="declare",shm="false",protocol="tcp",remote_zid="3da6",remote_whatami="router",remote_group="",remote_cn="",disconnected="false"} 44
zenoh_rx_network_message_per_transport_total{local_id="57",local_whatami="peer",priority="data",message="put",shm="true",protocol="tcp",remote_zid="3da6",remote_whatami="router",remote_group="",remote_cn="",disconnected="false"} 2
# EOF
"#;

    /// Trimmed from a real zenoh 1.9.0 camera (cam-pub, lane off) after 77 clouds of 7,372,800
    /// bytes: message counts by path, and no payload histogram samples.
    const ZENOH_1_9: &str = r#"# TYPE zenoh_tx_network_message_payload_bytes histogram
# TYPE zenoh_tx_network_message counter
zenoh_tx_network_message_total{local_id="97",local_whatami="peer",priority="control",message="declare",shm="false",protocol="tcp"} 84
zenoh_tx_network_message_total{local_id="97",local_whatami="peer",priority="data",message="put",shm="true",protocol="tcp"} 68
zenoh_tx_network_message_total{local_id="97",local_whatami="peer",priority="data",message="query",shm="false",protocol="tcp"} 4
zenoh_tx_network_message_total{local_id="97",local_whatami="peer",priority="data",message="put",shm="false",protocol="tcp"} 9
# EOF
"#;

    #[test]
    fn on_zenoh_1_9_puts_stand_in_for_messages_and_bytes_are_derived_from_the_report() {
        let series = translate(ZENOH_1_9);
        let value = |family: &str, direction: &str, path: &str| {
            series
                .iter()
                .chain(&derive_payload_bytes(&series, &stats()))
                .find(|s| {
                    s.family == family
                        && s.labels.contains(&("direction", direction.to_owned()))
                        && s.labels.contains(&("path", path.to_owned()))
                })
                .map(|s| s.value)
        };
        assert_eq!(value("zshm_payload_messages_total", "tx", "shm"), Some(68.0));
        assert_eq!(value("zshm_payload_messages_total", "tx", "network"), Some(9.0));
        assert_eq!(
            value("zshm_payload_bytes_total", "tx", "shm"),
            Some(68.0 * 7_372_800.0)
        );
        assert_eq!(
            value("zshm_payload_bytes_total", "tx", "network"),
            Some(9.0 * 7_372_800.0)
        );

        // zenoh 1.10 counts the bytes itself: nothing is derived.
        assert!(derive_payload_bytes(&translate(SAMPLE), &stats()).is_empty());
    }

    /// A camera that published 77 clouds of 7,372,800 bytes through zenoh.
    fn stats() -> zshm::stats::StatsSnapshot {
        zshm::stats::StatsSnapshot {
            published_shm_messages: 77,
            published_shm_bytes: 77 * 7_372_800,
            ..Default::default()
        }
    }

    /// Trimmed from a real zenoh 1.9.0 camera (cam-pub, KEEP_LAST) whose 7 MB clouds went over
    /// TCP to two probes on a loaded machine: 4 dropped on each link, besides 30 sent.
    const CONGESTED: &str = r#"# TYPE zenoh_tx_network_message_per_transport counter
zenoh_tx_network_message_per_transport_total{local_id="ed77",local_whatami="peer",priority="data",message="put",shm="false",protocol="tcp",remote_zid="9a20",remote_whatami="peer",remote_group="",remote_cn="",disconnected="true"} 30
zenoh_tx_network_message_per_transport_total{local_id="ed77",local_whatami="peer",priority="data",message="put",shm="false",protocol="tcp",remote_zid="c592",remote_whatami="peer",remote_group="",remote_cn="",disconnected="false"} 30
# TYPE zenoh_tx_network_message_dropped_payload_per_transport_bytes histogram
zenoh_tx_network_message_dropped_payload_per_transport_bytes_sum{local_id="ed77",local_whatami="peer",priority="data",message="put",protocol="tcp",reason="congestion",remote_zid="c592",remote_whatami="peer",remote_group="",remote_cn="",disconnected="false"} 29491944.0
zenoh_tx_network_message_dropped_payload_per_transport_bytes_count{local_id="ed77",local_whatami="peer",priority="data",message="put",protocol="tcp",reason="congestion",remote_zid="c592",remote_whatami="peer",remote_group="",remote_cn="",disconnected="false"} 4
zenoh_tx_network_message_dropped_payload_per_transport_bytes_bucket{local_id="ed77",local_whatami="peer",le="33554432.0",priority="data",message="put",protocol="tcp",reason="congestion",remote_zid="c592",remote_whatami="peer",remote_group="",remote_cn="",disconnected="false"} 4
zenoh_tx_network_message_dropped_payload_per_transport_bytes_bucket{local_id="ed77",local_whatami="peer",le="+Inf",priority="data",message="put",protocol="tcp",reason="congestion",remote_zid="c592",remote_whatami="peer",remote_group="",remote_cn="",disconnected="false"} 4
zenoh_tx_network_message_dropped_payload_per_transport_bytes_count{local_id="ed77",local_whatami="peer",priority="data",message="put",protocol="tcp",reason="congestion",remote_zid="9a20",remote_whatami="peer",remote_group="",remote_cn="",disconnected="true"} 4
# EOF
"#;

    #[test]
    fn congestion_drops_are_counted_per_transport_apart_from_the_puts_sent() {
        let links = link_traffic(CONGESTED);
        let of = |zid: &str| {
            let l = links.iter().find(|l| l.zid == zid).unwrap();
            (l.tx_network_puts, l.tx_congestion_drops)
        };
        assert_eq!((of("c592"), of("9a20")), ((30, 4), (30, 4)));
    }

    #[test]
    fn per_transport_puts_are_split_by_path_and_declarations_ignored() {
        let links = link_traffic(PER_TRANSPORT);
        assert_eq!(links.len(), 2);
        let subscriber = links.iter().find(|l| l.zid == "10e5").unwrap();
        assert_eq!(
            (
                subscriber.tx_shm_puts,
                subscriber.tx_network_puts,
                subscriber.tx_bytes
            ),
            (4, 56, 412_935_150)
        );
        assert_eq!(subscriber.whatami, "peer");
        let router = links.iter().find(|l| l.zid == "3da6").unwrap();
        assert_eq!(
            (router.tx_shm_puts, router.tx_network_puts, router.rx_shm_puts),
            (0, 0, 2)
        );
    }

    /// Trimmed from a real zenoh 1.10.2 sender after 60 puts of 4 MiB through SHM
    /// (docs/zenoh-shm.md, "Statistics"), plus a second priority to check the sums.
    const SAMPLE: &str = r#"# HELP zenoh_build Zenoh build version.
# TYPE zenoh_build info
zenoh_build_info{local_id="35",local_whatami="peer",version="v1.10.2"} 1
zenoh_transports_opened{local_id="35",local_whatami="peer"} 1
zenoh_links_opened{local_id="35",local_whatami="peer",protocol="tcp"} 1
# TYPE zenoh_tx_bytes counter
# UNIT zenoh_tx_bytes bytes
zenoh_tx_bytes_total{local_id="35",local_whatami="peer",protocol="tcp"} 1612
zenoh_tx_per_link_bytes_total{local_id="35",local_whatami="peer",protocol="tcp",remote_zid="5c"} 1612
zenoh_tx_network_message_total{local_id="35",local_whatami="peer",priority="data",message="put",shm="true",protocol="tcp"} 60
# TYPE zenoh_tx_network_message_payload_bytes histogram
zenoh_tx_network_message_payload_bytes_sum{local_id="35",local_whatami="peer",space="user",priority="data",message="put",shm="true"} 251658240.0
zenoh_tx_network_message_payload_bytes_count{local_id="35",local_whatami="peer",space="user",priority="data",message="put",shm="true"} 60
zenoh_tx_network_message_payload_bytes_sum{local_id="35",local_whatami="peer",space="user",priority="data_high",message="put",shm="true"} 10.0
zenoh_tx_network_message_payload_bytes_count{local_id="35",local_whatami="peer",space="user",priority="data_high",message="put",shm="true"} 1
zenoh_tx_network_message_payload_bytes_bucket{local_id="35",local_whatami="peer",le="33554432.0",space="user",priority="data",message="put",shm="true"} 60
zenoh_rx_network_message_payload_bytes_sum{local_id="35",local_whatami="peer",space="user",priority="data",message="put",shm="false"} 480.0
zenoh_rx_network_message_payload_bytes_sum{local_id="35",local_whatami="peer",space="admin",priority="data",message="reply",shm="false"} 999.0
# EOF
"#;

    fn value(series: &[Series], family: &str, labels: &[(&str, &str)]) -> Option<f64> {
        series
            .iter()
            .find(|s| {
                s.family == family
                    && labels
                        .iter()
                        .all(|(k, v)| s.labels.iter().any(|(lk, lv)| lk == k && lv == v))
            })
            .map(|s| s.value)
    }

    #[test]
    fn translates_and_sums_the_shm_split() {
        let series = translate(SAMPLE);
        let shm_tx = [("direction", "tx"), ("path", "shm")];
        assert_eq!(
            value(&series, "zshm_payload_bytes_total", &shm_tx),
            Some(251_658_250.0)
        );
        assert_eq!(value(&series, "zshm_payload_messages_total", &shm_tx), Some(61.0));
        assert_eq!(
            value(
                &series,
                "zshm_payload_bytes_total",
                &[("direction", "rx"), ("path", "network")]
            ),
            Some(480.0),
            "admin space excluded"
        );
        assert_eq!(
            value(
                &series,
                "zshm_wire_bytes_total",
                &[("direction", "tx"), ("protocol", "tcp")]
            ),
            Some(1612.0),
            "per-link variant not double counted"
        );
        assert_eq!(value(&series, "zshm_transports", &[]), Some(1.0));
        assert_eq!(value(&series, "zshm_links", &[("protocol", "tcp")]), Some(1.0));
    }

    #[test]
    fn garbage_gives_nothing() {
        assert!(translate("not metrics at all {").is_empty());
    }
}

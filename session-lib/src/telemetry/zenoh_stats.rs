//! zenoh's own statistics (crate feature `stats`), read from the admin space of every node that
//! enables it, and translated into zshm's series.
//!
//! zenoh 1.10.2 serves OpenMetrics text at `@/<zid>/<whatami>/metrics`; the families used here
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
//! label is `true`, else `network`.

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
    summed
        .into_iter()
        .map(|((family, labels), value)| Series {
            family,
            labels,
            value,
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

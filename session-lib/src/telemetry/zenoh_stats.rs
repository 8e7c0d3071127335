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

#[cfg(test)]
mod tests {
    use super::*;

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

//! Reading zshm's own exporter: the byte counters `zshm traffic` and `zshm demo` compare.

use std::time::Duration;

use anyhow::Context;

/// How long one scrape may take, connection included. The exporter answers within about a
/// second (it waits 0.8 s for the nodes); an endpoint that accepts and never answers must not
/// hang the caller.
pub const SCRAPE_TIMEOUT: Duration = Duration::from_secs(10);

/// Byte counters of one scrape.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Traffic {
    /// Bytes through the loopback interface (tx side; equal to rx on `lo`).
    pub loopback: f64,
    /// Payload bytes sent through zenoh's shared memory by nodes other than routers.
    pub shm: f64,
    /// Payload bytes sent through the same-host lane.
    pub lane: f64,
    /// Payload bytes sent over the network by nodes other than routers.
    pub network: f64,
    /// Bytes that processes without statistics of their own (rmw_zenoh_cpp nodes, rmw_zenohd)
    /// sent over their zenoh links' TCP connections, by the kernel's count.
    pub unreported_tcp: f64,
    /// The links those processes send on (a gauge, not a counter).
    pub unreported_links: u32,
    /// Of which negotiated shared memory.
    pub unreported_shm_links: u32,
}

impl Traffic {
    /// What happened between `earlier` and `self`.
    pub fn since(&self, earlier: &Traffic) -> Traffic {
        Traffic {
            loopback: (self.loopback - earlier.loopback).max(0.0),
            shm: (self.shm - earlier.shm).max(0.0),
            lane: (self.lane - earlier.lane).max(0.0),
            network: (self.network - earlier.network).max(0.0),
            unreported_tcp: (self.unreported_tcp - earlier.unreported_tcp).max(0.0),
            unreported_links: self.unreported_links,
            unreported_shm_links: self.unreported_shm_links,
        }
    }
}

/// GETs `url` (an exporter's /metrics) and sums the traffic counters. Routers are left out of the
/// payload sums so a message relayed by a router is counted once.
pub async fn traffic(url: &str) -> anyhow::Result<Traffic> {
    let owned = url.to_owned();
    let text = tokio::task::spawn_blocking(move || -> anyhow::Result<String> {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(SCRAPE_TIMEOUT))
            .build()
            .into();
        let mut response = agent.get(&owned).call().with_context(|| {
            format!(
                "cannot read {owned} within {}: is `zshm router` (or `zshm exporter`) running and \
                 answering?",
                zshm::internal::text::seconds(SCRAPE_TIMEOUT)
            )
        })?;
        Ok(response.body_mut().read_to_string()?)
    })
    .await??;
    let scrape = prometheus_parse::Scrape::parse(text.lines().map(|l| Ok(l.to_owned())))?;
    let mut traffic = Traffic::default();
    // Processes whose zenoh reports its statistics; the links of the others are counted apart.
    let reporting: std::collections::HashSet<&str> = scrape
        .samples
        .iter()
        .filter(|s| s.metric == "zshm_payload_bytes_total")
        .filter_map(|s| s.labels.get("zid"))
        .collect();
    for sample in &scrape.samples {
        let (prometheus_parse::Value::Counter(value) | prometheus_parse::Value::Untyped(value)) =
            sample.value
        else {
            continue;
        };
        let label = |name: &str| sample.labels.get(name).unwrap_or_default();
        match sample.metric.as_str() {
            "zshm_loopback_bytes_total" if label("direction") == "tx" => traffic.loopback += value,
            "zshm_payload_bytes_total" if label("direction") == "tx" && label("role") != "router" => {
                match label("path") {
                    "shm" => traffic.shm += value,
                    "lane" => traffic.lane += value,
                    _ => traffic.network += value,
                }
            }
            "zshm_link_tcp_bytes_total" if !reporting.contains(label("zid")) => {
                traffic.unreported_tcp += value;
                traffic.unreported_links += 1;
                if label("shm") == "true" {
                    traffic.unreported_shm_links += 1;
                }
            }
            _ => {}
        }
    }
    Ok(traffic)
}

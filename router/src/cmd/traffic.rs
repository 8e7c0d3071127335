//! `zshm traffic`: a live terminal view of loopback vs shared-memory traffic, the replacement of
//! the workshop's `just iftop_lo`. It reads the exporter (`zshm router` serves it by default) once
//! per interval and prints rates:
//!
//! `loopback 212.31 MB/s | shm 105.20 MB/s | network payload 0.00 MB/s | shm share 100%`
//!
//! Payload rates count what zshm and zenoh nodes other than routers send, so a message relayed
//! by a router is counted once.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;

use crate::cli::TrafficArgs;

/// Byte counters of one scrape.
#[derive(Debug, Clone, Copy, Default)]
struct Counters {
    loopback: f64,
    shm: f64,
    network: f64,
}

/// Prints one line per interval until `--count` or a signal.
pub async fn run(args: TrafficArgs) -> anyhow::Result<ExitCode> {
    let interval = Duration::from_secs_f64(args.interval.max(0.1));
    let mut previous = (scrape(&args.url).await?, Instant::now());
    let mut shutdown = std::pin::pin!(super::shutdown_signal());
    let mut printed = 0;
    loop {
        tokio::select! {
            _ = tokio::time::sleep(interval) => {}
            _ = &mut shutdown => break,
        }
        let now = (scrape(&args.url).await?, Instant::now());
        let seconds = now.1.duration_since(previous.1).as_secs_f64();
        let rate = |f: fn(&Counters) -> f64| (f(&now.0) - f(&previous.0)).max(0.0) / seconds / 1e6;
        let (shm, network) = (rate(|c| c.shm), rate(|c| c.network));
        let share = if shm + network > 0.0 {
            100.0 * shm / (shm + network)
        } else {
            0.0
        };
        println!(
            "loopback {:.2} MB/s | shm {shm:.2} MB/s | network payload {network:.2} MB/s | shm share {share:.0}%",
            rate(|c| c.loopback)
        );
        previous = now;
        printed += 1;
        if printed == args.count {
            break;
        }
    }
    Ok(ExitCode::SUCCESS)
}

async fn scrape(url: &str) -> anyhow::Result<Counters> {
    let url = url.to_owned();
    let text = tokio::task::spawn_blocking(move || -> anyhow::Result<String> {
        let mut response = ureq::get(&url)
            .call()
            .with_context(|| format!("cannot read {url}: is `zshm router` (or `zshm exporter`) running?"))?;
        Ok(response.body_mut().read_to_string()?)
    })
    .await??;
    let scrape = prometheus_parse::Scrape::parse(text.lines().map(|l| Ok(l.to_owned())))?;
    let mut counters = Counters::default();
    for sample in &scrape.samples {
        let (prometheus_parse::Value::Counter(value) | prometheus_parse::Value::Untyped(value)) =
            sample.value
        else {
            continue;
        };
        let label = |name: &str| sample.labels.get(name).unwrap_or_default();
        match sample.metric.as_str() {
            "zshm_loopback_bytes_total" if label("direction") == "tx" => counters.loopback += value,
            "zshm_payload_bytes_total" if label("direction") == "tx" && label("role") != "router" => {
                match label("path") {
                    "shm" => counters.shm += value,
                    _ => counters.network += value,
                }
            }
            _ => {}
        }
    }
    Ok(counters)
}

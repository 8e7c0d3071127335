//! `zshm traffic`: a live terminal view of loopback vs shared-memory traffic, the replacement of
//! the workshop's `just iftop_lo`. It reads the exporter (`zshm router` serves it by default) once
//! per interval and prints rates:
//!
//! `loopback 0.02 MB/s | lane 105.20 MB/s | shm 0.00 MB/s | network payload 0.00 MB/s | shared memory 100%`
//!
//! Payload rates count what zshm and zenoh nodes other than routers send, so a message relayed
//! by a router is counted once. Processes that keep no statistics (rmw_zenoh_cpp nodes) get a
//! second line: what they sent over their zenoh links' TCP connections by the kernel's count,
//! and how many of those links share memory:
//!
//! `  nodes without statistics: 0.06 MB/s over TCP on 4 links, 4 of them with shared memory` A scrape that gets no answer within
//! [`SCRAPE_TIMEOUT`](crate::support::scrape::SCRAPE_TIMEOUT) is an error (exit 1), not a hang.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use crate::cli;
use crate::support::out::outln;
use crate::support::scrape::{self, Traffic};
use crate::support::shutdown;

/// `zshm traffic`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The exporter's metrics URL.
    #[arg(long, default_value = "http://127.0.0.1:9477/metrics")]
    pub url: String,
    /// Seconds between two lines.
    #[arg(short, long, default_value = "1", value_parser = cli::positive_seconds)]
    pub interval: Duration,
    /// Stop after this many lines (0: never).
    #[arg(short = 'n', long, default_value_t = 0)]
    pub count: u64,
}

/// Prints one line per interval until `--count` or a signal.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let Some(first) = shutdown::unless_signalled(scrape::traffic(&args.url)).await else {
        return Ok(ExitCode::SUCCESS);
    };
    let mut previous = (first?, Instant::now());
    let mut printed = 0;
    loop {
        // A signal stops the wait and a scrape in progress alike (each scrape has a deadline).
        let next = async {
            tokio::time::sleep(args.interval).await;
            scrape::traffic(&args.url).await
        };
        let Some(next) = shutdown::unless_signalled(next).await else {
            break;
        };
        let now = (next?, Instant::now());
        let seconds = now.1.duration_since(previous.1).as_secs_f64();
        let rate = |f: fn(&Traffic) -> f64| (f(&now.0) - f(&previous.0)).max(0.0) / seconds / 1e6;
        let (lane, shm, network) = (rate(|c| c.lane), rate(|c| c.shm), rate(|c| c.network));
        let total = lane + shm + network;
        let share = if total > 0.0 {
            100.0 * (lane + shm) / total
        } else {
            0.0
        };
        outln!(
            "loopback {:.2} MB/s | lane {lane:.2} MB/s | shm {shm:.2} MB/s | network payload {network:.2} MB/s | shared memory {share:.0}%",
            rate(|c| c.loopback)
        );
        if now.0.unreported_links > 0 {
            // rmw_zenoh_cpp's nodes report nothing themselves: their links as the kernel counts.
            outln!(
                "  nodes without statistics: {:.2} MB/s over TCP on {} links, {} of them with shared memory",
                rate(|c| c.unreported_tcp),
                now.0.unreported_links,
                now.0.unreported_shm_links
            );
        }
        previous = now;
        printed += 1;
        if printed == args.count {
            break;
        }
    }
    Ok(ExitCode::SUCCESS)
}

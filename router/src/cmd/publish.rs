//! `zshm pub`: publishes `--count` verifiable payloads (see `zshm_ops::tools::pattern`), through a
//! loan filled in place (default) or a copy (`--copy`), then prints a JSON summary on stdout.
//!
//! After the last message it stays until the subscribers are gone (or `--wait` passes), so that
//! closing the session cannot cut off messages still in flight. SIGINT or SIGTERM stops it at
//! any point: it prints the summary (`"interrupted": true`), closes the session and exits 1.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;

use crate::cli::{self, RawStreamArgs};
use crate::support::out::outln;
use crate::support::ticker::{MissedTickBehavior, Ticker};
use crate::support::{session, shutdown};

/// `zshm pub`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Session and key expression.
    #[command(flatten)]
    pub stream: RawStreamArgs,
    /// Payload size in bytes (at least 8: the sequence number; at most 1 GiB).
    #[arg(short, long, default_value_t = 4 << 20, value_parser = clap::value_parser!(u64).range(8..=(1 << 30)))]
    pub size: u64,
    /// Number of messages.
    #[arg(short = 'n', long, default_value_t = 100)]
    pub count: u64,
    /// Messages per second (0: as fast as possible).
    #[arg(short, long, default_value = "100", value_parser = cli::rate_or_unpaced)]
    pub rate: f64,
    /// Copy each payload with `publish(&[u8])` instead of filling a loan in place.
    #[arg(long)]
    pub copy: bool,
    /// Seconds to wait for a subscriber before publishing.
    #[arg(long, default_value = "30", value_parser = cli::seconds)]
    pub wait: Duration,
}

/// Publishes and reports.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let session = session::open(&args.stream.session).await?;
    let publisher = session
        .declare_publisher(&args.stream.key, zshm::raw::PublisherOptions::default())
        .await
        .context("cannot declare the publisher")?;
    tracing::info!(key = %args.stream.key, "waiting for a subscriber");
    let found = shutdown::unless_signalled(publisher.wait_for_subscribers(args.wait)).await;
    if found == Some(false) {
        anyhow::bail!(
            "no subscriber on `{}` within {}; is `zshm sub` running and connected to the same router?",
            args.stream.key,
            zshm::internal::text::seconds(args.wait)
        );
    }

    let size = usize::try_from(args.size).context("--size does not fit in memory")?;
    let mut ticker = Ticker::new(args.rate, MissedTickBehavior::Delay);
    let mut scratch = if args.copy { vec![0u8; size] } else { Vec::new() };
    let mut interrupted = found.is_none();
    let mut published = 0;
    while !interrupted && published < args.count {
        if shutdown::unless_signalled(ticker.tick()).await.is_none() {
            interrupted = true;
            break;
        }
        let seq = published;
        if args.copy {
            zshm_ops::tools::pattern::fill(&mut scratch, seq);
            publisher.publish(&scratch).await?;
        } else {
            let mut loan = publisher.loan(size).await;
            zshm_ops::tools::pattern::fill(&mut loan, seq);
            publisher.publish_loan(loan).await?;
        }
        published += 1;
    }

    // Linger until the subscribers have left, so nothing queued is lost when the session closes.
    if !interrupted {
        interrupted = shutdown::unless_signalled(publisher.wait_for_no_subscribers(args.wait))
            .await
            .is_none();
    }

    let summary = serde_json::json!({
        "published": published,
        "interrupted": interrupted,
        "shm_status": session::shm_status_json(session.shm_status()),
        "lane_status": session::lane_status_json(&session.lane_status()),
        "stats": session.stats().snapshot(),
    });
    outln!("{summary}");
    session::close(&session).await?;
    Ok(if interrupted {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

//! `zshm sub`: receives what `zshm pub` sends, checks every byte of every payload, and prints a
//! JSON summary on stdout. Exits 0 only when `--count` distinct messages arrived intact.

use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use serde::Serialize;

use crate::cli::{self, RawStreamArgs};
use crate::support::out::outln;
use crate::support::{session, shutdown};

/// `zshm sub`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Session and key expression.
    #[command(flatten)]
    pub stream: RawStreamArgs,
    /// Stop after this many messages.
    #[arg(short = 'n', long, default_value_t = 100)]
    pub count: u64,
    /// Give up after this many seconds without reaching --count.
    #[arg(short, long, default_value = "60", value_parser = cli::seconds)]
    pub timeout: Duration,
}

#[derive(Debug, Default, Serialize)]
struct Tally {
    received: u64,
    shm: u64,
    corrupt: u64,
    duplicates: u64,
    bytes: u64,
    #[serde(skip)]
    seen: std::collections::HashSet<u64>,
}

/// Receives, verifies and reports.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let session = session::open(&args.stream.session).await?;
    let tally = Arc::new(Mutex::new(Tally::default()));
    let done = Arc::new(tokio::sync::Notify::new());
    let (count, sink, notify) = (args.count, tally.clone(), done.clone());
    let subscription = session
        .declare_callback_subscription(&args.stream.key, Default::default(), move |sample| {
            let verdict = zshm_ops::tools::pattern::verify(sample.payload());
            let mut tally = sink.lock().expect("no panics while holding the tally");
            tally.received += 1;
            tally.bytes += sample.payload().len() as u64;
            tally.shm += u64::from(sample.is_shm());
            match verdict {
                Ok(seq) if !tally.seen.insert(seq) => tally.duplicates += 1,
                Ok(_) => {}
                Err(err) => {
                    tally.corrupt += 1;
                    tracing::error!("{err}");
                }
            }
            if tally.seen.len() as u64 >= count {
                notify.notify_one();
            }
        })
        .await
        .context("cannot declare the subscription")?;
    tracing::info!(key = %args.stream.key, "subscribed");

    let completed = tokio::select! {
        _ = done.notified() => true,
        _ = tokio::time::sleep(args.timeout) => false,
        signal = shutdown::signal() => { tracing::info!("{} received", signal?); false }
    };
    drop(subscription);

    let (summary, ok) = {
        let tally = tally.lock().expect("no panics while holding the tally");
        let distinct = tally.seen.len() as u64;
        let summary = serde_json::json!({
            "expected": args.count,
            "distinct": distinct,
            "missing": args.count.saturating_sub(distinct),
            "tally": &*tally,
            "shm_status": session::shm_status_json(session.shm_status()),
        "lane_status": session::lane_status_json(&session.lane_status()),
            "stats": session.stats().snapshot(),
        });
        (summary, completed && tally.corrupt == 0 && tally.duplicates == 0)
    };
    outln!("{summary}");
    session::close(&session).await?;
    Ok(if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

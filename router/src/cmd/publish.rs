//! `zshm pub`: publishes `--count` verifiable payloads (see `zshm::pattern`), through a loan
//! filled in place (default) or a copy (`--copy`), then prints a JSON summary on stdout.
//!
//! After the last message it stays until the subscribers are gone (or `--wait` passes), so that
//! closing the session cannot cut off messages still in flight.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;

use crate::cli::PubArgs;

/// Publishes and reports.
pub async fn run(args: PubArgs) -> anyhow::Result<ExitCode> {
    let session = super::session_builder(zshm::Role::Session, &args.session)
        .open()
        .await
        .context("cannot open the session")?;
    let publisher = session
        .declare_publisher(&args.key, zshm::PublisherOptions::default())
        .await
        .context("cannot declare the publisher")?;
    let wait = Duration::from_secs_f64(args.wait.max(0.0));
    if !publisher.wait_for_subscribers(wait).await {
        anyhow::bail!(
            "no subscriber on `{}` within {wait:?}; is `zshm sub` running and connected to the same router?",
            args.key
        );
    }

    let size = usize::try_from(args.size).context("--size does not fit in memory")?;
    let mut ticker = (args.rate > 0.0).then(|| {
        let mut interval = tokio::time::interval(Duration::from_secs_f64(1.0 / args.rate));
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        interval
    });
    let mut scratch = if args.copy { vec![0u8; size] } else { Vec::new() };
    for seq in 0..args.count {
        if let Some(ticker) = &mut ticker {
            ticker.tick().await;
        }
        if args.copy {
            zshm::pattern::fill(&mut scratch, seq);
            publisher.publish(&scratch).await?;
        } else {
            let mut loan = publisher.loan(size).await;
            zshm::pattern::fill(&mut loan, seq);
            publisher.publish_loan(loan).await?;
        }
    }

    // Linger until the subscribers have left, so nothing queued is lost when the session closes.
    publisher.wait_for_no_subscribers(wait).await;

    let stats = session.stats().snapshot();
    let summary = serde_json::json!({
        "published": args.count,
        "shm_status": super::shm_status_json(session.shm_status()),
        "stats": stats,
    });
    println!("{summary}");
    session
        .close()
        .await
        .map_err(|err| anyhow::anyhow!("closing the session: {err}"))?;
    Ok(ExitCode::SUCCESS)
}

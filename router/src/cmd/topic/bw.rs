//! `zshm topic bw`: the bandwidth a topic's messages take, like `ros2 topic bw`. The messages
//! are received as raw bytes on the key of each publisher's type from the graph; a message's
//! size is its serialized length (CDR, encapsulation header included), as ros2 counts it.
//!
//! Every second, the bytes of the last `--window` messages are divided by the time since the
//! first of them arrived.

use std::collections::VecDeque;
use std::process::ExitCode;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::cli::TopicStreamArgs;
use crate::support::out::outln;
use crate::support::{graph, session, shutdown};

/// `zshm topic bw`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The topic, e.g. /camera/points (a relative name is taken from the root namespace).
    pub topic: String,
    /// How many of the last messages the statistics cover.
    #[arg(short = 'w', long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub window: u64,
    /// Session, domain and when to stop.
    #[command(flatten)]
    pub stream: TopicStreamArgs,
}

/// The arrival times and sizes of the last messages.
#[derive(Debug)]
struct Bandwidth {
    window: usize,
    messages: VecDeque<(Instant, usize)>,
    received: u64,
}

/// One line pair of `ros2 topic bw`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Stats {
    bytes_per_second: f64,
    messages: usize,
    mean: f64,
    min: usize,
    max: usize,
}

impl Bandwidth {
    fn arrived(&mut self, at: Instant, size: usize) {
        self.messages.push_back((at, size));
        if self.messages.len() > self.window {
            self.messages.pop_front();
        }
        self.received += 1;
    }

    /// The statistics at `now`; `None` before two messages.
    fn stats(&self, now: Instant) -> Option<Stats> {
        let n = self.messages.len();
        let (first, _) = *self.messages.front()?;
        if n < 2 || now <= first {
            return None;
        }
        let sizes = || self.messages.iter().map(|(_, size)| *size);
        let total: usize = sizes().sum();
        Some(Stats {
            bytes_per_second: total as f64 / now.duration_since(first).as_secs_f64(),
            messages: n,
            mean: total as f64 / n as f64,
            min: sizes().min()?,
            max: sizes().max()?,
        })
    }
}

/// The two lines, in the unit ros2 picks from the rate: B, KB or MB (powers of 1000).
fn lines(stats: Stats) -> [String; 2] {
    let (divisor, unit, decimals) = match stats.bytes_per_second {
        r if r < 1000.0 => (1.0, "B", 0),
        r if r < 1_000_000.0 => (1000.0, "KB", 2),
        _ => (1_000_000.0, "MB", 2),
    };
    let text = |bytes: f64| format!("{:.decimals$} {unit}", bytes / divisor);
    [
        format!(
            "{}/s from {} messages",
            text(stats.bytes_per_second),
            stats.messages
        ),
        format!(
            "\tMessage size mean: {} min: {} max: {}",
            text(stats.mean),
            text(stats.min as f64),
            text(stats.max as f64)
        ),
    ]
}

fn print(stats: Stats) {
    lines(stats).iter().for_each(|line| outln!("{line}"));
}

/// Waits for the topic's publishers, then prints its bandwidth until a signal or `--count`
/// messages.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let topic = graph::topic_name(&args.topic)?;
    let session = session::open(&args.stream.session).await?;
    let domain = args.stream.domain.unwrap_or_else(|| session.ros_domain_id());
    let Some(publishers) = graph::wait_for_publishers(&session, domain, &topic).await? else {
        session::close(&session).await?;
        return Ok(ExitCode::SUCCESS);
    };
    let bandwidth = Arc::new(Mutex::new(Bandwidth {
        window: usize::try_from(args.window)?,
        messages: VecDeque::new(),
        received: 0,
    }));
    let done = Arc::new(tokio::sync::Notify::new());
    let mut subscriptions = Vec::new();
    for key in graph::publisher_keys(domain, &topic, &publishers) {
        let (bandwidth, done, count) = (bandwidth.clone(), done.clone(), args.stream.count);
        let subscription = session
            .declare_callback_subscription(&key, Default::default(), move |sample| {
                let mut bandwidth = bandwidth.lock().unwrap_or_else(PoisonError::into_inner);
                bandwidth.arrived(Instant::now(), sample.payload().len());
                if bandwidth.received == count {
                    done.notify_one();
                }
            })
            .await?;
        subscriptions.push(subscription);
    }
    outln!("Subscribed to [{topic}]");
    let mut every_second = tokio::time::interval_at(
        tokio::time::Instant::now() + Duration::from_secs(1),
        Duration::from_secs(1),
    );
    let finished = loop {
        tokio::select! {
            _ = every_second.tick() => {
                let stats = bandwidth.lock().unwrap_or_else(PoisonError::into_inner).stats(Instant::now());
                if let Some(stats) = stats {
                    print(stats);
                }
            }
            _ = done.notified() => break true,
            signal = shutdown::signal() => { signal?; break false }
        }
    };
    drop(subscriptions);
    let stats = bandwidth
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .stats(Instant::now());
    if finished && let Some(stats) = stats {
        print(stats);
    }
    session::close(&session).await?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_follow_the_rate_as_in_ros2() {
        let stats = Stats {
            bytes_per_second: 480.0,
            messages: 40,
            mean: 23.775,
            min: 23,
            max: 24,
        };
        assert_eq!(
            lines(stats),
            [
                "480 B/s from 40 messages",
                "\tMessage size mean: 24 B min: 23 B max: 24 B"
            ]
        );
        let cloud = Stats {
            bytes_per_second: 110_592_000.0,
            messages: 15,
            mean: 7_372_800.0,
            min: 7_372_800,
            max: 7_372_800,
        };
        assert_eq!(
            lines(cloud),
            [
                "110.59 MB/s from 15 messages",
                "\tMessage size mean: 7.37 MB min: 7.37 MB max: 7.37 MB"
            ]
        );
    }

    #[test]
    fn the_window_keeps_the_last_messages() {
        let start = Instant::now();
        let mut bandwidth = Bandwidth {
            window: 2,
            messages: VecDeque::new(),
            received: 0,
        };
        bandwidth.arrived(start, 10);
        assert_eq!(bandwidth.stats(start + Duration::from_secs(1)), None);
        bandwidth.arrived(start + Duration::from_millis(500), 20);
        bandwidth.arrived(start + Duration::from_secs(1), 30);
        let stats = bandwidth.stats(start + Duration::from_millis(1500)).unwrap();
        assert_eq!((stats.messages, stats.min, stats.max), (2, 20, 30));
        assert!((stats.bytes_per_second - 50.0).abs() < 1e-9, "{stats:?}");
    }
}

//! `zshm topic hz`: the rate a topic's messages arrive at, like `ros2 topic hz`. The messages
//! are received as raw bytes (nothing is decoded), on the key of each publisher's type from the
//! graph; the time of each is taken on arrival.
//!
//! As in ros2, the statistics cover the intervals between the last `--window` messages and are
//! printed at most once a second, when a message arrives a second or more after the last print.

use std::collections::VecDeque;
use std::process::ExitCode;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::cli::TopicStreamArgs;
use crate::support::out::outln;
use crate::support::{graph, session, shutdown};

/// `zshm topic hz`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The topic, e.g. /chatter (a relative name is taken from the root namespace).
    pub topic: String,
    /// How many of the last intervals the statistics cover.
    #[arg(short = 'w', long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub window: u64,
    /// Session, domain and when to stop.
    #[command(flatten)]
    pub stream: TopicStreamArgs,
}

/// How often the printing loop looks at the statistics.
const LOOK: Duration = Duration::from_millis(50);

/// The arrival times of the last messages.
#[derive(Debug)]
struct Rate {
    window: usize,
    /// Intervals between consecutive messages, the oldest first.
    intervals: VecDeque<Duration>,
    /// When the last message arrived.
    last: Option<Instant>,
    /// The arrival of the message the last print was made at.
    printed: Option<Instant>,
    /// Messages received.
    received: u64,
}

/// One line pair of `ros2 topic hz`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Stats {
    rate: f64,
    min: f64,
    max: f64,
    std_dev: f64,
    window: usize,
}

impl Rate {
    fn new(window: usize) -> Self {
        Self {
            window,
            intervals: VecDeque::new(),
            last: None,
            printed: None,
            received: 0,
        }
    }

    fn arrived(&mut self, at: Instant) {
        if let Some(last) = self.last {
            self.intervals.push_back(at.saturating_duration_since(last));
            if self.intervals.len() > self.window {
                self.intervals.pop_front();
            }
        }
        self.last = Some(at);
        self.received += 1;
    }

    /// The statistics when a print is due: a message arrived a second or more after the one the
    /// last print was made at (the first print waits a second after the first interval).
    fn due(&mut self) -> Option<Stats> {
        let last = self.last?;
        if self.intervals.is_empty() {
            return None;
        }
        let Some(printed) = self.printed else {
            self.printed = Some(last);
            return None;
        };
        if last < printed + Duration::from_secs(1) {
            return None;
        }
        self.printed = Some(last);
        self.stats()
    }

    fn stats(&self) -> Option<Stats> {
        let n = self.intervals.len();
        if n == 0 {
            return None;
        }
        let seconds: Vec<f64> = self.intervals.iter().map(Duration::as_secs_f64).collect();
        let mean = seconds.iter().sum::<f64>() / n as f64;
        let variance = seconds.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / n as f64;
        Some(Stats {
            rate: if mean > 0.0 { 1.0 / mean } else { 0.0 },
            min: seconds.iter().copied().fold(f64::INFINITY, f64::min),
            max: seconds.iter().copied().fold(0.0, f64::max),
            std_dev: variance.sqrt(),
            window: n,
        })
    }
}

fn print(stats: Stats) {
    outln!("average rate: {:.3}", stats.rate);
    outln!(
        "\tmin: {:.3}s max: {:.3}s std dev: {:.5}s window: {}",
        stats.min,
        stats.max,
        stats.std_dev,
        stats.window
    );
}

/// Waits for the topic's publishers, then prints its rate until a signal or `--count` messages.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let topic = graph::topic_name(&args.topic)?;
    let session = session::open(&args.stream.session).await?;
    let domain = args.stream.domain.unwrap_or_else(|| session.ros_domain_id());
    let Some(publishers) = graph::wait_for_publishers(&session, domain, &topic).await? else {
        session::close(&session).await?;
        return Ok(ExitCode::SUCCESS);
    };
    let window = usize::try_from(args.window)?;
    let rate = Arc::new(Mutex::new(Rate::new(window)));
    let done = Arc::new(tokio::sync::Notify::new());
    let mut subscriptions = Vec::new();
    for key in graph::publisher_keys(domain, &topic, &publishers) {
        let (rate, done, count) = (rate.clone(), done.clone(), args.stream.count);
        let subscription = session
            .declare_callback_subscription(&key, Default::default(), move |_sample| {
                let mut rate = rate.lock().unwrap_or_else(PoisonError::into_inner);
                rate.arrived(Instant::now());
                if rate.received == count {
                    done.notify_one();
                }
            })
            .await?;
        subscriptions.push(subscription);
    }
    tracing::info!(%topic, "subscribed");
    let mut look = tokio::time::interval(LOOK);
    let finished = loop {
        tokio::select! {
            _ = look.tick() => {
                let due = rate.lock().unwrap_or_else(PoisonError::into_inner).due();
                if let Some(stats) = due {
                    print(stats);
                }
            }
            _ = done.notified() => break true,
            signal = shutdown::signal() => { signal?; break false }
        }
    };
    drop(subscriptions);
    if finished && let Some(stats) = rate.lock().unwrap_or_else(PoisonError::into_inner).stats() {
        print(stats);
    }
    session::close(&session).await?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_cover_the_window_and_print_once_a_second() {
        let start = Instant::now();
        let mut rate = Rate::new(3);
        let ms = |n: u64| start + Duration::from_millis(n);
        for at in [0, 100, 200, 400] {
            rate.arrived(ms(at));
        }
        let stats = rate.stats().unwrap();
        assert_eq!(stats.window, 3);
        assert!((stats.rate - 1.0 / (0.4 / 3.0)).abs() < 1e-9, "{stats:?}");
        assert!((stats.min - 0.1).abs() < 1e-9 && (stats.max - 0.2).abs() < 1e-9);
        // The first look only marks the time; the next print comes a second of messages later.
        assert_eq!(rate.due(), None);
        rate.arrived(ms(1300));
        assert_eq!(rate.due(), None);
        rate.arrived(ms(1400));
        assert!(rate.due().is_some());
        assert_eq!(rate.due(), None);
    }
}

//! `zshm topic pub /t TYPE 'YAML'`: publishes a message of any known type, given as YAML (or
//! JSON, which is YAML too), like `ros2 topic pub`. Fields not given keep their defaults;
//! `header: auto` and `stamp: now` take the current time at each publish.
//!
//! The text is checked before anything is opened: bad YAML, an unknown field, a wrong type or an
//! out-of-range value exits 2 with the field path and what was expected. With `--once` or
//! `--times`, it first waits (at most `--max-wait-time-secs`, 5 s by default) for a matching
//! subscriber, as ros2 does with its `-w 1` default there, and publishes anyway after that
//! with a warning; after the last message it stays `--keep-alive` (0.1 s, ros2's default) so
//! the message leaves before the session closes.
//!
//! QoS: reliable, volatile, keep last 10 unless the `--qos-*` flags say otherwise; with
//! `--qos-durability transient_local` the publisher keeps its last `--qos-depth` messages for
//! late subscribers, as a latched ROS publisher does (keep it alive with `--keep-alive`).

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use zshm::dynamic::MessageType;
use zshm::ros::dynamic::DynamicType;
use zshm::ros::qos::QosProfile;

use crate::cli::{self, NodeArgs, QosArgs};
use crate::support::out::outln;
use crate::support::{session, shutdown};

/// `zshm topic pub`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Topic to publish on, e.g. /cmd_vel.
    pub topic: String,
    /// Message type, e.g. geometry_msgs/msg/Twist.
    #[arg(value_name = "TYPE")]
    pub type_name: String,
    /// The message as YAML, e.g. "{linear: {x: 0.5}}" (default: every field at its default).
    #[arg(default_value = "{}")]
    pub values: String,
    /// Messages per second.
    #[arg(short, long, default_value = "1", value_parser = cli::rate)]
    pub rate: f64,
    /// Publish one message, then exit.
    #[arg(short = '1', long, conflicts_with = "times")]
    pub once: bool,
    /// Publish this many messages, then exit (default: until Ctrl-C).
    #[arg(short, long)]
    pub times: Option<u64>,
    /// Wait for a matching subscriber before publishing (default: yes with --once or --times).
    #[arg(short = 'w', long, value_name = "BOOL")]
    pub wait_matching_subscriptions: Option<bool>,
    /// Longest wait for a matching subscriber, in seconds.
    #[arg(long, default_value = "5", value_parser = cli::seconds)]
    pub max_wait_time_secs: Duration,
    /// With --once or --times: stay this long after the last message, in seconds.
    #[arg(long, default_value = "0.1", value_parser = cli::seconds)]
    pub keep_alive: Duration,
    /// Print nothing per message.
    #[arg(short, long)]
    pub quiet: bool,
    /// QoS flags (default: reliable, volatile, keep last 10).
    #[command(flatten)]
    pub qos: QosArgs,
    /// Node flags.
    #[command(flatten)]
    pub node: NodeArgs,
}

/// Checks the message, then publishes it at `--rate` until done or a signal.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let ty = MessageType::shipped(&args.type_name).context("cannot publish")?;
    // Once now, so a mistake exits 2 before any session is opened.
    let first = ty.from_yaml(&args.values).context("cannot read the message")?;
    let hash = ty.hash().to_owned();
    let times = if args.once { Some(1) } else { args.times };
    let qos = args.qos.profile(QosProfile::default());
    let node = session::open_node(&args.node, &format!("zshm_topic_pub_{}", std::process::id())).await?;
    let dynamic = DynamicType {
        dds_name: ty.name().dds_name(),
        hash,
    };
    let publisher = node
        .create_dynamic_publisher(&args.topic, &dynamic, qos)
        .await
        .context("cannot declare the publisher")?;
    let info = publisher.info().clone();
    outln!("publisher: beginning loop");
    let wait = args.wait_matching_subscriptions.unwrap_or(times.is_some());
    let interrupted = tokio::select! {
        matched = publisher.wait_for_subscribers(args.max_wait_time_secs), if wait => {
            if !matched {
                tracing::warn!(
                    topic = %info.topic,
                    "no subscriber matched within {:?}; publishing anyway",
                    args.max_wait_time_secs
                );
            }
            false
        }
        signal = shutdown::signal() => { signal?; true }
        _ = std::future::ready(()), if !wait => false,
    };
    let mut sent = 0u64;
    if !interrupted {
        let mut ticker = tokio::time::interval(Duration::from_secs_f64(1.0 / args.rate));
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = ticker.tick() => {}
                signal = shutdown::signal() => { signal?; break; }
            }
            let value = if sent == 0 {
                first.clone()
            } else {
                ty.from_yaml(&args.values)?
            };
            let cdr = ty.encode(&value).context("cannot encode the message")?;
            sent += 1;
            let mut buffer = publisher.buffer(cdr.len()).await;
            buffer.copy_from_slice(&cdr);
            publisher
                .publish_loan(buffer, zshm::msgs::wall_clock_nanos())
                .await
                .context("cannot publish")?;
            if !args.quiet {
                outln!("publishing #{sent}: {}", value.to_json());
            }
            if times.is_some_and(|n| sent >= n) {
                tokio::select! {
                    _ = tokio::time::sleep(args.keep_alive) => {}
                    signal = shutdown::signal() => { signal?; }
                }
                break;
            }
        }
    }
    drop(publisher);
    session::close(node.session()).await?;
    Ok(ExitCode::SUCCESS)
}

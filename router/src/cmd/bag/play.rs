//! `zshm bag play DIR`: publishes a bag's messages again, as rmw_zenoh publishers (token, key
//! with the type hash, attachment) with the recorded QoS, spaced as they were recorded (their
//! log times), through the library's SHM or lane loans: each message read from the file is copied
//! once, into its send buffer in shared memory.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use zshm::ros::dynamic::{DynamicPublisher, DynamicType};

use super::metadata::{BagMetadata, parse_qos_yaml};
use super::storage::FileReader;
use super::{bad_input, dds_name, now_nanos};
use crate::cli::{self, NodeArgs};
use crate::support::out::outln;
use crate::support::{session, shutdown};

/// `zshm bag play`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The bag directory.
    #[arg(value_name = "DIR")]
    pub bag: PathBuf,
    /// Playback speed: 2 plays twice as fast (default 1).
    #[arg(short, long, default_value = "1", value_parser = cli::rate)]
    pub rate: f64,
    /// Start again from the beginning when done, until SIGINT or SIGTERM.
    #[arg(short, long = "loop")]
    pub looping: bool,
    /// Only these topics (default: all).
    #[arg(long, num_args = 1.., value_name = "TOPIC")]
    pub topics: Vec<String>,
    /// Skip this many seconds from the start of the bag (default 0).
    #[arg(long, default_value = "0", value_parser = cli::seconds)]
    pub start_offset: Duration,
    /// Before playing, wait up to this long for every topic to have a subscriber (default: do not
    /// wait; messages published before a subscriber is discovered reach nobody).
    #[arg(long, value_parser = cli::seconds, value_name = "SECONDS")]
    pub wait_for_subscribers: Option<Duration>,
    /// Session and node flags.
    #[command(flatten)]
    pub node: NodeArgs,
}

struct Played {
    name: String,
    publisher: DynamicPublisher,
}

/// Plays the bag once (or in a loop), then exits.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let metadata = BagMetadata::read(&args.bag).map_err(|e| bad_input(format!("{e:#}")))?;
    let message_compressed = match metadata.compression_mode.as_str() {
        "" | "none" | "file" => false,
        "message" => true,
        other => return Err(bad_input(format!("compression mode `{other}` is not supported"))),
    };
    if !metadata.compression_format.is_empty() && metadata.compression_format != "zstd" {
        return Err(bad_input(format!(
            "compression format `{}` is not supported (zstd is)",
            metadata.compression_format
        )));
    }
    let only: HashSet<String> = args
        .topics
        .iter()
        .map(|t| {
            if t.starts_with('/') {
                t.clone()
            } else {
                format!("/{t}")
            }
        })
        .collect();
    let node = session::open_node(&args.node, "zshm_bag_player").await?;
    let mut played: Vec<Played> = Vec::new();
    let mut by_topic: HashMap<String, usize> = HashMap::new();
    for topic in &metadata.topics_with_message_count {
        let topic = &topic.topic_metadata;
        if !only.is_empty() && !only.contains(&topic.name) {
            continue;
        }
        let Some(dds) = dds_name(&topic.type_name) else {
            tracing::warn!(topic = %topic.name, "not played: `{}` is not a ROS type name", topic.type_name);
            continue;
        };
        // The hash of the type as zshm's interface packages define it; else the one recorded.
        let hash = match super::shipped_definition(&topic.type_name) {
            Some((_, hash)) => hash,
            None if topic.type_description_hash.starts_with("RIHS01_") => topic.type_description_hash.clone(),
            None => {
                tracing::warn!(topic = %topic.name, "not played: type {} is unknown to zshm and the bag has no type hash", topic.type_name);
                continue;
            }
        };
        let qos = parse_qos_yaml(&topic.qos_text())
            .map_err(|e| bad_input(format!("topic {}: {e}", topic.name)))?
            .first()
            .copied()
            .unwrap_or_default();
        let qos: zshm::ros::qos::QosProfile = qos;
        let ty = DynamicType { dds_name: dds, hash };
        let publisher = node
            .create_dynamic_publisher(&topic.name, &ty, qos)
            .await
            .with_context(|| format!("cannot publish {}", topic.name))?;
        by_topic.insert(topic.name.clone(), played.len());
        played.push(Played {
            name: topic.name.clone(),
            publisher,
        });
    }
    if played.is_empty() {
        session::close(node.session()).await?;
        return Err(bad_input(format!("{}: no topic to play", args.bag.display())));
    }
    if let Some(timeout) = args.wait_for_subscribers {
        for p in &played {
            if !p.publisher.wait_for_subscribers(timeout).await {
                tracing::warn!(topic = %p.name, "no subscriber after {timeout:?}: playing anyway");
            }
        }
    }
    let outcome = tokio::select! {
        result = play_all(&args, &metadata, &played, &by_topic, message_compressed) => Some(result),
        signal = shutdown::signal() => { signal?; None }
    };
    let count = match outcome {
        Some(result) => result?,
        None => 0,
    };
    drop(played);
    session::close(node.session()).await?;
    outln!("played {count} messages from {}", args.bag.display());
    Ok(ExitCode::SUCCESS)
}

async fn play_all(
    args: &Args,
    metadata: &BagMetadata,
    played: &[Played],
    by_topic: &HashMap<String, usize>,
    message_compressed: bool,
) -> anyhow::Result<u64> {
    let mut count = 0u64;
    let mut decompressor = zstd::bulk::Decompressor::new().context("cannot start zstd")?;
    let first = metadata.starting_time.nanoseconds_since_epoch + args.start_offset.as_nanos() as u64;
    loop {
        let mut base: Option<(tokio::time::Instant, u64)> = None;
        for name in &metadata.relative_file_paths {
            let path = args.bag.join(name);
            let mut reader = FileReader::open(&path)?;
            while let Some(message) = reader.next_message()? {
                if message.log_time < first {
                    continue;
                }
                let Some(channel) = reader.channels.get(&message.channel) else {
                    continue;
                };
                let Some(&index) = by_topic.get(&channel.topic) else {
                    continue;
                };
                let (start, origin) = *base.get_or_insert((tokio::time::Instant::now(), message.log_time));
                let offset = message.log_time.saturating_sub(origin) as f64 / args.rate;
                tokio::time::sleep_until(start + Duration::from_nanos(offset as u64)).await;
                let data = if message_compressed {
                    decompressor.decompress(&message.data, 1 << 30).with_context(|| {
                        format!("{name}: a message of {} does not decompress", channel.topic)
                    })?
                } else {
                    message.data
                };
                let publisher = &played[index].publisher;
                let mut loan = publisher.buffer(data.len()).await;
                loan.copy_from_slice(&data);
                publisher
                    .publish_loan(loan, now_nanos() as i64)
                    .await
                    .with_context(|| format!("cannot publish on {}", channel.topic))?;
                count += 1;
            }
            if let Some(cut) = &reader.cut {
                tracing::warn!("{name} ends before its footer ({cut}): played what it holds");
            }
        }
        if !args.looping || count == 0 {
            return Ok(count);
        }
    }
}

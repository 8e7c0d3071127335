//! `zshm bag record`: subscribes to the topics the graph announces (with `-a`, those appearing
//! later too) and writes what arrives into a rosbag2 bag.
//!
//! zenoh's callback stamps each sample and puts it in a bounded queue without waiting (a full
//! queue drops the sample, counted per topic and logged once): the recorder never slows a
//! publisher. One writer thread empties the queue into the MCAP file; a sample that came through
//! shared memory stays there, referenced, until its bytes are written.

use std::collections::{HashMap, HashSet};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use zshm::ros::attachment::Attachment;
use zshm::ros::dynamic::{DynamicSubscription, DynamicType};
use zshm::ros::graph::GraphWatch;
use zshm::ros::liveliness::{self, EndpointInfo, EntityKind, Token};
use zshm::ros::qos::QosProfile;

use super::writer::{BagWriter, CompressionMode, Item, Options, Topic};
use super::{bad_input, human_bytes, metadata, now_nanos};
use crate::cli::{self, NodeArgs};
use crate::support::out::outln;
use crate::support::{session, shutdown};

/// `zshm bag record`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Record every topic, including those that appear while recording.
    #[arg(short = 'a', long = "all")]
    pub all: bool,
    /// Topics to record (fully qualified, or relative to `/`).
    #[arg(value_name = "TOPIC")]
    pub topics: Vec<String>,
    /// The bag directory to create (default `rosbag2_<date>-<time>`); must not exist.
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// Start a new MCAP file once the current one holds this many bytes (default 0: never).
    #[arg(long, default_value_t = 0, value_name = "BYTES")]
    pub max_bag_size: u64,
    /// What to compress (default none): each message, or each file once closed.
    #[arg(long, value_enum, default_value = "none")]
    pub compression_mode: CompressionMode,
    /// The compression format (only `zstd`); required with --compression-mode.
    #[arg(long, value_name = "FORMAT")]
    pub compression_format: Option<String>,
    /// Messages waiting to be written at most (default 64); beyond that new ones are dropped and
    /// counted, so that a slow disk never slows the publishers.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub queue: u32,
    /// Heap bytes waiting to be written at most (default 1 GiB; samples in shared memory do not
    /// count, they stay in the publisher's pool).
    #[arg(long, default_value_t = 1 << 30, value_name = "BYTES")]
    pub queue_bytes: usize,
    /// Stop after this long (default: until SIGINT or SIGTERM).
    #[arg(long, value_parser = cli::positive_seconds)]
    pub duration: Option<Duration>,
    /// Session and node flags.
    #[command(flatten)]
    pub node: NodeArgs,
}

/// Counters of one topic, shared by zenoh's callback, the writer and the progress line.
#[derive(Debug, Default)]
struct TopicStats {
    received: AtomicU64,
    dropped: AtomicU64,
    written: AtomicU64,
    bytes: AtomicU64,
}

struct Recorded {
    name: String,
    stats: Arc<TopicStats>,
    /// `None` when it could not be declared (the topic is in the bag, without messages).
    _subscription: Option<DynamicSubscription>,
}

/// Records until a signal, `--duration`, or a write error.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    if !args.all && args.topics.is_empty() {
        return Err(bad_input("name topics to record, or -a for all of them".into()));
    }
    if args.compression_mode != CompressionMode::None && args.compression_format.as_deref() != Some("zstd") {
        return Err(bad_input(
            "--compression-mode needs --compression-format zstd".into(),
        ));
    }
    if let Some(format) = &args.compression_format
        && format != "zstd"
    {
        return Err(bad_input(format!(
            "compression format `{format}` is not supported (zstd is)"
        )));
    }
    let wanted: HashSet<String> = args
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
    let dir = args.output.clone().unwrap_or_else(default_dir);
    if dir.exists() {
        return Err(bad_input(format!(
            "{} exists already; give a new directory with -o",
            dir.display()
        )));
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let options = Options {
        dir: dir.clone(),
        max_file_bytes: args.max_bag_size,
        compression: args.compression_mode,
    };
    let bag = BagWriter::create(options)?;

    let (tx, rx) = flume::bounded::<Item>(args.queue as usize);
    let queued_heap = Arc::new(AtomicUsize::new(0));
    let all_stats: Arc<std::sync::Mutex<Vec<Arc<TopicStats>>>> = Arc::default();
    let writer = spawn_writer(bag, rx, queued_heap.clone(), all_stats.clone())?;

    let node = session::open_node(&args.node, "zshm_bag_recorder").await?;
    let domain = node.info().domain;
    let (graph, events) = GraphWatch::with_events(node.session(), liveliness::domain_tokens(domain))
        .await
        .map_err(|e| anyhow::anyhow!("cannot watch the graph: {e}"))?;
    outln!("recording into {}", dir.display());

    let mut recorded: Vec<Recorded> = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let started = Instant::now();
    let deadline = args.duration.map(|d| tokio::time::Instant::now() + d);
    let mut progress = Progress::new();
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    let stop = loop {
        tokio::select! {
            event = events.next() => {
                let Some(event) = event else { break "the graph watch ended" };
                if !event.alive {
                    continue;
                }
                let Ok(Token::Endpoint(endpoint)) = event.entity() else {
                    continue;
                };
                if endpoint.kind != EntityKind::Publisher || !(args.all || wanted.contains(&endpoint.topic)) {
                    continue;
                }
                if endpoint.node.zid == node.session().zid() && endpoint.node.nid == node.info().nid {
                    continue;
                }
                if seen.contains_key(&endpoint.topic) {
                    continue;
                }
                // The writer learns the topic before the subscription exists: its callback sends
                // into the same queue, so a first message could otherwise overtake the topic.
                let topic = bag_topic(&endpoint);
                let index = recorded.len();
                let (name, type_name, unknown) = (topic.name.clone(), topic.type_name.clone(), topic.definition.is_empty());
                if tx.send_async(Item::Topic(topic)).await.is_err() {
                    break "the writer stopped";
                }
                seen.insert(endpoint.topic.clone(), index);
                let stats = Arc::new(TopicStats::default());
                all_stats.lock().map_err(|_| anyhow::anyhow!("stats lock poisoned"))?.push(stats.clone());
                let subscription = match subscribe(&node, &endpoint, index, &stats, &tx, &queued_heap, args.queue_bytes).await {
                    Ok(subscription) => {
                        outln!("recording {name} [{type_name}]{}",
                            if unknown { " (type unknown to zshm: recorded without its definition)" } else { "" });
                        Some(subscription)
                    }
                    Err(err) => {
                        tracing::warn!(topic = %endpoint.topic, "not recorded (the bag lists it with no messages): {err:#}");
                        None
                    }
                };
                recorded.push(Recorded { name: endpoint.topic.clone(), stats, _subscription: subscription });
            }
            _ = tick.tick() => {
                progress.print(&recorded, started.elapsed());
                if writer.is_finished() {
                    break "the writer stopped";
                }
            }
            _ = async { match deadline { Some(d) => tokio::time::sleep_until(d).await, None => std::future::pending().await } } => break "--duration reached",
            signal = shutdown::signal() => break signal?,
        }
    };
    progress.finish();
    tracing::info!("stopping: {stop}");
    // No new samples: the subscriptions go first, then the queue drains into the file.
    let names: Vec<(String, Arc<TopicStats>)> = recorded
        .iter()
        .map(|r| (r.name.clone(), r.stats.clone()))
        .collect();
    drop(recorded);
    drop(graph);
    drop(tx);
    let outcome = tokio::task::spawn_blocking(move || writer.join())
        .await
        .context("the writer task failed")?
        .map_err(|_| anyhow::anyhow!("the writer thread panicked"))?;
    session::close(node.session()).await?;
    let metadata = outcome?;
    print_summary(&dir, &metadata, &names);
    Ok(ExitCode::SUCCESS)
}

fn default_dir() -> PathBuf {
    let secs = now_nanos() / 1_000_000_000;
    let (y, mo, d, h, mi, s) = super::info::civil(secs);
    PathBuf::from(format!("rosbag2_{y:04}_{mo:02}_{d:02}-{h:02}_{mi:02}_{s:02}"))
}

/// What the bag says of the topic `endpoint` publishes.
fn bag_topic(endpoint: &EndpointInfo) -> Topic {
    let type_name = zshm::ros::keyexpr::ros_type_name(&endpoint.type_name);
    let definition = match super::shipped_definition(&type_name) {
        Some((definition, _)) => definition,
        None => {
            tracing::warn!(
                topic = %endpoint.topic,
                "type {type_name} is not in zshm's interface packages: recorded with an empty definition (tools that decode by schema cannot decode it)"
            );
            String::new()
        }
    };
    Topic {
        name: endpoint.topic.clone(),
        type_name,
        definition,
        hash: endpoint.type_hash.clone(),
        qos_yaml: metadata::qos_yaml(&[endpoint.qos]),
    }
}

/// Declares the subscription of one topic; its samples go to the queue as topic `index`.
async fn subscribe(
    node: &zshm::ros::Node,
    endpoint: &EndpointInfo,
    index: usize,
    stats: &Arc<TopicStats>,
    tx: &flume::Sender<Item>,
    queued_heap: &Arc<AtomicUsize>,
    queue_bytes: usize,
) -> anyhow::Result<DynamicSubscription> {
    let ty = DynamicType {
        dds_name: endpoint.type_name.clone(),
        hash: endpoint.type_hash.clone(),
    };
    let (tx, heap, counters, name) = (
        tx.clone(),
        queued_heap.clone(),
        stats.clone(),
        endpoint.topic.clone(),
    );
    let callback = move |sample: zshm::raw::RawSample| {
        let log_time = now_nanos();
        counters.received.fetch_add(1, Ordering::Relaxed);
        let publish_time = sample
            .attachment_bytes()
            .and_then(|bytes| Attachment::decode(&bytes).ok())
            .map_or(log_time, |a| a.source_timestamp.max(0) as u64);
        let heap_bytes = sample.heap_bytes();
        let reason = if heap.load(Ordering::Relaxed) + heap_bytes > queue_bytes {
            Some("the queue's heap bytes are at --queue-bytes")
        } else {
            heap.fetch_add(heap_bytes, Ordering::Relaxed);
            let item = Item::Message {
                topic: index,
                log_time,
                publish_time,
                sample,
            };
            match tx.try_send(item) {
                Ok(()) => None,
                Err(_) => {
                    heap.fetch_sub(heap_bytes, Ordering::Relaxed);
                    Some("the writer is behind and the queue is full (--queue)")
                }
            }
        };
        if let Some(reason) = reason
            && counters.dropped.fetch_add(1, Ordering::Relaxed) == 0
        {
            tracing::warn!(topic = %name, "dropping messages: {reason} (counted; later drops are not logged)");
        }
    };
    // The subscription asks for what the publisher offers (a TRANSIENT_LOCAL publisher's history
    // is recorded too), as rosbag2 adapts its subscription to the offered QoS.
    let qos = QosProfile {
        history: endpoint.qos.history,
        ..QosProfile::default()
    }
    .durability(endpoint.qos.durability)
    .reliability(endpoint.qos.reliability);
    node.create_dynamic_subscription(&endpoint.topic, &ty, qos, callback)
        .await
        .context("cannot subscribe")
}

/// The writer thread: drains the queue into the bag; ends when every sender is gone.
fn spawn_writer(
    mut bag: BagWriter,
    rx: flume::Receiver<Item>,
    queued_heap: Arc<AtomicUsize>,
    stats: Arc<std::sync::Mutex<Vec<Arc<TopicStats>>>>,
) -> anyhow::Result<std::thread::JoinHandle<anyhow::Result<metadata::BagMetadata>>> {
    let handle = std::thread::Builder::new()
        .name("zshm-bag-writer".into())
        .spawn(move || {
            loop {
                match rx.recv_timeout(super::writer::FLUSH_EVERY / 4) {
                    Ok(item) => {
                        let written = match &item {
                            Item::Message { topic, sample, .. } => {
                                Some((*topic, sample.payload().len() as u64, sample.heap_bytes()))
                            }
                            Item::Topic(_) => None,
                        };
                        bag.handle(item)?;
                        if let Some((topic, len, heap)) = written {
                            queued_heap.fetch_sub(heap, Ordering::Relaxed);
                            if let Some(s) = stats.lock().ok().and_then(|s| s.get(topic).cloned()) {
                                s.written.fetch_add(1, Ordering::Relaxed);
                                s.bytes.fetch_add(len, Ordering::Relaxed);
                            }
                        }
                    }
                    Err(flume::RecvTimeoutError::Timeout) => {}
                    Err(flume::RecvTimeoutError::Disconnected) => break,
                }
                bag.tick()?;
            }
            bag.finish()
        })
        .context("cannot start the writer thread")?;
    Ok(handle)
}

/// The progress line: rewritten in place on a terminal, one plain line every 5 s otherwise.
struct Progress {
    tty: bool,
    last: HashMap<String, (u64, u64)>,
    printed: Option<Instant>,
    drawn: bool,
}

impl Progress {
    fn new() -> Self {
        Self {
            tty: std::io::stderr().is_terminal(),
            last: HashMap::new(),
            printed: None,
            drawn: false,
        }
    }

    fn print(&mut self, recorded: &[Recorded], elapsed: Duration) {
        let interval = if self.tty {
            Duration::from_secs(1)
        } else {
            Duration::from_secs(5)
        };
        let since = self.printed.map_or(elapsed, |p| p.elapsed());
        if since < interval || recorded.is_empty() {
            return;
        }
        self.printed = Some(Instant::now());
        let secs = since.as_secs_f64().max(1e-3);
        let (mut messages, mut bytes, mut dropped) = (0, 0, 0);
        let mut parts = Vec::new();
        for r in recorded {
            let (m, b) = (
                r.stats.written.load(Ordering::Relaxed),
                r.stats.bytes.load(Ordering::Relaxed),
            );
            let (pm, pb) = self.last.insert(r.name.clone(), (m, b)).unwrap_or((0, 0));
            messages += m;
            bytes += b;
            dropped += r.stats.dropped.load(Ordering::Relaxed);
            parts.push(format!(
                "{} {:.1} Hz {}/s",
                r.name,
                (m - pm) as f64 / secs,
                human_bytes(((b - pb) as f64 / secs) as u64)
            ));
        }
        let line = format!(
            "recording {:.0}s: {messages} messages, {}, {dropped} dropped | {}",
            elapsed.as_secs_f64(),
            human_bytes(bytes),
            parts.join(" | ")
        );
        if self.tty {
            eprint!("\r\x1b[2K{line}");
            self.drawn = true;
        } else {
            eprintln!("{line}");
        }
    }

    fn finish(&mut self) {
        if self.drawn {
            eprintln!();
        }
    }
}

fn print_summary(
    dir: &std::path::Path,
    metadata: &metadata::BagMetadata,
    topics: &[(String, Arc<TopicStats>)],
) {
    outln!(
        "recorded {} messages on {} topics into {}",
        metadata.message_count,
        metadata.topics_with_message_count.len(),
        dir.display()
    );
    for (name, stats) in topics {
        let dropped = stats.dropped.load(Ordering::Relaxed);
        outln!(
            "  {name}: {} received, {} written ({}), {dropped} dropped",
            stats.received.load(Ordering::Relaxed),
            stats.written.load(Ordering::Relaxed),
            human_bytes(stats.bytes.load(Ordering::Relaxed))
        );
    }
    let unknown = metadata
        .topics_with_message_count
        .iter()
        .filter(|t| super::shipped_definition(&t.topic_metadata.type_name).is_none())
        .count();
    if unknown > 0 {
        outln!("  {unknown} topics recorded without a message definition (types unknown to zshm)");
    }
}

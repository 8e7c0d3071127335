//! The MCAP side of a recording: one writer thread owns the open `<dir>_<n>.mcap`, adds each
//! topic's schema and channel the way rosbag2's MCAP plugin does, writes messages as they come
//! (the payload slice goes from shared memory to the file, no copy of its own), splits at
//! `--max-bag-size`, compresses as asked, and keeps `metadata.yaml` current.
//!
//! Chunks are closed at least every [`FLUSH_EVERY`] and written through, so a recorder killed
//! with SIGKILL leaves every message but those of the last second (and those still queued) in
//! complete chunks.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;

use super::metadata::{
    self, BagMetadata, FileInformation, Nanoseconds, NanosecondsSinceEpoch, TopicMetadata, TopicWithCount,
};

/// How often the open chunk is closed and written through at the latest.
pub const FLUSH_EVERY: Duration = Duration::from_secs(1);

/// rosbag2's MCAP chunk size (`mcap_storage.cpp`: 768 KiB).
const CHUNK_SIZE: u64 = 768 * 1024;

/// How messages or files are compressed (rosbag2's `--compression-mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CompressionMode {
    /// Nothing compressed.
    None,
    /// Each message's bytes, on their own (zstd frames in the MCAP).
    Message,
    /// Each MCAP file once it is closed (`<file>.mcap.zstd`).
    File,
}

/// One recorded topic.
#[derive(Debug, Clone)]
pub struct Topic {
    /// Fully qualified name.
    pub name: String,
    /// `pkg/msg/Type`.
    pub type_name: String,
    /// The `ros2msg` text; empty when the type is not one zshm knows.
    pub definition: String,
    /// `RIHS01_…`, from the publisher's token.
    pub hash: String,
    /// `offered_qos_profiles`.
    pub qos_yaml: String,
}

/// What the writer thread is given.
#[derive(Debug)]
pub enum Item {
    /// A topic, before any of its messages.
    Topic(Topic),
    /// A message of the topic with this index (in the order topics came).
    Message {
        /// Topic index.
        topic: usize,
        /// Receive time, ns since the UNIX epoch.
        log_time: u64,
        /// The publisher's source timestamp.
        publish_time: u64,
        /// The sample (its payload stays where it arrived until written).
        sample: zshm::raw::RawSample,
    },
}

/// Options fixed for a recording.
#[derive(Debug, Clone)]
pub struct Options {
    /// The bag directory.
    pub dir: PathBuf,
    /// Split after this many bytes (0: never).
    pub max_file_bytes: u64,
    /// What to compress.
    pub compression: CompressionMode,
}

struct OpenFile {
    writer: mcap::Writer<BufWriter<File>>,
    name: String,
    channels: Vec<Option<u16>>,
    first: u64,
    last: u64,
    count: u64,
    bytes: u64,
}

/// Writes a recording; used by one thread.
pub struct BagWriter {
    options: Options,
    base: String,
    topics: Vec<Topic>,
    counts: Vec<u64>,
    files: Vec<FileInformation>,
    open: Option<OpenFile>,
    compressor: Option<zstd::bulk::Compressor<'static>>,
    last_flush: Instant,
}

impl BagWriter {
    /// Creates the first file and an initial `metadata.yaml`.
    pub fn create(options: Options) -> anyhow::Result<Self> {
        let base = options
            .dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "bag".into());
        let compressor = match options.compression {
            CompressionMode::Message => Some(zstd::bulk::Compressor::new(1).context("cannot start zstd")?),
            _ => None,
        };
        let mut writer = Self {
            options,
            base,
            topics: Vec::new(),
            counts: Vec::new(),
            files: Vec::new(),
            open: None,
            compressor,
            last_flush: Instant::now(),
        };
        writer.open_next()?;
        writer.write_metadata()?;
        Ok(writer)
    }

    fn open_next(&mut self) -> anyhow::Result<()> {
        let name = format!("{}_{}.mcap", self.base, self.files.len());
        let path = self.options.dir.join(&name);
        let file = File::create(&path).with_context(|| format!("cannot create {}", path.display()))?;
        let writer = mcap::WriteOptions::new()
            .profile("ros2")
            .library(format!("zshm {}", env!("CARGO_PKG_VERSION")))
            .compression(None)
            .chunk_size(Some(CHUNK_SIZE))
            .create(BufWriter::with_capacity(1 << 20, file))
            .with_context(|| format!("cannot start {}", path.display()))?;
        let mut open = OpenFile {
            writer,
            name,
            channels: vec![None; self.topics.len()],
            first: u64::MAX,
            last: 0,
            count: 0,
            bytes: 0,
        };
        for (index, topic) in self.topics.iter().enumerate() {
            open.channels[index] = Some(add_channel(&mut open.writer, topic)?);
        }
        self.open = Some(open);
        Ok(())
    }

    /// Handles one item.
    pub fn handle(&mut self, item: Item) -> anyhow::Result<()> {
        match item {
            Item::Topic(topic) => {
                let open = self.open.as_mut().context("no open file")?;
                open.channels.push(Some(add_channel(&mut open.writer, &topic)?));
                self.topics.push(topic);
                self.counts.push(0);
                self.write_metadata()
            }
            Item::Message {
                topic,
                log_time,
                publish_time,
                sample,
            } => self.write_message(topic, log_time, publish_time, sample.payload()),
        }
    }

    fn write_message(
        &mut self,
        topic: usize,
        log_time: u64,
        publish_time: u64,
        payload: &[u8],
    ) -> anyhow::Result<()> {
        let compressed;
        let data = match &mut self.compressor {
            Some(compressor) => {
                compressed = compressor.compress(payload).context("zstd failed")?;
                &compressed[..]
            }
            None => payload,
        };
        let open = self.open.as_mut().context("no open file")?;
        let channel_id = open
            .channels
            .get(topic)
            .copied()
            .flatten()
            .context("message of an unknown topic")?;
        self.counts[topic] += 1;
        let header = mcap::records::MessageHeader {
            channel_id,
            sequence: self.counts[topic] as u32,
            log_time,
            publish_time,
        };
        open.writer
            .write_to_known_channel(&header, data)
            .with_context(|| format!("cannot write to {}", open.name))?;
        open.first = open.first.min(log_time);
        open.last = open.last.max(log_time);
        open.count += 1;
        open.bytes += data.len() as u64 + 31;
        if self.options.max_file_bytes > 0 && open.bytes >= self.options.max_file_bytes {
            self.close_file()?;
            self.open_next()?;
            self.write_metadata()?;
        }
        Ok(())
    }

    /// Closes the open chunk and writes it through when [`FLUSH_EVERY`] has passed.
    pub fn tick(&mut self) -> anyhow::Result<()> {
        if self.last_flush.elapsed() >= FLUSH_EVERY {
            self.last_flush = Instant::now();
            if let Some(open) = &mut self.open {
                open.writer
                    .flush()
                    .with_context(|| format!("cannot write to {}", open.name))?;
            }
        }
        Ok(())
    }

    fn close_file(&mut self) -> anyhow::Result<()> {
        let Some(mut open) = self.open.take() else {
            return Ok(());
        };
        open.writer
            .finish()
            .with_context(|| format!("cannot finish {}", open.name))?;
        let mut inner = open.writer.into_inner();
        inner.flush()?;
        let file = inner.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        let mut name = open.name.clone();
        if self.options.compression == CompressionMode::File {
            name = compress_file(&self.options.dir, &open.name)?;
        }
        let first = if open.count == 0 { 0 } else { open.first };
        self.files.push(FileInformation {
            path: name,
            starting_time: NanosecondsSinceEpoch {
                nanoseconds_since_epoch: first,
            },
            duration: Nanoseconds {
                nanoseconds: open.last.saturating_sub(first),
            },
            message_count: open.count,
        });
        Ok(())
    }

    /// Finishes the last file (summary and index) and writes the final `metadata.yaml`.
    pub fn finish(mut self) -> anyhow::Result<BagMetadata> {
        self.close_file()?;
        self.write_metadata()?;
        Ok(self.metadata())
    }

    fn metadata(&self) -> BagMetadata {
        let mut files = self.files.clone();
        if let Some(open) = &self.open {
            // Listed while it is written, so a bag whose recorder died still names its files.
            files.push(FileInformation {
                path: open.name.clone(),
                starting_time: NanosecondsSinceEpoch {
                    nanoseconds_since_epoch: if open.count == 0 { 0 } else { open.first },
                },
                duration: Nanoseconds {
                    nanoseconds: open.last.saturating_sub(open.first.min(open.last)),
                },
                message_count: open.count,
            });
        }
        let with_messages = files.iter().filter(|f| f.message_count > 0);
        let start = with_messages
            .clone()
            .map(|f| f.starting_time.nanoseconds_since_epoch)
            .min()
            .unwrap_or(0);
        let end = with_messages
            .map(|f| f.starting_time.nanoseconds_since_epoch + f.duration.nanoseconds)
            .max()
            .unwrap_or(0);
        let (mode, format) = match self.options.compression {
            CompressionMode::None => ("", ""),
            CompressionMode::Message => ("message", "zstd"),
            CompressionMode::File => ("file", "zstd"),
        };
        BagMetadata {
            version: metadata::VERSION,
            storage_identifier: "mcap".into(),
            relative_file_paths: files.iter().map(|f| f.path.clone()).collect(),
            duration: Nanoseconds {
                nanoseconds: end.saturating_sub(start),
            },
            starting_time: NanosecondsSinceEpoch {
                nanoseconds_since_epoch: start,
            },
            message_count: files.iter().map(|f| f.message_count).sum(),
            topics_with_message_count: self
                .topics
                .iter()
                .zip(&self.counts)
                .map(|(topic, &count)| TopicWithCount {
                    topic_metadata: TopicMetadata {
                        name: topic.name.clone(),
                        type_name: topic.type_name.clone(),
                        serialization_format: "cdr".into(),
                        offered_qos_profiles: metadata::qos_value(&topic.qos_yaml),
                        type_description_hash: topic.hash.clone(),
                    },
                    message_count: count,
                })
                .collect(),
            compression_format: format.into(),
            compression_mode: mode.into(),
            files,
            custom_data: None,
            ros_distro: "jazzy".into(),
        }
    }

    fn write_metadata(&self) -> anyhow::Result<()> {
        self.metadata().write(&self.options.dir)
    }
}

/// Adds a topic's schema and channel as rosbag2's MCAP plugin does: the schema named after the
/// type with its `ros2msg` text, the channel with `cdr` and its QoS and type hash.
fn add_channel<W: Write + Seek>(writer: &mut mcap::Writer<W>, topic: &Topic) -> anyhow::Result<u16> {
    let schema = writer.add_schema(&topic.type_name, "ros2msg", topic.definition.as_bytes())?;
    let mut channel_metadata = BTreeMap::new();
    channel_metadata.insert("offered_qos_profiles".to_owned(), topic.qos_yaml.clone());
    channel_metadata.insert("topic_type_hash".to_owned(), topic.hash.clone());
    Ok(writer.add_channel(schema, &topic.name, "cdr", &channel_metadata)?)
}

/// `<name>` → `<name>.zstd` (rosbag2's file compression), the original removed.
fn compress_file(dir: &Path, name: &str) -> anyhow::Result<String> {
    let compressed = format!("{name}.zstd");
    let source = dir.join(name);
    let target = dir.join(&compressed);
    let mut input = File::open(&source)?;
    let output = File::create(&target).with_context(|| format!("cannot create {}", target.display()))?;
    let mut encoder = zstd::stream::Encoder::new(BufWriter::new(output), 1)?;
    std::io::copy(&mut input, &mut encoder)?;
    encoder.finish()?.flush()?;
    std::fs::remove_file(&source)?;
    Ok(compressed)
}

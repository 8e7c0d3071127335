//! Reading a bag's MCAP files front to back, with the streaming (sans-io) reader of the `mcap`
//! crate: a file is never loaded whole, `.zstd` files (rosbag2's file compression) are
//! decompressed on the way, and a file without its summary (a recorder killed with SIGKILL)
//! yields every record up to where it was cut, then says so.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use anyhow::Context;
use mcap::records::Record;
use mcap::sans_io::linear_reader::{LinearReadEvent, LinearReader, LinearReaderOptions};

/// A channel of the file (all of it kept, for `info` and tests to come; play needs the topic).
#[derive(Debug, Clone)]
#[allow(dead_code)]
pub struct Channel {
    /// Topic name.
    pub topic: String,
    /// The schema's name (the ROS type).
    pub type_name: String,
    /// The schema's text.
    pub definition: String,
    /// Channel metadata (`offered_qos_profiles`, `topic_type_hash`).
    pub metadata: std::collections::BTreeMap<String, String>,
}

/// One message, owned.
#[derive(Debug)]
#[allow(dead_code)]
pub struct Message {
    /// Channel id in its file.
    pub channel: u16,
    /// Receive time.
    pub log_time: u64,
    /// Publish time.
    pub publish_time: u64,
    /// The (possibly compressed) CDR bytes.
    pub data: Vec<u8>,
}

/// Reads one MCAP file front to back.
pub struct FileReader {
    reader: LinearReader,
    source: Box<dyn Read + Send>,
    schemas: HashMap<u16, (String, String)>,
    /// Channels met so far, by id.
    pub channels: HashMap<u16, Channel>,
    /// Set when the file ended before its footer: what the reader said.
    pub cut: Option<String>,
    /// Whether the footer was read.
    pub complete: bool,
}

impl FileReader {
    /// Opens `path`; a name ending in `.zstd` is decompressed as it is read.
    pub fn open(path: &Path) -> anyhow::Result<Self> {
        let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
        let source: Box<dyn Read + Send> = if path.extension().is_some_and(|e| e == "zstd") {
            Box::new(zstd::stream::Decoder::new(file)?)
        } else {
            Box::new(BufReader::with_capacity(1 << 20, file))
        };
        Ok(Self {
            reader: LinearReader::new_with_options(LinearReaderOptions::default()),
            source,
            schemas: HashMap::new(),
            channels: HashMap::new(),
            cut: None,
            complete: false,
        })
    }

    /// The next message, or `None` at the end (complete or cut: see [`cut`](Self::cut)).
    pub fn next_message(&mut self) -> anyhow::Result<Option<Message>> {
        loop {
            let event = match self.reader.next_event() {
                None => {
                    self.complete = self.cut.is_none();
                    return Ok(None);
                }
                Some(Err(err)) => {
                    self.cut = Some(err.to_string());
                    return Ok(None);
                }
                Some(Ok(event)) => event,
            };
            match event {
                LinearReadEvent::ReadRequest(need) => {
                    let buffer = self.reader.insert(need);
                    let read = self.source.read(buffer)?;
                    self.reader.notify_read(read);
                }
                LinearReadEvent::Record { opcode, data } => {
                    let record = match mcap::parse_record(opcode, data) {
                        Ok(record) => record,
                        Err(err) => {
                            self.cut = Some(err.to_string());
                            return Ok(None);
                        }
                    };
                    match record {
                        Record::Schema { header, data } => {
                            self.schemas.insert(
                                header.id,
                                (header.name.clone(), String::from_utf8_lossy(&data).into_owned()),
                            );
                        }
                        Record::Channel(channel) => {
                            let (type_name, definition) =
                                self.schemas.get(&channel.schema_id).cloned().unwrap_or_default();
                            self.channels.insert(
                                channel.id,
                                Channel {
                                    topic: channel.topic.clone(),
                                    type_name,
                                    definition,
                                    metadata: channel.metadata.clone(),
                                },
                            );
                        }
                        Record::Message { header, data } => {
                            return Ok(Some(Message {
                                channel: header.channel_id,
                                log_time: header.log_time,
                                publish_time: header.publish_time,
                                data: data.into_owned(),
                            }));
                        }
                        Record::Footer(_) => self.complete = true,
                        _ => {}
                    }
                }
            }
        }
    }
}

//! Services across the bridge: requests on DDS `rq/<name>Request`, replies on `rr/<name>Reply`,
//! each framed as the DDS peer frames them ([`framing`]: rmw_cyclonedds_cpp's request header or
//! rmw_fastrtps_cpp's sample identity, chosen per DDS endpoint from its vendor).
//!
//! * [`ZenohToDdsServer`]: rmw_zenoh clients reach a DDS server. The bridge offers the service on
//!   zenoh (a complete queryable and its SS token), writes each request to DDS as a client of the
//!   server's own RMW would, and answers the zenoh query with the reply that names that request.
//! * [`DdsToZenohServer`]: DDS clients reach an rmw_zenoh server. The bridge reads the requests,
//!   calls the server through zenoh (`get`, all complete queryables, no consolidation) and
//!   writes the reply to the DDS client as its RMW expects it.

pub(crate) mod framing;

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use rustdds::{DataReaderStatus, DataWriterStatus, GUID, RTPSEntity, StatusEvented, WriteOptionsBuilder};
use tokio::sync::mpsc::error::TrySendError;
use tokio::task::{JoinHandle, JoinSet};
use zshm::ros::dynamic::{DynamicClient, DynamicRequest, DynamicService};

use crate::dds::{RawCdr, RawReader, RawWriter, Vendor};
use crate::route::{MATCH_WAIT, OwnGids};
use crate::stats::{DropReason, RouteStats};
use framing::{CDR_LE, Framing, RequestHeader, plain_body, zenoh_body};

/// How long a request waits for its reply across the bridge; past it the request is given up
/// (counted as `no_reply`). Clients have their own, usually shorter, timeouts.
const REPLY_WAIT: Duration = Duration::from_secs(60);

/// Requests waiting for the DDS writer before new ones are refused (counted as `queue_full`;
/// the zenoh client gets no reply at once): zenoh's callback never waits for DDS.
const QUEUE: usize = 256;

/// A route's name and counters, shared by its tasks.
#[derive(Clone)]
pub(crate) struct Counters {
    pub name: Arc<str>,
    pub stats: Arc<RouteStats>,
}

impl Counters {
    fn drop(&self, (reason, detail): (DropReason, String)) {
        self.stats.dropped(&self.name, reason, &detail);
    }
}

/// Waits (at most [`MATCH_WAIT`]) until `writer` matched a reader and `reader` a writer: the
/// DDS side is volatile, so a request written before the server's reader matched, or a reply
/// written before the bridge's reader matched, would be lost.
async fn wait_matched(writer: &RawWriter, reader: Option<&RawReader>) {
    let deadline = Instant::now() + MATCH_WAIT;
    let (mut written, mut read) = (false, reader.is_none());
    while !(written && read) && Instant::now() < deadline {
        while let Some(status) = writer.try_recv_status() {
            if let DataWriterStatus::PublicationMatched { current, .. } = status {
                written = current.count() > 0;
            }
        }
        if let Some(reader) = reader {
            while let Some(status) = reader.try_recv_status() {
                if let DataReaderStatus::SubscriptionMatched { current, .. } = status {
                    read = current.count() > 0;
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A reply's key and fields when it answers one of the bridge's requests, `None` when it answers
/// another client's, or why it cannot be read.
type Answer<'a> = Result<Option<(i64, &'a [u8])>, (DropReason, String)>;

/// The bridge's DDS side of a service it offers on zenoh: its request writer (`rq/…`), its reply
/// reader (`rr/…`) and how the DDS server frames them.
pub(crate) struct DdsServerSide {
    pub writer: RawWriter,
    pub reader: RawReader,
    pub framing: Framing,
}

/// The bridge as a DDS client of one service: how it frames its requests and which replies
/// answer them.
struct DdsClient {
    framing: Framing,
    /// The guid in its request headers: any 64-bit value no other client of the service uses;
    /// derived from its writer's GUID, which is unique in the domain.
    header_guid: u64,
    sequence: i64,
    writer: GUID,
    reader: GUID,
}

impl DdsClient {
    fn new(framing: Framing, writer: &RawWriter, reader: &RawReader) -> Self {
        Self {
            framing,
            header_guid: std::collections::hash_map::RandomState::new().hash_one(writer.guid()),
            sequence: 0,
            writer: writer.guid(),
            reader: reader.guid(),
        }
    }

    /// Writes a request (`body`: its fields' CDR); returns the key its reply will carry.
    async fn send(&mut self, writer: &RawWriter, body: &[u8]) -> Result<i64, String> {
        match self.framing {
            Framing::RequestHeader => {
                self.sequence += 1;
                let header = RequestHeader {
                    guid: self.header_guid,
                    sequence: self.sequence,
                };
                writer
                    .async_write(header.join(body), None)
                    .await
                    .map_err(|e| e.to_string())?;
                Ok(self.sequence)
            }
            Framing::SampleIdentity => {
                let raw = RawCdr {
                    encoding: rustdds::RepresentationIdentifier::CDR_LE,
                    body: body.to_vec().into(),
                };
                let options = WriteOptionsBuilder::new()
                    .related_sample_identity(framing::reply_reader_identity(self.reader))
                    .build();
                let identity = writer
                    .async_write_with_options(raw, options)
                    .await
                    .map_err(|e| e.to_string())?;
                Ok(i64::from(identity.sequence_number))
            }
        }
    }

    /// The key and the fields of a reply to one of this client's requests; `None` for replies
    /// to other clients.
    fn answer<'a>(&self, related: Option<rustdds::SampleIdentity>, raw: &'a RawCdr) -> Answer<'a> {
        match self.framing {
            Framing::RequestHeader => {
                let (header, body) = RequestHeader::split(raw)?;
                Ok((header.guid == self.header_guid).then_some((header.sequence, body)))
            }
            Framing::SampleIdentity => {
                // rmw_fastrtps_cpp's server names the reader the request asked for; its
                // clients also take their writer's GUID, so the bridge does too.
                let Some(related) =
                    related.filter(|r| r.writer_guid == self.reader || r.writer_guid == self.writer)
                else {
                    return Ok(None);
                };
                Ok(Some((i64::from(related.sequence_number), plain_body(raw)?)))
            }
        }
    }
}

/// rmw_zenoh clients → a DDS server. Dropping it withdraws the zenoh service first (no new
/// requests), then ends the task, which owns the DDS writer and reader.
pub(crate) struct ZenohToDdsServer {
    _service: DynamicService,
    task: JoinHandle<()>,
}

impl ZenohToDdsServer {
    /// Offers `name` of type `ty` on zenoh through `node` and forwards its requests to DDS
    /// through `dds`'s writer (on `rq/…`), answering them from its reader (on `rr/…`). Requests from the
    /// bridge's own clients (GIDs in `own_gids`) are not sent back to DDS.
    pub async fn start(
        node: &zshm::ros::Node,
        name: &str,
        ty: &zshm::ros::dynamic::DynamicType,
        dds: DdsServerSide,
        own_gids: OwnGids,
        counters: Counters,
    ) -> Result<Self, zshm::ros::NodeError> {
        let DdsServerSide {
            writer,
            reader,
            framing,
        } = dds;
        let (queue, mut requests) = tokio::sync::mpsc::channel::<DynamicRequest>(QUEUE);
        let refused = counters.clone();
        let service = node
            .create_dynamic_service(name, ty, move |request| {
                let gid = request.request_id().0;
                if own_gids.lock().unwrap_or_else(|e| e.into_inner()).contains(&gid) {
                    return;
                }
                if let Err(TrySendError::Full(_)) = queue.try_send(request) {
                    refused.drop((DropReason::QueueFull, "requests wait for the DDS server".into()));
                }
            })
            .await?;
        let task = tokio::spawn(async move {
            let mut client = DdsClient::new(framing, &writer, &reader);
            wait_matched(&writer, Some(&reader)).await;
            let mut replies = reader.async_sample_stream();
            let mut pending: HashMap<i64, (DynamicRequest, Instant)> = HashMap::new();
            let mut sweep = tokio::time::interval(Duration::from_secs(1));
            loop {
                tokio::select! {
                    request = requests.recv() => {
                        let Some(request) = request else { break };
                        let body = match zenoh_body(request.payload()) {
                            Ok(body) => body,
                            Err(why) => {
                                counters.drop(why);
                                continue;
                            }
                        };
                        match client.send(&writer, body).await {
                            Ok(key) => {
                                counters.stats.forwarded(CDR_LE.len() + body.len());
                                pending.insert(key, (request, Instant::now()));
                            }
                            Err(err) => counters.drop((DropReason::SendFailed, format!("DDS write: {err}"))),
                        }
                    }
                    reply = replies.next() => {
                        let Some(reply) = reply else { break };
                        let sample = match reply {
                            Ok(sample) => sample,
                            Err(err) => {
                                counters.drop((DropReason::SendFailed, format!("DDS read error: {err}")));
                                continue;
                            }
                        };
                        let related = sample.sample_info().related_sample_identity();
                        let raw = sample.into_value();
                        let (key, body) = match client.answer(related, &raw) {
                            Ok(Some(answer)) => answer,
                            // Replies to the service's other clients are not ours.
                            Ok(None) => continue,
                            Err(why) => {
                                counters.drop(why);
                                continue;
                            }
                        };
                        // A late reply (its request was given up) has nobody to go to.
                        let Some((request, _)) = pending.remove(&key) else {
                            continue;
                        };
                        let response = [&CDR_LE[..], body].concat();
                        match request.reply(&response) {
                            Ok(()) => counters.stats.forwarded(response.len()),
                            Err(err) => counters.drop((DropReason::SendFailed, err.to_string())),
                        }
                    }
                    _ = sweep.tick() => {
                        pending.retain(|_, (_, since)| {
                            let waiting = since.elapsed() < REPLY_WAIT;
                            if !waiting {
                                counters.drop((DropReason::NoReply, format!("no DDS reply within {REPLY_WAIT:?}")));
                            }
                            waiting
                        });
                    }
                }
            }
        });
        Ok(Self {
            _service: service,
            task,
        })
    }
}

impl Drop for ZenohToDdsServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// DDS clients → an rmw_zenoh server. Dropping it ends the task, which owns the DDS reader and
/// writer, the zenoh client and the calls in flight.
pub(crate) struct DdsToZenohServer {
    task: JoinHandle<()>,
    gid: zshm_protocol::gid::Gid,
    own_gids: OwnGids,
}

impl DdsToZenohServer {
    /// Reads the DDS requests from `reader` (on `rq/…`, skipping what the bridge wrote itself),
    /// calls the zenoh server through `client` and writes each reply through `writer` (on `rr/…`).
    /// The client's GID joins `own_gids` while the route lives: its calls are not routed back to
    /// DDS by a [`ZenohToDdsServer`] of the same service.
    pub fn start(
        client: DynamicClient,
        reader: RawReader,
        writer: RawWriter,
        is_own_writer: impl Fn(GUID) -> bool + Send + 'static,
        vendor_of: impl Fn(GUID) -> Vendor + Send + 'static,
        own_gids: OwnGids,
        counters: Counters,
    ) -> Self {
        let gid =
            zshm_protocol::gid::Gid::of_token(&zshm_protocol::liveliness::endpoint_token(client.info()));
        own_gids.lock().unwrap_or_else(|e| e.into_inner()).insert(gid);
        let task = tokio::spawn(async move {
            client.wait_for_service(MATCH_WAIT).await;
            wait_matched(&writer, None).await;
            let (client, writer) = (Arc::new(client), Arc::new(writer));
            let mut requests = reader.async_sample_stream();
            let mut calls = JoinSet::new();
            loop {
                tokio::select! {
                    request = requests.next() => {
                        let Some(request) = request else { break };
                        let sample = match request {
                            Ok(sample) => sample,
                            Err(err) => {
                                counters.drop((DropReason::SendFailed, format!("DDS read error: {err}")));
                                continue;
                            }
                        };
                        let info = sample.sample_info();
                        let writer_guid = info.writer_guid();
                        if is_own_writer(writer_guid) {
                            continue;
                        }
                        let (related, identity) = (info.related_sample_identity(), info.sample_identity());
                        let raw = sample.into_value();
                        let read = framing::read_request(&raw, related, identity, vendor_of(writer_guid));
                        let (reply_to, body) = match read {
                            Ok(read) => read,
                            Err(why) => {
                                counters.drop(why);
                                continue;
                            }
                        };
                        let request = [&CDR_LE[..], body].concat();
                        counters.stats.forwarded(request.len());
                        let (client, writer, counters) = (client.clone(), writer.clone(), counters.clone());
                        calls.spawn(async move {
                            let reply = match client.call_cdr(&request, REPLY_WAIT).await {
                                Ok(reply) => reply,
                                Err(err) => {
                                    return counters.drop((DropReason::NoReply, err.to_string()));
                                }
                            };
                            let body = match zenoh_body(reply.payload()) {
                                Ok(body) => body,
                                Err(why) => return counters.drop(why),
                            };
                            let (raw, related) = reply_to.reply(body);
                            let len = CDR_LE.len() + raw.body.len();
                            let options = WriteOptionsBuilder::new().related_sample_identity_opt(related).build();
                            match writer.async_write_with_options(raw, options).await {
                                Ok(_) => counters.stats.forwarded(len),
                                Err(err) => counters.drop((DropReason::SendFailed, format!("DDS write: {err}"))),
                            }
                        });
                    }
                    Some(_) = calls.join_next(), if !calls.is_empty() => {}
                }
            }
        });
        Self { task, gid, own_gids }
    }
}

impl Drop for DdsToZenohServer {
    fn drop(&mut self) {
        self.task.abort();
        self.own_gids
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.gid);
    }
}

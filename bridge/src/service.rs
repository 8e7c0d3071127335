//! Services across the bridge, carried on DDS as rmw_cyclonedds_cpp carries them: requests on
//! `rq/<name>Request`, replies on `rr/<name>Reply`, each sample starting with the request header
//! (`cdds_request_header_t` in rmw_cyclonedds_cpp's `serdata.hpp`: the client's 64-bit guid and
//! the request's sequence number) before the message's fields. A server copies the header into
//! its reply, and each client keeps the replies that carry its own guid.
//!
//! * [`ZenohToDdsServer`]: rmw_zenoh clients reach a DDS server. The bridge offers the service on
//!   zenoh (a complete queryable and its SS token), writes each request to DDS under a guid of its
//!   own, and answers the zenoh query with the reply that carries that guid and number.
//! * [`DdsToZenohServer`]: DDS clients reach an rmw_zenoh server. The bridge reads the requests,
//!   calls the server through zenoh (`get`, all complete queryables, no consolidation) and
//!   writes the reply with the DDS client's header.
//!
//! rmw_fastrtps_cpp carries the request's identity in the RTPS sample identity instead of a
//! header; it is not bridged (see the README's "Bridging DDS").

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use rustdds::{DataReaderStatus, DataWriterStatus, GUID, RepresentationIdentifier, StatusEvented};
use tokio::sync::mpsc::error::TrySendError;
use tokio::task::{JoinHandle, JoinSet};
use zshm::ros::dynamic::{DynamicClient, DynamicRequest, DynamicService};

use crate::dds::{RawCdr, RawReader, RawWriter};
use crate::route::{MATCH_WAIT, OwnGids};
use crate::stats::{DropReason, RouteStats};

/// The request header's size: a `uint64` guid and an `int64` sequence number.
const HEADER_LEN: usize = 16;

/// How long a request waits for its reply across the bridge; past it the request is given up
/// (counted as `no_reply`). Clients have their own, usually shorter, timeouts.
const REPLY_WAIT: Duration = Duration::from_secs(60);

/// Requests waiting for the DDS writer before new ones are refused (counted as `queue_full`;
/// the zenoh client gets no reply at once): zenoh's callback never waits for DDS.
const QUEUE: usize = 256;

/// The CDR encapsulation header of little-endian plain CDR, which rmw_zenoh payloads start with.
const CDR_LE: [u8; 4] = [0, 1, 0, 0];

/// rmw_cyclonedds_cpp's request header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RequestHeader {
    guid: u64,
    sequence: i64,
}

impl RequestHeader {
    /// The header of a DDS request or reply and the message body after it, or why not: it is
    /// not little-endian CDR, or too short to hold a header.
    fn split(raw: &RawCdr) -> Result<(Self, &[u8]), (DropReason, String)> {
        if raw.encoding != RepresentationIdentifier::CDR_LE {
            return Err((
                DropReason::UnsupportedEncoding,
                format!("encoding {:?}", raw.encoding),
            ));
        }
        let Some((header, body)) = raw.body.split_first_chunk::<HEADER_LEN>() else {
            return Err((DropReason::TooShort, format!("{} bytes", raw.body.len())));
        };
        let (guid, sequence) = header.split_at(8);
        let header = Self {
            guid: u64::from_le_bytes(guid.try_into().expect("8 bytes")),
            sequence: i64::from_le_bytes(sequence.try_into().expect("8 bytes")),
        };
        Ok((header, body))
    }

    /// A DDS sample: this header, then `body` (a message's CDR after its encapsulation header).
    fn join(self, body: &[u8]) -> RawCdr {
        let mut bytes = Vec::with_capacity(HEADER_LEN + body.len());
        bytes.extend_from_slice(&self.guid.to_le_bytes());
        bytes.extend_from_slice(&self.sequence.to_le_bytes());
        bytes.extend_from_slice(body);
        RawCdr {
            encoding: RepresentationIdentifier::CDR_LE,
            body: bytes.into(),
        }
    }
}

/// The body of an rmw_zenoh payload (after its encapsulation header), if it is little-endian CDR.
fn zenoh_body(payload: &[u8]) -> Result<&[u8], (DropReason, String)> {
    match payload {
        [0, 1, _, _, body @ ..] => Ok(body),
        [0, 0, _, _, ..] => Err((DropReason::BigEndian, "CDR_BE".into())),
        [a, b, _, _, ..] => Err((
            DropReason::UnsupportedEncoding,
            format!("encapsulation {a:02x}{b:02x}"),
        )),
        _ => Err((DropReason::TooShort, format!("{} bytes", payload.len()))),
    }
}

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

/// The guid the bridge writes in its requests' headers: any 64-bit value no other client of the
/// service uses; derived from its writer's GUID, which is unique in the domain.
fn client_guid(writer: GUID) -> u64 {
    std::collections::hash_map::RandomState::new().hash_one(writer)
}

/// rmw_zenoh clients → a DDS server. Dropping it withdraws the zenoh service first (no new
/// requests), then ends the task, which owns the DDS writer and reader.
pub(crate) struct ZenohToDdsServer {
    _service: DynamicService,
    task: JoinHandle<()>,
}

impl ZenohToDdsServer {
    /// Offers `name` of type `ty` on zenoh through `node` and forwards its requests to DDS
    /// through `writer` (on `rq/…`), answering them from `reader` (on `rr/…`). Requests from the
    /// bridge's own clients (GIDs in `own_gids`) are not sent back to DDS.
    pub async fn start(
        node: &zshm::ros::Node,
        name: &str,
        ty: &zshm::ros::dynamic::DynamicType,
        writer: RawWriter,
        reader: RawReader,
        own_gids: OwnGids,
        counters: Counters,
    ) -> Result<Self, zshm::ros::NodeError> {
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
            let guid = client_guid(rustdds::RTPSEntity::guid(&writer));
            wait_matched(&writer, Some(&reader)).await;
            let mut replies = reader.async_sample_stream();
            let mut pending: HashMap<i64, (DynamicRequest, Instant)> = HashMap::new();
            let mut sequence = 0;
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
                        sequence += 1;
                        let raw = RequestHeader { guid, sequence }.join(body);
                        let len = CDR_LE.len() + raw.body.len();
                        match writer.async_write(raw, None).await {
                            Ok(()) => {
                                counters.stats.forwarded(len);
                                pending.insert(sequence, (request, Instant::now()));
                            }
                            Err(err) => counters.drop((DropReason::SendFailed, format!("DDS write: {err}"))),
                        }
                    }
                    reply = replies.next() => {
                        let Some(reply) = reply else { break };
                        let raw = match reply {
                            Ok(sample) => sample.into_value(),
                            Err(err) => {
                                counters.drop((DropReason::SendFailed, format!("DDS read error: {err}")));
                                continue;
                            }
                        };
                        let (header, body) = match RequestHeader::split(&raw) {
                            Ok(split) => split,
                            Err(why) => {
                                counters.drop(why);
                                continue;
                            }
                        };
                        // Replies to the service's other clients, and late ones, are not ours.
                        if header.guid != guid {
                            continue;
                        }
                        let Some((request, _)) = pending.remove(&header.sequence) else {
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
    gid: zshm::ros::gid::Gid,
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
        own_gids: OwnGids,
        counters: Counters,
    ) -> Self {
        let gid = zshm::ros::gid::Gid::of_token(&zshm::ros::liveliness::endpoint_token(client.info()));
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
                        if is_own_writer(sample.sample_info().writer_guid()) {
                            continue;
                        }
                        let raw = sample.into_value();
                        let (header, body) = match RequestHeader::split(&raw) {
                            Ok(split) => split,
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
                            let raw = header.join(body);
                            let len = CDR_LE.len() + raw.body.len();
                            match writer.async_write(raw, None).await {
                                Ok(()) => counters.stats.forwarded(len),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_header_round_trips_before_the_body() {
        let header = RequestHeader {
            guid: 0x0123_4567_89ab_cdef,
            sequence: 7,
        };
        let raw = header.join(&[1, 2, 3]);
        assert_eq!(raw.body.len(), HEADER_LEN + 3);
        assert_eq!(raw.body[..8], 0x0123_4567_89ab_cdef_u64.to_le_bytes());
        let (back, body) = RequestHeader::split(&raw).unwrap();
        assert_eq!((back, body), (header, &[1u8, 2, 3][..]));
    }

    #[test]
    fn short_or_foreign_samples_are_refused_with_their_reason() {
        let short = RawCdr {
            encoding: RepresentationIdentifier::CDR_LE,
            body: vec![0; 15].into(),
        };
        assert_eq!(RequestHeader::split(&short).unwrap_err().0, DropReason::TooShort);
        let xcdr2 = RawCdr {
            encoding: RepresentationIdentifier::CDR2_LE,
            body: vec![0; 20].into(),
        };
        assert_eq!(
            RequestHeader::split(&xcdr2).unwrap_err().0,
            DropReason::UnsupportedEncoding
        );
        assert_eq!(zenoh_body(&[0, 1, 0, 0, 9]).unwrap(), [9]);
        assert_eq!(zenoh_body(&[0, 0, 0, 0, 9]).unwrap_err().0, DropReason::BigEndian);
        assert_eq!(zenoh_body(&[0, 1]).unwrap_err().0, DropReason::TooShort);
    }
}

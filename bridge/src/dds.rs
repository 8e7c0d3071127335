//! The DDS side, on RustDDS: one participant on the chosen interfaces, readers and writers that
//! move CDR bytes without knowing their type, and the remote endpoints discovery found.
//!
//! RustDDS splits a serialized payload into its representation identifier (the first two bytes
//! of the 4-byte encapsulation header) and the body after the header, on both reading and
//! writing; the two option bytes are not handed over and go out as zero, which is what ROS 2's
//! XCDR1 payloads carry. [`RawCdr`] holds those two parts.

use std::convert::Infallible;
use std::net::IpAddr;
use std::sync::Mutex;

use rustdds::no_key::{Decode, DefaultDecoder, DeserializerAdapter, SerializerAdapter};
use rustdds::policy::{Durability, History, Reliability};
use rustdds::{
    DomainParticipant, DomainParticipantBuilder, GUID, QosPolicies, QosPolicyBuilder, RTPSEntity,
    RepresentationIdentifier, TopicKind,
};

/// A DDS sample as bytes: how the body is encoded and the body after the 4-byte header.
#[derive(Debug, Clone)]
pub(crate) struct RawCdr {
    pub encoding: RepresentationIdentifier,
    pub body: rustdds::bytes::Bytes,
}

/// Every representation RustDDS knows: the reader takes them all so that the bridge, not
/// RustDDS, decides what to drop, and counts it.
const EVERY_ENCODING: &[RepresentationIdentifier] = &[
    RepresentationIdentifier::CDR_LE,
    RepresentationIdentifier::CDR_BE,
    RepresentationIdentifier::PL_CDR_LE,
    RepresentationIdentifier::PL_CDR_BE,
    RepresentationIdentifier::CDR2_LE,
    RepresentationIdentifier::CDR2_BE,
    RepresentationIdentifier::PL_CDR2_LE,
    RepresentationIdentifier::PL_CDR2_BE,
    RepresentationIdentifier::D_CDR_LE,
    RepresentationIdentifier::D_CDR_BE,
];

/// The (de)serializer of [`RawCdr`]: bytes in, bytes out.
pub(crate) struct RawAdapter;

#[derive(Clone)]
pub(crate) struct RawDecoder;

impl DeserializerAdapter<RawCdr> for RawAdapter {
    type Error = Infallible;
    type Decoded = RawCdr;

    fn supported_encodings() -> &'static [RepresentationIdentifier] {
        EVERY_ENCODING
    }

    fn transform_decoded(decoded: RawCdr) -> RawCdr {
        decoded
    }
}

impl DefaultDecoder<RawCdr> for RawAdapter {
    type Decoder = RawDecoder;
    const DECODER: RawDecoder = RawDecoder;
}

impl<'de> Decode<'de, RawCdr> for RawDecoder {
    type Error = Infallible;

    fn decode_bytes(
        self,
        input: &'de [u8],
        encoding: RepresentationIdentifier,
    ) -> Result<RawCdr, Infallible> {
        Ok(RawCdr {
            encoding,
            body: rustdds::bytes::Bytes::copy_from_slice(input),
        })
    }
}

impl SerializerAdapter<RawCdr> for RawAdapter {
    type Error = Infallible;

    // rmw_zenoh and zshm publish little-endian CDR; big-endian samples are dropped (counted)
    // before they get here.
    fn output_encoding() -> RepresentationIdentifier {
        RepresentationIdentifier::CDR_LE
    }

    fn to_bytes(value: &RawCdr) -> Result<rustdds::bytes::Bytes, Infallible> {
        Ok(value.body.clone())
    }
}

/// A raw reader and writer.
pub(crate) type RawReader = rustdds::no_key::DataReader<RawCdr, RawAdapter>;
pub(crate) type RawWriter = rustdds::no_key::DataWriter<RawCdr, RawAdapter>;

/// The octets of a USER_DATA parameter as RustDDS hands it over: the parameter's value, which is a
/// CDR `sequence<octet>` (a u32 length, in the parameter list's byte order, then the octets and
/// padding). Anything that does not parse so is returned as it is.
fn user_data_octets(value: &[u8]) -> Vec<u8> {
    let Some((length, rest)) = value.split_first_chunk::<4>() else {
        return value.to_vec();
    };
    [u32::from_le_bytes(*length), u32::from_be_bytes(*length)]
        .into_iter()
        .filter_map(|n| usize::try_from(n).ok())
        .find(|&n| n <= rest.len() && rest.len() - n < 4)
        .map_or_else(|| value.to_vec(), |n| rest[..n].to_vec())
}

/// The DDS implementation of a participant, from its SPDP data (`PID_VENDORID`, the vendor ids
/// the OMG assigns), or the first two bytes of its GUID prefix (RTPS 2.3 §9.3.1.5 has vendors
/// put their id there, and Fast DDS does) while its SPDP data has not been read yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Vendor {
    /// eProsima Fast DDS (0x010f): rmw_fastrtps_cpp, ROS 2's default middleware.
    FastDds,
    /// Eclipse Cyclone DDS (0x0110): rmw_cyclonedds_cpp.
    CycloneDds,
    /// Another vendor.
    Other([u8; 2]),
    /// Not known yet.
    Unknown,
}

impl Vendor {
    fn from_id(id: [u8; 2]) -> Self {
        match id {
            [0x01, 0x0f] => Vendor::FastDds,
            [0x01, 0x10] => Vendor::CycloneDds,
            [0, 0] => Vendor::Unknown,
            other => Vendor::Other(other),
        }
    }

    /// What the GUID prefix alone says: only Fast DDS is known to put its id there.
    fn from_prefix(prefix: &[u8]) -> Self {
        match prefix {
            [0x01, 0x0f, ..] => Vendor::FastDds,
            _ => Vendor::Unknown,
        }
    }
}

/// The 12 bytes of `guid`'s prefix (RustDDS does not export its prefix type).
fn prefix_bytes(guid: &GUID) -> [u8; 12] {
    let mut prefix = [0; 12];
    prefix.copy_from_slice(&guid.to_bytes()[..12]);
    prefix
}

/// A DDS reader or writer another participant announced.
#[derive(Debug, Clone)]
pub(crate) struct RemoteEndpoint {
    pub topic: String,
    pub type_name: String,
    pub reliable: bool,
    pub transient_local: bool,
    pub user_data: Vec<u8>,
    /// Its participant's GUID prefix, in hex (`crate::peers` tells other bridges by it).
    pub participant: String,
    /// Its GUID, as `ros_discovery_info` names it.
    pub guid: [u8; 16],
    /// Its participant's DDS implementation.
    pub vendor: Vendor,
}

/// DDS endpoints as discovered, held for [`Lingering::HOLD`] after they drop out of RustDDS's
/// snapshot: the snapshot was seen missing a live endpoint for a moment, and a route that went
/// down and up for it would re-declare its zenoh side and may be served the writer's history
/// again. An endpoint that really left goes that much later.
#[derive(Debug, Default)]
pub(crate) struct Lingering {
    /// By GUID: the endpoint, when it was first seen and when last.
    seen: std::collections::HashMap<[u8; 16], (RemoteEndpoint, std::time::Instant, std::time::Instant)>,
}

impl Lingering {
    /// How long an endpoint outlives its last sighting.
    pub const HOLD: std::time::Duration = std::time::Duration::from_secs(1);

    /// Takes a new snapshot; returns the endpoints in it and those seen within [`Self::HOLD`].
    pub fn update(&mut self, snapshot: Vec<RemoteEndpoint>, now: std::time::Instant) -> Vec<RemoteEndpoint> {
        for endpoint in snapshot {
            let first = self.seen.get(&endpoint.guid).map_or(now, |(_, first, _)| *first);
            self.seen.insert(endpoint.guid, (endpoint, first, now));
        }
        self.seen
            .retain(|_, (_, _, last)| now.duration_since(*last) <= Self::HOLD);
        self.seen
            .values()
            .map(|(endpoint, _, _)| endpoint.clone())
            .collect()
    }

    /// When the endpoint `guid` was first seen (in this run of sightings).
    pub fn first_seen(&self, guid: &[u8; 16]) -> Option<std::time::Instant> {
        self.seen.get(guid).map(|(_, first, _)| *first)
    }
}

/// What the bridge's DDS endpoints promise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DdsQos {
    pub reliable: bool,
    pub transient_local: bool,
    /// `None`: keep all.
    pub depth: Option<u32>,
}

impl DdsQos {
    fn policies(self) -> QosPolicies {
        let builder = QosPolicyBuilder::new()
            .reliability(if self.reliable {
                // How long a reliable write may wait for room in the history (keep-all).
                Reliability::Reliable {
                    max_blocking_time: rustdds::Duration::from_millis(100),
                }
            } else {
                Reliability::BestEffort
            })
            .durability(if self.transient_local {
                Durability::TransientLocal
            } else {
                Durability::Volatile
            })
            .history(match self.depth {
                Some(depth) => History::KeepLast {
                    depth: i32::try_from(depth).unwrap_or(i32::MAX),
                },
                None => History::KeepAll,
            });
        builder.build()
    }
}

/// Why the DDS side could not be set up.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DdsError {
    /// RustDDS could not create the participant, a topic, a reader or a writer.
    #[error("DDS refused to create the {what}: {detail}")]
    Create {
        /// What.
        what: String,
        /// RustDDS's error text.
        detail: String,
    },
}

/// The bridge's participant and its publisher and subscriber.
pub(crate) struct Dds {
    participant: DomainParticipant,
    /// The participant's status events, read for the discovery of new participants.
    status: Mutex<rustdds::DomainParticipantStatusListener>,
    /// The vendor of every participant discovered, by GUID prefix.
    vendors: Mutex<std::collections::HashMap<[u8; 12], Vendor>>,
    publisher: rustdds::Publisher,
    subscriber: rustdds::Subscriber,
}

fn create_error(what: impl Into<String>, err: impl std::fmt::Display) -> DdsError {
    DdsError::Create {
        what: what.into(),
        detail: err.to_string(),
    }
}

impl Dds {
    /// Joins `domain` on `interfaces` only.
    pub fn join(domain: u16, interfaces: &[IpAddr]) -> Result<Self, DdsError> {
        let participant = DomainParticipantBuilder::new(domain)
            .with_only_networks(interfaces.iter().copied())
            .build()
            .map_err(|e| create_error("participant", e))?;
        let qos = QosPolicies::qos_none();
        let publisher = participant
            .create_publisher(&qos)
            .map_err(|e| create_error("publisher", e))?;
        let subscriber = participant
            .create_subscriber(&qos)
            .map_err(|e| create_error("subscriber", e))?;
        let status = Mutex::new(participant.status_listener());
        Ok(Self {
            participant,
            status,
            vendors: Mutex::default(),
            publisher,
            subscriber,
        })
    }

    /// Whether a new DDS participant was discovered since the last call: its writers and readers
    /// may still be on their way through discovery.
    pub fn participants_discovered(&self) -> bool {
        use rustdds::StatusEvented;
        let status = self.status.lock().unwrap_or_else(|e| e.into_inner());
        let mut discovered = false;
        while let Some(event) = status.try_recv_status() {
            if let rustdds::DomainParticipantStatusEvent::ParticipantDiscovered { dpd } = event {
                discovered = true;
                self.vendors
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(prefix_bytes(&dpd.guid), Vendor::from_id(dpd.vendor_id.vendor_id));
            }
        }
        discovered
    }

    /// The DDS implementation of the participant of `guid`.
    pub fn vendor(&self, guid: GUID) -> Vendor {
        let known = self
            .vendors
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&prefix_bytes(&guid))
            .copied();
        known.unwrap_or_else(|| Vendor::from_prefix(guid.prefix.as_ref()))
    }

    /// The participant's GUID: the first 12 bytes (the prefix) are shared by its endpoints.
    pub fn guid(&self) -> GUID {
        self.participant.guid()
    }

    /// True when `guid` is an endpoint of this participant: what the bridge itself declared.
    pub fn is_own(&self, guid: GUID) -> bool {
        guid.prefix == self.participant.guid().prefix
    }

    /// The writers of other participants.
    pub fn remote_writers(&self) -> Vec<RemoteEndpoint> {
        self.participant
            .discovered_writers()
            .into_iter()
            .filter(|w| !self.is_own(w.writer_proxy.remote_writer_guid))
            .map(|w| {
                let data = &w.publication_topic_data;
                RemoteEndpoint {
                    topic: data.topic_name.clone(),
                    type_name: data.type_name.clone(),
                    reliable: matches!(data.reliability, Some(Reliability::Reliable { .. })),
                    transient_local: matches!(
                        data.durability,
                        Some(Durability::TransientLocal | Durability::Transient | Durability::Persistent)
                    ),
                    user_data: user_data_octets(&w.user_data),
                    participant: crate::peers::hex(w.writer_proxy.remote_writer_guid.prefix.as_ref()),
                    guid: w.writer_proxy.remote_writer_guid.to_bytes(),
                    vendor: self.vendor(w.writer_proxy.remote_writer_guid),
                }
            })
            .collect()
    }

    /// The readers of other participants.
    pub fn remote_readers(&self) -> Vec<RemoteEndpoint> {
        self.participant
            .discovered_readers()
            .into_iter()
            .filter(|r| !self.is_own(r.reader_proxy.remote_reader_guid))
            .map(|r| {
                let data = &r.subscription_topic_data;
                let qos = data.qos();
                RemoteEndpoint {
                    topic: data.topic_name().clone(),
                    type_name: data.type_name().clone(),
                    reliable: qos.is_reliable(),
                    transient_local: !qos.is_volatile(),
                    user_data: user_data_octets(&r.user_data),
                    participant: crate::peers::hex(r.reader_proxy.remote_reader_guid.prefix.as_ref()),
                    guid: r.reader_proxy.remote_reader_guid.to_bytes(),
                    vendor: self.vendor(r.reader_proxy.remote_reader_guid),
                }
            })
            .collect()
    }

    fn topic(&self, name: &str, type_name: &str, qos: &QosPolicies) -> Result<rustdds::Topic, DdsError> {
        self.participant
            .create_topic(name.to_owned(), type_name.to_owned(), qos, TopicKind::NoKey)
            .map_err(|e| create_error(format!("topic {name}"), e))
    }

    /// A reader of `topic` (a DDS name) with `qos`.
    pub fn reader(&self, topic: &str, type_name: &str, qos: DdsQos) -> Result<RawReader, DdsError> {
        let policies = qos.policies();
        let topic_handle = self.topic(topic, type_name, &policies)?;
        self.subscriber
            .create_datareader_no_key::<RawCdr, RawAdapter>(&topic_handle, Some(policies))
            .map_err(|e| create_error(format!("reader of {topic}"), e))
    }

    /// A writer of `topic` (a DDS name) with `qos`.
    pub fn writer(&self, topic: &str, type_name: &str, qos: DdsQos) -> Result<RawWriter, DdsError> {
        let policies = qos.policies();
        let topic_handle = self.topic(topic, type_name, &policies)?;
        self.publisher
            .create_datawriter_no_key::<RawCdr, RawAdapter>(&topic_handle, Some(policies))
            .map_err(|e| create_error(format!("writer of {topic}"), e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn user_data_loses_its_sequence_length_and_padding() {
        let mut value = 13u32.to_le_bytes().to_vec();
        value.extend_from_slice(b"enclave=/abc;\0\0\0");
        assert_eq!(user_data_octets(&value), b"enclave=/abc;");
        let mut big_endian = 4u32.to_be_bytes().to_vec();
        big_endian.extend_from_slice(b"a=b;");
        assert_eq!(user_data_octets(&big_endian), b"a=b;");
        assert_eq!(user_data_octets(b"ab"), b"ab");
        assert_eq!(user_data_octets(b"typehash=x;"), b"typehash=x;");
    }

    fn endpoint(last_byte: u8) -> RemoteEndpoint {
        let mut guid = [1u8; 16];
        guid[15] = last_byte;
        RemoteEndpoint {
            topic: "rt/chatter".into(),
            type_name: "std_msgs::msg::dds_::String_".into(),
            reliable: true,
            transient_local: false,
            user_data: Vec::new(),
            participant: "01".into(),
            guid,
            vendor: Vendor::Unknown,
        }
    }

    #[test]
    fn an_endpoint_missing_from_one_snapshot_stays_until_the_hold_ends() {
        let mut lingering = Lingering::default();
        let start = Instant::now();
        assert_eq!(lingering.update(vec![endpoint(1), endpoint(2)], start).len(), 2);
        let blink = start + Duration::from_millis(200);
        let held = lingering.update(vec![endpoint(1)], blink);
        assert_eq!(held.len(), 2, "endpoint 2 missed one snapshot");
        assert_eq!(lingering.first_seen(&endpoint(2).guid), Some(start));
        let later = start + Lingering::HOLD + Duration::from_millis(300);
        let left = lingering.update(vec![endpoint(1)], later);
        assert_eq!(left.iter().map(|e| e.guid[15]).collect::<Vec<_>>(), vec![1]);
        assert_eq!(lingering.first_seen(&endpoint(1).guid), Some(start));
        assert_eq!(lingering.first_seen(&endpoint(2).guid), None);
    }
}

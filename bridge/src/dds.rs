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

use crate::stats::NotCarried;
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
    /// Its topic is keyed: the entity kind in its GUID is a writer or reader "with key" (RTPS
    /// 2.5 §9.3.1.2). ROS 2's own topics never are, and DDS matches such an endpoint only with
    /// keyed ones (Cyclone DDS's keyed writer never matched the bridge's unkeyed reader).
    pub keyed: bool,
    /// A reader's content filter, as it announced it (`expression` and its parameters).
    pub content_filter: Option<String>,
    /// Fast DDS data-sharing is on for it (Fast DDS's `PID_DATASHARING` in its announcement).
    pub data_sharing: bool,
}

impl RemoteEndpoint {
    /// The DDS features it uses that the bridge does not carry to the zenoh side, each with
    /// what to tell the user about this endpoint.
    pub fn not_carried(&self) -> Vec<(NotCarried, String)> {
        let mut found = Vec::new();
        if let Some(filter) = &self.content_filter {
            found.push((
                NotCarried::ContentFilter,
                format!("{} filters by {filter}", self.describe()),
            ));
        }
        if self.data_sharing {
            found.push((
                NotCarried::DataSharing,
                format!("{} offers Fast DDS data-sharing", self.describe()),
            ));
        }
        found
    }

    fn describe(&self) -> String {
        let kind = if is_writer_kind(self.guid[15]) {
            "writer"
        } else {
            "reader"
        };
        format!(
            "the DDS {kind} {} of {}",
            crate::peers::hex(&self.guid),
            self.topic
        )
    }
}

/// Fast DDS's vendor-specific parameter id for its data-sharing QoS (`PID_DATASHARING`).
const FAST_DDS_PID_DATASHARING: u16 = 0x8006;

/// Whether an entity kind (the last octet of a GUID) is a writer's (RTPS 2.5 Table 9.1: writers
/// 0x02 with key and 0x03 without; readers 0x04 without and 0x07 with; the two high bits say
/// user-defined, built-in or vendor-specific).
fn is_writer_kind(kind: u8) -> bool {
    matches!(kind & 0x3f, 0x02 | 0x03)
}

/// Whether an entity kind is that of a writer or reader of a keyed topic.
fn is_keyed_kind(kind: u8) -> bool {
    matches!(kind & 0x3f, 0x02 | 0x07)
}

/// A content filter as the user wrote it: the expression, then its parameters if any.
fn describe_filter(expression: &str, parameters: &[String]) -> String {
    let mut text = format!("`{expression}`");
    if !parameters.is_empty() {
        text.push_str(&format!(" with parameters {parameters:?}"));
    }
    text
}

/// Whether an announcement from a participant of `vendor` with these vendor-specific parameter
/// ids turns Fast DDS data-sharing on (the ids mean something only from their vendor).
fn offers_data_sharing(vendor: Vendor, vendor_parameter_ids: &[u16]) -> bool {
    vendor == Vendor::FastDds && vendor_parameter_ids.contains(&FAST_DDS_PID_DATASHARING)
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
                    keyed: is_keyed_kind(w.writer_proxy.remote_writer_guid.to_bytes()[15]),
                    content_filter: None,
                    data_sharing: offers_data_sharing(
                        self.vendor(w.writer_proxy.remote_writer_guid),
                        &w.vendor_parameter_ids,
                    ),
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
                    keyed: is_keyed_kind(r.reader_proxy.remote_reader_guid.to_bytes()[15]),
                    content_filter: r
                        .content_filter
                        .as_ref()
                        .map(|f| describe_filter(&f.filter_expression, &f.expression_parameters)),
                    data_sharing: offers_data_sharing(
                        self.vendor(r.reader_proxy.remote_reader_guid),
                        &r.vendor_parameter_ids,
                    ),
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
            keyed: false,
            content_filter: None,
            data_sharing: false,
        }
    }

    #[test]
    fn what_an_endpoint_uses_that_the_bridge_does_not_carry_is_told_from_its_announcement() {
        // ROS 2's own endpoints: no filter, no data-sharing, nothing to say.
        let mut plain = endpoint(0x03);
        assert!(plain.not_carried().is_empty());
        // A keyed writer (0x02) and a keyed reader (0x07), user-defined or vendor-specific.
        assert!([0x02, 0x07, 0x42, 0xc7].into_iter().all(is_keyed_kind));
        assert!(![0x03, 0x04, 0xc3, 0xc4].into_iter().any(is_keyed_kind));
        plain.content_filter = Some(describe_filter("data > %0", &["5".into()]));
        let told = plain.not_carried();
        assert_eq!(told.len(), 1);
        assert_eq!(told[0].0, NotCarried::ContentFilter);
        assert!(
            told[0]
                .1
                .ends_with(r#"of rt/chatter filters by `data > %0` with parameters ["5"]"#),
            "{}",
            told[0].1
        );
        assert!(
            told[0].1.starts_with("the DDS writer "),
            "0x03 is a writer: {}",
            told[0].1
        );
        // 0x8006 is data-sharing only from Fast DDS; another vendor's 0x8006 means something else.
        assert!(offers_data_sharing(Vendor::FastDds, &[0x8002, 0x8006]));
        assert!(!offers_data_sharing(Vendor::FastDds, &[0x8002]));
        assert!(!offers_data_sharing(Vendor::CycloneDds, &[0x8006]));
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

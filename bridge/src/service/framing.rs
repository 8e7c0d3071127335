//! How a DDS request or reply says which call it belongs to. The two DDS RMWs of ROS 2 disagree,
//! and neither reads the other's (ros2/rmw_cyclonedds#184, #577), so the bridge speaks each
//! peer's own, chosen per DDS endpoint from what discovery says of it:
//!
//! * [`Framing::RequestHeader`], rmw_cyclonedds_cpp's: every request and reply starts with
//!   `cdds_request_header_t` (`serdata.hpp`): the client's 64-bit guid and the request's
//!   sequence number, little-endian, 16 bytes before the message's fields (8-byte aligned, so
//!   the fields' CDR is the same with and without it).
//! * [`Framing::SampleIdentity`], rmw_fastrtps_cpp's (`rmw_request.cpp`, `rmw_response.cpp`):
//!   plain CDR. A request's identity is its RTPS sample identity (writer GUID, sequence number);
//!   the client names the reader its reply must go to in the DATA's `related_sample_identity`
//!   inline QoS (sequence number unknown). The server's reply carries `related_sample_identity`
//!   = (that reader's GUID, the request's sequence number); the client takes the replies whose
//!   GUID is its reader's or its writer's.
//!
//! The vendor comes from the participant's SPDP data (`PID_VENDORID`); a request that carries a
//! `related_sample_identity` is framed by identity whatever its vendor.

use rustdds::{GUID, RepresentationIdentifier, SampleIdentity, SequenceNumber};

use crate::dds::{RawCdr, Vendor};
use crate::stats::DropReason;

/// The request header's size: a `uint64` guid and an `int64` sequence number.
const HEADER_LEN: usize = 16;

/// The CDR encapsulation header of little-endian plain CDR, which rmw_zenoh payloads start with.
pub(crate) const CDR_LE: [u8; 4] = [0, 1, 0, 0];

/// Where a DDS service endpoint keeps a call's identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Framing {
    /// rmw_cyclonedds_cpp's 16-byte request header in front of the fields.
    RequestHeader,
    /// rmw_fastrtps_cpp's RTPS sample identity and `related_sample_identity`, fields alone.
    SampleIdentity,
}

impl Framing {
    /// The framing of a DDS service endpoint whose participant is of `vendor`: Fast DDS's
    /// (rmw_fastrtps_cpp, ROS 2's default) by identity, the others' (Cyclone DDS, and RustDDS
    /// as ros2-client's default) by header.
    pub(crate) fn of_vendor(vendor: Vendor) -> Self {
        match vendor {
            Vendor::FastDds => Framing::SampleIdentity,
            _ => Framing::RequestHeader,
        }
    }

    /// Words for the route's line.
    pub fn label(self) -> &'static str {
        match self {
            Framing::RequestHeader => "rmw_cyclonedds_cpp's request header",
            Framing::SampleIdentity => "rmw_fastrtps_cpp's sample identity",
        }
    }
}

/// rmw_cyclonedds_cpp's request header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RequestHeader {
    pub guid: u64,
    pub sequence: i64,
}

/// The body of a DDS sample (after its encapsulation header), if it is plain little-endian CDR.
pub(crate) fn plain_body(raw: &RawCdr) -> Result<&[u8], (DropReason, String)> {
    if raw.encoding == RepresentationIdentifier::CDR_LE {
        Ok(&raw.body)
    } else {
        Err((
            DropReason::UnsupportedEncoding,
            format!("encoding {:?}", raw.encoding),
        ))
    }
}

impl RequestHeader {
    /// The header of a DDS request or reply and the message body after it, or why not: it is
    /// not little-endian CDR, or too short to hold a header.
    pub fn split(raw: &RawCdr) -> Result<(Self, &[u8]), (DropReason, String)> {
        let body = plain_body(raw)?;
        let Some((header, body)) = body.split_first_chunk::<HEADER_LEN>() else {
            return Err((DropReason::TooShort, format!("{} bytes", body.len())));
        };
        let (guid, sequence) = header.split_at(8);
        let header = Self {
            guid: u64::from_le_bytes(guid.try_into().expect("8 bytes")),
            sequence: i64::from_le_bytes(sequence.try_into().expect("8 bytes")),
        };
        Ok((header, body))
    }

    /// A DDS sample: this header, then `body` (a message's CDR after its encapsulation header).
    pub fn join(self, body: &[u8]) -> RawCdr {
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

/// Where the reply to a DDS client's request goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReplyTo {
    /// In front of the reply's fields (rmw_cyclonedds_cpp).
    Header(RequestHeader),
    /// As the reply's `related_sample_identity` (rmw_fastrtps_cpp).
    Identity(SampleIdentity),
}

impl ReplyTo {
    /// The DDS reply to this request: `body` (a response's CDR after its encapsulation header)
    /// framed as the client reads it, and the related sample identity to write it with.
    pub fn reply(self, body: &[u8]) -> (RawCdr, Option<SampleIdentity>) {
        match self {
            ReplyTo::Header(header) => (header.join(body), None),
            ReplyTo::Identity(identity) => (
                RawCdr {
                    encoding: RepresentationIdentifier::CDR_LE,
                    body: body.to_vec().into(),
                },
                Some(identity),
            ),
        }
    }
}

/// A DDS client's request: where its reply goes and its fields' CDR (after the encapsulation
/// header), or why it cannot be bridged. `related` is the DATA's `related_sample_identity`,
/// `identity` its own sample identity, `vendor` its writer's participant's.
pub(crate) fn read_request(
    raw: &RawCdr,
    related: Option<SampleIdentity>,
    identity: SampleIdentity,
    vendor: Vendor,
) -> Result<(ReplyTo, &[u8]), (DropReason, String)> {
    if related.is_none() && Framing::of_vendor(vendor) == Framing::RequestHeader {
        let (header, body) = RequestHeader::split(raw)?;
        return Ok((ReplyTo::Header(header), body));
    }
    let body = plain_body(raw)?;
    // rmw_fastrtps_cpp's server: the request's own sample identity, with the writer GUID
    // replaced by the related one (the client's reply reader) when the client named one.
    let writer_guid = related
        .map(|r| r.writer_guid)
        .filter(|guid| *guid != GUID::GUID_UNKNOWN)
        .unwrap_or(identity.writer_guid);
    let reply_to = SampleIdentity {
        writer_guid,
        sequence_number: identity.sequence_number,
    };
    Ok((ReplyTo::Identity(reply_to), body))
}

/// What the bridge writes as `related_sample_identity` on a request it forwards to a Fast DDS
/// server: the reader its replies must go to, sequence number unknown (as rmw_fastrtps_cpp's
/// client writes it).
pub(crate) fn reply_reader_identity(reader: GUID) -> SampleIdentity {
    SampleIdentity {
        writer_guid: reader,
        sequence_number: SequenceNumber::UNKNOWN,
    }
}

/// The body of an rmw_zenoh payload (after its encapsulation header), if it is little-endian CDR.
pub(crate) fn zenoh_body(payload: &[u8]) -> Result<&[u8], (DropReason, String)> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(bytes: &[u8]) -> RawCdr {
        RawCdr {
            encoding: RepresentationIdentifier::CDR_LE,
            body: bytes.to_vec().into(),
        }
    }

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
        assert_eq!(
            RequestHeader::split(&plain(&[0; 15])).unwrap_err().0,
            DropReason::TooShort
        );
        let xcdr2 = RawCdr {
            encoding: RepresentationIdentifier::CDR2_LE,
            body: vec![0; 20].into(),
        };
        assert_eq!(
            RequestHeader::split(&xcdr2).unwrap_err().0,
            DropReason::UnsupportedEncoding
        );
        let identity = SampleIdentity {
            writer_guid: GUID::from_bytes([1; 16]),
            sequence_number: SequenceNumber::from(3),
        };
        assert_eq!(
            read_request(&xcdr2, Some(identity), identity, Vendor::FastDds)
                .unwrap_err()
                .0,
            DropReason::UnsupportedEncoding
        );
        assert_eq!(zenoh_body(&[0, 1, 0, 0, 9]).unwrap(), [9]);
        assert_eq!(zenoh_body(&[0, 0, 0, 0, 9]).unwrap_err().0, DropReason::BigEndian);
        assert_eq!(zenoh_body(&[0, 1]).unwrap_err().0, DropReason::TooShort);
    }

    #[test]
    fn a_fast_dds_request_is_answered_to_its_reply_reader_with_its_own_sequence_number() {
        // rmw_fastrtps_cpp's list_parameters request: 4 bytes of fields, no header.
        let request = plain(&[0, 0, 0, 0]);
        let writer = GUID::from_bytes([1; 16]);
        let mut reader_bytes = [1; 16];
        reader_bytes[15] = 4;
        let reader = GUID::from_bytes(reader_bytes);
        let identity = SampleIdentity {
            writer_guid: writer,
            sequence_number: SequenceNumber::from(42),
        };
        let related = reply_reader_identity(reader);
        let (reply_to, body) = read_request(&request, Some(related), identity, Vendor::FastDds).unwrap();
        assert_eq!(body, [0, 0, 0, 0], "all 4 bytes are fields");
        let expected = SampleIdentity {
            writer_guid: reader,
            sequence_number: SequenceNumber::from(42),
        };
        assert_eq!(reply_to, ReplyTo::Identity(expected));
        let (raw, related) = reply_to.reply(&[5, 6]);
        assert_eq!((&raw.body[..], related), (&[5u8, 6][..], Some(expected)));
        // A Fast DDS client that named no reader is answered on its writer's GUID.
        let (reply_to, _) = read_request(&request, None, identity, Vendor::FastDds).unwrap();
        assert_eq!(reply_to, ReplyTo::Identity(identity));
    }

    #[test]
    fn a_cyclone_request_keeps_its_header_for_the_reply() {
        let header = RequestHeader { guid: 9, sequence: 2 };
        let identity = SampleIdentity {
            writer_guid: GUID::from_bytes([2; 16]),
            sequence_number: SequenceNumber::from(1),
        };
        let raw = header.join(&[7, 0, 0, 0]);
        let (reply_to, body) = read_request(&raw, None, identity, Vendor::CycloneDds).unwrap();
        assert_eq!((reply_to, body), (ReplyTo::Header(header), &[7u8, 0, 0, 0][..]));
        let (reply, related) = reply_to.reply(&[1]);
        assert_eq!(related, None);
        assert_eq!(RequestHeader::split(&reply).unwrap(), (header, &[1u8][..]));
    }

    #[test]
    fn the_framing_follows_the_vendor() {
        assert_eq!(Framing::of_vendor(Vendor::FastDds), Framing::SampleIdentity);
        assert_eq!(Framing::of_vendor(Vendor::CycloneDds), Framing::RequestHeader);
        assert_eq!(Framing::of_vendor(Vendor::Other([1, 1])), Framing::RequestHeader);
    }
}

//! The per-sample attachment every rmw_zenoh publication carries (33 bytes).
//!
//! `rmw_zenoh_cpp/src/detail/attachment_helpers.cpp` (Jazzy ≥ 0.2.4, Kilted, Rolling) writes,
//! with zenoh-ext serialization:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | sequence number, i64 little endian, from 1, +1 per publish |
//! | 8 | 8 | source timestamp, i64 little endian, ns since the UNIX epoch |
//! | 16 | 1 | length of the GID as a LEB128 varint: `0x10` |
//! | 17 | 16 | publisher GID |
//!
//! The older key/value form (77 bytes, Jazzy 0.2.0–0.2.3) is accepted on receive.

use super::gid::Gid;

/// Encoded length.
pub const LEN: usize = 33;

/// What rmw_zenoh attaches to each sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attachment {
    /// Per-publisher sequence number, starting at 1.
    pub sequence_number: i64,
    /// Publication time, ns since the UNIX epoch.
    pub source_timestamp: i64,
    /// GID of the publisher.
    pub source_gid: Gid,
}

/// Why bytes are not an rmw_zenoh attachment.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AttachmentError {
    /// The sample has no attachment (rmw_zenoh drops those).
    #[error("sample has no attachment")]
    Missing,
    /// Neither the 33-byte nor the legacy 77-byte layout.
    #[error("attachment of {len} bytes is neither rmw_zenoh's 33-byte nor its legacy 77-byte format")]
    Malformed {
        /// The length received.
        len: usize,
    },
}

const LEGACY_SEQ: &[u8] = b"\x0fsequence_number";
const LEGACY_TS: &[u8] = b"\x10source_timestamp";
const LEGACY_GID: &[u8] = b"\x0asource_gid\x10";

impl Attachment {
    /// The 33 bytes.
    pub fn encode(&self) -> [u8; LEN] {
        let mut out = [0u8; LEN];
        out[0..8].copy_from_slice(&self.sequence_number.to_le_bytes());
        out[8..16].copy_from_slice(&self.source_timestamp.to_le_bytes());
        out[16] = 16;
        out[17..33].copy_from_slice(&self.source_gid.0);
        out
    }

    /// Parses either layout.
    pub fn decode(bytes: &[u8]) -> Result<Self, AttachmentError> {
        let malformed = AttachmentError::Malformed { len: bytes.len() };
        let i64_at = |at: usize| i64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        let gid_at = |at: usize| Gid(bytes[at..at + 16].try_into().expect("16 bytes"));
        match bytes.len() {
            LEN if bytes[16] == 16 => Ok(Self {
                sequence_number: i64_at(0),
                source_timestamp: i64_at(8),
                source_gid: gid_at(17),
            }),
            77 if bytes.starts_with(LEGACY_SEQ)
                && bytes[24..].starts_with(LEGACY_TS)
                && bytes[49..].starts_with(LEGACY_GID) =>
            {
                Ok(Self {
                    sequence_number: i64_at(16),
                    source_timestamp: i64_at(41),
                    source_gid: gid_at(61),
                })
            }
            _ => Err(malformed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: [u8; 33] = [
        0x01, 0, 0, 0, 0, 0, 0, 0, 0x15, 0xcd, 0x85, 0x3d, 0xfe, 0x9c, 0x97, 0x17, 0x10, 0x7d, 0x3b, 0x22,
        0xc6, 0xa5, 0x16, 0xd3, 0x07, 0xc5, 0x4b, 0x00, 0x2f, 0xa9, 0x1b, 0xa9, 0x34,
    ];

    fn example() -> Attachment {
        Attachment {
            sequence_number: 1,
            source_timestamp: 1_700_000_000_123_456_789,
            source_gid: Gid([
                0x7d, 0x3b, 0x22, 0xc6, 0xa5, 0x16, 0xd3, 0x07, 0xc5, 0x4b, 0x00, 0x2f, 0xa9, 0x1b, 0xa9,
                0x34,
            ]),
        }
    }

    #[test]
    fn matches_the_worked_example() {
        assert_eq!(example().encode(), EXAMPLE);
        assert_eq!(Attachment::decode(&EXAMPLE).unwrap(), example());
    }

    #[test]
    fn legacy_layout_is_accepted() {
        let a = example();
        let mut legacy = Vec::new();
        legacy.extend_from_slice(LEGACY_SEQ);
        legacy.extend_from_slice(&a.sequence_number.to_le_bytes());
        legacy.extend_from_slice(LEGACY_TS);
        legacy.extend_from_slice(&a.source_timestamp.to_le_bytes());
        legacy.extend_from_slice(LEGACY_GID);
        legacy.extend_from_slice(&a.source_gid.0);
        assert_eq!(legacy.len(), 77);
        assert_eq!(Attachment::decode(&legacy).unwrap(), a);
    }

    #[test]
    fn malformed_attachments_are_errors() {
        let mut wrong_len_byte = EXAMPLE;
        wrong_len_byte[16] = 15;
        for bad in [
            &[][..],
            &EXAMPLE[..32],
            &wrong_len_byte[..],
            &[0u8; 77][..],
            &[0u8; 34][..],
        ] {
            assert!(Attachment::decode(bad).is_err(), "{} bytes", bad.len());
        }
    }
}

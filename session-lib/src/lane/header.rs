//! [`LaneHeader`]: what travels with each lane message besides its payload, in iceoryx2's user
//! header (next to the payload in the publisher's segment, not inside it).
//!
//! | field | meaning |
//! |---|---|
//! | `sequence` | the publisher's number of this message (the ROS sequence number) |
//! | `zenoh_until` | the sequence number of the last message this publisher also sent through zenoh |
//! | `attachment_len`, `attachment` | the bytes zenoh would carry as the attachment (rmw_zenoh's 33) |
//!
//! `zenoh_until` is what makes switching paths lossless: a subscriber that starts receiving a
//! publisher through the lane learns which earlier messages zenoh still owes it.

use iceoryx2::prelude::*;

/// Attachment bytes a header holds; rmw_zenoh's attachment is 33 bytes.
pub const ATTACHMENT_CAPACITY: usize = 48;

/// The header of one lane message. Its layout is shared memory between processes: the type name
/// iceoryx2 compares on open is pinned, so a change of layout must change it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ZeroCopySend)]
#[type_name("zshm::lane::Header/1")]
#[repr(C)]
pub struct LaneHeader {
    /// The publisher's sequence number of this message.
    pub sequence: i64,
    /// The sequence number of the last message the publisher also sent through zenoh (0: none).
    pub zenoh_until: i64,
    /// How many bytes of `attachment` are used.
    pub attachment_len: u64,
    /// The attachment zenoh would carry.
    pub attachment: [u8; ATTACHMENT_CAPACITY],
}

impl Default for LaneHeader {
    fn default() -> Self {
        Self {
            sequence: 0,
            zenoh_until: 0,
            attachment_len: 0,
            attachment: [0; ATTACHMENT_CAPACITY],
        }
    }
}

impl LaneHeader {
    /// A header carrying `attachment`, or `None` when it is longer than [`ATTACHMENT_CAPACITY`].
    pub fn new(sequence: i64, zenoh_until: i64, attachment: &[u8]) -> Option<Self> {
        let mut header = Self {
            sequence,
            zenoh_until,
            attachment_len: attachment.len() as u64,
            ..Self::default()
        };
        header
            .attachment
            .get_mut(..attachment.len())?
            .copy_from_slice(attachment);
        Some(header)
    }

    /// The attachment bytes.
    pub fn attachment(&self) -> &[u8] {
        let len = (self.attachment_len as usize).min(ATTACHMENT_CAPACITY);
        &self.attachment[..len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_attachment_round_trips_and_too_long_is_refused() {
        let header = LaneHeader::new(7, 5, &[1, 2, 3]).unwrap();
        assert_eq!(header.attachment(), [1, 2, 3]);
        assert_eq!((header.sequence, header.zenoh_until), (7, 5));
        assert!(LaneHeader::new(1, 0, &[0; ATTACHMENT_CAPACITY + 1]).is_none());
        assert_eq!(
            std::mem::size_of::<LaneHeader>(),
            72,
            "no padding between processes"
        );
    }
}

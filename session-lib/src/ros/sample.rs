//! [`Sample`]: a received message of type `T`, lent to a subscription callback.

use super::attachment::Attachment;
use super::gid::Gid;
use crate::msgs::Message;
use crate::raw::{DataPath, RawSample};

/// A received message of type `T` with its rmw_zenoh metadata, lent to a subscription callback.
///
/// The payload was parsed once, when it was checked; [`view`](Sample::view) is the result of that
/// parse, reading the message in place, and [`decode`](Sample::decode) copies from it. The bytes
/// are never parsed a second time, so a publisher that rewrites its shared-memory buffer after
/// publishing can change the data the view shows, but cannot make it fail.
pub struct Sample<'a, T: Message> {
    sample: &'a RawSample,
    attachment: Attachment,
    view: T::View<'a>,
}

impl<T: Message> std::fmt::Debug for Sample<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sample")
            .field("type", &T::TYPE.name)
            .field("attachment", &self.attachment)
            .field("shm", &self.sample.is_shm())
            .field("bytes", &self.sample.payload().len())
            .finish()
    }
}

impl<'a, T: Message> Sample<'a, T> {
    pub(crate) fn new(sample: &'a RawSample, attachment: Attachment, view: T::View<'a>) -> Self {
        Self {
            sample,
            attachment,
            view,
        }
    }

    /// The message read in place: large fields borrow from the received buffer (the publisher's
    /// shared memory when [`is_shm`](Self::is_shm)).
    pub fn view(&self) -> &T::View<'a> {
        &self.view
    }

    /// An owned copy of the message, built from the view (no second parse).
    pub fn decode(&self) -> T {
        T::from_view(&self.view)
    }

    /// The publisher's sequence number (from 1, contiguous per publisher).
    pub fn sequence_number(&self) -> i64 {
        self.attachment.sequence_number
    }

    /// When the publisher sent it, ns since the UNIX epoch.
    pub fn source_timestamp(&self) -> i64 {
        self.attachment.source_timestamp
    }

    /// The publisher's GID.
    pub fn publisher_gid(&self) -> Gid {
        self.attachment.source_gid
    }

    /// True when the payload came through shared memory (zenoh's or the lane).
    pub fn is_shm(&self) -> bool {
        self.sample.is_shm()
    }

    /// The path the message came through: the lane, zenoh's shared memory, or the network.
    pub fn path(&self) -> DataPath {
        self.sample.path()
    }

    /// The raw CDR payload.
    pub fn payload(&self) -> &'a [u8] {
        self.sample.payload()
    }
}

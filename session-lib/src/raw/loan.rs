//! [`RawLoan`]: a writable buffer a publisher fills in place and sends without copying.

use std::ops::{Deref, DerefMut};

use zenoh::bytes::ZBytes;
use zenoh::shm::ZShmMut;

use crate::lane::LaneLoan;

/// A writable payload buffer, in shared memory when possible.
///
/// Fill it through `DerefMut<Target = [u8]>` and hand it to
/// [`RawPublisher::publish_loan`](crate::raw::RawPublisher::publish_loan). Where it lives depends
/// on who listens: in the publisher's lane segment when zshm subscribers on this host are
/// attached ([`RawLoan::is_lane`]), else in the session's SHM pool (a descriptor is sent, and
/// subscribers on the same host read these very bytes), else on the heap ([`RawLoan::is_shm`] is
/// false: below the threshold, SHM off, or a counted fallback; publishing still works, over the
/// network).
///
/// A new loan's content is unspecified (buffers are reused); write every byte you send.
#[derive(Debug)]
pub struct RawLoan {
    buffer: Buffer,
}

#[derive(Debug)]
pub(crate) enum Buffer {
    Shm(ZShmMut),
    Heap(Vec<u8>),
    Lane(LaneLoan),
}

impl RawLoan {
    pub(crate) fn shm(buffer: ZShmMut) -> Self {
        Self {
            buffer: Buffer::Shm(buffer),
        }
    }

    pub(crate) fn heap(len: usize) -> Self {
        Self::from_vec(vec![0; len])
    }

    pub(crate) fn from_vec(buffer: Vec<u8>) -> Self {
        Self {
            buffer: Buffer::Heap(buffer),
        }
    }

    pub(crate) fn lane(loan: LaneLoan) -> Self {
        Self {
            buffer: Buffer::Lane(loan),
        }
    }

    /// True when the buffer lives in shared memory (the SHM pool or the lane).
    pub fn is_shm(&self) -> bool {
        !matches!(self.buffer, Buffer::Heap(_))
    }

    /// True when the buffer lives in the publisher's lane segment.
    pub fn is_lane(&self) -> bool {
        matches!(self.buffer, Buffer::Lane(_))
    }

    pub(crate) fn into_buffer(self) -> Buffer {
        self.buffer
    }
}

impl Buffer {
    /// The payload zenoh sends, or the lane loan back (zenoh cannot send it: copy it first).
    pub(crate) fn into_zbytes(self) -> Result<ZBytes, LaneLoan> {
        match self {
            Buffer::Shm(buffer) => Ok(buffer.into()),
            Buffer::Heap(buffer) => Ok(buffer.into()),
            Buffer::Lane(loan) => Err(loan),
        }
    }
}

impl Deref for RawLoan {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match &self.buffer {
            Buffer::Shm(buffer) => buffer,
            Buffer::Heap(buffer) => buffer,
            Buffer::Lane(loan) => loan.bytes(),
        }
    }
}

impl DerefMut for RawLoan {
    fn deref_mut(&mut self) -> &mut [u8] {
        match &mut self.buffer {
            Buffer::Shm(buffer) => buffer,
            Buffer::Heap(buffer) => buffer,
            Buffer::Lane(loan) => loan.bytes_mut(),
        }
    }
}

//! [`RawLoan`]: a writable buffer a publisher fills in place and sends without copying.

use std::ops::{Deref, DerefMut};

use zenoh::bytes::ZBytes;
use zenoh::shm::ZShmMut;

/// A writable payload buffer, in shared memory when possible.
///
/// Fill it through `DerefMut<Target = [u8]>` and hand it to
/// [`RawPublisher::publish_loan`](crate::raw::RawPublisher::publish_loan): an SHM loan is sent as a
/// descriptor, so subscribers on the same host read these very bytes. When the pool cannot serve
/// the request the loan is a heap buffer instead ([`RawLoan::is_shm`] is false); the fallback has
/// been counted and logged, and publishing it still works, over the network.
///
/// A new SHM loan's content is unspecified (pool memory is reused); write every byte you send.
#[derive(Debug)]
pub struct RawLoan {
    buffer: Buffer,
}

#[derive(Debug)]
enum Buffer {
    Shm(ZShmMut),
    Heap(Vec<u8>),
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

    /// True when the buffer lives in the SHM pool.
    pub fn is_shm(&self) -> bool {
        matches!(self.buffer, Buffer::Shm(_))
    }

    pub(crate) fn into_zbytes(self) -> ZBytes {
        match self.buffer {
            Buffer::Shm(buffer) => buffer.into(),
            Buffer::Heap(buffer) => buffer.into(),
        }
    }
}

impl Deref for RawLoan {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match &self.buffer {
            Buffer::Shm(buffer) => buffer,
            Buffer::Heap(buffer) => buffer,
        }
    }
}

impl DerefMut for RawLoan {
    fn deref_mut(&mut self) -> &mut [u8] {
        match &mut self.buffer {
            Buffer::Shm(buffer) => buffer,
            Buffer::Heap(buffer) => buffer,
        }
    }
}

//! [`Gid`]: the 16-byte global id of a ROS entity, as rmw_zenoh derives it from the entity's
//! liveliness token and carries it in every sample's attachment.

use std::fmt;

/// A ROS entity GID (`rmw_gid_t` data on Iron and later).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Gid(pub [u8; 16]);

impl Gid {
    /// The GID of the entity whose liveliness token is `token`: XXH3-128 of the token, little
    /// endian (low 64 bits first), as rmw_zenoh computes it.
    pub fn of_token(token: &str) -> Self {
        Gid(xxhash_rust::xxh3::xxh3_128(token.as_bytes()).to_le_bytes())
    }
}

impl fmt::Display for Gid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

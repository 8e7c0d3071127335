//! [`SenderProfile`]: what a lane publisher promises its subscribers, which configures its
//! services. Both sides need it: the publisher creates its lane with it, and a subscriber that
//! creates a larger generation for it to move to ([`super::generation`]) must configure that one
//! the same way.

/// What a lane publisher promises its subscribers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SenderProfile {
    /// Messages kept for late joiners (TRANSIENT_LOCAL), at most [`MAX_HISTORY`](super::MAX_HISTORY).
    pub history: usize,
    /// Wait while a subscriber is full (RELIABLE + KEEP_ALL) instead of overwriting its oldest.
    pub blocking: bool,
}

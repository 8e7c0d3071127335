//! Binary message encoding for Foxglove protocol v2.

pub use crate::protocol::common::BinaryMessage;

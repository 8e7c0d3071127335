//! The `/parameter_events` topic: `rcl_interfaces/msg/ParameterEvent`, one per change
//! that landed, with the node's fully qualified name and the wall-clock stamp, on rclcpp's QoS
//! (reliable, volatile, keep last 1000).
//!
//! Changes happen on any thread (the executor's, for the services; the caller's for the node
//! API), and publishing is async, so the store only queues each event; one task per node
//! publishes them in order. The queue is unbounded because events are rare and small, and
//! dropping one would hide a change from the tools that follow them.

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

use super::super::qos::QosProfile;
use crate::msgs::rcl_interfaces::msg::ParameterEvent;

/// The topic rclcpp publishes parameter events on.
pub const PARAMETER_EVENTS_TOPIC: &str = "/parameter_events";

/// rclcpp's `ParameterEventsQoS`: reliable, volatile, keep last 1000.
pub fn parameter_events_qos() -> QosProfile {
    QosProfile::keep_last(1000)
}

/// The store's end of the queue: the sender, and the receiver until the node's publisher takes it.
pub(crate) fn queue() -> (UnboundedSender<ParameterEvent>, UnboundedReceiver<ParameterEvent>) {
    tokio::sync::mpsc::unbounded_channel()
}

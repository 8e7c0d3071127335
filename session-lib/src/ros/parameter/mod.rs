//! Parameters, as rclcpp offers them: a node declares typed parameters with a descriptor
//! (read-only, dynamic typing, integer and floating-point ranges with a step), reads and sets
//! them, and may refuse a set in a callback with a reason. Every node also offers the six
//! parameter services and publishes `rcl_interfaces/msg/ParameterEvent` on `/parameter_events`,
//! so `ros2 param` and `zshm param` read and set them from outside; a node may opt out
//! ([`NodeOptions`](super::NodeOptions)`::start_parameter_services`). This module is the
//! parameters themselves; the node offers them (its parameter API, services and event
//! publisher) in `ros::node`.
//!
//! * [`value`]: [`ParameterValue`] and [`ParameterType`] and their wire form.
//! * [`descriptor`]: [`ParameterDescriptor`] and rclcpp's range check.
//! * `store`: declare, get, set, undeclare, list, with rclcpp's checks and reasons.
//! * [`events`]: the `/parameter_events` topic and its QoS.
//! * [`overrides`]: values from `--ros-args -p`, `--params-file` or code.
//!
//! Like rclcpp, a node declares `use_sim_time` (bool, false) when it is created; zshm keeps the
//! wall clock whatever its value (there is no `/clock` subscription).
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use zshm::ros::parameter::{ParameterDescriptor, ParameterOverrides};
//! use zshm::ros::{Node, NodeOptions};
//!
//! let session = zshm::Session::builder().open().await?;
//! let options = NodeOptions {
//!     parameter_overrides: ParameterOverrides::from_ros_args(&["-p", "rate:=30.0"])?,
//!     ..NodeOptions::default()
//! };
//! let node = Node::new(&session, "sim_camera", options).await?;
//! let rate = node.declare_parameter(
//!     "rate",
//!     15.0,
//!     ParameterDescriptor::new("clouds per second").floating_point_range(0.1, 100.0, 0.0),
//! )?;
//! assert_eq!(rate.as_double(), Some(30.0));
//! let _watch = node.on_set_parameters(|changes| {
//!     match changes.iter().find(|p| p.name == "rate") {
//!         Some(p) if p.value.as_double() == Some(13.0) => Err("13 Hz brings bad luck".into()),
//!         _ => Ok(()),
//!     }
//! });
//! node.set_parameter("rate", 20.0)?;
//! # Ok(()) }
//! ```

pub mod descriptor;
pub mod events;
pub mod overrides;
mod store;
pub mod value;

use std::sync::{Arc, Weak};

pub use descriptor::{FloatingPointRange, IntegerRange, ParameterDescriptor};
pub use overrides::{OverrideError, ParameterOverrides};
pub use store::{DEPTH_RECURSIVE, Parameter, ParameterError, ParameterList};
pub use value::{ParameterType, ParameterValue};

pub(crate) use store::{Entry, Store};

/// Keeps an on-set-parameters callback registered; dropping it removes the callback.
#[derive(Debug)]
#[must_use = "the callback is removed when this handle is dropped"]
pub struct OnSetParametersHandle {
    store: Weak<Store>,
    id: u64,
}

impl OnSetParametersHandle {
    /// Adds `callback` to `store` until the handle is dropped.
    pub(crate) fn register(store: &Arc<Store>, callback: store::SetCallback) -> Self {
        Self {
            store: Arc::downgrade(store),
            id: store.add_callback(callback),
        }
    }
}

impl Drop for OnSetParametersHandle {
    fn drop(&mut self) {
        if let Some(store) = self.store.upgrade() {
            store.remove_callback(self.id);
        }
    }
}

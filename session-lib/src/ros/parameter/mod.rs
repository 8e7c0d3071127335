//! Parameters, as rclcpp offers them: a node declares typed parameters with a descriptor
//! (read-only, dynamic typing, integer and floating-point ranges with a step), reads and sets
//! them, and may refuse a set in a callback with a reason. Every node also offers the six
//! parameter services and publishes `rcl_interfaces/msg/ParameterEvent` on `/parameter_events`,
//! so `ros2 param` and `zshm param` read and set them from outside; a node may opt out
//! ([`NodeOptions`](super::NodeOptions)`::start_parameter_services`).
//!
//! * [`value`]: [`ParameterValue`] and [`ParameterType`] and their wire form.
//! * [`descriptor`]: [`ParameterDescriptor`] and rclcpp's range check.
//! * `store`: declare, get, set, undeclare, list, with rclcpp's checks and reasons.
//! * `services`: the six services.
//! * [`events`]: the `/parameter_events` publisher.
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
mod services;
mod store;
pub mod value;

use std::sync::{Arc, Mutex, PoisonError, Weak};

use tokio::sync::mpsc::UnboundedReceiver;

pub use descriptor::{FloatingPointRange, IntegerRange, ParameterDescriptor};
pub use overrides::{OverrideError, ParameterOverrides};
pub use store::{DEPTH_RECURSIVE, Parameter, ParameterError, ParameterList};
pub use value::{ParameterType, ParameterValue};

use super::liveliness::NodeInfo;
use super::node::{Node, NodeError};
use crate::msgs::rcl_interfaces::msg::ParameterEvent;
use services::ParameterServices;
use store::Store;

/// A node's parameters, its services and its event queue (a field of [`Node`]).
#[derive(Debug)]
pub(crate) struct NodeParameters {
    store: Arc<Store>,
    events: Mutex<Option<UnboundedReceiver<ParameterEvent>>>,
    services: Mutex<Option<ParameterServices>>,
    start_services: bool,
    start_events: bool,
}

impl NodeParameters {
    /// The parameters of node `info`, with the overrides of `overrides` that match it.
    pub(crate) fn new(
        info: &NodeInfo,
        overrides: &ParameterOverrides,
        start_services: bool,
        start_events: bool,
    ) -> Self {
        let (sender, receiver) = events::queue();
        let store = Store::new(
            info.fully_qualified_name(),
            overrides.for_node(&info.fully_qualified_name()),
            Box::new(move |event| {
                // No receiver: the node publishes no events (opted out).
                let _ = sender.send(event);
            }),
        );
        Self {
            store: Arc::new(store),
            events: Mutex::new(Some(receiver)),
            services: Mutex::new(None),
            start_services,
            start_events,
        }
    }

    /// Called once by [`Node::new`]: starts the event publisher, declares `use_sim_time`, and
    /// offers the services, each unless the node opted out.
    pub(crate) async fn start(&self, node: &Node) -> Result<(), NodeError> {
        let receiver = self.events.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let (true, Some(receiver)) = (self.start_events, receiver) {
            events::publish(node, receiver).await?;
        }
        self.store
            .declare("use_sim_time", false.into(), ParameterDescriptor::default())?;
        if self.start_services {
            let services = services::offer_all(node, &self.store).await?;
            *self.services.lock().unwrap_or_else(PoisonError::into_inner) = Some(services);
        }
        Ok(())
    }
}

/// Keeps an on-set-parameters callback registered; dropping it removes the callback.
#[derive(Debug)]
#[must_use = "the callback is removed when this handle is dropped"]
pub struct OnSetParametersHandle {
    store: Weak<Store>,
    id: u64,
}

impl Drop for OnSetParametersHandle {
    fn drop(&mut self) {
        if let Some(store) = self.store.upgrade() {
            store.remove_callback(self.id);
        }
    }
}

impl Node {
    fn parameter_store(&self) -> &Arc<Store> {
        &self.parameters().store
    }

    /// Declares parameter `name` with `default` and `descriptor`, and returns its value: the
    /// override for this node if there is one (which replaces the default), else `default`. The
    /// type is the default's; a statically typed parameter (no `dynamic_typing`) needs a value.
    /// The value must pass the descriptor's range and the on-set callbacks; a read-only parameter
    /// takes it and keeps it.
    pub fn declare_parameter(
        &self,
        name: &str,
        default: impl Into<ParameterValue>,
        descriptor: ParameterDescriptor,
    ) -> Result<ParameterValue, ParameterError> {
        self.parameter_store().declare(name, default.into(), descriptor)
    }

    /// The value of parameter `name` ([`ParameterValue::NotSet`] for a dynamically typed one
    /// declared without a value).
    pub fn get_parameter(&self, name: &str) -> Result<ParameterValue, ParameterError> {
        self.parameter_store()
            .entry(name)
            .map(|entry| entry.value)
            .ok_or_else(|| ParameterError::NotDeclared { name: name.into() })
    }

    /// Whether parameter `name` is declared.
    pub fn has_parameter(&self, name: &str) -> bool {
        self.parameter_store().entry(name).is_some()
    }

    /// The descriptor of parameter `name`.
    pub fn describe_parameter(&self, name: &str) -> Result<ParameterDescriptor, ParameterError> {
        self.parameter_store()
            .entry(name)
            .map(|entry| entry.descriptor)
            .ok_or_else(|| ParameterError::NotDeclared { name: name.into() })
    }

    /// Sets parameter `name` to `value` (checked as rclcpp checks: declared, not read-only, same
    /// type unless dynamic, in range, accepted by the callbacks); [`ParameterValue::NotSet`]
    /// undeclares a dynamically typed one.
    pub fn set_parameter(&self, name: &str, value: impl Into<ParameterValue>) -> Result<(), ParameterError> {
        self.parameter_store()
            .set_atomically(&[Parameter::new(name, value)])
    }

    /// Sets each parameter on its own; one outcome each, in order.
    pub fn set_parameters(&self, parameters: &[Parameter]) -> Vec<Result<(), ParameterError>> {
        parameters
            .iter()
            .map(|p| self.parameter_store().set_atomically(std::slice::from_ref(p)))
            .collect()
    }

    /// Sets every parameter or none (one event for all).
    pub fn set_parameters_atomically(&self, parameters: &[Parameter]) -> Result<(), ParameterError> {
        self.parameter_store().set_atomically(parameters)
    }

    /// Undeclares parameter `name` (dynamically typed and not read-only only, as rclcpp).
    pub fn undeclare_parameter(&self, name: &str) -> Result<(), ParameterError> {
        self.parameter_store().undeclare(name)
    }

    /// The declared names under `prefixes`, down to `depth` levels ([`DEPTH_RECURSIVE`]: all),
    /// as `~/list_parameters` answers.
    pub fn list_parameters(&self, prefixes: &[String], depth: u64) -> ParameterList {
        self.parameter_store().list(prefixes, depth)
    }

    /// Calls `callback` with every change (a declaration, a set, a batch) before it lands; an
    /// `Err(reason)` refuses it, and the setter gets the reason (rclcpp's
    /// `add_on_set_parameters_callback`). The most recent callback runs first. It may read
    /// parameters but not change them. Removed when the handle is dropped.
    pub fn on_set_parameters(
        &self,
        callback: impl Fn(&[Parameter]) -> Result<(), String> + Send + Sync + 'static,
    ) -> OnSetParametersHandle {
        let store = self.parameter_store();
        OnSetParametersHandle {
            store: Arc::downgrade(store),
            id: store.add_callback(Arc::new(callback)),
        }
    }
}

//! [`Node`]: a ROS 2 node on a zshm session, announced with its liveliness token: its
//! [`NodeBase`] (session, executor, the `create_*` methods of its entities) with its parameters
//! and type description service composed on top.

mod parameter_services;
mod parameters;

use std::ops::Deref;
use std::sync::Arc;

use super::executor::Executor;
use super::node_base::{NodeBase, NodeError};
use super::parameter::{
    OnSetParametersHandle, Parameter, ParameterDescriptor, ParameterError, ParameterList, ParameterOverrides,
    ParameterValue, Store,
};
use super::service::Service;
use super::type_description;
use crate::msgs::type_description_interfaces::srv::GetTypeDescription;
use crate::ros::liveliness::NodeInfo;
use crate::ros::names;
use crate::session::Session;
use parameters::NodeParameters;

/// Where a node lives in the ROS graph, and where its callbacks run.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeOptions {
    /// Namespace, `/` by default; a relative one is made absolute.
    pub namespace: String,
    /// Security enclave, `/` by default.
    pub enclave: String,
    /// ROS domain; the session's `ROS_DOMAIN_ID` when `None`.
    pub domain: Option<u32>,
    /// The executor that runs the node's callbacks, which the caller spins (several nodes may
    /// share one). `None`: the node gets a single-threaded executor of its own, spun on one
    /// background thread (`zshm-exec`) while the node or any of its entities lives.
    pub executor: Option<Executor>,
    /// Whether the node answers `~/get_type_description` for the types it uses (rclcpp's
    /// `start_type_description_service`; true by default). See [`type_description`](super::type_description).
    pub start_type_description_service: bool,
    /// Values that replace the defaults of the parameters the node declares (from
    /// `--ros-args`, a parameters file, or code); none by default.
    pub parameter_overrides: ParameterOverrides,
    /// Offer the six parameter services (`~/get_parameters`, ...); true by default, as rclcpp.
    /// The node's parameters exist either way.
    pub start_parameter_services: bool,
    /// Publish parameter changes on `/parameter_events`; true by default, as rclcpp.
    pub start_parameter_event_publisher: bool,
}

impl Default for NodeOptions {
    fn default() -> Self {
        Self {
            namespace: "/".into(),
            enclave: "/".into(),
            domain: None,
            executor: None,
            start_type_description_service: true,
            parameter_overrides: ParameterOverrides::default(),
            start_parameter_services: true,
            start_parameter_event_publisher: true,
        }
    }
}

/// A ROS 2 node. Its `NN` token is declared while it lives; its publishers and subscriptions
/// each declare their own token.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use zshm::msgs::std_msgs;
/// use zshm::ros::{qos::QosProfile, Node, NodeOptions};
///
/// let session = zshm::Session::builder().open().await?;
/// let node = Node::new(&session, "talker", NodeOptions::default()).await?;
/// let chatter = node.create_publisher::<std_msgs::msg::String>("chatter", QosProfile::default()).await?;
/// chatter.publish(&std_msgs::msg::String { data: "Hello World: 1".into() }).await?;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Node {
    // Dropped in this order: the node's own services, then its token.
    _type_description: Option<Service<GetTypeDescription>>,
    parameters: NodeParameters,
    base: NodeBase,
}

impl Node {
    /// Creates the node `name` and declares its token.
    pub async fn new(session: &Session, name: &str, options: NodeOptions) -> Result<Self, NodeError> {
        names::validate_node_name(name)?;
        let info = NodeInfo {
            domain: options.domain.unwrap_or_else(|| session.ros_domain_id()),
            zid: session.zid(),
            nid: session.next_entity_id(),
            enclave: names::normalize_namespace(&options.enclave)?,
            namespace: names::normalize_namespace(&options.namespace)?,
            name: name.to_owned(),
        };
        let parameters = NodeParameters::new(
            &info,
            &options.parameter_overrides,
            options.start_parameter_services,
            options.start_parameter_event_publisher,
        );
        let base = NodeBase::new(session, info, options.executor).await?;
        parameters.start(&base).await?;
        let type_description = match options.start_type_description_service {
            true => Some(type_description::serve(&base).await?),
            false => None,
        };
        Ok(Self {
            _type_description: type_description,
            parameters,
            base,
        })
    }
}

/// A node's publishers, subscriptions, services, actions and timers are created by its base
/// (`node.create_publisher(..)`), which the parameter services use too; see [`NodeBase`].
impl Deref for Node {
    type Target = NodeBase;

    fn deref(&self) -> &NodeBase {
        &self.base
    }
}

/// The parameter API, as rclcpp's `Node` offers it (the parameters themselves are in
/// [`parameter`](super::parameter)).
impl Node {
    fn parameter_store(&self) -> &Arc<Store> {
        self.parameters.store()
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

    /// The declared names under `prefixes`, down to `depth` levels ([`DEPTH_RECURSIVE`](super::parameter::DEPTH_RECURSIVE): all),
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
        OnSetParametersHandle::register(self.parameter_store(), Arc::new(callback))
    }
}

//! [`Node`]: a ROS 2 node on a zshm session, announced with its liveliness token, and the
//! executor its callbacks run on.

use std::sync::Arc;
use std::time::Duration;

use super::executor::timer::TimerEntity;
use super::executor::{
    CallbackGroup, CallbackGroupKind, Executor, ExecutorError, Notifier, Registration, SpinHandle, Timer,
    Waitable,
};
use super::parameter::{NodeParameters, ParameterError, ParameterOverrides};
use crate::raw::DeclareError;
use crate::ros::liveliness::{self, EndpointInfo, EntityKind, NodeInfo};
use crate::ros::names::{self, NameError};
use crate::ros::qos::QosProfile;
use crate::ros::service::Service;
use crate::ros::type_cache::TypeCache;
use crate::session::Session;

/// Why a node or one of its endpoints could not be created.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NodeError {
    /// The node name, namespace or topic name is not a valid ROS 2 name.
    #[error(transparent)]
    Name(#[from] NameError),
    /// zenoh refused the liveliness token.
    #[error("zenoh refused the liveliness token `{token}`")]
    Token {
        /// The token.
        token: String,
        /// zenoh's error.
        #[source]
        source: zenoh::Error,
    },
    /// The publisher or the subscription could not be declared.
    #[error(transparent)]
    Declare(#[from] DeclareError),
    /// The node's executor could not be set up or could not wait on an entity (the process is
    /// out of threads, descriptors or memory).
    #[error(transparent)]
    Executor(#[from] ExecutorError),
    /// A timer's period is zero.
    #[error("a timer's period must be above zero")]
    ZeroPeriod,
    /// A parameter the node declares at creation (`use_sim_time`) refused its override.
    #[error("parameter override refused: {0}")]
    Parameter(#[from] ParameterError),
}

impl NodeError {
    /// True when the caller's input is at fault (a name, a key), not the system.
    pub fn is_bad_input(&self) -> bool {
        match self {
            NodeError::Name(_) | NodeError::ZeroPeriod | NodeError::Parameter(_) => true,
            NodeError::Token { .. } | NodeError::Executor(_) => false,
            NodeError::Declare(err) => err.is_bad_input(),
        }
    }
}

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
    // Dropped first: the node's own service goes before the node's token.
    type_description: Option<Service<crate::msgs::type_description_interfaces::srv::GetTypeDescription>>,
    types: Arc<TypeCache>,
    session: Session,
    info: NodeInfo,
    executor: Executor,
    /// The background spin of the node's own executor (`None` when the caller gave one).
    spin: Option<Arc<SpinHandle>>,
    default_group: CallbackGroup,
    parameters: NodeParameters,
    _token: zenoh::liveliness::LivelinessToken,
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
        let (executor, spin) = match options.executor {
            Some(executor) => (executor, None),
            None => {
                let executor = Executor::single_threaded()?;
                let spin = Arc::new(executor.spin_in_background()?);
                (executor, Some(spin))
            }
        };
        let token = declare_token(session, liveliness::node_token(&info)).await?;
        let mut node = Self {
            type_description: None,
            types: Arc::default(),
            session: session.clone(),
            info,
            executor,
            spin,
            default_group: CallbackGroup::new(CallbackGroupKind::MutuallyExclusive),
            parameters,
            _token: token,
        };
        node.parameters.start(&node).await?;
        if options.start_type_description_service {
            node.type_description = Some(node.serve_type_descriptions(node.types.clone()).await?);
        }
        Ok(node)
    }

    /// The node's parameters (the API is in `ros::parameter`).
    pub(crate) fn parameters(&self) -> &NodeParameters {
        &self.parameters
    }

    /// The executor that runs the node's callbacks.
    pub fn executor(&self) -> &Executor {
        &self.executor
    }

    /// The group of entities created without one: mutually exclusive, as in rclcpp.
    pub fn default_callback_group(&self) -> &CallbackGroup {
        &self.default_group
    }

    /// A new callback group, to pass to the entities that belong to it.
    pub fn create_callback_group(&self, kind: CallbackGroupKind) -> CallbackGroup {
        CallbackGroup::new(kind)
    }

    /// Runs `callback` every `period` on the node's executor, in the node's default group,
    /// until the timer is dropped. Ticks that come while the executor is busy are skipped.
    pub fn create_timer(
        &self,
        period: Duration,
        callback: impl FnMut() + Send + 'static,
    ) -> Result<Timer, NodeError> {
        self.create_timer_in(period, &self.default_group, callback)
    }

    /// [`create_timer`](Self::create_timer) in the callback group `group`.
    pub fn create_timer_in(
        &self,
        period: Duration,
        group: &CallbackGroup,
        callback: impl FnMut() + Send + 'static,
    ) -> Result<Timer, NodeError> {
        if period.is_zero() {
            return Err(NodeError::ZeroPeriod);
        }
        let (state, registration) =
            self.executor_entry(group.clone(), |_| TimerEntity::new(period, callback));
        Ok(Timer::new(period, state, registration))
    }

    /// Adds an entity of this node to its executor; the node's own executor spins while it lives.
    pub(crate) fn executor_entry<W: Waitable>(
        &self,
        group: CallbackGroup,
        build: impl FnOnce(Notifier) -> W,
    ) -> (Arc<W>, Registration) {
        self.executor.add(group, self.spin.clone(), build)
    }

    /// The node as its token describes it.
    pub fn info(&self) -> &NodeInfo {
        &self.info
    }

    /// The session the node runs on.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Expands a topic name for this node (relative, `~`, substitutions).
    pub fn expand_topic(&self, topic: &str) -> Result<String, NameError> {
        names::expand_topic_name(topic, &self.info.name, &self.info.namespace)
    }

    /// Records the type of an entity being created, for the type description service.
    pub(crate) fn record_type(&self, info: &EndpointInfo) {
        self.types.record(info);
    }

    /// The endpoint of a new entity of this node: a fresh entity id, `name` expanded, the type
    /// recorded for the type description service. Every publisher, subscription, service
    /// server and client, typed or dynamic, is described here and nowhere else.
    pub(crate) fn endpoint(
        &self,
        kind: EntityKind,
        name: &str,
        (type_name, type_hash): (&str, &str),
        qos: QosProfile,
    ) -> Result<EndpointInfo, NodeError> {
        let info = EndpointInfo {
            node: self.info.clone(),
            id: self.session.next_entity_id(),
            kind,
            topic: self.expand_topic(name)?,
            type_name: type_name.to_owned(),
            type_hash: type_hash.to_owned(),
            qos,
        };
        self.record_type(&info);
        Ok(info)
    }
}

pub(crate) async fn declare_token(
    session: &Session,
    token: String,
) -> Result<zenoh::liveliness::LivelinessToken, NodeError> {
    session
        .zenoh()
        .liveliness()
        .declare_token(token.clone())
        .await
        .map_err(|source| NodeError::Token { token, source })
}

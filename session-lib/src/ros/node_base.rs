//! [`NodeBase`]: what every entity of a node stands on (its session, its place in the graph, its
//! executor, its token, the types it uses), and the methods that create those entities.
//!
//! A [`Node`](super::Node) is its base with parameters and the type description service
//! composed on top, as rclcpp composes a node of interfaces (`NodeBaseInterface`,
//! `NodeTopicsInterface`, `NodeParametersInterface`, ...). Publishers, subscriptions, services
//! and actions depend on the base only, so the node that offers its parameters through
//! services never imports a file that imports it back.

use std::sync::Arc;
use std::time::Duration;

use super::executor::timer::TimerEntity;
use super::executor::{
    CallbackGroup, CallbackGroupKind, Executor, ExecutorError, Notifier, Registration, SpinHandle, Timer,
    Waitable,
};
use super::parameter::ParameterError;
use crate::raw::DeclareError;
use crate::ros::liveliness::{self, EndpointInfo, EntityKind, NodeInfo};
use crate::ros::names::{self, NameError};
use crate::ros::qos::QosProfile;
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

/// A node's base: its token, session, executor and the types its entities use. Every
/// `create_*` method of a [`Node`](super::Node) is defined here; a node derefs to its base.
#[derive(Debug)]
pub struct NodeBase {
    types: Arc<TypeCache>,
    session: Session,
    info: NodeInfo,
    executor: Executor,
    /// The background spin of the node's own executor (`None` when the caller gave one).
    spin: Option<Arc<SpinHandle>>,
    default_group: CallbackGroup,
    _token: zenoh::liveliness::LivelinessToken,
}

impl NodeBase {
    /// Declares the token of the node `info` and takes its executor: `executor`, or a
    /// single-threaded one of its own spun in the background.
    pub(crate) async fn new(
        session: &Session,
        info: NodeInfo,
        executor: Option<Executor>,
    ) -> Result<Self, NodeError> {
        let (executor, spin) = match executor {
            Some(executor) => (executor, None),
            None => {
                let executor = Executor::single_threaded()?;
                let spin = Arc::new(executor.spin_in_background()?);
                (executor, Some(spin))
            }
        };
        let token = declare_token(session, liveliness::node_token(&info)).await?;
        Ok(Self {
            types: Arc::default(),
            session: session.clone(),
            info,
            executor,
            spin,
            default_group: CallbackGroup::new(CallbackGroupKind::MutuallyExclusive),
            _token: token,
        })
    }

    /// The types this node's entities use, as its type description service answers them.
    pub(crate) fn types(&self) -> &Arc<TypeCache> {
        &self.types
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
    /// server and client, typed or dynamic, is described here and nowhere else; a tool that
    /// declares an endpoint's token itself (`zshm topic echo` for a type it only knows by name)
    /// describes it here too.
    pub fn endpoint(
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

//! [`Node`]: a ROS 2 node on a zshm session, announced with its liveliness token.

use crate::msgs::Message;
use crate::raw::DeclareError;
use crate::ros::liveliness::{self, EndpointInfo, EntityKind, NodeInfo};
use crate::ros::names::{self, NameError};
use crate::ros::qos::QosProfile;
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
    /// The thread that runs a subscription's callback could not be started (the process is out
    /// of threads or memory).
    #[error("cannot start the callback thread of the subscription to {topic}")]
    Worker {
        /// The topic.
        topic: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
}

impl NodeError {
    /// True when the caller's input is at fault (a name, a key), not the system.
    pub fn is_bad_input(&self) -> bool {
        match self {
            NodeError::Name(_) => true,
            NodeError::Token { .. } | NodeError::Worker { .. } => false,
            NodeError::Declare(err) => err.is_bad_input(),
        }
    }
}

/// Where a node lives in the ROS graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeOptions {
    /// Namespace, `/` by default; a relative one is made absolute.
    pub namespace: String,
    /// Security enclave, `/` by default.
    pub enclave: String,
    /// ROS domain; the session's `ROS_DOMAIN_ID` when `None`.
    pub domain: Option<u32>,
}

impl Default for NodeOptions {
    fn default() -> Self {
        Self {
            namespace: "/".into(),
            enclave: "/".into(),
            domain: None,
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
    session: Session,
    info: NodeInfo,
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
        let token = declare_token(session, liveliness::node_token(&info)).await?;
        Ok(Self {
            session: session.clone(),
            info,
            _token: token,
        })
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

    pub(crate) fn endpoint<T: Message>(
        &self,
        kind: EntityKind,
        topic: &str,
        qos: QosProfile,
    ) -> Result<EndpointInfo, NodeError> {
        Ok(EndpointInfo {
            node: self.info.clone(),
            id: self.session.next_entity_id(),
            kind,
            topic: self.expand_topic(topic)?,
            type_name: T::TYPE.dds_name.to_owned(),
            type_hash: T::TYPE.hash.to_owned(),
            qos,
        })
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

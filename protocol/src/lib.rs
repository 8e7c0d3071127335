//! rmw_zenoh's wire protocol as plain data: what a ROS 2 node on zenoh writes and reads, without
//! zenoh and without a runtime.
//!
//! * [`cdr`]: classic CDR, the payload of every message.
//! * [`names`]: validation and expansion of node names, namespaces and topic names.
//! * [`keyexpr`]: the zenoh key expression of a topic or service.
//! * [`liveliness`]: the liveliness tokens through which nodes discover each other.
//! * [`qos`]: QoS profiles, their encoding in tokens and their mapping onto zenoh.
//! * [`attachment`]: the attachment of every publication (sequence number, time stamp, GID).
//! * [`gid`]: the global id of an entity.
//! * [`action`]: the names of an action's services and topics.
//! * [`TypeInfo`]: how a message type is named on the wire.
//!
//! The node library `zshm` runs this protocol (and re-exports these modules where its users
//! always found them: `zshm::cdr`, `zshm::ros::qos`, ...); the bridge and the tests read and
//! write it without a session.
//!
//! ```
//! use zshm_protocol::qos::QosProfile;
//!
//! let qos = QosProfile::keep_last(10);
//! let in_token = qos.encode();
//! assert_eq!(QosProfile::decode(&in_token).unwrap(), qos);
//! ```

pub mod action;
pub mod attachment;
pub mod cdr;
pub mod gid;
pub mod keyexpr;
pub mod liveliness;
pub mod names;
pub mod qos;
mod type_info;

pub use type_info::TypeInfo;

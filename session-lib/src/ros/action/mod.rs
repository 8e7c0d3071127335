//! Actions, as rclcpp_action offers them and rcl_action puts them on rmw_zenoh's wire: an
//! [`ActionServer`] takes goals of an [`ActionParts`](crate::msgs::ActionParts) type, runs them
//! through a [`ServerGoalHandle`] and keeps their results; an [`ActionClient`] sends goals,
//! receives their feedback, waits for their results and cancels them.
//!
//! On the wire an action is three services and two topics under `<action>/_action/`
//! (rcl_action's `names.c`):
//!
//! * `send_goal` (`X_SendGoal`), `cancel_goal` (`action_msgs/srv/CancelGoal`) and `get_result`
//!   (`X_GetResult`), with the services QoS;
//! * `feedback` (`X_FeedbackMessage`: reliable, volatile, keep last 10) and `status`
//!   (`action_msgs/msg/GoalStatusArray`: reliable, **transient local**, keep last 1, so a late
//!   client sees the last status), as `rcl_action`'s `default_qos.h`.
//!
//! A goal id is 16 random bytes. Goals follow rcl_action's state machine ([`GoalStatus::on`]).
//! The server publishes the status of every goal it holds on each change, answers `get_result`
//! at once for a finished goal and defers it (a [`Responder`](crate::ros::Responder)) until a
//! running goal ends, and forgets a finished goal `result_timeout` after it ended (10 s by
//! default; counted from the end, not from acceptance as rcl 9.2 does, see ros2/rcl#1103), so a
//! client that vanished leaves nothing behind. All handlers run on the node's executor.
//!
//! ```no_run
//! # async fn demo(node: &zshm::ros::Node) -> Result<(), Box<dyn std::error::Error>> {
//! use std::time::Duration;
//! use zshm::msgs::action_tutorials_interfaces::action::{Fibonacci, Fibonacci_Goal, Fibonacci_Result};
//! use zshm::ros::action::{CancelResponse, GoalResponse};
//!
//! let _server = node
//!     .create_action_server::<Fibonacci>(
//!         "fibonacci",
//!         |_id, _goal| GoalResponse::AcceptAndExecute,
//!         |_handle| CancelResponse::Accept,
//!         |handle| {
//!             std::thread::spawn(move || {
//!                 let _ = handle.succeed(Fibonacci_Result { sequence: vec![0, 1, 1] });
//!             });
//!         },
//!     )
//!     .await?;
//! let client = node.create_action_client::<Fibonacci>("fibonacci").await?;
//! assert!(client.wait_for_action_server(Duration::from_secs(5)).await);
//! let goal = client.send_goal(Fibonacci_Goal { order: 2 }, |_feedback| {}).await?;
//! let result = goal.get_result(Duration::from_secs(5)).await?;
//! assert_eq!(result.result.sequence, [0, 1, 1]);
//! # Ok(()) }
//! ```

mod client;
mod error;
mod goal_handle;
mod goal_state;
mod goals;
mod server;

pub use client::{ActionClient, CancelOutcome, ClientGoalHandle, GoalResult};
pub use error::ActionError;
pub use goal_handle::ServerGoalHandle;
pub use goal_state::{GoalError, GoalEvent, GoalStatus};
pub use server::{ActionServer, ActionServerOptions, CancelResponse, GoalResponse};

use crate::msgs::action_msgs::srv::CancelGoal_Response;
use crate::ros::qos::{Durability, QosProfile};

/// A goal's id: the 16 bytes of its `unique_identifier_msgs/UUID`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct GoalId(pub [u8; 16]);

impl GoalId {
    /// A new random id (a version 4 UUID, as rclcpp_action makes them).
    pub fn random() -> Self {
        let mut bytes = [0u8; 16];
        // Without the OS's randomness, a clock-derived id is still unique enough in a process
        // (the nanoseconds and a counter), and a goal id needs no secrecy.
        if getrandom::fill(&mut bytes).is_err() {
            static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
            let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            bytes[..8].copy_from_slice(&crate::msgs::wall_clock_nanos().to_le_bytes());
            bytes[8..].copy_from_slice(&n.to_le_bytes());
        }
        bytes[6] = (bytes[6] & 0x0f) | 0x40;
        bytes[8] = (bytes[8] & 0x3f) | 0x80;
        GoalId(bytes)
    }

    /// True for the all-zero id, which a cancel request uses for "any goal".
    pub fn is_zero(&self) -> bool {
        self.0 == [0; 16]
    }
}

impl std::fmt::Display for GoalId {
    /// 32 lowercase hex digits, as `ros2 action send_goal` prints a goal id.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

/// The return code of a cancel request (`action_msgs/srv/CancelGoal_Response.return_code`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelCode {
    /// `ERROR_NONE`: the listed goals are canceling.
    None,
    /// `ERROR_REJECTED`: the server refused to cancel every chosen goal.
    Rejected,
    /// `ERROR_UNKNOWN_GOAL_ID`: the server does not hold that goal.
    UnknownGoalId,
    /// `ERROR_GOAL_TERMINATED`: the goal has already ended.
    GoalTerminated,
}

impl CancelCode {
    /// The wire value.
    pub fn to_wire(self) -> i8 {
        match self {
            CancelCode::None => CancelGoal_Response::ERROR_NONE,
            CancelCode::Rejected => CancelGoal_Response::ERROR_REJECTED,
            CancelCode::UnknownGoalId => CancelGoal_Response::ERROR_UNKNOWN_GOAL_ID,
            CancelCode::GoalTerminated => CancelGoal_Response::ERROR_GOAL_TERMINATED,
        }
    }

    /// The code of a wire value; unknown values count as rejected.
    pub fn from_wire(value: i8) -> Self {
        match value {
            CancelGoal_Response::ERROR_NONE => CancelCode::None,
            CancelGoal_Response::ERROR_UNKNOWN_GOAL_ID => CancelCode::UnknownGoalId,
            CancelGoal_Response::ERROR_GOAL_TERMINATED => CancelCode::GoalTerminated,
            _ => CancelCode::Rejected,
        }
    }
}

/// The names of an action's services and topics, below the expanded action name (from the
/// protocol crate, where the graph finds them too).
pub use zshm_protocol::action as wire;

/// The status topic's QoS: reliable, transient local, keep last 1.
pub(crate) fn status_qos() -> QosProfile {
    QosProfile::keep_last(1).durability(Durability::TransientLocal)
}

/// The feedback topic's QoS (`rmw_qos_profile_default`): reliable, volatile, keep last 10.
pub(crate) fn feedback_qos() -> QosProfile {
    QosProfile::keep_last(10)
}

/// `(sec, nanosec)` of a wall-clock time in nanoseconds.
pub(crate) fn stamp_of(nanos: i64) -> (i32, u32) {
    let sec = nanos.div_euclid(1_000_000_000);
    let nanosec = nanos.rem_euclid(1_000_000_000);
    (
        i32::try_from(sec).unwrap_or(i32::MAX),
        u32::try_from(nanosec).unwrap_or(0),
    )
}

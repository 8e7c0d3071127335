//! What can go wrong for an action client. Each variant says what to do. (A server's goal
//! handle refuses changes with `GoalError`, beside the state machine.)

use std::time::Duration;

use super::GoalId;
use crate::ros::service::CallError;

/// Why an action client's request did not give what was asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ActionError {
    /// No server of the action answered: start it, or wait for it with
    /// `wait_for_action_server` first.
    #[error("no server for action {action}: start one, or wait for it first")]
    NoServer {
        /// The action.
        action: String,
    },
    /// The server rejected the goal (its `handle_goal` said so): check the goal's values.
    #[error("the server of action {action} rejected the goal")]
    Rejected {
        /// The action.
        action: String,
    },
    /// The result did not come within the timeout: the goal is still running; ask again with a
    /// longer timeout.
    #[error("action {action}: no result for goal {goal} within {timeout:?}")]
    ResultTimeout {
        /// The action.
        action: String,
        /// The goal.
        goal: GoalId,
        /// The timeout.
        timeout: Duration,
    },
    /// One of the action's services failed (timeout, server gone, malformed reply).
    #[error("action {action}: {source}")]
    Call {
        /// The action.
        action: String,
        /// The service call's error.
        #[source]
        source: CallError,
    },
}

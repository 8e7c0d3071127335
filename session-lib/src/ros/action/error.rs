//! What can go wrong with an action, on either side. Each variant says what to do.

use std::time::Duration;

use super::GoalId;
use super::goal_state::{GoalEvent, GoalStatus};
use crate::ros::service::CallError;

/// Why a server's goal handle refused a change of state.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GoalError {
    /// The goal's state machine has no such transition (e.g. `succeed` before `execute`, or
    /// any change after a terminal state): follow accepted → executing → a terminal state, and
    /// end a canceling goal with `canceled`, `succeed` or `abort`.
    #[error("a goal cannot go from {from} on {event:?}")]
    IllegalTransition {
        /// The goal's status.
        from: GoalStatus,
        /// What was asked.
        event: GoalEvent,
    },
    /// The goal is no longer held by the server (its result expired, or the server was
    /// dropped): nothing can change it any more.
    #[error("goal {goal} is no longer held by the server")]
    Gone {
        /// The goal.
        goal: GoalId,
    },
}

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

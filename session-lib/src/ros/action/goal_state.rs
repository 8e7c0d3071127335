//! The goal state machine of rcl_action (`goal_state_machine.c`): which event moves a goal from
//! which status to which, and which are refused. It knows nothing of servers or the wire.

use super::GoalId;

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

/// A goal's status, with the values of `action_msgs/msg/GoalStatus` on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GoalStatus {
    /// `STATUS_UNKNOWN` (0): a goal the server does not hold (never one it holds).
    Unknown,
    /// `STATUS_ACCEPTED` (1): accepted, not yet executing.
    Accepted,
    /// `STATUS_EXECUTING` (2).
    Executing,
    /// `STATUS_CANCELING` (3): a cancel was accepted; the execution should end with
    /// [`canceled`](super::ServerGoalHandle::canceled).
    Canceling,
    /// `STATUS_SUCCEEDED` (4), terminal.
    Succeeded,
    /// `STATUS_CANCELED` (5), terminal.
    Canceled,
    /// `STATUS_ABORTED` (6), terminal.
    Aborted,
}

/// What happens to a goal (rcl_action's `rcl_action_goal_event_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GoalEvent {
    /// The execution starts.
    Execute,
    /// A cancel request for the goal was accepted.
    CancelGoal,
    /// The execution ended with a result.
    Succeed,
    /// The execution failed.
    Abort,
    /// The execution stopped after a cancel.
    Canceled,
}

impl GoalStatus {
    /// The status a goal moves to on `event`, or why it cannot: only
    /// accepted → executing, accepted/executing → canceling, executing/canceling → succeeded or
    /// aborted, and canceling → canceled are legal (no accepted → succeeded, as in rcl).
    pub fn on(self, event: GoalEvent) -> Result<GoalStatus, GoalError> {
        use GoalEvent as E;
        use GoalStatus as S;
        match (self, event) {
            (S::Accepted, E::Execute) => Ok(S::Executing),
            (S::Accepted | S::Executing, E::CancelGoal) => Ok(S::Canceling),
            (S::Executing | S::Canceling, E::Succeed) => Ok(S::Succeeded),
            (S::Executing | S::Canceling, E::Abort) => Ok(S::Aborted),
            (S::Canceling, E::Canceled) => Ok(S::Canceled),
            (from, event) => Err(GoalError::IllegalTransition { from, event }),
        }
    }

    /// True for succeeded, canceled and aborted: the goal has its result.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            GoalStatus::Succeeded | GoalStatus::Canceled | GoalStatus::Aborted
        )
    }

    /// True while the goal may still be canceled (accepted or executing).
    pub fn is_cancelable(self) -> bool {
        matches!(self, GoalStatus::Accepted | GoalStatus::Executing)
    }

    /// The `int8 status` of `action_msgs/msg/GoalStatus`.
    pub fn to_wire(self) -> i8 {
        match self {
            GoalStatus::Unknown => 0,
            GoalStatus::Accepted => 1,
            GoalStatus::Executing => 2,
            GoalStatus::Canceling => 3,
            GoalStatus::Succeeded => 4,
            GoalStatus::Canceled => 5,
            GoalStatus::Aborted => 6,
        }
    }

    /// The status of a wire value; values outside 0..=6 are [`Unknown`](GoalStatus::Unknown).
    pub fn from_wire(value: i8) -> GoalStatus {
        match value {
            1 => GoalStatus::Accepted,
            2 => GoalStatus::Executing,
            3 => GoalStatus::Canceling,
            4 => GoalStatus::Succeeded,
            5 => GoalStatus::Canceled,
            6 => GoalStatus::Aborted,
            _ => GoalStatus::Unknown,
        }
    }

    /// The name `ros2 action send_goal` prints (`SUCCEEDED`, `CANCELED`, ...).
    pub fn label(self) -> &'static str {
        match self {
            GoalStatus::Unknown => "UNKNOWN",
            GoalStatus::Accepted => "ACCEPTED",
            GoalStatus::Executing => "EXECUTING",
            GoalStatus::Canceling => "CANCELING",
            GoalStatus::Succeeded => "SUCCEEDED",
            GoalStatus::Canceled => "CANCELED",
            GoalStatus::Aborted => "ABORTED",
        }
    }
}

impl std::fmt::Display for GoalStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

#[cfg(test)]
mod tests {
    use super::GoalEvent as E;
    use super::GoalStatus as S;

    const ALL: [S; 7] = [
        S::Unknown,
        S::Accepted,
        S::Executing,
        S::Canceling,
        S::Succeeded,
        S::Canceled,
        S::Aborted,
    ];
    const EVENTS: [E; 5] = [E::Execute, E::CancelGoal, E::Succeed, E::Abort, E::Canceled];

    #[test]
    fn exactly_rcls_transitions_are_legal() {
        let legal = [
            (S::Accepted, E::Execute, S::Executing),
            (S::Accepted, E::CancelGoal, S::Canceling),
            (S::Executing, E::CancelGoal, S::Canceling),
            (S::Executing, E::Succeed, S::Succeeded),
            (S::Executing, E::Abort, S::Aborted),
            (S::Canceling, E::Succeed, S::Succeeded),
            (S::Canceling, E::Abort, S::Aborted),
            (S::Canceling, E::Canceled, S::Canceled),
        ];
        for from in ALL {
            for event in EVENTS {
                let expected = legal
                    .iter()
                    .find(|(f, e, _)| *f == from && *e == event)
                    .map(|(_, _, to)| *to);
                assert_eq!(from.on(event).ok(), expected, "{from:?} on {event:?}");
            }
        }
    }

    #[test]
    fn wire_values_roundtrip() {
        for status in ALL {
            assert_eq!(S::from_wire(status.to_wire()), status);
        }
        assert_eq!(S::from_wire(42), S::Unknown);
    }
}

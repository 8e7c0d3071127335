//! [`ServerGoalHandle`]: what a server's execution holds to report on one goal, from any thread.

use std::sync::Arc;

use super::GoalId;
use super::goal_state::{GoalError, GoalEvent, GoalStatus};
use super::goals::Goals;
use crate::msgs::{ActionParts, ActionType};

/// One accepted goal, as the server's execution sees it (rclcpp_action's `ServerGoalHandle`).
/// Cheap to clone, `Send` and `Sync`: the execution usually runs on a thread or task of its
/// own. Each method changes the goal as rcl_action's state machine allows, publishes the new
/// status and, at the end, answers the waiting `get_result` calls.
pub struct ServerGoalHandle<A: ActionParts> {
    goals: Arc<Goals<A>>,
    id: GoalId,
    stamp: (i32, u32),
    goal: Option<Arc<A::Goal>>,
}

impl<A: ActionParts> Clone for ServerGoalHandle<A> {
    fn clone(&self) -> Self {
        Self {
            goals: self.goals.clone(),
            id: self.id,
            stamp: self.stamp,
            goal: self.goal.clone(),
        }
    }
}

impl<A: ActionParts> std::fmt::Debug for ServerGoalHandle<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerGoalHandle")
            .field("action", &self.goals.name)
            .field("id", &self.id)
            .field("status", &self.status())
            .finish()
    }
}

impl<A: ActionParts> ServerGoalHandle<A> {
    pub(super) fn new(goals: Arc<Goals<A>>, id: GoalId, stamp: (i32, u32), goal: Arc<A::Goal>) -> Self {
        Self {
            goals,
            id,
            stamp,
            goal: Some(goal),
        }
    }

    /// The handle `handle_cancel` gets: the goal's value stays with its execution.
    pub(super) fn without_goal(goals: Arc<Goals<A>>, id: GoalId, stamp: (i32, u32)) -> Self {
        Self {
            goals,
            id,
            stamp,
            goal: None,
        }
    }

    /// The goal's id.
    pub fn goal_id(&self) -> GoalId {
        self.id
    }

    /// When the server accepted the goal, `(sec, nanosec)` of the wall clock.
    pub fn stamp(&self) -> (i32, u32) {
        self.stamp
    }

    /// The goal's value; `None` only in the handle given to `handle_cancel`.
    pub fn goal(&self) -> Option<&<A as ActionType>::Goal> {
        self.goal.as_deref()
    }

    /// The goal's status now ([`GoalStatus::Unknown`] once its result expired).
    pub fn status(&self) -> GoalStatus {
        self.goals.status(self.id)
    }

    /// True once a cancel of the goal was accepted: the execution should stop and call
    /// [`canceled`](Self::canceled).
    pub fn is_canceling(&self) -> bool {
        self.status() == GoalStatus::Canceling
    }

    /// True while the goal is accepted, executing or canceling.
    pub fn is_active(&self) -> bool {
        matches!(
            self.status(),
            GoalStatus::Accepted | GoalStatus::Executing | GoalStatus::Canceling
        )
    }

    /// Starts a goal accepted with [`AcceptAndDefer`](super::GoalResponse::AcceptAndDefer).
    pub fn execute(&self) -> Result<(), GoalError> {
        self.goals.transition(self.id, GoalEvent::Execute, None).map(drop)
    }

    /// Publishes `feedback` for the goal on the feedback topic (queued; never blocks).
    pub fn publish_feedback(&self, feedback: A::Feedback) {
        self.goals
            .publish_feedback(A::feedback_message(self.id.0, feedback));
    }

    /// Ends the goal with `result`: succeeded.
    pub fn succeed(&self, result: A::Result) -> Result<(), GoalError> {
        self.finish(GoalEvent::Succeed, result)
    }

    /// Ends the goal with `result`: aborted.
    pub fn abort(&self, result: A::Result) -> Result<(), GoalError> {
        self.finish(GoalEvent::Abort, result)
    }

    /// Ends a canceling goal with `result`: canceled.
    pub fn canceled(&self, result: A::Result) -> Result<(), GoalError> {
        self.finish(GoalEvent::Canceled, result)
    }

    fn finish(&self, event: GoalEvent, result: A::Result) -> Result<(), GoalError> {
        self.goals.transition(self.id, event, Some(result)).map(drop)
    }
}

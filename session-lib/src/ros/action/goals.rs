//! The goals an action server holds: their status, their kept result, the `get_result` calls
//! waiting for them, and where their status and feedback are published. Shared by the server's
//! handlers and the goal handles; it runs no user code.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::GoalId;
use super::goal_state::{GoalError, GoalEvent, GoalStatus};
use crate::msgs::action_msgs::msg::{GoalInfo, GoalStatus as GoalStatusMsg, GoalStatusArray};
use crate::msgs::{ActionParts, GetResultResponse};
use crate::ros::service::Responder;

/// One goal the server holds.
pub(super) struct Goal<A: ActionParts> {
    pub(super) id: GoalId,
    pub(super) stamp: (i32, u32),
    pub(super) status: GoalStatus,
    /// The answer to `get_result`, once the goal has ended.
    pub(super) result: Option<Arc<GetResultResponse<A>>>,
    /// `get_result` calls that came before the end.
    pub(super) waiting: Vec<Responder<A::GetResult>>,
    pub(super) ended: Option<Instant>,
}

/// The goals a server holds, in order of acceptance, and where their status and feedback go.
pub(super) struct Goals<A: ActionParts> {
    pub(super) name: String,
    table: Mutex<Vec<Goal<A>>>,
    out: tokio::sync::mpsc::UnboundedSender<Out<A>>,
}

/// What the server's publishing task sends, in the order it was asked.
pub(super) enum Out<A: ActionParts> {
    /// For the feedback topic.
    Feedback(A::FeedbackMessage),
    /// For the status topic.
    Status(GoalStatusArray),
    /// Answers to `get_result` calls. They go out after the statuses queued before them, so a
    /// client that has its result and then subscribes to the status (transient local) finds the
    /// goal's final status there.
    Result(Vec<Responder<A::GetResult>>, Arc<GetResultResponse<A>>),
}

impl<A: ActionParts> Goals<A> {
    /// An empty table of action `name` whose status and feedback go to `out`.
    pub(super) fn new(name: String, out: tokio::sync::mpsc::UnboundedSender<Out<A>>) -> Self {
        Self {
            name,
            table: Mutex::new(Vec::new()),
            out,
        }
    }

    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Goal<A>>> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues the status of every goal held (called with the table locked, so statuses go out
    /// in the order of the changes).
    pub(super) fn publish_status(&self, table: &[Goal<A>]) {
        let status_list = table
            .iter()
            .map(|goal| GoalStatusMsg {
                goal_info: goal_info(goal.id, goal.stamp),
                status: goal.status.to_wire(),
            })
            .collect();
        // The task ends only when the server and every handle are gone.
        let _ = self.out.send(Out::Status(GoalStatusArray { status_list }));
    }

    pub(super) fn publish_feedback(&self, message: A::FeedbackMessage) {
        let _ = self.out.send(Out::Feedback(message));
    }

    /// Moves goal `id` on `event`; with `result` (a terminal event), keeps it, answers the
    /// waiting `get_result` calls and starts the result timeout. Publishes the new status.
    pub(super) fn transition(
        &self,
        id: GoalId,
        event: GoalEvent,
        result: Option<A::Result>,
    ) -> Result<GoalStatus, GoalError> {
        let mut table = self.lock();
        let goal = table
            .iter_mut()
            .find(|goal| goal.id == id)
            .ok_or(GoalError::Gone { goal: id })?;
        let next = goal.status.on(event)?;
        goal.status = next;
        let mut answers = None;
        if let Some(result) = result.filter(|_| next.is_terminal()) {
            let response = Arc::new(A::get_result_response(next.to_wire(), result));
            answers = Some((std::mem::take(&mut goal.waiting), response.clone()));
            goal.result = Some(response);
            goal.ended = Some(Instant::now());
        }
        // The status first, then the results, both queued with the table locked: a result never
        // overtakes its status.
        self.publish_status(&table);
        if let Some((responders, response)) = answers {
            self.send_result(responders, response);
        }
        Ok(next)
    }

    /// Queues the answers to `get_result` calls behind the statuses queued so far.
    pub(super) fn send_result(
        &self,
        responders: Vec<Responder<A::GetResult>>,
        response: Arc<GetResultResponse<A>>,
    ) {
        if !responders.is_empty() {
            let _ = self.out.send(Out::Result(responders, response));
        }
    }

    pub(super) fn status(&self, id: GoalId) -> GoalStatus {
        self.lock()
            .iter()
            .find(|goal| goal.id == id)
            .map_or(GoalStatus::Unknown, |goal| goal.status)
    }

    /// Forgets the goals that ended `timeout` ago or more; publishes the status if any went.
    pub(super) fn expire(&self, timeout: Duration, now: Instant) {
        let mut table = self.lock();
        let before = table.len();
        table.retain(|goal| goal.ended.is_none_or(|ended| now.duration_since(ended) < timeout));
        if table.len() != before {
            self.publish_status(&table);
        }
    }
}

pub(super) fn goal_info(id: GoalId, stamp: (i32, u32)) -> GoalInfo {
    let mut info = GoalInfo::default();
    info.goal_id.uuid = id.0;
    info.stamp.sec = stamp.0;
    info.stamp.nanosec = stamp.1;
    info
}

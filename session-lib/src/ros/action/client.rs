//! [`ActionClient`]: sends goals to a server of an action, routes their feedback, waits for
//! their results and cancels them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::error::ActionError;
use super::goal_state::GoalStatus;
use super::goals::goal_info;
use super::{CancelCode, GoalId, feedback_qos, status_qos, wire};
use crate::msgs::action_msgs::msg::GoalStatusArray;
use crate::msgs::action_msgs::srv::{CancelGoal, CancelGoal_Request};
use crate::msgs::{ActionParts, ActionType};
use crate::ros::node_base::{NodeBase, NodeError};
use crate::ros::service::{CallError, Client};
use crate::ros::subscription::Subscription;

/// A feedback callback.
type FeedbackCallback<A> = Box<dyn FnMut(<A as ActionType>::Feedback) + Send>;

/// Where feedback and status of this client's goals go.
struct Routes<A: ActionParts> {
    feedback: Mutex<HashMap<GoalId, FeedbackCallback<A>>>,
    status: Mutex<HashMap<GoalId, GoalStatus>>,
}

/// The three service clients of an action.
struct Services<A: ActionParts> {
    action: String,
    send_goal: Client<A::SendGoal>,
    cancel_goal: Client<CancelGoal>,
    get_result: Client<A::GetResult>,
    routes: Arc<Routes<A>>,
    request_timeout: Duration,
}

impl<A: ActionParts> Services<A> {
    fn failed(&self, source: CallError) -> ActionError {
        match source {
            CallError::NoServer { .. } => ActionError::NoServer {
                action: self.action.clone(),
            },
            source => ActionError::Call {
                action: self.action.clone(),
                source,
            },
        }
    }

    async fn cancel(
        &self,
        id: GoalId,
        stamp: (i32, u32),
        timeout: Duration,
    ) -> Result<CancelOutcome, ActionError> {
        let request = CancelGoal_Request {
            goal_info: goal_info(id, stamp),
        };
        let response = self
            .cancel_goal
            .call_async(&request, timeout)
            .await
            .map_err(|err| self.failed(err))?;
        Ok(CancelOutcome {
            code: CancelCode::from_wire(response.return_code),
            goals_canceling: response
                .goals_canceling
                .iter()
                .map(|info| GoalId(info.goal_id.uuid))
                .collect(),
        })
    }
}

/// Sends goals of action `A` (rclcpp_action's `Client`) until dropped.
pub struct ActionClient<A: ActionParts> {
    services: Arc<Services<A>>,
    _feedback: Subscription<A::FeedbackMessage>,
    _status: Subscription<GoalStatusArray>,
}

impl<A: ActionParts> std::fmt::Debug for ActionClient<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ActionClient")
            .field("action", &self.services.action)
            .finish_non_exhaustive()
    }
}

/// What a cancel request did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CancelOutcome {
    /// The server's return code.
    pub code: CancelCode,
    /// The goals that are canceling now.
    pub goals_canceling: Vec<GoalId>,
}

/// A goal's end, as `get_result` says.
#[derive(Debug, Clone, PartialEq)]
pub struct GoalResult<R> {
    /// Succeeded, canceled or aborted; [`GoalStatus::Unknown`] when the server does not hold
    /// the goal (its result expired, or it never had it).
    pub status: GoalStatus,
    /// The result (all defaults for an unknown goal).
    pub result: R,
}

/// A goal the server accepted (rclcpp_action's `ClientGoalHandle`). Dropping it stops its
/// feedback callback; the goal goes on at the server.
pub struct ClientGoalHandle<A: ActionParts> {
    services: Arc<Services<A>>,
    id: GoalId,
    stamp: (i32, u32),
}

impl<A: ActionParts> std::fmt::Debug for ClientGoalHandle<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientGoalHandle")
            .field("action", &self.services.action)
            .field("id", &self.id)
            .finish()
    }
}

impl<A: ActionParts> Drop for ClientGoalHandle<A> {
    fn drop(&mut self) {
        let routes = &self.services.routes;
        routes
            .feedback
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.id);
        routes
            .status
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.id);
    }
}

impl<A: ActionParts> ClientGoalHandle<A> {
    /// The goal's id.
    pub fn goal_id(&self) -> GoalId {
        self.id
    }

    /// When the server accepted it, `(sec, nanosec)`.
    pub fn stamp(&self) -> (i32, u32) {
        self.stamp
    }

    /// The goal's last status from the status topic ([`GoalStatus::Accepted`] until the first).
    pub fn status(&self) -> GoalStatus {
        self.services
            .routes
            .status
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&self.id)
            .copied()
            .unwrap_or(GoalStatus::Accepted)
    }

    /// Waits for the goal's result, at most `timeout`.
    pub async fn get_result(&self, timeout: Duration) -> Result<GoalResult<A::Result>, ActionError> {
        let request = A::get_result_request(self.id.0);
        let response = match self.services.get_result.call_async(&request, timeout).await {
            Ok(response) => response,
            Err(CallError::Timeout { .. }) => {
                return Err(ActionError::ResultTimeout {
                    action: self.services.action.clone(),
                    goal: self.id,
                    timeout,
                });
            }
            Err(err) => return Err(self.services.failed(err)),
        };
        let (status, result) = A::split_get_result_response(response);
        Ok(GoalResult {
            status: GoalStatus::from_wire(status),
            result,
        })
    }

    /// Asks the server to cancel this goal.
    pub async fn cancel(&self, timeout: Duration) -> Result<CancelOutcome, ActionError> {
        self.services.cancel(self.id, (0, 0), timeout).await
    }
}

impl<A: ActionParts> ActionClient<A> {
    /// The expanded action name.
    pub fn name(&self) -> &str {
        &self.services.action
    }

    /// This client with another timeout for sending a goal (5 s by default).
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        if let Some(services) = Arc::get_mut(&mut self.services) {
            services.request_timeout = timeout;
        }
        self
    }

    /// Waits until a server of the action offers all three services, or `timeout` passes;
    /// true when one does.
    pub async fn wait_for_action_server(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let left = || deadline.saturating_duration_since(Instant::now());
        self.services.send_goal.wait_for_service_async(left()).await
            && self.services.cancel_goal.wait_for_service_async(left()).await
            && self.services.get_result.wait_for_service_async(left()).await
    }

    /// Sends `goal`; `on_feedback` gets the goal's feedback, in order, on the node's executor,
    /// until the handle is dropped. [`ActionError::Rejected`] when the server refuses the goal.
    pub async fn send_goal(
        &self,
        goal: A::Goal,
        on_feedback: impl FnMut(A::Feedback) + Send + 'static,
    ) -> Result<ClientGoalHandle<A>, ActionError> {
        let services = &self.services;
        let id = GoalId::random();
        // Registered first: feedback may come before the response does.
        services
            .routes
            .feedback
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id, Box::new(on_feedback));
        // Until the goal is accepted, dropping the handle (an error return) removes the callback.
        let mut handle = ClientGoalHandle {
            services: services.clone(),
            id,
            stamp: (0, 0),
        };
        let response = services
            .send_goal
            .call_async(&A::send_goal_request(id.0, goal), services.request_timeout)
            .await
            .map_err(|err| services.failed(err))?;
        let (accepted, stamp) = A::split_send_goal_response(&response);
        if !accepted {
            return Err(ActionError::Rejected {
                action: services.action.clone(),
            });
        }
        handle.stamp = stamp;
        Ok(handle)
    }

    /// Asks the server to cancel every goal it holds.
    pub async fn cancel_all(&self, timeout: Duration) -> Result<CancelOutcome, ActionError> {
        self.services.cancel(GoalId::default(), (0, 0), timeout).await
    }

    /// Asks the server to cancel every goal accepted at or before `stamp` (`(sec, nanosec)`).
    pub async fn cancel_goals_before(
        &self,
        stamp: (i32, u32),
        timeout: Duration,
    ) -> Result<CancelOutcome, ActionError> {
        self.services.cancel(GoalId::default(), stamp, timeout).await
    }
}

impl NodeBase {
    /// A client of action `name` (expanded for this node), as rclcpp_action's `create_client`.
    pub async fn create_action_client<A: ActionParts>(
        &self,
        name: &str,
    ) -> Result<ActionClient<A>, NodeError> {
        let action = self.expand_topic(name)?;
        let routes = Arc::new(Routes::<A> {
            feedback: Mutex::new(HashMap::new()),
            status: Mutex::new(HashMap::new()),
        });
        let send_goal = self
            .create_client::<A::SendGoal>(&format!("{action}{}", wire::SEND_GOAL))
            .await?;
        let cancel_goal = self
            .create_client::<CancelGoal>(&format!("{action}{}", wire::CANCEL_GOAL))
            .await?;
        let get_result = self
            .create_client::<A::GetResult>(&format!("{action}{}", wire::GET_RESULT))
            .await?;
        let to_feedback = routes.clone();
        let feedback = self
            .create_subscription::<A::FeedbackMessage>(
                &format!("{action}{}", wire::FEEDBACK),
                feedback_qos(),
                move |sample| {
                    let (id, feedback) = A::split_feedback_message(sample.decode());
                    let mut callbacks = to_feedback
                        .feedback
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner);
                    if let Some(callback) = callbacks.get_mut(&GoalId(id)) {
                        callback(feedback);
                    }
                },
            )
            .await?;
        let to_status = routes.clone();
        let status = self
            .create_subscription::<GoalStatusArray>(
                &format!("{action}{}", wire::STATUS),
                status_qos(),
                move |sample| {
                    let array = sample.decode();
                    let mut known = to_status.status.lock().unwrap_or_else(PoisonError::into_inner);
                    for entry in array.status_list {
                        let id = GoalId(entry.goal_info.goal_id.uuid);
                        if let Some(status) = known.get_mut(&id) {
                            *status = GoalStatus::from_wire(entry.status);
                        } else if to_status
                            .feedback
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .contains_key(&id)
                        {
                            known.insert(id, GoalStatus::from_wire(entry.status));
                        }
                    }
                },
            )
            .await?;
        Ok(ActionClient {
            services: Arc::new(Services {
                action,
                send_goal,
                cancel_goal,
                get_result,
                routes,
                request_timeout: Duration::from_secs(5),
            }),
            _feedback: feedback,
            _status: status,
        })
    }
}

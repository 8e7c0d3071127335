//! The names of an action's services and topics, below the expanded action name: what
//! rcl_action names them, so that `ros2 action` tools and the graph find them.

/// The send-goal service, `<action>/_action/send_goal`.
pub const SEND_GOAL: &str = "/_action/send_goal";
/// The cancel service, `<action>/_action/cancel_goal`.
pub const CANCEL_GOAL: &str = "/_action/cancel_goal";
/// The result service, `<action>/_action/get_result`.
pub const GET_RESULT: &str = "/_action/get_result";
/// The feedback topic, `<action>/_action/feedback`.
pub const FEEDBACK: &str = "/_action/feedback";
/// The status topic, `<action>/_action/status`.
pub const STATUS: &str = "/_action/status";
/// What every name of an action has in it (`ros2 service list` hides these).
pub const MARKER: &str = "/_action/";

/// The action of a send-goal service name: `/fibonacci` for `/fibonacci/_action/send_goal`.
pub fn action_of_send_goal(service: &str) -> Option<&str> {
    service.strip_suffix(SEND_GOAL)
}

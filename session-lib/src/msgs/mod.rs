//! ROS 2 messages, services and actions, generated from their definitions, with their CDR
//! encoding, DDS type names and RIHS01 type hashes.
//!
//! Modules are named after ROS packages and their namespaces:
//! `zshm::msgs::sensor_msgs::msg::PointCloud2` is `sensor_msgs/msg/PointCloud2`,
//! `zshm::msgs::example_interfaces::srv::AddTwoInts` is `example_interfaces/srv/AddTwoInts`
//! (with `AddTwoInts_Request`, `AddTwoInts_Response` and `AddTwoInts_Event` beside it). Every
//! package ROS 2 Jazzy ships for nodes is here (builtin_interfaces, std_msgs, geometry_msgs,
//! sensor_msgs, nav_msgs, tf2_msgs, rcl_interfaces, action_msgs, ...; see
//! [`zshm_rosidl::InterfaceSet::shipped`]). The code is generated at build time by
//! `zshm-rosidl` from the definitions in `rosidl/interfaces/`; a crate with its own types does
//! the same with [`include_interfaces!`](crate::include_interfaces).
//!
//! Each message can be written into any [`CdrSink`] (so its exact size is known before a buffer
//! is loaned), read as an owned value, or read as a borrowed *view* whose strings and byte
//! sequences point into the received bytes. A message with one `uint8[] data` field
//! ([`LoanableMessage`]: point clouds, images, compressed images, ...) can also be built in
//! place in a shared-memory loan.

mod sensor;
mod time;

pub use sensor::SensorMessage;
pub use time::wall_clock_nanos;

use crate::cdr::{CdrError, CdrReader, CdrSink, CdrWriter, SizeCounter};

pub use zshm_protocol::TypeInfo;

/// A ROS message with a CDR encoding.
pub trait Message: Sized + Send + Sync + 'static {
    /// Type name and hash.
    const TYPE: TypeInfo;

    /// A borrowed form: big fields (`data`, strings) point into the received buffer.
    type View<'a>;

    /// Writes the fields after the encapsulation header.
    fn write_body<S: CdrSink + ?Sized>(&self, sink: &mut S);

    /// Reads a borrowed view.
    fn read_view<'a>(reader: &mut CdrReader<'a>) -> Result<Self::View<'a>, CdrError>;

    /// Reads an owned value.
    fn read_owned(reader: &mut CdrReader<'_>) -> Result<Self, CdrError>;

    /// An owned copy of a view, without parsing the bytes again.
    fn from_view(view: &Self::View<'_>) -> Self;

    /// The serialized size in bytes, encapsulation header included.
    fn cdr_len(&self) -> usize {
        let mut counter = SizeCounter::new();
        self.write_body(&mut counter);
        counter.len()
    }

    /// Serializes into `buf`, which must be exactly [`cdr_len`](Message::cdr_len) bytes.
    fn write_cdr(&self, buf: &mut [u8]) {
        let mut writer = CdrWriter::new(buf);
        self.write_body(&mut writer);
        debug_assert_eq!(writer.len(), buf.len());
    }

    /// Serializes into a new vector.
    fn to_cdr(&self) -> Vec<u8> {
        let mut buf = vec![0; self.cdr_len()];
        self.write_cdr(&mut buf);
        buf
    }

    /// Decodes an owned value from a full payload.
    fn from_cdr(bytes: &[u8]) -> Result<Self, CdrError> {
        Self::read_owned(&mut CdrReader::new(bytes)?)
    }

    /// Decodes a borrowed view from a full payload.
    fn view_cdr(bytes: &[u8]) -> Result<Self::View<'_>, CdrError> {
        Self::read_view(&mut CdrReader::new(bytes)?)
    }
}

/// A message with one large `uint8[] data` field that can be built in place: everything but
/// the data is written first, and the caller fills the data straight into the buffer.
pub trait LoanableMessage: Message {
    /// Writes the message with `data` replaced by `data_len` reserved bytes; returns the offset
    /// of the first data byte.
    fn write_shape<S: CdrSink + ?Sized>(&self, sink: &mut S, data_len: usize) -> usize;

    /// Offset of `header.stamp` in the payload, so a stamp can be set last, right before publish.
    const STAMP_OFFSET: usize = 4;

    /// Size of the message with `data_len` bytes of data.
    fn shape_len(&self, data_len: usize) -> usize {
        let mut counter = SizeCounter::new();
        self.write_shape(&mut counter, data_len);
        counter.len()
    }
}

/// A ROS service type: its request, response and event messages.
pub trait ServiceType: Send + Sync + 'static {
    /// The service's name and hash (rmw_zenoh keys a service by these).
    const TYPE: TypeInfo;
    /// `X_Request`.
    type Request: Message;
    /// `X_Response`.
    type Response: Message;
    /// `X_Event` (service introspection).
    type Event: Message;
}

/// A ROS action type: goal, result and feedback, the two services and the feedback message.
pub trait ActionType: Send + Sync + 'static {
    /// The action's name and hash.
    const TYPE: TypeInfo;
    /// `X_Goal`.
    type Goal: Message;
    /// `X_Result`.
    type Result: Message;
    /// `X_Feedback`.
    type Feedback: Message;
    /// `X_SendGoal`, the service that sends a goal.
    type SendGoal: ServiceType;
    /// `X_GetResult`, the service that waits for a result.
    type GetResult: ServiceType;
    /// `X_FeedbackMessage`, published on the feedback topic.
    type FeedbackMessage: Message;
}

/// Builds and takes apart the wrapper messages of an action (`X_SendGoal_Request{goal_id, goal}`,
/// `X_SendGoal_Response{accepted, stamp}`, `X_GetResult_Request{goal_id}`,
/// `X_GetResult_Response{status, result}`, `X_FeedbackMessage{goal_id, feedback}`), so generic
/// code such as [`crate::ros::action`] works for every action. Generated for every action type;
/// goal ids are the 16 bytes of `unique_identifier_msgs/UUID`, stamps `(sec, nanosec)` of
/// `builtin_interfaces/Time`.
pub trait ActionParts: ActionType {
    /// `X_SendGoal_Request{goal_id, goal}`.
    fn send_goal_request(goal_id: [u8; 16], goal: Self::Goal) -> SendGoalRequest<Self>;
    /// The goal id and goal of a `X_SendGoal_Request`.
    fn split_send_goal_request(request: SendGoalRequest<Self>) -> ([u8; 16], Self::Goal);
    /// `X_SendGoal_Response{accepted, stamp}`.
    fn send_goal_response(accepted: bool, stamp: (i32, u32)) -> SendGoalResponse<Self>;
    /// Whether a `X_SendGoal_Response` accepts the goal, and its acceptance stamp.
    fn split_send_goal_response(response: &SendGoalResponse<Self>) -> (bool, (i32, u32));
    /// `X_GetResult_Request{goal_id}`.
    fn get_result_request(goal_id: [u8; 16]) -> GetResultRequest<Self>;
    /// The goal id of a `X_GetResult_Request`.
    fn get_result_request_goal_id(request: &GetResultRequest<Self>) -> [u8; 16];
    /// `X_GetResult_Response{status, result}`.
    fn get_result_response(status: i8, result: Self::Result) -> GetResultResponse<Self>;
    /// The status and result of a `X_GetResult_Response`.
    fn split_get_result_response(response: GetResultResponse<Self>) -> (i8, Self::Result);
    /// `X_FeedbackMessage{goal_id, feedback}`.
    fn feedback_message(goal_id: [u8; 16], feedback: Self::Feedback) -> Self::FeedbackMessage;
    /// The goal id and feedback of a `X_FeedbackMessage`.
    fn split_feedback_message(message: Self::FeedbackMessage) -> ([u8; 16], Self::Feedback);
    /// `X_Result` with every field at its default (the result of an unknown goal).
    fn default_result() -> Self::Result;
}

/// `X_SendGoal_Request` of action `A`.
pub type SendGoalRequest<A> = <<A as ActionType>::SendGoal as ServiceType>::Request;
/// `X_SendGoal_Response` of action `A`.
pub type SendGoalResponse<A> = <<A as ActionType>::SendGoal as ServiceType>::Response;
/// `X_GetResult_Request` of action `A`.
pub type GetResultRequest<A> = <<A as ActionType>::GetResult as ServiceType>::Request;
/// `X_GetResult_Response` of action `A`.
pub type GetResultResponse<A> = <<A as ActionType>::GetResult as ServiceType>::Response;

// The generated packages (`std_msgs`, `sensor_msgs`, ...), `MESSAGE_TYPES` and `reencode`.
include!(concat!(env!("OUT_DIR"), "/zshm_interfaces.rs"));

#[cfg(test)]
mod type_info_tests {
    use super::{Message, builtin_interfaces, sensor_msgs, std_msgs};
    use zshm_protocol::keyexpr::ros_type_name;

    #[test]
    fn generated_dds_names_derive_from_ros_names_and_hashes_are_rihs01() {
        for info in [
            builtin_interfaces::msg::Time::TYPE,
            std_msgs::msg::Header::TYPE,
            std_msgs::msg::String::TYPE,
            sensor_msgs::msg::PointField::TYPE,
            sensor_msgs::msg::PointCloud2::TYPE,
            sensor_msgs::msg::Image::TYPE,
        ] {
            assert_eq!(ros_type_name(info.dds_name), info.name);
            assert!(
                info.hash.starts_with("RIHS01_") && info.hash.len() == 7 + 64,
                "{}",
                info.hash
            );
        }
    }
}

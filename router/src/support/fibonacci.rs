//! What the Fibonacci demos (`zshm fibonacci-action-server` and `-client`) share: the two Fibonacci action types (ROS's tutorial one in
//! `action_tutorials_interfaces`, and Kilted's in `example_interfaces`, whose feedback field is
//! named differently) behind one trait, and the `--type` flag that picks one.

use zshm::msgs::ActionParts;
use zshm::msgs::{action_tutorials_interfaces as tutorial, example_interfaces as kilted};

/// The action type the demos use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FibonacciType {
    /// `action_tutorials_interfaces/action/Fibonacci` (ROS's tutorial; the default).
    #[value(name = "action_tutorials_interfaces/action/Fibonacci")]
    Tutorial,
    /// `example_interfaces/action/Fibonacci` (Kilted's tutorial).
    #[value(name = "example_interfaces/action/Fibonacci")]
    Kilted,
}

/// A Fibonacci action: an order in, sequences out.
pub trait Fibonacci: ActionParts {
    /// The goal's order.
    fn order(goal: &Self::Goal) -> i32;
    /// A goal of `order`.
    fn goal(order: i32) -> Self::Goal;
    /// Feedback with the partial sequence.
    fn feedback(sequence: Vec<i32>) -> Self::Feedback;
    /// The partial sequence of a feedback.
    fn feedback_sequence(feedback: &Self::Feedback) -> &[i32];
    /// A result with the sequence.
    fn result(sequence: Vec<i32>) -> Self::Result;
    /// The sequence of a result.
    fn result_sequence(result: &Self::Result) -> &[i32];
}

impl Fibonacci for tutorial::action::Fibonacci {
    fn order(goal: &Self::Goal) -> i32 {
        goal.order
    }
    fn goal(order: i32) -> Self::Goal {
        tutorial::action::Fibonacci_Goal { order }
    }
    fn feedback(partial_sequence: Vec<i32>) -> Self::Feedback {
        tutorial::action::Fibonacci_Feedback { partial_sequence }
    }
    fn feedback_sequence(feedback: &Self::Feedback) -> &[i32] {
        &feedback.partial_sequence
    }
    fn result(sequence: Vec<i32>) -> Self::Result {
        tutorial::action::Fibonacci_Result { sequence }
    }
    fn result_sequence(result: &Self::Result) -> &[i32] {
        &result.sequence
    }
}

impl Fibonacci for kilted::action::Fibonacci {
    fn order(goal: &Self::Goal) -> i32 {
        goal.order
    }
    fn goal(order: i32) -> Self::Goal {
        kilted::action::Fibonacci_Goal { order }
    }
    fn feedback(sequence: Vec<i32>) -> Self::Feedback {
        kilted::action::Fibonacci_Feedback { sequence }
    }
    fn feedback_sequence(feedback: &Self::Feedback) -> &[i32] {
        &feedback.sequence
    }
    fn result(sequence: Vec<i32>) -> Self::Result {
        kilted::action::Fibonacci_Result { sequence }
    }
    fn result_sequence(result: &Self::Result) -> &[i32] {
        &result.sequence
    }
}

/// The largest order the server accepts: fib(47) does not fit an `int32`.
pub const MAX_ORDER: i32 = 46;

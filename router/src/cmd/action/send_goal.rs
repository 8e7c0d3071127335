//! `zshm action send_goal NAME TYPE 'YAML'`: sends one goal of any known action type, given as
//! YAML (or JSON), and prints what `ros2 action send_goal` prints: the goal, its id, its
//! feedback with `--feedback`, its result and its final status. Ctrl-C cancels the goal.
//!
//! The goal is checked before anything is opened (bad YAML, an unknown field or type: exit 2).
//! Exit 1 with the reason when no server appears within `--timeout`, the goal is rejected, or
//! it does not succeed.

use std::process::ExitCode;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use anyhow::Context;
use zshm::dynamic::{MessageType, Value, YamlOptions};
use zshm::msgs::action_msgs::srv::{CancelGoal, CancelGoal_Request};
use zshm::ros::action::{CancelCode, GoalId, GoalStatus, wire};
use zshm::ros::dynamic::DynamicType;
use zshm::ros::qos::QosProfile;
use zshm_rosidl::{InterfaceSet, Namespace, TypeName};

use crate::cli::{self, FlagError, NodeArgs};
use crate::support::out::outln;
use crate::support::{session, shutdown};

/// How long it waits for a result: as ros2, as long as the goal runs (until Ctrl-C).
const RESULT_WAIT: Duration = Duration::from_secs(24 * 3600);

/// `zshm action send_goal`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The action, e.g. /fibonacci.
    pub name: String,
    /// The action type, e.g. action_tutorials_interfaces/action/Fibonacci.
    #[arg(value_name = "TYPE")]
    pub type_name: String,
    /// The goal as YAML, e.g. "{order: 5}" (default: every field at its default).
    #[arg(default_value = "{}")]
    pub values: String,
    /// Print the goal's feedback.
    #[arg(short = 'f', long)]
    pub feedback: bool,
    /// Longest wait for a server, and then for the goal's acceptance, in seconds.
    #[arg(long, default_value = "10", value_parser = cli::seconds)]
    pub timeout: Duration,
    /// Node flags.
    #[command(flatten)]
    pub node: NodeArgs,
}

/// The message types of an action and the wire names of its two services and feedback topic.
struct ActionTypes {
    goal: MessageType,
    send_goal_request: MessageType,
    send_goal_response: MessageType,
    get_result_request: MessageType,
    get_result_response: MessageType,
    feedback_message: MessageType,
    send_goal: DynamicType,
    get_result: DynamicType,
    feedback: DynamicType,
}

fn action_types(name: &str) -> anyhow::Result<ActionTypes> {
    let parsed = TypeName::parse(name)
        .filter(|t| t.namespace == Namespace::Action)
        .ok_or_else(|| FlagError(format!("`{name}` is not an action type (pkg/action/Type)")))?;
    let set = InterfaceSet::shipped();
    let def = set.action(&parsed).ok_or_else(|| {
        FlagError(format!(
            "unknown action type `{name}` (`zshm interface list` shows the known ones)"
        ))
    })?;
    let service = |service: &TypeName| -> anyhow::Result<(TypeName, TypeName, DynamicType)> {
        let def = set
            .service(service)
            .with_context(|| format!("{name} has no service {service}"))?;
        let hash = set
            .type_hash(service)
            .with_context(|| format!("cannot hash {service}"))?;
        Ok((
            def.request.clone(),
            def.response.clone(),
            DynamicType {
                dds_name: service.dds_name(),
                hash,
            },
        ))
    };
    let (send_request, send_response, send_goal) = service(&def.send_goal)?;
    let (result_request, result_response, get_result) = service(&def.get_result)?;
    let feedback_hash = set
        .type_hash(&def.feedback_message)
        .with_context(|| format!("cannot hash {}", def.feedback_message))?;
    Ok(ActionTypes {
        goal: MessageType::new(set, &def.goal)?,
        send_goal_request: MessageType::new(set, &send_request)?,
        send_goal_response: MessageType::new(set, &send_response)?,
        get_result_request: MessageType::new(set, &result_request)?,
        get_result_response: MessageType::new(set, &result_response)?,
        feedback_message: MessageType::new(set, &def.feedback_message)?,
        send_goal,
        get_result,
        feedback: DynamicType {
            dds_name: def.feedback_message.dds_name(),
            hash: feedback_hash,
        },
    })
}

/// A message of `ty` with `goal_id` set and, when given, its field `field` set to `value`.
fn with_goal(ty: &MessageType, id: GoalId, field: Option<(&str, Value)>) -> Value {
    let mut message = ty.default_value();
    if let Some(uuid) = message.get_mut("goal_id").and_then(|g| g.get_mut("uuid")) {
        *uuid = Value::Bytes(id.0.to_vec());
    }
    if let Some((name, value)) = field
        && let Some(slot) = message.get_mut(name)
    {
        *slot = value;
    }
    message
}

/// Block YAML with its first line indented by `indent`, as ros2 prints `'    ', yaml`.
fn yaml(value: &Value, indent: usize) -> String {
    let text = value.to_yaml(&YamlOptions { truncate: None });
    format!("{}{}\n", " ".repeat(indent), text.trim_end())
}

fn print_feedback(feedback: &Value) {
    outln!("Feedback:");
    outln!("{}", yaml(feedback, 4));
}

/// Sends one goal and prints its course.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let types = action_types(&args.type_name)?;
    let goal = types
        .goal
        .from_yaml(&args.values)
        .context("cannot read the goal")?;
    let id = GoalId::random();
    let request = with_goal(&types.send_goal_request, id, Some(("goal", goal.clone())));
    let request_cdr = types.send_goal_request.encode(&request)?;
    let result_cdr = types
        .get_result_request
        .encode(&with_goal(&types.get_result_request, id, None))?;

    let node = session::open_node(
        &args.node,
        &format!("zshm_action_send_goal_{}", std::process::id()),
    )
    .await?;
    let action = node.expand_topic(&args.name).context("bad action name")?;
    let send_goal = node
        .create_dynamic_client(&format!("{action}{}", wire::SEND_GOAL), &types.send_goal)
        .await?;
    let get_result = node
        .create_dynamic_client(&format!("{action}{}", wire::GET_RESULT), &types.get_result)
        .await?;
    let cancel = node
        .create_client::<CancelGoal>(&format!("{action}{}", wire::CANCEL_GOAL))
        .await?;
    // Feedback that comes before the acceptance is printed is held until then, so the lines
    // come in ros2's order.
    let held: Arc<Mutex<Option<Vec<Value>>>> = Arc::new(Mutex::new(Some(Vec::new())));
    let _feedback = if args.feedback {
        let ty = types.feedback_message.clone();
        let held = held.clone();
        Some(
            node.create_dynamic_subscription(
                &format!("{action}{}", wire::FEEDBACK),
                &types.feedback,
                QosProfile::keep_last(10),
                move |sample| {
                    let Ok(message) = ty.decode(sample.payload()) else {
                        return;
                    };
                    let ours = message.get_path("goal_id.uuid") == Some(&Value::Bytes(id.0.to_vec()));
                    if let (true, Some(feedback)) = (ours, message.get("feedback")) {
                        let mut held = held.lock().unwrap_or_else(PoisonError::into_inner);
                        match held.as_mut() {
                            Some(waiting) => waiting.push(feedback.clone()),
                            None => print_feedback(feedback),
                        }
                    }
                },
            )
            .await?,
        )
    } else {
        None
    };

    outln!("Waiting for an action server to become available...");
    let outcome = shutdown::unless_signalled(send_goal.wait_for_service(args.timeout)).await;
    if outcome != Some(true) {
        if outcome.is_some() {
            eprintln!(
                "zshm action send_goal: no server for {action} appeared within {:?}",
                args.timeout
            );
        }
        session::close(node.session()).await?;
        return Ok(ExitCode::FAILURE);
    }
    outln!("Sending goal:");
    outln!("{}", yaml(&goal, 5));
    let code = match shutdown::unless_signalled(send_goal.call_cdr(&request_cdr, args.timeout)).await {
        None => ExitCode::FAILURE,
        Some(Err(err)) => {
            eprintln!("zshm action send_goal: {err}");
            ExitCode::FAILURE
        }
        Some(Ok(reply)) => {
            let response = types.send_goal_response.decode(reply.payload())?;
            if response.get("accepted") != Some(&Value::Bool(true)) {
                outln!("Goal was rejected.");
                ExitCode::FAILURE
            } else {
                outln!("Goal accepted with ID: {id}");
                outln!();
                {
                    let mut held = held.lock().unwrap_or_else(PoisonError::into_inner);
                    held.take().iter().flatten().for_each(print_feedback);
                }
                let waited = tokio::select! {
                    reply = get_result.call_cdr(&result_cdr, RESULT_WAIT) => Some(reply),
                    signal = shutdown::signal() => { signal?; None }
                };
                match waited {
                    None => {
                        outln!("Canceling goal...");
                        let mut request = CancelGoal_Request::default();
                        request.goal_info.goal_id.uuid = id.0;
                        match cancel.call_async(&request, args.timeout).await {
                            Ok(response)
                                if CancelCode::from_wire(response.return_code) == CancelCode::None =>
                            {
                                outln!("Goal canceled.");
                            }
                            Ok(_) => {
                                eprintln!("zshm action send_goal: the server refused to cancel the goal")
                            }
                            Err(err) => eprintln!("zshm action send_goal: cannot cancel the goal: {err}"),
                        }
                        ExitCode::FAILURE
                    }
                    Some(Err(err)) => {
                        eprintln!("zshm action send_goal: no result: {err}");
                        ExitCode::FAILURE
                    }
                    Some(Ok(reply)) => {
                        let response = types.get_result_response.decode(reply.payload())?;
                        let status = response
                            .get("status")
                            .and_then(Value::as_i64)
                            .and_then(|s| i8::try_from(s).ok())
                            .map_or(GoalStatus::Unknown, GoalStatus::from_wire);
                        outln!("Result:");
                        if let Some(result) = response.get("result") {
                            outln!("{}", yaml(result, 4));
                        }
                        outln!("Goal finished with status: {status}");
                        if status == GoalStatus::Succeeded {
                            ExitCode::SUCCESS
                        } else {
                            ExitCode::FAILURE
                        }
                    }
                }
            }
        }
    };
    drop((send_goal, get_result, cancel));
    session::close(node.session()).await?;
    Ok(code)
}

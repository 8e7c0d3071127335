//! `zshm param set NODE NAME VALUE`: sets one parameter, the value read as YAML as `ros2 param
//! set` reads it (`true`, `5`, `2.5`, `[1, 2]`; anything else is a string). Prints `Set parameter
//! successful`; a refusal prints `Setting parameter failed: <reason>` on stderr and exits 1
//! (`--json`: `{"name", "successful", "reason"}`).

use std::process::ExitCode;

use zshm::msgs::rcl_interfaces::msg::Parameter;
use zshm::msgs::rcl_interfaces::srv::{SetParameters, SetParameters_Request};
use zshm::ros::parameter::{ParameterValue, overrides};

use super::remote::{Remote, TargetArgs};
use crate::cli::FlagError;
use crate::support::out::outln;

/// `zshm param set`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The node and how to reach it.
    #[command(flatten)]
    pub target: TargetArgs,
    /// The parameter.
    pub name: String,
    /// The value, as YAML (e.g. 30.0, true, "[1, 2]", text).
    #[arg(allow_hyphen_values = true)]
    pub value: String,
}

/// The outcome of one parameter's set: `Ok` or the node's reason.
pub type Outcome = Result<(), String>;

/// Sets each of `parameters` on its own; one outcome each, in order.
pub async fn set(remote: &Remote, parameters: &[(String, ParameterValue)]) -> anyhow::Result<Vec<Outcome>> {
    let request = SetParameters_Request {
        parameters: parameters
            .iter()
            .map(|(name, value)| Parameter {
                name: name.clone(),
                value: value.to_msg(),
            })
            .collect(),
    };
    let results = remote
        .call::<SetParameters>("set_parameters", &request)
        .await?
        .results;
    if results.len() != parameters.len() {
        anyhow::bail!(
            "node {} answered {} results for {} parameters",
            remote.target(),
            results.len(),
            parameters.len()
        );
    }
    Ok(results
        .into_iter()
        .map(|r| if r.successful { Ok(()) } else { Err(r.reason) })
        .collect())
}

/// Sets the parameter and prints the outcome.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.name.is_empty() {
        return Err(FlagError("the parameter name is empty".into()).into());
    }
    // As ros2: a value that YAML does not type as a parameter value is a string.
    let value =
        overrides::parse_value(&args.value).unwrap_or_else(|_| ParameterValue::String(args.value.clone()));
    let remote = Remote::open(&args.target).await?;
    let outcome = set(&remote, &[(args.name.clone(), value)]).await;
    remote.close().await?;
    let outcome = outcome?.pop().unwrap_or(Err("no result".into()));
    if args.target.json {
        outln!(
            "{}",
            serde_json::json!({
                "name": args.name,
                "successful": outcome.is_ok(),
                "reason": outcome.as_ref().err().cloned().unwrap_or_default(),
            })
        );
    }
    match outcome {
        Ok(()) => {
            if !args.target.json {
                outln!("Set parameter successful");
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(reason) => {
            if reason.is_empty() {
                eprintln!("Setting parameter failed");
            } else {
                eprintln!("Setting parameter failed: {reason}");
            }
            Ok(ExitCode::FAILURE)
        }
    }
}

//! `zshm param describe NODE NAME`: a parameter's type, description and constraints, printed as
//! `ros2 param describe` prints them (`--json`: the descriptor's fields).

use std::process::ExitCode;

use zshm::msgs::rcl_interfaces::srv::{DescribeParameters, DescribeParameters_Request};
use zshm::ros::parameter::{ParameterDescriptor, ParameterType, ParameterValue};

use super::remote::{self, Remote, TargetArgs};
use crate::support::out::outln;

/// `zshm param describe`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The node and how to reach it.
    #[command(flatten)]
    pub target: TargetArgs,
    /// The parameter.
    pub name: String,
}

/// The descriptors and types of `names`, or `None` when one is not declared.
pub async fn describe(
    remote: &Remote,
    names: &[String],
) -> anyhow::Result<Option<Vec<(ParameterType, ParameterDescriptor)>>> {
    let request = DescribeParameters_Request {
        names: names.to_vec(),
    };
    let descriptors = remote
        .call::<DescribeParameters>("describe_parameters", &request)
        .await?
        .descriptors;
    Ok((descriptors.len() == names.len()).then(|| {
        descriptors
            .iter()
            .map(|d| {
                let parameter_type = ParameterType::from_code(d.r#type).unwrap_or(ParameterType::NotSet);
                (parameter_type, ParameterDescriptor::from_msg(d))
            })
            .collect()
    }))
}

/// Prints the descriptor.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let remote = Remote::open(&args.target).await?;
    let described = describe(&remote, std::slice::from_ref(&args.name)).await;
    remote.close().await?;
    let Some((parameter_type, d)) = described?.and_then(|mut v| v.pop()) else {
        eprintln!("Parameter not set");
        return Ok(ExitCode::FAILURE);
    };
    if args.target.json {
        let mut json = serde_json::json!({
            "name": args.name,
            "type": parameter_type.name(),
            "description": d.description,
            "additional_constraints": d.additional_constraints,
            "read_only": d.read_only,
            "dynamic_typing": d.dynamic_typing,
        });
        if let Some(r) = d.integer_range {
            json["integer_range"] =
                serde_json::json!({"from_value": r.from_value, "to_value": r.to_value, "step": r.step});
        }
        if let Some(r) = d.floating_point_range {
            json["floating_point_range"] =
                serde_json::json!({"from_value": r.from_value, "to_value": r.to_value, "step": r.step});
        }
        outln!("{json}");
        return Ok(ExitCode::SUCCESS);
    }
    outln!("Parameter name: {}", args.name);
    outln!("  Type: {}", remote::type_word(parameter_type));
    if !d.description.is_empty() {
        outln!("  Description: {}", d.description);
    }
    outln!("  Constraints:");
    if d.read_only {
        outln!("    Read only: true");
    }
    if d.dynamic_typing {
        outln!("    Dynamic typing: true");
    }
    let double = |v: f64| ParameterValue::Double(v).to_string();
    if let Some(r) = d.integer_range {
        outln!("    Min value: {}", r.from_value);
        outln!("    Max value: {}", r.to_value);
        if r.step != 0 {
            outln!("    Step: {}", r.step);
        }
    }
    if let Some(r) = d.floating_point_range {
        outln!("    Min value: {}", double(r.from_value));
        outln!("    Max value: {}", double(r.to_value));
        if r.step != 0.0 {
            outln!("    Step: {}", double(r.step));
        }
    }
    if !d.additional_constraints.is_empty() {
        outln!("    Additional constraints: {}", d.additional_constraints);
    }
    Ok(ExitCode::SUCCESS)
}

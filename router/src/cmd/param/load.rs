//! `zshm param load NODE FILE`: sets the node's parameters from a ROS 2 parameters file (the
//! sections that match the node: `/**`, its name, patterns), each on its own, and prints `Set
//! parameter <name> successful` or `Setting parameter <name> failed: <reason>` per parameter.
//!
//! A read-only parameter whose value in the file is already its value is skipped (and said so),
//! so a `zshm param dump` loads back cleanly; any other refusal exits 1. A file that cannot be
//! read, or has no parameters for the node, exits 2.

use std::path::PathBuf;
use std::process::ExitCode;

use zshm::ros::parameter::{ParameterOverrides, ParameterValue};

use super::remote::{self, Remote, TargetArgs};
use crate::cli::FlagError;
use crate::support::out::outln;

/// `zshm param load`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The node and how to reach it.
    #[command(flatten)]
    pub target: TargetArgs,
    /// The parameters file (ROS 2's YAML layout, as `zshm param dump` writes it).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

/// Reads the file, sets its parameters, prints each outcome.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let target = remote::node_name(&args.target.node_name)?;
    let file = ParameterOverrides::from_params_file(&args.file).map_err(|err| FlagError(err.to_string()))?;
    let wanted: Vec<(String, ParameterValue)> = file.for_node(&target).into_iter().collect();
    if wanted.is_empty() {
        return Err(FlagError(format!(
            "{} has no parameters for node {target}",
            args.file.display()
        ))
        .into());
    }
    let remote = Remote::open(&args.target).await?;
    let outcome = apply(&remote, wanted).await;
    remote.close().await?;
    let results = outcome?;
    let failed = results.iter().any(|r| matches!(r.1, Applied::Failed(_)));
    if args.target.json {
        let results: Vec<serde_json::Value> = results
            .iter()
            .map(|(name, applied)| match applied {
                Applied::Set => serde_json::json!({"name": name, "successful": true, "skipped": false}),
                Applied::Skipped => serde_json::json!({"name": name, "successful": true, "skipped": true}),
                Applied::Failed(reason) => {
                    serde_json::json!({"name": name, "successful": false, "reason": reason})
                }
            })
            .collect();
        outln!("{}", serde_json::json!({ "node": target, "results": results }));
    } else {
        for (name, applied) in &results {
            match applied {
                Applied::Set => outln!("Set parameter {name} successful"),
                Applied::Skipped => {
                    outln!("Parameter {name} is read-only and already has this value: skipped")
                }
                Applied::Failed(reason) => eprintln!("Setting parameter {name} failed: {reason}"),
            }
        }
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// What became of one parameter of the file.
enum Applied {
    Set,
    Skipped,
    Failed(String),
}

/// Skips the read-only parameters that already hold their value, sets the others.
async fn apply(
    remote: &Remote,
    wanted: Vec<(String, ParameterValue)>,
) -> anyhow::Result<Vec<(String, Applied)>> {
    let declared = super::list::names(remote).await?;
    let known: Vec<String> = wanted
        .iter()
        .map(|(name, _)| name.clone())
        .filter(|name| declared.contains(name))
        .collect();
    let descriptors = super::describe::describe(remote, &known)
        .await?
        .unwrap_or_default();
    let current = super::get::values(remote, &known).await?.unwrap_or_default();
    let unchanged_read_only = |name: &str, value: &ParameterValue| {
        known
            .iter()
            .zip(descriptors.iter().zip(&current))
            .any(|(n, ((_, d), v))| n == name && d.read_only && v == value)
    };
    let (skipped, to_set): (Vec<_>, Vec<_>) = wanted
        .into_iter()
        .partition(|(name, value)| unchanged_read_only(name, value));
    let outcomes = super::set::set(remote, &to_set).await?;
    let mut results: Vec<(String, Applied)> = skipped
        .into_iter()
        .map(|(name, _)| (name, Applied::Skipped))
        .collect();
    for ((name, _), outcome) in to_set.into_iter().zip(outcomes) {
        results.push((
            name,
            match outcome {
                Ok(()) => Applied::Set,
                Err(reason) => Applied::Failed(reason),
            },
        ));
    }
    results.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(results)
}

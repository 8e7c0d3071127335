//! `zshm doctor`: runs the library's checks and prints each finding with its fix.
//! Exit code 0 when nothing must be fixed, 1 otherwise.

use std::process::ExitCode;

use zshm::config::Environment;
use zshm::tools::doctor::{self, Severity};

use crate::support::out::outln;

/// `zshm doctor`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Router config to check (default: $ZENOH_ROUTER_CONFIG_URI, else the built-in one).
    #[arg(long, value_name = "PATH")]
    pub router_config: Option<std::path::PathBuf>,
    /// Session config to check (default: $ZENOH_SESSION_CONFIG_URI, else the built-in one).
    #[arg(long, value_name = "PATH")]
    pub session_config: Option<std::path::PathBuf>,
    /// One JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Examines and reports.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let patient = doctor::patient(
        args.router_config,
        args.session_config,
        Environment::from_process(),
    );
    let checks = doctor::examine(&patient).await;
    let failures = checks.iter().filter(|c| c.severity == Severity::Fail).count();
    if args.json {
        outln!("{}", serde_json::json!({ "ok": failures == 0, "checks": checks }));
    } else {
        for check in &checks {
            let mark = match check.severity {
                Severity::Ok => "ok  ",
                Severity::Warn => "warn",
                Severity::Fail => "FAIL",
            };
            outln!("{mark}  {:<24} {}", check.name, check.summary);
            if let Some(fix) = &check.fix {
                outln!("      {:<24} fix: {fix}", "");
            }
        }
        match failures {
            0 => outln!("Shared memory can work here."),
            1 => outln!("1 problem must be fixed."),
            n => outln!("{n} problems must be fixed."),
        }
    }
    Ok(if failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

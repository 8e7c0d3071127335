//! `zshm doctor`: runs the library's checks and prints each finding with its fix.
//! Exit code 0 when nothing must be fixed, 1 otherwise.

use std::process::ExitCode;

use zshm::config::Environment;
use zshm::doctor::{self, Severity};

use crate::cli::DoctorArgs;

/// Examines and reports.
pub async fn run(args: DoctorArgs) -> anyhow::Result<ExitCode> {
    let patient = doctor::patient(
        args.router_config,
        args.session_config,
        Environment::from_process(),
    );
    let checks = doctor::examine(&patient).await;
    let failures = checks.iter().filter(|c| c.severity == Severity::Fail).count();
    if args.json {
        println!("{}", serde_json::json!({ "ok": failures == 0, "checks": checks }));
    } else {
        for check in &checks {
            let mark = match check.severity {
                Severity::Ok => "ok  ",
                Severity::Warn => "warn",
                Severity::Fail => "FAIL",
            };
            println!("{mark}  {:<24} {}", check.name, check.summary);
            if let Some(fix) = &check.fix {
                println!("      {:<24} fix: {fix}", "");
            }
        }
        match failures {
            0 => println!("Shared memory can work here."),
            1 => println!("1 problem must be fixed."),
            n => println!("{n} problems must be fixed."),
        }
    }
    Ok(if failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

//! `zshm doctor`: runs the library's checks and prints each finding with its fix.
//! Exit code 0 when nothing must be fixed, 1 otherwise.

use std::process::ExitCode;

use zshm::config::Environment;
use zshm_ops::tools::doctor::{self, Severity};

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
    /// Also check that DDS discovery works on the interfaces `zshm bridge` would use (two
    /// participants of this process must find each other; a few seconds).
    #[arg(long)]
    pub dds: bool,
    /// With --dds: a local IP address DDS may use (repeatable; default 127.0.0.1, as the bridge).
    #[arg(long = "dds-interface", value_name = "IP", requires = "dds")]
    pub dds_interfaces: Vec<String>,
    /// With --dds: the ROS domain (default: $ROS_DOMAIN_ID, else 0).
    #[arg(long, requires = "dds")]
    pub domain: Option<u32>,
}

/// How long the DDS check waits for its two participants to find each other.
/// RustDDS announces a participant again every few seconds; on a loaded machine the first
/// announcements can be missed (seen: 8 s was not enough beside a busy core).
const DDS_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(20);

/// The `DDS discovery` finding: two participants on the bridge's interfaces must find each other.
async fn dds_check(args: &Args, env: &Environment) -> anyhow::Result<doctor::Check> {
    let domain = args.domain.unwrap_or_else(|| {
        env.get(zshm::config::env::ROS_DOMAIN_ID)
            .and_then(|d| d.trim().parse().ok())
            .unwrap_or(0)
    });
    let config = zshm_bridge::BridgeConfig::new(domain)
        .and_then(|c| c.interfaces(args.dds_interfaces.iter().map(String::as_str)))
        .map_err(|e| crate::cli::FlagError(e.to_string()))?;
    let interfaces = config.interfaces.clone();
    let on: Vec<String> = interfaces.iter().map(ToString::to_string).collect();
    let on = on.join(", ");
    let dds_domain = u16::try_from(domain).unwrap_or(u16::MAX);
    let report = tokio::task::spawn_blocking(move || {
        zshm_bridge::discovery::check(dds_domain, &interfaces, DDS_TIMEOUT)
    })
    .await?;
    let (severity, summary, fix) = match report {
        Err(err) => (
            doctor::Severity::Fail,
            format!("cannot join DDS domain {domain} on {on}: {err}"),
            Some("give --dds-interface an address of this machine".to_owned()),
        ),
        Ok(report) => match (
            report.found_after,
            report.multicast.iter().find(|(_, r)| r.is_err()),
        ) {
            (Some(_), Some((address, Err(err)))) => (
                doctor::Severity::Fail,
                format!(
                    "multicast does not work on {address} ({err}): DDS nodes there will not discover the bridge"
                ),
                Some(if address.is_loopback() {
                    "`sudo ip link set lo multicast on` and `sudo ip route add 224.0.0.0/4 dev lo`".to_owned()
                } else {
                    format!(
                        "check that the interface of {address} has MULTICAST and that no firewall drops it"
                    )
                }),
            ),
            (Some(after), _) if report.loopback_multicast == Some(false) => (
                doctor::Severity::Warn,
                format!(
                    "two participants on {on} found each other in {:.1} s (domain {domain}; {} other DDS participant(s) seen), but lo has no MULTICAST flag: DDS nodes that discover by multicast on lo (Cyclone DDS with multicast=\"true\") will not find the bridge",
                    after.as_secs_f64(),
                    report.others
                ),
                Some(
                    "`sudo ip link set lo multicast on` and `sudo ip route add 224.0.0.0/4 dev lo`"
                        .to_owned(),
                ),
            ),
            (Some(after), _) => (
                doctor::Severity::Ok,
                format!(
                    "two participants on {on} found each other in {:.1} s, multicast works (domain {domain}; {} other DDS participant(s) seen)",
                    after.as_secs_f64(),
                    report.others
                ),
                None,
            ),
            (None, _) => {
                let fix = if report.loopback_multicast == Some(false) {
                    "the loopback interface has no MULTICAST flag, and DDS discovers by multicast: \
                     `sudo ip link set lo multicast on` (and `sudo ip route add 224.0.0.0/4 dev lo`), \
                     or give --dds-interface the address of a real interface"
                } else {
                    "DDS discovers by multicast (UDP 7400 and up): check that the interface has \
                     MULTICAST, a route for 224.0.0.0/4, and no firewall rule dropping it"
                };
                (
                    doctor::Severity::Fail,
                    format!(
                        "two participants on {on} did not find each other within {} (domain {domain})",
                        zshm::internal::text::seconds(DDS_TIMEOUT)
                    ),
                    Some(fix.to_owned()),
                )
            }
        },
    };
    Ok(doctor::Check {
        name: "DDS discovery",
        severity,
        summary,
        fix,
    })
}

/// Examines and reports.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let env = Environment::from_process();
    let dds = if args.dds {
        Some(dds_check(&args, &env).await?)
    } else {
        None
    };
    let patient = doctor::patient(args.router_config, args.session_config, env);
    let mut checks = doctor::examine(&patient).await;
    checks.extend(dds);
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

//! `zshm certs`: a throw-away CA with certificates, keys and passwords for the secure example
//! configs in `configs/secure/` (mutual TLS or user/password between a robot and a control
//! station). Copy the directory to `/etc/zshm/secure/` on both hosts, or point the configs at it
//! with `ZENOH_CONFIG_OVERRIDE`; see docs/security.md.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use zshm_ops::tools::certs::{CertPlan, generate};

use crate::support::out::outln;

/// `zshm certs`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Directory to write into (created; existing files are never replaced).
    #[arg(long, default_value = "zshm-certs")]
    pub out: PathBuf,
    /// The robot host's address or name, as the control station connects to it.
    #[arg(long, default_value = "10.0.0.1")]
    pub robot_host: String,
    /// The control station's address or name.
    #[arg(long, default_value = "10.0.0.2")]
    pub station_host: String,
    /// Days of validity.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=3650))]
    pub days: u32,
}

/// Writes the files and lists them.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let plan = CertPlan {
        robot_host: args.robot_host,
        station_host: args.station_host,
        days: args.days,
    };
    let written = generate(&args.out, &plan).context("cannot make the certificates")?;
    for path in &written {
        outln!("{}", path.display());
    }
    outln!(
        "zshm certs: {} files in {} (keys and passwords mode 0600), valid {} days; \
         see configs/secure/ and docs/security.md",
        written.len(),
        args.out.display(),
        plan.days
    );
    Ok(ExitCode::SUCCESS)
}

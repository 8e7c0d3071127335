//! `zshm`: the zshm command-line program. This file only parses, dispatches and maps errors to
//! exit codes; every subcommand lives in `cmd/`, shared flags in `cli`, shared helpers in
//! `support`, and the logic in the `zshm` library.

mod cli;
mod cmd;
mod support;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cmd::Cli::parse();
    let footprint = cli.command.footprint();
    support::allocator::bound_arenas(footprint);
    support::runtime::size_zenoh(footprint);
    support::logging::init();
    let runtime = match support::runtime::build(footprint) {
        Ok(runtime) => runtime,
        Err(err) => return report(&anyhow::Error::new(err).context("cannot start the async runtime")),
    };
    let outcome = runtime.block_on(cmd::run(cli.command));
    // A task stuck in a blocking call (zenoh retrying a connection) must not keep the process
    // alive once the command is over; everything the command owns is already dropped here.
    runtime.shutdown_timeout(std::time::Duration::from_secs(2));
    match outcome {
        Ok(code) => code,
        Err(err) => report(&err),
    }
}

/// Prints the error chain and picks the exit code: 2 for bad input, 1 for anything else, 0 for a
/// closed stdout (the reader went away, as with `| head`).
fn report(err: &anyhow::Error) -> ExitCode {
    let broken_pipe = err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    });
    if broken_pipe {
        return ExitCode::SUCCESS;
    }
    // Each cause is tidied: zenoh's own errors carry Rust source paths users cannot act on.
    let causes: Vec<String> = err
        .chain()
        .map(|cause| zshm::internal::text::tidy(&cause.to_string()))
        .collect();
    eprintln!("zshm: error: {}", causes.join(": "));
    if err
        .chain()
        .any(|cause| zshm::is_bad_input(cause) || cause.is::<cli::FlagError>())
    {
        ExitCode::from(2)
    } else {
        ExitCode::FAILURE
    }
}

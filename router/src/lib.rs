//! The `zshm` program as a library for its two binaries. `zshm` ([`main`]) runs every command.
//! `zshm-bench-node` ([`bench_process_main`]) runs only the processes `zshm bench` starts for its
//! cases. It links the `zshm` library and those alone, as a user's node does, instead of the
//! router, the bridge, Foxglove and the bags: a node's memory is then the node's, not the pages
//! of a program around it (BENCHMARKS.md, "Lean nodes and the subscribers sweep").

mod cli;
mod cmd;
mod support;

use std::process::ExitCode;

use clap::Parser;

/// `zshm`: parses the command line and runs the command.
pub fn main() -> ExitCode {
    let cli = cmd::Cli::parse();
    let footprint = cli.command.footprint();
    run(footprint, cmd::run(cli.command))
}

/// `zshm-bench-node`: one process of a benchmark case, started by `zshm bench`.
pub fn bench_process_main() -> ExitCode {
    /// The benchmark's processes `bench-role`, `bench-node` and `bench-service`, which `zshm bench`
    /// starts (not listed: only the bench runs them).
    #[derive(Debug, Parser)]
    #[command(name = "zshm-bench-node", version = cli::VERSION)]
    struct BenchCli {
        #[command(subcommand)]
        process: cmd::BenchProcess,
    }
    let cli = BenchCli::parse();
    let footprint = cli.process.footprint();
    run(footprint, cmd::run_bench_process(cli.process))
}

/// Sizes the allocator and the runtimes for the command, runs it and maps its error to an exit
/// code.
fn run(
    footprint: support::runtime::Footprint,
    command: impl Future<Output = anyhow::Result<ExitCode>>,
) -> ExitCode {
    support::allocator::bound_arenas(footprint);
    support::runtime::size_zenoh(footprint);
    support::logging::init();
    let runtime = match support::runtime::build(footprint) {
        Ok(runtime) => runtime,
        Err(err) => return report(&anyhow::Error::new(err).context("cannot start the async runtime")),
    };
    let outcome = runtime.block_on(command);
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

//! `zshm-bench-node`: the processes `zshm bench` starts for its cases, in a program built from the
//! `zshm` library and the benchmark's node code alone, as a user's node is.

fn main() -> std::process::ExitCode {
    zshm_cli::bench_process_main()
}

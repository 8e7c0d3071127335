//! `zshm`: the zshm command-line program. This file only starts it: every subcommand lives in
//! `cmd/`, shared flags in `cli`, shared helpers in `support` (the `zshm-cli` library, which
//! `zshm-bench-node` shares), and the logic in the `zshm` library.

fn main() -> std::process::ExitCode {
    zshm_cli::main()
}

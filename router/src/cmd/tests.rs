//! Every subcommand's parser, driven in-process with random and hostile flag values: clap must
//! refuse a bad number with exit code 2 and a message naming the flag, and never panic. The
//! numeric flags are found by walking the command tree, so a new flag is covered without
//! editing this file.

use std::any::TypeId;
use std::net::SocketAddr;
use std::time::Duration;

use clap::{CommandFactory, Parser};
use proptest::prelude::*;

use super::Cli;

/// Flags a subcommand needs before any other can be tried (only the hidden bench role has some).
fn required(subcommand: &str) -> Vec<&'static str> {
    match subcommand {
        "bench-role" => vec![
            "--mode",
            "tcp",
            "--case",
            "c",
            "--payload",
            "64",
            "--count",
            "1",
            "--warmup",
            "0",
            "--rate",
            "1",
            "-e",
            "tcp/127.0.0.1:7447",
            "--timeout",
            "1",
        ],
        _ => Vec::new(),
    }
}

/// `(subcommand, --flag)` for every flag whose value is a number, a duration or an address.
fn numeric_flags() -> Vec<(String, String)> {
    let numeric = [
        TypeId::of::<f64>(),
        TypeId::of::<u8>(),
        TypeId::of::<u16>(),
        TypeId::of::<u32>(),
        TypeId::of::<u64>(),
        TypeId::of::<usize>(),
        TypeId::of::<i64>(),
        TypeId::of::<Duration>(),
        TypeId::of::<SocketAddr>(),
    ];
    let mut found = Vec::new();
    for sub in Cli::command().get_subcommands() {
        for arg in sub.get_arguments() {
            let (Some(long), true) = (arg.get_long(), arg.get_action().takes_values()) else {
                continue;
            };
            if numeric.iter().any(|t| arg.get_value_parser().type_id() == *t) {
                found.push((sub.get_name().to_owned(), format!("--{long}")));
            }
        }
    }
    found
}

/// `zshm <subcommand> <required...> <flag>=<value>` (the `=` form, so that a value starting
/// with `-` is a value), with the flag's own required value replaced when it is one of them.
fn argv(subcommand: &str, flag: &str, value: &str) -> Vec<String> {
    let mut args = vec!["zshm".to_owned(), subcommand.to_owned()];
    for pair in required(subcommand).chunks(2) {
        if pair[0] != flag {
            args.extend(pair.iter().map(|a| (*a).to_owned()));
        }
    }
    args.push(format!("{flag}={value}"));
    args
}

/// Values no numeric flag accepts: not finite, out of every range, not numbers.
const HOSTILE: [&str; 12] = [
    "inf",
    "-inf",
    "NaN",
    "1e300",
    "-1e300",
    "-1",
    "18446744073709551616",
    "",
    "abc",
    "0x10",
    "1,5",
    "\u{0}",
];

#[test]
fn the_walk_finds_the_flags_issue_11_named() {
    let flags = numeric_flags();
    for expected in [
        ("cam-pub", "--rate"),
        ("talker", "--rate"),
        ("cam-latency", "--duration"),
        ("cam-latency", "--timeout"),
        ("demo", "--width"),
        ("demo", "--height"),
        ("bench-role", "--count"),
        ("router", "--metrics"),
    ] {
        assert!(
            flags.contains(&(expected.0.to_owned(), expected.1.to_owned())),
            "{expected:?} not in {flags:?}"
        );
    }
}

/// True when `--flag` of `subcommand` takes a comma-separated list (there `1,5` is two values).
fn takes_a_list(subcommand: &str, flag: &str) -> bool {
    Cli::command()
        .find_subcommand(subcommand)
        .and_then(|sub| {
            sub.get_arguments()
                .find(|a| a.get_long().is_some_and(|long| flag == format!("--{long}")))
                .map(|a| a.get_value_delimiter() == Some(','))
        })
        .unwrap_or(false)
}

#[test]
fn every_numeric_flag_refuses_hostile_values_with_exit_code_2() {
    for (subcommand, flag) in numeric_flags() {
        let list = takes_a_list(&subcommand, &flag);
        for value in HOSTILE.into_iter().filter(|v| !(list && *v == "1,5")) {
            let result = std::panic::catch_unwind(|| Cli::try_parse_from(argv(&subcommand, &flag, value)));
            let parsed = result.unwrap_or_else(|_| panic!("zshm {subcommand} {flag} {value:?} panicked"));
            let err = match parsed {
                Ok(cli) => panic!("zshm {subcommand} {flag} {value:?} was accepted: {cli:?}"),
                Err(err) => err,
            };
            assert_eq!(err.exit_code(), 2, "zshm {subcommand} {flag} {value:?}");
            let message = err.to_string();
            assert!(
                message.contains(&flag),
                "{subcommand} {flag} {value:?}: {message}"
            );
        }
    }
}

/// Durations and rates a flag accepts stay finite and in range (what tokio and `Duration` need).
fn check_accepted(cli: &Cli) {
    use super::Command;
    let durations: Vec<Duration> = match &cli.command {
        Command::CamLatency(a) => [Some(a.window), a.duration, Some(a.timeout)]
            .into_iter()
            .flatten()
            .collect(),
        Command::Demo(a) => vec![a.duration],
        Command::Pub(a) => vec![a.wait],
        Command::Sub(a) => vec![a.timeout],
        Command::Talker(a) => vec![a.wait],
        Command::Listener(a) => vec![a.timeout],
        Command::CamPub(a) => vec![a.wait, a.report],
        Command::Traffic(a) => vec![a.interval],
        Command::BenchProcess(super::BenchProcess::Role(a)) => vec![a.timeout],
        _ => Vec::new(),
    };
    let max = Duration::from_secs_f64(crate::cli::MAX_SECONDS);
    assert!(durations.iter().all(|d| *d <= max), "{durations:?}");
    let rates: Vec<f64> = match &cli.command {
        Command::Pub(a) => vec![a.rate],
        Command::Talker(a) => vec![a.rate],
        Command::CamPub(a) => vec![a.rate],
        Command::Demo(a) => vec![a.rate],
        Command::Bench(a) => vec![a.rate],
        Command::BenchProcess(super::BenchProcess::Role(a)) => vec![a.rate],
        _ => Vec::new(),
    };
    assert!(
        rates
            .iter()
            .all(|r| r.is_finite() && (0.0..=crate::cli::MAX_RATE).contains(r)),
        "{rates:?}"
    );
}

/// Strings that look like numbers a fuzzer (or a typo) would produce.
fn number_like() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<f64>().prop_map(|v| v.to_string()),
        any::<i64>().prop_map(|v| v.to_string()),
        any::<u64>().prop_map(|v| v.to_string()),
        (any::<f32>(), -400i32..400).prop_map(|(m, e)| format!("{m}e{e}")),
        "[-+]?[0-9]{0,30}(\\.[0-9]{0,10})?([eE][-+]?[0-9]{1,4})?",
        ".{0,24}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn random_values_are_refused_with_code_2_or_accepted_in_range(
        pick in any::<prop::sample::Index>(),
        value in number_like(),
    ) {
        let flags = numeric_flags();
        let (subcommand, flag) = &flags[pick.index(flags.len())];
        let parsed = std::panic::catch_unwind(|| Cli::try_parse_from(argv(subcommand, flag, &value)));
        prop_assert!(parsed.is_ok(), "zshm {} {} {:?} panicked", subcommand, flag, value);
        match parsed.unwrap() {
            Ok(cli) => check_accepted(&cli),
            Err(err) => prop_assert_eq!(err.exit_code(), 2, "{} {} {:?}: {}", subcommand, flag, value, err),
        }
    }
}

//! Bad input never panics: each case exits with code 2 and a message naming what is wrong.

use crate::support::Spawn;

/// A file in a directory that is removed when the returned guard drops.
fn temp_file(name: &str, text: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    (dir, path.display().to_string())
}

/// Runs `zshm <args>` with `env`, expects exit code 2 and every `needles` in stderr.
fn assert_refused(args: &[&str], env: &[(&str, &str)], needles: &[&str]) {
    let mut spawn = Spawn::zshm("zshm", args);
    for (key, value) in env {
        spawn = spawn.env(key, value);
    }
    let mut proc = spawn.start();
    let code = proc.wait_exit();
    let stderr = proc.stderr();
    assert_eq!(code, 2, "args {args:?} env {env:?}\n{}", proc.dump());
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.contains("zshm: error:"), "{stderr}");
    for needle in needles {
        assert!(stderr.contains(needle), "`{needle}` missing from:\n{stderr}");
    }
}

/// Both the router and a node must refuse the input.
fn assert_refused_everywhere(extra: &[&str], env: &[(&str, &str)], needles: &[&str]) {
    let mut router = vec!["router", "-l", "tcp/127.0.0.1:0"];
    router.extend_from_slice(extra);
    assert_refused(&router, env, needles);
    let mut node = vec!["sub", "-n", "1", "-t", "1"];
    node.extend_from_slice(extra);
    assert_refused(&node, env, needles);
}

#[test]
fn missing_config_file() {
    assert_refused_everywhere(
        &["-c", "/nonexistent/zshm.json5"],
        &[],
        &["cannot read config file /nonexistent/zshm.json5", "No such file"],
    );
}

#[test]
fn config_path_is_a_directory() {
    assert_refused_everywhere(&["-c", "/"], &[], &["cannot read config file /", "directory"]);
}

#[test]
fn config_named_by_environment_is_missing() {
    assert_refused(
        &["router"],
        &[("ZENOH_ROUTER_CONFIG_URI", "/nonexistent/router.json5")],
        &["/nonexistent/router.json5 (from ZENOH_ROUTER_CONFIG_URI)"],
    );
    assert_refused(
        &["sub", "-n", "1"],
        &[("ZENOH_SESSION_CONFIG_URI", "/nonexistent/s.json5")],
        &["/nonexistent/s.json5 (from ZENOH_SESSION_CONFIG_URI)"],
    );
}

#[test]
fn json5_syntax_error_names_file_and_line() {
    let (_dir, path) = temp_file(
        "syntax.json5",
        "{\n  mode: \"router\",\n  listen: { endpoints: [\"tcp/127.0.0.1:0\" }\n}\n",
    );
    assert_refused_everywhere(
        &["-c", &path],
        &[],
        &[&format!("{path}:3:"), "JSON5 syntax error"],
    );
}

#[test]
fn unknown_key_is_named() {
    let (_dir, path) = temp_file(
        "unknown.json5",
        "{ transport: { shared_memory: { enabeld: true } } }",
    );
    assert_refused_everywhere(
        &["-c", &path],
        &[],
        &["transport/shared_memory/enabeld", "unknown field `enabeld`"],
    );
}

#[test]
fn mistyped_key_is_named() {
    let (_dir, path) = temp_file(
        "mistyped.json5",
        "{ transport: { shared_memory: { enabled: \"yes\" } } }",
    );
    assert_refused_everywhere(
        &["-c", &path],
        &[],
        &["transport/shared_memory/enabled", "expected a boolean"],
    );
}

#[test]
fn malformed_override_string() {
    assert_refused_everywhere(
        &[],
        &[("ZENOH_CONFIG_OVERRIDE", "transport/shared_memory/enabled")],
        &["ZENOH_CONFIG_OVERRIDE is malformed", "has no `=`"],
    );
    assert_refused_everywhere(
        &[],
        &[("ZENOH_CONFIG_OVERRIDE", "transport/nope=1")],
        &["ZENOH_CONFIG_OVERRIDE: cannot set `transport/nope`"],
    );
    assert_refused_everywhere(
        &[],
        &[("ZENOH_CONFIG_OVERRIDE", "connect/endpoints=[\"tcp/x:1\"")],
        &["unbalanced"],
    );
}

#[test]
fn non_numeric_shm_alloc_size() {
    assert_refused_everywhere(
        &[],
        &[("ZENOH_SHM_ALLOC_SIZE", "64MiB")],
        &["ZENOH_SHM_ALLOC_SIZE=\"64MiB\" is not valid"],
    );
}

#[test]
fn threshold_that_is_not_a_power_of_two() {
    assert_refused_everywhere(
        &[],
        &[("ZENOH_SHM_MESSAGE_SIZE_THRESHOLD", "1000")],
        &["ZENOH_SHM_MESSAGE_SIZE_THRESHOLD", "power of two"],
    );
}

#[test]
fn empty_or_malformed_zenoh_runtime() {
    assert_refused_everywhere(&[], &[("ZENOH_RUNTIME", "")], &["ZENOH_RUNTIME is set but empty"]);
    assert_refused_everywhere(
        &[],
        &[("ZENOH_RUNTIME", "(app: (worker_threads: lots))")],
        &["ZENOH_RUNTIME is not valid"],
    );
}

#[test]
fn malformed_endpoint_flag() {
    assert_refused(
        &["router", "-l", "not-an-endpoint"],
        &[],
        &["--listen not-an-endpoint", "Endpoints must be of the form"],
    );
    assert_refused(&["sub", "-e", "nowhere"], &[], &["--connect nowhere"]);
}

#[test]
fn non_numeric_router_check_attempts() {
    assert_refused(
        &["sub", "-n", "1"],
        &[("ZENOH_ROUTER_CHECK_ATTEMPTS", "many")],
        &["ZENOH_ROUTER_CHECK_ATTEMPTS"],
    );
}

/// Regression test for issue 11 ("panics on numeric flags"): every subcommand, run as a user
/// would with a hostile number, exits 2 with a message naming the flag, never 101 with a panic.
/// (`router/src/cmd/tests.rs` drives every numeric flag in-process with random values.)
#[test]
fn hostile_numeric_flags_exit_2_in_every_subcommand() {
    let cases: &[(&[&str], &str)] = &[
        (&["cam-pub", "--rate", "inf"], "--rate"),
        (&["talker", "--rate", "inf"], "--rate"),
        (&["cam-latency", "--duration", "1e300"], "--duration"),
        (&["cam-latency", "--timeout", "inf"], "--timeout"),
        (&["cam-latency", "--window", "0"], "--window"),
        (&["demo", "--width", "0"], "--width"),
        (&["demo", "--height", "99999"], "--height"),
        (&["demo", "--duration", "NaN"], "--duration"),
        (
            &["demo", "--width", "16384", "--height", "16384"],
            "--width 16384 x --height 16384",
        ),
        (
            &["cam-pub", "--width", "16384", "--height", "16384"],
            "--width 16384 x --height 16384",
        ),
        (&["cam-pub", "--report", "0"], "--report"),
        (&["cam-pub", "--domain=-1"], "--domain"),
        (&["pub", "--size", "4"], "--size"),
        (&["pub", "--size", "4294967296"], "--size"),
        (&["pub", "--rate=-1"], "--rate"),
        (&["sub", "--timeout", "NaN"], "--timeout"),
        (&["listener", "--timeout", "inf"], "--timeout"),
        (&["talker", "--wait", "1e20"], "--wait"),
        (&["traffic", "--interval", "0"], "--interval"),
        (&["router", "--metrics", "1e300"], "--metrics"),
        (
            &["exporter", "-e", "tcp/127.0.0.1:1", "--metrics", "inf"],
            "--metrics",
        ),
        (&["topics", "--timeout", "inf"], "--timeout"),
        (&["nodes", "--timeout=-1"], "--timeout"),
        (&["bench", "--rate", "inf"], "--rate"),
        (&["bench", "--count", "0"], "--count"),
        (&["bench", "--payloads", "1"], "--payloads"),
        (
            &[
                "bench-role",
                "--mode",
                "tcp",
                "--case",
                "c",
                "--payload",
                "64",
                "--count",
                "18446744073709551615",
                "--warmup",
                "1",
                "--rate",
                "1",
                "-e",
                "tcp/127.0.0.1:1",
                "--timeout",
                "1",
            ],
            "--count",
        ),
    ];
    for (args, flag) in cases {
        let mut proc = Spawn::zshm("zshm", args).start();
        let code = proc.wait_exit();
        let stderr = proc.stderr();
        assert_eq!(code, 2, "zshm {args:?}\n{}", proc.dump());
        assert!(!stderr.contains("panicked"), "zshm {args:?}: {stderr}");
        assert!(
            stderr.contains(flag),
            "zshm {args:?}: `{flag}` not named in:\n{stderr}"
        );
    }
}

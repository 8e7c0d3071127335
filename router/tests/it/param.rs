//! `zshm param list / get / set / describe / dump / load` against a running `zshm cam-pub`: its
//! parameters from `--ros-args -p` and `--params-file`, a set of `rate` that reaches its timer,
//! read-only sizes that refuse with a reason, a dump that loads back, bad input (exit 2), a node
//! that is not there (exit 1, named), and the independent Python rmw_zenoh peer reading the
//! camera's parameters through `list_parameters` and `get_parameters`.

use nix::sys::signal::Signal;

use crate::interop::peer;
use crate::support::{Proc, Router, Spawn};

/// A camera with tiny clouds, `rate` from `-p` and `frame_id` from a `/**` section of a file.
fn camera(router: &Router, dir: &tempfile::TempDir) -> Proc {
    let file = dir.path().join("camera.yaml");
    std::fs::write(
        &file,
        "/**:\n  ros__parameters:\n    frame_id: from_file\n    rate: 1.0\n",
    )
    .unwrap();
    let file = file.to_str().unwrap().to_owned();
    Spawn::zshm(
        "cam-pub",
        &[
            "cam-pub",
            "-e",
            &router.locator,
            "--width",
            "8",
            "--height",
            "4",
            "--report",
            "100",
            "--ros-args",
            "--params-file",
            &file,
            "-p",
            "rate:=5.0",
        ],
    )
    .start()
}

/// Runs `zshm param ARGS -e ROUTER` to its end.
fn param(router: &Router, args: &[&str]) -> Proc {
    let mut all = vec!["param"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-e", &router.locator, "--timeout", "10"]);
    let mut proc = Spawn::zshm(&format!("param-{}", args[0]), &all).start();
    proc.wait_exit();
    proc
}

fn exit_code(proc: &mut Proc) -> i32 {
    proc.wait_exit()
}

#[test]
fn param_verbs_read_and_set_a_running_camera_and_a_rate_set_reaches_its_timer() {
    let router = Router::start(&[]);
    let dir = tempfile::tempdir().unwrap();
    let mut cam = camera(&router, &dir);

    let mut list = param(&router, &["list", "/sim_camera"]);
    assert_eq!(exit_code(&mut list), 0, "{}", list.dump());
    assert_eq!(
        list.stdout(),
        ["  frame_id", "  height", "  rate", "  use_sim_time", "  width"],
        "{}",
        list.dump()
    );
    let mut get = param(&router, &["get", "/sim_camera", "rate"]);
    assert_eq!(
        get.stdout(),
        ["Double value is: 5.0"],
        "-p wins over the file: {}",
        get.dump()
    );
    assert_eq!(exit_code(&mut get), 0);
    let get = param(&router, &["get", "sim_camera", "frame_id"]);
    assert_eq!(get.stdout(), ["String value is: from_file"], "{}", get.dump());
    let get = param(&router, &["get", "/sim_camera", "width"]);
    assert_eq!(get.stdout(), ["Integer value is: 8"], "{}", get.dump());

    let mut set = param(&router, &["set", "/sim_camera", "rate", "40.0"]);
    assert_eq!(exit_code(&mut set), 0, "{}", set.dump());
    assert_eq!(set.stdout(), ["Set parameter successful"]);
    cam.wait_for_stderr("the new rate in the camera's loop", |l| {
        l.contains("rate is now 40 Hz")
    });
    let get = param(&router, &["get", "/sim_camera", "rate", "--json"]);
    assert_eq!(get.json()["value"], 40.0, "{}", get.dump());

    let mut refused = param(&router, &["set", "/sim_camera", "width", "16"]);
    assert_eq!(exit_code(&mut refused), 1, "{}", refused.dump());
    assert!(
        refused
            .stderr()
            .contains("Setting parameter failed: parameter 'width' cannot be set because it is read-only"),
        "{}",
        refused.dump()
    );
    let mut wrong = param(&router, &["set", "/sim_camera", "rate", "fast"]);
    assert_eq!(exit_code(&mut wrong), 1, "{}", wrong.dump());
    assert!(
        wrong.stderr().contains(
            "Wrong parameter type, parameter {rate} is of type {double}, setting it to {string} is not allowed."
        ),
        "{}",
        wrong.dump()
    );
    let mut out_of_range = param(&router, &["set", "/sim_camera", "height", "0"]);
    assert_eq!(exit_code(&mut out_of_range), 1, "{}", out_of_range.dump());

    let describe = param(&router, &["describe", "/sim_camera", "width"]);
    let lines = describe.stdout();
    assert_eq!(lines[0], "Parameter name: width", "{}", describe.dump());
    assert_eq!(lines[1], "  Type: integer");
    assert!(lines.contains(&"    Read only: true".to_owned()), "{lines:?}");
    assert!(lines.contains(&"    Min value: 1".to_owned()), "{lines:?}");
    assert!(lines.contains(&"    Max value: 16384".to_owned()), "{lines:?}");

    let mut missing = param(&router, &["get", "/sim_camera", "no_such_parameter"]);
    assert_eq!(exit_code(&mut missing), 1);
    assert!(
        missing.stderr().contains("Parameter not set"),
        "{}",
        missing.dump()
    );

    cam.signal(Signal::SIGINT);
    assert_eq!(cam.wait_exit(), 0, "{}", cam.dump());
}

#[test]
fn a_dump_loads_back_and_its_read_only_sizes_are_skipped() {
    let router = Router::start(&[]);
    let dir = tempfile::tempdir().unwrap();
    let mut cam = camera(&router, &dir);
    let set = param(&router, &["set", "/sim_camera", "rate", "12.5"]);
    assert_eq!(set.stdout(), ["Set parameter successful"], "{}", set.dump());

    let dump = param(&router, &["dump", "/sim_camera"]);
    let yaml = dump.stdout().join("\n") + "\n";
    assert!(yaml.starts_with("/sim_camera:\n  ros__parameters:\n"), "{yaml}");
    assert!(yaml.contains("    rate: 12.5\n"), "{yaml}");
    assert!(yaml.contains("    width: 8\n"), "{yaml}");
    let file = dir.path().join("dump.yaml");
    std::fs::write(&file, &yaml).unwrap();

    let set = param(&router, &["set", "/sim_camera", "rate", "3.0"]);
    assert_eq!(set.stdout(), ["Set parameter successful"], "{}", set.dump());
    let mut load = param(&router, &["load", "/sim_camera", file.to_str().unwrap()]);
    assert_eq!(exit_code(&mut load), 0, "{}", load.dump());
    let lines = load.stdout();
    assert!(
        lines.contains(&"Set parameter rate successful".to_owned()),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("Parameter width is read-only")),
        "{lines:?}"
    );
    let get = param(&router, &["get", "/sim_camera", "rate"]);
    assert_eq!(get.stdout(), ["Double value is: 12.5"], "{}", get.dump());

    // A file that changes a read-only size is refused for that parameter: exit 1.
    let changed = dir.path().join("bigger.yaml");
    std::fs::write(&changed, "sim_camera:\n  ros__parameters:\n    width: 64\n").unwrap();
    let mut load = param(&router, &["load", "/sim_camera", changed.to_str().unwrap()]);
    assert_eq!(exit_code(&mut load), 1, "{}", load.dump());
    assert!(
        load.stderr().contains("Setting parameter width failed"),
        "{}",
        load.dump()
    );

    cam.signal(Signal::SIGINT);
    assert_eq!(cam.wait_exit(), 0, "{}", cam.dump());
}

#[test]
fn bad_input_exits_2_with_the_reason_and_a_missing_node_exits_1_naming_it() {
    let router = Router::start(&[]);
    let dir = tempfile::tempdir().unwrap();
    for (args, reason) in [
        (&["get", "bad name", "rate"][..], "is not a node name"),
        (
            &["load", "/sim_camera", "/nonexistent/params.yaml"][..],
            "/nonexistent/params.yaml",
        ),
    ] {
        let mut bad = param(&router, args);
        assert_eq!(exit_code(&mut bad), 2, "{}", bad.dump());
        assert!(bad.stderr().contains(reason), "{}", bad.dump());
    }
    let file = dir.path().join("broken.yaml");
    std::fs::write(&file, "sim_camera:\n  ros__parameters:\n    rate: [1, a]\n").unwrap();
    let mut cam = Spawn::zshm(
        "cam-pub-bad",
        &[
            "cam-pub",
            "-e",
            &router.locator,
            "--ros-args",
            "--params-file",
            file.to_str().unwrap(),
        ],
    )
    .start();
    assert_eq!(cam.wait_exit(), 2, "{}", cam.dump());
    assert!(
        cam.stderr().contains("broken.yaml") && cam.stderr().contains("sim_camera.rate"),
        "{}",
        cam.dump()
    );
    let mut cam = Spawn::zshm(
        "cam-pub-bad-rate",
        &["cam-pub", "-e", &router.locator, "--ros-args", "-p", "rate:=-4.0"],
    )
    .start();
    assert_eq!(cam.wait_exit(), 2, "{}", cam.dump());
    assert!(cam.stderr().contains("floating point range"), "{}", cam.dump());

    let mut nobody = Spawn::zshm(
        "param-nobody",
        &[
            "param",
            "get",
            "/nobody_here",
            "rate",
            "-e",
            &router.locator,
            "--timeout",
            "1",
        ],
    )
    .start();
    assert_eq!(nobody.wait_exit(), 1, "{}", nobody.dump());
    assert!(
        nobody.stderr().contains("node /nobody_here did not answer") && nobody.stderr().contains("1 s"),
        "{}",
        nobody.dump()
    );
}

#[test]
fn the_talker_takes_ros_args_and_offers_its_parameters() {
    let router = Router::start(&[]);
    let mut talker = Spawn::zshm(
        "talker",
        &[
            "talker",
            "-e",
            &router.locator,
            "--ros-args",
            "-p",
            "use_sim_time:=true",
        ],
    )
    .start();
    let get = param(&router, &["get", "/talker", "use_sim_time"]);
    assert_eq!(get.stdout(), ["Boolean value is: True"], "{}", get.dump());
    talker.signal(Signal::SIGINT);
    assert_eq!(talker.wait_exit(), 0, "{}", talker.dump());
}

#[test]
fn the_python_rmw_zenoh_peer_reads_the_cameras_parameters() {
    let router = Router::start(&[]);
    let dir = tempfile::tempdir().unwrap();
    let mut cam = camera(&router, &dir);
    let mut read = peer(
        "py-params",
        &[
            "params",
            "--connect",
            &router.locator,
            "--node",
            "/sim_camera",
            "--timeout",
            "15",
        ],
    )
    .start();
    assert_eq!(read.wait_exit(), 0, "{}\n{}", read.dump(), cam.dump());
    let report = read.json();
    assert_eq!(
        report["parameters"],
        serde_json::json!({
            "frame_id": "from_file",
            "height": 4,
            "rate": 5.0,
            "use_sim_time": false,
            "width": 8,
        }),
        "{report}"
    );
    cam.signal(Signal::SIGINT);
    assert_eq!(cam.wait_exit(), 0, "{}", cam.dump());
}

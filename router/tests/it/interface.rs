//! `zshm interface`: the shipped types listed and shown as `ros2 interface` does, and an unknown
//! type refused with exit code 2.

use crate::support::Spawn;

/// Runs `zshm <args>`, expects exit code 0 and returns stdout.
fn run_ok(args: &[&str]) -> Vec<String> {
    let mut proc = Spawn::zshm("interface", args).start();
    assert_eq!(proc.wait_exit(), 0, "{args:?}\n{}", proc.dump());
    proc.stdout()
}

#[test]
fn list_has_messages_services_and_actions_under_their_headings() {
    let lines = run_ok(&["interface", "list"]);
    let at = |line: &str| {
        lines
            .iter()
            .position(|l| l == line)
            .unwrap_or_else(|| panic!("`{line}` missing:\n{}", lines.join("\n")))
    };
    let (messages, services, actions) = (at("Messages:"), at("Services:"), at("Actions:"));
    assert!(messages < at("    geometry_msgs/msg/Twist"));
    assert!(services < at("    rcl_interfaces/srv/SetParameters"));
    assert!(actions < at("    example_interfaces/action/Fibonacci"));
    assert!(messages < services && services < actions);
    // Types ROS derives from services and actions are not interfaces of their own.
    assert!(
        !lines
            .iter()
            .any(|l| l.contains("_Request") || l.contains("_Goal"))
    );

    let only_services = run_ok(&["interface", "list", "-s"]);
    assert_eq!(only_services[0], "Services:");
    assert!(
        only_services[1..].iter().all(|l| l.contains("/srv/")),
        "{only_services:?}"
    );
}

#[test]
fn show_prints_the_definition_with_nested_types_indented() {
    assert_eq!(
        run_ok(&["interface", "show", "geometry_msgs/msg/Twist"]),
        [
            "Vector3 linear",
            "\tfloat64 x",
            "\tfloat64 y",
            "\tfloat64 z",
            "Vector3 angular",
            "\tfloat64 x",
            "\tfloat64 y",
            "\tfloat64 z"
        ]
    );
    assert_eq!(
        run_ok(&["interface", "show", "example_interfaces/srv/AddTwoInts"]),
        ["int64 a", "int64 b", "---", "int64 sum"]
    );
    let packages = run_ok(&["interface", "packages"]);
    assert!(packages.contains(&"sensor_msgs".to_owned()), "{packages:?}");
    assert_eq!(
        run_ok(&["interface", "package", "std_srvs"]),
        [
            "std_srvs/srv/Empty",
            "std_srvs/srv/SetBool",
            "std_srvs/srv/Trigger"
        ]
    );
}

#[test]
fn an_unknown_type_exits_2_with_a_suggestion() {
    for (args, needle) in [
        (
            &["interface", "show", "std_msgs/msg/Twist"][..],
            "did you mean geometry_msgs/msg/Twist",
        ),
        (&["interface", "show", "not a type"][..], "not a type name"),
        (
            &["interface", "package", "no_such_msgs"][..],
            "unknown package no_such_msgs",
        ),
    ] {
        let mut proc = Spawn::zshm("interface", args).start();
        assert_eq!(proc.wait_exit(), 2, "{args:?}\n{}", proc.dump());
        let stderr = proc.stderr();
        assert!(
            stderr.contains("zshm: error:") && stderr.contains(needle),
            "{stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

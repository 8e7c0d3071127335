//! Every shipped type's RIHS01 hash against ROS 2 Jazzy's published values.
//!
//! `jazzy_hashes.tsv` pins one value per line with where it came from: rosbags' `hash_rihs01`
//! for message types that hold no `char` (rosbags hashes `char` with the wrong type id), and the
//! values Jazzy publishes (rmw_zenoh's design document, `ros2 service|action info` outputs,
//! Jazzy's type description JSON files) for the others, services and actions.

use zshm_rosidl::{InterfaceSet, TypeName};

fn pinned() -> Vec<(String, String, String)> {
    let text = include_str!("jazzy_hashes.tsv");
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let mut parts = line.split('\t');
            let name = parts.next().unwrap().to_owned();
            let hash = parts.next().unwrap_or_default().to_owned();
            let source = parts.next().unwrap_or_default().to_owned();
            (name, hash, source)
        })
        .collect()
}

#[test]
fn every_pinned_hash_matches() {
    let set = InterfaceSet::shipped();
    let mut mismatches = Vec::new();
    let pinned = pinned();
    let shipped = InterfaceSet::shipped_packages();
    let mut checked = 0;
    for (name, expected, source) in &pinned {
        let type_name = TypeName::parse(name).unwrap_or_else(|| panic!("bad name {name} in the table"));
        // The table pins every type of rosbags' Jazzy store; zshm ships the packages nodes need.
        if !shipped.contains(type_name.package.as_str()) {
            continue;
        }
        checked += 1;
        match set.type_hash(&type_name) {
            Ok(actual) if &actual == expected => {}
            Ok(actual) => mismatches.push(format!("{name}: zshm {actual}, pinned {expected} ({source})")),
            Err(e) => mismatches.push(format!("{name}: {e}")),
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {checked} differ:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
    assert!(checked > 200, "the table pins only {checked} shipped types");
}

#[test]
fn the_research_table_values_hold() {
    // Published Jazzy values (rmw_zenoh design.md, `ros2 service|action info`), checked
    // independently in research/ros2_interfaces_services.md §2.
    let table = [
        (
            "std_msgs/msg/String",
            "df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18",
        ),
        (
            "std_msgs/msg/Char",
            "3ad2d04dd29ba19d04b16659afa3ccaedd691914b02a64e82e252f2fa6a586a9",
        ),
        (
            "service_msgs/msg/ServiceEventInfo",
            "41bcbbe07a75c9b52bc96bfd5c24d7f0fc0a08c0cb7921b3373c5732345a6f45",
        ),
        (
            "example_interfaces/srv/AddTwoInts",
            "e118de6bf5eeb66a2491b5bda11202e7b68f198d6f67922cf30364858239c81a",
        ),
        (
            "example_interfaces/srv/AddTwoInts_Request",
            "000c5fd92d6b2e1a05949348f584d6d652adea1e92d691792011ac2273508302",
        ),
        (
            "example_interfaces/srv/AddTwoInts_Response",
            "de5c030d4af33cba2749310b249737b631594703f9300495f48bffb2b44dcc2f",
        ),
        (
            "std_srvs/srv/Empty",
            "5888399dedec5ccc85ea6451949fd2c9f97bfdf963f9a588821639fcd31b5d19",
        ),
        (
            "rcl_interfaces/srv/ListParameters",
            "3e6062bfbb27bfb8730d4cef2558221f51a11646d78e7bb30a1e83afac3aad9d",
        ),
        (
            "rcl_interfaces/srv/GetParameters",
            "bf9803d5c74cf989a5de3e0c2e99444599a627c7ff75f97b8c05b01003675cbc",
        ),
        (
            "rcl_interfaces/srv/GetParameterTypes",
            "da199c878688b3e530bdfe3ca8f74cb9fa0c303101e980a9e8f260e25e1c80ca",
        ),
        (
            "rcl_interfaces/srv/SetParameters",
            "56eed9a67e169f9cb6c1f987bc88f868c14a8fc9f743a263bc734c154015d7e0",
        ),
        (
            "rcl_interfaces/srv/SetParametersAtomically",
            "0e192ef259c07fc3c07a13191d27002222e65e00ccec653ca05e856f79285fcd",
        ),
        (
            "rcl_interfaces/srv/DescribeParameters",
            "845b484d71eb0673dae682f2e3ba3c4851a65a3dcfb97bddd82c5b57e91e4cff",
        ),
        (
            "rcl_interfaces/msg/ParameterEvent",
            "043e627780fcad87a22d225bc2a037361dba713fca6a6b9f4b869a5aa0393204",
        ),
        (
            "type_description_interfaces/srv/GetTypeDescription",
            "69b9c19c1021405984cc60dbbb1edceb147a6538b411d812ba6afabeed962cd5",
        ),
        (
            "action_msgs/srv/CancelGoal",
            "573d8b0a534451d7bc2ac8c5ffde8ac14b8593b7001175d0cd6516dcbeb8689a",
        ),
        (
            "action_msgs/msg/GoalStatusArray",
            "6c1684b00f177d37438febe6e709fc4e2b0d4248dca4854946f9ed8b30cda83e",
        ),
        (
            "example_interfaces/action/Fibonacci",
            "9508051da1ea4658de144b09bd0690ff3de52104683d847aed764d2915906f51",
        ),
        (
            "example_interfaces/action/Fibonacci_SendGoal",
            "d1a57fb2a4afe8c21e34fb10db206f16ce6729b28531141472df92277c55b557",
        ),
        (
            "example_interfaces/action/Fibonacci_GetResult",
            "1b0de0d5d29dc955d92f546706568428632771db13ec84c15ec1c1a59f424a57",
        ),
        (
            "example_interfaces/action/Fibonacci_FeedbackMessage",
            "c1de71afd52e49a89c53d8262366884185bc0a02f78ce051c4e46b0a7fe59bb2",
        ),
    ];
    let set = InterfaceSet::shipped();
    for (name, hex) in table {
        let hash = set
            .type_hash(&TypeName::parse(name).unwrap())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(hash, format!("RIHS01_{hex}"), "{name}");
    }
}

#[test]
fn every_shipped_type_hashes_and_generates() {
    let set = InterfaceSet::shipped();
    for package in [
        "builtin_interfaces",
        "std_msgs",
        "geometry_msgs",
        "sensor_msgs",
        "nav_msgs",
        "tf2_msgs",
        "diagnostic_msgs",
        "rosgraph_msgs",
        "rcl_interfaces",
        "service_msgs",
        "action_msgs",
        "unique_identifier_msgs",
        "type_description_interfaces",
        "lifecycle_msgs",
        "std_srvs",
        "example_interfaces",
        "action_tutorials_interfaces",
    ] {
        assert!(set.packages().contains(package), "{package} is not shipped");
    }
    for def in set.messages() {
        set.type_hash(&def.name).unwrap();
    }
}

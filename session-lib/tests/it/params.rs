//! Parameters between two sessions, as rclcpp offers them: every type through the six services,
//! ranges with a step, read-only, a callback that refuses with its reason, dynamic typing,
//! overrides from `--ros-args -p` and a parameters file, `/parameter_events` for declare, set and
//! undeclare, and a node that opts out of the services.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use zshm::msgs::ServiceType;
use zshm::msgs::rcl_interfaces::msg::{Parameter as WireParameter, ParameterEvent};
use zshm::msgs::rcl_interfaces::srv::*;
use zshm::ros::parameter::{
    Parameter, ParameterDescriptor, ParameterError, ParameterOverrides, ParameterType, ParameterValue,
};
use zshm::ros::qos::QosProfile;
use zshm::ros::{CallError, Client, Node, NodeOptions};

use crate::lane::DEADLINE;
use crate::session_pair;

/// A client of `<node>/<service>` that has seen the server.
async fn client<S: ServiceType>(caller: &Node, node: &str, service: &str) -> Client<S> {
    let client = caller
        .create_client::<S>(&format!("{node}/{service}"))
        .await
        .unwrap();
    assert!(client.wait_for_service_async(DEADLINE).await, "{node}/{service}");
    client
}

fn wire(name: &str, value: impl Into<ParameterValue>) -> WireParameter {
    WireParameter {
        name: name.into(),
        value: value.into().to_msg(),
    }
}

fn every_type() -> Vec<(&'static str, ParameterValue)> {
    vec![
        ("b", true.into()),
        ("i", 42i64.into()),
        ("d", 2.5.into()),
        ("s", "text".into()),
        ("bytes", vec![1u8, 255].into()),
        ("bools", vec![true, false].into()),
        ("ints", vec![1i64, -2].into()),
        ("doubles", vec![0.5, -1.5].into()),
        ("strings", vec!["a", "b"].into()),
        ("nested.deep.name", 1i64.into()),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_type_reads_back_through_the_services_as_declared() {
    let (a, b) = session_pair().await;
    let node = Node::new(&a, "typed", NodeOptions::default()).await.unwrap();
    for (name, value) in every_type() {
        assert_eq!(
            node.declare_parameter(
                name,
                value.clone(),
                ParameterDescriptor::new(format!("the {name}"))
            ),
            Ok(value)
        );
    }
    let caller = Node::new(&b, "caller", NodeOptions::default()).await.unwrap();
    let names: Vec<String> = every_type().iter().map(|(n, _)| (*n).to_owned()).collect();

    let get = client::<GetParameters>(&caller, "/typed", "get_parameters").await;
    let values = get
        .call_async(&GetParameters_Request { names: names.clone() }, DEADLINE)
        .await
        .unwrap()
        .values;
    let values: Vec<ParameterValue> = values
        .iter()
        .map(|v| ParameterValue::from_msg(v).unwrap())
        .collect();
    assert_eq!(
        values,
        every_type().into_iter().map(|(_, v)| v).collect::<Vec<_>>()
    );
    // As rclcpp: one undeclared name, and the whole answer is empty.
    let mut with_unknown = names.clone();
    with_unknown.push("unknown".into());
    let none = get
        .call_async(&GetParameters_Request { names: with_unknown }, DEADLINE)
        .await
        .unwrap();
    assert!(none.values.is_empty());

    let types = client::<GetParameterTypes>(&caller, "/typed", "get_parameter_types").await;
    let codes = types
        .call_async(&GetParameterTypes_Request { names: names.clone() }, DEADLINE)
        .await
        .unwrap()
        .types;
    assert_eq!(codes, [1, 2, 3, 4, 5, 6, 7, 8, 9, 2]);

    let describe = client::<DescribeParameters>(&caller, "/typed", "describe_parameters").await;
    let descriptors = describe
        .call_async(
            &DescribeParameters_Request {
                names: vec!["d".into()],
            },
            DEADLINE,
        )
        .await
        .unwrap()
        .descriptors;
    assert_eq!(descriptors.len(), 1);
    assert_eq!(
        (
            descriptors[0].name.as_str(),
            descriptors[0].r#type,
            descriptors[0].description.as_str()
        ),
        ("d", 3, "the d")
    );

    let list = client::<ListParameters>(&caller, "/typed", "list_parameters").await;
    let all = list
        .call_async(
            &ListParameters_Request {
                prefixes: vec![],
                depth: 0,
            },
            DEADLINE,
        )
        .await
        .unwrap()
        .result;
    let mut expected = names.clone();
    expected.push("use_sim_time".into());
    expected.sort();
    assert_eq!(all.names, expected, "every node declares use_sim_time, as rclcpp");
    assert_eq!(all.prefixes, ["nested.deep"]);
    let under = list
        .call_async(
            &ListParameters_Request {
                prefixes: vec!["nested".into()],
                depth: 0,
            },
            DEADLINE,
        )
        .await
        .unwrap()
        .result;
    assert_eq!(under.names, ["nested.deep.name"]);
    assert_eq!(node.get_parameter("use_sim_time"), Ok(false.into()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sets_follow_rclcpps_checks_and_reasons_and_a_callback_may_refuse() {
    let (a, b) = session_pair().await;
    let node = Node::new(&a, "checked", NodeOptions::default()).await.unwrap();
    node.declare_parameter(
        "count",
        0i64,
        ParameterDescriptor::default().integer_range(0, 10, 5),
    )
    .unwrap();
    node.declare_parameter(
        "gain",
        0.0,
        ParameterDescriptor::default().floating_point_range(0.0, 1.0, 0.1),
    )
    .unwrap();
    node.declare_parameter("size", 8i64, ParameterDescriptor::default().read_only())
        .unwrap();
    node.declare_parameter("any", 1i64, ParameterDescriptor::default().dynamic_typing())
        .unwrap();
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let log = seen.clone();
    let _guard = node.on_set_parameters(move |changes| {
        log.lock().unwrap().extend(changes.iter().map(|p| p.name.clone()));
        match changes.iter().find(|p| p.name == "count") {
            Some(p) if p.value == ParameterValue::Integer(5) => Err("5 is reserved".into()),
            _ => Ok(()),
        }
    });

    let caller = Node::new(&b, "caller", NodeOptions::default()).await.unwrap();
    let set = client::<SetParameters>(&caller, "/checked", "set_parameters").await;
    let request = SetParameters_Request {
        parameters: vec![
            wire("count", 10i64),
            wire("count", 7i64),
            wire("count", 5i64),
            wire("gain", 0.1 * 3.0),
            wire("gain", 0.35),
            wire("size", 16i64),
            wire("gain", "high"),
            wire("any", "now a string"),
            wire("missing", 1i64),
            wire("count", ParameterValue::NotSet),
        ],
    };
    let results: Vec<(bool, String)> = set
        .call_async(&request, DEADLINE)
        .await
        .unwrap()
        .results
        .into_iter()
        .map(|r| (r.successful, r.reason))
        .collect();
    let ok = (true, String::new());
    let no = |reason: &str| (false, reason.to_owned());
    assert_eq!(
        results,
        [
            ok.clone(),
            no("Parameter {count} doesn't comply with integer range."),
            no("5 is reserved"),
            ok.clone(),
            no("Parameter {gain} doesn't comply with floating point range."),
            no("parameter 'size' cannot be set because it is read-only"),
            no(
                "Wrong parameter type, parameter {gain} is of type {double}, setting it to {string} is not allowed."
            ),
            ok,
            no("parameter 'missing' cannot be set because it was not declared"),
            no("cannot undeclare a statically typed parameter"),
        ]
    );
    assert_eq!(node.get_parameter("count"), Ok(10i64.into()));
    assert_eq!(node.get_parameter("any"), Ok("now a string".into()));
    assert_eq!(
        seen.lock().unwrap().as_slice(),
        ["count", "count", "gain", "any"],
        "the callback sees what passed the descriptor's checks"
    );

    let atomic = client::<SetParametersAtomically>(&caller, "/checked", "set_parameters_atomically").await;
    let refused = atomic
        .call_async(
            &SetParametersAtomically_Request {
                parameters: vec![wire("count", 0i64), wire("missing", 1i64)],
            },
            DEADLINE,
        )
        .await
        .unwrap()
        .result;
    assert!(!refused.successful);
    assert_eq!(
        refused.reason,
        "One or more parameters were not declared before setting"
    );
    assert_eq!(node.get_parameter("count"), Ok(10i64.into()), "all or nothing");
    let done = atomic
        .call_async(
            &SetParametersAtomically_Request {
                parameters: vec![wire("count", 0i64), wire("any", ParameterValue::NotSet)],
            },
            DEADLINE,
        )
        .await
        .unwrap()
        .result;
    assert!(done.successful, "{}", done.reason);
    assert!(
        !node.has_parameter("any"),
        "a dynamic parameter set to not-set is undeclared"
    );

    // The node's own API gives the same typed errors.
    assert_eq!(
        node.declare_parameter("count", 1i64, ParameterDescriptor::default()),
        Err(ParameterError::AlreadyDeclared { name: "count".into() })
    );
    assert!(matches!(
        node.set_parameter("size", 1i64),
        Err(ParameterError::ReadOnly { .. })
    ));
    assert!(matches!(
        node.set_parameter("gain", 1i64),
        Err(ParameterError::WrongType {
            declared: ParameterType::Double,
            given: ParameterType::Integer,
            ..
        })
    ));
    assert!(matches!(
        node.undeclare_parameter("gain"),
        Err(ParameterError::StaticallyTyped { .. })
    ));
    assert!(matches!(
        node.declare_parameter("later", ParameterValue::NotSet, ParameterDescriptor::default()),
        Err(ParameterError::Uninitialized { .. })
    ));
    assert_eq!(
        node.set_parameters(&[Parameter::new("gain", 0.5), Parameter::new("gain", 2.0)])
            .iter()
            .map(Result::is_ok)
            .collect::<Vec<_>>(),
        [true, false]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn overrides_from_ros_args_and_a_params_file_replace_the_defaults() {
    let (a, _b) = session_pair().await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("params.yaml");
    std::fs::write(
        &file,
        "/**:\n  ros__parameters:\n    rate: 1.0\n    label: everyone\n\
         /robot/camera:\n  ros__parameters:\n    rate: 2.0\n    lens:\n      focal: 4.5\n\
         other:\n  ros__parameters:\n    rate: 9.0\n",
    )
    .unwrap();
    let file = file.to_str().unwrap().to_owned();
    let overrides = ParameterOverrides::from_ros_args(&[
        "--params-file",
        &file,
        "-p",
        "/robot/camera:label:=mine",
        "-p",
        "use_sim_time:=true",
    ])
    .unwrap();
    let options = NodeOptions {
        namespace: "/robot".into(),
        parameter_overrides: overrides,
        ..NodeOptions::default()
    };
    let node = Node::new(&a, "camera", options).await.unwrap();
    assert_eq!(node.get_parameter("use_sim_time"), Ok(true.into()));
    let declare = |name: &str, default: ParameterValue| {
        node.declare_parameter(name, default, ParameterDescriptor::default())
    };
    assert_eq!(
        declare("rate", 15.0.into()),
        Ok(2.0.into()),
        "the node's own section wins over /**"
    );
    assert_eq!(
        declare("label", "default".into()),
        Ok("mine".into()),
        "-p after the file wins"
    );
    assert_eq!(
        declare("lens.focal", 1.0.into()),
        Ok(4.5.into()),
        "nested keys join with '.'"
    );
    assert_eq!(declare("untouched", 3i64.into()), Ok(3i64.into()));
    // An override of the wrong type is refused at declaration, as rclcpp.
    let typed = ParameterOverrides::from_ros_args(&["-p", "size:=big"]).unwrap();
    let node = Node::new(
        &a,
        "strict",
        NodeOptions {
            parameter_overrides: typed,
            ..NodeOptions::default()
        },
    )
    .await
    .unwrap();
    assert!(matches!(
        node.declare_parameter("size", 1i64, ParameterDescriptor::default()),
        Err(ParameterError::WrongType { .. })
    ));
    // A bad override of use_sim_time fails the node's creation, as bad input.
    let bad = ParameterOverrides::from_ros_args(&["-p", "use_sim_time:=3"]).unwrap();
    let err = Node::new(
        &a,
        "doomed",
        NodeOptions {
            parameter_overrides: bad,
            ..NodeOptions::default()
        },
    )
    .await
    .unwrap_err();
    assert!(err.is_bad_input(), "{err}");
}

/// Events of `node` received so far.
fn events_of(events: &Mutex<Vec<ParameterEvent>>, node: &str) -> Vec<ParameterEvent> {
    events
        .lock()
        .unwrap()
        .iter()
        .filter(|e| e.node == node)
        .cloned()
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parameter_events_tell_declare_set_and_undeclare_with_the_node_and_a_stamp() {
    let (a, b) = session_pair().await;
    let watcher = Node::new(&b, "watcher", NodeOptions::default()).await.unwrap();
    let events: Arc<Mutex<Vec<ParameterEvent>>> = Arc::default();
    let sink = events.clone();
    let _sub = watcher
        .create_subscription::<ParameterEvent>(
            "/parameter_events",
            QosProfile::keep_last(1000),
            move |sample| {
                sink.lock().unwrap().push(sample.decode());
            },
        )
        .await
        .unwrap();
    let node = Node::new(
        &a,
        "evented",
        NodeOptions {
            namespace: "/ns".into(),
            ..NodeOptions::default()
        },
    )
    .await
    .unwrap();
    // The subscription matches a moment after both exist: change a probe until its event comes.
    node.declare_parameter("probe", 0i64, ParameterDescriptor::default())
        .unwrap();
    let deadline = Instant::now() + DEADLINE;
    for n in 1.. {
        node.set_parameter("probe", n as i64).unwrap();
        if !events_of(&events, "/ns/evented").is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "no parameter event arrived");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let started = zshm::msgs::builtin_interfaces::msg::Time::now();
    node.declare_parameter("gain", 1.5, ParameterDescriptor::default().dynamic_typing())
        .unwrap();
    node.set_parameter("gain", 2.5).unwrap();
    node.undeclare_parameter("gain").unwrap();
    let deadline = Instant::now() + DEADLINE;
    // Probe events may still be arriving: only those about `gain` count here.
    let about_gain = |e: &ParameterEvent| {
        [&e.new_parameters, &e.changed_parameters, &e.deleted_parameters]
            .iter()
            .any(|list| list.iter().any(|p| p.name == "gain"))
    };
    let ours = loop {
        let ours: Vec<ParameterEvent> = events_of(&events, "/ns/evented")
            .into_iter()
            .filter(about_gain)
            .collect();
        if ours.len() >= 3 {
            break ours;
        }
        assert!(Instant::now() < deadline, "only {} events: {ours:?}", ours.len());
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let names = |list: &[WireParameter]| list.iter().map(|p| p.name.clone()).collect::<Vec<_>>();
    assert_eq!(ours.len(), 3, "one event per change: {ours:?}");
    assert_eq!(names(&ours[0].new_parameters), ["gain"]);
    assert_eq!(ours[0].new_parameters[0].value.double_value, 1.5);
    assert!(ours[0].changed_parameters.is_empty() && ours[0].deleted_parameters.is_empty());
    assert_eq!(names(&ours[1].changed_parameters), ["gain"]);
    assert_eq!(ours[1].changed_parameters[0].value.double_value, 2.5);
    assert_eq!(names(&ours[2].deleted_parameters), ["gain"]);
    for event in &ours {
        assert!(
            (event.stamp.sec, event.stamp.nanosec) >= (started.sec, started.nanosec),
            "stamped with the node's clock: {event:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_that_opts_out_offers_no_parameter_services_but_keeps_its_parameters() {
    let (a, b) = session_pair().await;
    let options = NodeOptions {
        start_parameter_services: false,
        ..NodeOptions::default()
    };
    let quiet = Node::new(&a, "quiet", options).await.unwrap();
    quiet
        .declare_parameter("rate", 1.0, ParameterDescriptor::default())
        .unwrap();
    // A node that offers them, on the same session: its server is seen, so the graph is up.
    let _loud = Node::new(&a, "loud", NodeOptions::default()).await.unwrap();
    let caller = Node::new(&b, "caller", NodeOptions::default()).await.unwrap();
    let _seen = client::<ListParameters>(&caller, "/loud", "list_parameters").await;
    let silent = caller
        .create_client::<ListParameters>("/quiet/list_parameters")
        .await
        .unwrap();
    assert!(!silent.wait_for_service_async(Duration::from_millis(500)).await);
    let err = silent
        .call_async(&ListParameters_Request::default(), DEADLINE)
        .await
        .unwrap_err();
    assert!(matches!(err, CallError::NoServer { .. }), "{err}");
    assert_eq!(quiet.get_parameter("rate"), Ok(1.0.into()));
}

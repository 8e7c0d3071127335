use super::*;
use crate::msgs::Message;

fn ty(name: &str) -> MessageType {
    MessageType::shipped(name).unwrap()
}

#[test]
fn defaults_honour_the_definitions() {
    let q = ty("geometry_msgs/msg/Quaternion").default_value();
    assert_eq!(q.get("w"), Some(&Value::Float(1.0)));
    assert_eq!(q.get("x"), Some(&Value::Float(0.0)));
    // Every shipped message's default encodes to what the generated code writes for the same
    // bytes read back.
    for def in InterfaceSet::shipped().messages() {
        let name = def.name.to_string();
        let t = ty(&name);
        let cdr = t.encode(&t.default_value()).unwrap();
        let again = crate::msgs::reencode(&name, &cdr, false)
            .expect("generated")
            .unwrap();
        assert_eq!(again, cdr, "{name}");
        assert_eq!(t.decode(&cdr).unwrap(), t.default_value(), "{name}");
    }
}

#[test]
fn default_bytes_equal_the_generated_default() {
    use crate::msgs::geometry_msgs::msg::{Pose, Quaternion};
    assert_eq!(
        ty("geometry_msgs/msg/Pose")
            .encode(&ty("geometry_msgs/msg/Pose").default_value())
            .unwrap(),
        Pose::default().to_cdr()
    );
    assert_eq!(
        ty("geometry_msgs/Quaternion")
            .encode(&ty("geometry_msgs/Quaternion").default_value())
            .unwrap(),
        Quaternion::default().to_cdr()
    );
}

#[test]
fn twist_from_flow_yaml_is_the_generated_twist() {
    use crate::msgs::geometry_msgs::msg::{Twist, Vector3};
    let t = ty("geometry_msgs/msg/Twist");
    let value = t.from_yaml("{linear: {x: 0.5}, angular: {z: -1}}").unwrap();
    let expected = Twist {
        linear: Vector3 {
            x: 0.5,
            ..Default::default()
        },
        angular: Vector3 {
            z: -1.0,
            ..Default::default()
        },
    };
    assert_eq!(t.encode(&value).unwrap(), expected.to_cdr());
    let block = t.from_yaml("linear:\n  x: 0.5\nangular:\n  z: -1.0\n").unwrap();
    assert_eq!(block, value);
    assert_eq!(
        t.from_json(r#"{"linear": {"x": 0.5}, "angular": {"z": -1}}"#)
            .unwrap(),
        value
    );
    assert_eq!(t.from_yaml("").unwrap(), t.default_value());
    assert_eq!(t.from_yaml("{}").unwrap(), t.default_value());
}

#[test]
fn bad_input_names_the_field_and_what_was_expected() {
    let cases = [
        (
            "geometry_msgs/msg/Twist",
            "{linear: {x: abc}}",
            "linear.x: expected float64, got 'abc'",
        ),
        (
            "geometry_msgs/msg/Twist",
            "{linear: {w: 1}}",
            "linear.w: unknown field (geometry_msgs/Vector3 has x, y, z)",
        ),
        (
            "geometry_msgs/msg/Twist",
            "{linear: 5}",
            "linear: expected a mapping of geometry_msgs/Vector3's fields, got 5",
        ),
        (
            "std_msgs/msg/UInt8",
            "{data: 256}",
            "data: 256 is out of range for uint8 (0..=255)",
        ),
        (
            "std_msgs/msg/Int8",
            "{data: -129}",
            "data: -129 is out of range for int8 (-128..=127)",
        ),
        (
            "std_msgs/msg/Int32",
            "{data: 1.5}",
            "data: expected int32, got 1.5",
        ),
        ("std_msgs/msg/Bool", "{data: 1}", "data: expected bool, got 1"),
        (
            "geometry_msgs/msg/PoseWithCovariance",
            "{covariance: [1, 2]}",
            "covariance: float64[36] needs exactly 36 elements, got 2",
        ),
        (
            "sensor_msgs/msg/PointCloud2",
            "{fields: [{name: x, datatype: 7}, {name: y, offset: -4}]}",
            "fields[1].offset: -4 is out of range for uint32 (0..=4294967295)",
        ),
        (
            "std_msgs/msg/String",
            "{data: [1]}",
            "data: expected string, got a list",
        ),
        (
            "std_msgs/msg/Empty",
            "{x: 1}",
            "x: unknown field (std_msgs/Empty has no fields)",
        ),
    ];
    for (name, yaml, message) in cases {
        let err = ty(name).from_yaml(yaml).unwrap_err();
        assert!(err.is_bad_input());
        assert_eq!(err.to_string(), message, "{name} {yaml}");
    }
    let err = ty("std_msgs/msg/String").from_yaml("{data: [1").unwrap_err();
    assert!(matches!(err, DynamicError::Syntax { .. }), "{err}");
    assert!(ty("std_msgs/msg/String").from_json("{").is_err());
    assert!(matches!(
        MessageType::shipped("nope"),
        Err(DynamicError::BadTypeName { .. })
    ));
    assert!(matches!(
        MessageType::shipped("std_msgs/msg/Nope"),
        Err(DynamicError::UnknownType { .. })
    ));
}

#[test]
fn strings_numbers_and_shortcuts_follow_ros2_topic_pub() {
    let s = ty("std_msgs/msg/String");
    assert_eq!(
        s.from_yaml("{data: 5}").unwrap().get("data"),
        Some(&Value::String("5".into()))
    );
    assert_eq!(
        s.from_yaml("data: 'hi'").unwrap().get("data"),
        Some(&Value::String("hi".into()))
    );
    let h = ty("std_msgs/msg/Header")
        .from_yaml("{stamp: now, frame_id: map}")
        .unwrap();
    assert!(h.get_path("stamp.sec").unwrap().as_i64().unwrap() > 1_600_000_000);
    let p = ty("geometry_msgs/msg/PointStamped")
        .from_yaml("{header: auto}")
        .unwrap();
    assert!(p.get_path("header.stamp.sec").unwrap().as_i64().unwrap() > 1_600_000_000);
    let f = ty("std_msgs/msg/Float32").from_yaml("{data: 0.1}").unwrap();
    assert_eq!(f.get("data"), Some(&Value::Float(f64::from(0.1f32))));
    assert!(ty("std_msgs/msg/Float32").from_yaml("{data: 1e39}").is_err());
    let bytes = ty("std_msgs/msg/UInt8MultiArray")
        .from_yaml("{data: [1, 2, 255]}")
        .unwrap();
    assert_eq!(bytes.get("data"), Some(&Value::Bytes(vec![1, 2, 255])));
}

#[test]
fn yaml_output_is_ros2_topic_echo_style() {
    let t = ty("geometry_msgs/msg/Twist");
    let v = t.from_yaml("{linear: {x: 0.5}}").unwrap();
    assert_eq!(
        v.to_yaml(&YamlOptions::default()),
        "linear:\n  x: 0.5\n  y: 0.0\n  z: 0.0\nangular:\n  x: 0.0\n  y: 0.0\n  z: 0.0\n"
    );
    let s = ty("std_msgs/msg/String");
    assert_eq!(
        s.from_yaml("{data: '5'}")
            .unwrap()
            .to_yaml(&YamlOptions::default()),
        "data: '5'\n"
    );
    assert_eq!(s.default_value().to_yaml(&YamlOptions::default()), "data: ''\n");
    assert_eq!(
        ty("std_msgs/msg/Empty")
            .default_value()
            .to_yaml(&YamlOptions::default()),
        "{}\n"
    );
    let tf = ty("tf2_msgs/msg/TFMessage")
        .from_yaml("{transforms: [{header: {frame_id: odom}, child_frame_id: base_link}]}")
        .unwrap();
    assert_eq!(
        tf.to_yaml(&YamlOptions::default()),
        "transforms:\n- header:\n    stamp:\n      sec: 0\n      nanosec: 0\n    frame_id: odom\n  \
         child_frame_id: base_link\n  transform:\n    translation:\n      x: 0.0\n      y: 0.0\n      \
         z: 0.0\n    rotation:\n      x: 0.0\n      y: 0.0\n      z: 0.0\n      w: 1.0\n"
    );
    assert_eq!(
        ty("tf2_msgs/msg/TFMessage")
            .default_value()
            .to_yaml(&YamlOptions::default()),
        "transforms: []\n"
    );
    let f = ty("std_msgs/msg/Float64").from_yaml("{data: .nan}").unwrap();
    assert_eq!(f.to_yaml(&YamlOptions::default()), "data: .nan\n");
    let scan = ty("std_msgs/msg/UInt8MultiArray");
    let long = format!("{{data: [{}]}}", ["7"; 130].join(", "));
    let v = scan.from_yaml(&long).unwrap();
    let text = v.to_yaml(&YamlOptions::default());
    assert!(text.ends_with("- 7\n- '...'\n"), "{text}");
    assert_eq!(text.matches("- 7\n").count(), 128);
    assert_eq!(
        v.to_yaml(&YamlOptions { truncate: None })
            .matches("- 7\n")
            .count(),
        130
    );
    assert_eq!(
        v.to_json(),
        format!(
            r#"{{"layout":{{"dim":[],"data_offset":0}},"data":[{}]}}"#,
            ["7"; 130].join(",")
        )
    );
    assert_eq!(v.get_path("layout.data_offset"), Some(&Value::UInt(0)));
}

#[test]
fn malformed_payloads_are_errors_never_panics() {
    use crate::msgs::sensor_msgs::msg::{PointCloud2, PointField};
    let cloud = PointCloud2 {
        fields: vec![PointField {
            name: "x".into(),
            offset: 0,
            datatype: 7,
            count: 1,
        }],
        data: vec![1; 64],
        ..Default::default()
    };
    let bytes = cloud.to_cdr();
    let t = ty("sensor_msgs/msg/PointCloud2");
    assert_eq!(t.encode(&t.decode(&bytes).unwrap()).unwrap(), bytes);
    for len in 0..bytes.len() {
        assert!(t.decode(&bytes[..len]).is_err(), "prefix of {len} bytes");
    }
    // A sequence count far beyond the buffer is refused before allocating.
    let mut huge = bytes.clone();
    // header (4) + stamp (8) + frame_id len (4) + "\0" (1) + pad (3) + height + width = 28: fields count.
    huge[28..32].copy_from_slice(&u32::MAX.to_le_bytes());
    let err = t.decode(&huge).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("fields: this field claims 4294967295 elements"),
        "{err}"
    );
    let bad_bool = [0, 1, 0, 0, 7];
    assert_eq!(
        ty("std_msgs/msg/Bool").decode(&bad_bool).unwrap_err().to_string(),
        "data: this field: invalid bool byte 7"
    );
}

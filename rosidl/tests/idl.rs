//! A type defined in `.idl` (as rosidl_adapter writes it) has the same description, hash and
//! derived types as the same type defined in `.msg` / `.srv`.

use zshm_rosidl::{InterfaceSet, TypeName};

fn shipped_text(name: &str) -> String {
    InterfaceSet::shipped()
        .message_text(&TypeName::parse(name).unwrap())
        .unwrap()
}

#[test]
fn an_idl_message_hashes_like_its_msg() {
    let mut set = InterfaceSet::new();
    for name in ["Point", "Quaternion", "Pose"] {
        set.add_file(
            "geometry_msgs",
            &format!("msg/{name}.msg"),
            &shipped_text(&format!("geometry_msgs/msg/{name}")),
        )
        .unwrap();
    }
    let idl = r#"
#include "geometry_msgs/msg/Pose.idl"
module geometry_msgs {
  module msg {
    typedef double double__36[36];
    @verbatim (language="comment", text=
      "A pose with its uncertainty.")
    struct PoseWithCovariance {
      geometry_msgs::msg::Pose pose;
      double__36 covariance;
    };
  };
};
"#;
    set.add_file("geometry_msgs", "msg/PoseWithCovariance.idl", idl)
        .unwrap();
    set.check().unwrap();
    let name = TypeName::parse("geometry_msgs/msg/PoseWithCovariance").unwrap();
    assert_eq!(
        set.type_hash(&name).unwrap(),
        InterfaceSet::shipped().type_hash(&name).unwrap()
    );
}

#[test]
fn an_idl_service_derives_and_hashes_like_its_srv() {
    let mut set = InterfaceSet::new();
    set.add_file(
        "builtin_interfaces",
        "msg/Time.msg",
        &shipped_text("builtin_interfaces/msg/Time"),
    )
    .unwrap();
    set.add_file(
        "service_msgs",
        "msg/ServiceEventInfo.msg",
        &shipped_text("service_msgs/msg/ServiceEventInfo"),
    )
    .unwrap();
    let idl = r#"
module example_interfaces {
  module srv {
    struct AddTwoInts_Request {
      int64 a;
      int64 b;
    };
    struct AddTwoInts_Response {
      int64 sum;
    };
  };
};
"#;
    set.add_file("example_interfaces", "srv/AddTwoInts.idl", idl)
        .unwrap();
    set.check().unwrap();
    let name = TypeName::parse("example_interfaces/srv/AddTwoInts").unwrap();
    assert_eq!(
        set.type_hash(&name).unwrap(),
        "RIHS01_e118de6bf5eeb66a2491b5bda11202e7b68f198d6f67922cf30364858239c81a"
    );
    assert!(
        set.message(&TypeName::parse("example_interfaces/srv/AddTwoInts_Event").unwrap())
            .is_some()
    );
}

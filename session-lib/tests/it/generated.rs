//! The generated types against golden payloads decoded by hand from rosbags (research note §1),
//! and what the definitions say: defaults, constants, fixed and bounded arrays, wstrings, empty
//! messages, services and actions.

use zshm::msgs::action_msgs::srv::CancelGoal;
use zshm::msgs::example_interfaces::action::{
    Fibonacci, Fibonacci_GetResult_Response, Fibonacci_Goal, Fibonacci_Result, Fibonacci_SendGoal_Request,
};
use zshm::msgs::example_interfaces::msg::WString;
use zshm::msgs::example_interfaces::srv::{AddTwoInts, AddTwoInts_Request};
use zshm::msgs::geometry_msgs::msg::Quaternion;
use zshm::msgs::rcl_interfaces::msg::{Parameter, ParameterType, ParameterValue};
use zshm::msgs::rcl_interfaces::srv::SetParameters_Request;
use zshm::msgs::sensor_msgs::msg::{CompressedImage, NavSatFix, NavSatStatus, PointField};
use zshm::msgs::std_msgs::msg::Empty;
use zshm::msgs::unique_identifier_msgs::msg::UUID;
use zshm::msgs::{ActionType, LoanableMessage, Message, ServiceType};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn service_and_action_payloads_match_the_golden_bytes() {
    let request = AddTwoInts_Request { a: 2, b: 3 };
    assert_eq!(
        hex(&request.to_cdr()),
        "000100000200000000000000".to_owned() + "0300000000000000"
    );

    let send_goal = Fibonacci_SendGoal_Request {
        goal_id: UUID {
            uuid: std::array::from_fn(|i| i as u8),
        },
        goal: Fibonacci_Goal { order: 5 },
    };
    assert_eq!(
        hex(&send_goal.to_cdr()),
        "00010000000102030405060708090a0b0c0d0e0f05000000"
    );

    let result = Fibonacci_GetResult_Response {
        status: 4,
        result: Fibonacci_Result {
            sequence: vec![0, 1, 1, 2, 3, 5],
        },
    };
    let bytes = result.to_cdr();
    assert_eq!(bytes.len(), 36);
    assert_eq!(hex(&bytes[..12]), "000100000400000006000000");
    assert_eq!(Fibonacci_GetResult_Response::from_cdr(&bytes).unwrap(), result);

    let set = SetParameters_Request {
        parameters: vec![Parameter {
            name: "foo".into(),
            value: ParameterValue {
                r#type: ParameterType::PARAMETER_INTEGER,
                integer_value: 5,
                ..Default::default()
            },
        }],
    };
    let bytes = set.to_cdr();
    assert_eq!(bytes.len(), 64);
    assert_eq!(i64::from_le_bytes(bytes[4 + 16..4 + 24].try_into().unwrap()), 5);
}

#[test]
fn service_and_action_types_carry_their_names_and_hashes() {
    assert_eq!(AddTwoInts::TYPE.name, "example_interfaces/srv/AddTwoInts");
    assert_eq!(
        AddTwoInts::TYPE.dds_name,
        "example_interfaces::srv::dds_::AddTwoInts_"
    );
    assert_eq!(
        AddTwoInts::TYPE.hash,
        "RIHS01_e118de6bf5eeb66a2491b5bda11202e7b68f198d6f67922cf30364858239c81a"
    );
    assert_eq!(
        <AddTwoInts as ServiceType>::Request::TYPE.hash,
        "RIHS01_000c5fd92d6b2e1a05949348f584d6d652adea1e92d691792011ac2273508302"
    );
    assert_eq!(
        Fibonacci::TYPE.hash,
        "RIHS01_9508051da1ea4658de144b09bd0690ff3de52104683d847aed764d2915906f51"
    );
    assert_eq!(
        <<Fibonacci as ActionType>::SendGoal as ServiceType>::TYPE.hash,
        "RIHS01_d1a57fb2a4afe8c21e34fb10db206f16ce6729b28531141472df92277c55b557"
    );
    assert_eq!(
        CancelGoal::TYPE.hash,
        "RIHS01_573d8b0a534451d7bc2ac8c5ffde8ac14b8593b7001175d0cd6516dcbeb8689a"
    );
}

#[test]
fn defaults_and_constants_come_from_the_definitions() {
    let q = Quaternion::default();
    assert_eq!((q.x, q.y, q.z, q.w), (0.0, 0.0, 0.0, 1.0));
    assert_eq!(NavSatStatus::default().status, -2);
    assert_eq!(NavSatStatus::STATUS_NO_FIX, -1);
    assert_eq!(PointField::FLOAT32, 7);
    assert_eq!(NavSatFix::default().position_covariance, [0.0; 9]);
}

#[test]
fn an_empty_message_carries_rosidl_s_placeholder_byte() {
    assert_eq!(Empty {}.to_cdr(), [0, 1, 0, 0, 0]);
    assert_eq!(Empty::from_cdr(&[0, 1, 0, 0, 0]).unwrap(), Empty {});
}

#[test]
fn a_wstring_is_utf16_units_in_32_bits() {
    let text = WString {
        data: "aé😀".into()
    };
    let bytes = text.to_cdr();
    // 4 UTF-16 units (the emoji is a surrogate pair), each written as a u32.
    assert_eq!(
        hex(&bytes),
        "0001000004000000".to_owned() + "61000000" + "e9000000" + "3dd80000" + "00de0000"
    );
    assert_eq!(WString::from_cdr(&bytes).unwrap(), text);
}

#[test]
fn a_message_with_one_byte_data_field_can_be_loaned() {
    let image = CompressedImage {
        format: "jpeg".into(),
        data: vec![9; 10],
        ..Default::default()
    };
    let mut with_data = image.to_cdr();
    let shape_len = image.shape_len(10);
    assert_eq!(shape_len, with_data.len());
    let mut shaped = vec![0; shape_len];
    let offset = {
        let mut writer = zshm::cdr::CdrWriter::new(&mut shaped);
        image.write_shape(&mut writer, 10)
    };
    shaped[offset..offset + 10].fill(9);
    assert_eq!(shaped, std::mem::take(&mut with_data));
}

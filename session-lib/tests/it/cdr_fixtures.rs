//! Byte-exact CDR against fixtures produced by an independent implementation (rosbags 0.11.9,
//! see `tests/data/cdr/README.md`): zshm must write exactly those bytes, and read them back to
//! the same message, owned and as a view.

use serde_json::Value;
use zshm::cdr::CdrWriter;
use zshm::msgs::builtin_interfaces::msg::Time;
use zshm::msgs::sensor_msgs::msg::{Image, PointCloud2, PointField};
use zshm::msgs::std_msgs::msg::{Header, String as StringMsg};
use zshm::msgs::{LoanableMessage, Message};

use crate::data;

fn fixtures() -> Vec<Value> {
    let text = std::fs::read_to_string(data("cdr/fixtures.json")).unwrap();
    serde_json::from_str::<Value>(&text)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn bytes_of(fixture: &Value) -> Vec<u8> {
    let bytes = std::fs::read(data(&format!("cdr/{}", fixture["file"].as_str().unwrap()))).unwrap();
    assert_eq!(bytes.len() as u64, fixture["len"].as_u64().unwrap());
    bytes
}

fn u32_of(v: &Value) -> u32 {
    v.as_u64().unwrap().try_into().unwrap()
}

fn time(v: &Value) -> Time {
    Time {
        sec: v["sec"].as_i64().unwrap() as i32,
        nanosec: u32_of(&v["nanosec"]),
    }
}

fn header(v: &Value) -> Header {
    Header {
        stamp: time(&v["stamp"]),
        frame_id: v["frame_id"].as_str().unwrap().into(),
    }
}

fn point_field(v: &Value) -> PointField {
    PointField {
        name: v["name"].as_str().unwrap().into(),
        offset: u32_of(&v["offset"]),
        datatype: u32_of(&v["datatype"]) as u8,
        count: u32_of(&v["count"]),
    }
}

/// `data` is either `{"data_hex": "..."}` or `{"data_formula": ..., "data_len": N}` with byte
/// i = (i * 31 + 7) % 251.
fn data_bytes(v: &Value) -> Vec<u8> {
    if let Some(hex) = v["data_hex"].as_str() {
        return (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect();
    }
    assert_eq!(v["data_formula"], "byte i = (i * 31 + 7) % 251");
    (0..v["data_len"].as_u64().unwrap())
        .map(|i| ((i * 31 + 7) % 251) as u8)
        .collect()
}

fn cloud(v: &Value) -> PointCloud2 {
    PointCloud2 {
        header: header(&v["header"]),
        height: u32_of(&v["height"]),
        width: u32_of(&v["width"]),
        fields: v["fields"].as_array().unwrap().iter().map(point_field).collect(),
        is_bigendian: v["is_bigendian"].as_bool().unwrap(),
        point_step: u32_of(&v["point_step"]),
        row_step: u32_of(&v["row_step"]),
        data: data_bytes(&v["data"]),
        is_dense: v["is_dense"].as_bool().unwrap(),
    }
}

fn image(v: &Value) -> Image {
    Image {
        header: header(&v["header"]),
        height: u32_of(&v["height"]),
        width: u32_of(&v["width"]),
        encoding: v["encoding"].as_str().unwrap().into(),
        is_bigendian: u32_of(&v["is_bigendian"]) as u8,
        step: u32_of(&v["step"]),
        data: data_bytes(&v["data"]),
    }
}

/// Serializes `msg`, compares with the fixture, and decodes the fixture back.
fn check<T: Message + PartialEq + std::fmt::Debug>(name: &str, msg: T, bytes: &[u8]) {
    assert_eq!(msg.cdr_len(), bytes.len(), "{name}: size");
    assert!(
        msg.to_cdr() == bytes,
        "{name}: bytes differ from the rosbags fixture"
    );
    assert_eq!(T::from_cdr(bytes).unwrap(), msg, "{name}: decode");
    T::view_cdr(bytes).unwrap();
}

#[test]
fn every_fixture_is_reproduced_byte_for_byte() {
    let all = fixtures();
    assert!(all.len() >= 15, "fixtures missing");
    for fixture in all {
        let name = fixture["name"].as_str().unwrap();
        let bytes = bytes_of(&fixture);
        let message = &fixture["message"];
        match fixture["type"].as_str().unwrap() {
            "builtin_interfaces/msg/Time" => check(name, time(message), &bytes),
            "std_msgs/msg/Header" => check(name, header(message), &bytes),
            "std_msgs/msg/String" => check(
                name,
                StringMsg {
                    data: message["data"].as_str().unwrap().into(),
                },
                &bytes,
            ),
            "sensor_msgs/msg/PointField" => check(name, point_field(message), &bytes),
            "sensor_msgs/msg/PointCloud2" => check(name, cloud(message), &bytes),
            "sensor_msgs/msg/Image" => check(name, image(message), &bytes),
            other => panic!("{name}: unexpected type {other}"),
        }
    }
}

#[test]
fn type_names_and_hashes_match_rosbags() {
    let text = std::fs::read_to_string(data("cdr/type_hashes.json")).unwrap();
    let expected: Vec<Value> = serde_json::from_str(&text).unwrap();
    let ours = [
        Time::TYPE,
        Header::TYPE,
        StringMsg::TYPE,
        PointField::TYPE,
        PointCloud2::TYPE,
        Image::TYPE,
    ];
    assert_eq!(expected.len(), ours.len());
    for entry in expected {
        let info = ours
            .iter()
            .find(|t| t.name == entry["type"])
            .expect("type known to zshm");
        assert_eq!(info.dds_name, entry["dds_type_name"]);
        assert_eq!(info.hash, entry["rihs01"]);
    }
}

#[test]
fn the_large_cloud_view_borrows_its_data() {
    let fixture = fixtures()
        .into_iter()
        .find(|f| f["name"] == "pointcloud2_large")
        .unwrap();
    let bytes = bytes_of(&fixture);
    let view = PointCloud2::view_cdr(&bytes).unwrap();
    let expected = cloud(&fixture["message"]);
    assert_eq!(view.data, expected.data.as_slice());
    assert_eq!(view.header.frame_id, "camera_depth_optical_frame");
    assert_eq!(
        view.fields.iter().map(|f| f.name).collect::<Vec<_>>(),
        ["x", "y", "z", "rgb"]
    );
    let range = bytes.as_ptr_range();
    assert!(
        range.contains(&view.data.as_ptr()),
        "data points into the received buffer"
    );
}

#[test]
fn building_in_place_gives_the_same_bytes() {
    for name in ["pointcloud2_large", "pointcloud2_one_point", "pointcloud2_empty"] {
        let fixture = fixtures().into_iter().find(|f| f["name"] == name).unwrap();
        let full = cloud(&fixture["message"]);
        let shape = PointCloud2 {
            data: Vec::new(),
            ..full.clone()
        };
        let mut buf = vec![0xEE; shape.shape_len(full.data.len())];
        let start = shape.write_shape(&mut CdrWriter::new(&mut buf), full.data.len());
        buf[start..start + full.data.len()].copy_from_slice(&full.data);
        assert!(buf == bytes_of(&fixture), "{name}");
    }
    for name in ["image_small", "image_large"] {
        let fixture = fixtures().into_iter().find(|f| f["name"] == name).unwrap();
        let full = image(&fixture["message"]);
        let shape = Image {
            data: Vec::new(),
            ..full.clone()
        };
        let mut buf = vec![0xEE; shape.shape_len(full.data.len())];
        let start = shape.write_shape(&mut CdrWriter::new(&mut buf), full.data.len());
        buf[start..].copy_from_slice(&full.data);
        assert!(buf == bytes_of(&fixture), "{name}");
    }
}

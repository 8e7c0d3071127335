//! Malformed input from the network is rejected without panics or giant allocations: random
//! bytes, truncations and bit flips of valid payloads, attachments and tokens.

use proptest::prelude::*;
use zshm::msgs::Message;
use zshm::msgs::sensor_msgs::msg::{Image, PointCloud2, PointField};
use zshm::msgs::std_msgs::msg::{Header, String as StringMsg};
use zshm::ros::attachment::Attachment;
use zshm::ros::liveliness::parse_token;

fn sample_cloud() -> Vec<u8> {
    PointCloud2 {
        header: Header {
            frame_id: "map".into(),
            ..Default::default()
        },
        height: 1,
        width: 4,
        fields: vec![
            PointField::new("x", 0, PointField::FLOAT32),
            PointField::new("rgb", 4, PointField::FLOAT32),
        ],
        point_step: 8,
        row_step: 32,
        data: (0..32).collect(),
        is_dense: true,
        ..Default::default()
    }
    .to_cdr()
}

/// Decodes with every entry point; the only acceptable outcomes are Ok or Err.
fn decode_everything(bytes: &[u8]) {
    let _ = PointCloud2::view_cdr(bytes);
    let _ = PointCloud2::from_cdr(bytes);
    let _ = Image::view_cdr(bytes);
    let _ = Image::from_cdr(bytes);
    let _ = Header::from_cdr(bytes);
    let _ = StringMsg::from_cdr(bytes);
    let _ = Attachment::decode(bytes);
}

#[test]
fn every_truncation_of_a_valid_cloud_is_an_error() {
    let bytes = sample_cloud();
    PointCloud2::view_cdr(&bytes).unwrap();
    for len in 0..bytes.len() {
        assert!(
            PointCloud2::view_cdr(&bytes[..len]).is_err(),
            "truncated to {len}"
        );
    }
}

#[test]
fn lengths_beyond_the_buffer_are_refused_before_allocating() {
    let mut bytes = sample_cloud();
    // The field count sits right after height and width (header: 4 + 8 + 8 bytes).
    let count_at = 4 + 8 + 4 + 4 + 4 + 4;
    assert_eq!(bytes[count_at..count_at + 4], [2, 0, 0, 0]);
    bytes[count_at..count_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    let err = PointCloud2::view_cdr(&bytes).unwrap_err();
    assert!(err.to_string().contains("fields claims 4294967295"), "{err}");
}

#[test]
fn wrong_encapsulation_is_refused() {
    let mut bytes = sample_cloud();
    bytes[1] = 0x03; // PL_CDR_LE
    assert!(
        PointCloud2::view_cdr(&bytes)
            .unwrap_err()
            .to_string()
            .contains("encapsulation")
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        decode_everything(&bytes);
    }

    #[test]
    fn random_bytes_behind_a_valid_header_never_panic(tail in proptest::collection::vec(any::<u8>(), 0..512)) {
        let mut bytes = vec![0, 1, 0, 0];
        bytes.extend(tail);
        decode_everything(&bytes);
    }

    #[test]
    fn bit_flips_in_a_valid_cloud_never_panic(flips in proptest::collection::vec((0usize..1000, 0u8..8), 1..8)) {
        let mut bytes = sample_cloud();
        for (at, bit) in flips {
            let at = at % bytes.len();
            bytes[at] ^= 1 << bit;
        }
        decode_everything(&bytes);
    }

    #[test]
    fn random_tokens_never_panic(token in "(@ros2_lv)?(/[%a-zA-Z0-9:_,]{0,12}){0,16}") {
        let _ = parse_token(&token);
    }
}

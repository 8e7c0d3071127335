//! Publishes one point cloud built in place in shared memory and reads it back
//! through a borrowed view: the zero-copy path of zshm in a few lines (the example of docs/library.md).
//!
//! Run it next to a router: `cargo run --release --example loan_pointcloud` (after
//! `zshm router` in another terminal).

use std::time::Duration;

use zshm::msgs::builtin_interfaces::msg::Time;
use zshm::msgs::sensor_msgs::msg::{PointCloud2, PointField};
use zshm::msgs::std_msgs::msg::Header;
use zshm::ros::{Node, NodeOptions, qos::QosProfile};

/// A depth camera's frame: 640 × 480 points of x, y, z (3 × f32).
const WIDTH: u32 = 640;
const HEIGHT: u32 = 480;
const POINT_STEP: u32 = 12;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let session = zshm::Session::builder().open().await?; // same lookup order as rmw_zenoh
    println!("shared memory: {}", session.shm_status()); // on, or off and why
    let node = Node::new(&session, "camera", NodeOptions::default()).await?;
    let points = node
        .create_publisher::<PointCloud2>("/camera/points", QosProfile::keep_last(10))
        .await?;

    let (tx, rx) = std::sync::mpsc::channel();
    let _sub = node
        .create_subscription::<PointCloud2>("/camera/points", QosProfile::keep_last(10), move |msg| {
            let cloud = msg.view(); // header, fields, data: &[u8] in SHM
            let _ = tx.send((cloud.width * cloud.height, msg.is_shm()));
        })
        .await?;

    // Everything of the cloud but its points; the points are written in place, in /dev/shm.
    let shape = PointCloud2 {
        header: Header {
            frame_id: "camera_depth_optical_frame".into(),
            ..Default::default()
        },
        height: HEIGHT,
        width: WIDTH,
        fields: vec![
            PointField::new("x", 0, PointField::FLOAT32),
            PointField::new("y", 4, PointField::FLOAT32),
            PointField::new("z", 8, PointField::FLOAT32),
        ],
        is_bigendian: false,
        point_step: POINT_STEP,
        row_step: WIDTH * POINT_STEP,
        data: Vec::new(),
        is_dense: true,
    };
    let mut loan = points.loan(&shape, (POINT_STEP * WIDTH * HEIGHT) as usize).await;
    for (i, point) in loan.data_mut().chunks_exact_mut(POINT_STEP as usize).enumerate() {
        let (column, row) = ((i as u32 % WIDTH) as f32, (i as u32 / WIDTH) as f32);
        let xyz = [column / 100.0, row / 100.0, 1.5]; // a flat wall 1.5 m away
        for (bytes, value) in point.chunks_exact_mut(4).zip(xyz) {
            bytes.copy_from_slice(&value.to_le_bytes());
        }
    }
    loan.set_stamp(Time::now());
    points.publish_loan(loan).await?; // no copy

    let (count, shm) = rx.recv_timeout(Duration::from_secs(10))?;
    println!("{count} points received, through shared memory: {shm}");
    Ok(())
}

//! Publishes one simulated point cloud built in place in shared memory and reads it back
//! through a borrowed view: the zero-copy path of zshm in a few lines (the example of docs/library.md).
//!
//! Run it next to a router: `cargo run --release --example loan_pointcloud` (after
//! `zshm router` in another terminal).

use std::time::Duration;

use zshm::msgs::builtin_interfaces::msg::Time;
use zshm::msgs::sensor_msgs::msg::PointCloud2;
use zshm::ros::{Node, NodeOptions, qos::QosProfile};
use zshm::tools::sim_camera::SimCamera;

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

    let camera = SimCamera::default();
    let shape = camera.cloud_shape("camera_depth_optical_frame");
    let mut loan = points.loan(&shape, camera.cloud_data_len()).await;
    camera.fill_cloud(0, loan.data_mut()); // points written in place, in /dev/shm
    loan.set_stamp(Time::now());
    points.publish_loan(loan).await?; // no copy

    let (count, shm) = rx.recv_timeout(Duration::from_secs(10))?;
    println!("{count} points received, through shared memory: {shm}");
    Ok(())
}

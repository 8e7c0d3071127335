//! Real ROS 2 Jazzy nodes on ROS 2's default middleware through the bridge: rclpy 7.1.6 on
//! rmw_fastrtps_cpp (Fast DDS 2.14.5) from the pinned wheels `tools/ros2/setup.sh` installs,
//! written as ordinary rclpy code (`router/tests/interop/rclpy_peer.py`), with Fast DDS's default
//! profile (shared memory and UDPv4). Every process runs in the test's network namespace and
//! private /dev/shm ([`Net::for_fast_dds`]), so Fast DDS's segments and lock files go with it.
//!
//! * [`topics`]: both ways, byte-exact and in order, reliable and best effort, on loopback only
//!   and on a veth pair; 7 MB clouds from and into zenoh's shared memory.
//! * [`services`]: calls both ways in rmw_fastrtps_cpp's framing, parameters and actions.
//! * [`graph`]: each side sees the other's nodes, endpoints and QoS.

mod graph;
mod services;
mod topics;

use super::*;

/// The Python of the Jazzy prefix, which `tools/test.sh` exports as `ZSHM_ROS2`.
fn ros2_python() -> String {
    let prefix = std::env::var("ZSHM_ROS2").unwrap_or_else(|_| {
        panic!(
            "ZSHM_ROS2 is not set: these tests drive real ROS 2 Jazzy nodes; run tools/test.sh, \
             which installs them (tools/ros2/setup.sh) and exports the prefix"
        )
    });
    let python = format!("{prefix}/bin/python");
    assert!(
        std::path::Path::new(&python).exists(),
        "no Python at {python}: run tools/ros2/setup.sh (tools/test.sh does)"
    );
    python
}

impl Net {
    /// A real rclpy node (`rclpy_peer.py <args>`) in the namespace.
    fn rclpy(&self, name: &str, args: &[&str]) -> Spawn {
        let script = repo_path("router/tests/interop/rclpy_peer.py");
        let mut all = vec![script.as_str()];
        all.extend_from_slice(args);
        self.program(name, &ros2_python(), &all)
    }
}

/// The `heard <hex>` lines of an rclpy listener, as hex.
fn rclpy_heard(listener: &Proc) -> Vec<String> {
    listener
        .stdout()
        .iter()
        .filter_map(|l| l.strip_prefix("heard "))
        .filter(|hex| !hex.ends_with(" messages"))
        .map(str::to_owned)
        .collect()
}

//! End-to-end tests of the `zshm` binary: real router and node processes on loopback, real
//! /dev/shm. One test binary, so zenoh is linked once.

mod support;

// `zshm bag record | info | play` against the independent rosbags package.
mod bag;
// Exit codes and messages for every kind of bad input.
mod bad_input;
// `zshm bench --quick` and `--sweeps topics`: the report files exist and are well-formed.
mod bench;
// The camera simulator and the latency probe.
mod camera;
// `zshm bridge` against Cyclone DDS (Python), in network namespaces.
mod bridge;
// An independent rmw_zenoh peer (Python, eclipse-zenoh) against zshm's talker and listener.
mod interop;
// Real rclpy nodes on the real rmw_zenoh_cpp (Jazzy) with zshm: topics, calls, shared memory.
mod rmw_zenoh;
// Services: zshm's and the Python peer's, both ways, `zshm service` and the demo nodes.
mod services;
// Actions: the Fibonacci demos, `zshm action list / info / send_goal`, exit codes.
mod action;
// `zshm param` against a running camera, parameters from --ros-args, the Python peer reading them.
mod param;
// The Prometheus exporter, promtool, and the dashboard's queries on a real Prometheus.
mod metrics;
// Two hosts in network namespaces: a robot and a control station over mutual TLS.
mod hosts;
// Authentication, mutual TLS, QUIC and access control with the secure example configs.
mod security;
// `zshm router`: start-up lines, signals, reference configs.
mod router;
// ROS nodes between processes: talker, listener, topics, nodes.
mod ros;
// `zshm topic list / info / hz / bw`, like `ros2 topic`.
mod topic;
// `zshm topic echo` / `pub` for any type, against the Python rmw_zenoh peer and rosbags.
mod echo_pub;
// `zshm interface list / show / package / packages`, like `ros2 interface`.
mod interface;
// The workshop experience: demo, doctor, launch, systemd and compose files.
mod workshop;
// The data path: SHM on, TCP configs, SHM impossible, heap fallback.
mod transport;
// The same-host lane between processes: another user, killed processes, shm-clean, doctor.
mod lane;
// The HTTP server under hostile clients, and the status page in a real browser.
mod web;
// `zshm foxglove` against the official Foxglove protocol client (Node.js) and the Python peer.
mod foxglove;
// The fault matrix of docs/RELIABILITY.md: crashes, stalls, full memory, signals, the soak.
mod faults;

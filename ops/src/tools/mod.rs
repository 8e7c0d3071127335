//! What the `zshm` program and the benchmarks need beside the node API: a simulated camera, a
//! verifiable data pattern, latency statistics, CPU and memory use, the verdict of a soak run,
//! throw-away certificates for the secure example configs, and the machine checks of
//! `zshm doctor`. Nodes do not need any of it.

pub mod certs;
pub mod doctor;
pub mod latency;
pub mod pattern;
pub mod sim_camera;
pub mod soak;
pub mod usage;

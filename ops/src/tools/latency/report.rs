//! [`ProbeReport`]: the JSON line `zshm cam-latency --json` prints per window and at the end,
//! read back by `zshm demo` (one type on both sides, so the keys cannot drift apart).

use super::{Summary, WindowReport};

/// One window (or, with `is_final`, the whole run) of a latency probe.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ProbeReport {
    /// The topic measured.
    pub topic: String,
    /// This probe's zenoh id, to match what a publisher counted per receiving process (such as
    /// [`CameraSummary::zenoh_dropped`](crate::tools::sim_camera::CameraSummary::zenoh_dropped)).
    #[serde(default)]
    pub zid: String,
    /// True for the summary of the whole run.
    #[serde(rename = "final")]
    pub is_final: bool,
    /// Window length, seconds.
    pub seconds: f64,
    /// Samples received.
    pub received: u64,
    /// Messages lost (sequence gaps).
    pub lost: u64,
    /// Samples whose stamp was in the future or implausibly old.
    pub invalid_stamps: u64,
    /// Share of the samples that came through shared memory (zenoh's or the lane), 0 to 1.
    pub shm_share: f64,
    /// Share of the samples that came through the same-host lane, 0 to 1.
    #[serde(default)]
    pub lane_share: f64,
    /// Payload size of the last sample, bytes.
    pub message_bytes: usize,
    /// Statistics of the valid latencies, milliseconds.
    pub latency_ms: Option<Summary>,
    /// CPU seconds the probe process used so far.
    pub cpu_seconds: f64,
    /// In the final report: messages the publishers had sent before the first one this probe
    /// received from each (it started later, or they went by before its link was up); 0 in
    /// windows. `received + before_first + lost` is what the publishers sent up to the last one.
    #[serde(default)]
    pub before_first: u64,
    /// In the final report: the first messages that came over the network while later ones
    /// came through shared memory (a publisher that creates its pool on first use, as
    /// rmw_zenoh_cpp does, sends its first message as a copy); 0 in windows.
    #[serde(default)]
    pub network_before_shm: u64,
    /// In the final report: messages this probe's own subscription queue dropped, oldest first,
    /// because its callback fell behind (the queue is KEEP_LAST, as the QoS says), counted by
    /// its session; they are among `lost`. 0 in windows.
    #[serde(default)]
    pub queue_dropped: u64,
    /// In the final report: messages zenoh dropped in this process because their shared-memory
    /// buffer could not be read (its publisher's segment gone or unmappable, the buffer already
    /// reclaimed), counted for the whole process. Those after the first received are among
    /// `lost`. 0 in windows.
    #[serde(default)]
    pub shm_unreadable: u64,
}

impl ProbeReport {
    /// The report of `window` on `topic`.
    pub fn new(topic: &str, window: &WindowReport, is_final: bool, cpu_seconds: f64) -> Self {
        Self {
            topic: topic.to_owned(),
            zid: String::new(),
            is_final,
            seconds: window.seconds,
            received: window.received,
            lost: window.lost,
            invalid_stamps: window.invalid_stamps,
            shm_share: window.shm_share(),
            lane_share: window.lane_share(),
            message_bytes: window.message_bytes,
            latency_ms: window.latency_ms,
            cpu_seconds,
            before_first: 0,
            network_before_shm: 0,
            queue_dropped: 0,
            shm_unreadable: 0,
        }
    }
}

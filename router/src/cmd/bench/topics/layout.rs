//! The workloads of the topics and subscribers sweeps, the same in every mode.
//!
//! * **Topics sweep** ([`Workload::topics_sweep`]): `T` small topics at 100 Hz (64 B to 4 KiB,
//!   spread over the topics), each with 2 subscribers, plus one 2 MiB point-cloud topic at
//!   10 Hz with 4 subscribers, over [`NODES`] node processes. Modelled on the Autoware-scale
//!   comparison of Agnocast and iceoryx2 (200 topics, 2 subscribers per topic, 100 Hz).
//! * **Subscribers sweep** ([`Workload::subscribers_sweep`]): the same 10 small topics and the
//!   cloud, each read by `S` subscriber processes, over `max(10, S + 1)` node processes: that
//!   comparison's sweep B (T = 10, S = 1 to 32), where a per-subscriber cost shows.
//!
//! Topic `i` is published by node `i % nodes` and read by `S` other nodes, shifted on each lap
//! over the nodes so that every node reads from several others. Every process computes the
//! layout from the workload alone: the bench and its nodes agree without passing it around.

/// Node processes of a topics-sweep case, whatever `T`.
pub const NODES: usize = 10;
/// Rate of the small topics, Hz.
pub const RATE_HZ: u64 = 100;
/// Subscribers of each small topic in the topics sweep.
pub const SUBSCRIBERS_PER_TOPIC: usize = 2;
/// Size of the point cloud, bytes.
pub const CLOUD_BYTES: usize = 2 << 20;
/// Rate of the point cloud, Hz (one cloud every `RATE_HZ / CLOUD_HZ` ticks).
pub const CLOUD_HZ: u64 = 10;
/// Subscribers of the point cloud in the topics sweep.
pub const CLOUD_SUBSCRIBERS: usize = 4;
/// Unmeasured seconds first: discovery, the lane's attachment, first allocations.
pub const WARMUP_SECONDS: u64 = 2;
/// The topic counts of the topics sweep unless `--topics` says otherwise.
pub const TOPIC_COUNTS: [usize; 5] = [10, 25, 50, 100, 200];
/// The subscriber counts of the subscribers sweep unless `--subscribers` says otherwise.
pub const SUBSCRIBER_COUNTS: [usize; 6] = [1, 2, 4, 8, 16, 32];
/// Small topics of the subscribers sweep.
pub const SUBSCRIBERS_SWEEP_TOPICS: usize = 10;
/// The most subscribers a topic may have: what the lane serves (a lane publisher's iceoryx2
/// service holds 32 subscribers; more would go through zenoh and measure something else).
pub const MAX_SUBSCRIBERS: usize = 32;

/// What every node of a case runs: how many small topics, and how many subscribers each topic
/// and the cloud have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Workload {
    /// Small topics (the cloud comes on top).
    pub topics: usize,
    /// Subscribers of each small topic.
    pub subscribers: usize,
    /// Subscribers of the cloud.
    pub cloud_subscribers: usize,
}

impl Workload {
    /// The topics sweep's workload at `topics`.
    pub fn topics_sweep(topics: usize) -> Self {
        Self {
            topics,
            subscribers: SUBSCRIBERS_PER_TOPIC,
            cloud_subscribers: CLOUD_SUBSCRIBERS,
        }
    }

    /// The subscribers sweep's workload at `subscribers`: every topic, the cloud included,
    /// has that many.
    pub fn subscribers_sweep(subscribers: usize) -> Self {
        Self {
            topics: SUBSCRIBERS_SWEEP_TOPICS,
            subscribers,
            cloud_subscribers: subscribers,
        }
    }

    /// Node processes: ten, or one more than the subscribers of a topic when that is more
    /// (a topic's subscribers are never its publisher).
    pub fn nodes(&self) -> usize {
        NODES.max(self.subscribers.max(self.cloud_subscribers) + 1)
    }

    /// The small topics and the cloud.
    pub fn layout(&self) -> Vec<Topic> {
        let nodes = self.nodes();
        let mut all: Vec<Topic> = (0..self.topics)
            .map(|index| {
                let publisher = index % nodes;
                // Each lap over the nodes shifts the readers, so every node reads from several
                // others.
                let lap = index / nodes;
                let subscribers = (0..self.subscribers)
                    .map(|k| (publisher + 1 + (lap + k) % (nodes - 1)) % nodes)
                    .collect();
                Topic {
                    index,
                    bytes: 64 << (index % 7),
                    rate_hz: RATE_HZ,
                    publisher,
                    subscribers,
                }
            })
            .collect();
        all.push(Topic {
            index: self.topics,
            bytes: CLOUD_BYTES,
            rate_hz: CLOUD_HZ,
            publisher: 0,
            subscribers: (1..=self.cloud_subscribers).collect(),
        });
        all
    }

    /// Measured deliveries over all nodes in a window of `seconds`.
    pub fn expected(&self, seconds: u64) -> u64 {
        self.layout()
            .iter()
            .map(|t| t.count(seconds) * t.subscribers.len() as u64)
            .sum()
    }
}

/// One topic of the workload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topic {
    /// Its position, from 0; the cloud comes last.
    pub index: usize,
    /// Serialized message size, bytes.
    pub bytes: usize,
    /// Messages per second.
    pub rate_hz: u64,
    /// The node that publishes it.
    pub publisher: usize,
    /// The nodes that subscribe to it (never its publisher).
    pub subscribers: Vec<usize>,
}

impl Topic {
    /// Whether this is the point cloud.
    pub fn is_cloud(&self) -> bool {
        self.bytes == CLOUD_BYTES
    }

    /// Its name inside a case (a ROS topic or key suffix).
    pub fn name(&self) -> String {
        if self.is_cloud() {
            "cloud".into()
        } else {
            format!("t{}", self.index)
        }
    }

    /// Unmeasured messages first.
    pub fn warmup(&self) -> u64 {
        self.rate_hz * WARMUP_SECONDS
    }

    /// Measured messages in a window of `seconds`.
    pub fn count(&self, seconds: u64) -> u64 {
        self.rate_hz * seconds
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_node_publishes_a_tenth_and_reads_only_others() {
        let topics = Workload::topics_sweep(200).layout();
        assert_eq!(topics.len(), 201);
        for node in 0..NODES {
            let published = topics
                .iter()
                .filter(|t| !t.is_cloud() && t.publisher == node)
                .count();
            assert_eq!(published, 20, "node {node}");
            let read = topics
                .iter()
                .filter(|t| !t.is_cloud() && t.subscribers.contains(&node))
                .count();
            assert_eq!(read, 40, "node {node}");
        }
        for t in &topics {
            assert!(!t.subscribers.contains(&t.publisher), "{t:?}");
            let mut distinct = t.subscribers.clone();
            distinct.dedup();
            assert_eq!(distinct.len(), t.subscribers.len(), "{t:?}");
        }
    }

    #[test]
    fn sizes_spread_from_64_bytes_to_4_kib_and_the_cloud_has_four_readers() {
        let workload = Workload::topics_sweep(10);
        let topics = workload.layout();
        let sizes: Vec<usize> = topics.iter().take(7).map(|t| t.bytes).collect();
        assert_eq!(sizes, [64, 128, 256, 512, 1024, 2048, 4096]);
        let cloud = topics.last().unwrap();
        assert!(cloud.is_cloud());
        assert_eq!((cloud.rate_hz, cloud.subscribers.len()), (10, 4));
        // 10 topics × 2 readers × 100 Hz + 4 readers × 10 Hz, over 5 s.
        assert_eq!(workload.expected(5), 5 * (10 * 2 * 100 + 4 * 10));
    }

    #[test]
    fn the_subscribers_sweep_gives_every_topic_s_distinct_readers_among_enough_nodes() {
        for s in SUBSCRIBER_COUNTS {
            let workload = Workload::subscribers_sweep(s);
            assert_eq!(workload.nodes(), NODES.max(s + 1));
            let topics = workload.layout();
            assert_eq!(topics.len(), SUBSCRIBERS_SWEEP_TOPICS + 1);
            for t in &topics {
                let mut distinct = t.subscribers.clone();
                distinct.sort_unstable();
                distinct.dedup();
                assert_eq!(distinct.len(), s, "S = {s}: {t:?}");
                assert!(!t.subscribers.contains(&t.publisher), "S = {s}: {t:?}");
                assert!(
                    t.subscribers.iter().all(|&n| n < workload.nodes()),
                    "S = {s}: {t:?}"
                );
            }
            assert_eq!(workload.expected(1), s as u64 * (10 * 100 + 10));
        }
    }
}

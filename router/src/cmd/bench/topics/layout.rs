//! The topics sweep's workload, the same in every mode: `T` small topics at 100 Hz (64 B to
//! 4 KiB, spread over the topics), each with 2 subscribers, plus one 2 MiB point-cloud topic at
//! 10 Hz with 4 subscribers, over a fixed set of [`NODES`] node processes. Topic `i` is
//! published by node `i % NODES` and read by two other nodes, so each node publishes `T / 10`
//! topics and subscribes to `T / 5` of other nodes. Modelled on the Autoware-scale comparison of
//! Agnocast and iceoryx2 (200 topics, 2 subscribers per topic, 100 Hz).
//!
//! Every process computes the layout from `T` alone: the bench and its nodes agree without
//! passing it around.

/// Node processes of a case, whatever `T`.
pub const NODES: usize = 10;
/// Rate of the small topics, Hz.
pub const RATE_HZ: u64 = 100;
/// Subscribers of each small topic.
pub const SUBSCRIBERS_PER_TOPIC: usize = 2;
/// Size of the point cloud, bytes.
pub const CLOUD_BYTES: usize = 2 << 20;
/// Rate of the point cloud, Hz (one cloud every `RATE_HZ / CLOUD_HZ` ticks).
pub const CLOUD_HZ: u64 = 10;
/// Subscribers of the point cloud.
pub const CLOUD_SUBSCRIBERS: usize = 4;
/// Unmeasured seconds first: discovery, the lane's attachment, first allocations.
pub const WARMUP_SECONDS: u64 = 2;
/// The topic counts of the sweep unless `--topics` says otherwise.
pub const TOPIC_COUNTS: [usize; 5] = [10, 25, 50, 100, 200];

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

/// The `topics` small topics and the cloud.
pub fn layout(topics: usize) -> Vec<Topic> {
    let mut all: Vec<Topic> = (0..topics)
        .map(|index| {
            let publisher = index % NODES;
            // Each lap over the nodes shifts the readers, so every node reads from several others.
            let lap = index / NODES;
            let subscribers = (0..SUBSCRIBERS_PER_TOPIC)
                .map(|k| (publisher + 1 + (lap + k) % (NODES - 1)) % NODES)
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
        index: topics,
        bytes: CLOUD_BYTES,
        rate_hz: CLOUD_HZ,
        publisher: 0,
        subscribers: (1..=CLOUD_SUBSCRIBERS).collect(),
    });
    all
}

/// Measured deliveries over all nodes for `topics` topics in a window of `seconds`.
pub fn expected(topics: usize, seconds: u64) -> u64 {
    layout(topics)
        .iter()
        .map(|t| t.count(seconds) * t.subscribers.len() as u64)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_node_publishes_a_tenth_and_reads_only_others() {
        let topics = layout(200);
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
        let topics = layout(10);
        let sizes: Vec<usize> = topics.iter().take(7).map(|t| t.bytes).collect();
        assert_eq!(sizes, [64, 128, 256, 512, 1024, 2048, 4096]);
        let cloud = topics.last().unwrap();
        assert!(cloud.is_cloud());
        assert_eq!((cloud.rate_hz, cloud.subscribers.len()), (10, 4));
        // 10 topics × 2 readers × 100 Hz + 4 readers × 10 Hz, over 5 s.
        assert_eq!(expected(10, 5), 5 * (10 * 2 * 100 + 4 * 10));
    }
}

//! Where a publisher's messages went: per receiving process, through shared memory or as copies
//! over the network, by zenoh's own per-transport count (a buffer from the pool is not a message
//! through shared memory: a subscriber whose link has no SHM gets a copy), and through the lane.
//! What `zshm cam-pub`'s "shared memory %" counts. Also per process: the messages zenoh dropped
//! instead of sending them, because the queue to that process stayed full (a KEEP_LAST
//! publisher's `CongestionControl::Drop`, as rmw_zenoh's): `put` succeeded for each, so only
//! zenoh's count says they never left.

use std::collections::BTreeMap;
use std::time::Duration;

use zshm_ops::telemetry::zenoh_stats::{LinkTraffic, own_link_traffic};

/// How long this process's own statistics may take to read.
const STATS_TIMEOUT: Duration = Duration::from_secs(2);

/// The puts one process received from this one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessDelivery {
    /// Its zenoh id.
    pub zid: String,
    /// Puts through shared memory.
    pub shm: u64,
    /// Puts as copies over the network.
    pub network: u64,
    /// Messages zenoh dropped on the way to it (its queue stayed full).
    pub dropped: u64,
}

/// What was delivered over an interval.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Deliveries {
    /// Per receiving process, through zenoh.
    pub processes: Vec<ProcessDelivery>,
    /// Messages through the same-host lane (once per message, however many lane subscribers).
    pub lane: u64,
}

impl Deliveries {
    /// Share of deliveries through shared memory (zenoh's or the lane), 0..1; `None` when
    /// nothing was delivered.
    pub fn shm_share(&self) -> Option<f64> {
        let shm: u64 = self.processes.iter().map(|p| p.shm).sum::<u64>() + self.lane;
        let all = shm + self.processes.iter().map(|p| p.network).sum::<u64>();
        (all > 0).then(|| shm as f64 / all as f64)
    }

    /// The processes that got copies over the network.
    pub fn copied(&self) -> impl Iterator<Item = &ProcessDelivery> {
        self.processes.iter().filter(|p| p.network > 0)
    }

    /// Messages zenoh dropped, over all processes.
    pub fn dropped(&self) -> u64 {
        self.processes.iter().map(|p| p.dropped).sum()
    }
}

/// Counts deliveries between two calls of [`DeliveryWatch::take`].
#[derive(Debug, Default)]
pub struct DeliveryWatch {
    /// Per process: puts through shared memory, puts over the network, drops, so far.
    links: BTreeMap<String, [u64; 3]>,
    lane: u64,
}

impl DeliveryWatch {
    /// Starts counting from what `session` has delivered so far.
    pub async fn start(session: &zshm::Session) -> Self {
        let mut watch = Self::default();
        watch.take(session).await;
        watch
    }

    /// What was delivered since the last call (or [`start`](Self::start)).
    pub async fn take(&mut self, session: &zshm::Session) -> Deliveries {
        let links = own_link_traffic(session.zenoh(), STATS_TIMEOUT).await;
        let lane = session.stats().snapshot().lane.published_messages;
        let deliveries = self.advance(&links, lane);
        self.lane = lane;
        deliveries
    }

    fn advance(&mut self, links: &[LinkTraffic], lane: u64) -> Deliveries {
        let mut processes = Vec::new();
        for link in links {
            let now = [link.tx_shm_puts, link.tx_network_puts, link.tx_congestion_drops];
            let [shm, network, dropped] = match self.links.insert(link.zid.clone(), now) {
                Some(before) => std::array::from_fn(|i| now[i].saturating_sub(before[i])),
                None => now,
            };
            let delivery = ProcessDelivery {
                zid: link.zid.clone(),
                shm,
                network,
                dropped,
            };
            if delivery.shm + delivery.network + delivery.dropped > 0 {
                processes.push(delivery);
            }
        }
        Deliveries {
            processes,
            lane: lane.saturating_sub(self.lane),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(zid: &str, shm: u64, network: u64) -> LinkTraffic {
        LinkTraffic {
            zid: zid.into(),
            whatami: "peer".into(),
            tx_shm_puts: shm,
            tx_network_puts: network,
            ..Default::default()
        }
    }

    #[test]
    fn drops_are_counted_per_interval_and_process_apart_from_deliveries() {
        let mut watch = DeliveryWatch::default();
        let dropping = |shm, dropped| LinkTraffic {
            tx_congestion_drops: dropped,
            ..link("a", shm, 0)
        };
        watch.advance(&[dropping(10, 1)], 0);
        let d = watch.advance(&[dropping(12, 4), link("b", 2, 0)], 0);
        assert_eq!(d.dropped(), 3);
        assert_eq!(d.processes[0].dropped, 3);
        assert_eq!(d.shm_share(), Some(1.0), "a dropped message is no delivery");
        let d = watch.advance(&[dropping(12, 6), link("b", 2, 0)], 0);
        assert_eq!(
            d.processes,
            vec![ProcessDelivery {
                zid: "a".into(),
                shm: 0,
                network: 0,
                dropped: 2
            }],
            "a process that only lost messages is listed"
        );
        assert_eq!(d.shm_share(), None);
    }

    #[test]
    fn deliveries_are_counted_per_interval_and_process() {
        let mut watch = DeliveryWatch::default();
        watch.advance(&[link("a", 10, 0)], 0);
        let d = watch.advance(&[link("a", 25, 0), link("b", 0, 15), link("router", 0, 0)], 0);
        assert_eq!(
            d.processes,
            vec![
                ProcessDelivery {
                    zid: "a".into(),
                    shm: 15,
                    network: 0,
                    dropped: 0
                },
                ProcessDelivery {
                    zid: "b".into(),
                    shm: 0,
                    network: 15,
                    dropped: 0
                },
            ]
        );
        assert_eq!(d.shm_share(), Some(0.5));
        assert_eq!(d.copied().map(|p| p.zid.as_str()).collect::<Vec<_>>(), ["b"]);
    }

    #[test]
    fn the_lane_counts_as_shared_memory_and_nothing_delivered_is_no_share() {
        let mut watch = DeliveryWatch::default();
        assert_eq!(watch.advance(&[], 0).shm_share(), None);
        let d = watch.advance(&[link("b", 0, 5)], 15);
        assert_eq!(d.shm_share(), Some(0.75));
    }
}

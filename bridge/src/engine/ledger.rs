//! What every route carried since the bridge started, for the exporter's series: counters that
//! only grow (a route that goes and comes back adds to its old counts).

use std::collections::BTreeMap;
use std::sync::Arc;

use zshm::internal::session::report::RouteReport;

use super::plan::{Direction, RouteKey};
use crate::stats::RouteStats;

/// The live routes' counters and the retired routes' totals.
#[derive(Default)]
pub(super) struct Ledger {
    live: BTreeMap<RouteKey, Arc<RouteStats>>,
    retired: BTreeMap<RouteKey, RouteReport>,
}

impl Ledger {
    /// Counts what the new route `key` carries from now on.
    pub fn open(&mut self, key: RouteKey, stats: Arc<RouteStats>) {
        self.live.insert(key, stats);
    }

    /// Adds what the route `key`, which is going, carried to its totals.
    pub fn retire(&mut self, key: &RouteKey) {
        let Some(stats) = self.live.remove(key) else {
            return;
        };
        let entry = self
            .retired
            .entry(key.clone())
            .or_insert_with(|| empty_report(key));
        add_counts(entry, &stats);
    }

    /// One report per topic and direction (two types on one topic share their series).
    pub fn reports(&self) -> Vec<RouteReport> {
        let mut all: BTreeMap<(String, Direction), RouteReport> = BTreeMap::new();
        for (key, retired) in &self.retired {
            let entry = all
                .entry((key.topic.clone(), key.direction))
                .or_insert_with(|| empty_report(key));
            entry.messages += retired.messages;
            entry.bytes += retired.bytes;
            for (reason, count) in &retired.drops {
                *entry.drops.entry(reason.clone()).or_insert(0) += count;
            }
        }
        for (key, stats) in &self.live {
            let entry = all
                .entry((key.topic.clone(), key.direction))
                .or_insert_with(|| empty_report(key));
            add_counts(entry, stats);
            entry.up = true;
        }
        all.into_values().collect()
    }
}

fn empty_report(key: &RouteKey) -> RouteReport {
    RouteReport {
        topic: key.topic.clone(),
        direction: key.direction.label().to_owned(),
        up: false,
        messages: 0,
        bytes: 0,
        drops: BTreeMap::new(),
    }
}

fn add_counts(report: &mut RouteReport, stats: &RouteStats) {
    report.messages += stats.messages();
    report.bytes += stats.bytes();
    for (reason, count) in stats.drops() {
        *report.drops.entry(reason.label().to_owned()).or_insert(0) += count;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::DropReason;

    fn key(direction: Direction, dds_type: &str) -> RouteKey {
        RouteKey {
            direction,
            topic: "/cloud".into(),
            dds_type: dds_type.into(),
        }
    }

    #[test]
    fn a_route_that_comes_back_adds_to_its_old_counts_and_two_types_share_one_series() {
        let mut ledger = Ledger::default();
        let first = Arc::new(RouteStats::default());
        first.forwarded(100);
        first.dropped("/cloud", DropReason::Stale, "test");
        let key_a = key(Direction::DdsToZenoh, "a::msg::dds_::A_");
        ledger.open(key_a.clone(), first);
        ledger.retire(&key_a);
        let [report] = &ledger.reports()[..] else {
            panic!("one series")
        };
        assert_eq!((report.messages, report.bytes, report.up), (1, 100, false));
        let again = Arc::new(RouteStats::default());
        again.forwarded(50);
        ledger.open(key_a.clone(), again);
        let other_type = Arc::new(RouteStats::default());
        other_type.forwarded(7);
        ledger.open(key(Direction::DdsToZenoh, "b::msg::dds_::B_"), other_type);
        ledger.open(key(Direction::ZenohToDds, "a::msg::dds_::A_"), Arc::default());
        let reports = ledger.reports();
        assert_eq!(reports.len(), 2, "one per topic and direction");
        let to_zenoh = reports.iter().find(|r| r.direction == "dds_to_zenoh").unwrap();
        assert_eq!((to_zenoh.messages, to_zenoh.bytes, to_zenoh.up), (3, 157, true));
        assert_eq!(to_zenoh.drops.get(DropReason::Stale.label()), Some(&1));
    }
}

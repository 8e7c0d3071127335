//! Latency statistics for probes and benchmarks: summaries (mean, population std, min, max,
//! nearest-rank percentiles), per-publisher loss from sequence-number gaps, and the tumbling
//! windows of the workshop's `camera_latency.py`. Everything here holds bounded memory however
//! long it runs and whatever the publishers send.

mod accumulator;
mod loss;
mod probe;
mod report;
mod summary;
mod window;

pub use accumulator::{Accumulator, RESERVOIR};
pub use loss::{LossTracker, MAX_PUBLISHERS};
pub use probe::{Observation, Outcome, Probe};
pub use report::ProbeReport;
pub use summary::Summary;
pub use window::{MAX_PLAUSIBLE, StampVerdict, Window, WindowReport};

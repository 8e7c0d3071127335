//! This process's resource usage (getrusage), for reports that compare CPU cost per message.

use nix::sys::resource::{UsageWho, getrusage};

/// CPU time used so far (user + system), in seconds; 0 if the kernel does not say.
pub fn cpu_seconds() -> f64 {
    getrusage(UsageWho::RUSAGE_SELF).map_or(0.0, |usage| {
        let seconds = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
        seconds(usage.user_time()) + seconds(usage.system_time())
    })
}

/// Peak resident set size so far, in bytes.
pub fn peak_rss_bytes() -> u64 {
    // Linux reports ru_maxrss in KiB.
    getrusage(UsageWho::RUSAGE_SELF).map_or(0, |usage| usage.max_rss().max(0) as u64 * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_grows_with_work() {
        let before = cpu_seconds();
        let mut x = 0u64;
        for i in 0..50_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        assert!(cpu_seconds() > before);
        assert!(peak_rss_bytes() > 1 << 20);
    }
}

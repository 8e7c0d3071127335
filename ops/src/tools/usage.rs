//! Resource usage: this process's (getrusage), for reports that compare CPU cost per message,
//! and the resident memory of any process (/proc), for soak runs that watch it over time.

use nix::sys::resource::{UsageWho, getrusage};

/// CPU time used so far (user + system), in seconds; 0 if the kernel does not say.
pub fn cpu_seconds() -> f64 {
    getrusage(UsageWho::RUSAGE_SELF).map_or(0.0, |usage| {
        let seconds = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
        seconds(usage.user_time()) + seconds(usage.system_time())
    })
}

/// Context switches of this process's threads so far: (voluntary, involuntary). A voluntary one
/// is a thread going to sleep (and so, for a thread that sleeps until a message comes, one
/// wake-up); an involuntary one is a thread the scheduler took off its CPU while it could run.
pub fn context_switches() -> (u64, u64) {
    getrusage(UsageWho::RUSAGE_SELF).map_or((0, 0), |usage| {
        (
            usage.voluntary_context_switches().max(0) as u64,
            usage.involuntary_context_switches().max(0) as u64,
        )
    })
}

/// Peak resident set size so far, in bytes.
pub fn peak_rss_bytes() -> u64 {
    // Linux reports ru_maxrss in KiB.
    getrusage(UsageWho::RUSAGE_SELF).map_or(0, |usage| usage.max_rss().max(0) as u64 * 1024)
}

/// Resident memory of process `pid` now, in bytes (`VmRSS`); `None` once it is gone.
pub fn rss_bytes(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kib = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse::<u64>()
        .ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rss_of_this_process_is_known_and_of_no_process_is_none() {
        assert!(rss_bytes(std::process::id()).is_some_and(|rss| rss > 1 << 20));
        assert_eq!(rss_bytes(u32::MAX), None);
    }

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

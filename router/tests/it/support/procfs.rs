//! What /proc says about the processes a test started: their children, their memory, whether
//! they are gone.

use std::time::{Duration, Instant};

/// The pids whose parent is `pid`.
pub fn children_of(pid: u32) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(child) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{child}/stat")) else {
            continue;
        };
        // The fields after the command name (which may contain spaces): state, ppid, ...
        let after_name = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or("");
        if after_name.split_whitespace().nth(1) == Some(&pid.to_string()) {
            found.push(child);
        }
    }
    found
}

/// The command line of `pid`, arguments separated by spaces.
pub fn cmdline(pid: u32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|raw| String::from_utf8_lossy(&raw).replace('\0', " ").trim().to_owned())
        .unwrap_or_default()
}

/// The first child of `parent` whose command line contains `needle`, waiting for it to appear.
pub fn wait_for_child(parent: u32, needle: &str, within: Duration) -> u32 {
    let deadline = Instant::now() + within;
    loop {
        if let Some(pid) = children_of(parent)
            .into_iter()
            .find(|p| cmdline(*p).contains(needle))
        {
            return pid;
        }
        assert!(Instant::now() < deadline, "no child `{needle}` of {parent}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Resident memory of `pid` in bytes (0 once it is gone).
pub fn rss_bytes(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map_or(0, |kib| kib * 1024)
}

/// True while `pid` exists and is not a zombie.
pub fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        !stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
    })
}

/// True when no process is left in the process group `pgid`.
pub fn group_is_empty(pgid: u32) -> bool {
    nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pgid as i32), None).is_err()
}

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

/// How many malloc arenas glibc has made in `pid` besides the main one. Each is a heap of its
/// own, an anonymous mapping of exactly 64 MiB (HEAP_MAX_SIZE on 64-bit) aligned on 64 MiB,
/// readable and writable up to what it uses and reserved (`---p`) after; nothing else a zshm
/// process maps has that shape (thread stacks are 2 or 8 MiB, segments are files).
pub fn malloc_arenas(pid: u32) -> usize {
    const HEAP: u64 = 64 << 20;
    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps")).unwrap_or_default();
    // (start, end, permissions, anonymous)
    let regions: Vec<(u64, u64, String, bool)> = maps
        .lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let (start, end) = fields.next()?.split_once('-')?;
            let perms = fields.next()?.to_owned();
            let anonymous = fields.nth(3).is_none();
            Some((
                u64::from_str_radix(start, 16).ok()?,
                u64::from_str_radix(end, 16).ok()?,
                perms,
                anonymous,
            ))
        })
        .collect();
    let mut arenas = 0;
    for (i, (start, end, perms, anonymous)) in regions.iter().enumerate() {
        if !anonymous || start % HEAP != 0 || !perms.starts_with("rw") {
            continue;
        }
        let mut reach = *end;
        for (next_start, next_end, _, next_anonymous) in &regions[i + 1..] {
            if *next_start != reach || !next_anonymous || reach - start >= HEAP {
                break;
            }
            reach = *next_end;
        }
        if reach - start == HEAP {
            arenas += 1;
        }
    }
    arenas
}

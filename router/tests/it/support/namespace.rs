//! [`PrivateShm`]: a private /dev/shm that several test processes share and the test can
//! inspect while they run and after they exit, so that segment counts and bytes are this test's
//! own, never the machine's (other test suites may run at the same time).
//!
//! A holder process (`sleep`) is started in a new mount namespace with a fresh tmpfs on
//! /dev/shm; test processes join it with `nsenter`; the test reads it through
//! `/proc/<holder>/root/dev/shm`. The namespace and its tmpfs disappear with the last process
//! in it.

use std::os::unix::fs::MetadataExt;
use std::time::Duration;

use super::{Proc, Spawn};

/// A private /dev/shm (see the module docs).
pub struct PrivateShm {
    holder: Proc,
    dir: String,
}

/// One `*.zenoh` segment.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Segment {
    /// File name.
    pub name: String,
    /// Bytes it takes in memory (allocated blocks).
    pub bytes: u64,
}

impl PrivateShm {
    /// A private /dev/shm of `size` (tmpfs syntax, e.g. `512m`).
    pub fn new(size: &str) -> Self {
        let script = format!(
            "mount -t tmpfs -o size={size},mode=1777 tmpfs /dev/shm && echo mounted && exec sleep 100000"
        );
        let holder = Spawn::program(
            "shm-holder",
            "unshare",
            &["--mount", "--propagation", "private", "sh", "-c", &script],
        )
        .start();
        holder.wait_for_stdout("mount", |l| l == "mounted");
        let dir = format!("/proc/{}/root/dev/shm", holder.pid());
        PrivateShm { holder, dir }
    }

    /// The wrapper that runs a program in this namespace (for [`Spawn::wrapped`]).
    pub fn wrapper(&self) -> Vec<String> {
        let pid = self.holder.pid().to_string();
        ["nsenter", "-t", &pid, "-m", "--"].map(String::from).to_vec()
    }

    /// `zshm <args>` in this namespace, with the same-host lane off: these tests follow zenoh's
    /// segments and pool (a slow reader holding the pool, /dev/shm filling up), which zshm nodes
    /// of one host would otherwise bypass through the lane.
    pub fn zshm(&self, name: &str, args: &[&str]) -> Spawn {
        Spawn::wrapped(name, &self.wrapper(), args).env("ZSHM_LANE", "off")
    }

    /// `zshm <args>` in this namespace with the same-host lane on, in the lane domain `root`.
    pub fn zshm_on_lane(&self, name: &str, root: &super::LaneRoot, args: &[&str]) -> Spawn {
        Spawn::wrapped(name, &self.wrapper(), args).env("ZSHM_LANE_ROOT", &root.path)
    }

    /// The directory, as seen from the test process.
    pub fn dir(&self) -> &str {
        &self.dir
    }

    /// The zenoh segments there now, sorted by name.
    pub fn segments(&self) -> Vec<Segment> {
        let mut found: Vec<Segment> = std::fs::read_dir(&self.dir)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".zenoh"))
            .filter_map(|e| {
                let meta = e.metadata().ok()?;
                Some(Segment {
                    name: e.file_name().to_string_lossy().into_owned(),
                    bytes: meta.blocks() * 512,
                })
            })
            .collect();
        found.sort();
        found
    }

    /// Bytes used in the tmpfs (every file, and pages of unlinked files still mapped).
    pub fn used_bytes(&self) -> u64 {
        let stat = nix::sys::statvfs::statvfs(self.dir.as_str()).unwrap();
        (stat.blocks() - stat.blocks_free()) * stat.fragment_size()
    }

    /// Free bytes in the tmpfs.
    pub fn free_bytes(&self) -> u64 {
        let stat = nix::sys::statvfs::statvfs(self.dir.as_str()).unwrap();
        stat.blocks_available() * stat.fragment_size()
    }

    /// Polls until `done` holds for the segments, or panics after `within`.
    pub fn wait_for_segments(&self, what: &str, within: Duration, done: impl Fn(&[Segment]) -> bool) {
        let deadline = std::time::Instant::now() + within;
        loop {
            let now = self.segments();
            if done(&now) {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "{what}: segments are {now:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for PrivateShm {
    /// Removes what the lane's processes of this /dev/shm kept outside it ([`remove_lane_state`]);
    /// before, every test run left a directory per private /dev/shm.
    fn drop(&mut self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        remove_lane_state(entries.flatten().filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            Some((name, std::fs::read_to_string(entry.path()).ok()?))
        }));
    }
}

/// Removes the lane's iceoryx2 state that processes of a /dev/shm about to go kept under the
/// lane root in /tmp: a directory named by the key in that /dev/shm's marker
/// `zshm-lane-<uid>.host` (`zshm::lane::domain`). No process that sees another /dev/shm reads
/// that key, so nothing else can ever use the directory. `files` are the /dev/shm's files as
/// (name, contents); those that are not markers are skipped.
pub fn remove_lane_state(files: impl IntoIterator<Item = (String, String)>) {
    for (name, contents) in files {
        let Some(uid) = name
            .strip_prefix("zshm-lane-")
            .and_then(|rest| rest.strip_suffix(".host"))
            .filter(|uid| !uid.is_empty() && uid.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        let key = contents.trim();
        if key.len() != 6 || !key.bytes().all(|b| b.is_ascii_hexdigit()) {
            continue;
        }
        let mut roots = vec![std::path::PathBuf::from(format!("/tmp/zshm-lane-{uid}"))];
        if uid == nix::unistd::geteuid().as_raw().to_string()
            && let Some(runtime) = std::env::var_os("XDG_RUNTIME_DIR")
        {
            roots.push(std::path::Path::new(&runtime).join("zshm-lane"));
        }
        for root in roots {
            let _ = std::fs::remove_dir_all(root.join(key));
        }
    }
}

//! Helpers that run the real `zshm` binary: a process guard that captures output line by line
//! and cleans up its whole process group, and a router fixture on an ephemeral port.

#![allow(dead_code)] // Each test module uses a different subset.

pub mod bench_interfaces;
pub mod namespace;
pub mod procfs;
pub mod routing_tree;

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

/// The binary under test.
pub const ZSHM: &str = env!("CARGO_BIN_EXE_zshm");

/// The program of `zshm bench`'s processes, built beside it.
pub const ZSHM_BENCH_NODE: &str = env!("CARGO_BIN_EXE_zshm-bench-node");

/// Deadline for anything a healthy run finishes in a few seconds; generous for loaded CI machines.
pub const DEADLINE: Duration = Duration::from_secs(120);

/// The repository root (configs/ lives there).
pub fn repo_path(relative: &str) -> String {
    format!("{}/../{relative}", env!("CARGO_MANIFEST_DIR"))
}

#[derive(Default)]
struct Captured {
    stdout: Vec<String>,
    stderr: Vec<String>,
    closed: usize,
}

/// A running `zshm` process (or a wrapper that execs it) in its own process group.
pub struct Proc {
    name: String,
    child: Child,
    output: Arc<(Mutex<Captured>, Condvar)>,
    status: Option<ExitStatus>,
}

/// How to start a process.
pub struct Spawn {
    name: String,
    program: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
}

impl Spawn {
    /// `zshm <args>`.
    pub fn zshm(name: &str, args: &[&str]) -> Self {
        Self {
            name: name.into(),
            program: ZSHM.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            env: Vec::new(),
        }
    }

    /// Any other program, e.g. the Python interop peer.
    pub fn program(name: &str, program: &str, args: &[&str]) -> Self {
        Self {
            name: name.into(),
            program: program.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            env: Vec::new(),
        }
    }

    /// `<wrapper...> zshm <args>`, for unshare, setpriv, prlimit.
    pub fn wrapped(name: &str, wrapper: &[String], args: &[&str]) -> Self {
        let mut all: Vec<String> = wrapper[1..].to_vec();
        all.push(ZSHM.into());
        all.extend(args.iter().map(|a| a.to_string()));
        Self {
            name: name.into(),
            program: wrapper[0].clone(),
            args: all,
            env: Vec::new(),
        }
    }

    /// Sets an environment variable for the child.
    pub fn env(mut self, key: &str, value: &str) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Starts it, with the developer's ZENOH_*, ROS_* and ZSHM_* variables scrubbed.
    pub fn start(self) -> Proc {
        remove_orphaned_segments_once();
        use std::os::unix::process::CommandExt;
        let mut command = Command::new(&self.program);
        command
            .args(&self.args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .env("RUST_LOG", test_log_filter());
        for (key, _) in std::env::vars() {
            if key.starts_with("ZENOH_") || key.starts_with("ROS_") || key.starts_with("ZSHM_") {
                command.env_remove(key);
            }
        }
        for (key, value) in &self.env {
            command.env(key, value);
        }
        let mut child = command
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", self.program));
        let output = Arc::new((Mutex::new(Captured::default()), Condvar::new()));
        pump(child.stdout.take().expect("piped"), output.clone(), true);
        pump(child.stderr.take().expect("piped"), output.clone(), false);
        Proc {
            name: self.name,
            child,
            output,
            status: None,
        }
    }
}

fn pump(stream: impl Read + Send + 'static, output: Arc<(Mutex<Captured>, Condvar)>, is_stdout: bool) {
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            let (lock, signal) = &*output;
            let mut captured = lock.lock().unwrap();
            if is_stdout {
                captured.stdout.push(line)
            } else {
                captured.stderr.push(line)
            }
            signal.notify_all();
        }
        let (lock, signal) = &*output;
        lock.lock().unwrap().closed += 1;
        signal.notify_all();
    });
}

impl Proc {
    /// Waits until a stdout line satisfies `matches`, and returns it.
    pub fn wait_for_stdout(&self, what: &str, matches: impl Fn(&str) -> bool) -> String {
        self.wait_for(what, |c| c.stdout.iter().find(|l| matches(l)).cloned())
    }

    /// Waits until a stderr line satisfies `matches`, and returns it.
    pub fn wait_for_stderr(&self, what: &str, matches: impl Fn(&str) -> bool) -> String {
        self.wait_for(what, |c| c.stderr.iter().find(|l| matches(l)).cloned())
    }

    fn wait_for(&self, what: &str, find: impl Fn(&Captured) -> Option<String>) -> String {
        let deadline = Instant::now() + DEADLINE;
        let (lock, signal) = &*self.output;
        let mut captured = lock.lock().unwrap();
        loop {
            if let Some(line) = find(&captured) {
                return line;
            }
            let now = Instant::now();
            if now >= deadline || captured.closed == 2 {
                drop(captured);
                panic!("{}: no {what} (exited or timed out)\n{}", self.name, self.dump());
            }
            captured = signal.wait_timeout(captured, deadline - now).unwrap().0;
        }
    }

    /// Waits for the process to exit and returns its exit code.
    pub fn wait_exit(&mut self) -> i32 {
        self.wait_exit_for(DEADLINE)
    }

    /// Waits up to `patience` for the process to exit (a run whose length is the work itself,
    /// like a benchmark, which a loaded machine stretches) and returns its exit code.
    pub fn wait_exit_for(&mut self, patience: Duration) -> i32 {
        let deadline = Instant::now() + patience;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                self.status = Some(status);
                self.wait_for_streams();
                return status.code().unwrap_or(-1);
            }
            if Instant::now() >= deadline {
                panic!("{}: still running after {patience:?}\n{}", self.name, self.dump());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn wait_for_streams(&self) {
        let (lock, signal) = &*self.output;
        let captured = lock.lock().unwrap();
        let _unused = signal
            .wait_timeout_while(captured, Duration::from_secs(5), |c| c.closed < 2)
            .unwrap();
    }

    /// True once the process has exited.
    pub fn exited(&mut self) -> bool {
        self.child.try_wait().ok().flatten().is_some()
    }

    /// Sends a signal to the process group.
    pub fn signal(&self, signal: Signal) {
        let _ = killpg(Pid::from_raw(self.child.id() as i32), signal);
    }

    /// Sends a signal to the process alone, as `kill PID` or systemd does (its children, in the
    /// same group, do not get it).
    pub fn signal_process(&self, signal: Signal) {
        let _ = nix::sys::signal::kill(Pid::from_raw(self.child.id() as i32), signal);
    }

    /// Waits for the process to exit within `within`, which must be below [`DEADLINE`]; returns
    /// its exit code and how long it took.
    pub fn wait_exit_within(&mut self, within: Duration) -> (i32, Duration) {
        let started = Instant::now();
        let code = self.wait_exit();
        let took = started.elapsed();
        assert!(
            took <= within,
            "{}: took {took:?} to exit (bound {within:?})\n{}",
            self.name,
            self.dump()
        );
        (code, took)
    }

    /// The pid of the direct child.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// All stdout lines so far.
    pub fn stdout(&self) -> Vec<String> {
        self.output.0.lock().unwrap().stdout.clone()
    }

    /// All stderr lines so far.
    /// The name the process was started with.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn stderr(&self) -> String {
        self.output.0.lock().unwrap().stderr.join("\n")
    }

    /// The last stdout line parsed as JSON.
    pub fn json(&self) -> serde_json::Value {
        let stdout = self.stdout();
        let last = stdout
            .last()
            .unwrap_or_else(|| panic!("{}: no stdout\n{}", self.name, self.dump()));
        serde_json::from_str(last).unwrap_or_else(|e| panic!("{}: not JSON ({e}): {last}", self.name))
    }

    /// Everything captured, for failure messages; for a process still running, also where each
    /// of its threads is ([`Proc::stacks`]).
    pub fn dump(&self) -> String {
        let (stdout, stderr) = {
            let captured = self.output.0.lock().unwrap();
            (captured.stdout.join("\n"), captured.stderr.join("\n"))
        };
        format!(
            "--- {} stdout ---\n{stdout}\n--- {} stderr ---\n{stderr}{}{}",
            self.name,
            self.name,
            self.ended_how(),
            self.stacks()
        )
    }

    /// The backtrace of every thread of the process, if it still runs and gdb can attach to it
    /// (tools/test.sh installs gdb; attaching needs root or ptrace rights over it). A test that
    /// waited in vain for a live process then shows where it was stuck: once in loaded runs a
    /// listener answered nothing and printed nothing for 120 s, and a Foxglove endpoint never
    /// printed its subscription, with nothing in their logs to say where they waited.
    fn stacks(&self) -> String {
        let pid = self.child.id();
        let running = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|stat| {
                stat.rsplit_once(')')
                    .map(|(_, rest)| rest.trim_start().to_owned())
            })
            .is_some_and(|rest| !rest.starts_with('Z') && !rest.starts_with('X'));
        if !running {
            return String::new();
        }
        let gdb = Command::new("timeout")
            .args(["60", "gdb", "-batch", "-nx", "-p", &pid.to_string()])
            .args(["-ex", "set pagination off", "-ex", "thread apply all bt 30"])
            .stdin(Stdio::null())
            .output();
        let text = match gdb {
            Ok(out) => {
                let text = String::from_utf8_lossy(&out.stdout);
                let frames: Vec<&str> = text
                    .lines()
                    .filter(|l| l.starts_with("Thread ") || l.starts_with('#'))
                    .take(600)
                    .collect();
                if frames.is_empty() {
                    format!(
                        "gdb could not attach: {}",
                        String::from_utf8_lossy(&out.stderr).trim()
                    )
                } else {
                    frames.join("\n")
                }
            }
            Err(err) => format!("gdb not run: {err}"),
        };
        format!(
            "\n--- {} (pid {pid}) is still running; its threads ---\n{text}",
            self.name
        )
    }

    /// How the process ended, if it did and nobody has reaped it yet (a zombie's wait status is
    /// in `/proc/PID/stat`): a test that finds a process gone says whether it crashed.
    fn ended_how(&self) -> String {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())) else {
            return String::new();
        };
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .map(|(_, rest)| rest.split_whitespace().collect())
            .unwrap_or_default();
        // Field 3 is the state, field 52 the exit code (a wait status).
        match (fields.first(), fields.get(49).and_then(|f| f.parse::<i32>().ok())) {
            (Some(&"Z"), Some(status)) if status & 0x7f != 0 => {
                format!("\n--- {} was killed by signal {} ---", self.name, status & 0x7f)
            }
            (Some(&"Z"), Some(status)) => {
                format!("\n--- {} exited with code {} ---", self.name, status >> 8)
            }
            _ => String::new(),
        }
    }
}

impl Proc {
    /// Stops the whole process group: SIGINT, up to 5 s to exit, then SIGKILL.
    pub fn stop(&mut self) {
        if self.status.is_none() && self.child.try_wait().ok().flatten().is_none() {
            self.signal(Signal::SIGINT);
            let deadline = Instant::now() + Duration::from_secs(5);
            while Instant::now() < deadline && self.child.try_wait().ok().flatten().is_none() {
                std::thread::sleep(Duration::from_millis(20));
            }
            self.signal(Signal::SIGKILL);
            self.status = self.child.wait().ok();
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.stop();
        if std::thread::panicking() {
            eprintln!("{}", self.dump());
        }
    }
}

/// A wrapper running the program in a private mount namespace whose /dev/shm is a fresh tmpfs
/// mounted with `mount_options` (e.g. `ro,size=64k`); the namespace disappears with the process.
pub fn in_private_dev_shm(mount_options: &str) -> Vec<String> {
    let script = format!("mount -t tmpfs -o {mount_options} tmpfs /dev/shm && exec \"$0\" \"$@\"");
    [
        "unshare",
        "--mount",
        "--propagation",
        "private",
        "sh",
        "-c",
        &script,
    ]
    .map(String::from)
    .to_vec()
}

/// A wrapper running the program as an ordinary user's process would for locked memory: the
/// default 8 MiB limit, and no CAP_IPC_LOCK (root could lock beyond the limit).
pub fn with_memlock_limit_of_an_ordinary_user() -> Vec<String> {
    [
        "setpriv",
        "--inh-caps=-ipc_lock",
        "--bounding-set=-ipc_lock",
        "prlimit",
        "--memlock=8388608",
    ]
    .map(String::from)
    .to_vec()
}

/// Removes, once per test run, the /dev/shm segments earlier test binaries left behind (zenoh
/// unlinks a segment only when no process maps it; a test process that received SHM keeps its
/// mappings until it exits, so the next binary is the first that can remove them).
fn remove_orphaned_segments_once() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(remove_orphaned_segments);
}

/// Runs `zshm shm-clean` in a child process: calling zenoh's cleanup here would set up zenoh's
/// SHM state in this test process, whose own segments then outlive the test.
fn remove_orphaned_segments() {
    let status = std::process::Command::new(ZSHM)
        .arg("shm-clean")
        .stdout(Stdio::null())
        .status();
    assert!(status.is_ok_and(|s| s.success()), "zshm shm-clean failed");
}

/// A `zshm router` on an ephemeral loopback port.
pub struct Router {
    /// The process.
    pub proc: Proc,
    /// Its listen locator, e.g. `tcp/127.0.0.1:40123`.
    pub locator: String,
    /// Its metrics URL, e.g. `http://127.0.0.1:40124/metrics` (empty with --no-metrics).
    pub metrics: String,
}

impl Router {
    /// Starts `zshm router -l tcp/127.0.0.1:0 <extra>` and reads back its real port.
    pub fn start(extra: &[&str]) -> Self {
        let mut args = vec!["router", "-l", "tcp/127.0.0.1:0", "--metrics", "127.0.0.1:0"];
        args.extend_from_slice(extra);
        Self::launch(Spawn::zshm("router", &args), "tcp/127.0.0.1:")
    }

    /// Starts a router spawned as `spawn` (which must listen on port 0 somewhere and serve
    /// metrics on port 0) and reads back the locator starting with `prefix`.
    pub fn launch(spawn: Spawn, prefix: &str) -> Self {
        Self::read_back(spawn.start(), prefix)
    }

    /// Reads the TCP locator and metrics URL of a router started otherwise (in a namespace, on a
    /// given port).
    pub fn started(proc: Proc) -> Self {
        Self::read_back(proc, "tcp/")
    }

    fn read_back(proc: Proc, prefix: &str) -> Self {
        let status = proc.wait_for_stdout("status line", |l| l.starts_with("zshm router: listening on "));
        let locator = status
            .split([' ', ',', ';'])
            .find(|word| word.starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix} locator in `{status}`"))
            .to_owned();
        let metrics = status
            .rsplit("metrics ")
            .next()
            .filter(|m| m.starts_with("http"))
            .unwrap_or("")
            .to_owned();
        Router {
            proc,
            locator,
            metrics,
        }
    }
}

impl Drop for Router {
    fn drop(&mut self) {
        self.proc.stop();
        // Segments left by the processes of this test are removed once nobody maps them.
        remove_orphaned_segments();
    }
}

/// A private lane domain for one test (`ZSHM_LANE_ROOT`), owned by `uid`: its directory and its
/// files in /dev/shm are removed when it drops, whatever the processes left.
pub struct LaneRoot {
    /// The directory.
    pub path: String,
    uid: u32,
}

impl LaneRoot {
    /// A fresh root for the test `name`, for processes of `uid`.
    pub fn new(name: &str, uid: u32) -> Self {
        let path = format!("/tmp/zl-{}-{name}", std::process::id());
        assert!(
            path.len() <= zshm::internal::lane::domain::MAX_ROOT_LEN,
            "{path} is too long"
        );
        Self { path, uid }
    }

    /// The domain's files in /dev/shm now.
    pub fn dev_shm_files(&self) -> Vec<String> {
        let prefix = zshm::internal::lane::domain::prefix_of(self.uid, std::path::Path::new(&self.path));
        let mut files: Vec<String> = std::fs::read_dir("/dev/shm")
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with(&prefix))
            .collect();
        files.sort();
        files
    }

    /// The domain's doorbell directory in /dev/shm (`zshm::internal::lane::domain::bells_dir`).
    pub fn bells_dir(&self) -> std::path::PathBuf {
        zshm::internal::lane::domain::bells_dir_of(
            std::path::Path::new("/dev/shm"),
            self.uid,
            std::path::Path::new(&self.path),
        )
    }

    /// The executors' doorbells now (named pipes `bell-<key>`, see
    /// `zshm::internal::lane::doorbell`).
    pub fn doorbells(&self) -> Vec<String> {
        let mut found: Vec<String> = std::fs::read_dir(self.bells_dir())
            .into_iter()
            .flatten()
            .flatten()
            .filter(|entry| entry.file_name().to_string_lossy().starts_with("bell-"))
            .map(|entry| entry.path().display().to_string())
            .collect();
        found.sort();
        found
    }
}

impl Drop for LaneRoot {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
        let _ = std::fs::remove_dir_all(self.bells_dir());
        for file in self.dev_shm_files() {
            let _ = std::fs::remove_file(format!("/dev/shm/{file}"));
        }
    }
}

/// GETs `url` and returns the body (panics on any HTTP or network error).
pub fn http_get(url: &str) -> String {
    ureq::get(url)
        .call()
        .unwrap_or_else(|e| panic!("GET {url}: {e}"))
        .body_mut()
        .read_to_string()
        .unwrap()
}

/// The `RUST_LOG` of every process a test starts: zshm's info and zenoh's warnings, or
/// `ZSHM_TEST_LOG` when set (to chase a failure with zenoh's debug lines, for example).
fn test_log_filter() -> String {
    std::env::var("ZSHM_TEST_LOG")
        .unwrap_or_else(|_| "zshm=info,zshm_cli=info,zenoh=warn,zenoh_config=error,foxglove=warn".to_owned())
}

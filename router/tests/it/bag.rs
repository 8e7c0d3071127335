//! `zshm bag record | info | play` against the independent `rosbags` package (Python,
//! `router/tests/interop/bag_check.py`): rosbags reads what zshm records, byte for byte, and zshm
//! plays what rosbags writes. Signals: SIGINT finalises the bag; SIGKILL leaves every complete
//! chunk readable (the recorder closes a chunk at least every second).
//!
//! The Python environment comes from `$ZSHM_PYTHON`, else `.venv/bin/python` (`tools/test.sh`).

use std::path::{Path, PathBuf};
use std::time::Instant;

use nix::sys::signal::Signal;

use crate::support::{DEADLINE, Router, Spawn, repo_path};

fn python() -> String {
    let python = std::env::var("ZSHM_PYTHON").unwrap_or_else(|_| repo_path(".venv/bin/python"));
    assert!(
        Path::new(&python).exists(),
        "no Python environment at {python}: run tools/test.sh"
    );
    python
}

fn script(name: &str, args: &[&str], script: &str) -> Spawn {
    let path = repo_path(&format!("router/tests/interop/{script}"));
    let mut all = vec![path.as_str()];
    all.extend_from_slice(args);
    Spawn::program(name, &python(), &all)
}

/// `bag_check.py read DIR` as JSON.
fn rosbags_read(dir: &Path) -> serde_json::Value {
    let mut reader = script("rosbags-read", &["read", dir.to_str().unwrap()], "bag_check.py").start();
    assert_eq!(reader.wait_exit(), 0, "{}", reader.dump());
    reader.json()
}

/// The CDR of a std_msgs/String, as the Python peer encodes it.
fn string_cdr(text: &str) -> String {
    let mut out = vec![0u8, 1, 0, 0];
    out.extend_from_slice(&(text.len() as u32 + 1).to_le_bytes());
    out.extend_from_slice(text.as_bytes());
    out.push(0);
    out.iter().map(|b| format!("{b:02x}")).collect()
}

/// Messages an MCAP file holds that a streaming reader gets to, finalised or not.
fn readable_messages(path: &Path) -> usize {
    use mcap::sans_io::linear_reader::{LinearReadEvent, LinearReader};
    use std::io::Read;
    let Ok(mut file) = std::fs::File::open(path) else {
        return 0;
    };
    let mut reader = LinearReader::new();
    let mut count = 0;
    while let Some(Ok(event)) = reader.next_event() {
        match event {
            LinearReadEvent::ReadRequest(need) => {
                let read = file.read(reader.insert(need)).unwrap_or(0);
                reader.notify_read(read);
            }
            LinearReadEvent::Record { opcode, .. } => {
                count += usize::from(opcode == mcap::records::op::MESSAGE)
            }
        }
    }
    count
}

fn wait_readable(path: &Path, at_least: usize) -> usize {
    let start = Instant::now();
    loop {
        let n = readable_messages(path);
        if n >= at_least {
            return n;
        }
        assert!(
            start.elapsed() < DEADLINE,
            "only {n} of {at_least} messages readable in {}",
            path.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

fn bag_dir(name: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(name);
    (tmp, dir)
}

#[test]
fn rosbags_reads_what_zshm_records_byte_for_byte_with_types_and_qos() {
    let router = Router::start(&[]);
    let (_tmp, dir) = bag_dir("bag");
    let mut recorder = Spawn::zshm(
        "record",
        &[
            "bag",
            "record",
            "/chatter",
            "/camera/points",
            "-o",
            dir.to_str().unwrap(),
            "-e",
            &router.locator,
        ],
    )
    .start();
    recorder.wait_for_stdout("recording line", |l| l.starts_with("recording into"));
    let mut talk = script(
        "py-talk",
        &[
            "talk",
            "--connect",
            &router.locator,
            "--count",
            "20",
            "--rate",
            "50",
        ],
        "rmw_zenoh_peer.py",
    )
    .start();
    let mut camera = Spawn::zshm(
        "cam-pub",
        &[
            "cam-pub",
            "-e",
            &router.locator,
            "-n",
            "5",
            "--wait",
            "60",
            "--width",
            "320",
            "--height",
            "240",
        ],
    )
    .start();
    assert_eq!(talk.wait_exit(), 0, "{}", talk.dump());
    assert_eq!(camera.wait_exit(), 0, "{}", camera.dump());
    wait_readable(&dir.join("bag_0.mcap"), 25);
    recorder.signal(Signal::SIGINT);
    assert_eq!(recorder.wait_exit(), 0, "{}", recorder.dump());

    let bag = rosbags_read(&dir);
    assert_eq!(bag["message_count"], 25, "{}", recorder.dump());
    let connection = |topic: &str| {
        bag["connections"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["topic"] == topic)
            .unwrap_or_else(|| panic!("no {topic} in {bag}"))
            .clone()
    };
    let chatter = connection("/chatter");
    assert_eq!(chatter["msgtype"], "std_msgs/msg/String");
    assert_eq!(chatter["msgdef_format"], "MSG");
    assert_eq!(chatter["serialization_format"], "cdr");
    assert!(
        chatter["digest"].as_str().unwrap().starts_with("RIHS01_df668c74"),
        "{chatter}"
    );
    assert_eq!(
        chatter["qos"],
        serde_json::json!([{"history": "keep_last", "depth": 10, "reliability": "reliable", "durability": "volatile"}])
    );
    let points = connection("/camera/points");
    assert_eq!(points["msgtype"], "sensor_msgs/msg/PointCloud2");
    assert!(
        points["msgdef"]
            .as_str()
            .unwrap()
            .contains("\nMSG: std_msgs/Header\n"),
        "{points}"
    );

    let messages = bag["messages"].as_array().unwrap();
    let texts: Vec<&str> = messages
        .iter()
        .filter(|m| m["topic"] == "/chatter")
        .map(|m| m["hex"].as_str().unwrap())
        .collect();
    let expected: Vec<String> = (1..=20)
        .map(|k| string_cdr(&format!("Hello from Python: {k}")))
        .collect();
    assert_eq!(texts, expected, "every message byte for byte, in order");
    let clouds: Vec<u64> = messages
        .iter()
        .filter(|m| m["topic"] == "/camera/points")
        .map(|m| m["len"].as_u64().unwrap())
        .collect();
    assert_eq!(clouds.len(), 5);
    assert!(clouds.iter().all(|&len| len > 320 * 240 * 16), "{clouds:?}");
    let times: Vec<u64> = messages
        .iter()
        .map(|m| m["timestamp"].as_u64().unwrap())
        .collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "log times in order");

    let mut info = Spawn::zshm("info", &["bag", "info", dir.to_str().unwrap()]).start();
    assert_eq!(info.wait_exit(), 0, "{}", info.dump());
    let out = info.stdout().join("\n");
    assert!(out.contains("Messages:          25"), "{out}");
    assert!(
        out.contains("Topic: /chatter")
            && out.contains("Type: std_msgs/msg/String")
            && out.contains("Count: 20"),
        "{out}"
    );
}

#[test]
fn zshm_plays_a_bag_rosbags_wrote_and_a_subscriber_gets_every_message() {
    let (_tmp, dir) = bag_dir("written");
    let mut writer = script(
        "rosbags-write",
        &["write", dir.to_str().unwrap(), "--count", "20"],
        "bag_check.py",
    )
    .start();
    assert_eq!(writer.wait_exit(), 0, "{}", writer.dump());
    let router = Router::start(&[]);
    let mut listener = Spawn::zshm("listener", &["listener", "-e", &router.locator, "-n", "20"]).start();
    let mut play = Spawn::zshm(
        "play",
        &[
            "bag",
            "play",
            dir.to_str().unwrap(),
            "-e",
            &router.locator,
            "--wait-for-subscribers",
            "60",
            "--rate",
            "4",
        ],
    )
    .start();
    assert_eq!(listener.wait_exit(), 0, "{}\n{}", listener.dump(), play.dump());
    assert_eq!(play.wait_exit(), 0, "{}", play.dump());
    let expected: Vec<String> = (1..=20)
        .map(|k| format!("I heard: [Hello from rosbags: {k}]"))
        .collect();
    assert_eq!(listener.stdout(), expected);
    assert!(
        play.stdout().iter().any(|l| l.starts_with("played 20 messages")),
        "{}",
        play.dump()
    );
}

#[test]
fn sigint_while_clouds_flow_finalises_a_bag_rosbags_reads_whole() {
    let router = Router::start(&[]);
    let (_tmp, dir) = bag_dir("sigint");
    let mut camera = Spawn::zshm(
        "cam-pub",
        &[
            "cam-pub",
            "-e",
            &router.locator,
            "--width",
            "320",
            "--height",
            "240",
        ],
    )
    .start();
    let mut recorder = Spawn::zshm(
        "record",
        &[
            "bag",
            "record",
            "-a",
            "-o",
            dir.to_str().unwrap(),
            "-e",
            &router.locator,
        ],
    )
    .start();
    wait_readable(&dir.join("sigint_0.mcap"), 10);
    recorder.signal(Signal::SIGINT);
    assert_eq!(recorder.wait_exit(), 0, "{}", recorder.dump());
    camera.stop();
    let written: u64 = recorder
        .stdout()
        .iter()
        .find_map(|l| l.strip_prefix("recorded ")?.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no summary: {}", recorder.dump()));
    let bag = rosbags_read(&dir);
    assert_eq!(
        bag["message_count"].as_u64(),
        Some(written),
        "metadata = what the recorder wrote"
    );
    assert_eq!(bag["messages"].as_array().unwrap().len() as u64, written);
    assert!(written >= 10);
}

#[test]
fn sigkill_leaves_every_complete_chunk_readable() {
    let router = Router::start(&[]);
    let (_tmp, dir) = bag_dir("killed");
    let mut camera = Spawn::zshm(
        "cam-pub",
        &[
            "cam-pub",
            "-e",
            &router.locator,
            "--width",
            "320",
            "--height",
            "240",
        ],
    )
    .start();
    let mut recorder = Spawn::zshm(
        "record",
        &[
            "bag",
            "record",
            "-a",
            "-o",
            dir.to_str().unwrap(),
            "-e",
            &router.locator,
        ],
    )
    .start();
    let file = dir.join("killed_0.mcap");
    let before = wait_readable(&file, 10);
    recorder.signal(Signal::SIGKILL);
    recorder.wait_exit();
    camera.stop();
    let after = readable_messages(&file);
    assert!(
        after >= before,
        "{after} readable after the kill, {before} before"
    );
    let mut info = Spawn::zshm("info", &["bag", "info", dir.to_str().unwrap()]).start();
    assert_eq!(info.wait_exit(), 0, "{}", info.dump());
    let out = info.stdout().join("\n");
    assert!(
        out.contains(&format!(
            "killed_0.mcap was not finalised (recorder killed?): {after} messages readable"
        )),
        "{out}"
    );
}

#[test]
fn bad_bag_input_exits_2_with_a_message() {
    let mut info = Spawn::zshm("info", &["bag", "info", "/nonexistent/bag"]).start();
    assert_eq!(info.wait_exit(), 2, "{}", info.dump());
    assert!(info.stderr().contains("metadata.yaml"), "{}", info.dump());
    let mut record = Spawn::zshm("record", &["bag", "record"]).start();
    assert_eq!(record.wait_exit(), 2, "{}", record.dump());
    assert!(record.stderr().contains("-a"), "{}", record.dump());
}

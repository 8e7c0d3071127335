//! `zshm cam-pub` and `zshm cam-latency` between processes, plus a ROS node in this test process
//! where the test needs to control or inspect the messages themselves.

use std::time::{Duration, Instant};

use serde_json::Value;
use zshm::Session;
use zshm::msgs::Message;
use zshm::msgs::builtin_interfaces::msg::Time;
use zshm::msgs::sensor_msgs::msg::PointCloud2;
use zshm::msgs::wall_clock_nanos;
use zshm::raw::{PublisherOptions, RawPublisher};
use zshm::ros::attachment::Attachment;
use zshm_ops::tools::sim_camera::SimCamera;

use crate::support::{Router, Spawn};

/// Parses `Mean : 9.40 ms | Std : 0.82 ms | Min : 7.91 ms | Max : 12.15 ms` strictly.
fn parse_workshop_line(line: &str) -> Option<[f64; 4]> {
    let mut values = [0.0; 4];
    let parts: Vec<&str> = line.split(" | ").collect();
    if parts.len() != 4 {
        return None;
    }
    for ((part, label), value) in parts
        .iter()
        .zip(["Mean", "Std", "Min", "Max"])
        .zip(values.iter_mut())
    {
        let number = part
            .strip_prefix(label)?
            .strip_prefix(" : ")?
            .strip_suffix(" ms")?;
        let (_, decimals) = number.split_once('.')?;
        if decimals.len() != 2 {
            return None;
        }
        *value = number.parse().ok()?;
    }
    Some(values)
}

fn assert_plausible([mean, std, min, max]: [f64; 4]) {
    assert!(
        0.0 <= min && min <= mean && mean <= max && max < 5000.0,
        "mean {mean} min {min} max {max}"
    );
    assert!(std >= 0.0 && std <= max - min + 0.01, "std {std}");
}

/// Probe and simulator with `extra` flags on both; returns the probe's stdout lines.
fn probe_against_simulator(extra: &[&str]) -> Vec<String> {
    let router = Router::start(&[]);
    let mut probe_args = vec![
        "cam-latency",
        "-e",
        &router.locator,
        "-n",
        "30",
        "--window",
        "0.5",
        "--verbose",
        "--verify",
    ];
    probe_args.extend_from_slice(extra);
    let mut probe = Spawn::zshm("cam-latency", &probe_args).start();
    let mut pub_args = vec![
        "cam-pub",
        "-e",
        &router.locator,
        "-n",
        "30",
        "--wait",
        "60",
        "--pattern",
        // Every cloud must arrive: with keep-last, zenoh may drop one (and count it) when the
        // link is congested for 50 ms, which a loaded machine does over TCP.
        "--keep-all",
        "--json",
    ];
    pub_args.extend_from_slice(extra);
    let mut camera = Spawn::zshm("cam-pub", &pub_args).start();
    assert_eq!(probe.wait_exit(), 0, "{}", probe.dump());
    assert_eq!(camera.wait_exit(), 0, "{}", camera.dump());
    assert_eq!(camera.json()["counts"]["published"], 30, "{}", camera.dump());
    probe.stdout()
}

fn check_probe_output(lines: &[String], shm: &str) {
    let windows: Vec<[f64; 4]> = lines.iter().filter_map(|l| parse_workshop_line(l)).collect();
    assert!(
        windows.len() >= 2,
        "at least one window and the summary:\n{}",
        lines.join("\n")
    );
    windows.into_iter().for_each(assert_plausible);
    let summary = lines
        .iter()
        .position(|l| l.starts_with("Summary over "))
        .expect("a final summary");
    assert!(
        parse_workshop_line(lines[summary].split_once(": ").unwrap().1).is_some(),
        "{}",
        lines[summary]
    );
    let details = &lines[summary + 1];
    assert!(details.starts_with("  n=30 "), "all 30 clouds counted: {details}");
    assert!(
        details.contains(" lost=0 ") && details.contains(" invalid_stamps=0 "),
        "{details}"
    );
    assert!(details.contains(&format!(" shm={shm} ")), "{details}");
    assert!(details.ends_with("size=7.0 MiB"), "{details}");
}

#[test]
fn probe_measures_the_simulator_through_shm() {
    check_probe_output(&probe_against_simulator(&[]), "100%");
}

#[test]
fn probe_measures_the_simulator_over_tcp() {
    check_probe_output(&probe_against_simulator(&["--no-shm"]), "0%");
}

#[test]
fn probe_without_publisher_fails_within_its_timeout_and_says_what_to_check() {
    let router = Router::start(&[]);
    let started = Instant::now();
    let mut probe = Spawn::zshm(
        "cam-latency",
        &["cam-latency", "-e", &router.locator, "--timeout", "2"],
    )
    .start();
    assert_eq!(probe.wait_exit(), 1);
    assert!(started.elapsed() >= Duration::from_secs(2));
    let stderr = probe.stderr();
    for hint in [
        "no message on /camera/points within 2 s",
        "router",
        "ROS_DOMAIN_ID",
        "sensor_msgs/msg/PointCloud2",
    ] {
        assert!(stderr.contains(hint), "`{hint}` missing:\n{stderr}");
    }
}

/// A node in this process that publishes clouds with hand-made stamps and sequence numbers.
async fn raw_cloud_publisher(locator: &str) -> (Session, RawPublisher, PointCloud2) {
    // Without SHM this test process neither creates segments nor maps the probe's, so it
    // leaves nothing in /dev/shm.
    let session = Session::builder()
        .connect([locator])
        .listen(["tcp/127.0.0.1:0"])
        .no_shm(true)
        .open()
        .await
        .unwrap();
    let key = zshm::ros::keyexpr::topic_keyexpr(0, "/camera/points", &PointCloud2::TYPE);
    let publisher = session
        .declare_publisher(&key, PublisherOptions::default())
        .await
        .unwrap();
    let camera = SimCamera {
        width: 32,
        height: 24,
    };
    let mut cloud = camera.cloud_shape("test");
    cloud.data = vec![0; camera.cloud_data_len()];
    (session, publisher, cloud)
}

async fn send(publisher: &RawPublisher, cloud: &mut PointCloud2, seq: i64, stamp_ns: i64) {
    cloud.header.stamp = Time::from_nanos(stamp_ns);
    let attachment = Attachment {
        sequence_number: seq,
        source_timestamp: stamp_ns,
        source_gid: Default::default(),
    };
    let attachment = zenoh::bytes::ZBytes::from(attachment.encode().to_vec());
    publisher
        .publish_with_attachment(&cloud.to_cdr(), Some(attachment))
        .await
        .unwrap();
}

fn final_json(probe: &crate::support::Proc) -> Value {
    let last = probe.json();
    assert_eq!(last["final"], true, "{last}");
    last
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skipped_sequence_numbers_are_reported_as_lost() {
    let router = Router::start(&[]);
    let mut probe = Spawn::zshm(
        "cam-latency",
        &["cam-latency", "-e", &router.locator, "-n", "7", "--json"],
    )
    .start();
    let (session, publisher, mut cloud) = raw_cloud_publisher(&router.locator).await;
    assert!(publisher.wait_for_subscribers(Duration::from_secs(60)).await);
    for seq in [1, 2, 3, 5, 6, 9, 10] {
        send(&publisher, &mut cloud, seq, wall_clock_nanos()).await;
    }
    assert_eq!(
        tokio::task::block_in_place(|| probe.wait_exit()),
        0,
        "{}",
        probe.dump()
    );
    let report = final_json(&probe);
    assert_eq!(report["received"], 7);
    assert_eq!(report["lost"], 3, "4 and 7, 8 were skipped: {report}");
    session.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stamps_in_the_future_or_far_past_are_reported_not_averaged() {
    let router = Router::start(&[]);
    let mut probe = Spawn::zshm(
        "cam-latency",
        &["cam-latency", "-e", &router.locator, "-n", "6", "--json"],
    )
    .start();
    let (session, publisher, mut cloud) = raw_cloud_publisher(&router.locator).await;
    assert!(publisher.wait_for_subscribers(Duration::from_secs(60)).await);
    let ten_seconds = 10_000_000_000;
    let stamps = [0, 0, 1, 1, 2, 2].map(|kind| match kind {
        0 => wall_clock_nanos() + ten_seconds, // a clock ahead
        1 => 42 * 1_000_000_000,               // sim time: 42 s after the epoch
        _ => wall_clock_nanos(),
    });
    for (seq, stamp) in stamps.into_iter().enumerate() {
        send(&publisher, &mut cloud, seq as i64 + 1, stamp).await;
    }
    assert_eq!(
        tokio::task::block_in_place(|| probe.wait_exit()),
        0,
        "{}",
        probe.dump()
    );
    let report = final_json(&probe);
    assert_eq!(report["invalid_stamps"], 4, "{report}");
    assert_eq!(
        report["latency_ms"]["count"], 2,
        "only the plausible stamps are averaged: {report}"
    );
    assert!(
        report["latency_ms"]["max"].as_f64().unwrap() < 10_000.0,
        "{report}"
    );
    let stderr = probe.stderr();
    assert_eq!(
        stderr.matches("header.stamp is").count(),
        1,
        "reported once:\n{stderr}"
    );
    assert!(stderr.contains("in the future"), "{stderr}");
    session.close().await.unwrap();
}

/// The two-process check of the ROS layer: typed PointCloud2 of 4 MiB from `cam-pub`, read by
/// `cam-latency` through the borrowed view in the publisher's shared memory: same fields and
/// geometry, every data byte, contiguous sequence numbers.
#[test]
fn a_4_mib_cloud_from_another_process_arrives_through_shm_as_a_borrowed_view() {
    let router = Router::start(&[]);
    let mut probe = Spawn::zshm(
        "cam-latency",
        &[
            "cam-latency",
            "-e",
            &router.locator,
            "-n",
            "20",
            "--verify",
            "--json",
        ],
    )
    .start();
    // 1024 x 171 points of 24 bytes: 4.0 MiB of point data.
    let mut camera = Spawn::zshm(
        "cam-pub",
        &[
            "cam-pub",
            "-e",
            &router.locator,
            "-n",
            "20",
            "--wait",
            "60",
            "--pattern",
            "--width",
            "1024",
            "--height",
            "171",
        ],
    )
    .start();
    assert_eq!(
        probe.wait_exit(),
        0,
        "fields, geometry and data verified:\n{}",
        probe.dump()
    );
    assert_eq!(camera.wait_exit(), 0, "{}", camera.dump());
    let report = final_json(&probe);
    assert_eq!(report["received"], 20, "{report}");
    assert_eq!(report["lost"], 0, "contiguous sequence numbers: {report}");
    assert_eq!(
        report["shm_share"], 1.0,
        "every cloud through shared memory: {report}"
    );
    assert!(report["message_bytes"].as_u64().unwrap() > 4 << 20, "{report}");
}

#[test]
fn the_workshop_line_parser_is_strict() {
    assert_eq!(
        parse_workshop_line("Mean : 9.40 ms | Std : 0.82 ms | Min : 7.91 ms | Max : 12.15 ms"),
        Some([9.4, 0.82, 7.91, 12.15])
    );
    assert_eq!(
        parse_workshop_line("Mean : 9.4 ms | Std : 0.82 ms | Min : 7.91 ms | Max : 12.15 ms"),
        None
    );
    assert_eq!(
        parse_workshop_line("Mean: 9.40 ms | Std : 0.82 ms | Min : 7.91 ms | Max : 12.15 ms"),
        None
    );
}

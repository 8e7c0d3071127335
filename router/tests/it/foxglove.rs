//! `zshm foxglove` against the official Foxglove protocol client (`@foxglove/ws-protocol` from
//! npm, run with the machine's Node.js: `router/tests/interop/foxglove_client.cjs`) and the
//! independent Python rmw_zenoh peer as the publisher: the bytes a client receives are the
//! bytes published (a String and a 7 MB PointCloud2), a client that stops reading neither
//! delays the other nor the publisher and its drops are counted, zenoh is subscribed only
//! while a client is, and half-open connections cannot keep a client out.
//!
//! Node's packages come from `$ZSHM_NODE_MODULES`, else `target/node/node_modules`
//! (`tools/test.sh` installs them); the Python environment as in `bag.rs`.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::support::{Proc, Router, Spawn, repo_path};

fn python() -> String {
    let python = std::env::var("ZSHM_PYTHON").unwrap_or_else(|_| repo_path(".venv/bin/python"));
    assert!(
        Path::new(&python).exists(),
        "no Python environment at {python}: run tools/test.sh"
    );
    python
}

fn peer(name: &str, args: &[&str]) -> Proc {
    let script = repo_path("router/tests/interop/rmw_zenoh_peer.py");
    let mut all = vec![script.as_str()];
    all.extend_from_slice(args);
    Spawn::program(name, &python(), &all).start()
}

/// The official client: `foxglove_client.cjs URL TOPIC COUNT [--stall]`.
fn client(name: &str, url: &str, topic: &str, count: usize, stall: bool) -> Proc {
    let modules =
        std::env::var("ZSHM_NODE_MODULES").unwrap_or_else(|_| repo_path("target/node/node_modules"));
    assert!(
        Path::new(&modules).join("@foxglove/ws-protocol").exists(),
        "no @foxglove/ws-protocol under {modules}: run tools/test.sh"
    );
    let script = repo_path("router/tests/interop/foxglove_client.cjs");
    let count = count.to_string();
    let mut args = vec![script.as_str(), url, topic, count.as_str()];
    if stall {
        args.push("--stall");
    }
    Spawn::program(name, "node", &args)
        .env("NODE_PATH", &modules)
        .start()
}

/// `zshm foxglove` on a free loopback port, connected to `router`; returns it and its URL.
fn endpoint(router: &Router, extra: &[&str]) -> (Proc, String) {
    let mut args = vec!["foxglove", "--listen", "127.0.0.1:0", "-e", &router.locator];
    args.extend_from_slice(extra);
    let proc = Spawn::zshm("foxglove", &args).start();
    let line = proc.wait_for_stdout("endpoint line", |l| l.starts_with("foxglove endpoint on ws://"));
    let url = line
        .split(' ')
        .find(|w| w.starts_with("ws://"))
        .expect("a ws:// URL")
        .to_owned();
    (proc, url)
}

/// The JSON lines a client printed with `"event": event`.
fn events(proc: &Proc, event: &str) -> Vec<serde_json::Value> {
    proc.stdout()
        .iter()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["event"] == event)
        .collect()
}

/// The CDR of a std_msgs/String, as the Python peer encodes it.
fn string_cdr(text: &str) -> String {
    let mut out = vec![0u8, 1, 0, 0];
    out.extend_from_slice(&(text.len() as u32 + 1).to_le_bytes());
    out.extend_from_slice(text.as_bytes());
    out.push(0);
    out.iter().map(|b| format!("{b:02x}")).collect()
}

/// `(sent, dropped)` from the endpoint's `client ADDR left: N messages sent, D dropped` lines.
fn departures(proc: &Proc) -> Vec<(u64, u64)> {
    proc.stdout()
        .iter()
        .filter(|l| l.starts_with("client ") && l.contains(" left: "))
        .map(|l| {
            let numbers: Vec<u64> = l
                .rsplit(": ")
                .next()
                .unwrap()
                .split(|c: char| !c.is_ascii_digit())
                .filter_map(|w| w.parse().ok())
                .collect();
            (numbers[0], numbers[1])
        })
        .collect()
}

/// Issue 21, part 2: a String and 7 MB point clouds reach the official client byte for byte,
/// with the channel's schema from the interface packages; a client that stops reading loses
/// its oldest messages (counted) while the other client and the publisher go on; zenoh's
/// subscription goes when the last client leaves (the publisher sees its subscriber go).
#[test]
fn clients_get_the_published_bytes_and_a_stalled_client_drops_without_delaying_anyone() {
    let router = Router::start(&[]);
    let (mut fox, url) = endpoint(&router, &["--client-queue", "4"]);

    // A String: in order, byte for byte.
    let mut talk = peer(
        "py-talk",
        &[
            "talk",
            "--connect",
            &router.locator,
            "--topic",
            "/chatter",
            "--count",
            "20",
            "--rate",
            "50",
        ],
    );
    let mut strings = client("fox-strings", &url, "/chatter", 20, false);
    assert_eq!(strings.wait_exit(), 0, "{}\n{}", strings.dump(), fox.dump());
    let channel = &events(&strings, "advertised")[0]["channel"];
    assert_eq!(channel["encoding"], "cdr");
    assert_eq!(channel["schemaName"], "std_msgs/msg/String");
    assert_eq!(channel["schemaEncoding"], "ros2msg");
    assert!(
        channel["schema"].as_str().unwrap().contains("string data"),
        "the definition from the interface packages: {channel}"
    );
    let received: Vec<String> = events(&strings, "message")
        .iter()
        .map(|m| m["hex"].as_str().unwrap().to_owned())
        .collect();
    let expected: Vec<String> = (1..=20)
        .map(|k| string_cdr(&format!("Hello from Python: {k}")))
        .collect();
    assert_eq!(received, expected, "every message byte for byte, in order");
    assert_eq!(talk.wait_exit(), 0, "{}", talk.dump());
    assert_eq!(
        talk.json()["subscriber_left"],
        true,
        "the last client left, so zshm unsubscribed: {}",
        fox.dump()
    );

    // 7 MB point clouds to a client that reads and one that stops reading. The publisher is
    // reliable KEEP_ALL (zenoh's BLOCK): at KEEP_LAST zenoh may drop a copy over TCP when the link
    // is congested (3 of 20 once beside two busy loops), and the endpoint never sees it.
    let count = 20;
    let mut send = peer(
        "py-send",
        &[
            "send",
            "--keep-all",
            "--connect",
            &router.locator,
            "--type",
            "sensor_msgs/msg/PointCloud2",
            "--topic",
            "/points",
            "--count",
            &count.to_string(),
            "--rate",
            "5",
            "--timeout",
            "60",
        ],
    );
    let mut reader = client("fox-reader", &url, "/points", count, false);
    fox.wait_for_stdout("the reader's subscription", |l| {
        l == "/points: 1 client(s) subscribed"
    });
    let stalled = client("fox-stalled", &url, "/points", count, true);
    fox.wait_for_stdout("the stalled client's subscription", |l| {
        l == "/points: 2 client(s) subscribed"
    });
    assert_eq!(reader.wait_exit(), 0, "{}\n{}", reader.dump(), fox.dump());

    let channel = &events(&reader, "advertised")[0]["channel"];
    assert_eq!(channel["schemaName"], "sensor_msgs/msg/PointCloud2");
    assert!(
        channel["schema"]
            .as_str()
            .unwrap()
            .contains("\nMSG: sensor_msgs/PointField\n"),
        "{channel}"
    );
    // The stalled client still holds its connection, not reading, while the other finished.
    assert!(events(&stalled, "message").len() < count, "{}", stalled.dump());

    drop(stalled); // SIGINT, then SIGKILL: its socket closes
    assert_eq!(send.wait_exit(), 0, "{}", send.dump());
    let sent = send.json();
    assert_eq!(sent["published"], count);
    assert_eq!(
        sent["subscriber_left"],
        true,
        "zshm unsubscribed after the last client: {}",
        fox.dump()
    );
    let clouds = events(&reader, "message");
    assert_eq!(clouds.len(), count, "the reading client got every cloud");
    for cloud in &clouds {
        assert_eq!(cloud["len"], sent["bytes"]);
        assert_eq!(cloud["sha256"], sent["sha256"], "byte for byte");
    }
    assert!(sent["bytes"].as_u64().unwrap() > 7_000_000, "{sent}");

    let deadline = Instant::now() + crate::support::DEADLINE;
    while departures(&fox).len() < 3 {
        assert!(
            Instant::now() < deadline,
            "three clients never left: {}",
            fox.dump()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    fox.signal(nix::sys::signal::Signal::SIGINT);
    assert_eq!(fox.wait_exit(), 0, "{}", fox.dump());
    let mut gone = departures(&fox);
    gone.sort_by_key(|&(_, dropped)| dropped);
    assert_eq!(
        gone[..2],
        [(20, 0), (count as u64, 0)],
        "the String client and the reading one: all sent, none dropped: {}",
        fox.dump()
    );
    let (stalled_sent, stalled_dropped) = gone[2];
    assert!(
        stalled_dropped > 0,
        "the stalled client's drops are counted: {}",
        fox.dump()
    );
    assert!(stalled_sent + stalled_dropped <= count as u64);
    let summary = fox.stdout().last().cloned().unwrap_or_default();
    assert!(
        summary.contains("3 clients") && summary.contains(&format!("{stalled_dropped} dropped")),
        "{summary}"
    );
    let warnings = fox
        .stderr()
        .matches("reads slower than its topics arrive")
        .count();
    assert_eq!(
        warnings,
        1,
        "the drops are logged once for the client: {}",
        fox.dump()
    );
}

/// A WebSocket upgrade request for the Foxglove protocol.
const UPGRADE: &[u8] = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\
Sec-WebSocket-Protocol: foxglove.sdk.v1\r\n\r\n";

/// Connects, upgrades and reads until the server's `serverInfo` arrives; the bytes read.
fn handshake(addr: &str) -> Result<String, String> {
    let mut stream = TcpStream::connect(addr).map_err(|e| e.to_string())?;
    // A guard against a hang only; the test asserts delivery, not time.
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .map_err(|e| e.to_string())?;
    stream.write_all(UPGRADE).map_err(|e| e.to_string())?;
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&got).contains("\"serverInfo\"") {
        let n = stream
            .read(&mut buf)
            .map_err(|e| format!("{e} after {:?}", String::from_utf8_lossy(&got)))?;
        if n == 0 {
            return Err(format!("closed after {:?}", String::from_utf8_lossy(&got)));
        }
        got.extend_from_slice(&buf[..n]);
    }
    Ok(String::from_utf8_lossy(&got).into_owned())
}

/// Issue 21, part 4 for the Foxglove endpoint: half-open connections (half an upgrade request,
/// then silence) are shed at the cap and closed at the handshake deadline, so 500 of them do
/// not keep a real client out.
#[test]
fn half_open_connections_do_not_keep_a_client_out_and_are_closed_by_the_endpoint() {
    let router = Router::start(&[]);
    let (fox, url) = endpoint(&router, &[]);
    let addr = url.trim_start_matches("ws://").to_owned();
    let first = handshake(&addr).expect("a client gets in");
    assert!(first.starts_with("HTTP/1.1 101"), "{first}");

    let mut half_open = Vec::new();
    for i in 0..500 {
        let mut stream = TcpStream::connect(&addr).expect("loopback connect");
        let _ = stream.write_all(b"GET / HTTP/1.1\r\nUpgr");
        half_open.push(stream);
        if i % 100 == 99 {
            let got = handshake(&addr);
            assert!(
                got.as_ref().is_ok_and(|g| g.starts_with("HTTP/1.1 101")),
                "a client among {} half-open connections: {got:?}\n{}",
                half_open.len(),
                fox.dump()
            );
        }
    }

    let mut closed = 0;
    let deadline = Instant::now() + Duration::from_secs(30);
    for stream in &mut half_open {
        let left = deadline
            .saturating_duration_since(Instant::now())
            .max(Duration::from_millis(10));
        stream.set_read_timeout(Some(left)).expect("set timeout");
        let mut buf = [0u8; 64];
        // EOF or a reset: closed by the endpoint. A timeout: still held.
        match stream.read(&mut buf) {
            Ok(0) => closed += 1,
            Ok(_) => {}
            Err(e)
                if e.kind() != std::io::ErrorKind::WouldBlock && e.kind() != std::io::ErrorKind::TimedOut =>
            {
                closed += 1
            }
            Err(_) => {}
        }
    }
    assert_eq!(closed, 500, "half-open connections the endpoint closed by itself");
    let stderr = fox.stderr();
    assert_eq!(
        stderr.matches("connection cap reached").count(),
        1,
        "shedding is logged once: {stderr}"
    );
}

/// The official client's services and parameters modes: `foxglove_rpc.cjs URL MODE NAME ARG`.
fn rpc(name: &str, url: &str, mode: &str, target: &str, arg: &str) -> Proc {
    let modules =
        std::env::var("ZSHM_NODE_MODULES").unwrap_or_else(|_| repo_path("target/node/node_modules"));
    let script = repo_path("router/tests/interop/foxglove_rpc.cjs");
    Spawn::program(name, "node", &[script.as_str(), url, mode, target, arg])
        .env("NODE_PATH", &modules)
        .start()
}

/// The CDR of an `example_interfaces/srv/AddTwoInts` request or response (int64s), in hex.
fn int64s_cdr(values: &[i64]) -> String {
    let mut out = vec![0u8, 1, 0, 0];
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.iter().map(|b| format!("{b:02x}")).collect()
}

/// Issue 21, the `services` capability: the independent Python rmw_zenoh peer's AddTwoInts
/// server is offered with its type and the definitions of its request and response; the official
/// client's call reaches it and the reply comes back byte for byte. A server that never answers
/// gives the client the protocol's call failure, naming the service, instead of silence.
#[test]
fn a_foxglove_client_calls_a_ros_service_and_a_server_that_never_answers_fails_the_call() {
    let router = Router::start(&[]);
    let (mut fox, url) = endpoint(&router, &[]);
    let mut server = peer(
        "py-serve",
        &[
            "serve",
            "--connect",
            &router.locator,
            "--topic",
            "/add_two_ints",
            "--count",
            "1",
        ],
    );
    let mut call = rpc("fox-call", &url, "call", "/add_two_ints", &int64s_cdr(&[2, 3]));
    assert_eq!(call.wait_exit(), 0, "{}\n{}", call.dump(), fox.dump());
    let service = &events(&call, "service")[0]["service"];
    assert_eq!(service["type"], "example_interfaces/srv/AddTwoInts", "{service}");
    assert_eq!(service["request"]["encoding"], "cdr", "{service}");
    assert_eq!(service["request"]["schemaEncoding"], "ros2msg", "{service}");
    assert!(
        service["request"]["schema"].as_str().unwrap().contains("int64 a"),
        "{service}"
    );
    assert!(
        service["response"]["schema"]
            .as_str()
            .unwrap()
            .contains("int64 sum"),
        "{service}"
    );
    assert_eq!(
        events(&call, "response")[0]["hex"],
        int64s_cdr(&[5]),
        "{}",
        call.dump()
    );
    assert_eq!(
        server.wait_exit(),
        0,
        "the server got the request: {}",
        server.dump()
    );

    let mut silent = peer(
        "py-silent",
        &[
            "serve",
            "--connect",
            &router.locator,
            "--topic",
            "/stuck",
            "--count",
            "1",
            "--silent",
        ],
    );
    let mut stuck = rpc("fox-stuck", &url, "call", "/stuck", &int64s_cdr(&[1, 1]));
    assert_eq!(stuck.wait_exit(), 0, "{}\n{}", stuck.dump(), fox.dump());
    let failure = events(&stuck, "failure");
    assert_eq!(failure.len(), 1, "{}", stuck.dump());
    let message = failure[0]["message"].as_str().unwrap();
    assert!(
        message.contains("service /stuck")
            && ["went away", "did not answer", "without a reply"]
                .iter()
                .any(|why| message.contains(why)),
        "zshm's call error: {message}"
    );
    silent.signal(nix::sys::signal::Signal::SIGINT);
    let _ = silent.wait_exit();
    fox.signal(nix::sys::signal::Signal::SIGINT);
    assert_eq!(fox.wait_exit(), 0, "{}", fox.dump());
}

/// Issue 21, the `parameters` capability: the official client reads a running camera's
/// parameters by foxglove_bridge's names (`/sim_camera.rate`), sets its double `rate` with a
/// whole number (the node gets a double, as Foxglove's panel expects) and hears the change from
/// `/parameter_events`; `zshm param get` then reads the new value from the node itself.
#[test]
fn a_foxglove_client_reads_sets_and_follows_a_nodes_parameters() {
    let router = Router::start(&[]);
    let (mut fox, url) = endpoint(&router, &[]);
    let mut cam = Spawn::zshm(
        "cam-pub",
        &[
            "cam-pub",
            "-e",
            &router.locator,
            "--width",
            "8",
            "--height",
            "4",
            "--report",
            "100",
            "--ros-args",
            "-p",
            "rate:=5.0",
        ],
    )
    .start();
    let mut params = rpc("fox-params", &url, "params", "/sim_camera.rate", "2");
    assert_eq!(params.wait_exit(), 0, "{}\n{}", params.dump(), fox.dump());
    let all = &events(&params, "all")[0]["parameters"];
    let find = |list: &serde_json::Value, name: &str| {
        list.as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no {name} in {list}"))
    };
    let rate = find(all, "/sim_camera.rate");
    assert_eq!(
        (rate["value"].as_f64(), &rate["type"]),
        (Some(5.0), &serde_json::json!("float64")),
        "{rate}"
    );
    assert_eq!(find(all, "/sim_camera.width")["value"], 8, "{all}");
    assert_eq!(find(all, "/sim_camera.use_sim_time")["value"], false, "{all}");
    let set = find(&events(&params, "set")[0]["parameters"], "/sim_camera.rate");
    assert_eq!(set["value"].as_f64(), Some(2.0), "{set}");
    let update = find(&events(&params, "update")[0]["parameters"], "/sim_camera.rate");
    assert_eq!(update["value"].as_f64(), Some(2.0), "{update}");

    let mut get = Spawn::zshm(
        "param-get",
        &["param", "get", "/sim_camera", "rate", "-e", &router.locator],
    )
    .start();
    assert_eq!(get.wait_exit(), 0, "{}", get.dump());
    assert_eq!(get.stdout(), ["Double value is: 2.0"], "{}", get.dump());
    cam.signal(nix::sys::signal::Signal::SIGINT);
    assert_eq!(cam.wait_exit(), 0, "{}", cam.dump());
    fox.signal(nix::sys::signal::Signal::SIGINT);
    assert_eq!(fox.wait_exit(), 0, "{}", fox.dump());
}

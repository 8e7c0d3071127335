//! ros2/rmw_zenoh#978 (eclipse-zenoh/zenoh#2628) on the zenoh line zshm runs: before zenoh 1.10's
//! reliable SHM handoff, a receiver whose thread stalls for more than about 100 ms can find a
//! request's shared-memory buffer invalidated, and the request is gone without a word; rmw_zenoh
//! clients then wait for their 600 s query timeout. Here the server is starved by a busy loop
//! while 4 MiB requests and 4 MiB replies go through shared memory: every call must come back,
//! answered byte for byte or with a typed error (the client's timeout for a request zenoh lost,
//! `NoReply` for a reply zenoh lost, whose end of query still came), never pending, and the
//! server must answer again once it has the CPU back.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use zshm::ros::{CallError, Node, NodeOptions};

use crate::support::bench_interfaces::zshm_bench::srv::{Blob, Blob_Request, Blob_Response};
use crate::support::{DEADLINE, Router, Spawn, ZSHM};

/// Bytes of each request's and each reply's CDR, about.
const PAYLOAD: usize = 4 << 20;

/// Calls made while the server is starved.
const CALLS: usize = 20;

/// Each call's timeout.
const CALL_TIMEOUT: Duration = Duration::from_secs(3);

/// The busy loop runs this long, then pauses for [`PAUSE`]: the server, which only runs while
/// the loop is paused, stalls far beyond zenoh's 100 ms at each turn.
const STARVE: Duration = Duration::from_millis(400);
const PAUSE: Duration = Duration::from_millis(100);

/// What one call gave.
#[derive(Debug, PartialEq)]
enum Outcome {
    Answered,
    /// The request never reached the server (zenoh dropped it at the server's side).
    TimedOut,
    /// The reply never reached the client: zenoh dropped it and the query's end came alone.
    NoReply,
}

fn check(result: Result<Blob_Response, CallError>) -> Result<Outcome, String> {
    match result {
        Ok(response) if response.data.len() == PAYLOAD - 8 && response.data.iter().all(|&b| b == 7) => {
            Ok(Outcome::Answered)
        }
        Ok(response) => Err(format!("a reply of {} wrong bytes", response.data.len())),
        Err(CallError::Timeout { .. }) => Ok(Outcome::TimedOut),
        Err(CallError::NoReply { detail: None, .. }) => Ok(Outcome::NoReply),
        Err(other) => Err(format!("{other}")),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_starved_server_answers_each_4_mib_call_or_its_client_times_out_never_silently() {
    let router = Router::start(&[]);
    let e = router.locator.as_str();
    // The server runs on CPU 0, where a busy loop will starve it. Its reply is `PAYLOAD` bytes
    // of CDR (the bench's `zshm_bench/srv/Blob`, a `uint8[]` of 7s).
    let payload = PAYLOAD.to_string();
    let mut server = Spawn::program(
        "starved server",
        "taskset",
        &[
            "-c",
            "0",
            ZSHM,
            "bench-service",
            "--server",
            "--mode",
            "shm-copy",
            "--case",
            "starved",
            "--payload",
            &payload,
            "-e",
            e,
            "--timeout",
            "60",
        ],
    )
    .start();
    server.wait_for_stdout("the server's ready line", |l| l == "ready");

    let session = zshm::Session::builder()
        .connect([e])
        .listen(["tcp/127.0.0.1:0"])
        .open()
        .await
        .unwrap();
    let node = Node::new(&session, "starved_client", NodeOptions::default())
        .await
        .unwrap();
    let client = node.create_client::<Blob>("/bench/starved/rtt").await.unwrap();
    assert!(
        client.wait_for_service_async(DEADLINE).await,
        "the server is seen"
    );
    // The request's CDR is as big as the reply's.
    let request = Blob_Request {
        data: vec![b'r'; PAYLOAD - 8],
    };
    assert_eq!(
        check(client.call_async(&request, DEADLINE).await),
        Ok(Outcome::Answered),
        "the server answers before it is starved"
    );

    // At SCHED_IDLE only while starved: it then runs only while the loop is paused. Before and
    // after, it competes as any process, so that on a machine loaded by others its answers
    // before and after the starving come within the deadline.
    set_policy(&server, "--idle");
    let busy = Spawn::program(
        "busy loop",
        "taskset",
        &["-c", "0", "sh", "-c", "while :; do :; done"],
    )
    .start();
    let busy_pid = Pid::from_raw(busy.pid() as i32);
    let starving = Arc::new(AtomicBool::new(true));
    let pacer = {
        let starving = starving.clone();
        std::thread::spawn(move || {
            while starving.load(Ordering::Relaxed) {
                let _ = kill(busy_pid, Signal::SIGCONT);
                std::thread::sleep(STARVE);
                let _ = kill(busy_pid, Signal::SIGSTOP);
                std::thread::sleep(PAUSE);
            }
            let _ = kill(busy_pid, Signal::SIGCONT);
        })
    };

    let before = session.stats().snapshot();
    let mut outcomes = Vec::new();
    for call in 0..CALLS {
        // The client's own timeout must end every call; a call still pending long after it is
        // one silently lost.
        let result = tokio::time::timeout(CALL_TIMEOUT * 5, client.call_async(&request, CALL_TIMEOUT))
            .await
            .unwrap_or_else(|_| panic!("call {call} neither answered nor timed out: lost"));
        outcomes.push(check(result).unwrap_or_else(|e| panic!("call {call}: {e}\n{}", server.dump())));
    }
    starving.store(false, Ordering::Relaxed);
    pacer.join().unwrap();
    drop(busy);
    set_policy(&server, "--other");
    let after = session.stats().snapshot();

    let count = |kind: Outcome| outcomes.iter().filter(|o| **o == kind).count();
    let answered = count(Outcome::Answered);
    eprintln!(
        "starved server: {answered} of {CALLS} calls answered, {} timed out, {} ended without a reply",
        count(Outcome::TimedOut),
        count(Outcome::NoReply)
    );
    assert!(
        answered >= 1,
        "some calls are answered while starved: {outcomes:?}"
    );
    assert!(
        after.received_shm_bytes - before.received_shm_bytes >= (answered * (PAYLOAD - 8)) as u64,
        "the replies came through shared memory: {before:?} → {after:?}"
    );
    // Fed again, the server answers: nothing of the starved calls wedged it.
    assert_eq!(
        check(client.call_async(&request, DEADLINE).await),
        Ok(Outcome::Answered),
        "the server answers once it has the CPU back"
    );

    server.signal(Signal::SIGINT);
    assert_eq!(server.wait_exit(), 0, "{}", server.dump());
    let stats: serde_json::Value = server.json();
    let requests =
        stats["received_shm_messages"].as_u64().unwrap() + stats["received_net_messages"].as_u64().unwrap();
    eprintln!(
        "starved server: {requests} of {} requests reached the server",
        CALLS + 2
    );
    assert!(
        stats["received_shm_messages"].as_u64().unwrap() >= answered as u64 + 2,
        "the requests (the answered ones, the first and the last) came through shared memory: {stats}"
    );
}

/// Sets the scheduling policy (`chrt` option, priority 0) of every thread of `server`.
fn set_policy(server: &crate::support::Proc, policy: &str) {
    let pid = server.pid().to_string();
    let status = std::process::Command::new("chrt")
        .args(["--all-tasks", policy, "--pid", "0", &pid])
        .status()
        .expect("chrt runs");
    assert!(status.success(), "chrt {policy} of the server: {status}");
}

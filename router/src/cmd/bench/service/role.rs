//! One process of the service sweep (`zshm bench-service`, started by `zshm bench`): the server
//! or the client, through zshm (`Node::create_service` / `Client::call_async`) or through plain
//! zenoh (a complete queryable / `get`), on the same key expression.
//!
//! The service type is the bench's own `zshm_bench/srv/Blob` ([`super::blob`]): its request is
//! an empty `uint8[] data` (8 bytes of CDR) and its response one `uint8[] data`, sized so that
//! the whole CDR is `--payload` bytes; plain zenoh sends the same number of bytes both ways. How the
//! response is made and read depends on the mode:
//! - `shm-copy`, `tcp` (zshm's ordinary API): the server serializes one prepared response into
//!   its buffer (one copy), the client decodes the reply into an owned response (a second copy);
//! - `shm-loan` (zshm's zero-copy API): the server loans its buffer from the SHM pool and writes
//!   the call's number into the first and last 8 bytes of the data, as a producer that writes its
//!   data in place ([`Responder::loan`](zshm::ros::Responder::loan)); the client reads the reply
//!   where the server wrote it ([`Client::call_reply_async`](zshm::ros::Client::call_reply_async));
//! - `zenoh-shm`, `zenoh-tcp`: the server copies the prepared bytes into its buffer (one copy),
//!   the client reads the reply's bytes in place.
//!
//! The client measures each call from before sending to its read response, on CLOCK_MONOTONIC,
//! one call at a time, and counts the replies that came through shared memory.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use zenoh::Wait;
use zenoh::query::{ConsolidationMode, QueryTarget};
use zshm::msgs::{Message, ServiceType};
use zshm::ros::{Node, NodeOptions, ServiceOptions};

use super::super::plan::Mode;
use super::blob::zshm_bench::srv::{Blob, Blob_Request, Blob_Response};
use crate::cli;
use crate::support::out::outln;
use crate::support::{ZenohContext, shutdown};

/// `zshm bench-service`: one process of the service sweep, started by `zshm bench`.
#[derive(Debug, Clone, clap::Args)]
pub struct ServiceArgs {
    /// Transport mode (`shm-copy` or `tcp` through zshm, `zenoh-shm` or `zenoh-tcp`).
    #[arg(long, value_enum)]
    pub mode: Mode,
    /// Case id, shared by the case's two processes.
    #[arg(long)]
    pub case: String,
    /// Bytes of the response's CDR (at least 8).
    #[arg(long, value_parser = clap::value_parser!(u64).range(8..=(1 << 30)))]
    pub payload: u64,
    /// Measured calls (the client).
    #[arg(long, default_value = "100")]
    pub count: u64,
    /// Calls made first and not measured (the client).
    #[arg(long, default_value = "10")]
    pub warmup: u64,
    /// Run the server (else the client).
    #[arg(long)]
    pub server: bool,
    /// The router.
    #[arg(short = 'e', long)]
    pub connect: String,
    /// Seconds before giving up (waiting for the server, or on one call).
    #[arg(long, value_parser = cli::seconds)]
    pub timeout: Duration,
}

/// What the client reports.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct ClientReport {
    /// Measured calls answered with a response of the expected size.
    pub answered: u64,
    /// Of those, the replies that came through shared memory.
    #[serde(default)]
    pub through_shm: u64,
    /// Measured calls that failed (no reply, wrong size).
    pub failed: u64,
    /// Round trips of the answered calls, in µs, sorted.
    pub rtt_us: Vec<f64>,
    /// The first failure, if any.
    pub error: Option<String>,
}

/// Runs the role; the client prints its report as one JSON line.
pub async fn run(args: ServiceArgs) -> anyhow::Result<ExitCode> {
    let role = async {
        match (args.server, args.mode) {
            (true, Mode::ZenohShm | Mode::ZenohTcp) => zenoh_server(&args).await,
            (false, Mode::ZenohShm | Mode::ZenohTcp) => zenoh_client(&args).await,
            (true, _) => zshm_server(&args).await,
            (false, _) => zshm_client(&args).await,
        }
    };
    if args.server {
        // A server waits for the signal itself, then says what it received.
        return role.await.map(|()| ExitCode::SUCCESS);
    }
    match shutdown::unless_signalled(role).await {
        Some(result) => result.map(|()| ExitCode::SUCCESS),
        None => Ok(ExitCode::FAILURE),
    }
}

fn service_name(args: &ServiceArgs) -> String {
    format!("/bench/{}/rtt", args.case)
}

/// Bytes of data in a response whose CDR is `payload` bytes (header 4, length 4, then the data).
fn data_len(payload: u64) -> usize {
    payload.saturating_sub(8) as usize
}

/// The response whose CDR is `payload` bytes.
fn response(payload: u64) -> Blob_Response {
    Blob_Response {
        data: vec![7; data_len(payload)],
    }
}

fn request() -> Blob_Request {
    Blob_Request { data: Vec::new() }
}

/// The marker a loaned response carries in the first and last 8 bytes of its data: the number
/// of the call (from 1), so the client sees that the bytes it reads are this call's.
fn mark(data: &mut [u8], call: u64) {
    let n = data.len();
    if n >= 8 {
        data[..8].copy_from_slice(&call.to_le_bytes());
        data[n - 8..].copy_from_slice(&call.to_le_bytes());
    }
}

/// Whether `data` carries the marker of `call` (data shorter than 8 bytes carries none).
fn marked(data: &[u8], call: u64) -> bool {
    let n = data.len();
    n < 8 || (data[..8] == call.to_le_bytes() && data[n - 8..] == call.to_le_bytes())
}

async fn zshm_session(args: &ServiceArgs) -> anyhow::Result<zshm::Session> {
    zshm::Session::builder()
        .connect([args.connect.as_str()])
        .listen(["tcp/127.0.0.1:0"])
        .no_shm(!args.mode.shm())
        .open()
        .await
        .context("cannot open the session")
}

async fn zenoh_session(args: &ServiceArgs) -> anyhow::Result<zenoh::Session> {
    let mut request = zshm::config::ConfigRequest::new(zshm::Role::Session);
    request.connect = vec![args.connect.clone()];
    request.listen = vec!["tcp/127.0.0.1:0".into()];
    request.no_shm = !args.mode.shm();
    let resolved = zshm::config::resolve(&request, &zshm::config::Environment::from_process())?;
    zenoh::open(resolved.zenoh)
        .await
        .zenoh_context("cannot open zenoh")
}

/// The key expression zshm's service has (`<domain>/<name>/<dds type>/<hash>`), for plain zenoh.
fn raw_key(args: &ServiceArgs) -> String {
    zshm::ros::keyexpr::topic_keyexpr(0, &service_name(args), &Blob::TYPE)
}

async fn zshm_server(args: &ServiceArgs) -> anyhow::Result<()> {
    let session = zshm_session(args).await?;
    let node = Node::new(&session, "bench_server", NodeOptions::default()).await?;
    let prepared = response(args.payload);
    let (loans, len) = (args.mode.loans(), data_len(args.payload));
    let mut calls = 0;
    let _service = node
        .create_service_with::<Blob>(
            &service_name(args),
            ServiceOptions::default(),
            move |_request, responder| {
                calls += 1;
                let sent = if loans {
                    let mut loan = responder.loan(&Blob_Response::default(), len);
                    mark(loan.data_mut(), calls);
                    responder.send_loan(loan)
                } else {
                    responder.send(&prepared)
                };
                if let Err(err) = sent {
                    tracing::warn!("cannot reply: {err}");
                }
            },
        )
        .await?;
    outln!("ready");
    shutdown::signal().await?;
    drop(_service);
    drop(node);
    // What came in, and how (tests check that requests arrived through shared memory).
    outln!("{}", serde_json::to_string(&session.stats().snapshot())?);
    session.close().await?;
    Ok(())
}

async fn zenoh_server(args: &ServiceArgs) -> anyhow::Result<()> {
    let session = zenoh_session(args).await?;
    let provider = if args.mode.shm() {
        Some(
            crate::cmd::bench::shared::implicit_shm_provider(&session)
                .await
                .context("zenoh has no SHM provider")?,
        )
    } else {
        None
    };
    let prepared = response(args.payload).to_cdr();
    let key = raw_key(args);
    let queryable = session
        .declare_queryable(&key)
        .complete(true)
        .callback(move |query| {
            let sent = match &provider {
                Some(provider) => provider
                    .alloc(prepared.len())
                    .with_policy::<zenoh::shm::BlockOn<zenoh::shm::GarbageCollect>>()
                    .wait()
                    .map_err(|e| format!("{e:?}"))
                    .and_then(|mut buffer| {
                        buffer.copy_from_slice(&prepared);
                        query
                            .reply(query.key_expr().clone(), buffer)
                            .wait()
                            .map_err(|e| e.to_string())
                    }),
                None => query
                    .reply(query.key_expr().clone(), prepared.clone())
                    .wait()
                    .map_err(|e| e.to_string()),
            };
            if let Err(err) = sent {
                tracing::warn!("cannot reply: {err}");
            }
        })
        .await
        .zenoh_context("cannot declare the queryable")?;
    outln!("ready");
    shutdown::signal().await?;
    drop(queryable);
    session.close().await.zenoh_context("cannot close zenoh")?;
    Ok(())
}

async fn zshm_client(args: &ServiceArgs) -> anyhow::Result<()> {
    let session = zshm_session(args).await?;
    let node = Node::new(&session, "bench_client", NodeOptions::default()).await?;
    let client = node.create_client::<Blob>(&service_name(args)).await?;
    anyhow::ensure!(
        client.wait_for_service_async(args.timeout).await,
        "no server within {:?}",
        args.timeout
    );
    let request = request();
    let expected = data_len(args.payload);
    let wrong_size = |len: usize| format!("{len} bytes of response data, {expected} expected");
    let mut calls = 0;
    let report = measure(args, async || {
        calls += 1;
        if args.mode.loans() {
            // Read in place: the marker's bytes are the server's, where it wrote them.
            let reply = client
                .call_reply_async(&request, args.timeout)
                .await
                .map_err(|e| e.to_string())?;
            let view = reply.view().map_err(|e| e.to_string())?;
            if view.data.len() != expected {
                return Err(wrong_size(view.data.len()));
            }
            if !marked(view.data, calls) {
                return Err(format!("call {calls}: the data carries another call's marker"));
            }
            Ok(reply.is_shm())
        } else {
            let reply = client
                .call_reply_async(&request, args.timeout)
                .await
                .map_err(|e| e.to_string())?;
            let response = reply.decode().map_err(|e| e.to_string())?;
            std::hint::black_box(response.data.last().copied());
            if response.data.len() != expected {
                return Err(wrong_size(response.data.len()));
            }
            Ok(reply.is_shm())
        }
    })
    .await;
    outln!("{}", serde_json::to_string(&report)?);
    drop(client);
    drop(node);
    session.close().await?;
    Ok(())
}

async fn zenoh_client(args: &ServiceArgs) -> anyhow::Result<()> {
    let session = zenoh_session(args).await?;
    let key = raw_key(args);
    let payload = request().to_cdr();
    let call = async || {
        let replies = session
            .get(&key)
            .payload(payload.clone())
            .target(QueryTarget::AllComplete)
            .consolidation(ConsolidationMode::None)
            .timeout(args.timeout)
            .await
            .map_err(|e| e.to_string())?;
        let reply = replies.recv_async().await.map_err(|_| "no reply".to_owned())?;
        let sample = reply.result().map_err(|e| format!("error reply: {e:?}"))?;
        let bytes = sample.payload().to_bytes();
        std::hint::black_box(bytes.last().copied());
        if bytes.len() as u64 == args.payload {
            Ok(sample.payload().as_shm().is_some())
        } else {
            Err(format!(
                "{} bytes of response, {} expected",
                bytes.len(),
                args.payload
            ))
        }
    };
    // The server's queryable is there once a call is answered.
    let deadline = Instant::now() + args.timeout;
    while call().await.is_err() {
        anyhow::ensure!(Instant::now() < deadline, "no server within {:?}", args.timeout);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let report = measure(args, call).await;
    outln!("{}", serde_json::to_string(&report)?);
    session.close().await.zenoh_context("cannot close zenoh")?;
    Ok(())
}

/// Makes the warm-up calls, then the measured ones, one at a time; a call says whether its reply
/// came through shared memory.
async fn measure(args: &ServiceArgs, mut call: impl AsyncFnMut() -> Result<bool, String>) -> ClientReport {
    let mut report = ClientReport::default();
    for index in 0..args.warmup + args.count {
        let start = Instant::now();
        let outcome = call().await;
        let rtt = start.elapsed();
        if index < args.warmup {
            continue;
        }
        match outcome {
            Ok(shm) => {
                report.answered += 1;
                report.through_shm += u64::from(shm);
                report.rtt_us.push(rtt.as_secs_f64() * 1e6);
            }
            Err(err) => {
                report.failed += 1;
                report.error.get_or_insert(err);
            }
        }
    }
    report.rtt_us.sort_by(f64::total_cmp);
    report
}

//! One process of the service sweep (`zshm bench-service`, started by `zshm bench`): the server
//! or the client, through zshm (`Node::create_service` / `Client::call_async`) or through plain
//! zenoh (a complete queryable / `get`), on the same key expression.
//!
//! The service type is `rcl_interfaces/srv/GetParameterTypes`, a shipped service whose response
//! is one `uint8[]` (`types`): its request is an empty `string[]` (8 bytes of CDR) and its
//! response is sized so that its whole CDR is `--payload` bytes; plain zenoh sends the same
//! number of bytes both ways. The server answers from one prepared response (zshm serializes it
//! into its buffer, zenoh copies it into its buffer: one copy each). The client measures each
//! call from before sending to its decoded response, on CLOCK_MONOTONIC, one call at a time.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use zenoh::Wait;
use zenoh::query::{ConsolidationMode, QueryTarget};
use zshm::msgs::rcl_interfaces::srv::{
    GetParameterTypes, GetParameterTypes_Request, GetParameterTypes_Response,
};
use zshm::msgs::{Message, ServiceType};
use zshm::ros::{Node, NodeOptions, ServiceOptions};

use super::super::plan::Mode;
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

/// The response whose CDR is `payload` bytes (header 4, length 4, then the bytes).
fn response(payload: u64) -> GetParameterTypes_Response {
    GetParameterTypes_Response {
        types: vec![7; payload.saturating_sub(8) as usize],
    }
}

fn request() -> GetParameterTypes_Request {
    GetParameterTypes_Request { names: Vec::new() }
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
    zshm::ros::keyexpr::topic_keyexpr(0, &service_name(args), &GetParameterTypes::TYPE)
}

async fn zshm_server(args: &ServiceArgs) -> anyhow::Result<()> {
    let session = zshm_session(args).await?;
    let node = Node::new(&session, "bench_server", NodeOptions::default()).await?;
    let prepared = response(args.payload);
    let _service = node
        .create_service_with::<GetParameterTypes>(
            &service_name(args),
            ServiceOptions::default(),
            move |_request, responder| {
                if let Err(err) = responder.send(&prepared) {
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
    let client = node
        .create_client::<GetParameterTypes>(&service_name(args))
        .await?;
    anyhow::ensure!(
        client.wait_for_service_async(args.timeout).await,
        "no server within {:?}",
        args.timeout
    );
    let request = request();
    let expected = args.payload.saturating_sub(8) as usize;
    let report = measure(args, async || {
        let response = client
            .call_async(&request, args.timeout)
            .await
            .map_err(|e| e.to_string())?;
        std::hint::black_box(response.types.last().copied());
        if response.types.len() == expected {
            Ok(())
        } else {
            Err(format!(
                "{} bytes of response data, {expected} expected",
                response.types.len()
            ))
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
            Ok(())
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

/// Makes the warm-up calls, then the measured ones, one at a time.
async fn measure(args: &ServiceArgs, mut call: impl AsyncFnMut() -> Result<(), String>) -> ClientReport {
    let mut report = ClientReport::default();
    for index in 0..args.warmup + args.count {
        let start = Instant::now();
        let outcome = call().await;
        let rtt = start.elapsed();
        if index < args.warmup {
            continue;
        }
        match outcome {
            Ok(()) => {
                report.answered += 1;
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

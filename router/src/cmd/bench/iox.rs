//! The iceoryx2 baseline (cargo feature `iceoryx2`): the floor of what shared-memory IPC can do
//! on this machine. Publisher and subscriber are separate processes, as for zenoh; the
//! subscriber sleeps on an iceoryx2 event and is woken by the publisher after each send
//! (event-driven, like zenoh's callbacks, not busy polling). Payloads are raw bytes with the
//! send time and sequence number in the first 16 bytes.

use std::process::ExitCode;

use crate::cli::BenchRoleArgs;

#[cfg(not(feature = "iceoryx2"))]
/// Without the feature there is no baseline to run.
pub fn run(_args: BenchRoleArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!(
        "this zshm was built without the iceoryx2 baseline: cargo build --release --features iceoryx2"
    )
}

#[cfg(feature = "iceoryx2")]
/// Runs the publisher or the subscriber.
pub fn run(args: BenchRoleArgs) -> anyhow::Result<ExitCode> {
    use std::time::{Duration, Instant};

    use iceoryx2::prelude::*;

    use super::role::{PubReport, SubReport, mono_ns};

    let node = NodeBuilder::new()
        .create::<ipc::Service>()
        .map_err(|e| anyhow::anyhow!("iceoryx2 node: {e:?}"))?;
    let data_name = format!("zshm-bench/{}/data", args.case);
    let event_name = format!("zshm-bench/{}/event", args.case);
    let payload = args.payload.max(16);
    let service = node
        .service_builder(
            &data_name
                .as_str()
                .try_into()
                .map_err(|e| anyhow::anyhow!("{e:?}"))?,
        )
        .publish_subscribe::<[u8]>()
        .max_publishers(1)
        .max_subscribers(32)
        .open_or_create()
        .map_err(|e| anyhow::anyhow!("iceoryx2 service: {e:?}"))?;
    let event = node
        .service_builder(
            &event_name
                .as_str()
                .try_into()
                .map_err(|e| anyhow::anyhow!("{e:?}"))?,
        )
        .event()
        .open_or_create()
        .map_err(|e| anyhow::anyhow!("iceoryx2 event: {e:?}"))?;
    let deadline = Instant::now() + Duration::from_secs_f64(args.timeout);

    if args.publisher {
        let publisher = service
            .publisher_builder()
            .initial_max_slice_len(payload)
            .create()
            .map_err(|e| anyhow::anyhow!("{e:?}"))?;
        let notifier = event
            .notifier_builder()
            .create()
            .map_err(|e| anyhow::anyhow!("{e:?}"))?;
        while service.dynamic_config().number_of_subscribers() < args.subscribers {
            anyhow::ensure!(Instant::now() < deadline, "iceoryx2 subscribers did not appear");
            std::thread::sleep(Duration::from_millis(10));
        }
        let period = (args.rate > 0.0).then(|| Duration::from_secs_f64(1.0 / args.rate));
        let mut next = Instant::now();
        let mut cpu_start = zshm::usage::cpu_seconds();
        for i in 0..args.warmup + args.count {
            if i == args.warmup {
                cpu_start = zshm::usage::cpu_seconds();
            }
            if let Some(period) = period {
                next += period;
                if let Some(wait) = next.checked_duration_since(Instant::now()) {
                    std::thread::sleep(wait);
                }
            }
            let sample = publisher
                .loan_slice_uninit(payload)
                .map_err(|e| anyhow::anyhow!("{e:?}"))?;
            // The producer writes its data in place (not timed), then the stamp, last.
            let mut sample = sample.write_from_fn(|_| i as u8);
            sample.payload_mut()[8..16].copy_from_slice(&(i + 1).to_le_bytes());
            sample.payload_mut()[0..8].copy_from_slice(&mono_ns().to_le_bytes());
            sample.send().map_err(|e| anyhow::anyhow!("{e:?}"))?;
            notifier.notify().map_err(|e| anyhow::anyhow!("{e:?}"))?;
        }
        let cpu_seconds = zshm::usage::cpu_seconds() - cpu_start;
        while service.dynamic_config().number_of_subscribers() > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        println!(
            "{}",
            serde_json::to_string(&PubReport::measured(args.count, cpu_seconds))?
        );
        return Ok(ExitCode::SUCCESS);
    }

    let subscriber = service
        .subscriber_builder()
        .create()
        .map_err(|e| anyhow::anyhow!("{e:?}"))?;
    let listener = event
        .listener_builder()
        .create()
        .map_err(|e| anyhow::anyhow!("{e:?}"))?;
    println!("ready");
    let last = args.warmup + args.count;
    let mut report = SubReport::default();
    let mut cpu_start = 0.0;
    'outer: while Instant::now() < deadline {
        // Sleeps until the publisher's event (or 100 ms, to notice the deadline).
        let _ = listener.timed_wait(|_| {}, Duration::from_millis(100));
        while let Some(sample) = subscriber.receive().map_err(|e| anyhow::anyhow!("{e:?}"))? {
            let at_ns = mono_ns();
            let bytes = sample.payload();
            std::hint::black_box(bytes[bytes.len() - 1]);
            let sent = i64::from_le_bytes(bytes[0..8].try_into()?);
            let seq = u64::from_le_bytes(bytes[8..16].try_into()?);
            if seq <= args.warmup {
                continue;
            }
            if report.received == 0 {
                cpu_start = zshm::usage::cpu_seconds();
                report.first_ns = at_ns;
            }
            report.received += 1;
            report.shm += 1;
            report.last_ns = at_ns;
            report.latencies_ns.push(at_ns - sent);
            if seq >= last {
                break 'outer;
            }
        }
    }
    report.lost = args.count.saturating_sub(report.received);
    report.cpu_seconds = zshm::usage::cpu_seconds() - cpu_start;
    report.peak_rss_bytes = zshm::usage::peak_rss_bytes();
    println!("{}", serde_json::to_string(&report)?);
    Ok(ExitCode::SUCCESS)
}

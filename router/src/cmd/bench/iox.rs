//! The iceoryx2 baseline: the floor of what shared-memory IPC can do on this machine. Publisher and subscriber are separate processes, as for zenoh; the
//! subscriber sleeps on an iceoryx2 event and is woken by the publisher after each send
//! (event-driven, like zenoh's callbacks, not busy polling). Payloads are raw bytes with the
//! send time and sequence number in the first 16 bytes.

use std::process::ExitCode;

use super::shared::RoleArgs;

/// Runs the publisher or the subscriber.
pub async fn run(args: RoleArgs) -> anyhow::Result<ExitCode> {
    use std::time::{Duration, Instant};

    use iceoryx2::prelude::*;

    use super::shared::{Arrival, Collector, mono_ns, print_report, publish_paced};

    use crate::support::out::outln;

    /// iceoryx2's errors are plain enums: keep their Debug text as the cause.
    fn iox<E: std::fmt::Debug>(what: &'static str) -> impl FnOnce(E) -> anyhow::Error {
        move |err| anyhow::anyhow!("iceoryx2 {what}: {err:?}")
    }

    // The lane's per-user domain: iceoryx2's default /tmp/iceoryx2 fails for every user but the
    // first one that created it, and its default signal mode would take SIGINT from us.
    let env = zshm::config::Environment::from_process();
    let request = zshm::config::ConfigRequest::new(zshm::Role::Session);
    let shm = zshm::config::resolve(&request, &env)?.shm;
    let root = zshm::internal::lane::domain::settings(&env, &shm, false)?.root;
    zshm::internal::lane::domain::ensure_private_dir(&root)?;
    let config = zshm::internal::lane::domain::iceoryx2_config(&root)?;
    let node = NodeBuilder::new()
        .config(&config)
        .signal_handling_mode(SignalHandlingMode::Disabled)
        .create::<ipc::Service>()
        .map_err(iox("node"))?;
    let data_name = format!("zshm-bench/{}/data", args.case);
    let event_name = format!("zshm-bench/{}/event", args.case);
    let payload = args.payload().max(16);
    let service = node
        .service_builder(&data_name.as_str().try_into().map_err(iox("service name"))?)
        .publish_subscribe::<[u8]>()
        .max_publishers(1)
        .max_subscribers(32)
        .open_or_create()
        .map_err(iox("service"))?;
    let event = node
        .service_builder(&event_name.as_str().try_into().map_err(iox("event name"))?)
        .event()
        // One kind of wake-up, as the lane's events (`zshm::lane`): the floor gets the same
        // tuning.
        .event_id_max_value(0)
        .open_or_create()
        .map_err(iox("event"))?;
    let deadline = Instant::now() + args.timeout;

    if args.publisher {
        let publisher = service
            .publisher_builder()
            .initial_max_slice_len(payload)
            .create()
            .map_err(iox("publisher"))?;
        let notifier = event.notifier_builder().create().map_err(iox("notifier"))?;
        while service.dynamic_config().number_of_subscribers() < args.subscribers as usize {
            anyhow::ensure!(Instant::now() < deadline, "iceoryx2 subscribers did not appear");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let report = publish_paced(&args, async |i| {
            let sample = publisher.loan_slice_uninit(payload).map_err(iox("loan"))?;
            // The producer writes its data in place (not timed), then the stamp, last.
            let mut sample = sample.write_from_fn(|_| i as u8);
            sample.payload_mut()[8..16].copy_from_slice(&(i + 1).to_le_bytes());
            sample.payload_mut()[0..8].copy_from_slice(&mono_ns().to_le_bytes());
            sample.send().map_err(iox("send"))?;
            notifier.notify().map_err(iox("notify"))?;
            Ok(())
        })
        .await?;
        while service.dynamic_config().number_of_subscribers() > 0 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        print_report(&report)?;
        return Ok(ExitCode::SUCCESS);
    }

    let subscriber = service.subscriber_builder().create().map_err(iox("subscriber"))?;
    let listener = event.listener_builder().create().map_err(iox("listener"))?;
    outln!("ready");
    let mut collector = Collector::new(&args);
    'outer: while Instant::now() < deadline {
        // Sleeps until the publisher's event (or 100 ms, to notice the deadline).
        let _ = listener.timed_wait(|_| {}, Duration::from_millis(100));
        while let Some(sample) = subscriber.receive().map_err(iox("receive"))? {
            let at_ns = mono_ns();
            let bytes = sample.payload();
            std::hint::black_box(bytes[bytes.len() - 1]);
            let arrival = Arrival {
                at_ns,
                sent_ns: i64::from_le_bytes(bytes[0..8].try_into()?),
                seq: u64::from_le_bytes(bytes[8..16].try_into()?),
                shm: true,
                lane: false,
            };
            if collector.record(arrival) {
                break 'outer;
            }
        }
    }
    print_report(&collector.finish())?;
    Ok(ExitCode::SUCCESS)
}

//! A node process of the topics sweep through plain iceoryx2, the floor: the same layout, raw
//! bytes with the send time and sequence number first, event-driven. Each node has one wake-up
//! event; a publisher notifies the events of its topic's readers after each send, and the
//! node's one receiving thread sleeps on its event and then drains all its subscribers (one wait
//! set per process, as a zshm executor has).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use iceoryx2::prelude::*;

use super::layout::Topic;
use super::shared::{Delivery, NodeArgs, Recorder, measure, mono_ns};
use crate::support::shutdown;

/// iceoryx2's errors are plain enums: keep their Debug text as the cause.
fn iox<E: std::fmt::Debug>(what: &'static str) -> impl FnOnce(E) -> anyhow::Error {
    move |err| anyhow::anyhow!("iceoryx2 {what}: {err:?}")
}

/// An iceoryx2 node in the lane's per-user domain (iceoryx2's default /tmp/iceoryx2 fails for
/// every user but the first), without iceoryx2's own signal handling (ours stops the process).
fn new_node() -> anyhow::Result<iceoryx2::node::Node<ipc::Service>> {
    let env = zshm::config::Environment::from_process();
    let request = zshm::config::ConfigRequest::new(zshm::Role::Session);
    let shm = zshm::config::resolve(&request, &env)?.shm;
    let root = zshm::internal::lane::domain::settings(&env, &shm, false)?.root;
    zshm::internal::lane::domain::ensure_private_dir(&root)?;
    let config = zshm::internal::lane::domain::iceoryx2_config(&root)?;
    NodeBuilder::new()
        .config(&config)
        .signal_handling_mode(SignalHandlingMode::Disabled)
        .create::<ipc::Service>()
        .map_err(iox("node"))
}

type Data = iceoryx2::service::port_factory::publish_subscribe::PortFactory<ipc::Service, [u8], ()>;
type Event = iceoryx2::service::port_factory::event::PortFactory<ipc::Service>;

/// Opens a topic's service, or creates it; several nodes race for it, so a service another
/// process is creating right now is retried.
fn data_service(
    node: &iceoryx2::node::Node<ipc::Service>,
    args: &NodeArgs,
    topic: &Topic,
) -> anyhow::Result<Data> {
    let name = format!("{}/{}", args.prefix(), topic.name());
    let name: ServiceName = name.as_str().try_into().map_err(iox("service name"))?;
    retry(|| {
        node.service_builder(&name)
            .publish_subscribe::<[u8]>()
            .max_publishers(1)
            .max_subscribers(topic.subscribers.len())
            // iceoryx2's default of 20 nodes per service is below S = 32.
            .max_nodes(topic.subscribers.len() + 1)
            .subscriber_max_buffer_size(16)
            .history_size(0)
            .open_or_create()
            .map_err(iox("service"))
    })
}

/// Opens node `index`'s wake-up event, or creates it.
fn event_service(
    node: &iceoryx2::node::Node<ipc::Service>,
    args: &NodeArgs,
    index: usize,
) -> anyhow::Result<Event> {
    let name = format!("{}/wake/{index}", args.prefix());
    let name: ServiceName = name.as_str().try_into().map_err(iox("event name"))?;
    retry(|| {
        node.service_builder(&name)
            .event()
            // One kind of wake-up, as the lane's events (`zshm::lane`): the floor gets the same
            // tuning.
            .event_id_max_value(0)
            .max_notifiers(args.workload().nodes())
            .max_listeners(2)
            .max_nodes(args.workload().nodes())
            .open_or_create()
            .map_err(iox("event"))
    })
}

fn retry<T>(mut attempt: impl FnMut() -> anyhow::Result<T>) -> anyhow::Result<T> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match attempt() {
            Ok(value) => return Ok(value),
            Err(err) if Instant::now() < deadline => {
                tracing::debug!("{err:#}; retrying");
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(err) => return Err(err),
        }
    }
}

/// Runs an iceoryx2 node.
pub async fn node(args: &NodeArgs) -> anyhow::Result<()> {
    let recorder = Recorder::new(&args.read(), args.seconds, args.trace_dir.is_some());
    let stop = Arc::new(AtomicBool::new(false));
    let (subscribed_tx, subscribed_rx) = std::sync::mpsc::channel();
    // iceoryx2's ports stay on the thread that made them: the receiving side has its own thread
    // and its own iceoryx2 node.
    let receiver = {
        let (args, stop, recorder) = (args.clone(), stop.clone(), recorder.clone());
        std::thread::Builder::new()
            .name("iox-receive".into())
            .spawn(move || receive(&args, &recorder, &stop, &subscribed_tx))
            .context("cannot start the receiving thread")?
    };
    let result = async {
        subscribed_rx
            .recv()
            .context("the receiving thread stopped")?
            .context("cannot subscribe")?;
        publish(args, &recorder).await
    }
    .await;
    stop.store(true, Ordering::SeqCst);
    let received = receiver
        .join()
        .map_err(|_| anyhow::anyhow!("the receiving thread panicked"))?;
    result.and(received)
}

async fn publish(args: &NodeArgs, recorder: &Recorder) -> anyhow::Result<()> {
    let node = new_node()?;
    let published = args.published();
    let mut services = Vec::new();
    let mut publishers = Vec::new();
    for topic in &published {
        let service = data_service(&node, args, topic)?;
        publishers.push(
            service
                .publisher_builder()
                .initial_max_slice_len(topic.bytes.max(16))
                .create()
                .map_err(iox("publisher"))?,
        );
        services.push(service);
    }
    // One notifier per reading node, shared by the topics it reads from this node.
    let mut readers: Vec<usize> = published.iter().flat_map(|t| t.subscribers.clone()).collect();
    readers.sort_unstable();
    readers.dedup();
    let mut events = Vec::new();
    let mut notifiers = Vec::new();
    for &reader in &readers {
        let event = event_service(&node, args, reader)?;
        notifiers.push((
            reader,
            event.notifier_builder().create().map_err(iox("notifier"))?,
        ));
        events.push(event);
    }
    let deadline = Instant::now() + args.timeout;
    let everyone_there = || {
        services
            .iter()
            .zip(&published)
            .all(|(s, t)| s.dynamic_config().number_of_subscribers() >= t.subscribers.len())
            && events
                .iter()
                .all(|e| e.dynamic_config().number_of_listeners() >= 1)
    };
    while !everyone_there() {
        anyhow::ensure!(
            Instant::now() < deadline,
            "the readers of node {} did not appear",
            args.index()
        );
        if shutdown::unless_signalled(tokio::time::sleep(Duration::from_millis(10)))
            .await
            .is_none()
        {
            return Ok(());
        }
    }
    measure(args, recorder, None, async |slot, seq| {
        let topic = &published[slot];
        let bytes = topic.bytes.max(16);
        let sample = publishers[slot].loan_slice_uninit(bytes).map_err(iox("loan"))?;
        // The producer writes its data in place, then the stamp, last.
        let mut sample = sample.write_from_fn(|_| seq as u8);
        sample.payload_mut()[8..16].copy_from_slice(&seq.to_le_bytes());
        let stamp = mono_ns();
        sample.payload_mut()[0..8].copy_from_slice(&stamp.to_le_bytes());
        sample.send().map_err(iox("send"))?;
        for (reader, notifier) in &notifiers {
            if topic.subscribers.contains(reader) {
                notifier.notify().map_err(iox("notify"))?;
            }
        }
        Ok(stamp)
    })
    .await
}

/// The receiving thread: subscribes, says so, then sleeps on the node's event and drains every
/// subscriber each time it wakes, until `stop`.
fn receive(
    args: &NodeArgs,
    recorder: &Recorder,
    stop: &AtomicBool,
    subscribed: &std::sync::mpsc::Sender<anyhow::Result<()>>,
) -> anyhow::Result<()> {
    let setup = || -> anyhow::Result<_> {
        let node = new_node()?;
        let mut subscribers = Vec::new();
        for topic in args.read() {
            let service = data_service(&node, args, &topic)?;
            subscribers.push(
                service
                    .subscriber_builder()
                    .buffer_size(16)
                    .create()
                    .map_err(iox("subscriber"))?,
            );
        }
        let event = event_service(&node, args, args.index())?;
        let listener = event.listener_builder().create().map_err(iox("listener"))?;
        Ok((node, subscribers, event, listener))
    };
    let (_node, subscribers, _event, listener) = match setup() {
        Ok(ports) => {
            let _ = subscribed.send(Ok(()));
            ports
        }
        Err(err) => {
            let _ = subscribed.send(Err(anyhow::anyhow!("{err:#}")));
            return Err(err);
        }
    };
    while !stop.load(Ordering::SeqCst) {
        // Sleeps until a publisher's event (or 100 ms, to notice `stop`).
        let _ = listener.timed_wait(|_| {}, Duration::from_millis(100));
        for (slot, subscriber) in subscribers.iter().enumerate() {
            while let Some(sample) = subscriber.receive().map_err(iox("receive"))? {
                let at_ns = mono_ns();
                let bytes = sample.payload();
                if bytes.len() < 16 {
                    continue;
                }
                std::hint::black_box(bytes[bytes.len() - 1]);
                recorder.record(Delivery {
                    slot,
                    seq: u64::from_le_bytes(bytes[8..16].try_into()?),
                    sent_ns: i64::from_le_bytes(bytes[0..8].try_into()?),
                    at_ns,
                });
            }
        }
    }
    Ok(())
}

//! `zshm listener`: ROS's demo listener. Prints `I heard: [<text>]` for each std_msgs/String,
//! so it pairs with `ros2 run demo_nodes_cpp talker` as well as with `zshm talker`.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use zshm::msgs::std_msgs;
use zshm::raw::DataPath;
use zshm::ros::qos::QosProfile;

use crate::cli::{self, ChatterArgs};
use crate::support::out::outln;
use crate::support::{session, shutdown};

/// `zshm listener`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Node, topic and how many messages.
    #[command(flatten)]
    pub chatter: ChatterArgs,
    /// With --count: give up after this many seconds.
    #[arg(long, default_value = "60", value_parser = cli::seconds)]
    pub timeout: Duration,
}

/// Listens until `--count` messages, a timeout, or a signal.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let node = session::open_node(&args.chatter.node, "listener").await?;
    let heard = Arc::new(AtomicU64::new(0));
    let paths: Arc<[AtomicU64; 3]> = Arc::default();
    let done = Arc::new(tokio::sync::Notify::new());
    let (counter, by_path, notify, count) = (heard.clone(), paths.clone(), done.clone(), args.chatter.count);
    let _subscription = node
        .create_subscription::<std_msgs::msg::String>(
            &args.chatter.topic,
            QosProfile::default(),
            move |message| {
                outln!("I heard: [{}]", message.view().data);
                by_path[message.path() as usize].fetch_add(1, Ordering::Relaxed);
                if counter.fetch_add(1, Ordering::Relaxed) + 1 == count {
                    notify.notify_one();
                }
            },
        )
        .await?;
    tracing::info!(topic = %_subscription.info().topic, "listening");
    let completed = if args.chatter.count == 0 {
        shutdown::signal().await?;
        true
    } else {
        tokio::select! {
            _ = done.notified() => true,
            _ = tokio::time::sleep(args.timeout) => false,
            signal = shutdown::signal() => { signal?; false }
        }
    };
    drop(_subscription);
    let path = |p: DataPath| paths[p as usize].load(Ordering::Relaxed);
    tracing::info!(
        lane = path(DataPath::Lane),
        shm = path(DataPath::Shm),
        network = path(DataPath::Network),
        "heard {} messages",
        heard.load(Ordering::Relaxed)
    );
    session::close(node.session()).await?;
    if !completed {
        eprintln!(
            "zshm listener: heard {} of {} messages",
            heard.load(Ordering::Relaxed),
            args.chatter.count
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

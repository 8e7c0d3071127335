//! `zshm listener`: ROS's demo listener. Prints `I heard: [<text>]` for each std_msgs/String,
//! so it pairs with `ros2 run demo_nodes_cpp talker` as well as with `zshm talker`.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use zshm::msgs::std_msgs;
use zshm::ros::qos::QosProfile;

use crate::cli::ListenerArgs;

/// Listens until `--count` messages, a timeout, or a signal.
pub async fn run(args: ListenerArgs) -> anyhow::Result<ExitCode> {
    let node = super::open_node(&args.session, &args.node, "listener").await?;
    let heard = Arc::new(AtomicU64::new(0));
    let done = Arc::new(tokio::sync::Notify::new());
    let (counter, notify, count) = (heard.clone(), done.clone(), args.count);
    let _subscription = node
        .create_subscription::<std_msgs::String>(&args.topic, QosProfile::default(), move |message| {
            println!("I heard: [{}]", message.view());
            if counter.fetch_add(1, Ordering::Relaxed) + 1 == count {
                notify.notify_one();
            }
        })
        .await?;
    tracing::info!(topic = %_subscription.info().topic, "listening");
    let completed = if args.count == 0 {
        super::shutdown_signal().await?;
        true
    } else {
        tokio::select! {
            _ = done.notified() => true,
            _ = tokio::time::sleep(Duration::from_secs_f64(args.timeout.max(0.0))) => false,
            signal = super::shutdown_signal() => { signal?; false }
        }
    };
    drop(_subscription);
    node.session()
        .close()
        .await
        .map_err(|err| anyhow::anyhow!("closing the session: {err}"))?;
    if !completed {
        eprintln!(
            "zshm listener: heard {} of {} messages",
            heard.load(Ordering::Relaxed),
            args.count
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

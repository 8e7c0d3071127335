//! `zshm talker`: ROS's demo talker. Publishes std_msgs/String `Hello World: N` on `chatter`
//! and prints `Publishing: 'Hello World: N'`, so it pairs with `ros2 run demo_nodes_cpp listener`.

use std::process::ExitCode;
use std::time::Duration;

use zshm::msgs::std_msgs;
use zshm::ros::qos::QosProfile;

use crate::cli::TalkerArgs;

/// Publishes until `--count` or a signal.
pub async fn run(args: TalkerArgs) -> anyhow::Result<ExitCode> {
    let node = super::open_node(&args.session, &args.node, "talker").await?;
    let publisher = node
        .create_publisher::<std_msgs::String>(&args.topic, QosProfile::default())
        .await?;
    if args.wait > 0.0
        && !publisher
            .wait_for_subscribers(Duration::from_secs_f64(args.wait))
            .await
    {
        anyhow::bail!(
            "no subscriber on {} within {} s",
            publisher.info().topic,
            args.wait
        );
    }
    let mut ticker = tokio::time::interval(Duration::from_secs_f64(1.0 / args.rate.max(0.001)));
    let mut shutdown = std::pin::pin!(super::shutdown_signal());
    for n in 1.. {
        tokio::select! {
            _ = ticker.tick() => {}
            _ = &mut shutdown => break,
        }
        let message = std_msgs::String {
            data: format!("Hello World: {n}"),
        };
        println!("Publishing: '{}'", message.data);
        publisher.publish(&message).await?;
        if n == args.count {
            break;
        }
    }
    node.session()
        .close()
        .await
        .map_err(|err| anyhow::anyhow!("closing the session: {err}"))?;
    Ok(ExitCode::SUCCESS)
}

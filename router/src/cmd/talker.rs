//! `zshm talker`: ROS's demo talker. Publishes std_msgs/String `Hello World: N` on `chatter`
//! and prints `Publishing: 'Hello World: N'`, so it pairs with `ros2 run demo_nodes_cpp listener`.

use std::process::ExitCode;
use std::time::Duration;

use zshm::msgs::std_msgs;
use zshm::ros::qos::QosProfile;

use crate::cli::{self, ChatterArgs};
use crate::support::out::outln;
use crate::support::ticker::{MissedTickBehavior, Ticker};
use crate::support::{session, shutdown};

/// `zshm talker`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Node, topic and how many messages.
    #[command(flatten)]
    pub chatter: ChatterArgs,
    /// Messages per second.
    #[arg(short, long, default_value = "1", value_parser = cli::rate)]
    pub rate: f64,
    /// Seconds to wait for a subscriber before the first message (0: do not wait).
    #[arg(long, default_value = "0", value_parser = cli::seconds)]
    pub wait: Duration,
}

/// Publishes until `--count` or a signal.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let node = session::open_node(&args.chatter.node, "talker").await?;
    let publisher = node
        .create_publisher::<std_msgs::msg::String>(&args.chatter.topic, QosProfile::default())
        .await?;
    if !args.wait.is_zero()
        && shutdown::unless_signalled(publisher.wait_for_subscribers(args.wait)).await == Some(false)
    {
        anyhow::bail!(
            "no subscriber on {} within {}",
            publisher.info().topic,
            zshm::internal::text::seconds(args.wait)
        );
    }
    let mut ticker = Ticker::new(args.rate, MissedTickBehavior::Burst);
    let mut shutdown = std::pin::pin!(shutdown::signal());
    for n in 1.. {
        tokio::select! {
            _ = ticker.tick() => {}
            _ = &mut shutdown => break,
        }
        let message = std_msgs::msg::String {
            data: format!("Hello World: {n}"),
        };
        outln!("Publishing: '{}'", message.data);
        publisher.publish(&message).await?;
        if n == args.chatter.count {
            break;
        }
    }
    session::close(node.session()).await?;
    Ok(ExitCode::SUCCESS)
}

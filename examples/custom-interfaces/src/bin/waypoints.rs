//! Publishes or prints `robot_msgs/msg/Route` messages, a user-defined type, through a router.
//!
//! ```text
//! waypoints talk   [--connect tcp/127.0.0.1:7447] [--count N]
//! waypoints listen [--connect tcp/127.0.0.1:7447] [--count N]
//! ```

use std::process::ExitCode;
use std::time::Duration;

use zshm::msgs::geometry_msgs::msg::{Point, Pose};
use zshm::ros::qos::QosProfile;
use zshm::ros::{Node, NodeOptions};
use zshm_example_custom_interfaces::robot_msgs::msg::{Route, Waypoint};

const TOPIC: &str = "/route";

struct Args {
    role: String,
    connect: Vec<String>,
    count: u64,
}

fn parse_args() -> Result<Args, String> {
    let mut args = std::env::args().skip(1);
    let role = args
        .next()
        .ok_or("usage: waypoints talk|listen [--connect ENDPOINT] [--count N]")?;
    if role != "talk" && role != "listen" {
        return Err(format!("unknown role {role:?}: expected talk or listen"));
    }
    let mut parsed = Args {
        role,
        connect: Vec::new(),
        count: 3,
    };
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--connect" => parsed.connect.push(value),
            "--count" => {
                parsed.count = value
                    .parse()
                    .map_err(|_| format!("--count {value:?} is not a number"))?
            }
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    Ok(parsed)
}

fn route(n: u64) -> Route {
    let waypoint = |label: &str, x: f64| Waypoint {
        label: label.to_owned(),
        pose: Pose {
            position: Point {
                x,
                y: n as f64,
                z: 0.0,
            },
            ..Default::default()
        },
        priority: Waypoint::PRIORITY_HIGH,
        ..Default::default()
    };
    Route {
        name: format!("route {n}"),
        waypoints: vec![waypoint("dock", 1.5), waypoint("door ↗", -2.25)],
        ..Default::default()
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(e) => {
            eprintln!("waypoints: {e}");
            return ExitCode::from(2);
        }
    };
    match run(args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("waypoints: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let session = zshm::Session::builder().connect(args.connect).open().await?;
    let node = Node::new(
        &session,
        &format!("waypoints_{}", args.role),
        NodeOptions::default(),
    )
    .await?;
    if args.role == "talk" {
        let publisher = node
            .create_publisher::<Route>(TOPIC, QosProfile::default())
            .await?;
        if !publisher.wait_for_subscribers(Duration::from_secs(30)).await {
            return Err("no subscriber on /route within 30 s".into());
        }
        for n in 0..args.count {
            publisher.publish(&route(n)).await?;
        }
        // Reliable delivery: wait until the subscriber is gone (it leaves after its count).
        publisher.wait_for_no_subscribers(Duration::from_secs(30)).await;
    } else {
        let (sender, receiver) = std::sync::mpsc::channel::<Route>();
        let _subscription = node
            .create_subscription::<Route>(TOPIC, QosProfile::default(), move |sample| {
                let _ = sender.send(sample.decode());
            })
            .await?;
        println!("listening on {TOPIC}");
        for _ in 0..args.count {
            let route = tokio::task::block_in_place(|| receiver.recv_timeout(Duration::from_secs(30)))
                .map_err(|_| "no route within 30 s")?;
            let stops: Vec<String> = route
                .waypoints
                .iter()
                .map(|w| {
                    format!(
                        "{}@({},{}) speed {} priority {}",
                        w.label, w.pose.position.x, w.pose.position.y, w.speed, w.priority
                    )
                })
                .collect();
            println!("{}: {} (color {:?})", route.name, stops.join(", "), route.color);
        }
    }
    session.close().await?;
    Ok(())
}

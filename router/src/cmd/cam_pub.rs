//! `zshm cam-pub`: a simulated depth camera. Each cloud is written straight into its send
//! buffer (a shared-memory loan when SHM is on), stamped with the wall clock as late as
//! possible, then published. Reports its own rate, SHM share and failures.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use zshm::msgs::builtin_interfaces::Time;
use zshm::msgs::sensor_msgs::{Image, PointCloud2};
use zshm::ros::RosPublisher;
use zshm::ros::qos::QosProfile;
use zshm::shm::human_bytes;
use zshm::sim_camera::SimCamera;

use crate::cli::CamPubArgs;

/// The longest cam-pub waits, after its last cloud, for subscribers to leave.
const LINGER: Duration = Duration::from_secs(5);

#[derive(Debug, Default, serde::Serialize)]
struct Counts {
    published: u64,
    shm: u64,
    failures: u64,
}

/// Publishes clouds at `--rate` until `--count` or a signal.
pub async fn run(args: CamPubArgs) -> anyhow::Result<ExitCode> {
    let node = super::open_node(&args.session, &args.node, "sim_camera").await?;
    let qos = QosProfile::keep_last(10);
    let clouds = node.create_publisher::<PointCloud2>(&args.topic, qos).await?;
    let images = match &args.image {
        Some(topic) => Some(node.create_publisher::<Image>(topic, qos).await?),
        None => None,
    };
    if args.wait > 0.0
        && !clouds
            .wait_for_subscribers(Duration::from_secs_f64(args.wait))
            .await
    {
        anyhow::bail!("no subscriber on {} within {} s", clouds.info().topic, args.wait);
    }

    let camera = SimCamera {
        width: args.width,
        height: args.height,
    };
    let (cloud_shape, image_shape) = (
        camera.cloud_shape(&args.frame_id),
        camera.image_shape(&args.frame_id),
    );
    let mut ticker = tokio::time::interval(Duration::from_secs_f64(1.0 / args.rate.max(0.001)));
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut shutdown = std::pin::pin!(super::shutdown_signal());
    let (mut total, mut window, mut window_start) = (Counts::default(), Counts::default(), Instant::now());
    let report_every = Duration::from_secs_f64(args.report.max(0.1));

    for frame in 0.. {
        tokio::select! {
            _ = ticker.tick() => {}
            _ = &mut shutdown => break,
        }
        let shm = publish_cloud(&clouds, &cloud_shape, &camera, frame, args.pattern).await;
        if let Some(images) = &images {
            let mut loan = images.loan(&image_shape, camera.image_data_len()).await;
            camera.fill_image(frame, loan.data_mut());
            loan.set_stamp(Time::now());
            if let Err(err) = images.publish_loan(loan).await {
                tracing::warn!("image not published: {err}");
            }
        }
        for counts in [&mut total, &mut window] {
            match shm {
                Ok(shm) => {
                    counts.published += 1;
                    counts.shm += u64::from(shm);
                }
                Err(_) => counts.failures += 1,
            }
        }
        if let Err(err) = shm
            && total.failures == 1
        {
            tracing::warn!("cloud not published (later failures are counted, not logged): {err}");
        }
        if window_start.elapsed() >= report_every {
            print_rate(&window, window_start.elapsed(), camera.cloud_data_len());
            (window, window_start) = (Counts::default(), Instant::now());
        }
        if frame + 1 == args.count {
            break;
        }
    }
    // Stay until the subscribers have the last clouds: closing at once could cut them off.
    clouds.wait_for_no_subscribers(LINGER).await;
    if args.json {
        let summary = serde_json::json!({
            "counts": total,
            "stats": node.session().stats().snapshot(),
            "cpu_seconds": zshm::usage::cpu_seconds(),
        });
        println!("{summary}");
    } else {
        println!(
            "cam-pub: published {} clouds, {} through shared memory, {} failures",
            total.published, total.shm, total.failures
        );
    }
    node.session()
        .close()
        .await
        .map_err(|err| anyhow::anyhow!("closing the session: {err}"))?;
    Ok(if total.failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Builds one cloud in place and publishes it; returns whether it went through SHM.
async fn publish_cloud(
    publisher: &RosPublisher<PointCloud2>,
    shape: &PointCloud2,
    camera: &SimCamera,
    frame: u64,
    pattern: bool,
) -> Result<bool, zshm::PublishError> {
    let mut loan = publisher.loan(shape, camera.cloud_data_len()).await;
    if pattern {
        zshm::pattern::fill(loan.data_mut(), frame);
    } else {
        camera.fill_cloud(frame, loan.data_mut());
    }
    let shm = loan.is_shm();
    loan.set_stamp(Time::now());
    publisher.publish_loan(loan).await?;
    Ok(shm)
}

fn print_rate(counts: &Counts, elapsed: Duration, cloud_bytes: usize) {
    let seconds = elapsed.as_secs_f64();
    println!(
        "cam-pub: {} clouds in {seconds:.2} s ({:.1} Hz), {} each, shared memory {:.0}%, failures {}",
        counts.published,
        counts.published as f64 / seconds,
        human_bytes(cloud_bytes as u64),
        100.0 * counts.shm as f64 / counts.published.max(1) as f64,
        counts.failures
    );
}

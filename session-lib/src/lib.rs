//! # zshm: ROS 2 over Zenoh, with shared memory you can see
//!
//! `zshm` is the library every zshm node uses. It opens a zenoh session from the same config
//! files and environment variables as rmw_zenoh, creates the process's shared-memory (SHM) pool,
//! and publishes large messages through /dev/shm so subscribers on the same host read them in
//! place. When shared memory cannot work here (no /dev/shm, too small, read-only, locked-memory
//! limit), the session still opens, says why once, and everything goes over TCP.
//!
//! The concepts, in the order a program meets them:
//!
//! 1. [`config`]: where the config comes from (`--config` > `ZENOH_*_CONFIG_URI` > built-in) and
//!    which overrides apply.
//! 2. [`Session`]: opening, the SHM pool, and [`Session::shm_status`] (which path and why).
//! 3. [`Publisher`]: [`Publisher::publish`] copies once into SHM; [`Publisher::loan`] gives a
//!    [`Loan`] to fill in place and send without any copy.
//! 4. [`Subscriber`]: each [`Sample`] borrows its payload, in shared memory when it came that way.
//! 5. [`stats`]: what went through SHM, what over the network, and every fallback.
//!
//! ```no_run
//! # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use zshm::{PublisherOptions, Session};
//!
//! let session = Session::builder().open().await?;
//! let subscriber = session.declare_subscriber("demo/**").await?;
//! let publisher = session.declare_publisher("demo/cloud", PublisherOptions::default()).await?;
//!
//! let mut loan = publisher.loan(4 << 20).await; // 4 MiB, in /dev/shm when SHM is on
//! loan.fill(1);
//! publisher.publish_loan(loan).await?;
//!
//! let sample = subscriber.recv().await.expect("session open");
//! println!("{} bytes, shared memory: {}", sample.payload().len(), sample.is_shm());
//! # Ok(()) }
//! ```

#![deny(missing_docs)]

pub mod config;
pub mod doctor;
pub mod latency;
pub mod msgs;
pub mod pattern;
pub mod ros;
pub mod shm;
pub mod sim_camera;
pub mod stats;
pub mod telemetry;
pub mod usage;
pub mod zenoh_text;

mod publisher;
mod session;
mod subscriber;

pub use config::{ConfigError, Role};
pub use publisher::{AdvancedOptions, PublishError, Publisher, PublisherOptions};
pub use session::{OpenError, Session, SessionBuilder};
pub use shm::{Loan, ShmStatus, ShmUnavailable};
pub use subscriber::{AdvancedSubscriberOptions, CallbackSubscriber, Sample, SubscribeError, Subscriber};

/// The names most programs need.
pub mod prelude {
    pub use crate::{Loan, Publisher, PublisherOptions, Role, Sample, Session, ShmStatus, Subscriber};
}

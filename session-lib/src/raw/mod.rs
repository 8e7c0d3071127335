//! The raw layer: bytes on zenoh key expressions, through shared memory at or above the
//! session's threshold, with zero-copy loans and in-place reads.
//!
//! Every raw type is named `Raw` + the name of its typed counterpart in [`crate::ros`]:
//! [`RawPublisher`] / [`ros::Publisher`](crate::ros::Publisher),
//! [`RawSubscription`] / [`ros::Subscription`](crate::ros::Subscription),
//! [`RawSample`] / [`ros::Sample`](crate::ros::Sample),
//! [`RawLoan`] / [`ros::Loan`](crate::ros::Loan).
//!
//! ```no_run
//! # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use zshm::raw::PublisherOptions;
//!
//! let session = zshm::Session::builder().open().await?;
//! let subscription = session.declare_subscription("demo/**").await?;
//! let publisher = session.declare_publisher("demo/cloud", PublisherOptions::default()).await?;
//!
//! let mut loan = publisher.loan(4 << 20).await; // 4 MiB, in /dev/shm when SHM is on
//! loan.fill(1);
//! publisher.publish_loan(loan).await?;
//!
//! let sample = subscription.recv().await.expect("session open");
//! println!("{} bytes, shared memory: {}", sample.payload().len(), sample.is_shm());
//! # Ok(()) }
//! ```

pub(crate) mod inbox;

mod error;
mod lane_route;
mod loan;
mod publisher;
mod query;
mod sample;
mod subscription;

pub use error::{DeclareError, PublishError};
pub(crate) use lane_route::LaneRoute;
pub use loan::RawLoan;
pub use publisher::{AdvancedPublisherOptions, PublisherOptions, RawPublisher};
pub use query::{RawQuery, RawQueryable, RawReply};
pub use sample::{DataPath, RawSample};
pub use subscription::{
    AdvancedSubscriptionOptions, RawCallbackSubscription, RawSubscription, SUBSCRIPTION_QUEUE,
    SUBSCRIPTION_QUEUE_HEAP_BYTES, SubscriptionOptions,
};

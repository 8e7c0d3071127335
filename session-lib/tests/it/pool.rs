//! Loans come from the SHM pool while it has room; when readers hold every buffer the loan falls
//! back to the heap after a bounded wait, counted, and the pool serves again once released.

use std::time::Instant;

use zshm::Session;
use zshm::raw::PublisherOptions;
use zshm::stats::LoanFallback;

use crate::test_env;

const CHUNK: usize = 256 * 1024;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exhausted_pool_falls_back_to_heap_then_recovers() {
    // Room for four chunks: N x size + 64 KiB for the allocator's headers.
    let env = test_env().with("ZENOH_SHM_ALLOC_SIZE", &(4 * CHUNK + 64 * 1024).to_string());
    let session = Session::builder()
        .environment(env)
        .listen(["tcp/127.0.0.1:0"])
        .connect(Vec::<String>::new())
        .open()
        .await
        .unwrap();
    assert!(session.shm_status().is_active(), "{}", session.shm_status());
    let publisher = session
        .declare_publisher("it/pool", PublisherOptions::default())
        .await
        .unwrap();

    let mut held = Vec::new();
    for _ in 0..4 {
        let loan = publisher.loan(CHUNK).await;
        assert!(loan.is_shm());
        held.push(loan);
    }
    let started = Instant::now();
    let overflow = publisher.loan(CHUNK).await;
    assert!(!overflow.is_shm(), "the fifth chunk cannot fit");
    assert!(
        started.elapsed() >= zshm::internal::shm::RETRY_BUDGET / 2,
        "it retried before falling back"
    );
    assert_eq!(overflow.len(), CHUNK);
    assert_eq!(
        session.stats().snapshot().fallbacks(LoanFallback::PoolExhausted),
        1
    );

    held.pop();
    let again = publisher.loan(CHUNK).await;
    assert!(again.is_shm(), "a released chunk is reclaimed");
    assert_eq!(
        session.stats().snapshot().fallbacks(LoanFallback::PoolExhausted),
        1
    );

    let too_big = publisher.loan(8 * CHUNK).await;
    assert!(!too_big.is_shm());
    assert_eq!(
        session.stats().snapshot().fallbacks(LoanFallback::LargerThanPool),
        1
    );
    drop((held, again, too_big, overflow, publisher));
    session.close().await.unwrap();
}

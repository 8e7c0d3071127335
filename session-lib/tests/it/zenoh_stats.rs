//! zenoh's statistics of closed sessions stay bounded in a process nobody scrapes (a router with
//! `--no-metrics`): the carried zenoh-stats patch (third_party/zenoh-stats/PATCHES.md).

use std::time::Duration;

use zshm_ops::telemetry::zenoh_stats::own_link_traffic;

use crate::session_pair;

/// How long zenoh keeps a closed transport's own series (its `GARBAGE_COLLECTION_DELAY`), and a
/// margin.
const FOLDED_AFTER: Duration = Duration::from_secs(62);

/// One session to `listener` that opens, talks and closes; returns its zenoh id.
async fn visit(listener: &zshm::Session) -> String {
    let locator = listener.locators().await.into_iter().next().unwrap();
    let visitor = zshm::Session::builder()
        .environment(crate::test_env())
        .listen(Vec::<String>::new())
        .connect([locator])
        .open()
        .await
        .unwrap();
    let zid = visitor.zid();
    visitor.zenoh().put("zshm/test/visit", "hello").await.unwrap();
    visitor.close().await.unwrap();
    zid
}

/// Waits until `listener` no longer lists the peer `zid` (it closed its end of that session).
async fn gone_from(listener: &zshm::Session, zid: &str) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while listener
        .zenoh()
        .info()
        .peers_zid()
        .await
        .any(|peer| peer.to_string() == zid)
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the listener still lists the visitor {zid} 30 s after it closed"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Upstream folds a closed transport's series into totals only when its metrics are read, so a
/// router nobody scrapes kept every closed session's series (about 7 KiB each, measured). With
/// the patch, closing a session also folds those closed for longer than zenoh's delay: the first
/// visitor's series are gone once the second one leaves, though nothing read the metrics.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_process_nobody_scrapes_forgets_the_statistics_of_sessions_closed_a_minute_ago() {
    let (listener, _other) = session_pair().await;
    let first = visit(&listener).await;
    // zenoh's delay runs from when the listener closes its end, which on a loaded machine can
    // come well after the visitor's `close` returned (beside two busy loops, once, the first
    // visitor's series were still there 62 s after it).
    gone_from(&listener, &first).await;
    tokio::time::sleep(FOLDED_AFTER).await;
    // The fold runs when the listener closes its end of the second session: wait for that too
    // (under load the statistics were once read before it, and the first was still there).
    let second = visit(&listener).await;
    gone_from(&listener, &second).await;
    let known: Vec<String> = own_link_traffic(listener.zenoh(), Duration::from_secs(5))
        .await
        .into_iter()
        .map(|link| link.zid)
        .collect();
    assert!(
        known.contains(&second),
        "a session closed moments ago is still listed ({second}): {known:?}"
    );
    assert!(
        !known.contains(&first),
        "the session closed over a minute ago ({first}) is folded: {known:?}"
    );
}

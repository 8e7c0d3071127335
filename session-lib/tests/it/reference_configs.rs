//! The reference configs open real sessions unchanged: each router config becomes a router, and
//! each session config a node that finds that router.

use zshm::Session;
use zshm::config::{ConfigRequest, Role, resolve};

use crate::{data, test_env};

const ROUTERS: [&str; 2] = [
    "reference/DEFAULT_RMW_ZENOH_ROUTER_CONFIG.json5",
    "reference/WORKSHOP_EX3_ROUTER_CONFIG.json5",
];
const SESSIONS: [&str; 2] = [
    "reference/DEFAULT_RMW_ZENOH_SESSION_CONFIG.json5",
    "reference/WORKSHOP_EX3_SESSION_CONFIG.json5",
];

#[test]
fn every_reference_config_resolves_with_its_shm_block() {
    for (file, role, shm_enabled) in [
        (ROUTERS[0], Role::Router, false),
        (ROUTERS[1], Role::Router, true),
        (SESSIONS[0], Role::Session, false),
        (SESSIONS[1], Role::Session, true),
    ] {
        let mut request = ConfigRequest::new(role);
        request.file = Some(data(file).into());
        let resolved = resolve(&request, &test_env()).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(resolved.shm.enabled, shm_enabled, "{file}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reference_session_configs_reach_a_router_opened_from_reference_router_configs() {
    for (router_file, session_file) in ROUTERS.iter().zip(SESSIONS) {
        let router = Session::builder_for(Role::Router)
            .environment(test_env())
            .config_file(data(router_file))
            .listen(["tcp/127.0.0.1:0"])
            .open()
            .await
            .unwrap_or_else(|e| panic!("{router_file}: {e}"));
        let locator = router
            .locators()
            .await
            .into_iter()
            .next()
            .expect("router listens");
        let node = Session::builder()
            .environment(test_env())
            .config_file(data(session_file))
            .connect([locator])
            .listen(["tcp/127.0.0.1:0"])
            .open()
            .await
            .unwrap_or_else(|e| panic!("{session_file}: {e}"));
        let routers: Vec<_> = node.zenoh().info().routers_zid().await.collect();
        assert_eq!(
            routers,
            vec![router.zenoh().zid()],
            "{session_file} did not reach the router"
        );
        node.close().await.unwrap();
        router.close().await.unwrap();
    }
}

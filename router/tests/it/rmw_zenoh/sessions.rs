//! What `zshm router` keeps of real rclpy nodes on rmw_zenoh_cpp that have left: nothing. A
//! workshop restarts its nodes all day, and each restart is a new zenoh session.

use nix::sys::signal::Signal;

use super::*;
use crate::support::routing_tree::{RESOURCE_LOG, router_zid, wait_until_forgotten};

/// An rclpy client that made its call and ended, and an rclpy server SIGKILLed: every key of
/// their sessions (zenoh 1.8's admin space, which rmw_zenoh's session config turns on,
/// rmw_zenoh's liveliness tokens, the service's queryable) and every prefix of them named after
/// the session leaves the router's routing tree. zenoh 1.9's router kept `@/<zid>` and
/// `@/<zid>/peer` of each (third_party/zenoh/PATCHES.md, 2).
#[test]
fn the_router_keeps_nothing_of_rclpy_nodes_that_left() {
    let robot = Robot::new(true);
    let router = robot.zshm_router_with(&[("RUST_LOG", RESOURCE_LOG)]);
    let zid = router_zid(&router.proc);
    let mut server = robot
        .rclpy("rclpy server", &["server", "--service", "/flip"])
        .start();
    server.wait_for_stdout("serving", |l| l == "serving");
    let mut client = robot
        .rclpy("rclpy client", &["client", "--service", "/flip"])
        .start();
    assert_rclpy_exit_ok(&mut client, &[&server]);
    assert_eq!(
        lines_with_prefix(&client, "response ").len(),
        1,
        "{}",
        client.dump()
    );
    server.signal(Signal::SIGKILL);
    server.wait_exit();
    wait_until_forgotten(&router.proc, &zid);
    // Both sessions were seen, so the check above covered them.
    let admin_spaces = router
        .proc
        .stderr()
        .lines()
        .filter(|l| l.contains("Register resource @/") && l.ends_with("/peer/**"))
        .count();
    assert_eq!(admin_spaces, 2, "{}", router.proc.dump());
}

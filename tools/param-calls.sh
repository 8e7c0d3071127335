#!/usr/bin/env bash
# rclpy parameter clients against one rclpy parameter node, both on the real rmw_zenoh_cpp,
# through a zshm router: looks for the call the churn soak lost (docs/RELIABILITY.md, "One call
# lost"). Each client does what the soak's does (wait for the services, then list, get, set, get)
# with a 10 s timeout per call; a client that does not finish is a lost call, and its log is kept.
# Runs in a network namespace and a /dev/shm of its own (root). Run it beside busy loops.
#
# Usage: tools/param-calls.sh [CLIENTS] [OUT]   (defaults: 300 target/param-calls)
# Environment: ZSHM_ROS2 (tools/ros2/setup.sh --rmw-zenoh), ZSHM (default target/release/zshm),
#   EXTRA=N      N zshm listeners in the mesh, so each client meets N more peers
#   CHURN=1      a zshm talker SIGKILLed and restarted every 3 s
#   RCHURN=1     an rclpy talker (rmw_zenoh_cpp) SIGKILLed and restarted every 4 s
#   CLIENT_LOG   the clients' RUST_LOG (zenoh-c's), e.g. zenoh::net::routing::dispatcher::queries=debug,
#                which says whether a query met a queryable or ended at once with none
set -uo pipefail
cd "$(dirname "$0")/.."
clients=${1:-300}
out=$(realpath -m "${2:-target/param-calls}")
if [ "${PARAM_CALLS_INSIDE:-}" != 1 ]; then
  [ "$(id -u)" = 0 ] || { echo "tools/param-calls.sh: needs root (a namespace of its own)" >&2; exit 2; }
  [ -n "${ZSHM_ROS2:-}" ] || { echo "tools/param-calls.sh: set ZSHM_ROS2 (tools/ros2/setup.sh --rmw-zenoh)" >&2; exit 2; }
  exec env PARAM_CALLS_INSIDE=1 unshare --net --mount --propagation private -- "$0" "$@"
fi
ip link set lo up
mount -t tmpfs -o size=2g tmpfs /dev/shm
mkdir -p "$out"
rm -f "$out"/*.log
zshm=${ZSHM:-target/release/zshm}
rclpy=(tools/ros2/run.sh zenoh python3 router/tests/interop/rclpy_peer.py)
trap 'kill $(jobs -p) 2>/dev/null; wait' EXIT

"$zshm" router --no-metrics >"$out/router.log" 2>&1 &
until grep -q "listening on" "$out/router.log"; do sleep 0.1; done
"${rclpy[@]}" param-node --node-name rclpy_params --timeout 31536000 >"$out/node.log" 2>&1 &
node=$!
until grep -q "parameters declared" "$out/node.log"; do
  kill -0 "$node" 2>/dev/null || { cat "$out/node.log"; exit 1; }
  sleep 0.2
done
for k in $(seq 1 "${EXTRA:-0}"); do "$zshm" listener >"$out/extra-$k.log" 2>&1 & done
if [ -n "${CHURN:-}" ]; then
  (exec 2>/dev/null; while :; do timeout -s KILL 3 "$zshm" talker >/dev/null 2>&1; done) &
fi
if [ -n "${RCHURN:-}" ]; then
  (exec 2>/dev/null; while :; do timeout -s KILL 4 "${rclpy[@]}" talker --count 31536000 --timeout 30 >/dev/null 2>&1; done) &
fi

answered=0 lost=0
for i in $(seq 1 "$clients"); do
  log="$out/client-$i.log"
  RUST_LOG=${CLIENT_LOG:-error} timeout 60 "${rclpy[@]}" param-client --target /rclpy_params \
    --name gain --value 0.5 --timeout 15 --call-timeout 10 >"$log" 2>&1
  if grep -q "set gain True" "$log"; then
    answered=$((answered + 1))
    rm -f "$log"
  else
    lost=$((lost + 1))
    echo "client $i at $(date -u +%T): $(tail -n 2 "$log" | tr '\n' ' ') (log: $log)"
  fi
done
echo "param-calls: $answered of $clients clients answered, $lost lost"
[ "$lost" = 0 ]

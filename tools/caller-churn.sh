#!/usr/bin/env bash
# What a router keeps of the churn soak's callers: against an rclpy SetBool server and an rclpy
# parameter node (both on the real rmw_zenoh_cpp, up throughout), each round runs every caller
# the soak runs, one process each: an rclpy client of /flip, an rclpy parameter client, `zshm
# service call`, `zshm param get` and an rclpy talker (1 s, nobody listening). Prints the router's RSS after each round
# and, at the end, glibc's count of what its malloc arenas hold (gdb's `malloc_stats`) and its
# RSS before and after `malloc_trim` (docs/RELIABILITY.md, "What was left: malloc's arenas").
# Runs in a network namespace of its own (root); two at once compare two routers side by side.
#
# Usage: tools/caller-churn.sh [ROUNDS] [OUT]   (defaults: 150 target/caller-churn)
# Environment: ZSHM_ROS2 (tools/ros2/setup.sh --rmw-zenoh), ZSHM (default target/release/zshm),
#   ROUTER_ENV   extra environment for the router only, e.g. MALLOC_ARENA_MAX=16
#   RMW_ZENOHD=1 the real rmw_zenohd (zenoh-c 1.8) as the router instead of `zshm router`
#   ROUTER_WRAPPER a command the router runs under, e.g. "heaptrack -o $PWD/h300"; the router
#                is then SIGKILLed at the end, so that the wrapper records what it held
#   SETTLE_AT    rounds after which the callers pause SETTLE_SECONDS (default 65: zenoh's
#                statistics keep a closed transport's series 60 s), one more session comes and goes
#                (the router folds the older series when a session closes), and the router's RSS
#                and the bytes its malloc has in use (gdb) are recorded in settled.txt, e.g. "100 300"
#   WATCH_TALKER=1 a long-lived `zshm talker` as well (a zshm node every caller's session meets,
#                rmw_zenoh's peers connecting to each other), its RSS and malloc recorded the same way
set -uo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-150}
out=$(realpath -m "${2:-target/caller-churn}")
if [ "${CALLER_CHURN_INSIDE:-}" != 1 ]; then
  [ "$(id -u)" = 0 ] || { echo "tools/caller-churn.sh: needs root (a namespace of its own)" >&2; exit 2; }
  [ -n "${ZSHM_ROS2:-}" ] || { echo "tools/caller-churn.sh: set ZSHM_ROS2 (tools/ros2/setup.sh --rmw-zenoh)" >&2; exit 2; }
  exec env CALLER_CHURN_INSIDE=1 unshare --net -- "$0" "$@"
fi
ip link set lo up
mkdir -p "$out"
zshm=$(realpath "${ZSHM:-target/release/zshm}")
config=$ZSHM_ROS2/share/rmw_zenoh_cpp/config
export ZENOH_SESSION_CONFIG_URI=$config/DEFAULT_RMW_ZENOH_SESSION_CONFIG.json5
rclpy=(tools/ros2/run.sh zenoh python3 router/tests/interop/rclpy_peer.py)
trap 'kill $(jobs -p) 2>/dev/null; wait' EXIT

if [ "${RMW_ZENOHD:-}" = 1 ]; then
  router_command=(tools/ros2/run.sh zenoh rmw_zenohd)
else
  # The router's own binary name, so that two runs side by side never find each other's router.
  cp "$zshm" "$out/zshm-router"
  router_command=("$out/zshm-router" router --no-metrics)
fi
# shellcheck disable=SC2086 # ROUTER_ENV is a list of NAME=VALUE words
env ${ROUTER_ENV:-} ZENOH_ROUTER_CONFIG_URI=$config/DEFAULT_RMW_ZENOH_ROUTER_CONFIG.json5 \
  ${ROUTER_WRAPPER:-} "${router_command[@]}" > "$out/router.log" 2>&1 &
router=$!
if [ -n "${ROUTER_WRAPPER:-}" ]; then # the router itself, not its wrapper
  for _ in $(seq 100); do
    pid=$(pgrep -n -f "^${router_command[0]} ") && { router=$pid; break; }
    sleep 0.1
  done
fi
rss() { awk '/^VmRSS/ {print $2}' "/proc/${1:-$router}/status"; }
"${rclpy[@]}" server --service /flip --count 1000000 --timeout 1000000 > "$out/server.log" 2>&1 &
"${rclpy[@]}" param-node --node-name robot_params --timeout 1000000 > "$out/params.log" 2>&1 &
for _ in $(seq 100); do grep -q serving "$out/server.log" && grep -q declared "$out/params.log" && break; sleep 0.1; done
talker=
if [ "${WATCH_TALKER:-}" = 1 ]; then
  "$zshm" talker > "$out/talker.log" 2>&1 &
  talker=$!
fi

settle_at=" ${SETTLE_AT:-} "
in_use() { # [PID LOG]: the bytes a process's malloc has in use, from malloc_stats (written to its log)
  gdb -p "${1:-$router}" -batch -ex 'call (void)malloc_stats()' > /dev/null 2>&1
  grep -A2 '^Total (incl. mmap)' "${2:-$out/router.log}" | awk '/in use bytes/ {v = $NF} END {print v}'
}

failed=0
call() { # NAME COMMAND...: runs a caller, keeps its log when it fails
  local name=$1
  shift
  if ! timeout 60 "$@" > "$out/$name.log" 2>&1; then
    failed=$((failed + 1))
    cp "$out/$name.log" "$out/failed-$round-$name.log"
    echo "round $round: $name failed (log: $out/failed-$round-$name.log)"
  fi
}
echo "round seconds router_rss_kib${talker:+ talker_rss_kib}" > "$out/rss.csv"
start=$SECONDS
for round in $(seq "$rounds"); do
  call rclpy-client "${rclpy[@]}" client --service /flip
  call rclpy-param-client "${rclpy[@]}" param-client --target /robot_params
  call zshm-call "$zshm" service call /flip std_srvs/srv/SetBool '{data: true}' --timeout 10
  call zshm-param "$zshm" param get /robot_params rate
  # Nobody listens: the talker gives up after 1 s (exit 1), a session that came and went.
  timeout 60 "${rclpy[@]}" talker --count 3 --timeout 1 > "$out/rclpy-talker.log" 2>&1
  echo "$round $((SECONDS - start)) $(rss)${talker:+ $(rss "$talker")}" | tee -a "$out/rss.csv"
  if [[ $settle_at == *" $round "* ]]; then
    sleep "${SETTLE_SECONDS:-65}"
    # zenoh-stats folds the series of sessions closed more than 60 s ago only when another
    # session closes (third_party/zenoh-stats/PATCHES.md, 1): one more, so that the reading
    # holds no closed session's series but this one's.
    call settle-fold "$zshm" param get /robot_params rate
    echo "round $round, settled ${SETTLE_SECONDS:-65} s: RSS $(rss) KiB, malloc in use $(in_use) B" | tee -a "$out/settled.txt"
    if [ -n "$talker" ]; then
      echo "round $round, settled, talker: RSS $(rss "$talker") KiB, malloc in use $(in_use "$talker" "$out/talker.log") B" | tee -a "$out/settled.txt"
    fi
  fi
done
if command -v gdb > /dev/null; then
  # malloc_stats writes to the router's stderr, that is its log.
  gdb -p "$router" -batch -ex 'call (void)malloc_stats()' > /dev/null 2>&1
  before=$(rss)
  gdb -p "$router" -batch -ex 'call (int)malloc_trim(0)' > /dev/null 2>&1
  echo "router RSS before malloc_trim $before KiB, after $(rss) KiB"
  grep -A2 '^Total (incl. mmap)' "$out/router.log"
  echo "arenas: $(grep -c '^Arena' "$out/router.log")"
fi
echo "$rounds rounds, $failed callers failed"
if [ -n "${ROUTER_WRAPPER:-}" ]; then
  kill -KILL "$router"
fi

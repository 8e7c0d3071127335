#!/usr/bin/env bash
# Foxglove relay benchmark (not a test): `zshm cam-pub` publishes N 7 MiB point clouds at 15 Hz,
# `zshm foxglove` relays them to the official protocol client (router/tests/interop/
# foxglove_client.cjs on Node.js, hashing every message) and, with STALL=1, to a second client
# that stops reading. Reports the clouds the reading client got, the endpoint's CPU (utime +
# stime from /proc/<pid>/stat, from the last subscription to cam-pub's exit) and its summary.
# Usage: [STALL=1] tools/foxglove-bench.sh [clouds]   (tools/test.sh installs the Node packages)
set -euo pipefail
cd "$(dirname "$0")/.."
ZSHM=${ZSHM:-${CARGO_TARGET_DIR:-target}/release/zshm}
N=${1:-150}
PORT=${PORT:-27448}
WS_PORT=${WS_PORT:-28766}
DIR=$(mktemp -d /tmp/zshm-foxglove-bench.XXXXXX)
export NODE_PATH=${ZSHM_NODE_MODULES:-$PWD/target/node/node_modules}
TICKS=$(getconf CLK_TCK)
clients=1
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -INT "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  "$ZSHM" shm-clean >/dev/null 2>&1 || true
}
trap cleanup EXIT

"$ZSHM" router -l "tcp/127.0.0.1:$PORT" --no-metrics >"$DIR/router.log" 2>&1 &
pids+=($!)
sleep 1
"$ZSHM" foxglove --listen "127.0.0.1:$WS_PORT" -e "tcp/127.0.0.1:$PORT" >"$DIR/foxglove.out" 2>"$DIR/foxglove.err" &
endpoint=$!
pids+=("$endpoint")
sleep 1
node router/tests/interop/foxglove_client.cjs "ws://127.0.0.1:$WS_PORT" /camera/points "$N" >"$DIR/reader.out" 2>&1 &
reader=$!
pids+=("$reader")
if [ -n "${STALL:-}" ]; then
  node router/tests/interop/foxglove_client.cjs "ws://127.0.0.1:$WS_PORT" /camera/points "$N" --stall >"$DIR/stalled.out" 2>&1 &
  pids+=($!)
  clients=2
fi
"$ZSHM" cam-pub -e "tcp/127.0.0.1:$PORT" -n "$N" --wait 30 >"$DIR/cam.log" 2>&1 &
camera=$!
until grep -q "$clients client(s) subscribed" "$DIR/foxglove.out"; do sleep 0.1; done
t0=$(date +%s.%N)
c0=$(awk '{print $14 + $15}' "/proc/$endpoint/stat")
wait "$camera"
t1=$(date +%s.%N)
c1=$(awk '{print $14 + $15}' "/proc/$endpoint/stat")
for _ in $(seq 1 100); do kill -0 "$reader" 2>/dev/null || break; sleep 0.1; done
cleanup
trap - EXIT
echo "clouds the reading client got: $(grep -c '"event":"message"' "$DIR/reader.out") of $N"
awk -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" -v tk="$TICKS" -v n="$N" 'BEGIN {
  cpu = (c1 - c0) / tk
  printf "endpoint CPU: %.2f s over %.1f s (%.1f %% of one core), %.1f ms per cloud\n", cpu, t1 - t0, 100 * cpu / (t1 - t0), 1000 * cpu / n }'
grep "Hz" "$DIR/cam.log" || true
grep -E "left:|^foxglove:" "$DIR/foxglove.out"
echo "logs in $DIR"

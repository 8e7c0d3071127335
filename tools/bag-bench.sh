#!/usr/bin/env bash
# Recording benchmark (not a test): `zshm cam-pub` publishes 7 MB point clouds at 15 Hz and
# `zshm bag record` writes them, without and with zstd. Reports what was dropped, the recorder's
# CPU (utime + stime from /proc/<pid>/stat over the run), its write throughput, and the disk's
# own sequential write speed on the same filesystem (dd, O_DIRECT) as the physical limit.
# Usage: tools/bag-bench.sh [DIR on the disk to test] [seconds per run]
set -euo pipefail
cd "$(dirname "$0")/.."
ZSHM=${ZSHM:-${CARGO_TARGET_DIR:-target}/release/zshm}
DIR=${1:-/tmp/zshm-bag-bench}
SECONDS_PER_RUN=${2:-20}
PORT=${PORT:-27447}
TICKS=$(getconf CLK_TCK)
rm -rf "$DIR" && mkdir -p "$DIR"

dd_out=$(dd if=/dev/zero of="$DIR/dd.bin" bs=1M count=2000 oflag=direct 2>&1 | tail -1)
rm -f "$DIR/dd.bin"
echo "disk (dd bs=1M count=2000 oflag=direct): $dd_out"

"$ZSHM" router -l "tcp/127.0.0.1:$PORT" --no-metrics >"$DIR/router.log" 2>&1 &
router=$!
trap 'kill $router 2>/dev/null || true' EXIT
sleep 1
"$ZSHM" cam-pub -e "tcp/127.0.0.1:$PORT" -r 15 --report 1000 >"$DIR/cam.log" 2>&1 &
camera=$!
sleep 2

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

run() {
  local name=$1
  shift
  "$ZSHM" bag record /camera/points -o "$DIR/$name" -e "tcp/127.0.0.1:$PORT" \
    --duration "$SECONDS_PER_RUN" "$@" >"$DIR/$name.out" 2>"$DIR/$name.err" &
  local pid=$!
  local start_ticks=0
  sleep 0.5
  start_ticks=$(cpu_ticks $pid || echo 0)
  local t0=$(date +%s.%N)
  local end_ticks=$start_ticks
  while kill -0 $pid 2>/dev/null; do
    end_ticks=$(cpu_ticks $pid 2>/dev/null || echo "$end_ticks")
    sleep 0.2
  done
  wait $pid
  local t1=$(date +%s.%N)
  local bytes=$(du -sb "$DIR/$name" | cut -f1)
  local summary=$(grep "/camera/points:" "$DIR/$name.out")
  awk -v name="$name" -v b="$bytes" -v t0="$t0" -v t1="$t1" -v s="$start_ticks" -v e="$end_ticks" \
    -v hz="$TICKS" -v summary="$summary" 'BEGIN {
      secs = t1 - t0; cpu = (e - s) / hz / secs * 100;
      printf "%s: %s | on disk %.1f MB in %.1f s = %.1f MB/s | recorder CPU %.0f%% of one core\n",
        name, summary, b / 1e6, secs, b / 1e6 / secs, cpu }'
  rm -rf "${DIR:?}/$name"
}

run plain
run zstd --compression-mode message --compression-format zstd
kill -INT $camera
wait $camera || true

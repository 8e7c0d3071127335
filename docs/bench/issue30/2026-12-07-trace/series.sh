#!/bin/bash
# series.sh SET POINT ROUNDS: lane and iceoryx2 alternated, each traced by trace2.sh; logs the
# load and the host's steal ticks (/proc/stat) of each run.
SET=$1; POINT=$2; ROUNDS=${3:-3}
ROOT=${ROOT:-/tmp/zshm-trace}; HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$ROOT/$SET"
for r in $(seq 1 "$ROUNDS"); do for m in lane iceoryx2; do
  s0=$(awk '/^cpu /{print $9}' /proc/stat)
  echo "$(date -u +%H:%M:%S) $m round $r load $(cut -d' ' -f1 /proc/loadavg)" >> "$ROOT/$SET/runs.log"
  POINT="$POINT" "$HERE/trace2.sh" $m "$SET/$m-$r" > "$ROOT/$SET/$m-$r.decomp" 2>&1
  s1=$(awk '/^cpu /{print $9}' /proc/stat)
  echo "   steal ticks during the run: $((s1-s0))" >> "$ROOT/$SET/runs.log"
done; done

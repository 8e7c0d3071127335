#!/bin/bash
# trace2.sh MODE NAME: one case of a sweep with `zshm bench --trace`, a 6 s `perf sched` of the
# whole machine 10 s into it (on CLOCK_MONOTONIC, as the trace), then docs/bench/decompose.py.
# SWEEP (subscribers) and POINT (--subscribers 1) choose the case; ZSHM the program; ROOT the
# directory of the results.
MODE=$1; NAME=$2
ZSHM=${ZSHM:-zshm}; ROOT=${ROOT:-/tmp/zshm-trace}
HERE=$(cd "$(dirname "$0")" && pwd)
D=$ROOT/$NAME; rm -rf "$D"; mkdir -p "$D"
$ZSHM bench --out "$D/out" --trace --sweeps ${SWEEP:-subscribers} ${POINT:---subscribers 1} \
  --modes "$MODE" --rounds 1 --seconds ${SECS:-20} > "$D/bench.log" 2>&1 &
P=$!
until pgrep -f "bench-node --mode" >/dev/null; do sleep 0.2; done
sleep 10
perf sched record -k mono -a -o "$D/sched.data" -- sleep 6 > /dev/null 2>&1
wait $P
perf script --ns -i "$D/sched.data" -F comm,tid,cpu,time,event,trace > "$D/sched.txt" 2>/dev/null
rm -f "$D/sched.data"
python3 "$HERE/../../decompose.py" "$D"/out/trace/* "$D/sched.txt" 12

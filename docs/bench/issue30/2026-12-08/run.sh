#!/bin/bash
# The two sweeps of 8 December in every mode: one `zshm bench` run each, with the host's steal
# ticks (/proc/stat) and the load average around each and every 30 s (loadavg.log).
# Usage: run.sh ZSHM OUT
set -eu
ZSHM=$1; OUT=$2; mkdir -p "$OUT"
steal() { awk '/^cpu /{print $9}' /proc/stat; }
total() { awk '/^cpu /{t=0; for (i = 2; i <= NF; i++) t += $i; print t}' /proc/stat; }
( while sleep 30; do echo "$(date -u +%H:%M:%S) $(cut -d' ' -f1-3 /proc/loadavg)"; done ) >> "$OUT/loadavg.log" &
logger=$!
trap 'kill $logger' EXIT
"$ZSHM" --version >> "$OUT/runs.log"
for sweep in subscribers topics; do
    s0=$(steal); t0=$(total)
    echo "$(date -u +%H:%M:%S) start $sweep, load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/runs.log"
    "$ZSHM" bench --sweeps "$sweep" --modes lane,lane-inline,shm-loan,tcp,zenoh-shm,iceoryx2 \
        --rounds 2 --seconds 10 --out "$OUT/$sweep" > "$OUT/$sweep.log" 2>&1
    echo "$(date -u +%H:%M:%S) end $sweep, load $(cut -d' ' -f1-3 /proc/loadavg), steal ticks $(( $(steal) - s0 )) of $(( $(total) - t0 ))" >> "$OUT/runs.log"
done

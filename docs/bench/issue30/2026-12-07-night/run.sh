#!/bin/bash
# The two sweeps of 7 December, night: one `zshm bench` run each, with the host's steal ticks
# (/proc/stat) and the load average around each. Usage: run.sh ZSHM OUT
set -eu
ZSHM=$1; OUT=$2; mkdir -p "$OUT"
steal() { awk '/^cpu /{print $9}' /proc/stat; }
for sweep in subscribers topics; do
    s0=$(steal)
    echo "$(date -u +%H:%M:%S) start $sweep, load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/runs.log"
    "$ZSHM" bench --sweeps "$sweep" --modes lane,lane-inline,iceoryx2 --rounds 2 --seconds 10 \
        --out "$OUT/$sweep" > "$OUT/$sweep.log" 2>&1
    echo "$(date -u +%H:%M:%S) end $sweep, load $(cut -d' ' -f1-3 /proc/loadavg), steal ticks $(( $(steal) - s0 ))" >> "$OUT/runs.log"
done

#!/bin/bash
# prof.sh MODE OUT: T=200 case 20 s; perf record node 3 for 6 s from 10 s in
MODE=$1; OUT=$2; mkdir -p $OUT
cd /work/main
target/release/zshm bench --sweeps topics --topics 200 --modes $MODE --rounds 1 --seconds 20 --out $OUT/bench > $OUT/bench.log 2>&1 &
B=$!
for i in $(seq 1 100); do P=$(pgrep -f "zshm-bench-node.*--index 3( |$)" | head -1); [ -n "$P" ] && break; sleep 0.2; done
sleep 11
S0=$(awk '/^cpu /{print $9}' /proc/stat)
perf record -F 3000 -g -p $P -o $OUT/perf.data -- sleep 6 > /dev/null 2>&1
echo steal $(( $(awk '/^cpu /{print $9}' /proc/stat) - S0 )) > $OUT/steal
wait $B

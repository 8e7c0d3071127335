#!/bin/bash
# ctx.sh MODE OUT [SWEEPARGS...]: context switches per thread of node 3 over 6 s from 10 s in
MODE=$1; OUT=$2; shift 2; mkdir -p $OUT
cd /work/main
ARGS=${@:---sweeps topics --topics 200}
target/release/zshm bench $ARGS --modes $MODE --rounds 1 --seconds 20 --out $OUT/bench > $OUT/bench.log 2>&1 &
B=$!
for i in $(seq 1 100); do P=$(pgrep -f "zshm-bench-node.*--index 3( |$)" | head -1); [ -n "$P" ] && break; sleep 0.2; done
sleep 11
snap() { for t in /proc/$P/task/*; do echo "$(cat $t/comm) $(awk '/voluntary_ctxt/{printf "%s ",$2}' $t/status) $(awk '{print $14+$15}' $t/stat)"; done; }
S0=$(awk '/^cpu /{print $9}' /proc/stat)
snap > $OUT/a; sleep 6; snap > $OUT/b
echo steal $(( $(awk '/^cpu /{print $9}' /proc/stat) - S0 )) > $OUT/steal
paste $OUT/a $OUT/b | awk '{printf "%-16s vol %6d nonvol %6d cpu_ticks %4d\n",$1,$6-$2,$7-$3,$8-$4}'
wait $B

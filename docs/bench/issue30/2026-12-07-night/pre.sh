#!/bin/bash
# pre.sh MODE OUT: who preempts node 3's main thread (T=200), perf sched 4 s from 10 s in
MODE=$1; OUT=$2; mkdir -p $OUT
cd /work/main
target/release/zshm bench --sweeps topics --topics 200 --modes $MODE --rounds 1 --seconds 20 --out $OUT/bench > $OUT/bench.log 2>&1 &
B=$!
for i in $(seq 1 100); do P=$(pgrep -f "zshm-bench-node.*--index 3( |$)" | head -1); [ -n "$P" ] && break; sleep 0.2; done
sleep 11
echo $P > $OUT/pid
perf sched record -a -o $OUT/sched.data -- sleep 4 > /dev/null 2>&1
wait $B
perf script -i $OUT/sched.data -F comm,tid,cpu,time,event,trace 2>/dev/null > $OUT/sched.txt
python3 - $P $OUT/sched.txt <<'PY'
import sys,re,collections
P=sys.argv[1]
pre=collections.Counter(); n=0; wakers=collections.Counter(); vol=0
for l in open(sys.argv[2]):
    if 'sched_switch' in l and f'prev_pid={P} ' in l:
        m=re.search(r'prev_state=(\S+) ==> next_comm=(.*?) next_pid=(\d+)',l)
        if m:
            if m.group(1).startswith('R'): pre[m.group(2)]+=1; n+=1
            else: vol+=1
print('main thread: preempted',n,'slept',vol)
for k,v in pre.most_common(8): print('  by',k,v)
PY

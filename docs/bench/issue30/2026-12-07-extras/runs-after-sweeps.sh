#!/bin/bash
# schedp.sh: after the payload run, the workshop demo x3, the service sweep, then perf sched of S = 1 lane and iceoryx2 cases
until [ -f /tmp/s/runs7out/done2 ]; do sleep 5; done
OUT=/tmp/s/runs7out
B=/tmp/s/runs7bin/zshm
sleep 10
for i in 1 2 3; do
  echo "$(date -u +%H:%M:%S) zshm demo ($i; load $(cut -d' ' -f1 /proc/loadavg))" >> $OUT/runs.log
  $B demo > $OUT/demo-$i.txt 2>&1
done
echo "$(date -u +%H:%M:%S) zshm bench --sweeps service --rounds 3 (load $(cut -d' ' -f1 /proc/loadavg))" >> $OUT/runs.log
$B bench --out $OUT/svc --sweeps service --rounds 3 > $OUT/service.log 2>&1
echo "$(date -u +%H:%M:%S) exit $?" >> $OUT/runs.log
mkdir -p $OUT/sched
for round in 1 2; do
for mode in lane iceoryx2; do
  echo "$(date -u +%H:%M:%S) perf sched of zshm bench --sweeps subscribers --subscribers 1 --modes $mode --rounds 1 --seconds 20 (round $round)" >> $OUT/runs.log
  $B bench --out $OUT/sched/$mode-$round --sweeps subscribers --subscribers 1 --modes $mode --rounds 1 --seconds 20 > $OUT/sched/$mode-$round.log 2>&1 &
  P=$!
  until pgrep -f "bench-node --mode" >/dev/null; do sleep 0.2; done
  sleep 10
  perf sched record -a -o $OUT/sched/$mode-$round.data -- sleep 6 > /dev/null 2>&1
  wait $P
done
done
touch $OUT/done3

#!/bin/bash
# Repro loop of transport::tcp_fallback_delivers_byte_exact_when_dev_shm_is_read_only, arms alternating.
Z=/tmp/zshm-new
N=${N:-20}
cd /tmp/wedge
for i in $(seq $N); do
  for arm in lean rxown; do
    unset MALLOC_ARENA_MAX; if [ $arm = rxown ]; then export ZENOH_RUNTIME="(app: (worker_threads: 1), acc: (handover: app), tx: (worker_threads: 1), rx: (worker_threads: 1), net: (handover: app))"; else unset ZENOH_RUNTIME; fi
    d=/tmp/wedge/b7/$arm-$i; mkdir -p $d
    $Z router -l tcp/127.0.0.1:0 > $d/router.out 2> $d/router.err &
    r=$!
    for _ in $(seq 100); do loc=$(grep -o "listening on tcp/127.0.0.1:[0-9]*" $d/router.out | awk '{print $3}'); [ -n "$loc" ] && break; sleep 0.1; done
    $Z sub -e $loc -n 200 -k it/transport > $d/sub.out 2> $d/sub.err &
    s=$!
    for _ in $(seq 100); do grep -q subscribed $d/sub.err && break; sleep 0.1; done
    unshare --mount --propagation private sh -c 'mount -t tmpfs -o ro,size=64k tmpfs /dev/shm && exec "$0" "$@"' $Z pub -e $loc -n 200 -s 4194304 -k it/transport > $d/pub.out 2> $d/pub.err &
    p=$!
    ok=0
    for _ in $(seq 400); do kill -0 $s 2>/dev/null || { ok=1; break; }; sleep 0.1; done
    if [ $ok = 0 ]; then
      echo "$(date +%T) $arm-$i WEDGED" | tee -a /tmp/wedge/log7
      ss -tnpi > $d/ss.txt 2>&1
      for pid in $(pgrep -f "$Z pub -e $loc") $s $r; do
        gdb -p $pid -batch -ex 'thread apply all bt' > $d/gdb-$pid.txt 2>&1
      done
      pgrep -f "$Z pub -e $loc" > $d/pub.pid
    else
      echo "$(date +%T) $arm-$i ok $(head -c 60 $d/sub.out)" >> /tmp/wedge/log7
    fi
    kill -INT $s $p 2>/dev/null; pkill -INT -f "$Z pub -e $loc"; sleep 0.5; kill -INT $r; wait 2>/dev/null
  done
done

#!/bin/bash
# wcount.sh BIN OUT: write/read/epoll_wait syscalls of all lane nodes over 5 s of a T=200 lane case
BIN=$1; OUT=$2
$BIN bench --out $OUT --sweeps topics --topics 200 --modes lane --rounds 1 --seconds 10 > $OUT.log 2>&1 &
B=$!
until pgrep -f "bench-node --mode" >/dev/null; do sleep 0.5; done
sleep 12
P=$(pgrep -d, -f "bench-node --mode")
perf stat -e 'syscalls:sys_enter_write,syscalls:sys_enter_ioctl,syscalls:sys_enter_read,syscalls:sys_enter_epoll_wait,context-switches' -p $P -- sleep 5 2> $OUT.perf
wait $B
cat $OUT.perf

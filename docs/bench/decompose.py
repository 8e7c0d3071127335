#!/usr/bin/env python3
"""Splits the slow messages of one topics or subscribers case into their parts.

    zshm bench --sweeps subscribers --subscribers 1 --modes lane --rounds 1 --seconds 20 --trace --out OUT &
    # once the nodes run, inside the measured window, on the same clock as the trace:
    perf sched record -k mono -a -o sched.data -- sleep 6
    perf script --ns -i sched.data -F comm,tid,cpu,time,event,trace > sched.txt
    python3 docs/bench/decompose.py OUT/trace/round1-S1-lane sched.txt

The trace (`zshm bench --trace`, router/src/cmd/bench/topics/trace.rs) gives each message's stamp,
when its publish call returned and when and on which thread its callback had it. The scheduler
trace gives when that thread was woken (`sched_waking`) and when it next got a CPU
(`sched_switch`). Each message inside the scheduler trace's window then splits into:

- to wake-up: from the stamp to the receiving thread's last wake-up before the callback (the
  publisher's send and ring);
- wait for a CPU: from that wake-up to the thread's next switch-in;
- run: from that switch-in to the callback (the thread's own work, and any time it lost the CPU
  again on the way).

A message whose receiving thread was last woken before its stamp found the thread already awake
(draining earlier messages, or runnable and waiting): it is counted as "already awake", and its
whole latency as run.
"""
import bisect
import csv
import glob
import os
import re
import statistics
import sys
from collections import defaultdict

EVENT = re.compile(r"^\s*(.+?)\s+(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+sched:(\w+):\s+(.*)$")
PID = re.compile(r"\bpid=(\d+)")
NEXT = re.compile(r"next_pid=(\d+)")


def read_scheduler(path):
    """Per thread: its wake-up times and its switch-in times (ns), and the trace's window."""
    woken, switched_in = defaultdict(list), defaultdict(list)
    first = last = None
    with open(path) as lines:
        for line in lines:
            m = EVENT.match(line)
            if not m:
                continue
            t = int(round(float(m.group(4)) * 1e9))
            first = t if first is None else first
            last = t
            event, rest = m.group(5), m.group(6)
            if event in ("sched_waking", "sched_wakeup"):
                woken[int(PID.search(rest).group(1))].append(t)
            elif event == "sched_switch":
                switched_in[int(NEXT.search(rest).group(1))].append(t)
    for times in list(woken.values()) + list(switched_in.values()):
        times.sort()
    return woken, switched_in, first, last


def read_received(case):
    rows = []
    for path in glob.glob(os.path.join(case, "node-*-received.csv")):
        with open(path) as f:
            for r in csv.DictReader(f):
                rows.append((int(r["stamp_ns"]), int(r["at_ns"]), int(r["tid"])))
    return rows


def split(message, woken, switched_in):
    """(to wake-up, wait for a CPU, run, already awake) in ns, or None without a switch-in."""
    stamp, at, tid = message
    wakes = woken.get(tid, [])
    i = bisect.bisect_right(wakes, at) - 1
    if i < 0:
        return None
    wake = wakes[i]
    if wake < stamp:
        return (0, 0, at - stamp, True)
    ins = switched_in.get(tid, [])
    j = bisect.bisect_left(ins, wake)
    if j >= len(ins) or ins[j] > at:
        return None
    return (wake - stamp, ins[j] - wake, at - ins[j], False)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    case, scheduler = sys.argv[1], sys.argv[2]
    worst = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    woken, switched_in, first, last = read_scheduler(scheduler)
    if first is None:
        sys.exit(f"{scheduler}: no scheduler events")
    received = [m for m in read_received(case) if first < m[0] and m[1] < last]
    if not received:
        sys.exit(f"{case}: no message inside the scheduler trace's window (is it on the same clock, -k mono?)")
    received.sort(key=lambda m: m[1] - m[0])
    latencies = [at - stamp for stamp, at, _ in received]
    n = len(received)

    def pct(p):
        return latencies[min(n - 1, int(p * n))] / 1e3

    print(f"{case}: {n} messages inside the scheduler trace; latency p50 {pct(0.5):.0f}, "
          f"p99 {pct(0.99):.0f}, p99.9 {pct(0.999):.0f} µs")
    print()
    print("| slowest | messages | to wake-up, median µs | wait for a CPU, median µs | run, median µs "
          "| most of the latency in: to wake-up / wait / run / already awake |")
    print("|---|---|---|---|---|---|")
    for share, label in ((0.01, "1%"), (0.001, "0.1%")):
        tail = received[n - max(1, int(share * n)):]
        parts = [p for p in (split(m, woken, switched_in) for m in tail) if p is not None]
        if not parts:
            continue
        most = [0, 0, 0, 0]
        for wake, wait, run, awake in parts:
            most[3 if awake else max(range(3), key=lambda k: (wake, wait, run)[k])] += 1
        med = [statistics.median(p[k] for p in parts) / 1e3 for k in range(3)]
        print(f"| {label} | {len(parts)} | {med[0]:.0f} | {med[1]:.0f} | {med[2]:.0f} | "
              f"{' / '.join(str(c) for c in most)} |")
    print()
    print(f"The {worst} slowest, µs: latency = to wake-up + wait for a CPU + run")
    for m in received[-worst:]:
        p = split(m, woken, switched_in)
        lat = (m[1] - m[0]) / 1e3
        if p is None:
            print(f"  {lat:7.0f}  (no switch-in of thread {m[2]} found)")
        elif p[3]:
            print(f"  {lat:7.0f}  thread {m[2]} already awake")
        else:
            print(f"  {lat:7.0f} = {p[0] / 1e3:5.0f} + {p[1] / 1e3:6.0f} + {p[2] / 1e3:6.0f}   thread {m[2]}")


if __name__ == "__main__":
    main()

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

For the slowest 1% it also says what the CPUs ran while they waited, and where the woken thread
was queued: on an idle CPU, on its waker's own CPU (behind the publisher), or on another busy one.

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
TARGET = re.compile(r"target_cpu=(\d+)")
NEXT = re.compile(r"next_comm=(.*) next_pid=(\d+)")


def read_scheduler(path):
    """Per thread: its wake-up times and its switch-in times (ns); per CPU: who ran from when
    (ns, comm); and the trace's window."""
    woken, switched_in, ran = defaultdict(list), defaultdict(list), defaultdict(list)
    target = {}
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
                tid = int(PID.search(rest).group(1))
                woken[tid].append(t)
                cpu = TARGET.search(rest)
                if cpu:
                    # Where the woken thread was queued, and the waker's own CPU.
                    target[(tid, t)] = (int(cpu.group(1)), int(m.group(3)))
            elif event == "sched_switch":
                n = NEXT.search(rest)
                switched_in[int(n.group(2))].append(t)
                # Threads by name without their number: swapper/1 is "idle", a pool's threads one.
                comm = "idle" if n.group(2) == "0" else re.sub(r"[./:-]?\d+$", "", n.group(1))
                ran[int(m.group(3))].append((t, comm))
    for times in list(woken.values()) + list(switched_in.values()) + list(ran.values()):
        times.sort()
    return woken, switched_in, ran, target, first, last


def running_at(ran, cpu, t):
    """Who ran on `cpu` at `t`."""
    timeline = ran.get(cpu, [])
    i = bisect.bisect_right(timeline, (t, "\uffff")) - 1
    return timeline[i][1] if i >= 0 else None


def held(ran, start, end):
    """How long each name held each CPU between start and end (ns)."""
    total = defaultdict(int)
    for timeline in ran.values():
        i = max(0, bisect.bisect_right(timeline, (start, "\uffff")) - 1)
        while i < len(timeline) and timeline[i][0] < end:
            since = max(timeline[i][0], start)
            until = min(timeline[i + 1][0] if i + 1 < len(timeline) else end, end)
            if until > since and timeline[i][0] <= end:
                total[timeline[i][1]] += until - since
            i += 1
    return total


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
    woken, switched_in, ran, target, first, last = read_scheduler(scheduler)
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
    # Who held the CPUs while the slowest 1% waited for one.
    tail = received[n - max(1, int(0.01 * n)):]
    holders = defaultdict(int)
    onto_idle = []
    for m in tail:
        p = split(m, woken, switched_in)
        if p is not None and not p[3] and p[1] > 0:
            wake = m[0] + p[0]
            cpus = target.get((m[2], wake))
            if cpus is not None:
                queued_on, waker_on = cpus
                if running_at(ran, queued_on, wake) == "idle":
                    onto_idle.append(("an idle CPU", p[1]))
                elif queued_on == waker_on:
                    onto_idle.append(("its waker's own CPU", p[1]))
                else:
                    onto_idle.append(("another busy CPU", p[1]))
            for comm, ns in held(ran, wake, wake + p[1]).items():
                holders[comm] += ns
    waited = sum(holders.values())
    if waited:
        top = sorted(holders.items(), key=lambda kv: -kv[1])[:6]
        print()
        print("While the slowest 1% waited for a CPU, the CPUs ran: " +
              ", ".join(f"{comm} {ns / waited:.0%}" for comm, ns in top) +
              f" (of {waited / 1e3:.0f} CPU-µs)")
    for label in ("an idle CPU", "its waker's own CPU", "another busy CPU"):
        waits = [w for where, w in onto_idle if where == label]
        if waits:
            print(f"Of the slowest 1%, {len(waits)} were woken onto {label}: "
                  f"wait for it median {statistics.median(waits) / 1e3:.0f} µs, max {max(waits) / 1e3:.0f} µs")
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

#!/usr/bin/env python3
"""BENCHMARKS.md's tables of the payload, fan-out and throughput sweeps, from a `zshm bench` run's JSON.

    python3 docs/bench/tables.py docs/bench/results.json

Latency against payload: p50 / p99 in µs, the median over the rounds of each mode at 64 B, 1 MiB,
4 MiB and 16 MiB. Fan-out: p50 / p99 of one round at each subscriber count. Throughput: messages a
second (and bytes a second) of one round.
"""
import json
import statistics
import sys
from collections import defaultdict

PAYLOAD_MODES = ["tcp", "shm-copy", "shm-loan", "lane", "zenoh-tcp", "zenoh-shm", "iceoryx2"]
SIZES = {64: "64 B", 1 << 20: "1 MiB", 4 << 20: "4 MiB", 16 << 20: "16 MiB"}


def us(v: float) -> str:
    return f"{v:.1f}" if v < 100 else f"{v:.0f}"


def rate(v: float) -> str:
    return f"{v / 1000:.1f} k" if v >= 1000 else f"{v:.0f}"


def size(v: float) -> str:
    return f"{v / 1e9:.1f} GB/s" if v >= 1e9 else f"{v / 1e6:.0f} MB/s"


def main() -> None:
    cases = json.load(open(sys.argv[1]))
    for case in cases:
        if case["error"]:
            sys.exit(f"{case['case']}: {case['error']}")
    payload = defaultdict(list)
    for c in cases:
        k = c["case"]
        if k["sweep"] == "payload":
            payload[(k["mode"], k["payload"])].append(c)
    modes = [m for m in PAYLOAD_MODES if any(k[0] == m for k in payload)]
    print("| payload | " + " | ".join(modes) + " |")
    print("|---|" + "---|" * len(modes))
    for bytes_, name in SIZES.items():
        cells = []
        for m in modes:
            runs = payload.get((m, bytes_), [])
            if not runs:
                cells.append("")
                continue
            p50 = statistics.median(r["latency_us"]["p50"] for r in runs)
            p99 = statistics.median(r["latency_us"]["p99"] for r in runs)
            cells.append(f"{us(p50)} / {us(p99)}")
        print(f"| {name} | " + " | ".join(cells) + " |")
    lost = sum(r["lost"] for runs in payload.values() for r in runs)
    print(f"\n(payload sweep: {lost} lost over every mode, size and round)\n")

    fan = defaultdict(dict)
    for c in cases:
        k = c["case"]
        if k["sweep"] == "fan-out":
            fan[k["subscribers"]][k["mode"]] = c
    fan_modes = sorted({m for row in fan.values() for m in row}, key=PAYLOAD_MODES.index)
    print("| subscribers | " + " | ".join(fan_modes) + " | lost (any mode) |")
    print("|---|" + "---|" * (len(fan_modes) + 1))
    for n in sorted(fan):
        row = fan[n]
        cells = [f"{us(row[m]['latency_us']['p50'])} / {us(row[m]['latency_us']['p99'])}" if m in row else "" for m in fan_modes]
        lost = sum(row[m]["lost"] for m in row)
        print(f"| {n} | " + " | ".join(cells) + f" | {lost} |")
    print()

    thr = defaultdict(dict)
    for c in cases:
        k = c["case"]
        if k["sweep"] == "throughput":
            thr[k["payload"]][k["mode"]] = c
    thr_modes = sorted({m for row in thr.values() for m in row}, key=PAYLOAD_MODES.index)
    print("| payload | " + " | ".join(thr_modes) + " |")
    print("|---|" + "---|" * len(thr_modes))
    for bytes_ in sorted(thr):
        row = thr[bytes_]
        name = SIZES.get(bytes_, f"{bytes_ // 1024} KiB" if bytes_ >= 1024 else f"{bytes_} B")
        cells = []
        for m in thr_modes:
            c = row.get(m)
            if c is None:
                cells.append("")
            elif bytes_ < 1024:
                cells.append(f"{rate(c['msgs_per_s'])} msg/s")
            else:
                cells.append(f"{rate(c['msgs_per_s'])} msg/s ({size(c['bytes_per_s'])})")
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""BENCHMARKS.md's tables of the subscribers and topics sweeps, from a `zshm bench` run's CSV.

    python3 docs/bench/issue30/tables.py docs/bench/issue30/subscribers.csv S
    python3 docs/bench/issue30/tables.py docs/bench/issue30/topics.csv T

One row per case (S or T, mode): the messages delivered and expected summed over the rounds
("lossy" when any round lost one), the medians over the rounds of p50, p99, p99.9 and the nodes'
own CPU and of their voluntary context switches per delivered message (when the CSV has them,
since 7 December), the fewest threads per node (a range when the rounds differ), and the largest RSS and PSS
of any node in any round.
"""
import csv
import statistics
import sys
from collections import defaultdict

MODES = ["lane", "lane-inline", "shm-loan", "tcp", "zenoh-shm", "iceoryx2"]


def latency(us: float) -> str:
    return f"{us:.1f}" if us < 100 else f"{us:.0f}"


def main() -> None:
    path, axis = sys.argv[1], sys.argv[2]
    column = {"S": "subscribers", "T": "topics"}[axis]
    cases = defaultdict(list)
    for row in csv.DictReader(open(path)):
        if row["error"]:
            sys.exit(f"{path}: {axis} = {row[column]} {row['mode']} failed: {row['error']}")
        cases[(int(row[column]), row["mode"])].append(row)
    switches = "voluntary_switches" in next(iter(cases.values()))[0]
    print(f"| {axis} | mode | delivered / expected (all rounds) | p50 | p99 | p99.9 "
          "| nodes' CPU (cores) |" + (" switches per message |" if switches else "")
          + " threads per node | RSS (PSS) per node MiB (max) |")
    print("|---|---|---|---|---|---|---|" + ("---|" if switches else "") + "---|---|")
    for (value, mode), rows in sorted(cases.items(), key=lambda c: (c[0][0], MODES.index(c[0][1]))):
        delivered = sum(int(r["delivered"]) for r in rows)
        expected = sum(int(r["expected"]) for r in rows)
        lossy = " (lossy)" if delivered < expected else ""
        median = lambda key: statistics.median(float(r[key]) for r in rows)  # noqa: E731
        threads = sorted({int(r["threads_min"]) for r in rows})
        threads = str(threads[0]) if len(threads) == 1 else f"{threads[0]}–{threads[-1]}"
        rss = max(float(r["rss_mib_max"]) for r in rows)
        pss = max(float(r["pss_mib_max"]) for r in rows)
        per_message = ""
        if switches:
            per = statistics.median(int(r["voluntary_switches"]) / max(int(r["delivered"]), 1) for r in rows)
            per_message = f" {per:.2f} |"
        print(f"| {value} | {mode} | {delivered} / {expected}{lossy} | {latency(median('p50_us'))} "
              f"| {latency(median('p99_us'))} | {latency(median('p999_us'))} "
              f"| {median('nodes_cpu_cores'):.2f} |{per_message} {threads} | {rss:.0f} ({pss:.0f}) |")


if __name__ == "__main__":
    main()

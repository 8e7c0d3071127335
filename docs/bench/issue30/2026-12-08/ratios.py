#!/usr/bin/env python3
"""Lane / iceoryx2 per point and round, from a `zshm bench` run's CSV: the nodes' CPU, p99.9, the
largest lane node's RSS (iceoryx2's), and the same ratios for lane-inline.

    python3 ratios.py subscribers/subscribers.csv S
    python3 ratios.py topics/topics.csv T
"""
import csv
import sys
from collections import defaultdict


def main() -> None:
    path, axis = sys.argv[1], sys.argv[2]
    column = {"S": "subscribers", "T": "topics"}[axis]
    rows = defaultdict(dict)
    for row in csv.DictReader(open(path)):
        rows[(int(row[column]), int(row["round"]))][row["mode"]] = row
    points = sorted({value for value, _ in rows})
    print(f"| {axis} | nodes' CPU | p99.9 | largest lane node's RSS, MiB (iceoryx2's) "
          "| lane-inline CPU | lane-inline p99.9 |")
    print("|---|---|---|---|---|---|")
    for value in points:
        rounds = sorted(r for v, r in rows if v == value)
        cases = [rows[(value, r)] for r in rounds]

        def ratios(mode: str, key: str) -> str:
            return ", ".join(f"{float(c[mode][key]) / float(c['iceoryx2'][key]):.2f}" for c in cases)

        rss = max(float(c["lane"]["rss_mib_max"]) for c in cases)
        floor = max(float(c["iceoryx2"]["rss_mib_max"]) for c in cases)
        print(f"| {value} | {ratios('lane', 'nodes_cpu_cores')} | {ratios('lane', 'p999_us')} "
              f"| {rss:.1f} ({floor:.1f}) | {ratios('lane-inline', 'nodes_cpu_cores')} "
              f"| {ratios('lane-inline', 'p999_us')} |")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Where the lossy cases of a sweep lost their messages, from the bench's log and JSON: for each
lossy case, the messages missing against the drops the nodes counted themselves (a zenoh
subscription's queue overflowing its KEEP_LAST depth, the lane's queue drops).

    python3 losses.py subscribers.log subscribers/subscribers.json
"""
import json
import re
import sys

NODE = re.compile(r"received (\d+) of (\d+) measured messages; lane: .*queue drops (\d+),.*queue overflows (\d+)")


def main() -> None:
    log, results = sys.argv[1], json.load(open(sys.argv[2]))
    blocks, current = [], None
    for line in open(log):
        if re.match(r"^k\d+p\d+: lossy", line):
            current = [0, 0, 0, 0]
            blocks.append(current)
        elif current is not None and (m := NODE.search(line)):
            for i, value in enumerate(m.groups()):
                current[i] += int(value)
    lossy = [r for r in results if r["delivered"] < r["expected"]]
    print("| case | round | missing | zenoh queue overflows counted | lane queue drops counted |")
    print("|---|---|---|---|---|")
    for received, expected, lane_drops, overflows in blocks:
        match = [r for r in lossy if (r["delivered"], r["expected"]) == (received, expected)]
        name = ", ".join(f"{r['case']['axis']} {r['case']['topics'] if r['case']['axis'] == 'topics' else r['case']['subscribers']} {r['case']['mode']}" for r in match) or "?"
        rounds = ", ".join(str(r["case"]["round"]) for r in match)
        print(f"| {name} | {rounds} | {expected - received} | {overflows} | {lane_drops} |")


if __name__ == "__main__":
    main()

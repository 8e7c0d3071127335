"""Which measured messages a case's subscribers missed, and when they were stamped against each
subscriber's last arrival. Usage: python3 missing.py TRACE_CASE_DIR (a `zshm bench --trace` case)."""
import collections
import csv
import glob
import sys

case = sys.argv[1]
published = {}
for f in glob.glob(f"{case}/node-*-published.csv"):
    for r in csv.DictReader(open(f)):
        published[(r["topic"], int(r["seq"]))] = int(r["stamp_ns"])
first, last = min(published.values()), max(published.values())
print(f"{len(published)} measured messages published over {(last - first) / 1e9:.2f} s")
for f in sorted(glob.glob(f"{case}/node-*-received.csv"), key=lambda p: int(p.split("node-")[1].split("-")[0])):
    node = f.split("node-")[1].split("-")[0]
    got, last_at = collections.defaultdict(set), 0
    for r in csv.DictReader(open(f)):
        got[r["topic"]].add(int(r["seq"]))
        last_at = max(last_at, int(r["at_ns"]))
    missing = sorted(s for (t, q), s in published.items() if t in got and q not in got[t])
    if missing:
        print(f"node {node}: missed {len(missing)}, stamped {(missing[0] - first) / 1e9:.2f}-"
              f"{(missing[-1] - first) / 1e9:.2f} s; its last arrival {(last_at - first) / 1e9:.2f} s")

#!/usr/bin/env python3
"""summ.py SET...: one table row per traced run of series.sh (run from its ROOT)."""
import sys, re, os
rows = []
for set_ in sys.argv[1:]:
    d = set_
    log = open(f"{d}/runs.log").read().split("\n")
    steal = {}
    for i, l in enumerate(log):
        m = re.match(r"(\S+) (\S+) round (\d+) load (\S+)", l)
        if m and i + 1 < len(log):
            s = re.search(r"(\d+)$", log[i+1])
            steal[f"{m.group(2)}-{m.group(3)}"] = (m.group(1), m.group(4), s.group(1) if s else "?")
    for key, (t, load, st) in sorted(steal.items(), key=lambda kv: kv[1][0]):
        f = f"{d}/{key}.decomp"
        if not os.path.exists(f): continue
        txt = open(f).read()
        m = re.search(r"p50 (\d+), p99 (\d+), p99.9 (\d+)", txt)
        one = re.search(r"^\| 1% \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| (.*) \|$", txt, re.M)
        tenth = re.search(r"^\| 0.1% \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| (.*) \|$", txt, re.M)
        cls = {}
        for lab in ("an idle CPU", "its waker's own CPU", "another busy CPU"):
            mm = re.search(rf"(\d+) were woken onto {re.escape(lab)}: wait for it median (\d+)", txt)
            cls[lab] = f"{mm.group(1)} ({mm.group(2)})" if mm else "0"
        mode, rnd = key.rsplit("-", 1)
        print(f"| {set_} | {t} | {mode} | {st} | {m.group(1)} / {m.group(2)} / {m.group(3)} | {tenth.group(2)} / {tenth.group(3)} / {tenth.group(4)} | {one.group(5)} | {cls['its waker' + chr(39) + 's own CPU']} | {cls['an idle CPU']} | {cls['another busy CPU']} |")

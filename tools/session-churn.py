#!/usr/bin/env python3
"""Sessions that open, declare, and close against one router, at a steady rate, with the
router's RSS sampled every 30 s: what a router keeps of each session it has seen
(docs/RELIABILITY.md, "What a router keeps of a closed session").

The client is eclipse-zenoh's Python binding (router/tests/interop/requirements.txt installs it in
.venv), so nothing of zshm runs on the session's side. Each session gets keys of its own, as a
ROS node's do (they carry its zenoh id).

Usage: .venv/bin/python tools/session-churn.py ENDPOINT ROUTER_PID KIND [RATE] [SECONDS] [MODE]
  KIND     plain (open and close), admin-space (open with zenoh's admin space on, as
           rmw_zenoh's session config has it, and close), queryable, wild-queryable (on `<own key>/**`, as a session's
           admin space is), token, or zshm-like (a queryable and a liveliness
           token on keys of its own, and one liveliness query of the ROS graph, as
           `zshm nodes` does)
  RATE     sessions a second (default 20)
  SECONDS  how long (default 300); zenoh keeps a closed session's statistics for 60 s, so the
           growth that matters is after the first minute
  MODE     the sessions' zenoh mode, peer (default, as rmw_zenoh's) or client
Prints CSV lines: kind,seconds,sessions,router_rss_kib.
"""

import sys
import time
import uuid

import zenoh

KINDS = ("plain", "admin-space", "queryable", "wild-queryable", "token", "zshm-like")


def router_rss_kib(pid: str) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


def one_session(conf: zenoh.Config, kind: str) -> None:
    if kind == "admin-space":
        conf.insert_json5("adminspace/enabled", "true")
    session = zenoh.open(conf)
    own = f"zshm_churn/{uuid.uuid4().hex}"
    declared = []
    if kind in ("queryable", "zshm-like"):
        declared.append(session.declare_queryable(f"{own}/report", lambda query: None))
    if kind == "wild-queryable":
        # As a zenoh session's own admin space is declared: `@/<zid>/peer/**`.
        declared.append(session.declare_queryable(f"{own}/**", lambda query: None))
    if kind in ("token", "zshm-like"):
        declared.append(session.liveliness().declare_token(f"{own}/token"))
    if kind == "zshm-like":
        list(session.liveliness().get("@ros2_lv/0/**", timeout=0.05))
    session.close()


def main() -> int:
    if len(sys.argv) < 4 or sys.argv[3] not in KINDS:
        print(__doc__, file=sys.stderr)
        return 2
    endpoint, pid, kind = sys.argv[1], sys.argv[2], sys.argv[3]
    rate = float(sys.argv[4]) if len(sys.argv) > 4 else 20.0
    seconds = float(sys.argv[5]) if len(sys.argv) > 5 else 300.0
    mode = sys.argv[6] if len(sys.argv) > 6 else "peer"
    conf = zenoh.Config()
    conf.insert_json5("mode", f'"{mode}"')
    conf.insert_json5("connect/endpoints", f'["{endpoint}"]')
    conf.insert_json5("scouting/multicast/enabled", "false")
    start = time.monotonic()
    sessions = 0
    next_sample = 0.0
    print("kind,seconds,sessions,router_rss_kib", flush=True)
    while (elapsed := time.monotonic() - start) < seconds:
        if elapsed >= next_sample:
            print(f"{kind},{elapsed:.0f},{sessions},{router_rss_kib(pid)}", flush=True)
            next_sample += 30
        one_session(conf, kind)
        sessions += 1
        time.sleep(max(0.0, sessions / rate - (time.monotonic() - start)))
    print(f"{kind},{time.monotonic() - start:.0f},{sessions},{router_rss_kib(pid)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The bridge's big-message benchmark (issues 20 and 28): a 7 MB PointCloud2 at 15 Hz from a DDS
camera, `--peer cyclone` (Cyclone DDS, `router/tests/interop/dds_peer.py cloud`) or `--peer
fastdds` (a real rclpy node on Fast DDS, ROS 2's default, `rclpy_peer.py cloud`), received

  dds     by a DDS reader of the same kind (`cloud-listener`): the DDS-to-DDS baseline (between
          two Fast DDS nodes of one host that is Fast DDS's shared memory);
  bridge  through `zshm bridge` by `zshm cam-latency` (shared memory on the zenoh side).

Modes alternate in interleaved rounds (the order flips every round) and the medians of the rounds'
p50 and mean are compared, so the machine's drift hits both modes alike. The bridge runs for the
whole benchmark; its CPU per cloud is read from /proc over the bridge rounds only.

Everything runs in a network namespace of its own (loopback only, multicast on) and a private
/dev/shm: no DDS packet leaves the machine, and Fast DDS's segments go with the benchmark. Needs
root (ip netns, unshare), the release build (`cargo build --release`), the test venv and, for
`--peer fastdds`, the Jazzy prefix (`tools/test.sh` makes both; `ZSHM_ROS2=$(tools/ros2/setup.sh |
tail -n 1)`). The bridge's resident memory (now and at its peak) is printed at the end.

Usage: sudo .venv/bin/python tools/bench_bridge.py [--peer cyclone|fastdds] [--rounds 5] [--count 45]
       [--rate 15]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEER = os.path.join(ROOT, "router/tests/interop/dds_peer.py")
RCLPY_PEER = os.path.join(ROOT, "router/tests/interop/rclpy_peer.py")
TICKS = os.sysconf("SC_CLK_TCK")


def netns(name):
    subprocess.run(["ip", "netns", "add", name], check=True)
    for args in (["link", "set", "lo", "up"], ["link", "set", "lo", "multicast", "on"],
                 ["route", "add", "224.0.0.0/4", "dev", "lo"]):
        subprocess.run(["ip", "-n", name, *args], check=True)


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def wait_line(proc, prefix, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if line.startswith(prefix):
            return line
    sys.exit(f"bench_bridge: no line starting {prefix!r} within {timeout} s")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--count", type=int, default=45, help="clouds per round")
    parser.add_argument("--rate", type=float, default=15)
    parser.add_argument("--zshm", default=os.path.join(ROOT, "target/release/zshm"))
    parser.add_argument("--bridge-log", default="/tmp/bench_bridge.log", help="the bridge's stderr")
    parser.add_argument("--peer", choices=["cyclone", "fastdds"], default="cyclone")
    args = parser.parse_args()
    # A private /dev/shm for everything below (Fast DDS finds its peers through segments there).
    if os.environ.get("BENCH_BRIDGE_PRIVATE_SHM") != "1":
        os.environ["BENCH_BRIDGE_PRIVATE_SHM"] = "1"
        os.execvp("unshare", ["unshare", "--mount", "--propagation", "private", sys.executable, *sys.argv])
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4g", "tmpfs", "/dev/shm"], check=True)

    ns = f"zshm-bench-bridge-{os.getpid()}"
    netns(ns)
    inside = ["ip", "netns", "exec", ns]
    started = []

    def spawn(argv, **kw):
        proc = subprocess.Popen(inside + argv, stdout=subprocess.PIPE, text=True, **kw)
        started.append(proc)
        return proc

    if args.peer == "cyclone":
        python, peer, topic = sys.executable, PEER, "rt/camera/points"
    else:
        python = os.path.join(os.environ["ZSHM_ROS2"], "bin/python")
        peer, topic = RCLPY_PEER, "/camera/points"
    camera = [python, peer, "cloud", "--topic", topic, "--count", str(args.count),
              "--rate", str(args.rate), "--keep-all", "--timeout", "60"]
    try:
        # The namespace has ports of its own, so the router can take rmw_zenoh's default one.
        router = spawn([args.zshm, "router", "-l", "tcp/127.0.0.1:7447", "--no-metrics"])
        wait_line(router, "Started Zenoh router with id")
        locator = "tcp/127.0.0.1:7447"
        # Its routes (stdout) and log (stderr) go to --bridge-log, for when a round goes wrong.
        bridge_log = open(args.bridge_log, "w")
        bridge = subprocess.Popen(inside + [args.zshm, "bridge", "-e", locator], stdout=bridge_log,
                                  stderr=subprocess.STDOUT, text=True)
        started.append(bridge)
        deadline = time.monotonic() + 60
        while "zshm bridge: DDS domain" not in open(args.bridge_log).read():
            if time.monotonic() > deadline or bridge.poll() is not None:
                sys.exit(f"bench_bridge: the bridge did not start (see {args.bridge_log})")
            time.sleep(0.1)
        results = {"dds": [], "bridge": []}
        bridge_cpu, bridge_clouds = 0.0, 0
        for round_ in range(args.rounds):
            order = ("dds", "bridge") if round_ % 2 == 0 else ("bridge", "dds")
            for mode in order:
                if mode == "dds":
                    extra = ["--no-verify"] if args.peer == "fastdds" else []
                    listener = spawn([python, peer, "cloud-listener", "--topic", topic, *extra,
                                      "--count", str(args.count), "--keep-all", "--timeout", "60"])
                    wait_line(listener, "listening")
                    talker = spawn(camera, stderr=subprocess.DEVNULL)
                    line = wait_line(listener, "clouds ", timeout=120)
                    words = line.split()
                    row = {"n": int(words[1]), "lost": int(words[5]), "mean": float(words[7]),
                           "p50": float(words[10]), "max": float(words[13]), "shm": 0.0}
                else:
                    probe = spawn([args.zshm, "cam-latency", "-e", locator, "-n", str(args.count), "--json",
                                   "--window", "60", "--timeout", "60",
                                   # A cloud that never comes ends the round, counted as lost.
                                   "--duration", str(args.count / args.rate + 30)], stderr=subprocess.DEVNULL)
                    wait_route = time.monotonic() + 30
                    while time.monotonic() < wait_route:
                        info = subprocess.run(inside + [args.zshm, "topic", "info", "/camera/points", "-e", locator,
                                                        "--timeout", "1"], capture_output=True, text=True)
                        if "Subscription count: 1" in info.stdout:
                            break  # the bridge's route comes up with the probe's subscription
                    before = cpu_seconds(bridge.pid)
                    talker = spawn(camera, stderr=subprocess.DEVNULL)
                    report = None
                    for out in probe.stdout:
                        report = json.loads(out)
                        if report.get("final"):
                            break
                    probe.wait()
                    talker.wait()
                    bridge_cpu += cpu_seconds(bridge.pid) - before
                    bridge_clouds += report["received"]
                    latency = report["latency_ms"]
                    row = {"n": report["received"], "lost": report["lost"], "mean": latency["mean"],
                           "p50": latency["p50"], "max": latency["max"], "shm": report["shm_share"]}
                if talker.wait() != 0:
                    print(f"round {round_ + 1} {mode}: the DDS camera failed (exit {talker.returncode}): "
                          "its reliable writer timed out waiting for the reader", flush=True)
                results[mode].append(row)
                print(f"round {round_ + 1} {mode:6} n={row['n']} lost={row['lost']} mean={row['mean']:.2f} ms "
                      f"p50={row['p50']:.2f} ms max={row['max']:.2f} ms shm={100 * row['shm']:.0f}%", flush=True)
        print()
        print("| mode | clouds received (of sent) | lost, as counted by the receiver | p50 (median of rounds) "
              "| mean (median) | SHM share |")
        print("|---|---|---|---|---|---|")
        for mode, rows in results.items():
            print(f"| {mode} | {sum(r['n'] for r in rows)} of {args.count * len(rows)} | {sum(r['lost'] for r in rows)} | "
                  f"{statistics.median(r['p50'] for r in rows):.2f} ms | "
                  f"{statistics.median(r['mean'] for r in rows):.2f} ms | "
                  f"{100 * min(r['shm'] for r in rows):.0f}% |")
        added = [b["p50"] - d["p50"] for b, d in zip(results["bridge"], results["dds"])]
        print()
        print(f"bridge adds (p50, per round): {', '.join(f'{a:+.2f}' for a in added)} ms; "
              f"median {statistics.median(added):+.2f} ms")
        if bridge_clouds:
            print(f"bridge CPU: {1000 * bridge_cpu / bridge_clouds:.2f} ms per cloud "
                  f"({100 * bridge_cpu * args.rate / bridge_clouds:.0f}% of a core at {args.rate:g} Hz)")
        with open(f"/proc/{bridge.pid}/status") as status:
            memory = {k: v.split()[0] for k, v in (line.split(":", 1) for line in status) if k in ("VmRSS", "VmHWM")}
        print(f"bridge memory: RSS {int(memory['VmRSS']) / 1024:.0f} MiB now, {int(memory['VmHWM']) / 1024:.0f} MiB "
              f"at its peak")
        with open("/proc/loadavg") as load:
            print(f"load average at the end: {load.read().split()[:3]}")
    finally:
        for proc in reversed(started):
            if proc.poll() is None:
                proc.send_signal(2)
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
        subprocess.run(["ip", "netns", "delete", ns], check=False)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The workshop's case with real ROS 2 nodes (issue 27): a real rclpy camera on rmw_zenoh_cpp
(ROS 2 Jazzy, 7 MB PointCloud2 at 15 Hz, `router/tests/interop/rclpy_peer.py cloud`) measured by
`zshm cam-latency`, with rmw_zenoh's own default configs, in four modes:

  zshm/tcp       `zshm router` as the router, shared memory off in every config
  zshm/shm       `zshm router`, `transport/shared_memory/enabled=true` everywhere (the workshop's
                 one change)
  rmw_zenohd/tcp the real rmw_zenohd as the router, shared memory off
  rmw_zenohd/shm the real rmw_zenohd, shared memory on

Modes run in interleaved rounds (the order rotates every round), and the medians of the rounds'
p50 and mean are compared, so the machine's drift hits every mode alike. Each round also counts
the bytes on loopback (the namespace's own) and the share the probe received through shared
memory.

Everything runs in a network namespace of its own (loopback only) and a private /dev/shm. Needs
root (ip netns, unshare), the release build (`cargo build --release`) and the Jazzy prefix with
rmw_zenoh_cpp (`tools/ros2/setup.sh --rmw-zenoh`, which `tools/test.sh` runs); pass it as
`ZSHM_ROS2` or let this script ask setup.sh for it.

Usage: sudo python3 tools/bench_workshop.py [--rounds 5] [--count 60] [--rate 15]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RCLPY_PEER = os.path.join(ROOT, "router/tests/interop/rclpy_peer.py")
RUN = os.path.join(ROOT, "tools/ros2/run.sh")
MODES = ["zshm/tcp", "zshm/shm", "rmw_zenohd/tcp", "rmw_zenohd/shm"]


def loopback_bytes(inside):
    text = subprocess.run([*inside, "cat", "/proc/net/dev"], capture_output=True, text=True,
                          check=True).stdout
    line = next(l for l in text.splitlines() if l.strip().startswith("lo:"))
    return int(line.split(":", 1)[1].split()[8])


def wait_line(stream, want, what, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            break
        if want(line):
            return line
    sys.exit(f"bench_workshop: no {what} within {timeout} s")


def stop(proc):
    if proc.poll() is None:
        proc.send_signal(2)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def one_round(mode, args, inside, prefix, configs):
    router_kind, transport = mode.split("/")
    env = dict(os.environ, ZSHM_ROS2=prefix,
               ZENOH_CONFIG_OVERRIDE=f"transport/shared_memory/enabled={str(transport == 'shm').lower()}",
               ZENOH_ROUTER_CONFIG_URI=configs["ROUTER"], ZENOH_SESSION_CONFIG_URI=configs["SESSION"])
    if router_kind == "zshm":
        router = subprocess.Popen([*inside, args.zshm, "router", "--no-metrics"], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    else:
        router = subprocess.Popen([*inside, RUN, "zenoh", "rmw_zenohd"], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    processes = [router]
    try:
        wait_line(router.stdout, lambda l: l.startswith("Started Zenoh router with id"), "router start line")
        probe = subprocess.Popen([*inside, args.zshm, "cam-latency", "-n", str(args.count), "--json",
                                  "--timeout", "120"], env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        processes.append(probe)
        wait_line(probe.stderr, lambda l: "measuring" in l, "probe start")
        before = loopback_bytes(inside)
        camera = subprocess.Popen([*inside, RUN, "zenoh", "python3", RCLPY_PEER, "cloud", "--topic",
                                   "/camera/points", "--count", str(args.count + 30), "--rate",
                                   str(args.rate), "--linger", "30"], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        processes.append(camera)
        out, _ = probe.communicate(timeout=args.count / args.rate + 180)
        loopback = loopback_bytes(inside) - before
        if probe.returncode != 0:
            sys.exit(f"bench_workshop: cam-latency exited {probe.returncode} in {mode}")
        report = json.loads(out.strip().splitlines()[-1])
        return {
            "p50": report["latency_ms"]["p50"],
            "mean": report["latency_ms"]["mean"],
            "shm": report["shm_share"],
            "received": report["received"],
            "loopback_per_cloud": loopback / max(report["received"], 1),
        }
    finally:
        for proc in reversed(processes):
            stop(proc)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--count", type=int, default=60, help="clouds per round")
    parser.add_argument("--rate", type=float, default=15)
    parser.add_argument("--zshm", default=os.path.join(ROOT, "target/release/zshm"))
    args = parser.parse_args()
    if os.environ.get("BENCH_WORKSHOP_PRIVATE_SHM") != "1":
        os.environ["BENCH_WORKSHOP_PRIVATE_SHM"] = "1"
        os.execvp("unshare", ["unshare", "--mount", "--propagation", "private", sys.executable, *sys.argv])
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4g", "tmpfs", "/dev/shm"], check=True)
    prefix = os.environ.get("ZSHM_ROS2") or subprocess.run(
        [os.path.join(ROOT, "tools/ros2/setup.sh"), "--rmw-zenoh"], capture_output=True, text=True,
        check=True).stdout.strip().splitlines()[-1]
    configs = {role: f"{prefix}/share/rmw_zenoh_cpp/config/DEFAULT_RMW_ZENOH_{role}_CONFIG.json5"
               for role in ("ROUTER", "SESSION")}

    ns = f"zshm-bench-workshop-{os.getpid()}"
    subprocess.run(["ip", "netns", "add", ns], check=True)
    inside = ["ip", "netns", "exec", ns]
    try:
        subprocess.run([*inside, "ip", "link", "set", "lo", "up"], check=True)
        results = {mode: [] for mode in MODES}
        for r in range(args.rounds):
            order = MODES[r % len(MODES):] + MODES[:r % len(MODES)]
            for mode in order:
                result = one_round(mode, args, inside, prefix, configs)
                results[mode].append(result)
                print(f"round {r + 1} {mode:15} p50 {result['p50']:6.2f} ms  mean {result['mean']:6.2f} ms  "
                      f"shm {100 * result['shm']:3.0f}%  received {result['received']}  "
                      f"loopback {result['loopback_per_cloud'] / 1e3:8.1f} kB/cloud", flush=True)
    finally:
        subprocess.run(["ip", "netns", "del", ns])

    print(f"\nmedians of {args.rounds} interleaved rounds, {args.count} clouds each, "
          f"load average {os.getloadavg()[0]:.2f}:")
    print(f"{'mode':15} {'p50 ms':>8} {'mean ms':>8} {'shm':>5} {'loopback/cloud':>15}")
    for mode in MODES:
        rounds = results[mode]
        med = lambda key: statistics.median(x[key] for x in rounds)
        print(f"{mode:15} {med('p50'):8.2f} {med('mean'):8.2f} {100 * med('shm'):4.0f}% "
              f"{med('loopback_per_cloud') / 1e3:12.1f} kB")
    for router in ("zshm", "rmw_zenohd"):
        tcp = statistics.median(x["p50"] for x in results[f"{router}/tcp"])
        shm = statistics.median(x["p50"] for x in results[f"{router}/shm"])
        print(f"{router}: p50 TCP / SHM = {tcp / shm:.1f}x")


if __name__ == "__main__":
    main()

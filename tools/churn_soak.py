#!/usr/bin/env python3
"""A workshop day for the router (docs/RELIABILITY.md, "Churn soak"): for --duration seconds a
`zshm router`, on rmw_zenoh's own default router config, serves real rclpy nodes on rmw_zenoh_cpp
and zshm nodes that are started, stopped (SIGINT), SIGKILLed and restarted every few seconds to
every minute, while long-lived processes count what they receive and every resource is sampled.

    sudo ZSHM_ROS2=... tools/churn_soak.py --duration 3600 --out target/churn

The run happens in a network namespace with only loopback and a private /dev/shm (it re-executes
itself under `unshare --net --mount`), so rmw_zenoh's default configs work unchanged (port 7447 on
localhost) and every segment it counts is its own. Nothing reaches the machine's interfaces.

Long-lived (sampled: RSS, threads, open descriptors, locked memory; the router's mapped SHM):
  router          zshm router (rmw_zenoh's DEFAULT_RMW_ZENOH_ROUTER_CONFIG, shared memory on)
  camera          zshm cam-pub, 7 MB clouds at 15 Hz on /camera/points, through SHM / the lane
  steady          zshm cam-latency on /camera/points: counts every cloud (sequence gaps = lost)
  rclpy_probe     zshm cam-latency on /rclpy/points (the churned rclpy camera's clouds)
  rclpy_server    rclpy SetBool server /flip on rmw_zenoh_cpp
  rclpy_params    rclpy node with parameters on rmw_zenoh_cpp
Churned (life, then SIGKILL or SIGINT in turn, then started again):
  zshm cam-latency on /camera/points (20 s); rclpy camera 7 MB at 15 Hz on /rclpy/points (60 s);
  zshm camera on /churn/points (45 s) and an rclpy cloud listener on it (30 s); rclpy talker (15 s);
  zshm add_two_ints server (60 s).
Callers (one process per call): zshm service call /flip (3 s) and /add_two_ints (4 s), rclpy
client /flip (20 s), zshm param get (5 s), rclpy parameter client (30 s).

Writes to --out: samples.csv (one row per sample), lives.csv (each churned process's life), calls.csv
(each call), summary.json, summary.md and one SVG plot per resource. Exits 1 when a long-lived
subscriber lost a cloud, a call to a server that was up throughout failed, or a resource kept
growing after warm-up (the verdict's reasons are in summary.md).
"""

import argparse
import csv
import json
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
INSIDE = "ZSHM_CHURN_INSIDE"
SAMPLE_EVERY = 5.0
# After warm-up (the first WARMUP_SHARE of the run), a long-lived process's RSS may not grow by
# more than this between the warm median and the final median, nor keep a slope above
# SLOPE_BOUND over the second half of the run.
WARMUP_SHARE = 0.2
RSS_GROWTH_BOUND = 16 << 20
SLOPE_BOUND_PER_HOUR = 8 << 20


def say(*words):
    print(f"[churn {time.strftime('%H:%M:%S')}]", *words, flush=True)


def enter_namespace(args):
    """Re-executes this script in a namespace of its own: loopback only, /dev/shm private."""
    if os.geteuid() != 0:
        sys.exit("tools/churn_soak.py: needs root (a network namespace and a private /dev/shm)")
    env = dict(os.environ, **{INSIDE: "1"})
    command = ["unshare", "--net", "--mount", "--propagation", "private", "--",
               sys.executable, str(Path(__file__).resolve())] + sys.argv[1:]
    os.execvpe("unshare", command, env)


def prepare_namespace(shm_size):
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={shm_size}", "tmpfs", "/dev/shm"], check=True)


class Settings:
    def __init__(self, args):
        prefix = os.environ.get("ZSHM_ROS2")
        if not prefix or not Path(prefix, "lib/librmw_zenoh_cpp.so").exists():
            sys.exit("tools/churn_soak.py: ZSHM_ROS2 must name a prefix with rmw_zenoh_cpp "
                     "(tools/ros2/setup.sh --rmw-zenoh)")
        self.prefix = prefix
        self.zshm = str(Path(args.zshm).resolve())
        self.out = Path(args.out).resolve()
        self.logs = self.out / "logs"
        self.logs.mkdir(parents=True, exist_ok=True)
        config = Path(prefix, "share/rmw_zenoh_cpp/config")
        self.env = dict(os.environ,
                        ZENOH_ROUTER_CONFIG_URI=str(config / "DEFAULT_RMW_ZENOH_ROUTER_CONFIG.json5"),
                        ZENOH_SESSION_CONFIG_URI=str(config / "DEFAULT_RMW_ZENOH_SESSION_CONFIG.json5"),
                        ZENOH_CONFIG_OVERRIDE="transport/shared_memory/enabled=true",
                        # The lane's iceoryx2 directory of its own, beside its private /dev/shm.
                        ZSHM_LANE_ROOT=str(self.out / "lane"),
                        RUST_LOG=os.environ.get("RUST_LOG", "warn"))

    def zshm_cmd(self, *words):
        return [self.zshm, *words]

    def rclpy_cmd(self, *words):
        return [str(REPO / "tools/ros2/run.sh"), "zenoh", "python3",
                str(REPO / "router/tests/interop/rclpy_peer.py"), *words]


class Proc:
    """One started process, its output in a log file of its own."""
    serial = 0

    def __init__(self, settings, name, command, started, env=None):
        Proc.serial += 1
        self.name = name
        self.log = settings.logs / f"{Proc.serial:05d}-{name}.log"
        self.started = started
        with open(self.log, "wb") as log:
            self.popen = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                          env=dict(settings.env, **(env or {})), start_new_session=True)

    def alive(self):
        return self.popen.poll() is None

    def stop(self, how, patience=15.0):
        """Ends it by `how` (SIGKILL or SIGINT); after `patience` a SIGINT becomes a SIGKILL.
        Says how it ended: `how`, or how it had exited already (its code, or -N for signal N)."""
        if not self.alive():
            return f"had exited ({self.popen.returncode})"
        if self.alive():
            sig = signal.SIGKILL if how == "SIGKILL" else signal.SIGINT
            try:
                os.killpg(self.popen.pid, sig)
            except ProcessLookupError:
                pass
            try:
                self.popen.wait(timeout=patience)
            except subprocess.TimeoutExpired:
                os.killpg(self.popen.pid, signal.SIGKILL)
                self.popen.wait()
                return "SIGKILL (SIGINT ignored)"
        return how

    def text(self):
        return self.log.read_text(errors="replace")


def probe_counts(text):
    """(received, lost, windows, final) from cam-latency --json lines: the final line when it
    printed one, else the sum of its closed windows (a SIGKILLed probe prints no summary)."""
    received = lost = windows = 0
    final = None
    for line in text.splitlines():
        if not line.startswith("{"):
            continue
        try:
            report = json.loads(line)
        except json.JSONDecodeError:
            continue
        if "final" not in report:
            continue
        if report["final"]:
            final = report
        else:
            received += report["received"]
            lost += report["lost"]
            windows += 1
    if final:
        return final["received"], final["lost"], windows, True
    return received, lost, windows, False


def proc_stats(pid):
    """RSS, locked memory (KiB), threads and open descriptors of `pid`, or None once it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        fds = len(os.listdir(f"/proc/{pid}/fd"))
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    kib = lambda key: int(fields.get(key, "0 kB").split()[0])
    return {"rss_kib": kib("VmRSS"), "locked_kib": kib("VmLck"), "threads": int(fields["Threads"]),
            "fds": fds}


def shm_mappings(pid):
    """How many /dev/shm files `pid` maps, and their mapped size (KiB)."""
    files, size = set(), 0
    try:
        for line in Path(f"/proc/{pid}/maps").read_text().splitlines():
            parts = line.split(None, 5)
            if len(parts) == 6 and parts[5].startswith("/dev/shm/"):
                files.add(parts[5])
                low, high = (int(x, 16) for x in parts[0].split("-"))
                size += (high - low) >> 10
    except FileNotFoundError:
        pass
    return len(files), size


def dev_shm():
    st = os.statvfs("/dev/shm")
    used = (st.f_blocks - st.f_bfree) * st.f_frsize
    return used >> 10, len(os.listdir("/dev/shm"))


class Churner:
    """A role started again and again: each life lasts `life` seconds and ends by SIGKILL and
    SIGINT in turn; the next one starts `gap` seconds later."""

    def __init__(self, name, command, life, gap=1.0, ready=None):
        self.name, self.command, self.life, self.gap = name, command, life, gap
        self.current = None
        self.stopped_at = -gap
        self.ends = 0
        self.lives = []  # (name, started, ended, ended_by, exit code, log)
        self.up = []  # (started, ended) of each life, for the calls' verdict

    def tick(self, settings, now):
        if self.current is None:
            if now - self.stopped_at >= self.gap:
                self.current = Proc(settings, self.name, self.command(), now)
            return
        if not self.current.alive() or now - self.current.started >= self.life:
            how = "exited" if not self.current.alive() else ("SIGKILL", "SIGINT")[self.ends % 2]
            ended_by = self.current.stop(how) if how != "exited" else "exited"
            self.ends += 1
            self.finish(now, ended_by)

    def finish(self, now, ended_by):
        proc = self.current
        self.lives.append((self.name, proc.started, now, ended_by, proc.popen.returncode, proc.log))
        self.up.append((proc.started, now))
        self.current = None
        self.stopped_at = now


class Caller:
    """A call made every `period` seconds, each by a process of its own; `check(output)` says
    whether it was answered. `server` (a Churner, or None for a long-lived server) tells a call
    that failed while its server was restarting from one that was lost."""

    def __init__(self, name, command, period, check, server=None, env=None):
        self.name, self.command, self.period, self.check, self.server = name, command, period, check, server
        self.env = env
        self.current = None
        self.next_at = 0.0
        self.calls = []  # dicts

    def tick(self, settings, now):
        if self.current is not None:
            if self.current.alive():
                if now - self.current.started > 120:
                    self.current.stop("SIGKILL")
                return
            self.record(now)
        if now >= self.next_at:
            self.current = Proc(settings, self.name, self.command(), now, self.env)
            self.next_at = now + self.period

    def server_up_throughout(self, start, end):
        if self.server is None:
            return True
        lives = list(self.server.up)
        if self.server.current is not None:
            lives.append((self.server.current.started, float("inf")))
        # Up from before the call started (with a second to declare itself) until it ended.
        return any(s + 1.0 <= start and e >= end for s, e in lives)

    def record(self, now):
        proc = self.current
        self.current = None
        code = proc.popen.returncode
        # Answered is what the caller printed; its exit status is kept apart (an rclpy process
        # can print every answer and then fail to close its session).
        answered = self.check(proc.text())
        call = {"caller": self.name, "started": round(proc.started, 3), "ended": round(now, 3),
                "exit": code, "answered": answered, "log": proc.log.name}
        if answered:
            call["verdict"] = "answered"
        elif self.server_up_throughout(proc.started, now):
            call["verdict"] = "lost"
        else:
            call["verdict"] = "server restarting"
        self.calls.append(call)

    def drain(self, since):
        """Waits for the call under way, if any, and records it."""
        if self.current is not None:
            try:
                self.current.popen.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.current.stop("SIGKILL")
            self.record(since())


def svg_plot(path, title, ylabel, series, hours=False):
    """A line chart of `series` ({label: [(seconds, value)]}) as a self-contained SVG."""
    width, height, left, right, top, bottom = 900, 360, 80, 200, 40, 50
    points = [p for values in series.values() for p in values]
    if not points:
        return
    x_max = max(p[0] for p in points) or 1
    y_max = max(p[1] for p in points) * 1.1 or 1
    colors = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf", "#7f7f7f"]
    sx = lambda x: left + (width - left - right) * x / x_max
    sy = lambda y: height - bottom - (height - top - bottom) * y / y_max
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="20" font-size="15">{title}</text>',
           f'<line x1="{left}" y1="{sy(0)}" x2="{sx(x_max)}" y2="{sy(0)}" stroke="black"/>',
           f'<line x1="{left}" y1="{sy(0)}" x2="{left}" y2="{top}" stroke="black"/>',
           f'<text x="15" y="{top + 10}">{ylabel}</text>',
           f'<text x="{sx(x_max) - 60}" y="{height - 10}">minutes</text>']
    for i in range(6):
        y = y_max * i / 5
        out.append(f'<text x="{left - 8}" y="{sy(y) + 4}" text-anchor="end">{y:.4g}</text>')
        out.append(f'<line x1="{left}" y1="{sy(y)}" x2="{sx(x_max)}" y2="{sy(y)}" stroke="#eee"/>')
        x = x_max * i / 5
        out.append(f'<text x="{sx(x)}" y="{height - bottom + 18}" text-anchor="middle">{x / 60:.0f}</text>')
    for n, (label, values) in enumerate(series.items()):
        color = colors[n % len(colors)]
        line = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in values)
        out.append(f'<polyline fill="none" stroke="{color}" stroke-width="1.5" points="{line}"/>')
        out.append(f'<text x="{width - right + 10}" y="{top + 16 * n + 10}" fill="{color}">{label}</text>')
    out.append("</svg>")
    path.write_text("\n".join(out))


def trend(values):
    """(warm median, final median, least-squares slope per hour over the second half)."""
    if len(values) < 10:
        return None
    n = len(values)
    warm = statistics.median(v for _, v in values[int(n * WARMUP_SHARE):int(n * (WARMUP_SHARE + 0.1)) + 1])
    final = statistics.median(v for _, v in values[int(n * 0.9):])
    half = values[n // 2:]
    mx = statistics.fmean(t for t, _ in half)
    my = statistics.fmean(v for _, v in half)
    var = sum((t - mx) ** 2 for t, _ in half) or 1
    slope = sum((t - mx) * (v - my) for t, v in half) / var * 3600
    return warm, final, slope


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=3600, help="seconds (default: one hour)")
    parser.add_argument("--out", default="target/churn", help="where the CSVs, plots and summary go")
    parser.add_argument("--zshm", default=str(REPO / "target/release/zshm"))
    parser.add_argument("--shm-size", default="4g", help="the private /dev/shm's size")
    parser.add_argument("--client-log", metavar="RUST_LOG",
                        help="RUST_LOG of the rclpy parameter clients only (zenoh-c reads it), e.g. "
                             "zenoh::net::routing::dispatcher::queries=debug: a query that met no "
                             "queryable then logs 'Send final reply (no matching queryables'")
    args = parser.parse_args()
    if os.environ.get(INSIDE) != "1":
        enter_namespace(args)
    prepare_namespace(args.shm_size)
    settings = Settings(args)
    z, r = settings.zshm_cmd, settings.rclpy_cmd
    forever = "31536000"  # a year: these end by signal
    started = time.monotonic()
    since = lambda: time.monotonic() - started

    long_lived = {}

    def start(name, command):
        long_lived[name] = Proc(settings, name, command, since())

    stopping = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stopping.set())

    start("router", z("router", "--no-metrics"))
    time.sleep(1.0)  # the router's port before the first node (the nodes retry anyway)
    start("camera", z("cam-pub", "--json", "--report", "60"))
    start("steady", z("cam-latency", "--json", "--window", "10", "--duration", forever, "--timeout", "600"))
    start("rclpy_probe", z("cam-latency", "--json", "--window", "10", "--duration", forever,
                           "--timeout", "600", "-t", "/rclpy/points"))
    start("rclpy_server", r("server", "--count", forever, "--timeout", forever))
    start("rclpy_params", r("param-node", "--node-name", "rclpy_params", "--timeout", forever))

    churners = [
        Churner("probe", lambda: z("cam-latency", "--json", "--window", "5", "--duration", forever,
                                   "--timeout", "600"), life=20),
        Churner("rclpy_camera", lambda: r("cloud", "--topic", "/rclpy/points", "--count", forever,
                                          "--rate", "15", "--timeout", "30"), life=60, gap=2),
        Churner("churn_camera", lambda: z("cam-pub", "-t", "/churn/points", "--report", "60"), life=45, gap=3),
        Churner("rclpy_cloud_listener", lambda: r("cloud-listener", "--topic", "/churn/points", "--no-verify",
                                                  "--count", forever, "--timeout", forever), life=30, gap=2),
        Churner("rclpy_talker", lambda: r("talker", "--count", forever, "--rate", "10", "--timeout", "30"),
                life=15, gap=1),
        Churner("add_server", lambda: z("add-two-ints-server"), life=60, gap=3),
    ]
    add_server = churners[-1]
    summed = lambda text: "sum: 5" in text
    flipped = lambda text: "success: false" in text
    callers = [
        Caller("zshm_call_flip", lambda: z("service", "call", "/flip", "std_srvs/srv/SetBool",
                                           "{data: true}", "--timeout", "10"), 3, flipped),
        Caller("zshm_call_add", lambda: z("service", "call", "/add_two_ints",
                                          "example_interfaces/srv/AddTwoInts", "{a: 2, b: 3}",
                                          "--timeout", "5"), 4, summed, server=add_server),
        Caller("rclpy_call_flip", lambda: r("client", "--timeout", "15", "--call-timeout", "15"), 20,
               lambda text: "response " in text),
        Caller("zshm_param_get", lambda: z("param", "get", "/rclpy_params", "rate", "--timeout", "10"), 5,
               lambda text: "Integer value is: 15" in text),
        Caller("rclpy_param_client", lambda: r("param-client", "--target", "/rclpy_params", "--name", "gain",
                                               "--value", "0.5", "--timeout", "15"), 30,
               lambda text: "set gain True" in text,
               env={"RUST_LOG": args.client_log} if args.client_log else None),
    ]

    samples = []
    next_sample = 0.0
    say(f"running {args.duration:.0f} s; output in {settings.out}")
    while since() < args.duration and not stopping.is_set():
        now = since()
        for role in churners + callers:
            role.tick(settings, now)
        if now >= next_sample:
            next_sample = now + SAMPLE_EVERY
            row = {"seconds": round(now, 1)}
            for name, proc in long_lived.items():
                stats = proc_stats(proc.popen.pid) if proc.alive() else None
                for key in ("rss_kib", "threads", "fds", "locked_kib"):
                    row[f"{name}_{key}"] = stats[key] if stats else ""
            row["router_shm_files"], row["router_shm_mapped_kib"] = shm_mappings(long_lived["router"].popen.pid)
            row["dev_shm_used_kib"], row["dev_shm_files"] = dev_shm()
            for name in ("steady", "rclpy_probe"):
                received, lost, _, _ = probe_counts(long_lived[name].text())
                row[f"{name}_received"], row[f"{name}_lost"] = received, lost
            all_calls = [c for caller in callers for c in caller.calls]
            row["calls_answered"] = sum(c["verdict"] == "answered" for c in all_calls)
            row["calls_lost"] = sum(c["verdict"] == "lost" for c in all_calls)
            row["restarts"] = sum(len(c.lives) for c in churners)
            samples.append(row)
            dead = [n for n, p in long_lived.items() if not p.alive()]
            if dead:
                say(f"long-lived process(es) ended: {dead}")
                break
            if len(samples) % 60 == 1:
                say(f"{now:.0f} s: steady {row['steady_received']} received / {row['steady_lost']} lost, "
                    f"calls {row['calls_answered']} answered / {row['calls_lost']} lost, {row['restarts']} restarts")
        time.sleep(0.2)

    # The end: churned processes stopped, calls drained, long-lived ones asked to stop (SIGINT)
    # so that the probes print their final summary.
    end = since()
    for churner in churners:
        if churner.current is not None:
            churner.finish(end, churner.current.stop("SIGINT"))
    for caller in callers:
        caller.drain(since)
    endings = {}
    for name in ("camera", "rclpy_probe", "steady", "rclpy_server", "rclpy_params", "router"):
        endings[name] = long_lived[name].stop("SIGINT", patience=30)
    write_results(settings.out, args, samples, long_lived, churners, callers, endings, end)


def write_results(out, args, samples, long_lived, churners, callers, endings, end):
    with open(out / "samples.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(samples[0].keys()) if samples else ["seconds"])
        writer.writeheader()
        writer.writerows(samples)
    lives = sorted((life for c in churners for life in c.lives), key=lambda l: l[1])
    with open(out / "lives.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["role", "started", "ended", "ended_by", "exit", "log"])
        for role, s, e, how, code, log in lives:
            writer.writerow([role, round(s, 1), round(e, 1), how, code, log.name])
    calls = sorted((c for caller in callers for c in caller.calls), key=lambda c: c["started"])
    with open(out / "calls.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["caller", "started", "ended", "exit", "answered", "verdict", "log"])
        writer.writeheader()
        writer.writerows(calls)

    failures = []
    probes = {}
    for name in ("steady", "rclpy_probe"):
        received, lost, windows, final = probe_counts(long_lived[name].text())
        probes[name] = {"received": received, "lost": lost, "final_summary": final}
    camera = None
    for line in long_lived["camera"].text().splitlines():
        if line.startswith("{") and '"counts"' in line:
            camera = json.loads(line)
    published = camera["counts"]["published"] if camera else None
    probes["steady"]["published"] = published
    if probes["steady"]["lost"]:
        failures.append(f"the steady subscriber lost {probes['steady']['lost']} clouds")
    if not probes["steady"]["final_summary"]:
        failures.append("the steady subscriber printed no final summary")
    if probes["rclpy_probe"]["lost"]:
        # rmw_zenoh maps RELIABLE + KEEP_LAST to CongestionControl::Drop: the QoS allows it, but
        # it is counted and named.
        failures.append(f"the rclpy camera's subscriber lost {probes['rclpy_probe']['lost']} clouds "
                        "(KEEP_LAST: rmw_zenoh drops under congestion)")
    churned_probe_lost = 0
    for role, s, e, how, code, log in lives:
        if role == "probe":
            churned_probe_lost += probe_counts(log.read_text(errors="replace"))[1]
    if churned_probe_lost:
        failures.append(f"the restarted subscribers lost {churned_probe_lost} clouds in their lives")
    verdicts = {}
    for c in calls:
        verdicts.setdefault(c["caller"], {}).setdefault(c["verdict"], 0)
        verdicts[c["caller"]][c["verdict"]] += 1
    for c in calls:
        if c["verdict"] == "answered" and c["exit"] != 0:
            verdicts[c["caller"]]["answered, then failed at exit"] = \
                verdicts[c["caller"]].get("answered, then failed at exit", 0) + 1
    lost_calls = [c for c in calls if c["verdict"] == "lost"]
    if lost_calls:
        failures.append(f"{len(lost_calls)} calls lost: " + ", ".join(f"{c['caller']} at {c['started']} s ({c['log']})"
                                                                  for c in lost_calls[:10]))

    resources = {}
    series = lambda key: [(r["seconds"], float(r[key])) for r in samples if r.get(key) not in ("", None)]
    for name in long_lived:
        for key in ("rss_kib", "threads", "fds", "locked_kib"):
            t = trend(series(f"{name}_{key}"))
            if t:
                resources[f"{name}_{key}"] = {"warm": t[0], "final": t[1], "slope_per_hour": round(t[2], 1)}
        rss = resources.get(f"{name}_rss_kib")
        if rss and ((rss["final"] - rss["warm"]) * 1024 > RSS_GROWTH_BOUND
                    or rss["slope_per_hour"] * 1024 > SLOPE_BOUND_PER_HOUR):
            failures.append(f"{name}'s RSS grew: {rss['warm'] / 1024:.1f} MiB warm, {rss['final'] / 1024:.1f} MiB "
                            f"at the end, {rss['slope_per_hour'] / 1024:.1f} MiB/h over the second half")
        for key in ("threads", "fds"):
            r = resources.get(f"{name}_{key}")
            if r and r["final"] > r["warm"] * 1.5 + 4:
                failures.append(f"{name}'s {key} grew: {r['warm']} warm, {r['final']} at the end")
    for key in ("router_shm_files", "router_shm_mapped_kib", "dev_shm_used_kib", "dev_shm_files"):
        t = trend(series(key))
        if t:
            resources[key] = {"warm": t[0], "final": t[1], "slope_per_hour": round(t[2], 1)}
    summary = {"seconds": round(end, 1), "restarts": len(lives), "lives": {}, "probes": probes,
               "calls": verdicts, "resources": resources, "endings": endings, "failures": failures}
    for role, *_ in lives:
        summary["lives"][role] = summary["lives"].get(role, 0) + 1
    (out / "summary.json").write_text(json.dumps(summary, indent=2))

    mib = lambda key: [(t, v / 1024) for t, v in series(key)]
    roles = list(long_lived)
    svg_plot(out / "rss.svg", "Resident memory of the long-lived processes", "MiB",
             {n: mib(f"{n}_rss_kib") for n in roles})
    svg_plot(out / "threads.svg", "Threads", "threads", {n: series(f"{n}_threads") for n in roles})
    svg_plot(out / "fds.svg", "Open file descriptors", "descriptors", {n: series(f"{n}_fds") for n in roles})
    svg_plot(out / "locked.svg", "Locked memory (VmLck)", "MiB", {n: mib(f"{n}_locked_kib") for n in roles})
    svg_plot(out / "shm.svg", "/dev/shm and the router's SHM mappings", "MiB or files",
             {"/dev/shm used MiB": mib("dev_shm_used_kib"), "/dev/shm files": series("dev_shm_files"),
              "router's mapped SHM MiB": mib("router_shm_mapped_kib"),
              "router's mapped SHM files": series("router_shm_files")})
    svg_plot(out / "losses.svg", "Clouds lost and calls lost (cumulative)", "count",
             {"steady lost": series("steady_lost"), "rclpy probe lost": series("rclpy_probe_lost"),
              "calls lost": series("calls_lost")})

    lines = [f"# Churn soak: {end / 60:.0f} minutes, {len(lives)} restarts", ""]
    lines.append("| long-lived | clouds received | lost |")
    lines.append("|---|---|---|")
    for name, p in probes.items():
        lines.append(f"| {name} | {p['received']} | {p['lost']} |")
    if published is not None:
        lines.append(f"\nThe camera published {published} clouds.")
    kinds = ("answered", "answered, then failed at exit", "server restarting", "lost")
    lines += ["", "| caller | " + " | ".join(kinds) + " |", "|---|---|---|---|---|"]
    for caller, v in verdicts.items():
        lines.append(f"| {caller} | " + " | ".join(str(v.get(k, 0)) for k in kinds) + " |")
    lines += ["", "| resource | after warm-up | at the end | slope over the second half (per hour) |",
              "|---|---|---|---|"]
    for key, r in resources.items():
        lines.append(f"| {key} | {r['warm']:g} | {r['final']:g} | {r['slope_per_hour']:g} |")
    lines += ["", "Lives: " + ", ".join(f"{k} {v}" for k, v in summary["lives"].items()), ""]
    lines.append("Verdict: " + ("pass" if not failures else "FAIL\n" + "\n".join(f"- {f}" for f in failures)))
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

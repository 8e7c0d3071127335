#!/usr/bin/env bash
# Runs every zshm test on a fresh machine: installs what the tests need (a Python venv with the
# interop peer's packages, and Debian packages when running as root), then the test suite.
# Usage: tools/test.sh [extra cargo test arguments]
set -euo pipefail
cd "$(dirname "$0")/.."

# The SHM-fallback tests use util-linux (unshare, setpriv, prlimit, nsenter) and mount; the metrics
# tests use promtool and a real Prometheus server (Debian package prometheus); the systemd unit is
# checked with systemd-analyze (systemd); the two-host test uses network namespaces (iproute2); the
# status page is loaded in headless Chromium (Debian package chromium; never a browser from npm).
missing=()
for tool in unshare setpriv prlimit mount python3 promtool prometheus systemd-analyze ip nsenter openssl chromium; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    # The package's service is not started: tests run their own Prometheus on a free port.
    apt-get install -y -q --no-install-recommends util-linux mount python3 python3-venv prometheus \
      systemd iproute2 openssl chromium
  else
    echo "tools/test.sh: missing ${missing[*]}; install util-linux, mount, python3, prometheus and chromium" >&2
    exit 1
  fi
fi

# The interop test's independent rmw_zenoh peer (eclipse-zenoh from PyPI).
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/pip install -q --disable-pip-version-check -r router/tests/interop/requirements.txt
export ZSHM_PYTHON="$PWD/.venv/bin/python"

cargo test --workspace --release "$@"

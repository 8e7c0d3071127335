#!/usr/bin/env bash
# What each process of a small robot pins in shared memory and in locked memory: a router, the
# simulated camera (7 MB clouds at 15 Hz), the latency probe, a talker and 10 listeners of its
# 64-byte strings. Prints one line per process: VmLck (locked memory), RssShmem (shared memory
# it touched) and the /dev/shm files it maps with the space they really take (allocated blocks),
# then the whole of /dev/shm that zenoh's segments and the lane's files take.
#
# Usage: tools/memory.sh [path/to/zshm] [seconds to run before measuring, default 8]
# Runs on ephemeral ports with its own lane directory; everything started is stopped at the end.
set -euo pipefail
zshm="${1:-target/release/zshm}"
settle="${2:-8}"
work="$(mktemp -d /tmp/zshm-memory.XXXXXX)"
export ZSHM_LANE_ROOT="/tmp/zl-mem-$$"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -INT "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  "$zshm" shm-clean >/dev/null 2>&1 || true
  rm -rf "$work" "$ZSHM_LANE_ROOT"
}
trap cleanup EXIT

"$zshm" router -l tcp/127.0.0.1:0 --no-metrics >"$work/router.out" 2>"$work/router.err" &
pids+=($!); names=(router)
for _ in $(seq 100); do grep -q "listening on" "$work/router.out" && break; sleep 0.1; done
locator="$(grep -o 'tcp/127.0.0.1:[0-9]*' "$work/router.out" | head -1)"

start() { # name, args...
  local name="$1"; shift
  "$zshm" "$@" -e "$locator" >"$work/$name.out" 2>"$work/$name.err" &
  pids+=($!); names+=("$name")
}
start cam-pub cam-pub
start cam-latency cam-latency
start talker talker -r 10
for i in $(seq 10); do start "listener$i" listener; done
sleep "$settle"
if [ -n "${ZSHM_MEMORY_DEBUG:-}" ]; then
  for i in "${!pids[@]}"; do
    echo "== ${names[$i]}"; awk '$6 ~ /^\/dev\/shm\// {print $6}' "/proc/${pids[$i]}/maps" | sort -u
  done
fi

# Allocated bytes of the /dev/shm files a process maps (each file once).
mapped() {
  awk '$6 ~ /^\/dev\/shm\// {print $6}' "/proc/$1/maps" 2>/dev/null | sort -u | while read -r f; do
    [ -e "$f" ] && stat -c '%b %B' "$f"
  done | awk '{s += $1 * $2} END {printf "%.1f", s / 1048576}'
}
status() { awk -v k="$2:" '$1 == k {printf "%.1f", $2 / 1024}' "/proc/$1/status"; }

printf '%-12s %10s %12s %16s\n' process 'VmLck MiB' 'RssShmem MiB' '/dev/shm MiB'
for i in "${!pids[@]}"; do
  pid="${pids[$i]}"
  printf '%-12s %10s %12s %16s\n' "${names[$i]}" "$(status "$pid" VmLck)" "$(status "$pid" RssShmem)" "$(mapped "$pid")"
done
zenoh=$(find /dev/shm -maxdepth 1 -name '*.zenoh' -printf '%b\n' | awk '{s += $1 * 512} END {printf "%.1f", s / 1048576}')
lane=$(find /dev/shm -maxdepth 1 -regextype posix-extended -regex '/dev/shm/z[0-9]+_[0-9a-f]{6}_.*' -printf '%b\n' | awk '{s += $1 * 512} END {printf "%.1f", s / 1048576}')
echo "/dev/shm in use: zenoh segments ${zenoh} MiB, lane files ${lane} MiB (all processes of the host)"

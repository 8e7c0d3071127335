#!/usr/bin/env bash
# Peers joining a mesh at once, beside two busy loops: finds zenoh sessions that wedge while they
# start (eclipse-zenoh/zenoh#2581; third_party/zenoh/PATCHES.md).
#
# Waves of N listeners and N/4 talkers start at once against one router (its exporter on, which
# queries every node each scrape); the processes of up to KEEP waves stay, so each wave joins a
# mesh of tens of peers (gossip autoconnect, as rmw_zenoh's config has it). A listener that has not logged `listening` within 40 s is counted wedged, and
# its threads are dumped with gdb into the output folder. Exits 1 when any listener wedged.
#
# Usage: tools/wedge.sh [WAVES] [N] [KEEP] [ZSHM]   (defaults: 30 8 5 target/release/zshm)
# Output: target/wedge/ (each process's logs, stacks-<wave>-<k>.txt for each wedged listener).
set -uo pipefail
cd "$(dirname "$0")/.."

waves=${1:-30}
per_wave=${2:-8}
keep=${3:-5}
zshm=${4:-target/release/zshm}
out=target/wedge
rm -rf "$out"
mkdir -p "$out"

procs=()
cleanup() {
  [ ${#procs[@]} -gt 0 ] && kill -INT "${procs[@]}" 2>/dev/null
  sleep 2
  [ ${#procs[@]} -gt 0 ] && kill -KILL "${procs[@]}" 2>/dev/null
  wait 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM

sh -c 'while :; do :; done' & procs+=($!)
sh -c 'while :; do :; done' & procs+=($!)
"$zshm" router -l tcp/127.0.0.1:0 --metrics 127.0.0.1:0 >"$out/router.out" 2>"$out/router.err" & procs+=($!)
locator=""
for _ in $(seq 100); do
  locator=$(grep -o 'listening on tcp/[0-9.:]*' "$out/router.out" | head -1 | cut -d' ' -f3)
  [ -n "$locator" ] && break
  sleep 0.1
done
[ -n "$locator" ] || { echo "wedge: the router did not start" >&2; cat "$out/router.err" >&2; exit 2; }

wedged=0
resident=()
for wave in $(seq "$waves"); do
  listeners=()
  for k in $(seq "$per_wave"); do
    RUST_LOG=info "$zshm" listener -e "$locator" >"$out/l$wave-$k.out" 2>"$out/l$wave-$k.err" &
    listeners+=($!)
    resident+=($!)
    if [ $((k % 4)) = 0 ]; then
      "$zshm" talker -e "$locator" -r 20 >/dev/null 2>&1 &
      resident+=($!)
    fi
  done
  deadline=$((SECONDS + 40))
  while [ $SECONDS -lt $deadline ]; do
    waiting=0
    for k in $(seq "$per_wave"); do
      grep -q listening "$out/l$wave-$k.err" || waiting=$((waiting + 1))
    done
    [ $waiting = 0 ] && break
    sleep 1
  done
  for k in $(seq "$per_wave"); do
    if ! grep -q listening "$out/l$wave-$k.err"; then
      wedged=$((wedged + 1))
      pid=${listeners[$((k - 1))]}
      echo "wave $wave: listener $k (pid $pid) has not started listening within 40 s"
      timeout 60 gdb -batch -nx -p "$pid" -ex 'set pagination off' -ex 'thread apply all bt 40' \
        >"$out/stacks-$wave-$k.txt" 2>&1
    fi
  done
  echo "wave $wave of $waves: $((wave * per_wave)) listeners started, $wedged wedged"
  if [ $((wave % keep)) = 0 ]; then
    kill -INT "${resident[@]}" 2>/dev/null
    sleep 3
    kill -KILL "${resident[@]}" 2>/dev/null
    wait "${resident[@]}" 2>/dev/null
    resident=()
  fi
done
kill -KILL "${resident[@]}" 2>/dev/null
echo "wedge: $wedged of $((waves * per_wave)) listeners wedged"
[ "$wedged" = 0 ]

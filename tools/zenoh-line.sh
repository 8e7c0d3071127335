#!/usr/bin/env bash
# Chooses the zenoh line zshm is built on, which decides whose shared memory it can use:
#   1.9    zenoh 1.9.0 (the default): shares memory with the rmw_zenoh_cpp of every released
#          distribution (Humble, Jazzy, Kilted, Lyrical: zenoh 1.8)
#   1.10   zenoh 1.10.2: shares memory with Rolling's rmw_zenoh_cpp 0.14 and later (zenoh 1.10.1)
# zenoh 1.10 changed the shared-memory handshake (eclipse-zenoh/zenoh#2646), so one build cannot
# share memory with both (session-lib/src/shm/compat.rs). zshm's code builds on either line
# unchanged; only the pins in Cargo.toml and Cargo.lock differ.
#
# Usage: tools/zenoh-line.sh 1.9|1.10 [WORKSPACE]   then: cargo build --release
# Prints the line a workspace is on with no argument.
set -euo pipefail
workspace=${2:-$(cd "$(dirname "$0")/.." && pwd)}
manifest=$workspace/Cargo.toml
current=$(sed -n 's/^zenoh = { version = "=\([0-9.]*\)".*/\1/p' "$manifest")
if [ $# -eq 0 ]; then
  echo "zenoh $current"
  exit 0
fi
case "$1" in
  1.9) version=1.9.0 ;;
  1.10) version=1.10.2 ;;
  *) echo "usage: tools/zenoh-line.sh 1.9|1.10 [WORKSPACE]" >&2; exit 2 ;;
esac
if [ -z "$current" ]; then
  echo "tools/zenoh-line.sh: no 'zenoh = { version = \"=…\"' line in $manifest" >&2
  exit 1
fi
if [ "$current" = "$version" ]; then
  echo "zshm is on zenoh $version already"
  exit 0
fi
sed -i -E "s/^(zenoh(-ext)? = \{ version = \")=[0-9.]+\"/\1=$version\"/" "$manifest"
# zenoh pins its own crates exactly, so updating the two moves all of them. Offline first: the
# registry cache of a machine that built the other line usually has everything.
(cd "$workspace" && { cargo update --offline -p zenoh -p zenoh-ext 2>/dev/null || cargo update -p zenoh -p zenoh-ext; })
echo "zshm is now on zenoh $version: cargo build --release"

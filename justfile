# zshm recipes (`just --list`). The workshop flow:
#   just router        # terminal 1: the router
#   just cam_pub       # terminal 2: a simulated depth camera (7 MB clouds at 15 Hz)
#   just cam_latency   # terminal 3: the latency probe
# Shared memory follows the `enabled` flag of the shared_memory block in configs/ROUTER_CONFIG.json5
# and configs/SESSION_CONFIG.json5 (on as shipped). For the TCP baseline either set it to false
# in BOTH files and restart, or run every recipe with `just shm=off <recipe>` (the *_TCP configs).

shm := "on"
router_config := if shm == "off" { "configs/ROUTER_CONFIG_TCP.json5" } else { "configs/ROUTER_CONFIG.json5" }
session_config := if shm == "off" { "configs/SESSION_CONFIG_TCP.json5" } else { "configs/SESSION_CONFIG.json5" }
zshm := "cargo run --release --quiet --"

# Run the Zenoh router (drop-in for rmw_zenohd).
router:
    {{zshm}} router -c {{router_config}}

# Publish simulated depth-camera point clouds on /camera/points (extra flags: --image /camera/image_raw, --rate, --width...).
cam_pub *ARGS:
    {{zshm}} cam-pub -c {{session_config}} {{ARGS}}

# Measure point-cloud latency like the workshop: TOPIC is `points` or `image`.
cam_latency TOPIC='points':
    {{zshm}} cam-latency {{TOPIC}} -c {{session_config}}

# The same with percentiles, losses, SHM share and message size.
cam_latency_verbose TOPIC='points':
    {{zshm}} cam-latency {{TOPIC}} -c {{session_config}} --verbose

# Live loopback vs shared-memory bytes per second (the workshop's iftop_lo), from the router's exporter.
traffic:
    {{zshm}} traffic

# Start Prometheus scraping the exporter (grafana/prometheus.yml), UI at http://127.0.0.1:9090.
monitor:
    #!/usr/bin/env sh
    if ! command -v prometheus >/dev/null; then
        echo "prometheus is not installed: sudo apt-get install prometheus (Debian/Ubuntu), or https://prometheus.io/download/"
        exit 1
    fi
    exec prometheus --config.file=grafana/prometheus.yml --storage.tsdb.path="${TMPDIR:-/tmp}/zshm-prometheus" --web.listen-address=127.0.0.1:9090

# ROS graph: topics and nodes (also shows rmw_zenoh nodes).
topics:
    {{zshm}} topics -c {{session_config}}

# ROS nodes, like `ros2 node list`.
nodes:
    {{zshm}} nodes -c {{session_config}}

# Smoke-test the raw data path: 200 verified payloads of 4 MiB (router must be running).
smoke COUNT='200':
    {{zshm}} sub -c {{session_config}} -n {{COUNT}} & sub=$!; \
    {{zshm}} pub -c {{session_config}} -n {{COUNT}}; wait $sub

# Check this machine for what would stop shared memory, with fixes.
doctor:
    {{zshm}} doctor

# Measure TCP vs shared memory end to end, nothing else to start.
demo:
    {{zshm}} demo

# The full benchmark with the iceoryx2 floor (BENCHMARKS.md); `just bench --quick` for a short one.
# Built as profile `dist` (as zenoh builds its releases), as BENCHMARKS.md's runs are.
bench *ARGS:
    cargo build --profile dist --quiet -p zshm-cli
    cargo run --profile dist --quiet -p zshm-cli -- bench {{ARGS}}

# Run every test (the README's test command).
test:
    tools/test.sh

# Formatting and lints, as CI runs them.
lint:
    cargo fmt --all --check
    cargo clippy --workspace --all-targets --release -- -D warnings

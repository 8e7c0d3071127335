# zshm recipes. `just --list` shows them all.

# Run the Zenoh router (drop-in for rmw_zenohd) with the shared-memory config.
router CONFIG='configs/ROUTER_CONFIG.json5':
    cargo run --release -- router -c {{CONFIG}}

# Run the router with shared memory disabled (the TCP baseline).
router_tcp:
    cargo run --release -- router -c configs/ROUTER_CONFIG_TCP.json5

# Smoke-test the data path: publish 4 MiB payloads and verify them (router must be running).
smoke COUNT='200':
    cargo run --release -- sub -e tcp/127.0.0.1:7447 -n {{COUNT}} & sub=$!; \
    cargo run --release -- pub -e tcp/127.0.0.1:7447 -n {{COUNT}}; wait $sub

# Run every test (the README's test command).
test:
    tools/test.sh

# Formatting and lints, as CI runs them.
lint:
    cargo fmt --all --check
    cargo clippy --workspace --all-targets --release -- -D warnings

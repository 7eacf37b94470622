#!/usr/bin/env bash
# Runs every WM Lab test on this machine, installing what is missing first (scripts/dev/setup.sh):
#   0. formatting (cargo fmt --check) and lints (cargo clippy -D warnings, native crates and the wasm app)
#   1. native tests of the workspace crates (pure core, LLM runner, CLI) cargo test, with a real
#      local LLM server (scripts/dev/llm-server.sh) for the real-model tests and a one-node Slurm
#      cluster (scripts/dev/slurm.sh) for the sweep's job-array test
#   2. the core's determinism test compiled to wasm32, run under Node   same hashes as native
#   3. the app built by Trunk and driven in headless Chromium           tests/e2e/run.sh
# Build caches live outside the clone (CARGO_TARGET_DIR), so repeated runs are incremental.
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$here"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/wmlab/target}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
export PATH="$HOME/.cargo/bin:$PATH"
stage() { printf '\n\033[1m=== %s\033[0m (%s)\n' "$*" "$(date +%T)"; }
t0=$(date +%s)

stage "set-up"
./scripts/dev/setup.sh

stage "local LLM server (SmolLM2-135M under llama.cpp) for the real-model tests"
started_llm=""
if ! curl -sf --max-time 2 http://127.0.0.1:18080/v1/models >/dev/null 2>&1; then started_llm=1; fi
llm_pid="$(./scripts/dev/llm-server.sh)"
export WMLAB_LLM_URL=http://127.0.0.1:18080/v1

stage "a one-node Slurm cluster for the sweep test (crates/cli/tests/slurm.rs)"
started_slurm=""
if ! SLURM_CONF="${WMLAB_SLURM_DIR:-$HOME/.cache/wmlab/slurm}/slurm.conf" sinfo -h >/dev/null 2>&1; then started_slurm=1; fi
SLURM_CONF="$(./scripts/dev/slurm.sh)"
export SLURM_CONF
cleanup() {
  if [ -n "$started_llm" ]; then kill "$llm_pid" 2>/dev/null || true; fi
  if [ -n "$started_slurm" ]; then ./scripts/dev/slurm.sh stop || true; fi
}
trap cleanup EXIT

stage "formatting and lints: cargo fmt --check, cargo clippy -D warnings (native and wasm32)"
cargo fmt --all --check 2>&1
cargo clippy --locked --features wmlab-cli/nn --workspace --exclude wmlab-app --exclude wmlab-nn-worker --all-targets -- -D warnings 2>&1
# The app's library (src/lib.rs) also builds natively; the app and the worker as a whole only for wasm32.
cargo clippy --locked -p wmlab-app --lib --tests -- -D warnings 2>&1
cargo clippy --locked --target wasm32-unknown-unknown -p wmlab-app -p wmlab-nn-worker -- -D warnings 2>&1

stage "native tests: cargo test"
# The CLI with its networks commands (`wmlab train` / `wmlab eval`, feature `nn`): same burn build as wmlab-nn.
cargo test --locked --features wmlab-cli/nn 2>&1
# The app's library (storage, test flags): plain native unit tests.
cargo test --locked -p wmlab-app --lib 2>&1

stage "wasm32 determinism: the core's golden hashes under Node"
cargo test --locked -p wmlab-core --target wasm32-unknown-unknown --test determinism 2>&1

stage "browser end-to-end tests"
# The threaded worker's build (a Trunk hook) fails on rustc warnings here, as clippy does above.
WMLAB_DENY_WARNINGS=1 ./tests/e2e/run.sh

stage "all tests passed in $(( $(date +%s) - t0 )) s"

#!/usr/bin/env bash
# Runs every WM Lab test on this machine, installing what is missing first (scripts/dev/setup.sh):
#   0. formatting (cargo fmt --check); clippy's lints (-D warnings) run inside the builds below
#   1. native tests of the workspace crates (pure core, LLM runner, CLI) cargo test, with a real
#      local LLM server (scripts/dev/llm-server.sh) for the real-model tests and a one-node Slurm
#      cluster (scripts/dev/slurm.sh) for the sweep's job-array test
#   2. the core's determinism test compiled to wasm32, run under Node   same hashes as native
#   3. the app built by Trunk and driven in headless Chromium           tests/e2e/run.sh
# Build caches live outside the clone (CARGO_TARGET_DIR), so repeated runs are incremental.
#
# On two cores the work is arranged so that no core waits (docs/ci.md):
# - clippy is the compiler of every build of the project's own crates (RUSTC_WORKSPACE_WRAPPER, as
#   `cargo clippy` does it), so its lints need no second pass over burn's stack: the native tests'
#   build lints the native crates (every target `cargo test` builds), Trunk's build lints the app and the networks worker
#   for wasm32; any warning fails the build.
# - Chromium, Slurm, the npm packages and the LLM venv, then trunk and wasm-bindgen-cli, then the
#   browser build (its own target folder) run in one background chain at the lowest priority: they use
#   what the native build and the native tests (which wait on the one-thread LLM server) leave idle.
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$here"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/wmlab/target}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
export PATH="$HOME/.cargo/bin:$PATH"
stage() { printf '\n\033[1m=== %s\033[0m (%s)\n' "$*" "$(date +%T)"; }
t0=$(date +%s)
state="$HOME/.cache/wmlab"
mkdir -p "$state"

stage "set-up: the Rust toolchain's wasm32 target and components"
./scripts/dev/setup.sh --toolchain

# clippy-driver compiles the workspace's crates (dependencies are compiled by rustc, their lints
# capped) with -D warnings: the same lints and configuration as `cargo clippy -- -D warnings`.
export RUSTC_WORKSPACE_WRAPPER="$HOME/.cargo/bin/clippy-driver"
[ -x "$RUSTC_WORKSPACE_WRAPPER" ] || RUSTC_WORKSPACE_WRAPPER="$(command -v clippy-driver)"
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"

# The browser build's own target folder: another profile and target than the native tests', so it
# shares nothing with them, and it can build while they run.
web_target="${WMLAB_WEB_TARGET_DIR:-$CARGO_TARGET_DIR-web}"
chain_log="$state/test-background.log"
services_ok="$state/test-background.services-ok"
tools_ok="$state/test-background.tools-ok"
slurm_ok="$state/test-background.slurm-ok"
rm -f "$services_ok" "$tools_ok" "$slurm_ok" "$slurm_ok.failed"
export WMLAB_SLURM_DIR="${WMLAB_SLURM_DIR:-$state/slurm}"
slurm_up() { SLURM_CONF="$WMLAB_SLURM_DIR/slurm.conf" timeout 5 sinfo -h >/dev/null 2>&1; }
started_slurm=1
if command -v sinfo >/dev/null && slurm_up; then started_slurm=""; fi
stage "set-up in the background (log: $chain_log): services, then tools, then the browser build"
set -m  # the chain in its own process group, so that cleanup stops all of it
(
  nice -n 19 ./scripts/dev/setup.sh --services
  nice -n 19 ./scripts/dev/inspect-venv.sh >/dev/null
  touch "$services_ok"
  # The one-node Slurm cluster takes about a minute to come up: it starts here, beside the rest.
  (if ./scripts/dev/slurm.sh >/dev/null; then touch "$slurm_ok"; else touch "$slurm_ok.failed"; fi) &
  nice -n 19 ./scripts/dev/setup.sh --tools
  touch "$tools_ok"
  echo "[background] browser build starts $(date +%T)"
  CARGO_TARGET_DIR="$web_target" WMLAB_DENY_WARNINGS=1 WMLAB_E2E_BUILD_ONLY=1 nice -n 19 ./tests/e2e/run.sh
  echo "[background] done $(date +%T)"
) >"$chain_log" 2>&1 &
chain_pid=$!
set +m
chain_failed() {
  echo "the background set-up or browser build failed; its log ($chain_log) ends:" >&2
  tail -n 60 "$chain_log" >&2
  exit 1
}
chain_done() {
  local t
  t=$(date +%s)
  wait "$chain_pid" || chain_failed
  cat "$chain_log"
  echo "[background] waited for it $(( $(date +%s) - t )) s"
}

cleanup() {
  kill -- -"$chain_pid" 2>/dev/null || true
  if [ -n "${started_llm:-}" ]; then kill "$llm_pid" 2>/dev/null || true; fi
  if [ -n "${started_slurm:-}" ]; then ./scripts/dev/slurm.sh stop || true; fi
}
trap cleanup EXIT

stage "formatting: cargo fmt --check"
cargo fmt --all --check 2>&1

stage "native build, linted by clippy: every target cargo test builds, the workspace's crates in one run"
# Every workspace crate in one cargo run, so each dependency is built once with one set of features (the
# app alone picked other features and rebuilt the core and its dependencies; docs/ci.md). The CLI
# with its networks commands (`wmlab train` / `wmlab eval`, feature `nn`): same burn build as wmlab-nn.
# Natively the app is its library (src/lib.rs: storage, test flags) and a main that only prints how to
# build it; the networks worker is empty. Both are whole only for wasm32 (Trunk's build below).
native=(--locked --workspace --features wmlab-cli/nn)
cargo test "${native[@]}" --no-run 2>&1

# Waits until the background chain has made the marker $1, or fails with its log if it died first
# (or made "$1.failed").
await_marker() {
  local t
  t=$(date +%s)
  while [ ! -e "$1" ]; do
    [ ! -e "$1.failed" ] || chain_failed
    kill -0 "$chain_pid" 2>/dev/null || chain_done
    sleep 2
  done
  echo "waited $(( $(date +%s) - t )) s"
}

stage "waiting for the background set-up's services (Chromium, Slurm, the LLM and Inspect AI venvs)"
await_marker "$services_ok"
# Inspect AI's venv (made above; this prints its python at once) for crates/cli/tests/inspect_export.rs.
WMLAB_INSPECT_PYTHON="${WMLAB_INSPECT_PYTHON:-$(./scripts/dev/inspect-venv.sh)}"
export WMLAB_INSPECT_PYTHON

stage "local LLM server (SmolLM2-135M under llama.cpp) for the real-model tests"
started_llm=""
if ! curl -sf --max-time 2 http://127.0.0.1:18080/v1/models >/dev/null 2>&1; then started_llm=1; fi
llm_pid="$(./scripts/dev/llm-server.sh)"
export WMLAB_LLM_URL=http://127.0.0.1:18080/v1

stage "a one-node Slurm cluster for the sweep test (crates/cli/tests/slurm.rs), started in the background"
await_marker "$slurm_ok"
SLURM_CONF="$(./scripts/dev/slurm.sh)"
export SLURM_CONF

# cargo-nextest (on these machines' image) runs the test binaries side by side, so the real-model and
# Slurm tests wait on their servers while the others use the cores (docs/ci.md); cargo test where it is
# missing. nextest runs no doc-tests: cargo test --doc does.
if cargo nextest --version >/dev/null 2>&1; then runner=(nextest run --no-fail-fast); else runner=(test); fi
stage "native tests: cargo ${runner[*]}"
cargo "${runner[@]}" "${native[@]}" 2>&1
[ "${runner[0]}" = test ] || cargo test "${native[@]}" --doc 2>&1

stage "wasm32 determinism: the core's golden hashes under Node"
# Its dependencies unoptimised: they build in less than half the CPU time of the dev profile's opt-level
# 1, and the test runs as fast (docs/ci.md).
wasm_hashes=(--locked -p wmlab-core --target wasm32-unknown-unknown --test determinism
  --config 'profile.dev.package."*".opt-level=0')
cargo test "${wasm_hashes[@]}" --no-run 2>&1
# Its runner (wasm-bindgen-test-runner) comes with wasm-bindgen-cli, from the background set-up.
await_marker "$tools_ok"
cargo test "${wasm_hashes[@]}" 2>&1

stage "waiting for the background set-up's tools and the browser build"
chain_done

stage "browser end-to-end tests"
CARGO_TARGET_DIR="$web_target" SKIP_BUILD=1 ./tests/e2e/run.sh

stage "all tests passed in $(( $(date +%s) - t0 )) s"

#!/usr/bin/env bash
# End-to-end tests: build the app into dist/ with trunk, then drive it in headless Chromium.
# Exits non-zero when the build or any test fails.
#   SKIP_BUILD=1 tests/e2e/run.sh     reuse the existing dist/
#   WMLAB_CARGO_PROFILE=name          build with that cargo profile (default: `web-test` if Cargo.toml
#                                     defines it, else release)
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$here"
source "$here/scripts/dev/env.sh"

if [ ! -d tests/e2e/node_modules/playwright-core ]; then
  (cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error)
fi

if [ "${SKIP_BUILD:-0}" != "1" ]; then
  profile="${WMLAB_CARGO_PROFILE:-}"
  if [ -z "$profile" ] && grep -q '^\[profile\.web-test\]' Cargo.toml; then profile=web-test; fi
  args=(--release)
  [ -n "$profile" ] && args+=(--cargo-profile "$profile")
  # The threaded worker (a Trunk hook) builds with the same profile.
  [ -n "$profile" ] && export WMLAB_WORKER_MT_PROFILE="$profile"
  start=$(date +%s)
  trunk build "${args[@]}"
  echo "[e2e] trunk build ${args[*]}: $(( $(date +%s) - start )) s"
fi
test -f dist/index.html || { echo "[e2e] dist/index.html missing: build first" >&2; exit 1; }
ls -l dist/*.wasm

export WMLAB_DIST="$here/dist"
exec node --test --test-concurrency=1 tests/e2e/*.test.mjs

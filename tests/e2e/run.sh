#!/usr/bin/env bash
# End-to-end tests: build the app into dist/ with trunk, then drive it in headless Chromium.
# Exits non-zero when the build or any test fails.
#   SKIP_BUILD=1 tests/e2e/run.sh     reuse the existing dist/
#   WMLAB_E2E_BUILD_ONLY=1            build dist/ and stop (scripts/dev/test.sh builds it in the background)
#   WMLAB_CARGO_PROFILE=release       test what ships: `trunk build --release` (fat LTO, wasm-opt -Oz)
#   WMLAB_CARGO_PROFILE=name          any other cargo profile; default `web-test` (Cargo.toml): the release
#                                     code without LTO or wasm-opt, built in a fraction of the time
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$here"
source "$here/scripts/dev/env.sh"

if [ ! -d tests/e2e/node_modules/playwright-core ]; then
  (cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error)
fi

if [ "${SKIP_BUILD:-0}" != "1" ]; then
  profile="${WMLAB_CARGO_PROFILE:-web-test}"
  if [ "$profile" = release ]; then
    args=(--release)
  else
    # Without --release Trunk runs no wasm-opt; the cargo profile still decides the code (web-test
    # inherits release: no debug assertions). Its hooks see TRUNK_PROFILE=debug.
    args=(--cargo-profile "$profile")
    # The test build shares generic instances between crates (-Zshare-generics, rustc's default without
    # optimisation; allowed on stable by RUSTC_BOOTSTRAP=1, as for the threaded worker's rebuilt std): the
    # networks worker's wasm builds in a fifth less crate time (docs/ci.md). Only wasm32 crates take these
    # RUSTFLAGS (Trunk passes --target), and wasm32 has no rustflags of its own in .cargo/config.toml.
    export RUSTC_BOOTSTRAP=1 RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }-Zshare-generics=yes"
  fi
  # The threaded worker (a Trunk hook) builds with the same profile.
  export WMLAB_WORKER_MT_PROFILE="$profile"
  start=$(date +%s)
  trunk build "${args[@]}"
  echo "[e2e] trunk build ${args[*]}: $(( $(date +%s) - start )) s"
fi
[ "${WMLAB_E2E_BUILD_ONLY:-0}" = 1 ] && exit 0
test -f dist/index.html || { echo "[e2e] dist/index.html missing: build first" >&2; exit 1; }
ls -l dist/*.wasm

export WMLAB_DIST="$here/dist"
# Three test files at a time (WMLAB_E2E_JOBS): a file waits on a browser's frames, timers or SwiftShader's
# one-thread shader compiles much of its time (the people files on the human timings), so three share
# two cores well. Each file has its own browser profile, server and ports. Longest first (seconds
# measured on the 2-core CI machine), so the lanes end together; files not named here run last.
order=(people networks llm people-delivery platforms threads compare adaptive dashboard agreement share subpath jatos gallery home papers)
files=()
for n in "${order[@]}"; do [ -f "tests/e2e/$n.test.mjs" ] && files+=("tests/e2e/$n.test.mjs"); done
for f in tests/e2e/*.test.mjs; do
  case " ${files[*]} " in *" $f "*) ;; *) files+=("$f") ;; esac
done
exec node --test --test-concurrency="${WMLAB_E2E_JOBS:-3}" "${files[@]}"

#!/usr/bin/env bash
# A participant's first load, measured on what ships: the whole app (index.html) and the participant's
# page alone (take.html) built as `trunk build --release` builds them (release profile: fat LTO, one
# codegen unit, opt-level z; the participant's page with the `participant` profile; then wasm-opt -Oz),
# then tests/e2e/bench/load-bench.mjs on a copy of dist/
# that holds those two wasm files (the networks workers, which a study link never loads, stay as built).
#
#   scripts/bench/load-release.sh            # after tests/e2e/run.sh has built dist/; RUNS=5
#
# Prints the wasm sizes (raw, gzip), then the study link's bytes and time to the first trial on the
# throttled profile (Fast 3G, CPU ×4) for both pages.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$here"
source scripts/dev/env.sh
test -f dist/index.html -a -f dist/take.html || { echo "build dist/ first (tests/e2e/run.sh)" >&2; exit 1; }
target="${WMLAB_RELEASE_TARGET_DIR:-$CARGO_TARGET_DIR-release}"
start=$(date +%s)
cargo_bin="${WMLAB_REAL_CARGO:-cargo}"
"$cargo_bin" build -q --release --target wasm32-unknown-unknown -p wmlab-app --bin wmlab-app --target-dir "$target"
# The participant's page as build-participant.sh builds what ships: the `participant` profile.
"$cargo_bin" build -q --profile participant --target wasm32-unknown-unknown -p wmlab-app --bin wmlab-take \
  --target-dir "$target"
echo "[load-release] cargo build (release app, participant page): $(( $(date +%s) - start )) s"
out="$(mktemp -d)/dist"
cp -r dist "$out"
# Trunk's subresource integrity hashes name the test build's files; the release files replace them.
sed -i -E 's/ integrity="[^"]*"//g' "$out/index.html"
for pair in wmlab-app:release wmlab-take:participant; do
  bin="${pair%%:*}"
  js="$(cd "$out" && ls "$bin"-*.js | grep -v _bg | head -n1)"
  name="${js%.js}"
  rm -f "$out/$name.js" "$out/${name}_bg.wasm"
  wasm-bindgen --target web --no-typescript --out-dir "$out" --out-name "$name" \
    "$target/wasm32-unknown-unknown/${pair#*:}/$bin.wasm"
  wasm-opt -Oz --output "$out/${name}_bg.wasm" "$out/${name}_bg.wasm"
done
WMLAB_DIST="$out" node tests/e2e/bench/load-bench.mjs

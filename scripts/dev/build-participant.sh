#!/usr/bin/env bash
# Builds the participant's page alone (take.html and its wasm, src/participant.rs) into "$1" (default:
# Trunk's staging folder, else dist/).
#
# A study link's first load should be light (a participant on a phone, on a slow network): the whole
# app carries the LLM, networks, gallery and comparison pages. The second binary of the app crate mounts
# only the participant's page, so the linker keeps only what it reaches. Trunk builds one binary per
# page, so this script, a Trunk post-build hook, builds the second one with the same cargo profile,
# target folder and flags as Trunk's build of the first (only the binary itself compiles anew),
# binds it with wasm-bindgen as Trunk does, runs wasm-opt where Trunk does (release), and writes
# take.html beside index.html with the same stylesheet.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$here/scripts/dev/env.sh"
out="${1:-${TRUNK_STAGING_DIR:-$here/dist}}"
# Trunk's cargo profile: tests/e2e/run.sh names it (WMLAB_WORKER_MT_PROFILE, for both hooks); else
# `trunk build --release` → release, `trunk serve` → dev.
profile="${WMLAB_WORKER_MT_PROFILE:-$([ "${TRUNK_PROFILE:-release}" = debug ] && echo dev || echo release)}"
# What ships is built with the `participant` profile (Cargo.toml: release, with the core optimised for
# size); the tests' build shares the app's profile, so that only the binary compiles anew.
[ "$profile" = release ] && profile=participant
cargo_bin="${WMLAB_REAL_CARGO:-cargo}"
"$cargo_bin" build -q --profile "$profile" --target wasm32-unknown-unknown -p wmlab-app --bin wmlab-take
wasm="$CARGO_TARGET_DIR/wasm32-unknown-unknown/$([ "$profile" = dev ] && echo debug || echo "$profile")/wmlab-take.wasm"
name="wmlab-take-$(sha256sum "$wasm" | cut -c1-16)"
rm -f "$out"/wmlab-take-*
wasm-bindgen --target web --no-typescript --out-dir "$out" --out-name "$name" "$wasm"
if [ "$profile" != dev ] && [ "${TRUNK_PROFILE:-release}" != debug ]; then
  wasm-opt -Oz --output "$out/${name}_bg.wasm" "$out/${name}_bg.wasm"
fi
css="$(cd "$out" && ls main-*.css 2>/dev/null | head -n1)"
[ -n "$css" ] || { echo "build-participant: no main-*.css in $out (run as Trunk's post-build hook)" >&2; exit 1; }
cat >"$out/take.html" <<EOF
<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>WM Lab — study</title>
    <link rel="stylesheet" href="./$css" />
    <link rel="modulepreload" href="./$name.js" crossorigin="anonymous" />
    <link rel="preload" href="./${name}_bg.wasm" as="fetch" type="application/wasm" crossorigin="anonymous" />
    <link rel="icon" type="image/svg+xml" href="favicon.svg" />
    <script type="module">
      import init from './$name.js';
      await init({ module_or_path: './${name}_bg.wasm' });
    </script>
  </head>
  <body>
    <noscript>This study runs in your browser and needs JavaScript and WebAssembly.</noscript>
  </body>
</html>
EOF

#!/usr/bin/env bash
# Builds the threaded CPU networks worker into "$1/worker-mt/" (default: dist/worker-mt/).
#
# Trunk builds the app and the single-threaded worker (WebGPU + CPU). A wasm that runs on several threads
# needs the standard library rebuilt with atomics and a module worker (wasm-bindgen --target web, which
# wasm-bindgen-rayon's thread pool needs); Trunk can do neither for one asset, so this script does, and
# Trunk.toml runs it as a post-build hook (TRUNK_STAGING_DIR). The page uses this worker for the CPU
# backend where it is cross-origin isolated (docs/hosting.md), and the other one everywhere else.
#
# build-std is a nightly cargo feature: RUSTC_BOOTSTRAP=1 lets the stable toolchain use it (with its
# rust-src component, which scripts/dev/setup.sh installs), so no second toolchain is needed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$here/scripts/dev/env.sh"
out="${1:-${TRUNK_STAGING_DIR:-$here/dist}}/worker-mt"
# Trunk's profile (TRUNK_PROFILE in its hooks): `trunk build --release` → release, `trunk serve` → dev.
profile="${WMLAB_WORKER_MT_PROFILE:-$([ "${TRUNK_PROFILE:-release}" = debug ] && echo dev || echo release)}"
# Its own target folder: other RUSTFLAGS and a rebuilt std would otherwise invalidate the app's build.
target_dir="$CARGO_TARGET_DIR/wasm-mt"

# Atomics in the code, and a shared memory that the module imports (so every thread gets the same one)
# with the thread-local storage hooks wasm-bindgen's thread support calls; rustc 1.95 links neither by
# itself for wasm32-unknown-unknown. 4 GiB is wasm32's whole address space: a shared memory must declare
# its maximum, and a training run may grow that far.
link="--shared-memory --import-memory --max-memory=4294967296 --export=__wasm_init_tls --export=__tls_size --export=__tls_align --export=__tls_base"
RUSTFLAGS="-C target-feature=+atomics,+bulk-memory,+mutable-globals"
# In the project's tests (scripts/dev/test.sh sets WMLAB_DENY_WARNINGS), rustc's lints fail this build as
# clippy fails the others (cargo caps them for dependencies); a deploy on a newer toolchain is not
# stopped by a new lint.
[ "${WMLAB_DENY_WARNINGS:-0}" = 1 ] && RUSTFLAGS="$RUSTFLAGS -D warnings"
for a in $link; do RUSTFLAGS="$RUSTFLAGS -C link-arg=$a"; done
# Test builds share generic instances between crates, as tests/e2e/run.sh's Trunk build does.
[ "$profile" = release ] || RUSTFLAGS="$RUSTFLAGS -Zshare-generics=yes"
export RUSTFLAGS
export RUSTC_BOOTSTRAP=1
# Linted by rustc alone (above): clippy's lints of the worker run in Trunk's build of it
# (scripts/dev/test.sh), and this build's code stays what rustc makes of it.
unset RUSTC_WORKSPACE_WRAPPER CLIPPY_ARGS
# The real cargo: env.sh may have put the app's cargo wrapper (scripts/dev/shim) first on PATH.
cargo_bin="${WMLAB_REAL_CARGO:-cargo}"
"$cargo_bin" build -q --profile "$profile" --target wasm32-unknown-unknown \
  -Z build-std=std,panic_abort \
  -p wmlab-nn-worker --no-default-features --features threads \
  --target-dir "$target_dir"

wasm="$target_dir/wasm32-unknown-unknown/$([ "$profile" = dev ] && echo debug || echo "$profile")/wmlab-nn-worker.wasm"
rm -rf "$out"
mkdir -p "$out"
wasm-bindgen --target web --no-typescript --out-dir "$out" --out-name wmlab-nn-worker-mt "$wasm"
# The same size optimisation as Trunk's other wasm (data-wasm-opt="z"), with threads enabled, where Trunk
# runs it too (`trunk build --release`; a build without --release, such as the tests', skips it).
[ "$profile" = dev ] || [ "${TRUNK_PROFILE:-release}" = debug ] || wasm-opt -Oz --enable-threads --enable-bulk-memory --enable-mutable-globals \
  --enable-nontrapping-float-to-int --enable-sign-ext \
  "$out/wmlab-nn-worker-mt_bg.wasm" -o "$out/wmlab-nn-worker-mt_bg.wasm"
cp "$here/public/worker-mt/entry.js" "$out/entry.js"

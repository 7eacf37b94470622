#!/usr/bin/env bash
# Build the app (release) and serve it at http://127.0.0.1:8080 (override with PORT=...).
# Installs what is missing first (scripts/setup.sh --web: wasm target, trunk, wasm-bindgen-cli, npm wasm-opt).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"
./scripts/setup.sh --web
source "$here/scripts/env.sh"
PORT="${PORT:-8080}"
if [ "${1:-}" = "--dev" ]; then
  # debug build with live reload
  exec trunk serve --port "$PORT" --address 127.0.0.1
fi
trunk build --release
echo "WM Lab: http://127.0.0.1:$PORT/"
exec python3 -m http.server "$PORT" --bind 127.0.0.1 --directory "$here/dist"

#!/usr/bin/env bash
# Build the app (release) and serve it at http://127.0.0.1:8080 (override with PORT=...), cross-origin
# isolated (the networks' CPU backend on every core; docs/hosting.md).
# Installs what is missing first (scripts/dev/setup.sh --web: wasm target, trunk, wasm-bindgen-cli, npm wasm-opt).
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$here"
./scripts/dev/setup.sh --web
source "$here/scripts/dev/env.sh"
PORT="${PORT:-8080}"
if [ "${1:-}" = "--dev" ]; then
  # debug build with live reload
  exec trunk serve --port "$PORT" --address 127.0.0.1
fi
trunk build --release
echo "WM Lab: http://127.0.0.1:$PORT/"
# Python's static server, sending the cross-origin isolation headers (docs/hosting.md): the Networks
# page's CPU backend then runs on every core.
exec python3 - "$PORT" "$here/dist" <<'PY'
import functools, http.server, sys
class Isolated(http.server.SimpleHTTPRequestHandler):
    def end_headers(self):
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        super().end_headers()
handler = functools.partial(Isolated, directory=sys.argv[2])
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), handler).serve_forever()
PY

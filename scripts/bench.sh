#!/usr/bin/env bash
# Benchmarks that print numbers (never part of the tests). Run on a quiet machine:
#   scripts/bench.sh [frames] [nn] [torch] [browser]     (default: all four)
#   frames   stimulus generation, frames/s per task id (`wmlab bench`)
#   nn       native training throughput of LSTM-256 / TRF-256 at the paper's batch (140) and inference
#            latency, burn flex CPU backend, `--profile native` (crates/nn/examples/bench.rs)
#   torch    the same models, batch and conv work in PyTorch eager on the same CPU (scripts/bench_torch.py);
#            installs torch into ~/.cache/wmlab/venv-torch the first time (several GB)
#   browser  training/inference in headless Chromium on WebGPU (SwiftShader) and the CPU backend
#            (tests/e2e/bench-networks.mjs; builds dist/ first if missing; WMLAB_BENCH_* variables there)
# WMLAB_BENCH_NN_STEPS (default 3) sets the native/torch steps per model; WMLAB_BENCH_WGPU=1 also runs the
# native models on burn-wgpu (Vulkan/Metal/DX12; a long first build; Debian: apt install mesa-vulkan-drivers
# gives lavapipe, a CPU Vulkan driver, when there is no GPU).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"
source "$here/scripts/env.sh"
what=("$@")
[ ${#what[@]} -eq 0 ] && what=(frames nn torch browser)
steps="${WMLAB_BENCH_NN_STEPS:-3}"
lens="$(mktemp /tmp/wmlab-bench-lens.XXXXXX.json)"
has() { local w; for w in "${what[@]}"; do [ "$w" = "$1" ] && return 0; done; return 1; }
echo "== $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

if has frames; then
  echo "== stimulus generation (wmlab bench)"
  cargo run -q --profile native -p wmlab-cli -- bench --seconds 1
fi
if has nn || has torch; then
  echo "== networks, native (burn flex)"
  features=()
  [ "${WMLAB_BENCH_WGPU:-0}" = "1" ] && features=(--features wgpu,fusion)
  WMLAB_BENCH_LENS="$lens" cargo run -q --profile native -p wmlab-nn "${features[@]}" --example bench -- "$steps" 10
fi
if has torch; then
  venv="$HOME/.cache/wmlab/venv-torch"
  if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import torch' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q torch numpy
  fi
  echo "== networks, PyTorch eager (same models and batch)"
  "$venv/bin/python" scripts/bench_torch.py --lens "$lens" --steps "$steps" --threads "$(nproc)"
fi
if has browser; then
  if [ ! -f dist/index.html ]; then trunk build --release; fi
  [ -d tests/e2e/node_modules/playwright-core ] || (cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error)
  echo "== networks in headless Chromium"
  WMLAB_DIST="$here/dist" node tests/e2e/bench-networks.mjs
fi
rm -f "$lens"

#!/usr/bin/env bash
# Benchmarks that print numbers (never part of the tests). Run on a quiet machine:
#   scripts/bench/bench.sh [frames] [nn] [torch] [browser] [learn] [reference] [ratio]   (default: the first four)
#   frames   stimulus generation, frames/s and trials/s per task id and the joint mix (`wmlab bench`)
#   reference  the same lines for the published WorM generator (Pillow/cv2 at 96 px, the dataset's resize to
#            32 and ToTensor, in memory; scripts/bench/bench-reference.py), pinned to core 1; the first time it
#            unpacks the WorM snapshot 84c867c into ~/.cache/wmlab/worm-src (git clone of WMLAB_WORM_REPO,
#            default the GitHub repo) and makes ~/.cache/wmlab/venv-worm (Pillow, numpy, opencv, tqdm)
#   ratio    both of the above at the same time (ours on core 0, theirs on core 1), WMLAB_BENCH_ROUNDS
#            rounds (default 5), and each line's ratio: median, lowest and highest over the rounds
#            (scripts/bench/bench-ratio.py)
#   nn       native training throughput of LSTM-256 / TRF-256 at the paper's batch (140) and inference
#            latency, burn flex CPU backend, `--profile native` (crates/nn/examples/bench.rs)
#   torch    the same models, batch and conv work in PyTorch eager on the same CPU (scripts/bench/bench-torch.py);
#            installs torch into ~/.cache/wmlab/venv-torch the first time (several GB)
#   browser  training/inference in headless Chromium on WebGPU (SwiftShader) and the CPU backend
#            (tests/e2e/bench/bench-networks.mjs; builds dist/ first if missing; WMLAB_BENCH_* variables there)
#   learn    learning speed of the presets: `quick` (TRF-96) through scripts/research/learning.sh — trials/s, wall
#            time, and task ids above chance on 200 test trials per id (about 8 minutes); the curves and
#            the other variants are in docs/learning.md. WMLAB_BENCH_LEARN="quick tiny" picks presets.
# WMLAB_BENCH_NN_STEPS (default 3) sets the native/torch steps per model; WMLAB_BENCH_WGPU=1 also runs the
# native models on burn-wgpu (Vulkan/Metal/DX12; a long first build; Debian: apt install mesa-vulkan-drivers
# gives lavapipe, a CPU Vulkan driver, when there is no GPU).
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$here"
source "$here/scripts/dev/env.sh"
what=("$@")
[ ${#what[@]} -eq 0 ] && what=(frames nn torch browser)
steps="${WMLAB_BENCH_NN_STEPS:-3}"
lens="$(mktemp /tmp/wmlab-bench-lens.XXXXXX.json)"
has() { local w; for w in "${what[@]}"; do [ "$w" = "$1" ] && return 0; done; return 1; }
echo "== $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

if has learn; then
  echo "== learning speed of the presets (scripts/research/learning.sh; test: wmlab eval --n 200)"
  for p in ${WMLAB_BENCH_LEARN:-quick}; do
    case "$p" in
      quick) arch=(--arch trf --capacity 96) ;;
      *) arch=(--arch gru --capacity 96) ;;
    esac
    dir="$(mktemp -d /tmp/wmlab-bench-learn.XXXXXX)"
    WMLAB_LEARN_DIR="$dir" ./scripts/research/learning.sh "$p" "${arch[@]}" --preset "$p"
    python3 - "$dir/$p" <<'PY'
import json, sys
d = sys.argv[1]
last = [json.loads(l) for l in open(d + "/curve.jsonl")][-1]
e = json.load(open(d + "/eval.json"))
mins = (last.get("elapsed_s") or 0) / 60
above = sum(1 for t in e["tasks"] if t["accuracy"] is not None and t["p_above_chance"] < e["significance_level"])
print(f"  {last['trials']:,} trials in {mins:.1f} min = {last['trials'] / max(mins * 60, 1e-9):.0f} trials/s; "
      f"{above} ids above chance ({above / max(mins, 1e-9):.2f} per minute of training)")
PY
  done
fi
if has frames; then
  echo "== stimulus generation (wmlab bench, one thread)"
  cargo run -q --profile native -p wmlab-cli -- bench --seconds 1
  # WMLAB_BENCH_CPU=x86-64-v3 also builds the CLI for AVX2 CPUs (its own target dir) and benches it:
  # measured on an AVX-512 Xeon: +15-25% on the joint mix and +35% on CD in one session, +4% on the joint
  # mix in 12 paired rounds on another (a noisy machine).
  if [ -n "${WMLAB_BENCH_CPU:-}" ]; then
    echo "== stimulus generation, built with -C target-cpu=$WMLAB_BENCH_CPU"
    CARGO_TARGET_DIR="$HOME/.cache/wmlab/target-$WMLAB_BENCH_CPU" \
      CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUSTFLAGS="-C target-cpu=$WMLAB_BENCH_CPU" \
      cargo run -q --profile native -p wmlab-cli -- bench --seconds 1
  fi
fi
worm="$HOME/.cache/wmlab/worm-src"
wvenv="$HOME/.cache/wmlab/venv-worm"
# The published generator and its venv, made the first time.
reference_setup() {
  if [ ! -d "$worm/src/data" ]; then
    tmp="$(mktemp -d /tmp/wmlab-worm.XXXXXX)"
    git clone -q --bare "${WMLAB_WORM_REPO:-https://github.com/ZhangLab-DeepNeuroCogLab/WorM.git}" "$tmp/WorM.git"
    mkdir -p "$tmp/src" "$(dirname "$worm")"
    git --git-dir="$tmp/WorM.git" archive 84c867c | tar -x -C "$tmp/src"
    rm -rf "$worm" && mv "$tmp/src" "$worm" && rm -rf "$tmp"
  fi
  if [ ! -x "$wvenv/bin/python" ] || ! "$wvenv/bin/python" -c 'import PIL, numpy, cv2, tqdm' 2>/dev/null; then
    python3 -m venv "$wvenv"
    # The versions of the authors' requirements.txt; the newest where those have no wheel for this Python.
    "$wvenv/bin/pip" install -q pillow==9.5.0 numpy==1.24.3 opencv-python-headless==4.7.0.72 tqdm==4.65.0 \
      || "$wvenv/bin/pip" install -q pillow numpy opencv-python-headless tqdm
  fi
}
if has reference; then
  reference_setup
  echo "== stimulus generation, the published WorM generator (scripts/bench/bench-reference.py, one thread)"
  pin=()
  if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then pin=(taskset -c 1); fi
  "${pin[@]}" "$wvenv/bin/python" scripts/bench/bench-reference.py --seconds 4 --task all --worm "$worm"
fi
if has ratio; then
  reference_setup
  cargo build -q --profile native -p wmlab-cli
  echo "== stimulus generation, ours against the published generator at the same time (scripts/bench/bench-ratio.py)"
  python3 scripts/bench/bench-ratio.py --ours "$CARGO_TARGET_DIR/native/wmlab" --python "$wvenv/bin/python" \
    --worm "$worm" --rounds "${WMLAB_BENCH_ROUNDS:-5}"
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
  "$venv/bin/python" scripts/bench/bench-torch.py --lens "$lens" --steps "$steps" --threads "$(nproc)"
fi
if has browser; then
  if [ ! -f dist/index.html ]; then trunk build --release; fi
  [ -d tests/e2e/node_modules/playwright-core ] || (cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error)
  echo "== networks in headless Chromium"
  WMLAB_DIST="$here/dist" node tests/e2e/bench/bench-networks.mjs
  # The same CPU backend on a cross-origin isolated page: the threaded worker, every core (docs/hosting.md).
  echo "== networks in headless Chromium, page cross-origin isolated (the threaded CPU worker)"
  WMLAB_DIST="$here/dist" WMLAB_BENCH_ISOLATED=1 WMLAB_BENCH_BACKENDS=cpu node tests/e2e/bench/bench-networks.mjs
fi
rm -f "$lens"

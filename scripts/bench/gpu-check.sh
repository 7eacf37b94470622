#!/usr/bin/env bash
# The GPU check of the training step (prints numbers; not a test). Two halves, because the GPU machine
# has CUDA, PyTorch and a Vulkan driver but no Rust registry:
#
#   scripts/bench/gpu-check.sh build   here: builds the step benchmark (crates/nn/examples/bench.rs, --profile
#                                native) twice, with wgpu + fusion and with burn's autotune added, strips
#                                both into gpu-bin/ (git-ignored) and checks they stay under the 64 MiB
#                                that travel to the GPU machine. WMLAB_GPU_CUDA=1 adds burn's CUDA backend
#                                to both: cubecl-cuda 0.11's build script downloads Tracel's LLVM bundle,
#                                so that needs a build machine with internet access (not this project's)
#   scripts/bench/gpu-check.sh run     on the GPU machine (the device tool: carry gpu-bin; about 5 minutes):
#                                  - nvidia-smi -L
#                                  - LSTM-256 and TRF-256 at the paper's batch (140 trials, 10 per task id)
#                                    on wgpu and on cuda, autotune off and on: s/step after warm-up, the
#                                    time recording vs waiting for the device, MB uploaded; then kernels
#                                    per step and per phase (cubecl's own launch log), in a run of its own
#                                  - scripts/bench/bench-torch.py --device cuda on the same batches (their trial
#                                    lengths), TF32 off (fp32, as burn) and on
#                                  - a per-kernel time breakdown of the LSTM's wgpu steps (cubecl's
#                                    profiler; it synchronises per kernel, so its total exceeds a step)
#                                Everything it prints also goes to $OUT/gpu-check.log when $OUT is set.
#
# WMLAB_GPU_STEPS (default 5) sets the steps per model; the first is warm-up and is not in the means.
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$here"
bin="$here/gpu-bin"

case "${1:-}" in
build)
  source "$here/scripts/dev/env.sh"
  mkdir -p "$bin"
  features=flex,native-fast,wgpu,fusion
  [ "${WMLAB_GPU_CUDA:-0}" = 1 ] && features="$features,cuda"
  base=(--locked --profile native -p wmlab-nn --example bench --no-default-features --features "$features")
  for variant in plain autotune; do
    extra=()
    [ "$variant" = autotune ] && extra=(--features autotune)
    echo "== building the bench ($variant)"
    cargo build "${base[@]}" "${extra[@]}"
    cp "$CARGO_TARGET_DIR/native/examples/bench" "$bin/bench-$variant"
    strip "$bin/bench-$variant"
  done
  ls -l "$bin"
  total=$(du -cb "$bin"/bench-* | tail -1 | cut -f1)
  echo "gpu-bin: $((total / 1048576)) MiB in all (limit 64)"
  [ "$total" -lt $((64 * 1048576)) ] || { echo "gpu-bin is over 64 MiB" >&2; exit 1; }
  ;;
run)
  [ -x "$bin/bench-plain" ] && [ -x "$bin/bench-autotune" ] || {
    echo "gpu-bin/bench-plain and bench-autotune are missing: run 'scripts/bench/gpu-check.sh build' first" >&2
    exit 1
  }
  out="${OUT:-$(mktemp -d)}"
  exec > >(tee "$out/gpu-check.log") 2>&1
  steps="${WMLAB_GPU_STEPS:-5}"
  lens="$out/lens.json"
  export WMLAB_BENCH_FLEX=0
  echo "== $(date -u +%FT%TZ) $(hostname)"
  nvidia-smi -L || true
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
  echo "== wgpu (and cuda where built in), autotune off"
  WMLAB_BENCH_LENS="$lens" timeout 150 "$bin/bench-plain" "$steps" || echo "(exit $?)"
  echo "== the same, autotune on (the first steps tune)"
  timeout 200 "$bin/bench-autotune" "$((steps + 2))" || echo "(exit $?)"
  echo "== kernels per step and per phase, autotune off (2 steps; times here include the log's waits)"
  WMLAB_BENCH_KERNELS=1 timeout 90 "$bin/bench-plain" 2 || echo "(exit $?)"
  if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null && [ -s "$lens" ]; then
    for tf32 in off on; do
      echo "== PyTorch CUDA, TF32 $tf32, the same trial lengths"
      timeout 90 python3 scripts/bench/bench-torch.py --lens "$lens" --steps "$steps" --same-work-only --device cuda --tf32 "$tf32" || echo "(exit $?)"
    done
  else
    echo "== PyTorch CUDA: skipped (no torch with CUDA here, or the wgpu run wrote no trial lengths)"
  fi
  echo "== per-kernel time of the LSTM-256's steps on wgpu (cubecl profiler, last summary)"
  prof="$out/wgpu-profile.log"
  CUBECL_DEBUG_LOG="$prof" CUBECL_DEBUG_OPTION=profile WMLAB_BENCH_CUDA=0 WMLAB_BENCH_ARCHS=lstm \
    timeout 120 "$bin/bench-plain" 2 >/dev/null 2>&1 || echo "(exit $?)"
  if [ -s "$prof" ]; then
    # The profiler logs a table at every synchronisation; the last complete one covers the last step.
    awk '/Name/ {buf=""} {buf = buf $0 "\n"} END {printf "%s", buf}' "$prof" | head -60
  else
    echo "(no profile written)"
  fi
  ;;
*)
  sed -n '2,22p' "$0"
  exit 2
  ;;
esac

#!/usr/bin/env bash
# Learning curves of the WorM networks natively (docs/learning.md): trains one configuration with
# `wmlab train`, keeps its validation curve (one JSON line per check, with trials seen and wall time), then
# tests the best checkpoint with `wmlab eval` (accuracy, chance and one-sided exact p per task id).
#
#   scripts/research/learning.sh NAME [wmlab train args...]      e.g.
#   scripts/research/learning.sh quick --arch gru --capacity 96 --preset quick
#
# Output in ${WMLAB_LEARN_DIR:-runs/learn}/NAME/: curve.jsonl, eval.json, train.json, best/, last/.
# Prints a one-line summary: ids above chance (p < 0.01) of the trained ids, wall time.
# Environment: WMLAB_EVAL_N (test trials per id, default 200), WMLAB_BIN (a built wmlab; default: build
# it with `cargo build --profile native --features nn`).
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
name="$1"; shift
out="${WMLAB_LEARN_DIR:-$here/runs/learn}/$name"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/wmlab/target}"
bin="${WMLAB_BIN:-}"
if [ -z "$bin" ]; then
  (cd "$here" && cargo build --quiet --locked --profile native -p wmlab-cli --features nn)
  bin="$CARGO_TARGET_DIR/native/wmlab"
fi
mkdir -p "$out"
t0=$(date +%s.%N)
"$bin" train "$@" --out "$out" --quiet > "$out/curve.jsonl"
t1=$(date +%s.%N)
"$bin" eval --checkpoint "$out" --n "${WMLAB_EVAL_N:-200}" --quiet > "$out/eval.json"
python3 - "$out" "$t0" "$t1" <<'PY'
import json, sys
out, t0, t1 = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
e = json.load(open(out + "/eval.json"))
rows = [t for t in e["tasks"] if t["accuracy"] is not None]
level = e["significance_level"]
above = [t["task"] for t in rows if t["p_above_chance"] is not None and t["p_above_chance"] < level]
print(f"{out.rsplit('/', 1)[-1]}: {len(above)}/{len(rows)} ids above chance (p<{level}) after {t1 - t0:.0f} s of training; "
      f"mean accuracy {e['mean_accuracy']:.3f}; step {e['step']}")
for t in rows:
    print(f"  {t['task']:15s} acc {t['accuracy']:.3f}  chance {t['chance']:.3f}  n {t['responses']:5d}  p {t['p_above_chance']:.2g}")
PY

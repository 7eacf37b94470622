#!/usr/bin/env python3
"""WM Lab's `paper` model against the WorM authors' own PyTorch model, on the same weights and trials.

Needs PyTorch, numpy, a checkout of github.com/ZhangLab-DeepNeuroCogLab/WorM (its src/model.py and
src/args.py) and a `wmlab` built with `--features nn`. Not run in CI (no PyTorch there); PyPI's `torch`
runs it on a CPU in about a minute (docs/checks/2026-11-29-torch-check.log).

For each memory (RNN, GRU, LSTM, and the paper's two-layer Transformer) it
1. trains a WM Lab paper model for one step (`wmlab train --preset paper`, capacity C),
2. writes it as the authors' state_dict (`wmlab export --torch`) and loads that into their `WM_Model`
   with `load_state_dict(strict=True)` (so the export is checked to load in PyTorch, `weights_only` on),
3. runs both on the same trials of several tasks (`wmlab generate` frames; their forward with
   `actual_seq_len`; `wmlab predict` for ours) and compares the logits at every real step,
4. imports the file back (`wmlab import --torch`) and predicts again with the imported checkpoint.
It prints the largest difference per memory and task and exits 1 if any exceeds --tol.

    python3 scripts/research/torch-check.py --worm ../WorM --wmlab target/native/wmlab --out /tmp/torch-check
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import torch

TASKS = ["CD-Color", "VSR", "STS", "SMU", "CS", "SFR", "VSRec", "VIR", "SC", "SI"]


def their_task(t):
    return {"CD-Conjunction": "CD_Conj_Task"}.get(t, t.replace("-", "_") + "_Task")


def run(*args):
    out = subprocess.run(args, check=True, capture_output=True, text=True)
    return out.stdout


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--worm", required=True, type=Path, help="a checkout of the authors' WorM repository")
    p.add_argument("--wmlab", required=True, help="the wmlab binary (built with --features nn)")
    p.add_argument("--out", default="torch-check", type=Path)
    p.add_argument("--capacity", type=int, default=96)
    p.add_argument("--count", type=int, default=8, help="trials per task")
    p.add_argument("--tol", type=float, default=1e-4)
    a = p.parse_args()
    sys.path.insert(0, str(a.worm / "src"))
    from args import build_parser  # the authors' defaults
    from model import WM_Model

    torch.set_grad_enabled(False)
    a.out.mkdir(parents=True, exist_ok=True)
    gen = {}
    for t in TASKS:
        d = a.out / "trials" / t
        run(a.wmlab, "generate", "--task", t, "--split", "test", "--count", str(a.count), "--png", "none", "-q",
            "--out", str(d))
        lens = [json.loads(line)["seq_len"] for line in (d / "trials.jsonl").read_text().splitlines() if line.strip()]
        gen[t] = (d, np.load(d / "frames.npy"), lens)
    worst_all = 0.0
    for arch in ["rnn", "gru", "lstm", "trf"]:
        run_dir = a.out / arch
        run(a.wmlab, "train", "--arch", arch, "--capacity", str(a.capacity), "--preset", "paper", "--per-task", "1",
            "--steps", "1", "--val-every", "1", "--val-per-task", "1", "--quiet", "--out", str(run_dir))
        pt = a.out / f"{arch}.pt"
        run(a.wmlab, "export", "--torch", str(run_dir), "--out", str(pt))
        back = a.out / f"{arch}.wmlabnn"
        run(a.wmlab, "import", "--torch", str(pt), "--arch", arch, "--capacity", str(a.capacity), "--out", str(back))
        trf = arch == "trf"
        config = build_parser().parse_args([
            "--mem_architecture", arch.upper(),
            "--mem_hidden_size", str(a.capacity),
            "--mem_input_size", str(a.capacity if trf else 512),
            "--mem_num_layers", "2" if trf else "1",
        ])
        model = WM_Model(config, "cpu")
        model.load_state_dict(torch.load(pt, map_location="cpu", weights_only=True), strict=True)
        model.eval()
        for t, (d, frames, lens) in gen.items():
            theirs = model(torch.from_numpy(frames), their_task(t), actual_seq_len=lens)[0].numpy()
            for name, ck in [("ours", run_dir), ("imported", back)]:
                npy = a.out / f"{arch}-{t}-{name}.npy"
                run(a.wmlab, "predict", "--checkpoint", str(ck), "--trials", str(d), "--out", str(npy))
                ours = np.load(npy)
                worst = max(float(np.abs(ours[i, :n] - theirs[i, :n]).max()) for i, n in enumerate(lens))
                worst_all = max(worst_all, worst)
                print(f"{arch.upper():4} {t:10} {name:8} largest |difference| {worst:.2e}", flush=True)
    print(f"largest difference overall {worst_all:.2e} (tolerance {a.tol:g})")
    return 0 if worst_all <= a.tol else 1


if __name__ == "__main__":
    sys.exit(main())

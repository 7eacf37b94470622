#!/usr/bin/env python3
"""The authors' own PyTorch model's logits, committed as the fixture of WM Lab's import test.

Needs PyTorch, numpy, a checkout of github.com/ZhangLab-DeepNeuroCogLab/WorM (src/model.py, src/args.py)
and a `wmlab` binary (for `wmlab generate`). Not run in CI; run it again only when the fixture must change:

    python3 scripts/research/torch-fixture.py --worm ../WorM --wmlab target/native/wmlab \
        --out crates/nn/tests/data/authors-logits.json

For each memory (RNN, GRU, LSTM, the paper's two-layer Transformer; capacity 96) it builds the authors'
`WM_Model` at the paper's widths, fills every tensor of its state_dict by a formula (`fill`, a hash; a full
state_dict is 7 to 10 MB, too big to commit, and the formula is written out again in
crates/nn/tests/torch_authors.rs), runs their `forward` on test trials of all ten tasks that `wmlab
generate` wrote, and writes the logits at every real step. The Rust test fills the same tensors by the
same formula, imports them with `wmlab_nn::torch::import` and compares its logits with these.
"""

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import torch

TASKS = ["CD-Color", "VSR", "STS", "SMU", "CS", "SFR", "VSRec", "VIR", "SC", "SI"]
SEED = 1
CAPACITY = 96


def their_task(t):
    return t.replace("-", "_") + "_Task"


def fill(key, shape):
    """The value of every element of `key`: a hash of its flat index and its name, uniform in [-1, 1),
    scaled like an initialisation (He's for matrices and convolutions; norm gains near 1; small biases)."""
    n = int(np.prod(shape))
    x = np.arange(n, dtype=np.uint64) + np.uint64(sum(key.encode()) * 1000003)
    x = x * np.uint64(0x9E3779B97F4A7C15)
    x ^= x >> np.uint64(29)
    x = x * np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(32)
    s = (x >> np.uint64(11)).astype(np.float64) / 2.0**53 * 2.0 - 1.0
    if len(shape) >= 2:
        v = s * math.sqrt(6.0 / (n // shape[0]))
    elif "norm" in key and key.endswith("weight"):
        v = 1.0 + 0.1 * s
    else:
        v = 0.1 * s
    return torch.from_numpy(v.astype(np.float32).reshape(shape))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--worm", required=True, type=Path, help="a checkout of the authors' WorM repository")
    p.add_argument("--wmlab", required=True, help="the wmlab binary")
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--count", type=int, default=2, help="test trials per task")
    p.add_argument("--work", default="/tmp/torch-fixture", type=Path)
    a = p.parse_args()
    sys.path.insert(0, str(a.worm / "src"))
    from args import build_parser  # the authors' defaults
    from model import WM_Model

    torch.set_grad_enabled(False)
    trials = {}
    for t in TASKS:
        d = a.work / t
        subprocess.run([a.wmlab, "generate", "--task", t, "--split", "test", "--count", str(a.count), "--seed",
                        str(SEED), "--png", "none", "-q", "--out", str(d)], check=True)
        lens = [json.loads(line)["seq_len"] for line in (d / "trials.jsonl").read_text().splitlines() if line]
        frames = np.load(d / "frames.npy")
        if frames.shape[1] < 20:  # their Transformer's causal mask is 20 x 20
            pad = np.zeros((frames.shape[0], 20 - frames.shape[1]) + frames.shape[2:], np.float32)
            frames = np.concatenate([frames, pad], axis=1)
        trials[t] = (frames, lens)
    out = {
        "about": "logits of the WorM authors' WM_Model (their src/model.py, PyTorch " + torch.__version__
        + ") on wmlab generate --split test --seed 1 trials, weights filled by the formula in "
        "scripts/research/torch-fixture.py; written by that script",
        "seed": SEED,
        "capacity": CAPACITY,
        "count": a.count,
        "archs": {},
    }
    for arch in ["rnn", "gru", "lstm", "trf"]:
        trf = arch == "trf"
        config = build_parser().parse_args([
            "--mem_architecture", arch.upper(),
            "--mem_hidden_size", str(CAPACITY),
            "--mem_input_size", str(CAPACITY if trf else 512),
            "--mem_num_layers", "2" if trf else "1",
        ])
        model = WM_Model(config, "cpu")
        state = {k: fill(k, tuple(v.shape)) for k, v in model.state_dict().items()}
        model.load_state_dict(state, strict=True)
        model.eval()
        tasks = {}
        for t, (frames, lens) in trials.items():
            logits = model(torch.from_numpy(frames), their_task(t), actual_seq_len=lens)[0].numpy()
            tasks[t] = {
                "seq_len": lens,
                "logits": [[[float(f"{x:.7g}") for x in logits[i, s]] for s in range(n)] for i, n in enumerate(lens)],
            }
        out["archs"][arch] = {"keys": len(state), "tasks": tasks}
        print(arch, len(state), "tensors", sum(v.numel() for v in state.values()), "values", flush=True)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(out, separators=(",", ":")) + "\n")
    print("wrote", a.out, a.out.stat().st_size, "bytes")


if __name__ == "__main__":
    sys.exit(main())

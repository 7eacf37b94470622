#!/usr/bin/env python3
"""PyTorch-eager baseline for `cargo run --release -p wmlab-nn --example bench` (prints numbers; not a test).

The same WorM models (reference-implementations.md §1.3: ConvNet 3→64→128→256→512 with two max-pools and a
global average pool, Linear 512→D, learned 14×14 task embedding at every step, LSTM-256 or the 2-layer causal
Transformer with d_model 256, 8 heads, FF 2048, learned positions, padding mask; 10 linear heads applied at
every step) at the paper's batch (10 trials × 14 task ids = 140, 20 steps), one Adam(1e-4) step per
iteration with the masked joint loss (BCE-with-logits for the 1-logit and SFR heads, cross-entropy for the
k-way heads), on the CPU with as many threads as the Rust run.

Two ways to run the conv stack, printed separately:
  * `same-work`: only the trials' real frames plus one black padding frame, as `wmlab_nn` does
    (`model::StepFrames`), with the trial lengths of the Rust bench's batches (--lens; step i
    uses batch i, so both do the same work step by step);
  * `reference`: all 20 frames of every trial, as the published code does.

Usage: scripts/bench/bench-torch.py --lens /tmp/wmlab-bench-lens.json [--steps 3] [--threads 2] [--same-work-only]
                               [--device cuda [--tf32 on|off]]   (a GPU baseline for the wgpu and cuda
                               benches: every tensor made on that device, each timed part ended by a
                               synchronise; TF32 off by default, fp32 as burn computes)
"""

import argparse
import json
import os
import platform
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

T = 20
N_TASKS = 14
# Head per task id (SC, SFR, SI, SMU, STS, VIR, VSR, VSRec, CD×5, CS) and units per head.
HEAD_OF_TASK = [0, 1, 2, 3, 4, 5, 6, 7, 8, 8, 8, 8, 8, 9]
HEAD_UNITS = [1, 100, 1, 9, 3, 1, 9, 1, 1, 21]
HEAD_KIND = ["bce", "bce", "bce", "ce", "ce", "bce", "ce", "bce", "bce", "ce"]


class Worm(nn.Module):
    def __init__(self, arch, c):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(3, 64, 3, 1, 1), nn.ReLU(),
            nn.Conv2d(64, 128, 3, 1, 1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(128, 256, 3, 1, 1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(256, 512, 3, 1, 1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        m_in = 512 if arch == "lstm" else c
        self.proj = nn.Linear(512, m_in - N_TASKS)
        self.emb = nn.Embedding(N_TASKS, N_TASKS)
        self.arch = arch
        if arch == "lstm":
            self.mem = nn.LSTM(m_in, c, 1, batch_first=True)
        else:
            self.pos = nn.Embedding(T, c)
            layer = nn.TransformerEncoderLayer(c, 8, 2048, 0.1, batch_first=True)
            self.mem = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.heads = nn.ModuleList([nn.Linear(c, u) for u in HEAD_UNITS])

    def forward(self, frames, tasks, lens, same_work):
        b = frames.shape[0]
        if same_work:
            real = torch.cat([torch.arange(n) + i * T for i, n in enumerate(lens)])
            x = torch.cat([frames.reshape(b * T, 3, 32, 32)[real], torch.zeros(1, 3, 32, 32)])
            f = self.proj(self.conv(x).flatten(1))
            index = torch.full((b * T,), len(real), dtype=torch.long)
            index[real] = torch.arange(len(real))
            f = f[index]
        else:
            f = self.proj(self.conv(frames.reshape(b * T, 3, 32, 32)).flatten(1))
        f = f.reshape(b, T, -1)
        a = torch.cat([f, self.emb(tasks)[:, None, :].expand(b, T, N_TASKS)], 2)
        if self.arch == "lstm":
            h, _ = self.mem(a)
        else:
            a = a + self.pos(torch.arange(T))[None]
            causal = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
            pad = torch.arange(T)[None, :] >= torch.tensor(lens)[:, None]
            h = self.mem(a, mask=causal, src_key_padding_mask=pad)
        return [head(h) for head in self.heads]


def joint_loss(logits, tasks, lens, targets):
    step_ok = torch.arange(T)[None, :] < torch.tensor(lens)[:, None]  # [B, T]
    total = 0.0
    for k, out in enumerate(logits):
        rows = torch.tensor([HEAD_OF_TASK[t] == k for t in tasks.tolist()])
        mask = (step_ok & rows[:, None]).float()
        if HEAD_KIND[k] == "bce":
            l = F.binary_cross_entropy_with_logits(out, targets[k], reduction="none").mean(-1)
        else:
            l = F.cross_entropy(out.reshape(-1, out.shape[-1]), targets[k].reshape(-1), reduction="none")
            l = l.reshape(mask.shape)
        total = total + (l * mask).sum() / mask.sum().clamp(min=1)
    return total


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--lens", required=True, help="JSON list of trial lengths written by the Rust bench")
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--same-work-only", action="store_true", help="skip the reference way (all 20 frames)")
    p.add_argument("--device", default="cpu", help="cpu (default) or cuda")
    p.add_argument("--tf32", choices=["on", "off"], default="off",
                   help="CUDA: allow TF32 in matmuls and cuDNN convolutions (default off: fp32 throughout)")
    a = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = a.tf32 == "on"
    torch.backends.cudnn.allow_tf32 = a.tf32 == "on"
    torch.set_num_threads(a.threads)
    torch.set_default_device(a.device)
    sync = torch.cuda.synchronize if a.device.startswith("cuda") else (lambda: None)
    torch.manual_seed(86)
    all_lens = json.load(open(a.lens))
    if all_lens and isinstance(all_lens[0], int):
        all_lens = [all_lens]
    lens = all_lens[0]
    b = len(lens)
    tasks = torch.tensor([i // (b // N_TASKS) for i in range(b)])
    frames = torch.rand(b, T, 3, 32, 32)
    targets = []
    for k, u in enumerate(HEAD_UNITS):
        if HEAD_KIND[k] == "bce":
            targets.append(torch.randint(0, 2, (b, T, u)).float())
        else:
            targets.append(torch.randint(0, u, (b, T)))
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor())
    where = torch.cuda.get_device_name() if a.device.startswith("cuda") else "CPU"
    tf32 = f", TF32 {a.tf32}" if a.device.startswith("cuda") else ""
    print(f"machine: {cpu}, {a.threads} threads; backend: PyTorch {torch.__version__} eager, {where}, f32{tf32}")
    mean_len = sum(map(sum, all_lens)) / (b * len(all_lens))
    print(f"batch {b} trials, {len(all_lens)} batches cycled, mean trial length {mean_len:.1f} of {T} steps")
    for arch in ["lstm", "trf"]:
        for same_work in [True] if a.same_work_only else [True, False]:
            torch.manual_seed(86)
            model = Worm(arch, 256)
            model.train()
            opt = torch.optim.Adam(model.parameters(), lr=1e-4)
            times, parts = [], []
            for i in range(a.steps):
                lens = all_lens[i % len(all_lens)]
                t = time.perf_counter()
                opt.zero_grad()
                loss = joint_loss(model(frames, tasks, lens, same_work), tasks, lens, targets)
                loss.item()
                t1 = time.perf_counter()
                loss.backward()
                sync()
                t2 = time.perf_counter()
                opt.step()
                sync()
                t3 = time.perf_counter()
                times.append(t3 - t)
                parts.append((t1 - t, t2 - t1, t3 - t2))
            steady = times[1:] if len(times) > 1 else times
            steady_parts = parts[1:] if len(parts) > 1 else parts
            per = sum(steady) / len(steady)
            fwd, bwd, opt_s = (sum(p[j] for p in steady_parts) / len(steady_parts) for j in range(3))
            label = f"{arch.upper()}-256"
            params = sum(p.numel() for p in model.parameters()) / 1e6
            mode = "same-work" if same_work else "reference"
            print(f"{label} ({params:.2f}M params) training [{mode}]: {per:.3f} s/step at batch {b} → "
                  f"{b / per:.1f} trials/s (mean of {len(steady)} steps after the first; first {times[0]:.2f} s); "
                  f"forward+loss {fwd:.3f} s, backward {bwd:.3f} s, optimizer {opt_s:.3f} s")
            lens = all_lens[0]
            if same_work:
                model.eval()
                with torch.no_grad():
                    model(frames, tasks, lens, True)
                    sync()
                    t = time.perf_counter()
                    model(frames, tasks, lens, True)
                    sync()
                    dt = time.perf_counter() - t
                    one = time.perf_counter()
                    for _ in range(5):
                        model(frames[:1], tasks[:1], lens[:1], True)
                    sync()
                    dt1 = (time.perf_counter() - one) / 5
                print(f"{label} inference: {dt * 1e3 / b:.1f} ms per trial in a batch of {b} "
                      f"({b / dt:.0f} trials/s); {dt1 * 1e3:.1f} ms for a single trial alone")


if __name__ == "__main__":
    main()

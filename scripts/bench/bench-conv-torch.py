#!/usr/bin/env python3
"""PyTorch counterpart of `crates/nn/examples/conv_bench.rs` (prints numbers; not a test).

Per 3x3 conv of the paper's ConvNet at N frames: forward, input gradient and weight gradient
(torch.nn.grad.conv2d_input / conv2d_weight, the kernels autograd calls), in ms and GFLOP/s.
Usage: scripts/bench/bench-conv-torch.py [N] [--threads T]
"""
import argparse
import time

import torch
import torch.nn.functional as F
from torch.nn.grad import conv2d_input, conv2d_weight

ap = argparse.ArgumentParser()
ap.add_argument("n", nargs="?", type=int, default=256)
ap.add_argument("--threads", type=int, default=None)
a = ap.parse_args()
if a.threads:
    torch.set_num_threads(a.threads)


def tm(f):
    f()
    t = time.perf_counter()
    for _ in range(3):
        f()
    return (time.perf_counter() - t) * 1000 / 3


n = a.n
print(f"conv layers at N = {n} frames, PyTorch {torch.__version__} eager, {torch.get_num_threads()} threads")
print(f"{'layer':<22} {'fwd ms':>10} {'dx ms':>10} {'dw ms':>10} {'GFLOP/s':>10}")
with torch.no_grad():
    for ci, co, hw in [(3, 64, 32), (64, 128, 32), (128, 256, 16), (256, 512, 8)]:
        x = torch.rand(n, ci, hw, hw)
        w = torch.rand(co, ci, 3, 3)
        g = torch.rand(n, co, hw, hw)
        fwd = tm(lambda: F.conv2d(x, w, None, 1, 1))
        dx = tm(lambda: conv2d_input(x.shape, w, g, 1, 1))
        dw = tm(lambda: conv2d_weight(x, w.shape, g, 1, 1))
        flop = 2.0 * n * co * ci * 9 * hw * hw
        print(f"{f'{ci}->{co} @{hw}x{hw}':<22} {fwd:>10.1f} {dx:>10.1f} {dw:>10.1f} {3 * flop / ((fwd + dx + dw) * 1e6):>10.1f}")

//! Per-layer conv timing on the flex CPU backend (prints numbers; not a test):
//! `cargo run --profile native -p wmlab-nn --example conv_bench [-- N]`
//! (`WMLAB_CONV_BENCH_OURS_ONLY=1`: only `crates/nn/src/conv.rs`'s kernels.)
//! For each 3×3 conv of the paper's ConvNet at N frames: forward, the input gradient (a transposed
//! conv, as burn's autodiff computes it) and the weight gradient, in ms and GFLOP/s.
//! `scripts/bench/bench-conv-torch.py` times the same three in PyTorch.

use std::time::Instant;

use burn::backend::Dispatch;
use burn::prelude::*;
use burn::tensor::Distribution;
use burn::tensor::module::{conv_transpose2d, conv2d, conv2d_weight_backward};
use burn::tensor::ops::{ConvOptions, ConvTransposeOptions};
use wmlab_nn::conv::Conv3x3Backend;

fn time<F: FnMut() -> f32>(mut f: F) -> f64 {
    f(); // warm-up
    let reps = 3;
    let t = Instant::now();
    let mut s = 0.0;
    for _ in 0..reps {
        s += f();
    }
    std::hint::black_box(s);
    t.elapsed().as_secs_f64() * 1000.0 / reps as f64
}

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(256);
    let device = Device::flex();
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    println!("conv layers at N = {n} frames, flex, {threads} threads available");
    println!("{:<22} {:>10} {:>10} {:>10} {:>10}", "layer, way", "fwd ms", "dx ms", "dw ms", "GFLOP/s");
    for (ci, co, hw) in [(3, 64, 32), (64, 128, 32), (128, 256, 16), (256, 512, 8)] {
        let x = Tensor::<4>::random([n, ci, hw, hw], Distribution::Default, &device);
        let w = Tensor::<4>::random([co, ci, 3, 3], Distribution::Default, &device);
        let g = Tensor::<4>::random([n, co, hw, hw], Distribution::Default, &device);
        let flop = 2.0 * (n * co * ci * 9 * hw * hw) as f64;
        let line = |way: &str, fwd: f64, dx: f64, dw: f64| {
            println!(
                "{:<22} {:>10.1} {:>10.1} {:>10.1} {:>10.1}",
                format!("{ci}->{co} @{hw}x{hw} {way}"),
                fwd,
                dx,
                dw,
                3.0 * flop / ((fwd + dx + dw) * 1e6)
            )
        };
        if std::env::var("WMLAB_CONV_BENCH_OURS_ONLY").is_err() {
            let first = |t: Tensor<4>| t.slice([0..1, 0..1, 0..1, 0..1]).into_scalar::<f32>();
            let opt = ConvOptions::new([1, 1], [1, 1], [1, 1], 1);
            let fwd = time(|| first(conv2d(x.clone(), w.clone(), None, opt.clone())));
            let transposed = ConvTransposeOptions::new([1, 1], [1, 1], [0, 0], [1, 1], 1);
            let dx = time(|| first(conv_transpose2d(g.clone(), w.clone(), None, transposed.clone())));
            let dw = time(|| first(conv2d_weight_backward(x.clone(), w.clone(), g.clone(), opt.clone())));
            line("burn", fwd, dx, dw);
        }
        let b = Tensor::<1>::zeros([co], &device);
        let d = |t: &Tensor<4>| t.clone().into_dispatch();
        let first = |t: burn::backend::DispatchTensor| {
            Tensor::<4>::from_dispatch(t).slice([0..1, 0..1, 0..1, 0..1]).into_scalar::<f32>()
        };
        let fwd = time(|| first(<Dispatch as Conv3x3Backend>::conv3x3(d(&x), d(&w), b.clone().into_dispatch(), false)));
        let dx = time(|| first(<Dispatch as Conv3x3Backend>::conv3x3_dx(d(&x), d(&w), d(&g))));
        let dw = time(|| first(<Dispatch as Conv3x3Backend>::conv3x3_dw(d(&x), d(&w), d(&g))));
        line("ours", fwd, dx, dw);
    }
}

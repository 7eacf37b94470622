//! The ConvNet's 3×3 convolutions (stride 1, padding 1) on burn's flex CPU backend, as im2col + one
//! GEMM per group of frames, forward and backward.
//!
//! Why: burn 0.22's flex backend computes a conv's weight gradient as a convolution whose "kernel" is
//! the whole output-gradient map (batch and channels swapped) and its input gradient as a transposed
//! convolution; on the paper's ConvNet at the paper's batch that made a training step 2–3× PyTorch
//! eager's (`crates/nn/examples/conv_bench.rs` against `scripts/bench/bench-conv-torch.py`). Here all three
//! products are plain matrix products over an im2col matrix laid out `[C_in·9, frames·H·W]`, done by
//! flex's own matmul (the `gemm` crate, AVX-512 with `native-fast`), the im2col matrix rebuilt in the
//! backward pass rather than kept. The groups (about 2 MB of im2col each) are spread over rayon's
//! threads, each thread building its group's matrix just before multiplying it, so the matrix is read
//! from cache: one GEMM over a 16 MB chunk split across the threads, after an im2col through memory,
//! gained only 1.2–1.5× from 4 to 16 threads (PyTorch 2.6–3×; an H200 machine's Xeon, 512 frames).
//!
//! It is a burn backend extension (`#[backend_extension]`): the [`Conv3x3Backend`] trait is
//! implemented for flex (the fast kernels), for burn's cubecl backends (wgpu, WebGPU in the browser,
//! CUDA: the [`gemm`] path, the same design from the backend's own tensor ops) and for `Autodiff<B>`
//! (the forward registers a backward step that calls the inner backend's gradient kernels).
//! [`conv3x3`] picks at run time from the tensor's device. Checkpoints are unchanged: the weights are
//! still a burn `Conv2d`'s.

use std::sync::atomic::{AtomicBool, Ordering};

use burn::backend::autodiff::Autodiff;
use burn::backend::autodiff::checkpoint::base::Checkpointer;
use burn::backend::autodiff::checkpoint::strategy::CheckpointStrategy;
use burn::backend::autodiff::grads::Gradients;
use burn::backend::autodiff::ops::{Backward, Ops, OpsKind};
use burn::backend::flex::FlexTensor;
use burn::backend::ops::{ConvOptions, ModuleOps};
use burn::backend::tensor::FloatTensor;
use burn::backend::{Backend, Dispatch, DispatchDevice, Flex, TensorMetadata, backend_extension};
use burn::nn::PaddingConfig2d;
use burn::nn::Relu;
use burn::nn::conv::Conv2d;
use burn::nn::pool::MaxPool2dConfig;
use burn::prelude::*;
use burn::tensor::{DType, IntDType};

fn options() -> ConvOptions<2> {
    ConvOptions::new([1, 1], [1, 1], [1, 1], 1)
}

/// A 3×3, stride-1, padding-1 convolution with bias, and its three gradients. The default bodies are
/// the [`gemm`] path built from the backend's own tensor ops (im2col views and batched matrix
/// products): what the GPU backends (burn's `Cube`: wgpu natively and WebGPU in the browser, CUDA) run.
#[backend_extension(Flex, Cube: cfg(any(feature = "wgpu", feature = "cuda")), Autodiff)]
pub trait Conv3x3Backend: Backend {
    /// `x [N, C_in, H, W]`, `w [C_out, C_in, 3, 3]`, `b [C_out]` → `[N, C_out, H, W]`, through a ReLU
    /// when `relu`.
    fn conv3x3(x: FloatTensor<Self>, w: FloatTensor<Self>, b: FloatTensor<Self>, relu: bool) -> FloatTensor<Self> {
        gemm::forward::<Self>(x, w, Some(b), relu)
    }
    /// Gradient of the input, given the output's gradient `g [N, C_out, H, W]`.
    fn conv3x3_dx(x: FloatTensor<Self>, w: FloatTensor<Self>, g: FloatTensor<Self>) -> FloatTensor<Self> {
        let _ = x;
        gemm::input_grad::<Self>(w, g)
    }
    /// Gradient of the weight.
    fn conv3x3_dw(x: FloatTensor<Self>, w: FloatTensor<Self>, g: FloatTensor<Self>) -> FloatTensor<Self> {
        let _ = w;
        gemm::weight_grad::<Self>(x, g)
    }
    /// Gradient of the bias (the output gradient summed over frames and pixels).
    fn conv3x3_db(g: FloatTensor<Self>) -> FloatTensor<Self> {
        sum_bias::<Self>(g)
    }
    /// `max_pool2d(relu(x))` with a 2×2 window and stride 2 (`[N, C, H, W]` → `[N, C, H/2, W/2]`).
    fn relu_max_pool2x2(x: FloatTensor<Self>) -> FloatTensor<Self> {
        burn_relu_max_pool::<Self>(x)
    }
    /// Gradient of [`relu_max_pool2x2`](Self::relu_max_pool2x2)'s input given its output's `g`: `g` goes
    /// to the first largest of each window when that is positive, 0 elsewhere.
    fn relu_max_pool2x2_dx(x: FloatTensor<Self>, g: FloatTensor<Self>) -> FloatTensor<Self> {
        burn_relu_max_pool_dx::<Self>(x, g)
    }
}

/// The convolution (and ReLU) in burn's ops.
fn burn_conv3x3<B: Backend>(x: FloatTensor<B>, w: FloatTensor<B>, b: FloatTensor<B>, relu: bool) -> FloatTensor<B> {
    let y = B::conv2d(x, w, Some(b), options());
    if relu { B::relu(y) } else { y }
}

/// `max_pool2d(relu(x))` in burn's ops.
fn burn_relu_max_pool<B: Backend>(x: FloatTensor<B>) -> FloatTensor<B> {
    B::max_pool2d(B::relu(x), [2, 2], [2, 2], [0, 0], [1, 1], false)
}

/// Its input gradient in burn's ops.
fn burn_relu_max_pool_dx<B: Backend>(x: FloatTensor<B>, g: FloatTensor<B>) -> FloatTensor<B> {
    let r = B::relu(x);
    let out = B::max_pool2d_with_indices(r.clone(), [2, 2], [2, 2], [0, 0], [1, 1], false, IntDType::I32);
    let dr = B::max_pool2d_with_indices_backward(r.clone(), [2, 2], [2, 2], [0, 0], [1, 1], false, g, out.indices);
    B::relu_backward(r, dr.x_grad)
}

/// The output gradient summed over frames and pixels: `[N, C, H, W]` → `[C]`.
fn sum_bias<B: Backend>(g: FloatTensor<B>) -> FloatTensor<B> {
    let [n, c, h, w] = g.shape().dims();
    // Pixels first (a contiguous run per frame and channel), then frames: two reductions.
    let g = B::float_sum_dim(B::float_reshape(g, [n, c, h * w].into()), 2);
    B::float_reshape(B::float_sum_dim(g, 0), [c].into())
}

/// Whether the flex kernels below apply: f32 on flex (other dtypes take burn's path).
fn flex_f32(t: &FlexTensor) -> bool {
    t.dtype() == DType::F32
}

/// The GPU backends' [`gemm`] path, run on flex instead of flex's own kernels (set by tests, which
/// check that path against burn's `Conv2d` without a GPU; each test binary is its own process).
pub static FLEX_RUNS_GEMM_PATH: AtomicBool = AtomicBool::new(false);

fn gemm_on_flex() -> bool {
    FLEX_RUNS_GEMM_PATH.load(Ordering::Relaxed)
}

impl Conv3x3Backend for Flex {
    fn conv3x3(x: FloatTensor<Self>, w: FloatTensor<Self>, b: FloatTensor<Self>, relu: bool) -> FloatTensor<Self> {
        if gemm_on_flex() {
            return gemm::forward::<Self>(x, w, Some(b), relu);
        }
        if !(flex_f32(&x) && flex_f32(&w) && flex_f32(&b)) {
            return burn_conv3x3::<Self>(x, w, b, relu);
        }
        kernels::forward(x, w, b, relu)
    }
    fn conv3x3_dx(x: FloatTensor<Self>, w: FloatTensor<Self>, g: FloatTensor<Self>) -> FloatTensor<Self> {
        if gemm_on_flex() {
            return gemm::input_grad::<Self>(w, g);
        }
        if !(flex_f32(&x) && flex_f32(&w) && flex_f32(&g)) {
            return Self::conv2d_x_backward(x, w, g, options());
        }
        kernels::input_grad(&x, w, g)
    }
    fn conv3x3_dw(x: FloatTensor<Self>, w: FloatTensor<Self>, g: FloatTensor<Self>) -> FloatTensor<Self> {
        if gemm_on_flex() {
            return gemm::weight_grad::<Self>(x, g);
        }
        if !(flex_f32(&x) && flex_f32(&w) && flex_f32(&g)) {
            return Self::conv2d_weight_backward(x, w, g, options());
        }
        kernels::weight_grad(x, &w, g)
    }
    fn conv3x3_db(g: FloatTensor<Self>) -> FloatTensor<Self> {
        if gemm_on_flex() || !flex_f32(&g) {
            return sum_bias::<Self>(g);
        }
        kernels::bias_grad(g)
    }
    fn relu_max_pool2x2(x: FloatTensor<Self>) -> FloatTensor<Self> {
        if !flex_f32(&x) {
            return burn_relu_max_pool::<Self>(x);
        }
        kernels::relu_max_pool(x)
    }
    fn relu_max_pool2x2_dx(x: FloatTensor<Self>, g: FloatTensor<Self>) -> FloatTensor<Self> {
        if !(flex_f32(&x) && flex_f32(&g)) {
            return burn_relu_max_pool_dx::<Self>(x, g);
        }
        kernels::relu_max_pool_dx(&x, g)
    }
}

/// The GPU backends take every default body: the [`gemm`] convolution and burn's pooling.
#[cfg(any(feature = "wgpu", feature = "cuda"))]
impl Conv3x3Backend for burn::backend::Cube {}

impl<B: Backend + Conv3x3Backend, C: CheckpointStrategy> Conv3x3Backend for Autodiff<B, C> {
    fn conv3x3(x: FloatTensor<Self>, w: FloatTensor<Self>, b: FloatTensor<Self>, relu: bool) -> FloatTensor<Self> {
        #[derive(Debug)]
        struct Conv3x3Backward;

        impl<B: Backend + Conv3x3Backend> Backward<B, 3> for Conv3x3Backward {
            /// The forward's input and weight, and the output when it went through the ReLU (its mask;
            /// the next layer keeps the same tensor as its input).
            type State = (FloatTensor<B>, FloatTensor<B>, Option<FloatTensor<B>>);

            fn backward(self, ops: Ops<Self::State, 3>, grads: &mut Gradients, _checkpointer: &mut Checkpointer) {
                let [node_x, node_w, node_b] = ops.parents;
                let g = grads.consume::<B>(&ops.node);
                let (x, w, y) = ops.state;
                let g = match y {
                    Some(y) => B::relu_backward(y, g),
                    None => g,
                };
                if let Some(node) = node_b {
                    grads.register::<B>(node.id, B::conv3x3_db(g.clone()));
                }
                if let Some(node) = node_x {
                    grads.register::<B>(node.id, B::conv3x3_dx(x.clone(), w.clone(), g.clone()));
                }
                if let Some(node) = node_w {
                    grads.register::<B>(node.id, B::conv3x3_dw(x, w, g));
                }
            }
        }

        match Conv3x3Backward.prepare::<C>([x.node(), w.node(), b.node()]).compute_bound().stateful() {
            OpsKind::Tracked(prep) => {
                let (xp, wp) = (x.into_primitive(), w.into_primitive());
                let out = B::conv3x3(xp.clone(), wp.clone(), b.into_primitive(), relu);
                prep.finish((xp, wp, relu.then(|| out.clone())), out)
            }
            OpsKind::UnTracked(prep) => {
                prep.finish(B::conv3x3(x.into_primitive(), w.into_primitive(), b.into_primitive(), relu))
            }
        }
    }

    fn relu_max_pool2x2(x: FloatTensor<Self>) -> FloatTensor<Self> {
        #[derive(Debug)]
        struct PoolBackward;

        impl<B: Backend + Conv3x3Backend> Backward<B, 1> for PoolBackward {
            /// The forward's input (the windows' maxima are found again from it).
            type State = FloatTensor<B>;

            fn backward(self, ops: Ops<Self::State, 1>, grads: &mut Gradients, _checkpointer: &mut Checkpointer) {
                let [node_x] = ops.parents;
                let g = grads.consume::<B>(&ops.node);
                if let Some(node) = node_x {
                    grads.register::<B>(node.id, B::relu_max_pool2x2_dx(ops.state, g));
                }
            }
        }

        match PoolBackward.prepare::<C>([x.node()]).compute_bound().stateful() {
            OpsKind::Tracked(prep) => {
                let xp = x.into_primitive();
                let out = B::relu_max_pool2x2(xp.clone());
                prep.finish(xp, out)
            }
            OpsKind::UnTracked(prep) => prep.finish(B::relu_max_pool2x2(x.into_primitive())),
        }
    }
}

/// Whether `conv` is a 3×3, stride-1, padding-1 convolution with a bias (the ConvNet's layers).
fn is_3x3_same(conv: &Conv2d) -> bool {
    conv.kernel_size == [3, 3]
        && conv.stride == [1, 1]
        && conv.dilation == [1, 1]
        && conv.groups == 1
        && conv.bias.is_some()
        && matches!(conv.padding, PaddingConfig2d::Explicit(1, 1, 1, 1))
}

/// Whether a tensor on `device` runs on flex (with or without autodiff).
pub fn is_flex(device: &Device) -> bool {
    matches!(device.clone().inner().as_dispatch(), DispatchDevice::Flex(_))
}

/// Whether a tensor on `device` runs on one of burn's cubecl backends (wgpu, WebGPU, CUDA), with or
/// without autodiff: those take the [`gemm`] convolution.
pub fn is_cube(device: &Device) -> bool {
    #[cfg(any(feature = "wgpu", feature = "cuda"))]
    {
        matches!(device.clone().inner().as_dispatch(), DispatchDevice::Cube(_))
    }
    #[cfg(not(any(feature = "wgpu", feature = "cuda")))]
    {
        let _ = device;
        false
    }
}

/// Whether [`conv3x3`] takes the kernels here (on by default): flex's own, or the [`gemm`] path on
/// the GPU backends. Off, every conv is burn's `Conv2d`: for benchmarks and tests that compare the
/// two in one process.
pub static FLEX_KERNELS: AtomicBool = AtomicBool::new(true);

/// Whether this layer and input take the kernels here.
fn ours(conv: &Conv2d, x: &Tensor<4>) -> bool {
    let device = x.device();
    FLEX_KERNELS.load(Ordering::Relaxed) && is_3x3_same(conv) && (is_flex(&device) || is_cube(&device))
}

fn dispatch_conv(conv: &Conv2d, x: Tensor<4>, relu: bool) -> Tensor<4> {
    let bias = conv.bias.as_ref().expect("checked by is_3x3_same");
    Tensor::from_dispatch(<Dispatch as Conv3x3Backend>::conv3x3(
        x.into_dispatch(),
        conv.weight.val().into_dispatch(),
        bias.val().into_dispatch(),
        relu,
    ))
}

/// `conv.forward(x)`: the im2col + GEMM kernels on flex, burn's own conv elsewhere.
pub fn conv3x3(conv: &Conv2d, x: Tensor<4>) -> Tensor<4> {
    if !ours(conv, &x) {
        return conv.forward(x);
    }
    dispatch_conv(conv, x, false)
}

/// `relu(conv.forward(x))`, the ReLU fused into the convolution on flex.
pub fn conv3x3_relu(conv: &Conv2d, x: Tensor<4>) -> Tensor<4> {
    if !ours(conv, &x) {
        return Relu::new().forward(conv.forward(x));
    }
    dispatch_conv(conv, x, true)
}

/// `max_pool_2x2(relu(conv.forward(x)))` (2×2 window, stride 2): on flex the ReLU and the pooling are
/// one pass forward and one backward (burn's pooling scatters its gradient into a zeroed tensor).
pub fn conv3x3_relu_pool(conv: &Conv2d, x: Tensor<4>) -> Tensor<4> {
    if !ours(conv, &x) {
        let y = Relu::new().forward(conv.forward(x));
        return MaxPool2dConfig::new([2, 2]).init().forward(y);
    }
    let y = dispatch_conv(conv, x, false);
    Tensor::from_dispatch(<Dispatch as Conv3x3Backend>::relu_max_pool2x2(y.into_dispatch()))
}

/// The convolution as batched matrix products over im2col matrices, built from any backend's own
/// tensor ops: what the GPU backends run (burn-cubecl's direct kernels without autotune compute the
/// weight gradient as a convolution with the whole output-gradient map as its kernel).
///
/// - Forward: the padded input is unfolded into a strided view `[N, C_in, H, W, 3, 3]` (no copy);
///   per group of frames one copy lays it out as `[nb, C_in·9, H·W]` and one matrix product with the
///   weight `[1, C_out, C_in·9]` (broadcast over the frames) gives `[nb, C_out, H·W]`.
/// - Input gradient: the same convolution of the output gradient with the weight transposed
///   (`[C_in, C_out]`) and flipped (3×3 "same" convolution is its own adjoint up to that).
/// - Weight gradient: per group, the im2col matrix laid out `[s, m·H·W, C_in·9]` and the output
///   gradient `[s, C_out, m·H·W]` (runs of `m` frames, so each product sums over about [`GEMM_K`]
///   terms and the `s` runs are parallel work), one batched product `[s, C_out, C_in·9]`, summed.
///
/// Groups keep each im2col matrix under [`group_floats`] (WebGPU's default binding limit is 128 MiB;
/// more, smaller groups cost more kernel launches, each still a large product).
pub mod gemm {
    use burn::backend::Backend;
    use burn::backend::TensorMetadata;
    use burn::backend::tensor::FloatTensor;
    use burn::tensor::ops::PadMode;
    use burn::tensor::{Shape, Slice};

    /// The terms each matrix product of the weight gradient sums over, about (frames × pixels).
    pub const GEMM_K: usize = 4096;

    /// Floats of one group's im2col matrix: 32 MiB in the browser (whose storage bindings default to
    /// 128 MiB), natively 64 MiB or `WMLAB_CONV_GROUP_MB` (a device refuses buffers over its own
    /// limit: lavapipe's is 128 MiB, a data-centre GPU's several GiB); [`GROUP_FLOATS`] overrides both
    /// when not 0 (tests take many groups).
    pub fn group_floats() -> usize {
        static NATIVE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
        match GROUP_FLOATS.load(std::sync::atomic::Ordering::Relaxed) {
            0 if cfg!(target_arch = "wasm32") => 8 << 20,
            0 => *NATIVE.get_or_init(|| {
                let mb = std::env::var("WMLAB_CONV_GROUP_MB").ok().and_then(|v| v.parse::<usize>().ok());
                mb.filter(|&m| m > 0).map_or(16 << 20, |m| m << 18)
            }),
            n => n,
        }
    }

    /// Floats of one group's im2col matrix, when not 0 (see [`group_floats`]).
    pub static GROUP_FLOATS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    fn dims4<B: Backend>(t: &FloatTensor<B>) -> [usize; 4] {
        let s = t.shape();
        [s[0], s[1], s[2], s[3]]
    }

    fn all(n: usize) -> Slice {
        Slice::from(0..n)
    }

    /// Frames per group for an im2col matrix of `k_p` floats a frame, a multiple of `m`.
    fn group_frames(k_p: usize, m: usize, n: usize) -> usize {
        let nb = (group_floats() / k_p.max(1)).max(1);
        let nb = (nb / m).max(1) * m;
        nb.min(n.div_ceil(m) * m)
    }

    /// The padded input's im2col view `[N, C, H, W, 3, 3]` (dims: frame, channel, row, column, tap
    /// row, tap column): no copy. (`unfold` puts the window last, as PyTorch's does.)
    fn taps<B: Backend>(xp: FloatTensor<B>) -> FloatTensor<B> {
        let u = B::float_unfold(xp, 2, 3, 1); // [N, C, H, W+2, 3]
        B::float_unfold(u, 3, 3, 1) // [N, C, H, W, 3, 3]
    }

    /// `x` padded by one pixel on each side.
    fn pad<B: Backend>(x: FloatTensor<B>) -> FloatTensor<B> {
        B::float_pad(x, &[(0, 0), (0, 0), (1, 1), (1, 1)], PadMode::Constant(0.0))
    }

    /// `x [N, C_in, H, W]` convolved with `w [C_out, C_in, 3, 3]` (plus `b [C_out]`, then a ReLU when
    /// `relu`).
    pub fn forward<B: Backend>(
        x: FloatTensor<B>,
        w: FloatTensor<B>,
        b: Option<FloatTensor<B>>,
        relu: bool,
    ) -> FloatTensor<B> {
        let [n, ci, h, wd] = dims4::<B>(&x);
        let co = w.shape()[0];
        let (k, p) = (ci * 9, h * wd);
        let w2 = B::float_reshape(w, Shape::from(vec![1, co, k]));
        let view = taps::<B>(pad::<B>(x));
        let nb = group_frames(k * p, 1, n);
        let mut parts = Vec::with_capacity(n.div_ceil(nb));
        for n0 in (0..n).step_by(nb) {
            let len = nb.min(n - n0);
            let v = if len == n {
                view.clone()
            } else {
                B::float_slice(view.clone(), &[Slice::from(n0..n0 + len), all(ci), all(h), all(wd), all(3), all(3)])
            };
            // [nb, C, 3, 3, H, W] → one copy into [nb, C·9, H·W]
            let col = B::float_reshape(B::float_permute(v, &[0, 1, 4, 5, 2, 3]), Shape::from(vec![len, k, p]));
            parts.push(B::float_matmul(w2.clone(), col)); // [nb, C_out, H·W]
        }
        let mut y = if parts.len() == 1 { parts.pop().expect("one part") } else { B::float_cat(parts, 0) };
        if let Some(b) = b {
            y = B::float_add(y, B::float_reshape(b, Shape::from(vec![1, co, 1])));
        }
        if relu {
            y = B::relu(y);
        }
        B::float_reshape(y, Shape::from(vec![n, co, h, wd]))
    }

    /// The input's gradient given the output's `g [N, C_out, H, W]` and the weight.
    pub fn input_grad<B: Backend>(w: FloatTensor<B>, g: FloatTensor<B>) -> FloatTensor<B> {
        // w'[ci, co, dy, dx] = w[co, ci, 2 − dy, 2 − dx]
        let wt = B::float_flip(B::float_permute(w, &[1, 0, 2, 3]), &[2, 3]);
        forward::<B>(g, wt, None, false)
    }

    /// The weight's gradient `[C_out, C_in, 3, 3]` given the input `x` and the output's gradient `g`.
    pub fn weight_grad<B: Backend>(x: FloatTensor<B>, g: FloatTensor<B>) -> FloatTensor<B> {
        let [n, ci, h, wd] = dims4::<B>(&x);
        let co = g.shape()[1];
        let (k, p) = (ci * 9, h * wd);
        // Runs of m frames per product, m the largest divisor of the frame count within about GEMM_K
        // terms (so that no zero frames are padded on: each pad is two kernels on the GPU backends).
        let most = (GEMM_K / p.max(1)).clamp(1, n.max(1));
        let m = (1..=most).rev().find(|m| n % m == 0).unwrap_or(1);
        let view = taps::<B>(pad::<B>(x));
        let nb = group_frames(k * p, m, n);
        let mut acc: Option<FloatTensor<B>> = None;
        for n0 in (0..n).step_by(nb) {
            let len = nb.min(n - n0);
            let s = len / m;
            let (v, gg) = if len == n {
                (view.clone(), g.clone())
            } else {
                let r = Slice::from(n0..n0 + len);
                (
                    B::float_slice(view.clone(), &[r, all(ci), all(h), all(wd), all(3), all(3)]),
                    B::float_slice(g.clone(), &[r, all(co), all(h), all(wd)]),
                )
            };
            // [nb, H, W, C, 3, 3] → one copy into [s, m·H·W, C·9]
            let col = B::float_reshape(B::float_permute(v, &[0, 2, 3, 1, 4, 5]), Shape::from(vec![s, m * p, k]));
            // [s, m, C_out, H·W] → [s, C_out, m, H·W] → one copy into [s, C_out, m·H·W]
            let gg = B::float_reshape(gg, Shape::from(vec![s, m, co, p]));
            let gg = B::float_reshape(B::float_permute(gg, &[0, 2, 1, 3]), Shape::from(vec![s, co, m * p]));
            let part = B::float_sum_dim(B::float_matmul(gg, col), 0); // [1, C_out, C·9]
            acc = Some(match acc {
                Some(a) => B::float_add(a, part),
                None => part,
            });
        }
        B::float_reshape(acc.expect("at least one frame"), Shape::from(vec![co, ci, 3, 3]))
    }
}

/// The flex kernels: plain Rust for the layout work (im2col, its adjoint, transposes), flex's matmul
/// for the products. Tensors `[N, C, H, W]` row-major; `p = H·W`; `K = C_in·9`. Per group of `nb`
/// frames the im2col matrix is `[K, nb·p]` (row `(ci, dy, dx)`, column `(frame, pixel)`) and the
/// output gradient is gathered channels-first `[C_out, nb·p]`, so each product is one GEMM:
/// forward `W·col`, weight gradient `col·Gᵀ` (transposed at the end), input gradient `Wᵀ·G` then col2im.
mod kernels {
    use std::borrow::Cow;

    use burn::backend::Flex;
    use burn::backend::flex::FlexTensor;
    use burn::backend::ops::FloatTensorOps;
    use burn::tensor::{Shape, TensorData};

    /// Floats of one group's im2col matrix (2 MB): a group of frames is one GEMM on one thread, its
    /// matrix built just before the GEMM reads it, so it is read from cache rather than memory.
    const GROUP_FLOATS: usize = 1 << 19;

    fn dims4(t: &FlexTensor) -> [usize; 4] {
        let s = t.layout().shape();
        [s[0], s[1], s[2], s[3]]
    }

    /// The tensor's floats in row-major order, borrowed when it is contiguous.
    fn floats(t: &FlexTensor) -> Cow<'_, [f32]> {
        match t.as_slice::<f32>() {
            Some(s) => Cow::Borrowed(s),
            None => Cow::Owned(t.to_contiguous().into_data().try_to_vec::<f32>().expect("flex f32 tensor")),
        }
    }

    fn tensor(v: Vec<f32>, shape: &[usize]) -> FlexTensor {
        FlexTensor::from_data(TensorData::new(v, Shape::from(shape.to_vec())))
    }

    /// A matrix buffer handed to flex's matmul and reused group after group on one thread: the matmul
    /// gets a shared handle, so once it returns the buffer is ours again (no allocation per group).
    struct Buffer {
        t: FlexTensor,
        rows: usize,
        cols: usize,
    }

    impl Buffer {
        fn new(rows: usize, cols: usize) -> Self {
            Buffer { t: tensor(vec![0.0; rows * cols], &[rows, cols]), rows, cols }
        }
        /// The buffer as `[rows, cols]` for writing (reallocated when the shape changes).
        fn write(&mut self, rows: usize, cols: usize) -> &mut [f32] {
            if (rows, cols) != (self.rows, self.cols) {
                *self = Buffer::new(rows, cols);
            }
            self.t.try_storage_mut::<f32>().map(|s| &mut s[..rows * cols]).expect("conv buffer shared after a matmul")
        }
        fn handle(&self) -> FlexTensor {
            self.t.clone()
        }
    }

    thread_local! {
        /// Each thread's two group matrices (im2col, gathered gradient), kept between calls.
        static BUFFERS: std::cell::RefCell<Option<[Buffer; 2]>> = const { std::cell::RefCell::new(None) };
    }

    /// `f` with this thread's group matrices, taken out of [`BUFFERS`] for the call: while the matmul
    /// inside waits on its own threads, rayon may run another group on this thread, which then finds
    /// none and makes its own (so no borrow is held across the matmul).
    fn with_buffers<R>(f: impl FnOnce(&mut [Buffer; 2]) -> R) -> R {
        let mut bufs = BUFFERS.with_borrow_mut(Option::take).unwrap_or_else(|| [Buffer::new(1, 1), Buffer::new(1, 1)]);
        let r = f(&mut bufs);
        BUFFERS.with_borrow_mut(|slot| {
            slot.get_or_insert(bufs);
        });
        r
    }

    /// `m [rows, cols]` transposed, contiguous.
    fn transposed(m: &[f32], rows: usize, cols: usize) -> Vec<f32> {
        let mut t = vec![0.0f32; rows * cols];
        for r in 0..rows {
            for c in 0..cols {
                t[c * rows + r] = m[r * cols + c];
            }
        }
        t
    }

    /// `a · b` (or `a · bᵀ`) with flex's matmul, the result's floats row-major.
    fn matmul(a: FlexTensor, b: FlexTensor, transpose_b: bool) -> FlexTensor {
        let b = if transpose_b { b.transpose(0, 1) } else { b };
        Flex::float_matmul(a, b)
    }

    /// Frames per group, so that a group's `[K, frames·p]` im2col matrix stays near [`GROUP_FLOATS`].
    fn group(k: usize, p: usize) -> usize {
        (GROUP_FLOATS / (k * p)).max(1)
    }

    /// im2col of frames `x[n0..n0+nb]` (each `[c, h, w]`) into `col [c·9, nb·p]`: row `(ci, dy, dx)`
    /// holds, for every frame and pixel `(y, x)`, `x[ci, y+dy-1, x+dx-1]` (0 outside).
    fn im2col(x: &[f32], [c, h, w]: [usize; 3], n0: usize, nb: usize, col: &mut [f32]) {
        let p = h * w;
        for (row, out) in col.chunks_exact_mut(nb * p).enumerate() {
            let (ci, dy, dx) = (row / 9, row % 9 / 3, row % 3);
            for f in 0..nb {
                let plane = &x[((n0 + f) * c + ci) * p..][..p];
                shift_copy(plane, &mut out[f * p..][..p], h, w, dy, dx);
            }
        }
    }

    /// `out[y, x] = plane[y+dy-1, x+dx-1]`, 0 outside.
    fn shift_copy(plane: &[f32], out: &mut [f32], h: usize, w: usize, dy: usize, dx: usize) {
        let (y0, y1) = (usize::from(dy == 0), h - usize::from(dy == 2));
        let (x0, x1) = (usize::from(dx == 0), w - usize::from(dx == 2));
        out[..y0 * w].fill(0.0);
        out[y1 * w..].fill(0.0);
        for y in y0..y1 {
            let sy = y + dy - 1;
            let row = &mut out[y * w..][..w];
            row[..x0].fill(0.0);
            row[x1..].fill(0.0);
            row[x0..x1].copy_from_slice(&plane[sy * w + x0 + dx - 1..][..x1 - x0]);
        }
    }

    /// `g[n0..n0+nb]` (`[nb, co, p]`) as `[co, nb·p]` into `out`.
    fn gather_channels_first(g: &[f32], co: usize, p: usize, n0: usize, nb: usize, out: &mut [f32]) {
        for (o, row) in out.chunks_exact_mut(nb * p).enumerate() {
            for f in 0..nb {
                row[f * p..][..p].copy_from_slice(&g[((n0 + f) * co + o) * p..][..p]);
            }
        }
    }

    /// The forward pass one group of frames at a time, the groups spread over the threads (why: the
    /// module's documentation).
    pub(super) fn forward(x: FlexTensor, w: FlexTensor, b: FlexTensor, relu: bool) -> FlexTensor {
        let [n, c, h, wd] = dims4(&x);
        let co = dims4(&w)[0];
        let (p, k) = (h * wd, c * 9);
        let (xs, bs) = (floats(&x), floats(&b));
        let w = w.reshape(Shape::from(vec![co, k]));
        let mut y = vec![0.0f32; n * co * p];
        let g = group(k, p);
        super::par_rows(&mut y, g * co * p, |gi, part| {
            let (n0, nb) = (gi * g, part.len() / (co * p));
            // [co, K] · [K, nb·p] → [co, nb·p]
            let out = with_buffers(|[col, _]| {
                im2col(&xs, [c, h, wd], n0, nb, col.write(k, nb * p));
                matmul(w.clone(), col.handle(), false)
            });
            let out = floats(&out);
            for (f, frame) in part.chunks_exact_mut(co * p).enumerate() {
                for (o, plane) in frame.chunks_exact_mut(p).enumerate() {
                    let bias = bs[o];
                    let src = &out[(o * nb + f) * p..][..p];
                    if relu {
                        for (d, s) in plane.iter_mut().zip(src) {
                            *d = (s + bias).max(0.0);
                        }
                    } else {
                        for (d, s) in plane.iter_mut().zip(src) {
                            *d = s + bias;
                        }
                    }
                }
            }
        });
        tensor(y, &[n, co, h, wd])
    }

    /// The weight gradient, group by group as [`forward`]: the groups' products summed by
    /// [`super::par_sum`] (fixed runs, so the bits do not depend on the thread count).
    pub(super) fn weight_grad(x: FlexTensor, w: &FlexTensor, g: FlexTensor) -> FlexTensor {
        let [n, c, h, wd] = dims4(&x);
        let co = dims4(w)[0];
        let (p, k) = (h * wd, c * 9);
        let (xs, gs) = (floats(&x), floats(&g));
        // (at least 1,024 columns a group: each group's product is added into a `[K, co]` sum, which
        // for the deep layers' small planes would otherwise cost as much as the product)
        let size = group(k, p).max(1024usize.div_ceil(p));
        let dw = super::par_sum(n.div_ceil(size), k * co, |gi, acc| {
            let (n0, nb) = (gi * size, size.min(n - gi * size));
            // [K, nb·p] · [co, nb·p]ᵀ → dwᵀ [K, co]
            let part = with_buffers(|[col, gc]| {
                im2col(&xs, [c, h, wd], n0, nb, col.write(k, nb * p));
                gather_channels_first(&gs, co, p, n0, nb, gc.write(co, nb * p));
                matmul(col.handle(), gc.handle(), true)
            });
            for (d, s) in acc.iter_mut().zip(floats(&part).iter()) {
                *d += s;
            }
        });
        // dwᵀ [K, co] → dw [co, K]
        tensor(transposed(&dw, k, co), &[co, c, 3, 3])
    }

    /// The input gradient as `dcol = Wᵀ·G` (one GEMM per group of frames, whose streamed operand, `G`,
    /// is used `C_in·9` times per element) and col2im: each input plane is its 9 shifted `dcol` rows
    /// summed. (Faster on flex than the other way, the same conv of `G` with the flipped, transposed
    /// weight: the comparison is in docs/learning.md.)
    pub(super) fn input_grad(x: &FlexTensor, w: FlexTensor, g: FlexTensor) -> FlexTensor {
        let [n, c, h, wd] = dims4(x);
        let co = dims4(&w)[0];
        let (p, k) = (h * wd, c * 9);
        let gs = floats(&g);
        // wᵀ [K, co], contiguous.
        let wt = tensor(transposed(&floats(&w), co, k), &[k, co]);
        let mut dx = vec![0.0f32; n * c * p];
        let size = group(k, p);
        super::par_rows(&mut dx, size * c * p, |gi, part| {
            let (n0, nb) = (gi * size, part.len() / (c * p));
            // [K, co] · [co, nb·p] → dcol [K, nb·p], then col2im into dx
            let dcol = with_buffers(|[_, gc]| {
                gather_channels_first(&gs, co, p, n0, nb, gc.write(co, nb * p));
                matmul(wt.clone(), gc.handle(), false)
            });
            let dcol = floats(&dcol);
            for (plane_index, plane) in part.chunks_exact_mut(p).enumerate() {
                let (f, ci) = (plane_index / c, plane_index % c);
                let row = |t: usize| &dcol[(ci * 9 + t) * nb * p + f * p..][..p];
                // The centre tap covers every pixel: it sets the plane, the 8 others add to it.
                plane.copy_from_slice(row(4));
                for t in (0..9).filter(|&t| t != 4) {
                    shift_add(row(t), plane, h, wd, t / 3, t % 3);
                }
            }
        });
        tensor(dx, &[n, c, h, wd])
    }

    /// The adjoint of [`shift_copy`]: `plane[y+dy-1, x+dx-1] += row[y, x]`.
    fn shift_add(row: &[f32], plane: &mut [f32], h: usize, w: usize, dy: usize, dx: usize) {
        let (y0, y1) = (usize::from(dy == 0), h - usize::from(dy == 2));
        let (x0, x1) = (usize::from(dx == 0), w - usize::from(dx == 2));
        for y in y0..y1 {
            let sy = y + dy - 1;
            let dst = &mut plane[sy * w + x0 + dx - 1..][..x1 - x0];
            for (d, s) in dst.iter_mut().zip(&row[y * w + x0..y * w + x1]) {
                *d += s;
            }
        }
    }

    /// `max_pool_2x2(relu(x))`, one pass over planes; odd last rows/columns are dropped (as burn's
    /// floor mode).
    pub(super) fn relu_max_pool(x: FlexTensor) -> FlexTensor {
        let [n, c, h, w] = dims4(&x);
        let (oh, ow) = (h / 2, w / 2);
        let xs = floats(&x);
        let mut y = vec![0.0f32; n * c * oh * ow];
        if oh * ow > 0 {
            super::par_rows(&mut y, oh * ow, |plane, out| {
                let src = &xs[plane * h * w..][..h * w];
                for i in 0..oh {
                    let (r0, r1) = (&src[2 * i * w..][..w], &src[(2 * i + 1) * w..][..w]);
                    for (j, o) in out[i * ow..][..ow].iter_mut().enumerate() {
                        *o = r0[2 * j].max(r0[2 * j + 1]).max(r1[2 * j]).max(r1[2 * j + 1]).max(0.0);
                    }
                }
            });
        }
        tensor(y, &[n, c, oh, ow])
    }

    /// The input gradient of [`relu_max_pool`]: each window's `g` to its first largest input when that
    /// is positive; every other input of the window gets 0 (each window written whole, not scattered
    /// into zeros; an odd last row or column, in no window, stays 0).
    pub(super) fn relu_max_pool_dx(x: &FlexTensor, g: FlexTensor) -> FlexTensor {
        let [n, c, h, w] = dims4(x);
        let (oh, ow) = (h / 2, w / 2);
        let (xs, gs) = (floats(x), floats(&g));
        let mut dx = vec![0.0f32; n * c * h * w];
        super::par_rows(&mut dx, h * w, |plane, out| {
            let src = &xs[plane * h * w..][..h * w];
            let gp = &gs[plane * oh * ow..][..oh * ow];
            for i in 0..oh {
                for j in 0..ow {
                    let taps = [
                        (2 * i) * w + 2 * j,
                        (2 * i) * w + 2 * j + 1,
                        (2 * i + 1) * w + 2 * j,
                        (2 * i + 1) * w + 2 * j + 1,
                    ];
                    let mut best = taps[0];
                    for &t in &taps[1..] {
                        if src[t] > src[best] {
                            best = t;
                        }
                    }
                    let grad = if src[best] > 0.0 { gp[i * ow + j] } else { 0.0 };
                    for t in taps {
                        out[t] = if t == best { grad } else { 0.0 };
                    }
                }
            }
        });
        tensor(dx, &[n, c, h, w])
    }

    pub(super) fn bias_grad(g: FlexTensor) -> FlexTensor {
        let [n, co, h, wd] = dims4(&g);
        let p = h * wd;
        let gs = floats(&g);
        let mut db = vec![0.0f32; co];
        // One channel per task: its planes summed over the frames (in f64).
        super::par_rows(&mut db, 1, |o, out| {
            let sum: f64 = (0..n).map(|f| gs[(f * co + o) * p..][..p].iter().map(|&v| f64::from(v)).sum::<f64>()).sum();
            out[0] = sum as f32;
        });
        tensor(db, &[co])
    }
}

/// `f(i, row)` for every `len`-long row of `data` (the last may be shorter), on rayon's threads where
/// the crate has them.
fn par_rows<F: Fn(usize, &mut [f32]) + Sync + Send>(data: &mut [f32], len: usize, f: F) {
    #[cfg(feature = "threads")]
    {
        use rayon::prelude::*;
        data.par_chunks_mut(len).enumerate().for_each(|(i, row)| f(i, row));
    }
    #[cfg(not(feature = "threads"))]
    for (i, row) in data.chunks_mut(len).enumerate() {
        f(i, row);
    }
}

/// Runs the sum of [`par_sum`] is split into: a fixed number, so its rounding does not depend on the
/// thread count (a run resumed with other threads repeats its steps bit for bit on the same CPU; gemm's
/// blocking still follows the CPU's caches and instruction set).
const SUM_RUNS: usize = 16;

/// The sum over `i in 0..count` of what `f(i, acc)` adds into a zeroed `acc` of `len` floats: the `i`s
/// cut into [`SUM_RUNS`] contiguous runs, each summed into its own `acc` (on rayon's threads where the
/// crate has them), and those added in order.
fn par_sum<F: Fn(usize, &mut [f32]) + Sync + Send>(count: usize, len: usize, f: F) -> Vec<f32> {
    let per = count.div_ceil(SUM_RUNS).max(1);
    let run = |r: usize| {
        let mut acc = vec![0.0f32; len];
        for i in r * per..((r + 1) * per).min(count) {
            f(i, &mut acc);
        }
        acc
    };
    let runs = count.div_ceil(per);
    #[cfg(feature = "threads")]
    let parts: Vec<Vec<f32>> = {
        use rayon::prelude::*;
        (0..runs).into_par_iter().map(run).collect()
    };
    #[cfg(not(feature = "threads"))]
    let parts: Vec<Vec<f32>> = (0..runs).map(run).collect();
    let mut parts = parts.into_iter();
    let mut sum = parts.next().unwrap_or_else(|| vec![0.0f32; len]);
    for p in parts {
        for (x, y) in sum.iter_mut().zip(&p) {
            *x += y;
        }
    }
    sum
}

//! The LSTM's recurrence as two kernels of our own on burn's cubecl backends (wgpu natively, WebGPU
//! in the tab, CUDA): one for the forward pass over all steps, one for the backward pass over all
//! steps. The recurrence of one trial depends on no other trial, so one cube of threads takes one
//! trial and walks its steps in order, synchronising its threads between steps; each thread owns the
//! hidden units `u, u + dim, u + 2·dim, …`. The step's hidden state (forward) or its gate gradients
//! (backward) sit in shared memory, where every thread of the cube reads them for its product with
//! the hidden weight. Everything else (the input projections before, the hidden weight's gradient
//! after) stays in burn's matrix products.
//!
//! The arithmetic is the ops path's (`lstm.rs`, `forward` and `backward`), in the same order; only the
//! sums of the products run in another order, so the two agree to float rounding
//! (`tests/gpu_parity.rs`).

use burn::backend::ops::FloatTensorOps;
use burn::backend::tensor::FloatTensor;
use burn::tensor::{DType, Shape};
use burn_cubecl::CubeBackend;
use burn_cubecl::kernel::into_contiguous;
use burn_cubecl::ops::numeric::empty_device_contiguous_dtype;
use burn_cubecl::tensor::CubeTensor;
use cubecl::ir::{ElemType, FloatKind};
use cubecl::prelude::*;

use crate::lstm::LstmBackend;

/// The largest hidden size the kernels take: the backward kernel keeps a step's four gate gradients
/// (4·C floats) in shared memory, and WebGPU promises 16 KiB of it. Larger memories run the ops path.
const MAX_HIDDEN: usize = 1024;

/// At most this many threads a cube (each takes every `dim`-th hidden unit).
const MAX_THREADS: usize = 256;

#[cube]
fn sigmoid<F: Float>(x: F) -> F {
    F::new(1.0) / (F::new(1.0) + (F::new(0.0) - x).exp())
}

/// One cube per trial `b`: `xp [T·B, 4C]`, `wh [C, 4C]` → `hs`, `cs [T·B, C]` and `gates [T·B, 4C]`
/// (all contiguous, time-major).
#[cube(launch)]
fn lstm_forward_kernel<F: Float>(
    xp: &Tensor<F>,
    wh: &Tensor<F>,
    hs: &mut Tensor<F>,
    cs: &mut Tensor<F>,
    gates: &mut Tensor<F>,
    batch: u32,
    steps: u32,
    #[comptime] c: usize,
    #[define(F)] _dtype: ElemType,
) {
    let b = CUBE_POS_X as usize;
    let nb = batch as usize;
    let dim = CUBE_DIM_X as usize;
    let c4 = 4 * c;
    let mut h = Shared::<[F]>::new_slice(c);
    let mut u = UNIT_POS_X as usize;
    while u < c {
        h[u] = F::new(0.0);
        u += dim;
    }
    sync_cube();
    for t in 0..steps as usize {
        let row = t * nb + b;
        let mut u = UNIT_POS_X as usize;
        while u < c {
            let x = row * c4 + u;
            let mut a_i = F::new(0.0);
            let mut a_f = F::new(0.0);
            let mut a_o = F::new(0.0);
            let mut a_g = F::new(0.0);
            for k in 0..c {
                let hk = h[k];
                let w = k * c4 + u;
                a_i += hk * wh[w];
                a_f += hk * wh[w + c];
                a_o += hk * wh[w + 2 * c];
                a_g += hk * wh[w + 3 * c];
            }
            let i = sigmoid::<F>(xp[x] + a_i);
            let f = sigmoid::<F>(xp[x + c] + a_f);
            let o = sigmoid::<F>(xp[x + 2 * c] + a_o);
            let g = (xp[x + 3 * c] + a_g).tanh();
            let c_prev = if t > 0 { cs[(row - nb) * c + u] } else { F::new(0.0) };
            let c_new = f * c_prev + i * g;
            hs[row * c + u] = o * c_new.tanh();
            cs[row * c + u] = c_new;
            gates[x] = i;
            gates[x + c] = f;
            gates[x + 2 * c] = o;
            gates[x + 3 * c] = g;
            u += dim;
        }
        // Every thread has read the old hidden state: publish the new one.
        sync_cube();
        let mut u = UNIT_POS_X as usize;
        while u < c {
            h[u] = hs[row * c + u];
            u += dim;
        }
        sync_cube();
    }
}

/// One cube per trial `b`, the steps backwards: `dhs`, `cs [T·B, C]`, `gates [T·B, 4C]`,
/// `wht [4C, C]` (the hidden weight transposed) → the gate gradients `dg [T·B, 4C]`. `carry [B, 2C]`
/// holds each unit's gradients arriving from the later step (hidden, then cell), written and read by
/// the unit's own thread only.
#[cube(launch)]
fn lstm_backward_kernel<F: Float>(
    dhs: &Tensor<F>,
    gates: &Tensor<F>,
    cs: &Tensor<F>,
    wht: &Tensor<F>,
    dg: &mut Tensor<F>,
    carry: &mut Tensor<F>,
    batch: u32,
    steps: u32,
    #[comptime] c: usize,
    #[define(F)] _dtype: ElemType,
) {
    let b = CUBE_POS_X as usize;
    let nb = batch as usize;
    let dim = CUBE_DIM_X as usize;
    let c4 = 4 * c;
    let dh_at = b * 2 * c;
    let dc_at = dh_at + c;
    let mut d = Shared::<[F]>::new_slice(4 * c);
    let mut u = UNIT_POS_X as usize;
    while u < c {
        carry[dh_at + u] = F::new(0.0);
        carry[dc_at + u] = F::new(0.0);
        u += dim;
    }
    let n = steps as usize;
    for s in 0..n {
        let t = n - 1 - s;
        let row = t * nb + b;
        let mut u = UNIT_POS_X as usize;
        while u < c {
            let x = row * c4 + u;
            let i = gates[x];
            let f = gates[x + c];
            let o = gates[x + 2 * c];
            let g = gates[x + 3 * c];
            let tc = cs[row * c + u].tanh();
            let c_prev = if t > 0 { cs[(row - nb) * c + u] } else { F::new(0.0) };
            let dh = dhs[row * c + u] + carry[dh_at + u];
            let dc = dh * o * (F::new(1.0) - tc * tc) + carry[dc_at + u];
            carry[dc_at + u] = dc * f;
            let d_i = dc * g * (i * (F::new(1.0) - i));
            let d_f = dc * c_prev * (f * (F::new(1.0) - f));
            let d_o = dh * tc * (o * (F::new(1.0) - o));
            let d_g = dc * i * (F::new(1.0) - g * g);
            dg[x] = d_i;
            dg[x + c] = d_f;
            dg[x + 2 * c] = d_o;
            dg[x + 3 * c] = d_g;
            d[u] = d_i;
            d[u + c] = d_f;
            d[u + 2 * c] = d_o;
            d[u + 3 * c] = d_g;
            u += dim;
        }
        sync_cube();
        // The hidden gradient the earlier step receives: this step's gate gradients times whᵀ.
        let mut u = UNIT_POS_X as usize;
        while u < c {
            let mut acc = F::new(0.0);
            for k in 0..c4 {
                acc += d[k] * wht[k * c + u];
            }
            carry[dh_at + u] = acc;
            u += dim;
        }
        sync_cube();
    }
}

/// Whether the kernels take these tensors: 32-bit floats, a hidden size they hold in shared memory.
fn fits(xp: &CubeTensor, hidden: usize, batch: usize) -> bool {
    xp.dtype == DType::F32 && (1..=MAX_HIDDEN).contains(&hidden) && batch > 0
}

fn threads(t: &CubeTensor, hidden: usize) -> u32 {
    let hw = t.client.properties().hardware.max_cube_dim.0 as usize;
    hidden.min(MAX_THREADS).min(hw.max(1)) as u32
}

fn f32_type() -> ElemType {
    ElemType::Float(FloatKind::F32)
}

fn empty(like: &CubeTensor, dims: [usize; 2]) -> CubeTensor {
    empty_device_contiguous_dtype(like.client.clone(), like.device.clone(), Shape::new(dims), like.dtype)
}

impl LstmBackend for CubeBackend {
    fn lstm_forward(
        xp: FloatTensor<Self>,
        wh: FloatTensor<Self>,
        batch: usize,
    ) -> (FloatTensor<Self>, FloatTensor<Self>, FloatTensor<Self>) {
        let [rows, c4] = xp.meta.shape().dims::<2>();
        let c = c4 / 4;
        if !fits(&xp, c, batch) || rows % batch != 0 {
            return crate::lstm::forward::<Self>(xp, wh, batch);
        }
        let (xp, wh) = (into_contiguous(xp), into_contiguous(wh));
        let (hs, cs, gates) = (empty(&xp, [rows, c]), empty(&xp, [rows, c]), empty(&xp, [rows, c4]));
        let dim = threads(&xp, c);
        lstm_forward_kernel::launch(
            &xp.client,
            CubeCount::Static(batch as u32, 1, 1),
            CubeDim::new_1d(dim),
            xp.clone().into_tensor_arg(),
            wh.into_tensor_arg(),
            hs.clone().into_tensor_arg(),
            cs.clone().into_tensor_arg(),
            gates.clone().into_tensor_arg(),
            batch as u32,
            (rows / batch) as u32,
            c,
            f32_type(),
        );
        (hs, cs, gates)
    }

    fn lstm_backward(
        dhs: FloatTensor<Self>,
        gates: FloatTensor<Self>,
        cells: FloatTensor<Self>,
        wh: FloatTensor<Self>,
        batch: usize,
    ) -> FloatTensor<Self> {
        let [rows, c] = dhs.meta.shape().dims::<2>();
        if !fits(&dhs, c, batch) || rows % batch != 0 {
            return crate::lstm::backward::<Self>(dhs, gates, cells, wh, batch);
        }
        let wht = into_contiguous(Self::float_transpose(wh));
        let (dhs, gates, cells) = (into_contiguous(dhs), into_contiguous(gates), into_contiguous(cells));
        let dg = empty(&dhs, [rows, 4 * c]);
        let carry = empty(&dhs, [batch, 2 * c]);
        let dim = threads(&dhs, c);
        lstm_backward_kernel::launch(
            &dhs.client,
            CubeCount::Static(batch as u32, 1, 1),
            CubeDim::new_1d(dim),
            dhs.clone().into_tensor_arg(),
            gates.into_tensor_arg(),
            cells.into_tensor_arg(),
            wht.into_tensor_arg(),
            dg.clone().into_tensor_arg(),
            carry.into_tensor_arg(),
            batch as u32,
            (rows / batch) as u32,
            c,
            f32_type(),
        );
        dg
    }
}

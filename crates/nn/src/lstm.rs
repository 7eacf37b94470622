//! The LSTM's recurrence as one differentiable operation with its own backward pass (backpropagation
//! through time written out), so that a step costs a few device operations instead of the ~30 that
//! burn's `Lstm` records (and autodiff then doubles).
//!
//! [`lstm_sequence`] takes the input projections of every step and gate, already computed by one
//! matrix product before the loop (`xp [T·B, 4C]`, bias included, time-major: every step a contiguous
//! block of rows, so that no step copies its slice), and the hidden weights of the four gates side by
//! side (`wh [C, 4C]`, gate order input, forget, output, cell), and returns the hidden states `[T·B, C]`
//! (time-major too) from a zero initial state. Per step forward: one matrix product with the
//! hidden state, one elementwise pass that makes the four activations, the cell and hidden updates. Per step backward: the
//! four gate gradients side by side in one tensor and one product with `whᵀ`; the hidden weight's
//! gradient is one product over all steps at the end.
//!
//! A backend extension ([`LstmBackend`]) of two operations, the forward recurrence (hidden states,
//! cell states and the four activations of every step) and the backward one (the gate gradients of
//! every step): on flex their default bodies run the loop above with flex's own ops; on burn's cubecl
//! backends (wgpu, WebGPU in the tab, CUDA) each is **one kernel** (`lstm_kernel.rs`: one cube of
//! threads per trial walks all the steps, the hidden state in shared memory), so that the recurrence
//! costs two launches a training step instead of five a time step. Under burn's fusion each is one
//! deferred operation. The `Autodiff` implementation ties them together.

use burn::backend::autodiff::Autodiff;
use burn::backend::autodiff::checkpoint::base::Checkpointer;
use burn::backend::autodiff::checkpoint::strategy::CheckpointStrategy;
use burn::backend::autodiff::grads::Gradients;
use burn::backend::autodiff::ops::{Backward, Ops, OpsKind};
use burn::backend::tensor::FloatTensor;
use burn::backend::{Backend, Dispatch, Flex, TensorMetadata, backend_extension};
use burn::prelude::*;
use burn::tensor::{Shape, Slice};

/// The recurrence of an LSTM over a sequence (see the module's doc).
#[backend_extension(
    Flex,
    Cube: cfg(any(feature = "wgpu", feature = "cuda")),
    Fusion: cfg(all(feature = "fusion", any(feature = "wgpu", feature = "cuda"))),
    Autodiff
)]
pub trait LstmBackend: Backend {
    /// `xp [T·B, 4C]` (time-major: the rows of step 0, then of step 1, …), `wh [C, 4C]`, the batch
    /// size `B` → the hidden states `[T·B, C]`, time-major.
    #[fusion(default)]
    fn lstm_sequence(xp: FloatTensor<Self>, wh: FloatTensor<Self>, batch: usize) -> FloatTensor<Self> {
        Self::lstm_forward(xp, wh, batch).0
    }

    /// The forward recurrence: the hidden states `[T·B, C]`, the cell states `[T·B, C]` and the four
    /// activations side by side `[T·B, 4C]` (input, forget, output gate, cell candidate), time-major.
    #[fusion(meta = forward_meta)]
    fn lstm_forward(
        xp: FloatTensor<Self>,
        wh: FloatTensor<Self>,
        batch: usize,
    ) -> (FloatTensor<Self>, FloatTensor<Self>, FloatTensor<Self>) {
        forward::<Self>(xp, wh, batch)
    }

    /// The backward recurrence: the gate gradients `[T·B, 4C]` (the gradient of `xp`) from the hidden
    /// states' gradient `dhs [T·B, C]` and the forward's activations and cell states.
    #[fusion(meta = backward_meta)]
    fn lstm_backward(
        dhs: FloatTensor<Self>,
        gates: FloatTensor<Self>,
        cells: FloatTensor<Self>,
        wh: FloatTensor<Self>,
        batch: usize,
    ) -> FloatTensor<Self> {
        backward::<Self>(dhs, gates, cells, wh, batch)
    }
}

#[cfg(all(feature = "fusion", any(feature = "wgpu", feature = "cuda")))]
use burn::backend::fusion::custom::TensorSpec;

#[cfg(all(feature = "fusion", any(feature = "wgpu", feature = "cuda")))]
fn forward_meta(xp: &TensorSpec, _wh: &TensorSpec, _batch: &usize) -> (TensorSpec, TensorSpec, TensorSpec) {
    let (rows, c) = (xp.shape[0], xp.shape[1] / 4);
    let narrow = TensorSpec::new(shape(&[rows, c]), xp.dtype);
    (narrow.clone(), narrow, xp.clone())
}

#[cfg(all(feature = "fusion", any(feature = "wgpu", feature = "cuda")))]
fn backward_meta(
    _dhs: &TensorSpec,
    gates: &TensorSpec,
    _cells: &TensorSpec,
    _wh: &TensorSpec,
    _batch: &usize,
) -> TensorSpec {
    gates.clone()
}

impl LstmBackend for Flex {}

fn shape(dims: &[usize]) -> Shape {
    Shape::from(dims.to_vec())
}

fn all(n: usize) -> Slice {
    Slice::from(0..n)
}

/// `[B, C]` columns `k·C .. (k+1)·C` of a `[B, 4C]` tensor (a view).
fn block<B: Backend>(t: &FloatTensor<B>, k: usize, b: usize, c: usize) -> FloatTensor<B> {
    B::float_slice(t.clone(), &[all(b), Slice::from(k * c..(k + 1) * c)])
}

/// Step `k` of a time-major `[T·B, W]` tensor: rows `k·B .. (k+1)·B`, a contiguous view (no copy).
fn step<B: Backend>(x: &FloatTensor<B>, k: usize, b: usize) -> FloatTensor<B> {
    let w = x.shape()[1];
    B::float_slice(x.clone(), &[Slice::from(k * b..(k + 1) * b), all(w)])
}

fn cat_steps<B: Backend>(mut parts: Vec<FloatTensor<B>>) -> FloatTensor<B> {
    if parts.len() == 1 { parts.pop().expect("one step") } else { B::float_cat(parts, 0) }
}

/// The forward pass with the backend's own ops on time-major inputs `xp [T·B, 4C]`: the hidden states,
/// the cell states and the activations (see [`LstmBackend::lstm_forward`]).
pub(crate) fn forward<B: Backend>(
    xp: FloatTensor<B>,
    wh: FloatTensor<B>,
    b: usize,
) -> (FloatTensor<B>, FloatTensor<B>, FloatTensor<B>) {
    let dims = xp.shape();
    let (t, c) = (dims[0] / b, dims[1] / 4);
    let dtype = xp.dtype().into();
    let device = xp.device();
    let mut cell = B::float_zeros(shape(&[b, c]), &device, dtype);
    let mut hidden: Option<FloatTensor<B>> = None;
    let (mut outs, mut cells, mut acts) = (Vec::with_capacity(t), Vec::with_capacity(t), Vec::with_capacity(t));
    for k in 0..t {
        // Each gate's pre-activation from the blocks of the step's input projection and of the product
        // with the hidden state (views), so that the whole step after the product is one elementwise pass.
        let x = step::<B>(&xp, k, b);
        let rec = hidden.as_ref().map(|h| B::float_matmul(h.clone(), wh.clone()));
        let pre = |j: usize| match &rec {
            Some(r) => B::float_add(block::<B>(&x, j, b, c), block::<B>(r, j, b, c)),
            None => block::<B>(&x, j, b, c),
        };
        let (i, f, og, cand) = (B::sigmoid(pre(0)), B::sigmoid(pre(1)), B::sigmoid(pre(2)), B::float_tanh(pre(3)));
        let c_new = B::float_add(B::float_mul(f.clone(), cell), B::float_mul(i.clone(), cand.clone()));
        let h = B::float_mul(og.clone(), B::float_tanh(c_new.clone()));
        acts.push(B::float_cat(vec![i, f, og, cand], 1));
        cells.push(c_new.clone());
        outs.push(h.clone());
        cell = c_new;
        hidden = Some(h);
    }
    (cat_steps::<B>(outs), cat_steps::<B>(cells), cat_steps::<B>(acts))
}

/// The backward pass with the backend's own ops: the gate gradients `[T·B, 4C]` (time-major, as the
/// forward's) given the hidden states' gradient `dhs [T·B, C]`.
pub(crate) fn backward<B: Backend>(
    dhs: FloatTensor<B>,
    gates: FloatTensor<B>,
    cells: FloatTensor<B>,
    wh: FloatTensor<B>,
    b: usize,
) -> FloatTensor<B> {
    let dims = dhs.shape();
    let (t, c) = (dims[0] / b, dims[1]);
    let dtype = dhs.dtype().into();
    let device = dhs.device();
    let wh_t = B::float_transpose(wh);
    // The gradients arriving from the later step start as zeros (not as nothing): the first step of the
    // loop then records the same operations as the others, and burn's fusion fuses it like them.
    let mut dh_next = B::float_zeros(shape(&[b, c]), &device, dtype);
    let mut dc_next = B::float_zeros(shape(&[b, c]), &device, dtype);
    let mut dgs = Vec::with_capacity(t);
    for k in (0..t).rev() {
        let dh = B::float_add(step::<B>(&dhs, k, b), dh_next);
        let g = step::<B>(&gates, k, b);
        let [i, f, o, cand] = [0, 1, 2, 3].map(|j| block::<B>(&g, j, b, c));
        let tc = B::float_tanh(step::<B>(&cells, k, b));
        let c_prev = if k > 0 { step::<B>(&cells, k - 1, b) } else { B::float_zeros(shape(&[b, c]), &device, dtype) };
        // dc = dh·o·(1 − tc²) + dc_next
        let one_minus_tc2 = B::float_add_scalar(B::float_neg(B::float_mul(tc.clone(), tc.clone())), 1.0.into());
        let dc = B::float_add(B::float_mul(B::float_mul(dh.clone(), o.clone()), one_minus_tc2), dc_next);
        // The next step's cell gradient before the concatenation below, so that fusion takes it in.
        dc_next = B::float_mul(dc.clone(), f.clone());
        // The gates' gradients side by side, each activation's gradient times its derivative from its
        // output (a(1 − a) for σ, 1 − a² for tanh): input dc·cand, forget dc·c_prev, output dh·tc,
        // candidate dc·i.
        let sig =
            |a: &FloatTensor<B>| B::float_mul(a.clone(), B::float_add_scalar(B::float_neg(a.clone()), 1.0.into()));
        let dg = B::float_cat(
            vec![
                B::float_mul(B::float_mul(dc.clone(), cand.clone()), sig(&i)),
                B::float_mul(B::float_mul(dc.clone(), c_prev), sig(&f)),
                B::float_mul(B::float_mul(dh, tc), sig(&o)),
                B::float_mul(
                    B::float_mul(dc.clone(), i),
                    B::float_add_scalar(B::float_neg(B::float_mul(cand.clone(), cand)), 1.0.into()),
                ),
            ],
            1,
        ); // [B, 4C]
        dh_next = if k > 0 {
            B::float_matmul(dg.clone(), wh_t.clone())
        } else {
            B::float_zeros(shape(&[b, c]), &device, dtype)
        };
        dgs.push(dg);
    }
    dgs.reverse();
    cat_steps::<B>(dgs)
}

/// The hidden weight's gradient `dwh = Σ_t h_{t−1}ᵀ · dg_t`, as one product over all steps: the hidden
/// states of steps 0..T−1 against the gate gradients of steps 1..T (contiguous row ranges, time-major).
fn hidden_weight_grad<B: Backend>(hs: FloatTensor<B>, dxp: FloatTensor<B>, b: usize) -> FloatTensor<B> {
    let dims = hs.shape();
    let (t, c) = (dims[0] / b, dims[1]);
    if t > 1 {
        let prev = B::float_slice(hs, &[Slice::from(0..(t - 1) * b), all(c)]);
        let dg_later = B::float_slice(dxp, &[Slice::from(b..t * b), all(4 * c)]);
        B::float_matmul(B::float_transpose(prev), dg_later)
    } else {
        B::float_zeros(shape(&[c, 4 * c]), &hs.device(), hs.dtype().into())
    }
}

impl<B: Backend + LstmBackend, C: CheckpointStrategy> LstmBackend for Autodiff<B, C> {
    fn lstm_sequence(xp: FloatTensor<Self>, wh: FloatTensor<Self>, batch: usize) -> FloatTensor<Self> {
        #[derive(Debug)]
        struct LstmBackward;

        impl<B: Backend + LstmBackend> Backward<B, 2> for LstmBackward {
            /// The outputs, cell states, activations, the hidden weight and the batch size.
            type State = (FloatTensor<B>, FloatTensor<B>, FloatTensor<B>, FloatTensor<B>, usize);

            fn backward(self, ops: Ops<Self::State, 2>, grads: &mut Gradients, _checkpointer: &mut Checkpointer) {
                let [node_xp, node_wh] = ops.parents;
                let dhs = grads.consume::<B>(&ops.node);
                let (hs, cells, gates, wh, b) = ops.state;
                let dxp = B::lstm_backward(dhs, gates, cells, wh, b);
                if let Some(node) = node_wh {
                    grads.register::<B>(node.id, hidden_weight_grad::<B>(hs, dxp.clone(), b));
                }
                if let Some(node) = node_xp {
                    grads.register::<B>(node.id, dxp);
                }
            }
        }

        match LstmBackward.prepare::<C>([xp.node(), wh.node()]).compute_bound().stateful() {
            OpsKind::Tracked(prep) => {
                let whp = wh.into_primitive();
                let (hs, cells, gates) = B::lstm_forward(xp.into_primitive(), whp.clone(), batch);
                prep.finish((hs.clone(), cells, gates, whp, batch), hs)
            }
            OpsKind::UnTracked(prep) => prep.finish(B::lstm_sequence(xp.into_primitive(), wh.into_primitive(), batch)),
        }
    }

    fn lstm_forward(
        xp: FloatTensor<Self>,
        wh: FloatTensor<Self>,
        batch: usize,
    ) -> (FloatTensor<Self>, FloatTensor<Self>, FloatTensor<Self>) {
        // Called directly (not through `lstm_sequence`): the loop's ops, each tracked.
        forward::<Self>(xp, wh, batch)
    }

    fn lstm_backward(
        dhs: FloatTensor<Self>,
        gates: FloatTensor<Self>,
        cells: FloatTensor<Self>,
        wh: FloatTensor<Self>,
        batch: usize,
    ) -> FloatTensor<Self> {
        backward::<Self>(dhs, gates, cells, wh, batch)
    }
}

/// [`LstmBackend::lstm_sequence`] on tensors: `xp [T·B, 4C]` (time-major), `wh [C, 4C]` → `[T·B, C]`.
pub fn lstm_sequence(xp: Tensor<2>, wh: Tensor<2>, batch: usize) -> Tensor<2> {
    Tensor::from_dispatch(<Dispatch as LstmBackend>::lstm_sequence(xp.into_dispatch(), wh.into_dispatch(), batch))
}

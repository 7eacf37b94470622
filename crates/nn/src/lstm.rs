//! The LSTM's recurrence as one differentiable operation with its own backward pass (backpropagation
//! through time written out), so that a step costs a few device operations instead of the ~30 that
//! burn's `Lstm` records (and autodiff then doubles).
//!
//! [`lstm_sequence`] takes the input projections of every step and gate, already computed by one
//! matrix product before the loop (`xp [B, T, 4C]`, bias included), and the hidden weights of the
//! four gates side by side (`wh [C, 4C]`, gate order input, forget, output, cell), and returns the
//! hidden states `[B, T, C]` from a zero initial state. Per step forward: one matrix product with the
//! hidden state, one elementwise pass that makes the four activations (the cell gate's tanh as
//! `2σ(2x) − 1`, so one sigmoid covers all four), the cell and hidden updates. Per step backward: the
//! four gate gradients side by side in one tensor and one product with `whᵀ`; the hidden weight's
//! gradient is one product over all steps at the end.
//!
//! A backend extension ([`LstmBackend`]): the default body runs on flex and burn's cubecl backends
//! alike (their own ops); the `Autodiff` implementation registers the backward step.

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
#[backend_extension(Flex, Cube: cfg(any(feature = "wgpu", feature = "cuda")), Autodiff)]
pub trait LstmBackend: Backend {
    /// `xp [B, T, 4C]`, `wh [C, 4C]` → the hidden states `[B, T, C]`.
    fn lstm_sequence(xp: FloatTensor<Self>, wh: FloatTensor<Self>) -> FloatTensor<Self> {
        forward::<Self>(xp, wh).0
    }
}

impl LstmBackend for Flex {}

#[cfg(any(feature = "wgpu", feature = "cuda"))]
impl LstmBackend for burn::backend::Cube {}

/// What the backward pass of one step needs.
#[derive(Clone, Debug)]
struct StepState<B: Backend> {
    /// The four activations `[B, 4C]`: input, forget and output gates, cell candidate.
    act: FloatTensor<B>,
    /// The cell state before the step `[B, C]`.
    c_prev: FloatTensor<B>,
    /// `tanh` of the cell state after the step `[B, C]`.
    tc: FloatTensor<B>,
}

fn shape(dims: &[usize]) -> Shape {
    Shape::from(dims.to_vec())
}

fn all(n: usize) -> Slice {
    Slice::from(0..n)
}

/// A `[4C]` vector: `a` over the three sigmoid gates, `b` over the cell candidate's block.
fn per_block<B: Backend>(c: usize, a: f32, b: f32, like: &FloatTensor<B>) -> FloatTensor<B> {
    let v: Vec<f32> = (0..4 * c).map(|k| if k < 3 * c { a } else { b }).collect();
    B::float_from_data(TensorData::new(v, [1, 4 * c]), &like.device())
}

/// `[B, C]` columns `k·C .. (k+1)·C` of a `[B, 4C]` tensor (a view).
fn block<B: Backend>(t: &FloatTensor<B>, k: usize, b: usize, c: usize) -> FloatTensor<B> {
    B::float_slice(t.clone(), &[all(b), Slice::from(k * c..(k + 1) * c)])
}

/// Step `t` of a `[B, T, W]` tensor as `[B, W]`.
fn step<B: Backend>(x: &FloatTensor<B>, t: usize) -> FloatTensor<B> {
    let s = x.shape();
    let (b, w) = (s[0], s[2]);
    B::float_reshape(B::float_slice(x.clone(), &[all(b), Slice::from(t..t + 1), all(w)]), shape(&[b, w]))
}

/// The forward pass: the hidden states `[B, T, C]` and each step's state for the backward pass.
fn forward<B: Backend>(xp: FloatTensor<B>, wh: FloatTensor<B>) -> (FloatTensor<B>, Vec<StepState<B>>) {
    let dims = xp.shape();
    let (b, t, c) = (dims[0], dims[1], dims[2] / 4);
    let dtype = xp.dtype().into();
    let device = xp.device();
    // σ(s·g)·s + o, s = 1 and o = 0 over the gates (σ), s = 2 and o = −1 over the candidate: 2σ(2g) − 1 = tanh(g).
    // The same [1, 1, 1, 2] scales the input and the output of the sigmoid.
    let (two, o) = (per_block::<B>(c, 1.0, 2.0, &xp), per_block::<B>(c, 0.0, -1.0, &xp));
    let mut cell = B::float_zeros(shape(&[b, c]), &device, dtype);
    let mut hidden: Option<FloatTensor<B>> = None;
    let mut states = Vec::with_capacity(t);
    let mut outs = Vec::with_capacity(t);
    for k in 0..t {
        let g = match &hidden {
            Some(h) => B::float_add(step::<B>(&xp, k), B::float_matmul(h.clone(), wh.clone())),
            None => step::<B>(&xp, k),
        };
        let act = B::float_add(B::float_mul(B::sigmoid(B::float_mul(g, two.clone())), two.clone()), o.clone());
        let (i, f, og, cand) = (
            block::<B>(&act, 0, b, c),
            block::<B>(&act, 1, b, c),
            block::<B>(&act, 2, b, c),
            block::<B>(&act, 3, b, c),
        );
        let c_new = B::float_add(B::float_mul(f, cell.clone()), B::float_mul(i, cand));
        let tc = B::float_tanh(c_new.clone());
        let h = B::float_mul(og, tc.clone());
        states.push(StepState { act, c_prev: cell, tc });
        outs.push(B::float_reshape(h.clone(), shape(&[b, 1, c])));
        cell = c_new;
        hidden = Some(h);
    }
    let hs = if outs.len() == 1 { outs.pop().expect("one step") } else { B::float_cat(outs, 1) };
    (hs, states)
}

/// The backward pass: gradients of `xp` and `wh` given the hidden states' gradient `dhs [B, T, C]`.
fn backward<B: Backend>(
    hs: FloatTensor<B>,
    wh: FloatTensor<B>,
    states: Vec<StepState<B>>,
    dhs: FloatTensor<B>,
) -> (FloatTensor<B>, FloatTensor<B>) {
    let dims = hs.shape();
    let (b, t, c) = (dims[0], dims[1], dims[2]);
    let dtype = hs.dtype().into();
    let device = hs.device();
    let wh_t = B::float_transpose(wh);
    // The activations' derivatives from their outputs: a(1 − a) for σ, 1 − a² for tanh, as
    // p·a + q·a² with p = 1, q = −1 over the gates and p = 0, q = −1 (plus 1) over the candidate.
    let p = per_block::<B>(c, 1.0, 0.0, &hs);
    let one_c = per_block::<B>(c, 0.0, 1.0, &hs);
    let mut dh_next: Option<FloatTensor<B>> = None;
    let mut dc_next = B::float_zeros(shape(&[b, c]), &device, dtype);
    let mut dgs = Vec::with_capacity(t);
    for (k, st) in states.into_iter().enumerate().rev() {
        let dh = match dh_next.take() {
            Some(d) => B::float_add(step::<B>(&dhs, k), d),
            None => step::<B>(&dhs, k),
        };
        let (i, f, o, cand) = (
            block::<B>(&st.act, 0, b, c),
            block::<B>(&st.act, 1, b, c),
            block::<B>(&st.act, 2, b, c),
            block::<B>(&st.act, 3, b, c),
        );
        // dc = dh·o·(1 − tc²) + dc_next
        let one_minus_tc2 = B::float_add_scalar(B::float_neg(B::float_mul(st.tc.clone(), st.tc.clone())), 1.0.into());
        let dc = B::float_add(B::float_mul(B::float_mul(dh.clone(), o), one_minus_tc2), dc_next);
        // The activations' gradients side by side: input dc·cand, forget dc·c_prev, output dh·tc,
        // candidate dc·i.
        let da = B::float_cat(
            vec![
                B::float_mul(dc.clone(), cand),
                B::float_mul(dc.clone(), st.c_prev),
                B::float_mul(dh, st.tc),
                B::float_mul(dc.clone(), i),
            ],
            1,
        );
        dc_next = B::float_mul(dc, f);
        let a = st.act;
        let deriv =
            B::float_add(B::float_sub(B::float_mul(a.clone(), p.clone()), B::float_mul(a.clone(), a)), one_c.clone());
        let dg = B::float_mul(da, deriv); // [B, 4C]
        if k > 0 {
            dh_next = Some(B::float_matmul(dg.clone(), wh_t.clone()));
        }
        dgs.push(B::float_reshape(dg, shape(&[b, 1, 4 * c])));
    }
    dgs.reverse();
    let dxp = if dgs.len() == 1 { dgs.pop().expect("one step") } else { B::float_cat(dgs, 1) }; // [B, T, 4C]
    // dwh = Σ_t h_{t−1}ᵀ · dg_t, as one product over all steps: the hidden states shifted by one step
    // (zero before the first).
    let dwh = if t > 1 {
        let prev = B::float_slice(hs, &[all(b), Slice::from(0..t - 1), all(c)]);
        let dg_later = B::float_slice(dxp.clone(), &[all(b), Slice::from(1..t), all(4 * c)]);
        let prev = B::float_reshape(prev, shape(&[b * (t - 1), c]));
        let dg_later = B::float_reshape(dg_later, shape(&[b * (t - 1), 4 * c]));
        B::float_matmul(B::float_transpose(prev), dg_later)
    } else {
        B::float_zeros(shape(&[c, 4 * c]), &device, dtype)
    };
    (dxp, dwh)
}

impl<B: Backend + LstmBackend, C: CheckpointStrategy> LstmBackend for Autodiff<B, C> {
    fn lstm_sequence(xp: FloatTensor<Self>, wh: FloatTensor<Self>) -> FloatTensor<Self> {
        #[derive(Debug)]
        struct LstmBackward;

        impl<B: Backend> Backward<B, 2> for LstmBackward {
            /// The outputs, the hidden weight and every step's state.
            type State = (FloatTensor<B>, FloatTensor<B>, Vec<StepState<B>>);

            fn backward(self, ops: Ops<Self::State, 2>, grads: &mut Gradients, _checkpointer: &mut Checkpointer) {
                let [node_xp, node_wh] = ops.parents;
                let dhs = grads.consume::<B>(&ops.node);
                let (hs, wh, states) = ops.state;
                let (dxp, dwh) = backward::<B>(hs, wh, states, dhs);
                if let Some(node) = node_xp {
                    grads.register::<B>(node.id, dxp);
                }
                if let Some(node) = node_wh {
                    grads.register::<B>(node.id, dwh);
                }
            }
        }

        match LstmBackward.prepare::<C>([xp.node(), wh.node()]).compute_bound().stateful() {
            OpsKind::Tracked(prep) => {
                let whp = wh.into_primitive();
                let (hs, states) = forward::<B>(xp.into_primitive(), whp.clone());
                prep.finish((hs.clone(), whp, states), hs)
            }
            OpsKind::UnTracked(prep) => prep.finish(B::lstm_sequence(xp.into_primitive(), wh.into_primitive())),
        }
    }
}

/// [`LstmBackend::lstm_sequence`] on tensors: `xp [B, T, 4C]`, `wh [C, 4C]` → `[B, T, C]`.
pub fn lstm_sequence(xp: Tensor<3>, wh: Tensor<2>) -> Tensor<3> {
    Tensor::from_dispatch(<Dispatch as LstmBackend>::lstm_sequence(xp.into_dispatch(), wh.into_dispatch()))
}

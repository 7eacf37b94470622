//! A causal Transformer whose attention scores are **negative squared distances** between a step's
//! query and the earlier steps' keys (the query and key maps are one map), with a "no match" slot: the
//! `quick` preset's memory, not the paper's.
//!
//! Why: the nine yes/no comparison ids ask whether a probe equals something held in memory. With
//! dot-product attention (the paper's) the change between probe and memory enters the scores
//! linearly, `q·W(x + δ)`, and with changes of either sign the expected gradient of the answer is zero:
//! the loss sat at ln 2 for 120,000 CD trials (docs/learning.md, K3). A distance score
//! `−‖W x_probe − W x_memory‖²` is 0 for an identical frame and negative for any change, so "how well
//! does anything in memory match" is a first-order signal from the first step (it is the similarity of
//! exemplar and kernel memories; cf. "L2 self-attention", Kim et al. 2021). The extra slot (a softmax
//! with one more logit, burn's `quiet_softmax`, shifted by a learned per-head bias) lets the weight on
//! the best match itself carry the answer: without it, weights always sum to 1. The attention is
//! strictly causal (a step attends to the steps before it, not to itself: its own input reaches the
//! output through the residual path), so a probe's weight on memory is not diluted by its perfect
//! match with itself.
//!
//! The keys and queries are computed from the content (visual features and task embedding) without the
//! positional embedding, so a frame seen again at a later step is at distance 0; the values and the
//! residual path carry the position as in the paper's encoder. Post-norm, ReLU feed-forward, as PyTorch's
//! `nn.TransformerEncoderLayer` (the paper's). Layers after the first take the previous layer's output
//! as their content.

use burn::module::Param;
use burn::nn::{Dropout, DropoutConfig, LayerNorm, LayerNormConfig, Linear, LinearConfig};
use burn::prelude::*;
use burn::tensor::activation::{quiet_softmax, relu};

/// Initial log distance scale (e³ ≈ 20). Measured (docs/learning.md): CD-Color alone, TRF-96 with the
/// pixel encoder, 8 trials per step: at scale 1 (log 0) still at chance after 12,000 trials; at e³ at
/// 0.995 after 6,000. Far frames then weigh nothing and a one-bar change weighs about e⁻¹ of a match
/// from the start, so the gradient sees the change at once.
pub const INIT_LOG_SCALE: f64 = 3.0;

/// One post-norm encoder layer with distance attention.
#[derive(Module, Debug)]
pub struct DistLayer {
    /// Content → queries (= keys), `[C, C]` split into heads.
    pub qk: Linear,
    pub value: Linear,
    pub output: Linear,
    /// Per head: log of the distance scale (the score is `−exp(s)·‖q_i − q_j‖²/√d_head + b`).
    pub log_scale: Param<Tensor<1>>,
    /// Per head: the bias `b` of every real slot against the "no match" slot (logit 0).
    pub bias: Param<Tensor<1>>,
    pub ff1: Linear,
    pub ff2: Linear,
    pub norm1: LayerNorm,
    pub norm2: LayerNorm,
    pub dropout: Dropout,
    pub heads: usize,
}

/// The distance-attention encoder (a stack of [`DistLayer`]s).
#[derive(Module, Debug)]
pub struct DistEncoder {
    pub layers: Vec<DistLayer>,
}

impl DistEncoder {
    pub fn new(d_model: usize, ff: usize, heads: usize, layers: usize, dropout: f64, device: &Device) -> Self {
        assert!(heads > 0 && d_model.is_multiple_of(heads), "d_model {d_model} must be divisible by {heads} heads");
        let lin = |i: usize, o: usize| LinearConfig::new(i, o).init(device);
        let layers = (0..layers)
            .map(|_| DistLayer {
                qk: lin(d_model, d_model),
                value: lin(d_model, d_model),
                output: lin(d_model, d_model),
                log_scale: Param::from_tensor(Tensor::ones([heads], device) * INIT_LOG_SCALE),
                bias: Param::from_tensor(Tensor::zeros([heads], device)),
                ff1: lin(d_model, ff),
                ff2: lin(ff, d_model),
                norm1: LayerNormConfig::new(d_model).init(device),
                norm2: LayerNormConfig::new(d_model).init(device),
                dropout: DropoutConfig::new(dropout).init(),
                heads,
            })
            .collect();
        DistEncoder { layers }
    }

    /// `x`: `[B, T, C]` with positions added; `content`: `[B, T, C]`, the same without positions;
    /// `masked`: `[B, T, T]`, true where step i may not attend to step j (later steps, padding).
    pub fn forward(&self, x: Tensor<3>, content: Tensor<3>, masked: Tensor<3, Bool>) -> Tensor<3> {
        let mut x = x;
        let mut content = content;
        for (k, layer) in self.layers.iter().enumerate() {
            if k > 0 {
                content = x.clone();
            }
            x = layer.forward(x, content.clone(), masked.clone());
        }
        x
    }
}

impl DistLayer {
    /// Attention weights `[B, H, T, T]` (rows sum to less than 1: the rest is the "no match" slot).
    pub fn weights(&self, content: Tensor<3>, masked: Tensor<3, Bool>) -> Tensor<4> {
        let [b, t, c] = content.dims();
        let h = self.heads;
        let dh = c / h;
        let q = self.qk.forward(content).reshape([b, t, h, dh]).swap_dims(1, 2); // [B, H, T, dh]
        let sq = (q.clone() * q.clone()).sum_dim(3); // [B, H, T, 1]
        let dot = q.clone().matmul(q.swap_dims(2, 3)); // [B, H, T, T]
        let dist = (sq.clone() + sq.swap_dims(2, 3) - dot * 2.0).clamp_min(0.0);
        let scale = self.log_scale.val().exp().reshape([1, h, 1, 1]) / (dh as f64).sqrt();
        let scores = dist.neg() * scale + self.bias.val().reshape([1, h, 1, 1]);
        let scores = scores.mask_fill(masked.reshape([b, 1, t, t]), -1.0e4);
        quiet_softmax(scores, 3)
    }

    pub fn forward(&self, x: Tensor<3>, content: Tensor<3>, masked: Tensor<3, Bool>) -> Tensor<3> {
        let [b, t, c] = x.dims();
        let h = self.heads;
        let w = self.weights(content, masked);
        let v = self.value.forward(x.clone()).reshape([b, t, h, c / h]).swap_dims(1, 2);
        let ctx = w.matmul(v).swap_dims(1, 2).reshape([b, t, c]);
        let x = self.norm1.forward(x + self.dropout.forward(self.output.forward(ctx)));
        let ff = self.ff2.forward(self.dropout.forward(relu(self.ff1.forward(x.clone()))));
        self.norm2.forward(x + self.dropout.forward(ff))
    }
}

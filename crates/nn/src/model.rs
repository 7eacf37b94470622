//! The WorM models: a conv feature extractor, a task embedding concatenated at every step, a memory
//! (RNN/GRU/LSTM or causal Transformer) and 10 per-task linear heads (reference §1.3).

use burn::nn::activation::ActivationConfig;
use burn::nn::attention::generate_autoregressive_mask;
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::pool::{AdaptiveAvgPool2d, AdaptiveAvgPool2dConfig, MaxPool2d, MaxPool2dConfig};
use burn::nn::transformer::{TransformerEncoder, TransformerEncoderConfig, TransformerEncoderInput};
use burn::nn::{
    Embedding, EmbeddingConfig, Gru, GruConfig, Initializer, Linear, LinearConfig, Lstm, LstmConfig, PaddingConfig2d,
    Relu, Rnn, RnnConfig,
};
use burn::prelude::*;

use crate::batch::{N_HEADS, N_TASKS, heads_by_kind};
use crate::dist_attn::DistEncoder;

/// The configuration is plain data in the core (the page edits and checks it too); this crate builds
/// the burn model it describes ([`BuildModel::init`]).
pub use wmlab_core::networks::{Arch, Attention, Encoder, ModelConfig};

/// Builds the burn model a [`ModelConfig`] describes.
pub trait BuildModel {
    /// The model with freshly initialised weights on `device`. Panics on a config that
    /// [`ModelConfig::validate`] refuses (check configs from outside first).
    fn init(&self, device: &Device) -> WormModel;
}

impl BuildModel for ModelConfig {
    fn init(&self, device: &Device) -> WormModel {
        if let Err(e) = self.validate() {
            panic!("invalid model config: {e}");
        }
        let xavier = self.xavier && self.arch != Arch::Trf;
        let init = |default: Initializer| if xavier { Initializer::XavierNormal { gain: 1.0 } } else { default };
        let conv_default = Initializer::KaimingUniform { gain: 1.0 / 3.0f64.sqrt(), fan_out_only: false };
        let pad = || PaddingConfig2d::Explicit(1, 1, 1, 1);
        let conv = |i: usize, o: usize| {
            Conv2dConfig::new([i, o], [3, 3])
                .with_padding(pad())
                .with_initializer(init(conv_default.clone()))
                .init(device)
        };
        let [c1, c2, c3, c4] = self.conv;
        let lin =
            |i: usize, o: usize| LinearConfig::new(i, o).with_initializer(init(conv_default.clone())).init(device);
        let c = self.capacity;
        let m_in = self.memory_input();
        let memory = match self.arch {
            Arch::Rnn => Memory::Rnn(RnnConfig::new(m_in, c, true).init(device)),
            Arch::Gru => Memory::Gru(GruConfig::new(m_in, c, true).init(device)),
            Arch::Lstm => Memory::Lstm(LstmConfig::new(m_in, c, true).init(device)),
            Arch::Trf if self.attention_kind() == Attention::Distance => Memory::DistTrf(DistTrfMemory {
                pos: EmbeddingConfig::new(self.step_capacity(), c).init(device),
                encoder: DistEncoder::new(c, self.trf_ff, self.trf_heads, self.trf_layers, self.trf_dropout, device),
            }),
            Arch::Trf => Memory::Trf(TrfMemory {
                pos: EmbeddingConfig::new(self.step_capacity(), c).init(device),
                encoder: TransformerEncoderConfig::new(c, self.trf_ff, self.trf_heads, self.trf_layers)
                    .with_dropout(self.trf_dropout)
                    .with_activation(ActivationConfig::Relu)
                    .init(device),
            }),
        };
        let heads = self.head_units().iter().map(|&u| lin(c, u)).collect();
        let task_embedding = if self.frozen_task_embedding {
            None
        } else {
            Some(
                EmbeddingConfig::new(N_TASKS, N_TASKS)
                    // Xavier-normal for a 14×14 table is N(0, 2/(14+14)); burn's Embedding does not pass
                    // fan-in/out to its initializer, so the std is given directly.
                    .with_initializer(if xavier {
                        Initializer::Normal { mean: 0.0, std: (2.0 / (2 * N_TASKS) as f64).sqrt() }
                    } else {
                        Initializer::Normal { mean: 0.0, std: 1.0 }
                    })
                    .init(device),
            )
        };
        let convs = self.encoder_kind() == Encoder::Conv;
        // The words model (LSR) has no ConvNet: its projection reads the word slots.
        WormModel {
            conv1: convs.then(|| conv(3, c1)),
            conv2: convs.then(|| conv(c1, c2)),
            conv3: convs.then(|| conv(c2, c3)),
            conv4: convs.then(|| conv(c3, c4)),
            pool: MaxPool2dConfig::new([2, 2]).init(),
            gap: AdaptiveAvgPool2dConfig::new([self.spatial_side(); 2]).init(),
            act: Relu::new(),
            proj: lin(self.visual_width(), self.feature_dim()),
            task_embedding,
            memory,
            heads,
            c4,
        }
    }
}

/// The Transformer memory: learned positional embedding + causal encoder.
#[derive(Module, Debug)]
pub struct TrfMemory {
    pub pos: Embedding,
    pub encoder: TransformerEncoder,
}

/// The distance-attention Transformer memory ([`Attention::Distance`]).
#[derive(Module, Debug)]
pub struct DistTrfMemory {
    pub pos: Embedding,
    pub encoder: DistEncoder,
}

#[derive(Module, Debug)]
pub enum Memory {
    Rnn(Rnn),
    Gru(Gru),
    Lstm(Lstm),
    Trf(TrfMemory),
    DistTrf(DistTrfMemory),
}

#[derive(Module, Debug)]
pub struct WormModel {
    /// The ConvNet (`None` for the pixel encoder; an `Option` is transparent in parameter names, so
    /// checkpoints of the conv models read as before).
    pub conv1: Option<Conv2d>,
    pub conv2: Option<Conv2d>,
    pub conv3: Option<Conv2d>,
    pub conv4: Option<Conv2d>,
    pub pool: MaxPool2d,
    pub gap: AdaptiveAvgPool2d,
    pub act: Relu,
    pub proj: Linear,
    /// `None` = frozen identity (one-hot task ids).
    pub task_embedding: Option<Embedding>,
    pub memory: Memory,
    /// One linear head per [`wmlab_core::TaskId::head_index`].
    pub heads: Vec<Linear>,
    pub c4: usize,
}

/// The network's input for a batch, as tensors.
pub struct ModelInput {
    /// The frames of a batch of frame trials; `None` for a batch of word trials (LSR).
    pub frames: Option<StepFrames>,
    /// `[B, T, slots · 50]`: the word slots of a batch of LSR trials; `None` otherwise.
    pub words: Option<Tensor<3>>,
    /// `[B]` task ordinals.
    pub tasks: Tensor<1, Int>,
    /// Steps before padding per trial (for the Transformer's padding mask).
    pub seq_len: Vec<usize>,
    /// Steps T of the batch (padded length).
    pub steps: usize,
}

/// A batch's frames as uploaded: only the real ones (steps before each trial's length), then one black
/// frame that every padding step reads (padding frames are black by definition), and which of those
/// each step `[B·T]` reads. On the GPU backends the real frames travel as bytes (4 to an `i32`) and
/// become floats on the device through the exact table of the 256 byte values, so a step uploads about
/// a seventh of the padded float frames.
pub struct StepFrames {
    /// `[n + 1, 3, 32, 32]`: the real frames, then the black frame.
    pub real: Tensor<4>,
    /// `[B·T]` rows of `real`; `None` when every step is real (no padding, no black frame).
    pub index: Option<Tensor<1, Int>>,
}

/// Bytes the last [`ModelInput::from_batch`] and [`crate::loss::Targets::from_batch`] calls of this
/// process uploaded (benchmarks read and reset it).
pub static UPLOADED_BYTES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

pub(crate) fn count_upload(bytes: usize) {
    UPLOADED_BYTES.fetch_add(bytes as u64, std::sync::atomic::Ordering::Relaxed);
}

/// The byte `k` with `v == k / 255` exactly for every value (as the rasterizer makes them), or `None`.
fn as_bytes(values: &[f32]) -> Option<Vec<u8>> {
    let table = byte_table();
    values
        .iter()
        .map(|&v| {
            let k = (v * 255.0).round();
            (0.0..=255.0).contains(&k).then_some(k as u8).filter(|&k| table[k as usize].to_bits() == v.to_bits())
        })
        .collect()
}

/// `k / 255` for every byte, as the rasterizer computes it.
fn byte_table() -> [f32; 256] {
    std::array::from_fn(|k| k as f32 / 255.0)
}

/// Floats on `device` from bytes packed four to an `i32` (little-endian) and uploaded as ints.
fn floats_from_bytes(bytes: &[u8], device: &Device) -> Tensor<1> {
    let n = bytes.len();
    let words: Vec<i32> = bytes
        .chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            i32::from_le_bytes(w)
        })
        .collect();
    let m = words.len();
    count_upload(m * 4 + 256 * 4);
    let packed = Tensor::<1, Int>::from_data(TensorData::new(words, [m]), device).reshape([m, 1]);
    // The four lanes at once: each word shifted by 0, 8, 16 and 24 bits (a broadcast), then the low byte.
    let shifts = Tensor::<1, Int>::from_data(TensorData::new(vec![0i32, 8, 16, 24], [4]), device).reshape([1, 4]);
    let index = packed.bitwise_right_shift(shifts).bitwise_and_scalar(255).reshape([m * 4]).slice(0..n);
    let table = Tensor::<1>::from_data(TensorData::new(byte_table().to_vec(), [256]), device);
    table.select(0, index)
}

impl ModelInput {
    pub fn from_batch(batch: &crate::batch::Batch, device: &Device) -> Self {
        let b = batch.size;
        let t = batch.steps;
        let flat = |v: &Vec<f32>| {
            count_upload(v.len() * 4);
            Tensor::<1>::from_data(TensorData::new(v.clone(), [v.len()]), device)
        };
        let (frames, words) = if batch.word_slots > 0 {
            (None, Some(flat(&batch.words).reshape([b, t, batch.word_slots * crate::words::DIM])))
        } else {
            (Some(StepFrames::from_batch(batch, device)), None)
        };
        count_upload(b * 8);
        let tasks = Tensor::<1, Int>::from_data(TensorData::new(batch.task_ordinals(), [b]), device);
        ModelInput { frames, words, tasks, seq_len: batch.seq_len.clone(), steps: t }
    }
}

impl StepFrames {
    /// As uploaded for `device`: bytes on the GPU backends, floats on flex (where an upload is a copy).
    pub fn from_batch(batch: &crate::batch::Batch, device: &Device) -> Self {
        Self::from_batch_as(batch, device, !crate::conv::is_flex(device))
    }

    /// The real frames as bytes when `bytes` (and every value is a byte over 255), else as floats.
    pub fn from_batch_as(batch: &crate::batch::Batch, device: &Device, bytes: bool) -> Self {
        use wmlab_core::raster::TENSOR_LEN;
        let (b, t) = (batch.size, batch.steps);
        let mut rows = Vec::with_capacity(b * t);
        let mut real: Vec<f32> = Vec::new();
        let mut n = 0usize;
        for (i, &len) in batch.seq_len.iter().enumerate() {
            let len = len.min(t);
            let off = i * t * TENSOR_LEN;
            real.extend_from_slice(&batch.frames[off..off + len * TENSOR_LEN]);
            rows.extend((n..n + len).map(|r| r as i64));
            rows.extend(std::iter::repeat_n(-1, t - len));
            n += len;
        }
        let all_real = n == b * t;
        if !all_real {
            real.extend(std::iter::repeat_n(0.0, TENSOR_LEN)); // the black frame, row n
        }
        let frames = real.len() / TENSOR_LEN;
        let bytes = if bytes { as_bytes(&real) } else { None };
        let values = match bytes {
            Some(bytes) => floats_from_bytes(&bytes, device),
            None => {
                count_upload(real.len() * 4);
                Tensor::<1>::from_data(TensorData::new(real, [frames * TENSOR_LEN]), device)
            }
        };
        let index = (!all_real).then(|| {
            let rows: Vec<i64> = rows.into_iter().map(|r| if r < 0 { n as i64 } else { r }).collect();
            count_upload(rows.len() * 8);
            Tensor::<1, Int>::from_data(TensorData::new(rows, [b * t]), device)
        });
        StepFrames { real: values.reshape([frames, 3, 32, 32]), index }
    }
}

impl WormModel {
    /// Visual features of frames `[N, 3, 32, 32]` → `[N, D]`.
    pub fn features(&self, x: Tensor<4>) -> Tensor<2> {
        let (Some(conv1), Some(conv2), Some(conv3), Some(conv4)) = (&self.conv1, &self.conv2, &self.conv3, &self.conv4)
        else {
            // Pixel encoder: the frame itself, flattened.
            let [n, c, h, w] = x.dims();
            assert_eq!(
                self.proj.weight.dims()[0],
                c * h * w,
                "this model reads word slots (LSR, Encoder::Words), not frames"
            );
            return self.proj.forward(x.reshape([n, c * h * w]));
        };
        #[cfg(feature = "flex")]
        let x = {
            // The same layers, ReLU and pooling fused into the flex kernels where the input is on flex.
            use crate::conv::{conv3x3_relu, conv3x3_relu_pool};
            let x = conv3x3_relu(conv1, x);
            let x = conv3x3_relu_pool(conv2, x);
            let x = conv3x3_relu_pool(conv3, x);
            conv3x3_relu(conv4, x)
        };
        #[cfg(not(feature = "flex"))]
        let x = {
            let x = self.act.forward(conv1.forward(x));
            let x = self.pool.forward(self.act.forward(conv2.forward(x)));
            let x = self.pool.forward(self.act.forward(conv3.forward(x)));
            self.act.forward(conv4.forward(x))
        };
        let x = if self.gap.output_size == [1, 1] {
            // The paper's global average pool as a mean: its gradient is a broadcast, where burn's
            // adaptive pooling accumulates into a zeroed tensor (same values).
            let [n, c, h, w] = x.dims();
            x.reshape([n, c, h * w]).mean_dim(2).reshape([n, c, 1, 1])
        } else {
            self.gap.forward(x) // [N, c4, s, s]
        };
        let [n, c, s1, s2] = x.dims();
        self.proj.forward(x.reshape([n, c * s1 * s2]))
    }

    /// Memory states `[B, T, C]` for a batch.
    pub fn hidden(&self, input: &ModelInput) -> Tensor<3> {
        let (feats, b, t, device) = match (&input.frames, &input.words) {
            (_, Some(words)) => {
                // Words model: the projection reads each step's word slots (zero slots give its bias,
                // as the black padding frame gives the pixel encoder's).
                let [b, t, k] = words.dims();
                let want = self.proj.weight.dims()[0];
                assert_eq!(k, want, "word slots of {k} values for a projection of {want} (ModelConfig::visual_width)");
                let feats = self.proj.forward(words.clone().reshape([b * t, k]));
                (feats, b, t, words.device())
            }
            (Some(frames), None) => {
                let (b, t) = (input.seq_len.len(), input.steps);
                let feats = self.features(frames.real.clone());
                let feats = match &frames.index {
                    Some(index) => feats.select(0, index.clone()),
                    None => feats,
                };
                (feats, b, t, frames.real.device())
            }
            (None, None) => panic!("a model input without frames or words"),
        };
        let d = feats.dims()[1];
        let feats = feats.reshape([b, t, d]);
        let emb = match &self.task_embedding {
            Some(e) => e.forward(input.tasks.clone().reshape([b, 1])), // [B, 1, 14]
            None => input.tasks.clone().one_hot::<2>(N_TASKS).float().reshape([b, 1, N_TASKS]),
        };
        let x = Tensor::cat(vec![feats, emb.expand([b, t, N_TASKS])], 2); // A_t: [B, T, D + 14]
        if let Memory::Trf(TrfMemory { pos, .. }) | Memory::DistTrf(DistTrfMemory { pos, .. }) = &self.memory {
            let cap = pos.weight.dims()[0];
            assert!(
                t <= cap,
                "a batch of {t} steps for a Transformer whose positions cover {cap} (TrainConfig::fit_to_tasks)"
            );
        }
        match &self.memory {
            Memory::Rnn(m) => m.forward(x, None).0,
            Memory::Gru(m) => m.forward(x, None),
            #[cfg(feature = "flex")]
            Memory::Lstm(m) => lstm_forward(m, x),
            #[cfg(not(feature = "flex"))]
            Memory::Lstm(m) => m.forward(x, None).0,
            Memory::Trf(m) => {
                let x = x + m.pos.forward(step_positions(b, t, &device));
                let causal = generate_autoregressive_mask(b, t, &device);
                let pad = padding_mask(&input.seq_len, t, &device);
                m.encoder.forward(TransformerEncoderInput::new(x).mask_attn(causal).mask_pad(pad))
            }
            Memory::DistTrf(m) => {
                let content = x.clone();
                let x = x + m.pos.forward(step_positions(b, t, &device));
                // Strictly causal: a step compares itself with the steps before it (its own input reaches
                // the output through the residual path).
                let causal = Tensor::<2, Bool>::tril_mask([t, t], -1, &device).reshape([1, t, t]).expand([b, t, t]);
                let pad = padding_mask(&input.seq_len, t, &device).reshape([b, 1, t]).expand([b, t, t]);
                m.encoder.forward(x, content, causal.bool_or(pad))
            }
        }
    }

    /// Logits of every head at every step: `N_HEADS` tensors `[B, T, units]`.
    pub fn forward(&self, input: &ModelInput) -> Vec<Tensor<3>> {
        let h = self.hidden(input);
        self.heads_on(h, None)
    }

    /// The training loss of a batch: [`crate::loss::joint_loss_scaled`] of [`WormModel::forward`]. With
    /// targets by kind (the GPU backends) the logits stay one matrix ([`heads_matrix`]) and the loss
    /// takes each kind of head at once ([`crate::loss::kind_loss`]): fewer, larger kernels.
    pub fn loss(&self, input: &ModelInput, targets: &crate::loss::Targets, multilabel_scale: f64) -> Tensor<1> {
        if let Some(by_kind) = &targets.by_kind {
            let units = self.heads.iter().map(|l| l.weight.dims()[1]).collect::<Vec<_>>();
            if let Some(all) = heads_matrix(&self.heads, self.hidden(input)) {
                return crate::loss::kind_loss(all, &units, by_kind, multilabel_scale);
            }
        }
        crate::loss::joint_loss_scaled(&self.forward(input), targets, multilabel_scale)
    }

    /// The heads' logits on a given memory output `[B, T, C]`, each unit multiplied by `unit_mask`
    /// (length C; 1 keeps a unit, 0 lesions it: the same as zeroing its weights into every head).
    pub fn heads_on(&self, memory: Tensor<3>, unit_mask: Option<Tensor<1>>) -> Vec<Tensor<3>> {
        let h = match unit_mask {
            Some(m) => {
                let c = m.dims()[0];
                memory * m.reshape([1, 1, c])
            }
            None => memory,
        };
        // On the GPU backends the 10 heads are one matrix product (fewer kernels); flex keeps one
        // product per head, bit for bit what it computed before (an op costs little there, and the
        // CPU runs stay reproducible across this change).
        if crate::conv::is_flex(&h.device()) {
            self.heads.iter().map(|head| head.forward(h.clone())).collect()
        } else {
            all_heads(&self.heads, h)
        }
    }

    /// The logits of the 10 heads (as [`WormModel::forward`], computed on the memory output multiplied
    /// by `unit_mask`) and the memory output itself `[B, T, C]`, unmasked: the recurrent state h_t
    /// (RNN/GRU/LSTM) or the Transformer's output at step t.
    pub fn forward_with_hidden(&self, input: &ModelInput, unit_mask: Option<Tensor<1>>) -> (Vec<Tensor<3>>, Tensor<3>) {
        let h = self.hidden(input);
        (self.heads_on(h.clone(), unit_mask), h)
    }

    /// The 14 task-embedding vectors (rows in [`wmlab_core::TaskId::ALL`] order, 14 values each): the
    /// learned table, or the identity when the embedding is frozen. Async readback (safe in wasm).
    pub async fn task_embedding_rows(&self) -> Result<Vec<Vec<f32>>, String> {
        let Some(e) = &self.task_embedding else {
            return Ok((0..N_TASKS).map(|i| (0..N_TASKS).map(|j| (i == j) as u8 as f32).collect()).collect());
        };
        let w = e.weight.val();
        let [rows, cols] = w.dims();
        let data = w.into_data_async().await.map_err(|e| format!("readback: {e:?}"))?;
        let v = data.convert::<f32>().try_into_vec::<f32>().map_err(|e| format!("readback: {e:?}"))?;
        Ok((0..rows).map(|r| v[r * cols..(r + 1) * cols].to_vec()).collect())
    }
}

/// Every head's logits on `h [B, T, C]` side by side, `[B, T, Σ units]`: one matrix product with the
/// heads' weights and biases laid side by side in [`heads_by_kind`] order (binary heads, the
/// multi-label head, the k-way heads). `None` when a head has no bias.
pub fn heads_matrix(heads: &[Linear], h: Tensor<3>) -> Option<Tensor<3>> {
    if heads.iter().any(|l| l.bias.is_none()) {
        return None;
    }
    let [b, t, c] = h.dims();
    let order = heads_by_kind();
    let w = Tensor::cat(order.iter().map(|&i| heads[i].weight.val()).collect(), 1);
    let bias = Tensor::cat(order.iter().map(|&i| heads[i].bias.as_ref().expect("checked").val()).collect(), 0);
    let units: usize = w.dims()[1];
    Some((h.reshape([b * t, c]).matmul(w) + bias.reshape([1, units])).reshape([b, t, units]))
}

/// Every head's logits on `h [B, T, C]` (in head order): the columns of [`heads_matrix`], the same
/// values as each head's own `forward` up to rounding.
pub fn all_heads(heads: &[Linear], h: Tensor<3>) -> Vec<Tensor<3>> {
    let Some(all) = heads_matrix(heads, h.clone()) else {
        return heads.iter().map(|head| head.forward(h.clone())).collect();
    };
    let [b, t, _] = all.dims();
    let mut start = [0usize; N_HEADS];
    let mut at = 0;
    for i in heads_by_kind() {
        start[i] = at;
        at += heads[i].weight.dims()[1];
    }
    heads
        .iter()
        .enumerate()
        .map(|(i, l)| all.clone().slice([0..b, 0..t, start[i]..start[i] + l.weight.dims()[1]]))
        .collect()
}

/// burn's [`Lstm::forward`] (zero initial state, its outputs `[B, T, C]`) in fewer operations: the
/// input projections of all steps and all four gates as one matrix product before the loop, then the
/// recurrence as one operation with its own backward pass ([`crate::lstm`]). The same values up to
/// rounding, from the same parameters (checkpoints unchanged); other LSTM settings than the model's
/// take burn's own forward.
#[cfg(feature = "flex")]
pub fn lstm_forward(m: &Lstm, x: Tensor<3>) -> Tensor<3> {
    use burn::nn::activation::Activation;
    let plain = !m.input_forget
        && m.clip.is_none()
        && !m.reverse
        && m.batch_first
        && matches!(m.gate_activation, Activation::Sigmoid(_))
        && matches!(m.cell_activation, Activation::Tanh(_))
        && matches!(m.hidden_activation, Activation::Tanh(_));
    // The recurrence op exists on flex and, built with `wgpu` or `cuda`, on burn's cubecl backends.
    let device = x.device();
    let plain = plain && (crate::conv::is_flex(&device) || crate::conv::is_cube(&device));
    let Some(forget) = m.forget_gate.as_ref().filter(|_| plain) else {
        return m.forward(x, None).0;
    };
    // Gate order in the stacked columns: input, forget, output, cell.
    let gates = [&m.input_gate, forget, &m.output_gate, &m.cell_gate];
    if gates.iter().any(|g| g.input_transform.bias.is_none() || g.hidden_transform.bias.is_none()) {
        return m.forward(x, None).0;
    }
    let [b, t, d] = x.dims();
    let c = m.d_hidden;
    let wi = Tensor::cat(gates.iter().map(|g| g.input_transform.weight.val()).collect(), 1); // [D, 4C]
    let wh = Tensor::cat(gates.iter().map(|g| g.hidden_transform.weight.val()).collect(), 1); // [C, 4C]
    let bias = Tensor::cat(
        gates
            .iter()
            .map(|g| {
                g.input_transform.bias.as_ref().expect("checked").val()
                    + g.hidden_transform.bias.as_ref().expect("checked").val()
            })
            .collect(),
        0,
    );
    // Time-major rows (step 0 of every trial, then step 1, …), so that each step of the recurrence is a
    // contiguous block of rows: one copy of the input here, none per step.
    let xt = x.swap_dims(0, 1).reshape([t * b, d]);
    let xp = xt.matmul(wi) + bias.reshape([1, 4 * c]);
    crate::lstm::lstm_sequence(xp, wh, b).reshape([t, b, c]).swap_dims(0, 1)
}

/// The WorM authors' `init_weights` for the recurrent models (reference §1.3), applied to a freshly
/// initialised model: every bias 0, and the recurrent weights Xavier-normal with PyTorch's fans, where
/// the gates of an LSTM (4) or GRU (3) are one stacked matrix (`weight_ih [k·C, I]`, `weight_hh [k·C, C]`:
/// std √(2 / (I + k·C)) and √(2 / (C + k·C)), against √(2 / (I + C)) per gate). The conv, linear and
/// embedding weights are already Xavier-normal with the same fans (the `xavier` field of [`ModelConfig`]). The
/// Transformer keeps its initialisation, as theirs keeps PyTorch's defaults.
pub fn reference_init(mut m: WormModel, device: &Device) -> WormModel {
    use burn::module::Param;
    use burn::nn::GateController;
    use burn::tensor::Distribution;
    fn zero(b: &mut Option<Param<Tensor<1>>>) {
        if let Some(p) = b.take() {
            *b = Some(p.map(|t| t.zeros_like().require_grad()));
        }
    }
    fn zero_linear(l: &mut Linear) {
        zero(&mut l.bias);
    }
    let stacked = |g: &mut GateController, k: usize, device: &Device| {
        for l in [&mut g.input_transform, &mut g.hidden_transform] {
            let [fan_in, c] = l.weight.dims();
            let std = (2.0 / (fan_in + k * c) as f64).sqrt();
            let w = l.weight.clone();
            l.weight =
                w.map(|_| Tensor::<2>::random([fan_in, c], Distribution::Normal(0.0, std), device).require_grad());
            zero_linear(l);
        }
    };
    match &mut m.memory {
        Memory::Trf(_) | Memory::DistTrf(_) => return m,
        Memory::Lstm(l) => {
            let forget = l.forget_gate.as_mut().expect("the model's LSTM has a forget gate");
            for g in [&mut l.input_gate, forget, &mut l.output_gate, &mut l.cell_gate] {
                stacked(g, 4, device);
            }
        }
        Memory::Gru(g) => {
            for gate in [&mut g.update_gate, &mut g.reset_gate, &mut g.new_gate] {
                stacked(gate, 3, device);
            }
        }
        Memory::Rnn(r) => {
            zero_linear(&mut r.gate.input_transform);
            zero_linear(&mut r.gate.hidden_transform);
        }
    }
    for conv in [&mut m.conv1, &mut m.conv2, &mut m.conv3, &mut m.conv4].into_iter().flatten() {
        zero(&mut conv.bias);
    }
    zero_linear(&mut m.proj);
    for h in &mut m.heads {
        zero_linear(h);
    }
    m
}

/// Step indices `[B, T]` (0..T in every row), for the Transformers' positional embedding.
fn step_positions(b: usize, t: usize, device: &Device) -> Tensor<2, Int> {
    Tensor::<1, Int>::arange(0..t as i64, device).reshape([1, t]).expand([b, t])
}

/// `[B, T]`, true at a trial's padding steps (at or after its length; a trial of length 0 keeps step 0
/// so no row is all padding).
fn padding_mask(seq_len: &[usize], t: usize, device: &Device) -> Tensor<2, Bool> {
    let b = seq_len.len();
    let pad: Vec<bool> = seq_len.iter().flat_map(|&n| (0..t).map(move |s| s >= n.max(1))).collect();
    Tensor::<1, Bool>::from_data(TensorData::new(pad, [b * t]), device).reshape([b, t])
}

#[allow(dead_code)]
const _: () = assert!(N_HEADS == 10);

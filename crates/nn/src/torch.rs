//! The WorM authors' PyTorch model (`WM_Model`, their `src/model.py`) in and out: its `state_dict`'s
//! tensors become the weights of WM Lab's `paper` model ([`import`]) and back ([`export`]), so that both
//! compute the same logits.
//!
//! The layouts differ in three ways, all mapped here:
//! - burn's `Linear` stores `[in, out]`, PyTorch's `[out, in]`: transposed.
//! - PyTorch packs a recurrent layer's gates as row blocks of one matrix (GRU r, z, n; LSTM i, f, g, o)
//!   and the attention's query, key and value as blocks of `in_proj_weight`; burn has one layer each.
//! - The memory's input: the authors concatenate `[task embedding (14), features (D)]`, WM Lab
//!   `[features (D), task embedding (14)]`. WM Lab's input index `j` is their index `(j + 14) mod M`
//!   (M = D + 14), so every weight that reads or writes that axis is rolled by 14: the recurrent layers'
//!   input weights; for the Transformer, whose residual stream is that axis, everything along it
//!   (positions, attention in and out, feed-forward, both norms and the heads). An imported
//!   Transformer's unit `j` is therefore the authors' unit `(j + 14) mod C`; the recurrent models' units
//!   keep their numbers.
//!
//! Refused: a file that is not such a `state_dict` (a key missing or left over, a shape that does not
//! fit), naming the first key that does not fit. The `Static` task embedding (a frozen identity) is
//! recognised by its values.

use std::collections::BTreeMap;

use burn::module::Param;
use burn::nn::{GateController, LayerNorm, Linear};
use burn::prelude::*;

use crate::checkpoint::Checkpoint;
use crate::error::NnError;
use crate::model::{Arch, BuildModel, Memory};
use crate::train::{Preset, TrainConfig};
use wmlab_core::networks::{N_TASKS, TrainState};

/// One tensor of a `state_dict`: its name, shape and float32 values (row-major).
pub type Named = (String, Vec<usize>, Vec<f32>);

/// The authors' names of the 10 heads, by [`wmlab_core::TaskId::head_index`].
pub const HEADS: [&str; 10] = ["sc", "sfr", "si", "smu", "sts", "vir", "vsr", "vsrec", "cd", "cs"];

/// The authors' `CNN_Encoder` indices of the four convolutions (ReLU and pooling between them).
const CONVS: [usize; 4] = [0, 2, 5, 8];

/// A row-major host matrix.
#[derive(Clone, Debug, PartialEq)]
struct Mat {
    rows: usize,
    cols: usize,
    v: Vec<f32>,
}

impl Mat {
    fn t(&self) -> Mat {
        let mut v = vec![0.0; self.v.len()];
        for r in 0..self.rows {
            for c in 0..self.cols {
                v[c * self.rows + r] = self.v[r * self.cols + c];
            }
        }
        Mat { rows: self.cols, cols: self.rows, v }
    }
    /// Rows `[a, b)`.
    fn block(&self, a: usize, b: usize) -> Mat {
        Mat { rows: b - a, cols: self.cols, v: self.v[a * self.cols..b * self.cols].to_vec() }
    }
    /// Row `j` of the result is row `(j + k) mod rows` of this.
    fn roll_rows(&self, k: usize) -> Mat {
        let mut v = Vec::with_capacity(self.v.len());
        for j in 0..self.rows {
            let r = (j + k) % self.rows;
            v.extend_from_slice(&self.v[r * self.cols..(r + 1) * self.cols]);
        }
        Mat { rows: self.rows, cols: self.cols, v }
    }
    fn roll_cols(&self, k: usize) -> Mat {
        self.t().roll_rows(k).t()
    }
    fn stack(blocks: &[Mat]) -> Mat {
        let v = blocks.iter().flat_map(|m| m.v.iter().copied()).collect();
        Mat { rows: blocks.iter().map(|b| b.rows).sum(), cols: blocks[0].cols, v }
    }
}

/// The authors' `Static` task embedding: the 14×14 identity, row-major.
fn identity() -> Vec<f32> {
    (0..N_TASKS * N_TASKS).map(|i| if i % (N_TASKS + 1) == 0 { 1.0 } else { 0.0 }).collect()
}

/// `v[(j + k) mod len]` at `j`.
fn roll(v: &[f32], k: usize) -> Vec<f32> {
    (0..v.len()).map(|j| v[(j + k) % v.len()]).collect()
}

/// The file's tensors by name, each taken once.
struct Dict<'a> {
    map: BTreeMap<&'a str, (&'a [usize], &'a [f32])>,
    taken: Vec<String>,
}

impl<'a> Dict<'a> {
    fn new(dict: &'a [Named]) -> Dict<'a> {
        Dict {
            map: dict.iter().map(|(k, s, v)| (k.as_str(), (s.as_slice(), v.as_slice()))).collect(),
            taken: Vec::new(),
        }
    }
    fn shape(&self, key: &str) -> Option<&'a [usize]> {
        self.map.get(key).map(|(s, _)| *s)
    }
    fn take(&mut self, key: &str, shape: &[usize]) -> Result<&'a [f32], String> {
        let (s, v) = self
            .map
            .get(key)
            .copied()
            .ok_or_else(|| format!("{key}: missing (not the authors' WM_Model of this memory and capacity?)"))?;
        if s != shape {
            return Err(format!("{key}: shape {s:?} where the paper's model has {shape:?}"));
        }
        self.taken.push(key.to_string());
        Ok(v)
    }
    fn mat(&mut self, key: &str, rows: usize, cols: usize) -> Result<Mat, String> {
        Ok(Mat { rows, cols, v: self.take(key, &[rows, cols])?.to_vec() })
    }
    fn vec(&mut self, key: &str, n: usize) -> Result<Vec<f32>, String> {
        Ok(self.take(key, &[n])?.to_vec())
    }
    /// Keys the model does not have.
    fn left_over(&self) -> Option<&'a str> {
        self.map.keys().copied().find(|k| !self.taken.iter().any(|t| t == k))
    }
}

fn t1(v: Vec<f32>, device: &Device) -> Param<Tensor<1>> {
    let n = v.len();
    Param::from_tensor(Tensor::from_data(TensorData::new(v, [n]), device))
}
fn t2(m: Mat, device: &Device) -> Param<Tensor<2>> {
    Param::from_tensor(Tensor::from_data(TensorData::new(m.v, [m.rows, m.cols]), device))
}
fn set_linear(l: &mut Linear, weight: Mat, bias: Vec<f32>, device: &Device) {
    l.weight = t2(weight, device);
    l.bias = Some(t1(bias, device));
}
fn set_norm(n: &mut LayerNorm, gamma: Vec<f32>, beta: Vec<f32>, device: &Device) {
    n.gamma = t1(gamma, device);
    n.beta = Some(t1(beta, device));
}

/// The memory and capacity of an authors' `state_dict`, from its keys and shapes: a positional
/// embedding is the Transformer's; otherwise the recurrent input weights hold 1 (RNN), 3 (GRU) or 4
/// (LSTM) gates of C rows; C is the heads' input width.
pub fn detect(dict: &[Named]) -> Result<(Arch, usize), NnError> {
    detect_keys(dict).map_err(NnError::Torch)
}

fn detect_keys(dict: &[Named]) -> Result<(Arch, usize), String> {
    let shape = |k: &str| dict.iter().find(|n| n.0 == k).map(|n| n.1.as_slice());
    let c = match shape("sc_task_head.weight") {
        Some([_, c]) => *c,
        _ => return Err("sc_task_head.weight: missing (not the authors' WM_Model state_dict?)".into()),
    };
    if shape("positional_encoding.weight").is_some() {
        return Ok((Arch::Trf, c));
    }
    match shape("MEM.weight_ih_l0") {
        Some([rows, _]) if *rows == c => Ok((Arch::Rnn, c)),
        Some([rows, _]) if *rows == 3 * c => Ok((Arch::Gru, c)),
        Some([rows, _]) if *rows == 4 * c => Ok((Arch::Lstm, c)),
        Some(s) => Err(format!("MEM.weight_ih_l0: shape {s:?} is no RNN, GRU or LSTM of {c} units")),
        None => Err("MEM.weight_ih_l0 and positional_encoding.weight: both missing (no memory?)".into()),
    }
}

/// The paper's model with the weights of an authors' `state_dict` for memory `arch` of capacity `c`,
/// as a fresh checkpoint (step 0) of the `paper` preset. The widths (conv channels, the recurrent
/// memories' input, the Transformer's layers and feed-forward size) are read from the file: the
/// authors' code defaults to one Transformer layer, where the paper used two.
pub fn import(dict: &[Named], arch: Arch, c: usize, device: &Device) -> Result<Checkpoint, NnError> {
    import_keys(dict, arch, c, device).map_err(NnError::Torch)
}

fn import_keys(dict: &[Named], arch: Arch, c: usize, device: &Device) -> Result<Checkpoint, String> {
    let mut d = Dict::new(dict);
    let head_c = d.shape("sc_task_head.weight").ok_or("sc_task_head.weight: missing (not a WM_Model state_dict?)")?;
    if head_c.len() != 2 || head_c[1] != c {
        return Err(format!("sc_task_head.weight: shape {head_c:?}: the file's capacity is not {c}"));
    }
    let mut cfg = TrainConfig::preset(Preset::Paper, arch, c);
    // The widths are the file's (the authors' code has the paper's: 64/128/256/512, memory input 512).
    let mut cin = 3;
    for (n, i) in CONVS.iter().enumerate() {
        let key = format!("CNN_Encoder.{i}.weight");
        let s = d.shape(&key).ok_or_else(|| format!("{key}: missing (the paper's model has a ConvNet)"))?;
        if s.len() != 4 || s[1] != cin || s[2..] != [3, 3] {
            return Err(format!("{key}: shape {s:?} where a 3×3 convolution of {cin} channels belongs"));
        }
        cfg.model.conv[n] = s[0];
        cin = s[0];
    }
    if arch == Arch::Trf {
        let layers = (0..).take_while(|l| d.shape(&format!("MEM.layers.{l}.linear1.weight")).is_some()).count();
        let ff = d.shape("MEM.layers.0.linear1.weight").map_or(0, |s| s[0]);
        cfg.model.trf_layers = layers;
        cfg.model.trf_ff = ff;
    } else {
        let s = d.shape("MEM.weight_ih_l0").ok_or("MEM.weight_ih_l0: missing (not this memory's weights?)")?;
        cfg.model.mem_input = s.get(1).copied().unwrap_or(0);
    }
    let emb = d.mat("task_embedding.weight", N_TASKS, N_TASKS)?;
    cfg.model.frozen_task_embedding = emb.v == identity();
    cfg.check().map_err(|e| format!("the file's model: {e}"))?;
    let m_in = cfg.model.memory_input();
    let feat = cfg.model.feature_dim();
    let [c1, c2, c3, c4] = cfg.model.conv;
    let mut model = cfg.model.init(device);

    let chans = [(3, c1), (c1, c2), (c2, c3), (c3, c4)];
    for (conv, (&i, (cin, cout))) in [&mut model.conv1, &mut model.conv2, &mut model.conv3, &mut model.conv4]
        .into_iter()
        .zip(CONVS.iter().zip(chans))
    {
        let conv = conv.as_mut().ok_or("the paper's model has a ConvNet")?;
        let w = d.take(&format!("CNN_Encoder.{i}.weight"), &[cout, cin, 3, 3])?.to_vec();
        conv.weight = Param::from_tensor(Tensor::from_data(TensorData::new(w, [cout, cin, 3, 3]), device));
        conv.bias = Some(t1(d.vec(&format!("CNN_Encoder.{i}.bias"), cout)?, device));
    }
    let proj = d.mat("ProjectionHead.weight", feat, c4)?.t();
    set_linear(&mut model.proj, proj, d.vec("ProjectionHead.bias", feat)?, device);
    if let Some(e) = model.task_embedding.as_mut() {
        e.weight = t2(emb, device);
    }
    // Our input index j is their (j + 14) mod M.
    let k = N_TASKS;
    let trf = arch == Arch::Trf;
    let units = cfg.model.head_units();
    for (i, head) in model.heads.iter_mut().enumerate() {
        let name = HEADS[i];
        let w = d.mat(&format!("{name}_task_head.weight"), units[i], c)?.t();
        let w = if trf { w.roll_rows(k) } else { w };
        set_linear(head, w, d.vec(&format!("{name}_task_head.bias"), units[i])?, device);
    }
    let gates = |d: &mut Dict, g: usize| -> Result<[Mat; 4], String> {
        Ok([
            d.mat("MEM.weight_ih_l0", g * c, m_in)?,
            d.mat("MEM.weight_hh_l0", g * c, c)?,
            Mat { rows: g * c, cols: 1, v: d.vec("MEM.bias_ih_l0", g * c)? },
            Mat { rows: g * c, cols: 1, v: d.vec("MEM.bias_hh_l0", g * c)? },
        ])
    };
    // Gate `n` (row block n of the packed matrices) into a burn gate.
    let set_gate = |g: &mut GateController, packed: &[Mat; 4], n: usize| {
        let [wi, wh, bi, bh] = packed;
        let r = (n * c, (n + 1) * c);
        set_linear(&mut g.input_transform, wi.block(r.0, r.1).t().roll_rows(k), bi.block(r.0, r.1).v, device);
        set_linear(&mut g.hidden_transform, wh.block(r.0, r.1).t(), bh.block(r.0, r.1).v, device);
    };
    match &mut model.memory {
        Memory::Rnn(m) => set_gate(&mut m.gate, &gates(&mut d, 1)?, 0),
        Memory::Gru(m) => {
            let p = gates(&mut d, 3)?;
            set_gate(&mut m.reset_gate, &p, 0);
            set_gate(&mut m.update_gate, &p, 1);
            set_gate(&mut m.new_gate, &p, 2);
        }
        Memory::Lstm(m) => {
            let p = gates(&mut d, 4)?;
            set_gate(&mut m.input_gate, &p, 0);
            set_gate(m.forget_gate.as_mut().ok_or("the LSTM has a forget gate")?, &p, 1);
            set_gate(&mut m.cell_gate, &p, 2);
            set_gate(&mut m.output_gate, &p, 3);
        }
        Memory::Trf(m) => {
            let steps = cfg.model.step_capacity();
            m.pos.weight = t2(d.mat("positional_encoding.weight", steps, c)?.roll_cols(k), device);
            let ff = cfg.model.trf_ff;
            for (l, layer) in m.encoder.layers.iter_mut().enumerate() {
                let key = |s: &str| format!("MEM.layers.{l}.{s}");
                let w = d.mat(&key("self_attn.in_proj_weight"), 3 * c, c)?;
                let b = d.vec(&key("self_attn.in_proj_bias"), 3 * c)?;
                for (n, lin) in [&mut layer.mha.query, &mut layer.mha.key, &mut layer.mha.value].into_iter().enumerate()
                {
                    set_linear(
                        lin,
                        w.block(n * c, (n + 1) * c).t().roll_rows(k),
                        b[n * c..(n + 1) * c].to_vec(),
                        device,
                    );
                }
                let w = d.mat(&key("self_attn.out_proj.weight"), c, c)?.t().roll_cols(k);
                set_linear(&mut layer.mha.output, w, roll(&d.vec(&key("self_attn.out_proj.bias"), c)?, k), device);
                let w = d.mat(&key("linear1.weight"), ff, c)?.t().roll_rows(k);
                set_linear(&mut layer.pwff.linear_inner, w, d.vec(&key("linear1.bias"), ff)?, device);
                let w = d.mat(&key("linear2.weight"), c, ff)?.t().roll_cols(k);
                set_linear(&mut layer.pwff.linear_outer, w, roll(&d.vec(&key("linear2.bias"), c)?, k), device);
                let (g, b) = (d.vec(&key("norm1.weight"), c)?, d.vec(&key("norm1.bias"), c)?);
                set_norm(&mut layer.norm_1, roll(&g, k), roll(&b, k), device);
                let (g, b) = (d.vec(&key("norm2.weight"), c)?, d.vec(&key("norm2.bias"), c)?);
                set_norm(&mut layer.norm_2, roll(&g, k), roll(&b, k), device);
            }
        }
        Memory::DistTrf(_) => return Err("the paper's Transformer has dot-product attention".into()),
    }
    if let Some(extra) = d.left_over() {
        return Err(format!("{extra}: the paper's {} has no such weight", cfg.model.label()));
    }
    let state = TrainState { lr: cfg.lr, ..TrainState::default() };
    Ok(Checkpoint::from_model(&model, cfg, state)?)
}

/// Host values of a parameter.
fn host<const D: usize>(p: &Param<Tensor<D>>) -> Result<Vec<f32>, String> {
    p.val().into_data().convert::<f32>().try_to_vec::<f32>().map_err(|e| format!("{e:?}"))
}
fn host_mat(p: &Param<Tensor<2>>) -> Result<Mat, String> {
    let [rows, cols] = p.dims();
    Ok(Mat { rows, cols, v: host(p)? })
}
fn bias(l: &Linear) -> Result<Vec<f32>, String> {
    host(l.bias.as_ref().ok_or("a layer without a bias")?)
}

/// The authors' `state_dict` of a checkpoint of the paper's model (the inverse of [`import`]), in their
/// `state_dict` order. Models the authors' code cannot build (the pixel or words encoder, distance
/// attention, a pooled grid, longer positions) are refused; a frozen task embedding is written as their
/// `Static` one, the identity.
pub fn export(ck: &Checkpoint, device: &Device) -> Result<Vec<Named>, String> {
    let m = &ck.train.model;
    let paper_shaped = m.encoder.is_none() && m.spatial.unwrap_or(1) == 1 && m.max_steps.is_none();
    if !paper_shaped || (m.arch == Arch::Trf && m.attention_kind() != wmlab_core::networks::Attention::Dot) {
        return Err(format!(
            "{} is not the paper's model (its encoder, pooled grid, attention or positions differ): only the \
             paper's model has an authors' state_dict",
            ck.train.label()
        ));
    }
    let model = ck.model(device)?;
    let (c, m_in) = (m.capacity, m.memory_input());
    // Their index i is our (i + M − 14) mod M.
    let back = |len: usize| len - N_TASKS;
    let mut out: Vec<Named> = Vec::new();
    let mut put = |name: String, shape: Vec<usize>, v: Vec<f32>| out.push((name, shape, v));
    let mat = |mm: Mat| (vec![mm.rows, mm.cols], mm.v);
    for (conv, i) in [&model.conv1, &model.conv2, &model.conv3, &model.conv4].into_iter().zip(CONVS) {
        let conv = conv.as_ref().ok_or("the paper's model has a ConvNet")?;
        put(format!("CNN_Encoder.{i}.weight"), conv.weight.dims().to_vec(), host(&conv.weight)?);
        put(
            format!("CNN_Encoder.{i}.bias"),
            vec![conv.weight.dims()[0]],
            host(conv.bias.as_ref().ok_or("a conv without a bias")?)?,
        );
    }
    let (s, v) = mat(host_mat(&model.proj.weight)?.t());
    put("ProjectionHead.weight".into(), s, v);
    put("ProjectionHead.bias".into(), vec![m.feature_dim()], bias(&model.proj)?);
    let trf = m.arch == Arch::Trf;
    let unpack = |g: &GateController| -> Result<[Mat; 4], String> {
        let wi = host_mat(&g.input_transform.weight)?.roll_rows(back(m_in)).t();
        let wh = host_mat(&g.hidden_transform.weight)?.t();
        let bi = Mat { rows: c, cols: 1, v: bias(&g.input_transform)? };
        let bh = Mat { rows: c, cols: 1, v: bias(&g.hidden_transform)? };
        Ok([wi, wh, bi, bh])
    };
    let gates: Option<Vec<&GateController>> = match &model.memory {
        Memory::Rnn(r) => Some(vec![&r.gate]),
        Memory::Gru(g) => Some(vec![&g.reset_gate, &g.update_gate, &g.new_gate]),
        Memory::Lstm(l) => Some(vec![
            &l.input_gate,
            l.forget_gate.as_ref().ok_or("the LSTM has a forget gate")?,
            &l.cell_gate,
            &l.output_gate,
        ]),
        _ => None,
    };
    match (&model.memory, gates) {
        (_, Some(gs)) => {
            let parts = gs.into_iter().map(unpack).collect::<Result<Vec<_>, _>>()?;
            let g = parts.len();
            for (n, name) in ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"].iter().enumerate() {
                let stacked = Mat::stack(&parts.iter().map(|p| p[n].clone()).collect::<Vec<_>>());
                let shape = if n < 2 { vec![g * c, stacked.cols] } else { vec![g * c] };
                put(format!("MEM.{name}"), shape, stacked.v);
            }
        }
        (Memory::Trf(t), None) => {
            let (s, v) = mat(host_mat(&t.pos.weight)?.roll_cols(back(c)));
            put("positional_encoding.weight".into(), s, v);
            for (l, layer) in t.encoder.layers.iter().enumerate() {
                let key = |s: &str| format!("MEM.layers.{l}.{s}");
                let qkv = [&layer.mha.query, &layer.mha.key, &layer.mha.value]
                    .into_iter()
                    .map(|lin| host_mat(&lin.weight).map(|w| w.roll_rows(back(c)).t()))
                    .collect::<Result<Vec<_>, _>>()?;
                let (s, v) = mat(Mat::stack(&qkv));
                put(key("self_attn.in_proj_weight"), s, v);
                let b: Vec<f32> = [&layer.mha.query, &layer.mha.key, &layer.mha.value]
                    .into_iter()
                    .map(bias)
                    .collect::<Result<Vec<_>, _>>()?
                    .concat();
                put(key("self_attn.in_proj_bias"), vec![3 * c], b);
                let (s, v) = mat(host_mat(&layer.mha.output.weight)?.roll_cols(back(c)).t());
                put(key("self_attn.out_proj.weight"), s, v);
                put(key("self_attn.out_proj.bias"), vec![c], roll(&bias(&layer.mha.output)?, back(c)));
                let (s, v) = mat(host_mat(&layer.pwff.linear_inner.weight)?.roll_rows(back(c)).t());
                let ff = s[0];
                put(key("linear1.weight"), s, v);
                put(key("linear1.bias"), vec![ff], bias(&layer.pwff.linear_inner)?);
                let (s, v) = mat(host_mat(&layer.pwff.linear_outer.weight)?.roll_cols(back(c)).t());
                put(key("linear2.weight"), s, v);
                put(key("linear2.bias"), vec![c], roll(&bias(&layer.pwff.linear_outer)?, back(c)));
                for (n, norm) in [(1, &layer.norm_1), (2, &layer.norm_2)] {
                    put(key(&format!("norm{n}.weight")), vec![c], roll(&host(&norm.gamma)?, back(c)));
                    let beta = norm.beta.as_ref().ok_or("a layer norm without a bias")?;
                    put(key(&format!("norm{n}.bias")), vec![c], roll(&host(beta)?, back(c)));
                }
            }
        }
        _ => return Err("the paper's Transformer has dot-product attention".into()),
    }
    let units = m.head_units();
    for (i, head) in model.heads.iter().enumerate() {
        let w = host_mat(&head.weight)?;
        let w = if trf { w.roll_rows(back(c)) } else { w };
        let (s, v) = mat(w.t());
        put(format!("{}_task_head.weight", HEADS[i]), s, v);
        put(format!("{}_task_head.bias", HEADS[i]), vec![units[i]], bias(head)?);
    }
    let emb = match &model.task_embedding {
        Some(e) => host(&e.weight)?,
        None => identity(),
    };
    put("task_embedding.weight".into(), vec![N_TASKS, N_TASKS], emb);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rolls_and_transposes_invert() {
        let m = Mat { rows: 3, cols: 5, v: (0..15).map(|i| i as f32).collect() };
        assert_eq!(m.t().t(), m);
        assert_eq!(m.roll_rows(1).roll_rows(2), m);
        assert_eq!(m.roll_cols(2).roll_cols(3), m);
        assert_eq!(m.roll_rows(1).v[..5], m.v[5..10]);
        assert_eq!(roll(&roll(&[1.0, 2.0, 3.0, 4.0], 1), 3), vec![1.0, 2.0, 3.0, 4.0]);
    }
}

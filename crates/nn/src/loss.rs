//! The joint loss and the accuracies (reference §1.4): per task id, BCE-with-logits (binary heads and
//! the SFR multi-label head) or cross-entropy (k-way heads) averaged over its scored steps; the 14 task
//! losses are summed unweighted. Unscored and padded steps have weight exactly 0.

use burn::prelude::*;
use burn::tensor::activation::{log_sigmoid, log_softmax};
use wmlab_core::task::{HeadKind, TaskId};

use crate::batch::{Batch, N_IDS, head_kinds, heads_by_kind};

/// One head's targets as tensors.
pub struct HeadTensors {
    pub kind: HeadKind,
    /// `[B, T]`
    pub weight: Tensor<2>,
    /// Binary: `[B, T]`; multi-label: `[B, T, U]`.
    pub target_f: Option<Tensor<3>>,
    /// Classes: `[B, T, 1]`.
    pub target_i: Option<Tensor<3, Int>>,
}

/// A batch's targets on a device: per head (flex; heads that no trial of the batch uses are `None`), or
/// by kind of head (the GPU backends: [`KindTargets`], and `heads` all `None`).
pub struct Targets {
    pub heads: Vec<Option<HeadTensors>>,
    pub by_kind: Option<KindTargets>,
}

/// The targets of each kind of head side by side, for [`kind_loss`]: the binary heads' weights and
/// targets as `[N, heads]` (N = B·T), the multi-label head's weight (1/units included) and multi-hot
/// targets, the k-way heads' weights and class indices as `[N, heads]`. A kind that no trial of the
/// batch uses is `None`; a used kind has all its heads (zero weights for the unused ones).
pub struct KindTargets {
    pub rows: usize,
    /// Binary heads: weights and 0/1 targets, `[N, nb]`, columns in [`heads_by_kind`] order.
    pub binary: Option<(Tensor<2>, Tensor<2>)>,
    /// The multi-label head: weights `[N, 1]` (divided by its units) and targets `[N, U]`.
    pub multi: Option<(Tensor<2>, Tensor<2>)>,
    /// k-way heads: weights `[N, nc]` and class indices `[N, nc, 1]`.
    pub classes: Option<(Tensor<2>, Tensor<3, Int>)>,
}

impl Targets {
    /// Per head on flex (bit for bit the loss of before), by kind on the GPU backends.
    pub fn from_batch(batch: &Batch, device: &Device) -> Targets {
        Self::from_batch_as(batch, device, !crate::conv::is_flex(device))
    }

    /// By kind when `by_kind`, else per head.
    pub fn from_batch_as(batch: &Batch, device: &Device, by_kind: bool) -> Targets {
        if by_kind {
            return Targets {
                heads: batch.heads.iter().map(|_| None).collect(),
                by_kind: Some(kind_targets(batch, device)),
            };
        }
        let b = batch.size;
        let t = batch.steps;
        let heads = batch
            .heads
            .iter()
            .map(|h| {
                if !h.mask.iter().any(|&m| m) {
                    return None;
                }
                crate::model::count_upload(
                    4 * (h.weight.len() + h.target_f.len()) + if h.target_i.is_empty() { 0 } else { 8 * b * t },
                );
                let weight = Tensor::<1>::from_data(TensorData::new(h.weight.clone(), [b * t]), device).reshape([b, t]);
                let (target_f, target_i) = match h.kind {
                    HeadKind::Binary => (
                        Some(
                            Tensor::<1>::from_data(TensorData::new(h.target_f.clone(), [b * t]), device)
                                .reshape([b, t, 1]),
                        ),
                        None,
                    ),
                    HeadKind::MultiLabel(u) => (
                        Some(
                            Tensor::<1>::from_data(TensorData::new(h.target_f.clone(), [h.target_f.len()]), device)
                                .reshape([b, t, u as usize]),
                        ),
                        None,
                    ),
                    HeadKind::Classes(_) => (
                        None,
                        Some(
                            Tensor::<1, Int>::from_data(TensorData::new(h.target_i.clone(), [b * t]), device)
                                .reshape([b, t, 1]),
                        ),
                    ),
                };
                Some(HeadTensors { kind: h.kind, weight, target_f, target_i })
            })
            .collect();
        Targets { heads, by_kind: None }
    }
}

/// [`KindTargets`] of a batch.
fn kind_targets(batch: &Batch, device: &Device) -> KindTargets {
    let n = batch.size * batch.steps;
    let order = heads_by_kind();
    let of = |want: fn(HeadKind) -> bool| -> Vec<usize> {
        order.iter().copied().filter(|&i| want(batch.heads[i].kind)).collect()
    };
    let used = |heads: &[usize]| heads.iter().any(|&i| batch.heads[i].mask.iter().any(|&m| m));
    // Row-major [N, heads.len()] from one value per (row, head).
    let side_by_side = |heads: &[usize], value: &dyn Fn(usize, usize) -> f32| -> Tensor<2> {
        let v: Vec<f32> = (0..n).flat_map(|r| heads.iter().map(move |&h| value(h, r))).collect();
        crate::model::count_upload(v.len() * 4);
        Tensor::<1>::from_data(TensorData::new(v, [n * heads.len()]), device).reshape([n, heads.len()])
    };
    let binary_heads = of(|k| k == HeadKind::Binary);
    let binary = used(&binary_heads).then(|| {
        (
            side_by_side(&binary_heads, &|h, r| batch.heads[h].weight[r]),
            side_by_side(&binary_heads, &|h, r| batch.heads[h].target_f[r]),
        )
    });
    let multi_heads = of(|k| matches!(k, HeadKind::MultiLabel(_)));
    let multi = match multi_heads.as_slice() {
        [h] if used(&[*h]) => {
            let head = &batch.heads[*h];
            let u = head.kind.units() as usize;
            let w = side_by_side(&[*h], &|h, r| batch.heads[h].weight[r] / u as f32);
            crate::model::count_upload(head.target_f.len() * 4);
            let y = Tensor::<1>::from_data(TensorData::new(head.target_f.clone(), [n * u]), device).reshape([n, u]);
            Some((w, y))
        }
        _ => None,
    };
    let class_heads = of(|k| matches!(k, HeadKind::Classes(_)));
    let classes = used(&class_heads).then(|| {
        let w = side_by_side(&class_heads, &|h, r| batch.heads[h].weight[r]);
        let idx: Vec<i64> = (0..n).flat_map(|r| class_heads.iter().map(move |&h| batch.heads[h].target_i[r])).collect();
        crate::model::count_upload(idx.len() * 8);
        let k = class_heads.len();
        (w, Tensor::<1, Int>::from_data(TensorData::new(idx, [n * k]), device).reshape([n, k, 1]))
    });
    KindTargets { rows: n, binary, multi, classes }
}

/// Elementwise BCE-with-logits: `-(y log σ(x) + (1 − y) log σ(−x))`.
fn bce_with_logits(x: Tensor<3>, y: Tensor<3>) -> Tensor<3> {
    let pos = log_sigmoid(x.clone());
    let neg = log_sigmoid(x.neg());
    (y.clone() * pos + (y.neg() + 1.0) * neg).neg()
}

/// Per-step loss of one head, `[B, T]` (unweighted).
pub fn head_step_loss(logits: Tensor<3>, h: &HeadTensors) -> Tensor<2> {
    let [b, t, u] = logits.dims();
    match h.kind {
        HeadKind::Binary => bce_with_logits(logits, h.target_f.clone().unwrap()).reshape([b, t]),
        HeadKind::MultiLabel(_) => {
            // Mean over the units, as PyTorch's BCEWithLogits (mean over every element).
            bce_with_logits(logits, h.target_f.clone().unwrap()).sum_dim(2).reshape([b, t]) / u as f64
        }
        HeadKind::Classes(_) => log_softmax(logits, 2).gather(2, h.target_i.clone().unwrap()).neg().reshape([b, t]),
    }
}

/// The joint loss (a scalar `[1]`): Σ over task ids of the mean loss over that id's scored steps.
pub fn joint_loss(logits: &[Tensor<3>], targets: &Targets) -> Tensor<1> {
    joint_loss_scaled(logits, targets, 1.0)
}

/// [`joint_loss`] with the multi-label (SFR) head's loss multiplied by `multilabel_scale`: 1 is the
/// reference (the mean BCE over its 100 units, so each unit weighs 1/100 of a one-logit probe in the
/// shared layers' gradient); 100 makes it the sum over the units.
pub fn joint_loss_scaled(logits: &[Tensor<3>], targets: &Targets, multilabel_scale: f64) -> Tensor<1> {
    if let Some(by_kind) = &targets.by_kind {
        let units: Vec<usize> = logits.iter().map(|l| l.dims()[2]).collect();
        let all = Tensor::cat(heads_by_kind().iter().map(|&i| logits[i].clone()).collect(), 2);
        return kind_loss(all, &units, by_kind, multilabel_scale);
    }
    let mut total: Option<Tensor<1>> = None;
    for (l, h) in logits.iter().zip(&targets.heads) {
        let Some(h) = h else { continue };
        let mut part = (head_step_loss(l.clone(), h) * h.weight.clone()).sum();
        if matches!(h.kind, HeadKind::MultiLabel(_)) && multilabel_scale != 1.0 {
            part = part * multilabel_scale;
        }
        total = Some(match total {
            Some(t) => t + part,
            None => part,
        });
    }
    total.expect("a batch with no scored step")
}

/// The joint loss from the heads' logits side by side (`all [B, T, Σ units]`, the heads in
/// [`heads_by_kind`] order, each head's width in `units`, by head index): the same sum as
/// [`joint_loss_scaled`], each kind of head at once. BCE-with-logits as softplus(x) − y·x, i.e.
/// −log σ(−x) − y·x; the k-way heads' logits gathered into one `[N, heads, widest]` block, the columns
/// past a head's width pushed to −10⁹ so that one log-softmax serves every head.
pub fn kind_loss(all: Tensor<3>, units: &[usize], t: &KindTargets, multilabel_scale: f64) -> Tensor<1> {
    let [b, tt, width] = all.dims();
    let n = b * tt;
    assert_eq!(n, t.rows, "targets of {} rows for logits of {n}", t.rows);
    let device = all.device();
    let x = all.reshape([n, width]);
    let kinds = head_kinds();
    let order = heads_by_kind();
    let count = |want: fn(HeadKind) -> bool| order.iter().filter(|&&i| want(kinds[i])).count();
    let nb = count(|k| k == HeadKind::Binary);
    let multi = order.iter().copied().find(|&i| matches!(kinds[i], HeadKind::MultiLabel(_)));
    let um = multi.map_or(0, |i| units[i]);
    // BCE-with-logits as softplus(x) − y·x = −log σ(−x) − y·x.
    let bce = |x: Tensor<2>, y: Tensor<2>| log_sigmoid(x.clone().neg()).neg() - y * x;
    let mut parts: Vec<Tensor<1>> = Vec::new();
    if let Some((w, y)) = &t.binary {
        parts.push((bce(x.clone().slice([0..n, 0..nb]), y.clone()) * w.clone()).sum());
    }
    if let Some((w, y)) = &t.multi {
        let part = (bce(x.clone().slice([0..n, nb..nb + um]), y.clone()) * w.clone()).sum();
        parts.push(if multilabel_scale != 1.0 { part * multilabel_scale } else { part });
    }
    if let Some((w, target)) = &t.classes {
        let heads: Vec<usize> = order.iter().copied().filter(|&i| matches!(kinds[i], HeadKind::Classes(_))).collect();
        let k = heads.len();
        let widest = heads.iter().map(|&i| units[i]).max().unwrap_or(1);
        let mut cols = Vec::with_capacity(k * widest);
        let mut pad = Vec::with_capacity(k * widest);
        let mut start = nb + um;
        for &i in &heads {
            for j in 0..widest {
                cols.push((start + j.min(units[i] - 1)) as i64);
                pad.push(if j < units[i] { 0.0f32 } else { -1e9 });
            }
            start += units[i];
        }
        let cols = Tensor::<1, Int>::from_data(TensorData::new(cols, [k * widest]), &device);
        let pad = Tensor::<1>::from_data(TensorData::new(pad, [k * widest]), &device).reshape([1, k, widest]);
        let logits = x.select(1, cols).reshape([n, k, widest]) + pad;
        let picked = log_softmax(logits, 2).gather(2, target.clone()).reshape([n, k]);
        parts.push((picked * w.clone()).sum().neg());
    }
    parts.into_iter().reduce(|a, b| a + b).expect("a batch with no scored step")
}

/// Correct and total counts per task id (in [`TaskId::EVERY`] order). Binary: round(σ(x)) = y, i.e.
/// x > 0 ⇔ y = 1; k-way: argmax = y; SFR: per-unit binary accuracy over the 100 units.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Accuracy {
    pub correct: [u64; N_IDS],
    pub total: [u64; N_IDS],
}

impl Accuracy {
    pub fn add(&mut self, other: &Accuracy) {
        for k in 0..N_IDS {
            self.correct[k] += other.correct[k];
            self.total[k] += other.total[k];
        }
    }
    /// Accuracy of each task id (None when it had no scored step).
    pub fn per_task(&self) -> [Option<f64>; N_IDS] {
        let mut a = [None; N_IDS];
        for k in 0..N_IDS {
            if self.total[k] > 0 {
                a[k] = Some(self.correct[k] as f64 / self.total[k] as f64);
            }
        }
        a
    }
    /// Mean over the task ids that had scored steps.
    pub fn mean(&self) -> f64 {
        let v: Vec<f64> = self.per_task().iter().flatten().copied().collect();
        if v.is_empty() { 0.0 } else { v.iter().sum::<f64>() / v.len() as f64 }
    }
    /// `{"SC": 0.5, …}`: the task ids with scored items.
    pub fn to_map(&self) -> std::collections::BTreeMap<String, f64> {
        let per = self.per_task();
        per.iter().enumerate().filter_map(|(k, a)| a.map(|a| (TaskId::EVERY[k].as_str().to_string(), a))).collect()
    }
}

/// Whether the prediction at (trial `i`, step `s`) is correct, per unit, given host logits of every head
/// (`logits[h]` is `[B, T, U]` row-major). Calls `f(correct)` once per scored unit.
pub fn score_step(batch: &Batch, logits: &[Vec<f32>], i: usize, s: usize, mut f: impl FnMut(bool)) {
    let task = batch.tasks[i];
    let hi = task.head_index();
    let h = &batch.heads[hi];
    let r = i * batch.steps + s;
    if !h.mask[r] {
        return;
    }
    // The task's own head kind: LSR's recall head is wider than VSR's ([`crate::ModelConfig::head_units`]).
    let kind = task.head();
    let u = kind.units() as usize;
    let x = &logits[hi][r * u..(r + 1) * u];
    match kind {
        HeadKind::Binary => f((x[0] > 0.0) == (h.target_f[r] > 0.5)),
        HeadKind::MultiLabel(_) => {
            for k in 0..u {
                f((x[k] > 0.0) == (h.target_f[r * u + k] > 0.5));
            }
        }
        HeadKind::Classes(_) => {
            let mut best = 0;
            for k in 1..u {
                if x[k] > x[best] {
                    best = k;
                }
            }
            f(best as i64 == h.target_i[r]);
        }
    }
}

/// Accuracy counts of a batch from host logits.
pub fn accuracy(batch: &Batch, logits: &[Vec<f32>]) -> Accuracy {
    let mut acc = Accuracy::default();
    for i in 0..batch.size {
        let k = batch.tasks[i].ordinal() as usize;
        for s in 0..batch.steps {
            score_step(batch, logits, i, s, |ok| {
                acc.total[k] += 1;
                acc.correct[k] += ok as u64;
            });
        }
    }
    acc
}

/// Read every head's logits back to the host (async: safe in wasm).
pub async fn logits_to_host(logits: Vec<Tensor<3>>) -> Result<Vec<Vec<f32>>, String> {
    let mut out = Vec::with_capacity(logits.len());
    for l in logits {
        let data = l.into_data_async().await.map_err(|e| format!("readback: {e:?}"))?;
        out.push(data.try_into_vec::<f32>().map_err(|e| format!("readback: {e:?}"))?);
    }
    Ok(out)
}

//! Hidden-state analyses of a trained network (paper Sec. 5G–H, Appendix A4): the memory output streamed
//! over test trials into bounded summaries, and accuracies under unit lesions. The pure computations
//! (task variance, clustering, t-SNE, similarity, lesion masks) live in [`wmlab_core::analysis`]; this
//! module only runs the model and feeds them.
//!
//! What [`collect_hidden`] gathers, from the **test** split, trial indices `0..n` of each task id:
//!
//! - **Task variance** over the **10 tasks** of the paper (Fig. 5B–D): the five CD ids share one row,
//!   `CD` (they share one head, and the paper's TV matrix is 10 × C), so that row pools 5n trials. Every
//!   trial contributes its memory output at its real steps (`0..seq_len`, padding excluded) to a
//!   [`TaskVarianceAccumulator`] (memory independent of `n`).
//! - **STS probe states** (Fig. 5A): for the first [`HiddenLimits::sts_max_trials`] STS trials (300 by
//!   default, and at most [`HiddenLimits::sts_max_values`] floats in all), the state at each scored STS
//!   step with its ground-truth answer (0 = top/left, 1 = bottom/right) and the rule in force (the most
//!   recent cue frame: 0 = up/down, 1 = left/right; read from the cue's dashes, which is how the frame
//!   shows it to a subject).
//! - **First-item states**: the state at step 0 (the first item's presentation) averaged over trials, per
//!   task id (14 rows).
//! - **Serial-position similarity** (Fig. A5): per VSR trial, the cosine similarity of the states at the
//!   presentation steps of items i and j, averaged over trials (9 × 9, `None` where no trial had both).
//! - The 14 task-embedding vectors (Fig. A13).
//!
//! Nothing per trial is kept beyond the STS cap.

use burn::prelude::*;
use serde::{Deserialize, Serialize};
use wmlab_core::analysis::similarity::PositionSimilarity;
use wmlab_core::analysis::tv::TaskVarianceAccumulator;
use wmlab_core::display::Shape;
use wmlab_core::task::{Phase, Target, TaskId, Trial};
use wmlab_core::{Frame, Split};

use crate::batch::{Batch, N_HEADS, N_TASKS, all_specs};
use crate::error::NnError;
use crate::loss::{Accuracy, accuracy, logits_to_host};
use crate::model::{ModelInput, WormModel};
use crate::train::TrainConfig;

/// Number of task families (rows of the TV matrix): the 10 tasks, CD ids pooled.
pub const N_FAMILIES: usize = N_HEADS;
/// Serial positions of the Fig. A5 matrix (VSR lists are at most 9 long).
pub const VSR_POSITIONS: usize = 9;

/// The task family of a task id (= its head index: the five CD ids share one).
pub fn family(task: TaskId) -> usize {
    task.head_index()
}

/// Names of the 10 families in index order (`SC`, `SFR`, …, `CD`, `CS`).
pub fn family_names() -> Vec<String> {
    (0..N_FAMILIES)
        .map(|f| {
            let t = TaskId::ALL.into_iter().find(|t| t.head_index() == f).expect("every head has a task");
            if t.is_cd() { "CD".to_string() } else { t.as_str().to_string() }
        })
        .collect()
}

/// Bounds on what [`collect_hidden_with`] keeps per trial.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HiddenLimits {
    /// STS trials whose probe-step states are kept (Fig. 5A).
    pub sts_max_trials: usize,
    /// At most this many floats of STS states in all (a trial that would pass it is not taken).
    pub sts_max_values: usize,
}

impl Default for HiddenLimits {
    fn default() -> Self {
        HiddenLimits { sts_max_trials: 300, sts_max_values: 2_000_000 }
    }
}

/// STS probe-step states (Fig. 5A): one point per scored STS step of the kept trials.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StsStates {
    /// Units per state (C).
    pub units: usize,
    /// `[points × units]`, row-major.
    pub states: Vec<f32>,
    /// Ground-truth answer per point: 0 = top/left, 1 = bottom/right.
    pub answer: Vec<u8>,
    /// Rule in force per point: 0 = up/down (top vs bottom), 1 = left/right.
    pub rule: Vec<u8>,
    /// Test-split index of the point's trial.
    pub trial: Vec<u32>,
    /// Step of the point within its trial.
    pub step: Vec<u8>,
}

impl StsStates {
    pub fn len(&self) -> usize {
        self.answer.len()
    }
    pub fn is_empty(&self) -> bool {
        self.answer.is_empty()
    }
    /// The state of point `i`.
    pub fn state(&self, i: usize) -> &[f32] {
        &self.states[i * self.units..(i + 1) * self.units]
    }
}

/// Bounded hidden-state summaries of a model on the test split (see the module notes).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HiddenStats {
    /// Model label (`LSTM-256`).
    pub model: String,
    /// Units C of the memory output.
    pub units: usize,
    /// Trials per task id.
    pub n_per_task: usize,
    pub seed: u64,
    /// The 10 family names, rows of `tv` (CD ids pooled as `CD`).
    pub families: Vec<String>,
    /// Trials that went into each family's TV.
    pub trials_per_family: Vec<u64>,
    /// Task variance `[10][units]` ([`TaskVarianceAccumulator::finish`]).
    pub tv: Vec<Vec<f64>>,
    /// STS probe-step states (Fig. 5A).
    pub sts: StsStates,
    /// Task ids of the `first_item` rows (the 14, in [`TaskId::ALL`] order).
    pub first_item_tasks: Vec<String>,
    /// Mean state at step 0 per task id, `[14][units]`.
    pub first_item: Vec<Vec<f64>>,
    /// Fig. A5: mean per-trial cosine similarity of the VSR presentation states, `[9][9]`.
    pub vsr_position_similarity: Vec<Vec<Option<f64>>>,
    /// The task-embedding vectors, `[14][14]` (identity when frozen).
    pub task_embedding: Vec<Vec<f32>>,
}

/// The STS rule a cue frame shows (vertical dashes: up/down = 0; horizontal: left/right = 1), or None
/// for a frame without dashes (a task frame).
pub fn sts_cue_rule(frame: &Frame) -> Option<u8> {
    frame.shapes.iter().find_map(|s| match s {
        Shape::Line { x0, x1, .. } => Some(if x0 == x1 { 0 } else { 1 }),
        _ => None,
    })
}

/// The test trials of one chunk: `m` trials of each task id from index `start`, in [`TaskId::ALL`] order.
fn chunk_trials(train: &TrainConfig, start: usize, m: usize) -> Vec<Trial> {
    all_specs()
        .iter()
        .flat_map(|spec| (start..start + m).map(move |j| spec.trial(train.seed, Split::Test, j as u64)))
        .collect()
}

async fn to_host(t: Tensor<3>) -> Result<Vec<f32>, NnError> {
    let data = t.into_data_async().await.map_err(|e| NnError::device(format!("readback: {e:?}")))?;
    data.convert::<f32>().try_into_vec::<f32>().map_err(|e| NnError::device(format!("readback: {e:?}")))
}

/// [`collect_hidden_with`] with the default [`HiddenLimits`].
pub async fn collect_hidden(
    model: &WormModel,
    train: &TrainConfig,
    n_per_task: usize,
    chunk: usize,
    device: &Device,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<Option<HiddenStats>, NnError> {
    collect_hidden_with(model, train, n_per_task, chunk, device, progress, HiddenLimits::default()).await
}

/// Stream `n_per_task` test trials of each task id (`chunk` per id per batch) through the model and
/// summarise its memory output (see the module notes). `Ok(None)` when `progress(done, total)` (trials)
/// returns false.
pub async fn collect_hidden_with(
    model: &WormModel,
    train: &TrainConfig,
    n_per_task: usize,
    chunk: usize,
    device: &Device,
    progress: &mut dyn FnMut(usize, usize) -> bool,
    limits: HiddenLimits,
) -> Result<Option<HiddenStats>, NnError> {
    let dev = device.clone().without_autodiff();
    let model = model.valid();
    let c = train.model.capacity;
    let (n, chunk) = (n_per_task, chunk.max(1));
    let total = N_TASKS * n;
    let mut tv = TaskVarianceAccumulator::new(N_FAMILIES, train.model.step_capacity(), c);
    let mut trials_per_family = vec![0u64; N_FAMILIES];
    let mut first_sum = vec![vec![0.0f64; c]; N_TASKS];
    let mut first_n = [0u64; N_TASKS];
    let mut positions = PositionSimilarity::new(VSR_POSITIONS);
    let mut sts = StsStates { units: c, ..Default::default() };
    let mut sts_trials = 0usize;
    let mut buf: Vec<f32> = Vec::new();
    if !progress(0, total) {
        return Ok(None);
    }
    let mut start = 0;
    while start < n {
        let m = chunk.min(n - start);
        let trials = chunk_trials(train, start, m);
        let batch = Batch::from_trials(&trials);
        let host = to_host(model.hidden(&ModelInput::from_batch(&batch, &dev))).await?;
        let per_trial = batch.steps * c;
        for (b, tr) in trials.iter().enumerate() {
            let j = start + b % m;
            let states = &host[b * per_trial..(b + 1) * per_trial];
            let task = tr.task;
            tv.add(family(task), states, tr.len());
            trials_per_family[family(task)] += 1;
            let k = task.ordinal() as usize;
            if !tr.is_empty() {
                for (acc, &x) in first_sum[k].iter_mut().zip(&states[..c]) {
                    *acc += x as f64;
                }
                first_n[k] += 1;
            }
            if task == TaskId::Vsr {
                buf.clear();
                for (s, _) in tr.steps.iter().enumerate().filter(|(_, st)| st.phase == Phase::Present) {
                    buf.extend_from_slice(&states[s * c..(s + 1) * c]);
                }
                positions.add(&buf, c, buf.len() / c.max(1));
            }
            if task == TaskId::Sts && sts_trials < limits.sts_max_trials {
                let points = tr.scored_steps().count();
                if sts.states.len() + points * c <= limits.sts_max_values {
                    sts_trials += 1;
                    let mut rule = None;
                    for (s, step) in tr.steps.iter().enumerate() {
                        if let Some(r) = sts_cue_rule(&step.frame).filter(|_| step.phase == Phase::Switch) {
                            rule = Some(r);
                        }
                        if let (true, Target::Class(a), Some(r)) = (step.scored, &step.target, rule) {
                            sts.states.extend_from_slice(&states[s * c..(s + 1) * c]);
                            sts.answer.push(*a as u8);
                            sts.rule.push(r);
                            sts.trial.push(j as u32);
                            sts.step.push(s as u8);
                        }
                    }
                }
            }
        }
        start += m;
        if !progress(N_TASKS * start, total) {
            return Ok(None);
        }
    }
    let first_item = first_sum
        .into_iter()
        .zip(first_n)
        .map(|(v, k)| v.into_iter().map(|x| if k > 0 { x / k as f64 } else { 0.0 }).collect())
        .collect();
    Ok(Some(HiddenStats {
        model: train.model.label(),
        units: c,
        n_per_task: n,
        seed: train.seed,
        families: family_names(),
        trials_per_family,
        tv: tv.finish(),
        sts,
        first_item_tasks: TaskId::ALL.iter().map(|t| t.as_str().to_string()).collect(),
        first_item,
        vsr_position_similarity: positions.finish(),
        task_embedding: model.task_embedding_rows().await.map_err(NnError::device)?,
    }))
}

/// Per-task accuracy (as validation scores it, [`crate::loss::accuracy`]) on `n_per_task` test trials of
/// each task id with each unit mask applied to the memory output before the heads (length C; 1 keeps a
/// unit, 0 lesions it; see `wmlab_core::analysis::lesion::lesion_mask`). The memory runs once per batch
/// for all masks. One [`Accuracy`] per mask, in order; pass an all-ones mask for the intact model.
/// `Ok(None)` when `progress(done, total)` (trials) returns false.
pub async fn lesion_accuracies(
    model: &WormModel,
    train: &TrainConfig,
    masks: &[Vec<f32>],
    n_per_task: usize,
    chunk: usize,
    device: &Device,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<Option<Vec<Accuracy>>, NnError> {
    let c = train.model.capacity;
    if let Some(m) = masks.iter().find(|m| m.len() != c) {
        return Err(NnError::device(format!("a lesion mask has {} entries for {c} units", m.len())));
    }
    let dev = device.clone().without_autodiff();
    let model = model.valid();
    let (n, chunk) = (n_per_task, chunk.max(1));
    let total = N_TASKS * n;
    let masks_t: Vec<Tensor<1>> =
        masks.iter().map(|m| Tensor::<1>::from_data(TensorData::new(m.clone(), [c]), &dev)).collect();
    let mut accs = vec![Accuracy::default(); masks.len()];
    if !progress(0, total) {
        return Ok(None);
    }
    let mut start = 0;
    while start < n {
        let m = chunk.min(n - start);
        let batch = Batch::from_trials(&chunk_trials(train, start, m));
        let h = model.hidden(&ModelInput::from_batch(&batch, &dev));
        for (acc, mask) in accs.iter_mut().zip(&masks_t) {
            let logits = model.heads_on(h.clone(), Some(mask.clone()));
            let host = logits_to_host(logits).await.map_err(NnError::device)?;
            acc.add(&accuracy(&batch, &host));
        }
        start += m;
        if !progress(N_TASKS * start, total) {
            return Ok(None);
        }
    }
    Ok(Some(accs))
}

/// Accuracy per family (the 10 tasks; the CD ids' counts pooled), in [`family_names`] order.
pub fn family_accuracy(acc: &Accuracy) -> Vec<Option<f64>> {
    let mut k = [0u64; N_FAMILIES];
    let mut n = [0u64; N_FAMILIES];
    for t in TaskId::ALL {
        let i = t.ordinal() as usize;
        k[family(t)] += acc.correct[i];
        n[family(t)] += acc.total[i];
    }
    (0..N_FAMILIES).map(|f| (n[f] > 0).then(|| k[f] as f64 / n[f] as f64)).collect()
}

/// Why [`analyse_network`] did not give a report.
#[derive(Debug)]
pub enum AnalyseError {
    /// `progress` returned false.
    Cancelled,
    /// A stage failed (its name, the error).
    Failed(&'static str, String),
}

impl std::fmt::Display for AnalyseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnalyseError::Cancelled => write!(f, "analysis cancelled"),
            AnalyseError::Failed(stage, e) => write!(f, "analysis failed ({stage}): {e}"),
        }
    }
}

/// Every neural analysis of the paper (Fig. 5A–D, A5, A6, A13) for `model` on `n` test trials per task
/// id (at least 2): hidden states ([`collect_hidden`]) → the core's report
/// ([`wmlab_core::analysis::network_analysis`]: TV, clusters, t-SNE, FTV, STS embedding, similarity) →
/// accuracies of the intact network and with each cluster lesioned ([`lesion_accuracies`]).
/// `progress(stage, done, total)` is called during every stage (`hidden`, the t-SNE stages every 50
/// iterations, `lesions`); returning false cancels. One function for the app's worker and `wmlab analyse`.
pub async fn analyse_network(
    model: &WormModel,
    train: &TrainConfig,
    n: usize,
    chunk: usize,
    tsne_iterations: usize,
    device: &Device,
    progress: &mut dyn FnMut(&str, usize, usize) -> bool,
) -> Result<wmlab_core::analysis::NetworkAnalysis, AnalyseError> {
    use wmlab_core::analysis::{AnalysisInput, network_analysis};
    if train.model.encoder_kind() == crate::model::Encoder::Words {
        return Err(AnalyseError::Failed(
            "inputs",
            "the neural analyses compare the 14 visual tasks; this model was trained on LSR alone and reads words, \
             not frames (evaluate it for its behaviour instead)"
                .into(),
        ));
    }
    let n = n.max(2);
    let stats = {
        let mut p = |d: usize, t: usize| progress("hidden", d, t);
        match collect_hidden(model, train, n, chunk, device, &mut p).await {
            Ok(Some(s)) => s,
            Ok(None) => return Err(AnalyseError::Cancelled),
            Err(e) => return Err(AnalyseError::Failed("hidden states", e.to_string())),
        }
    };
    let emb: Vec<Vec<f64>> = stats.task_embedding.iter().map(|r| r.iter().map(|&x| x as f64).collect()).collect();
    let input = AnalysisInput {
        families: &stats.families,
        tv: &stats.tv,
        sts_units: stats.sts.units,
        sts_states: &stats.sts.states,
        sts_answer: &stats.sts.answer,
        sts_rule: &stats.sts.rule,
        tasks: &stats.first_item_tasks,
        first_item: &stats.first_item,
        task_embedding: &emb,
        vsr_position_similarity: &stats.vsr_position_similarity,
        seed: train.seed,
        tsne_iterations,
    };
    let mut report = {
        let mut tp = |stage: &str, d: usize, t: usize| {
            if d.is_multiple_of(50) || d + 1 == t { progress(stage, d, t) } else { true }
        };
        network_analysis(&input, &mut tp).ok_or(AnalyseError::Cancelled)?
    };
    // Lesions: the intact network first, then one mask per cluster.
    let mut masks = vec![vec![1.0f32; train.model.capacity]];
    masks.extend(report.lesion_masks());
    let mut lp = |d: usize, t: usize| progress("lesions", d, t);
    match lesion_accuracies(model, train, &masks, n, chunk, device, &mut lp).await {
        Ok(Some(accs)) => {
            let mut fam: Vec<Vec<Option<f64>>> = accs.iter().map(family_accuracy).collect();
            let base = fam.remove(0);
            report.add_lesions(base, fam);
            Ok(report)
        }
        Ok(None) => Err(AnalyseError::Cancelled),
        Err(e) => Err(AnalyseError::Failed("lesions", e.to_string())),
    }
}

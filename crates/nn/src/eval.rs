//! A network's test evaluation as a [`ResultRecord`]: the same trial rows and summaries a person's
//! session produces, so every results view (Fig. 4 curves, CSV, share links) reads networks, people and
//! LLMs alike.
//!
//! The model runs on the **test** split, trial indices `0..n` of each of the 14 task ids (trial `i` is in
//! condition cell `i mod K`, so any `n` is balanced). At every answerable step (scored, with a response)
//! its logits become an answer the way the reference scores it (§1.2–1.4), and the answers are scored by
//! the people scorer ([`wmlab_core::people::score::score_trial`]):
//!
//! - one-logit heads (SC, SI, VIR, VSRec, CD×5): class 1 ⇔ logit > 0 (round(σ));
//! - k-way heads (VSR, SMU, STS, CS): the argmax over all the head's classes. When it falls outside the
//!   options a person has at that step (STS class 2 = "cue"; a CS class of another phase or 20 = "no
//!   response"), the step is wrong and the row's response is the raw class number (a person's row would
//!   say `none` there);
//! - SFR: the top-L cells of the 100 logits (L = list length), highest first, scored per target cell
//!   (`correct` = recalled or not, the row's score = hits / L; `sfr_exact` = same set).
//!
//! Rows carry the people encoding: targets/responses/correct per scored step, the trial's conditions,
//! `serial_positions` (where the probes name one) and `sfr_exact` in `extra`, plus `index` (the generator
//! index of the trial in the test split). So [`wmlab_core::people::reference::subject_curves`] gives the
//! network's Fig. 4 curves.
//!
//! Summaries: one per task id with metric `accuracy` and **empty conditions** (the whole task), as the
//! reference scores it: the proportion correct over all scored items of the task (VSR/VSRec/SMU/STS:
//! per probe step, cue steps excluded; SFR: per target cell; CS: the recall probes only, as in
//! `bench_cs_task.ipynb`; the one-probe tasks: per trial). Its `n` is the number of scored items and
//! `se` the binomial standard error. One more summary, task `all`, metric `mean_accuracy`, is the mean
//! of the 14; then [`wmlab_core::record::summarise`] per condition cell (mean trial score).

use std::collections::BTreeMap;

use burn::prelude::*;
use wmlab_core::Split;
use wmlab_core::chance::accuracy_items;
use wmlab_core::networks::training_curve;
use wmlab_core::people::score::{Answer, answer_class, score_trial};
use wmlab_core::people::timing::answerable;
use wmlab_core::record::{ResultRecord, RunConfig, Setting, Subject, Summary, TrialRow, summarise};
use wmlab_core::task::{Conditions, HeadKind, Response, Step, Target, TaskId, Trial};

use crate::batch::Batch;
use crate::checkpoint::Checkpoint;
use crate::error::NnError;
use crate::loss::logits_to_host;
use crate::model::{ModelInput, WormModel};
use crate::train::TrainConfig;

/// The logits of head `head` (with `units` outputs) at batch row `b`, step `s`, from host logits laid
/// out as [`logits_to_host`] returns them (`[B, T, U]` row-major per head; `t` = T, the batch's steps).
pub fn step_logits(logits: &[Vec<f32>], head: usize, units: usize, t: usize, b: usize, s: usize) -> &[f32] {
    let r = b * t + s;
    &logits[head][r * units..(r + 1) * units]
}

/// The model's answer at one answerable step from that step's logits `x` (the task head's outputs), as
/// a person's [`Answer`] (the option index), plus the raw class when the argmax lies outside the
/// options a person has there (then the answer is [`Answer::None`], i.e. wrong).
pub fn model_answer(task: TaskId, step: &Step, x: &[f32]) -> (Answer, Option<u16>) {
    let class = match task.head() {
        HeadKind::Binary => (x[0] > 0.0) as u16,
        HeadKind::Classes(_) => {
            let mut best = 0;
            for k in 1..x.len() {
                if x[k] > x[best] {
                    best = k;
                }
            }
            best as u16
        }
        HeadKind::MultiLabel(_) => {
            let l = match &step.target {
                Target::Set(v) => v.len(),
                _ => 0,
            };
            let mut order: Vec<usize> = (0..x.len()).collect();
            // Highest first; ties by the lower cell (stable sort).
            order.sort_by(|&a, &b| x[b].total_cmp(&x[a]));
            return (Answer::Set(order.into_iter().take(l).map(|c| c as u16).collect()), None);
        }
    };
    let n = match &step.response {
        Response::Binary { .. } => 2,
        Response::Choice { n } => *n,
        _ => 0,
    };
    // The class of option 0 (CS: the first class of the step's phase; 0 elsewhere).
    let offset = answer_class(task, step, 0);
    if class >= offset && class < offset + n {
        (Answer::Class(class - offset), None)
    } else {
        (Answer::None, Some(class))
    }
}

/// One trial row in the people encoding, from the model's host logits at batch row `b` of a batch of
/// `t` steps ([`Batch::steps`]). `trial_no` is the row's number in the record, `index` the trial's
/// generator index.
pub fn trial_row(
    trial: &Trial,
    trial_no: u64,
    index: u64,
    logits: &[Vec<f32>],
    t: usize,
    b: usize,
) -> Result<TrialRow, NnError> {
    let task = trial.task;
    let head = task.head_index();
    let units = task.head().units() as usize;
    let mut answers = Vec::new();
    let mut raw = Vec::new();
    for (s, step) in trial.steps.iter().enumerate().filter(|(_, st)| answerable(st)) {
        let (a, r) = model_answer(task, step, step_logits(logits, head, units, t, b, s));
        answers.push(a);
        raw.push(r);
    }
    let mut scored = score_trial(task, &trial.steps, &answers).map_err(|e| NnError::Model(e.to_string()))?;
    // Write the raw class where the model answered outside the options (score_trial wrote `none`).
    let mut pos = 0;
    for (a, r) in answers.iter().zip(&raw) {
        match a {
            Answer::Set(v) => pos += v.len(),
            _ => {
                if let (Some(c), Some(slot)) = (r, scored.responses.get_mut(pos)) {
                    *slot = c.to_string();
                }
                pos += 1;
            }
        }
    }
    let mut extra = BTreeMap::new();
    if let Some(exact) = scored.exact_set {
        extra.insert("sfr_exact".into(), Setting::Bool(exact));
    }
    if scored.serial_positions.iter().any(|p| p.is_some()) {
        let v: Vec<String> =
            scored.serial_positions.iter().map(|p| p.map(|x| x.to_string()).unwrap_or_else(|| "-".into())).collect();
        extra.insert("serial_positions".into(), Setting::Text(v.join(" ")));
    }
    extra.insert("index".into(), Setting::Int(index.min(i64::MAX as u64) as i64));
    Ok(TrialRow {
        task: task.as_str().to_string(),
        trial: trial_no,
        conditions: trial.conditions.clone(),
        targets: scored.targets,
        responses: scored.responses,
        correct: scored.correct,
        rt_ms: Vec::new(),
        extra,
    })
}

/// The task's accuracy as the reference scores it (see the module notes), from its rows.
pub fn task_accuracy(task: TaskId, rows: &[TrialRow]) -> Option<Summary> {
    let (mut k, mut n) = (0u64, 0u64);
    for r in rows.iter().filter(|r| r.task == task.as_str()) {
        for (ok, _) in accuracy_items(r) {
            n += 1;
            k += ok as u64;
        }
    }
    if n == 0 {
        return None;
    }
    let p = k as f64 / n as f64;
    Some(Summary {
        task: task.as_str().into(),
        conditions: Conditions::default(),
        metric: "accuracy".into(),
        n: n.min(u32::MAX as u64) as u32,
        value: p,
        se: (n > 1).then(|| (p * (1.0 - p) / n as f64).sqrt()),
    })
}

/// The record of a network's test rows (see the module notes for the summaries). `train.steps` is
/// written as the subject's trained steps.
pub fn network_record(train: &TrainConfig, backend: &str, n_per_task: usize, rows: Vec<TrialRow>) -> ResultRecord {
    let m = &train.model;
    let mut settings: BTreeMap<String, Setting> = BTreeMap::new();
    settings.insert("preset".into(), Setting::Text(train.preset.clone()));
    settings.insert("arch".into(), Setting::Text(m.arch.as_str().into()));
    settings.insert("capacity".into(), Setting::Int(m.capacity as i64));
    settings.insert("model".into(), Setting::Text(m.label()));
    settings.insert("model_config".into(), Setting::Text(serde_json::to_string(m).unwrap_or_default()));
    settings.insert("per_task".into(), Setting::Int(train.per_task as i64));
    settings.insert("lr".into(), Setting::Num(train.lr));
    settings.insert("train_size".into(), Setting::Int(train.train_size.min(i64::MAX as u64) as i64));
    settings.insert("n_per_task".into(), Setting::Int(n_per_task as i64));
    settings.insert("split".into(), Setting::Text(Split::Test.as_str().into()));
    settings.insert("backend".into(), Setting::Text(backend.into()));
    settings.insert(
        "task_embedding".into(),
        Setting::Text(if m.frozen_task_embedding { "static" } else { "learned" }.into()),
    );
    settings.insert("trials_per_step".into(), Setting::Int(train.trials_per_step() as i64));
    if let Some(list) = train.task_settings.as_deref().filter(|l| !l.is_empty()) {
        let text = list.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("; ");
        settings.insert("task_settings".into(), Setting::Text(text));
    }
    let ids = train.task_ids();
    // The ids the network was trained on (all 14 unless a subset was chosen).
    settings
        .insert("trained_tasks".into(), Setting::Text(ids.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(",")));
    let config = RunConfig { seed: train.seed, tasks: train.specs(), settings };
    let task = ids.iter().map(|t| t.as_str()).collect::<Vec<_>>().join("+");
    let subject = Subject::Network {
        arch: m.arch.as_str().into(),
        capacity: m.capacity.min(u32::MAX as usize) as u32,
        preset: train.preset.clone(),
        steps: train.steps as u64,
        backend: backend.into(),
    };
    let mut r = ResultRecord::new(subject, task, config);
    let per_task: Vec<Summary> = ids.iter().filter_map(|&t| task_accuracy(t, &rows)).collect();
    if !per_task.is_empty() {
        let mean = per_task.iter().map(|s| s.value).sum::<f64>() / per_task.len() as f64;
        let count = per_task.len() as u32;
        r.summaries.extend(per_task);
        r.summaries.push(Summary {
            task: "all".into(),
            conditions: Conditions::default(),
            metric: "mean_accuracy".into(),
            n: count,
            value: mean,
            se: None,
        });
    }
    r.summaries.extend(summarise(&rows));
    r.trials = rows;
    r
}

/// Evaluate `model` on the test split (`n_per_task` trials of each trained task id, `chunk` trials per id per
/// batch) and return its result record (see the module notes); `Ok(None)` when `progress(done, total)`
/// (trials) returns false. `backend` names the device for the record (`flex`, `wgpu`, …). The subject's
/// `steps` is `train.steps`: for a checkpoint pass its trained steps (as [`evaluate_checkpoint`] does).
pub async fn evaluate_record(
    model: &WormModel,
    train: &TrainConfig,
    backend: &str,
    n_per_task: usize,
    chunk: usize,
    device: &Device,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<Option<ResultRecord>, NnError> {
    evaluate_record_on(model, train, backend, n_per_task, chunk, device, Trials::AsGenerated, progress).await
}

/// Which test trials an evaluation shows the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trials {
    /// The test split as generated.
    AsGenerated,
    /// The memoryless control: the same trials with every unscored (memory) frame blank
    /// ([`wmlab_core::task::Trial::memory_blanked`]); the record's `memory_frames` setting says `blanked`.
    MemoryBlanked,
}

/// [`evaluate_record`] on the trials `which` says.
#[allow(clippy::too_many_arguments)]
pub async fn evaluate_record_on(
    model: &WormModel,
    train: &TrainConfig,
    backend: &str,
    n_per_task: usize,
    chunk: usize,
    device: &Device,
    which: Trials,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<Option<ResultRecord>, NnError> {
    let specs = train.specs();
    let dev = device.clone().without_autodiff();
    let model = model.valid();
    let n = n_per_task;
    let chunk = chunk.max(1);
    let total = specs.len() * n;
    let mut rows: Vec<Vec<TrialRow>> = vec![Vec::with_capacity(n); specs.len()];
    if !progress(0, total) {
        return Ok(None);
    }
    let mut start = 0;
    while start < n {
        let m = chunk.min(n - start);
        let trials: Vec<Trial> = specs
            .iter()
            .flat_map(|spec| (start..start + m).map(move |j| spec.trial(train.seed, Split::Test, j as u64)))
            .map(|t| if which == Trials::MemoryBlanked { t.memory_blanked() } else { t })
            .collect();
        let batch = Batch::from_trials(&trials);
        let logits = model.forward(&ModelInput::from_batch(&batch, &dev));
        let host = logits_to_host(logits).await.map_err(NnError::device)?;
        for (b, tr) in trials.iter().enumerate() {
            let (k, j) = (b / m, start + b % m);
            let row = trial_row(tr, (k * n + j) as u64, j as u64, &host, batch.steps, b)
                .map_err(|e| NnError::device(format!("scoring the model's answers: {e}")))?;
            rows[k].push(row);
        }
        start += m;
        if !progress(specs.len() * start, total) {
            return Ok(None);
        }
    }
    let mut record = network_record(train, backend, n, rows.into_iter().flatten().collect());
    if which == Trials::MemoryBlanked {
        record.config.settings.insert("memory_frames".into(), Setting::Text("blanked".into()));
    }
    Ok(Some(record))
}

/// `model` on the trials another subject took (`replay`, regenerated from their record by
/// [`wmlab_core::people::replay::worm_trials_of`]), those of the task ids it was trained on, `chunk`
/// trials a batch. Each row keeps its trial's index in its task, so `analysis::agreement` pairs it with
/// the other subject's row; the record's seed and split are the trials' (`trained_seed`: the run's).
/// `Ok(None)` when `progress(done, total)` returns false.
#[allow(clippy::too_many_arguments)]
pub async fn evaluate_replay(
    model: &WormModel,
    train: &TrainConfig,
    backend: &str,
    replay: &wmlab_core::people::replay::Replay,
    subject: &str,
    chunk: usize,
    device: &Device,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<Option<ResultRecord>, NnError> {
    let ids = train.task_ids();
    // The CLI checks this before it opens a device; the Networks page hears it from here.
    let replay = replay.clone().only(&ids).map_err(|e| NnError::Trials(e.to_string()))?;
    let trials = replay.generate();
    let dev = device.clone().without_autodiff();
    let model = model.valid();
    let total = trials.len();
    let mut rows = Vec::with_capacity(total);
    if !progress(0, total) {
        return Ok(None);
    }
    for group in trials.chunks(chunk.max(1)) {
        let batch_trials: Vec<Trial> = group.iter().map(|(_, t)| t.clone()).collect();
        let batch = Batch::from_trials(&batch_trials);
        let logits = model.forward(&ModelInput::from_batch(&batch, &dev));
        let host = logits_to_host(logits).await.map_err(NnError::device)?;
        for (b, (index, tr)) in group.iter().enumerate() {
            let row = trial_row(tr, rows.len() as u64, *index, &host, batch.steps, b)
                .map_err(|e| NnError::device(format!("scoring the model's answers: {e}")))?;
            rows.push(row);
        }
        if !progress(rows.len(), total) {
            return Ok(None);
        }
    }
    let most = ids.iter().map(|&id| rows.iter().filter(|r| r.task == id.as_str()).count()).max().unwrap_or(0);
    let mut record = network_record(train, backend, most, rows);
    record.config.seed = replay.seed;
    // The parameters the other subject's trials were drawn with.
    record.config.tasks = replay.specs();
    let settings = &mut record.config.settings;
    settings.insert("split".into(), Setting::Text(replay.split.as_str().into()));
    settings.insert("trained_seed".into(), Setting::Int(train.seed.min(i64::MAX as u64) as i64));
    settings.insert("trials_of".into(), Setting::Text(subject.into()));
    Ok(Some(record))
}

/// One adaptive run of a change-detection task: the staircase after the run and the rows it showed.
pub struct StaircaseRun {
    pub task: TaskId,
    pub run: wmlab_core::adaptive::TaskStaircase,
    pub rows: Vec<TrialRow>,
}

/// `model` on a staircase ([`wmlab_core::adaptive::TaskStaircase`]) for each task it was trained on
/// that has a level (CD's set size, VSR / VSRec / LSR's list length; settings
/// [`wmlab_core::adaptive::StaircaseConfig::for_task`]), one trial at a time, the trials drawn from the
/// run's seed on the test split; `progress(trials so far)` is called after each trial.
pub async fn evaluate_staircase(
    model: &WormModel,
    train: &TrainConfig,
    device: &Device,
    progress: &mut dyn FnMut(usize),
) -> Result<Vec<StaircaseRun>, NnError> {
    let dev = device.clone().without_autodiff();
    let model = model.valid();
    let mut out = Vec::new();
    let mut done = 0;
    for spec in train.specs() {
        let task = spec.id;
        let Some(config) = wmlab_core::adaptive::StaircaseConfig::for_task(&spec) else { continue };
        let Some(run) = wmlab_core::adaptive::TaskStaircase::new(spec, train.seed, Split::Test, config) else {
            continue;
        };
        let mut run = run.map_err(|e| NnError::Trials(e.to_string()))?;
        let mut rows = Vec::new();
        while let Some((index, _, trial)) = run.next_trial() {
            let batch = Batch::from_trials(std::slice::from_ref(&trial));
            let logits = model.forward(&ModelInput::from_batch(&batch, &dev));
            let host = logits_to_host(logits).await.map_err(NnError::device)?;
            let row = trial_row(&trial, rows.len() as u64, index, &host, batch.steps, 0)
                .map_err(|e| NnError::device(format!("scoring the model's answers: {e}")))?;
            run.record(run.kind().passed(&row.correct));
            rows.push(row);
            done += 1;
            progress(done);
        }
        out.push(StaircaseRun { task, run, rows });
    }
    Ok(out)
}

/// [`evaluate_record`] of a checkpoint's model, with the checkpoint's trained steps as the subject's
/// `steps` and its `per_task` as the chunk.
pub async fn evaluate_checkpoint(
    ck: &Checkpoint,
    backend: &str,
    n_per_task: usize,
    device: &Device,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<Option<ResultRecord>, NnError> {
    evaluate_checkpoint_on(ck, backend, n_per_task, device, Trials::AsGenerated, progress).await
}

/// [`evaluate_checkpoint`] on the trials `which` says.
pub async fn evaluate_checkpoint_on(
    ck: &Checkpoint,
    backend: &str,
    n_per_task: usize,
    device: &Device,
    which: Trials,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<Option<ResultRecord>, NnError> {
    let dev = device.clone().without_autodiff();
    let model = ck.model(&dev).map_err(NnError::device)?;
    let train = ck.train.clone().with_steps(ck.state.step);
    let chunk = ck.train.per_task.max(1);
    let mut rec = evaluate_record_on(&model, &train, backend, n_per_task, chunk, &dev, which, progress).await?;
    if let Some(r) = rec.as_mut() {
        r.training = training_curve(&ck.state.history, ck.train.trials_per_step());
    }
    Ok(rec)
}

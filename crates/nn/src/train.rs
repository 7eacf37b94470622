//! Joint training (reference §1.4): each step draws `per_task` trials of each of the 14 task ids from the
//! generators, sums the masked per-task losses, and takes an Adam step. Validation checks compute the
//! loss and accuracy per task id on the validation split; the learning rate is multiplied by 0.8 after
//! `patience` checks without a relative improvement of the validation loss by `threshold`
//! (`ReduceLROnPlateau`), and the best model by mean validation accuracy is kept.
//!
//! Everything here is async with only async readbacks, so the same code runs in the browser (yield to
//! the event loop between steps) and natively (`pollster::block_on`).

use burn::module::Module;
use burn::optim::grad_clipping::GradientClippingConfig;
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer};
use burn::prelude::*;
use burn::tensor::Bytes;
use std::collections::BTreeMap;
use wmlab_core::Split;
use wmlab_core::record::TrialRow;
use wmlab_core::task::TaskSpec;

use crate::batch::{Batch, joint_trials_in, spread_index};
use crate::checkpoint::Checkpoint;
use crate::error::NnError;
use crate::loss::{Accuracy, Targets, accuracy, joint_loss_scaled, logits_to_host};
use crate::model::{BuildModel, ModelInput, WormModel};

/// Training hyper-parameters: plain data in the core (the page edits and checks them too).
pub use wmlab_core::networks::{Preset, TrainConfig};

/// The optimizer a config trains with (Adam, with its gradient clipping and epsilon).
pub fn optimizer(config: &TrainConfig) -> ModuleOptimizer {
    let adam = AdamConfig::new().with_grad_clipping(config.grad_clip.map(|c| GradientClippingConfig::Norm(c as f32)));
    match config.adam_epsilon {
        Some(eps) => adam.with_epsilon(eps as f32).init(),
        None => adam.init(),
    }
}

pub use wmlab_core::networks::{TrainState, ValReport};

/// Reads every float parameter once, which draws those burn initialises lazily.
struct Materialise;

impl burn::module::ModuleVisitor for Materialise {
    fn visit_float<const D: usize>(&mut self, param: &burn::module::Param<Tensor<D>>) {
        let _ = param.val();
    }
}

/// A training run, advanced one step at a time.
pub struct Trainer {
    pub config: TrainConfig,
    /// An autodiff device.
    pub device: Device,
    /// Always `Some` between calls (the optimizer takes the model by value during a step).
    model: Option<WormModel>,
    optim: ModuleOptimizer,
    specs: Vec<TaskSpec>,
    /// The easier half of each spec's grid ([`TaskSpec::easy_cells`]), for the curriculum's steps.
    easy: Vec<Vec<usize>>,
    pub state: TrainState,
    /// The best model so far (by mean validation accuracy), as checkpoint bytes.
    pub best: Option<Checkpoint>,
    loss_sum: f64,
    loss_n: usize,
    /// Wall-clock seconds of training so far, as the caller measures it; copied into the next
    /// validation report.
    pub elapsed_s: Option<f64>,
}

impl Trainer {
    /// A fresh run. `device` should be an autodiff device (`Device::flex().autodiff()`).
    ///
    /// The weights are drawn on the CPU (flex's generator, seeded with the run's seed) whatever the
    /// device, then moved to it: each backend has its own random generator, and a run that starts from
    /// the same weights on WebGPU, CUDA or the CPU gives the same losses (within float rounding), so
    /// the backends can be checked against one another and a seed names one model.
    pub fn new(mut config: TrainConfig, device: Device) -> Trainer {
        config.fit_to_tasks();
        device.seed(config.seed);
        let on_cpu = device.clone().inner() == Device::flex();
        let init = if on_cpu {
            device.clone()
        } else {
            let cpu = Device::flex().autodiff();
            cpu.seed(config.seed);
            cpu
        };
        let mut model = config.model.init(&init);
        // burn draws a parameter when it is first used: draw them all now, in the module's order, so
        // the values do not depend on which device or which forward pass touches them first.
        model.visit(&mut Materialise);
        if config.reference_init == Some(true) {
            model = crate::model::reference_init(model, &init);
        }
        if !on_cpu {
            // `fork`, not `to_device`: the moved weights are fresh leaves of the device's graph.
            model = model.fork(&device);
        }
        Self::with_model(config, device, model, None)
    }

    /// Resume from a checkpoint: weights, config, schedule state and Adam's state (moments and step
    /// counts), so the run continues exactly as if it had not stopped. A checkpoint without optimizer
    /// state (an older one, or a weights-only best model) resumes with a fresh Adam (zero moments).
    pub fn resume(ck: &Checkpoint, device: Device) -> Result<Trainer, NnError> {
        let model = ck.model(&device)?;
        let mut tr = Self::with_model(ck.train.clone(), device, model, Some(ck.state.clone()));
        if let Some(bytes) = &ck.optimizer {
            let optim = std::mem::replace(&mut tr.optim, optimizer(&tr.config));
            tr.optim = optim
                .from_bytes(Bytes::from_bytes_vec(bytes.clone()))
                .map_err(|e| NnError::Optimizer(e.to_string()))?;
        }
        Ok(tr)
    }

    /// Adam's state as burnpack bytes (what [`Trainer::checkpoint`] stores). Reads the state tensors
    /// back with burn's synchronous snapshot, as the weights' record does.
    pub fn optimizer_bytes(&self) -> Result<Vec<u8>, NnError> {
        Ok(self.optim.into_bytes().map_err(|e| NnError::Optimizer(e.to_string()))?.to_vec())
    }

    fn with_model(config: TrainConfig, device: Device, model: WormModel, state: Option<TrainState>) -> Trainer {
        let state = state.unwrap_or(TrainState { lr: config.lr, ..Default::default() });
        let specs = config.specs();
        Trainer {
            optim: optimizer(&config),
            easy: specs.iter().map(TaskSpec::easy_cells).collect(),
            specs,
            model: Some(model),
            device,
            state,
            best: None,
            config,
            loss_sum: 0.0,
            loss_n: 0,
            elapsed_s: None,
        }
    }

    /// The model being trained.
    pub fn model(&self) -> &WormModel {
        self.model.as_ref().expect("model")
    }

    pub fn done(&self) -> bool {
        self.state.step >= self.config.steps
    }

    /// The training batch of a step.
    pub fn train_batch(&self, step: usize) -> Batch {
        let easy = self.config.curriculum.is_some_and(|n| step < n).then_some(self.easy.as_slice());
        Batch::from_trials(&joint_trials_in(
            &self.specs,
            self.config.seed,
            Split::Train,
            step as u64,
            self.config.per_task,
            Some(self.config.train_size),
            self.config.shuffle_epochs == Some(true),
            easy,
        ))
    }

    /// One optimisation step on a given batch; returns the loss. The model is not updated when the loss
    /// is not finite.
    pub async fn step_on(&mut self, batch: &Batch) -> Result<f32, NnError> {
        let input = ModelInput::from_batch(batch, &self.device);
        let targets = Targets::from_batch(batch, &self.device);
        let loss = self.model().loss(&input, &targets, self.config.multilabel_scale.unwrap_or(1.0));
        // The backward pass and Adam's step are recorded before the loss is read back, so the device
        // works through them while the host waits, instead of idling between the forward and the
        // backward. A non-finite loss still updates nothing: the model and the optimizer from before
        // the step (handles, not copies) are put back.
        let grads = GradientsParams::from_grads(loss.backward(), self.model());
        let before = (self.model.clone(), self.optim.clone());
        let model = self.model.take().expect("model");
        self.model = Some(self.optim.step(self.state.lr, model, grads));
        let value = match loss.into_scalar_async::<f32>().await {
            Ok(v) => v,
            Err(e) => {
                (self.model, self.optim) = before;
                return Err(NnError::device(format!("{e:?}")));
            }
        };
        if !value.is_finite() {
            (self.model, self.optim) = before;
            return Err(NnError::NonFinite { step: self.state.step, loss: value });
        }
        Ok(value)
    }

    /// The next training step (fresh joint batch).
    pub async fn train_step(&mut self) -> Result<f32, NnError> {
        let batch = self.train_batch(self.state.step);
        let loss = self.step_on(&batch).await?;
        self.state.step += 1;
        self.loss_sum += loss as f64;
        self.loss_n += 1;
        Ok(loss)
    }

    /// Whether a validation check is due after the current step.
    pub fn check_due(&self) -> bool {
        let s = self.state.step;
        s > 0 && (s.is_multiple_of(self.config.val_every.max(1)) || s == self.config.steps)
    }

    /// A validation check: loss and accuracy on the validation split, plateau schedule, best model.
    pub async fn validate(&mut self) -> Result<ValReport, NnError> {
        let chunk = self.config.per_task.max(1);
        let n = self.config.val_per_task.max(1);
        let (val_loss, acc, rows) = evaluate_rows(
            self.model(),
            &self.specs,
            self.config.seed,
            Split::Val,
            n,
            chunk,
            self.config.multilabel_scale.unwrap_or(1.0),
            &self.device,
        )
        .await?;
        // Plateau on the validation loss (mode min, relative threshold).
        let st = &mut self.state;
        match st.plateau_best_loss {
            Some(b) if val_loss >= b * (1.0 - self.config.plateau_threshold) => {
                st.plateau_bad_checks += 1;
                if st.plateau_bad_checks > self.config.plateau_patience {
                    st.lr *= self.config.plateau_factor;
                    st.plateau_bad_checks = 0;
                }
            }
            _ => {
                st.plateau_best_loss = Some(val_loss);
                st.plateau_bad_checks = 0;
            }
        }
        let mean = acc.mean();
        let significance: Vec<_> = self
            .config
            .task_ids()
            .into_iter()
            .filter_map(|t| wmlab_core::chance::task_significance(t, &rows))
            .collect();
        let scored: BTreeMap<String, f64> = significance.iter().map(|s| (s.task.clone(), s.accuracy)).collect();
        let above = significance.iter().filter(|s| s.above_chance(wmlab_core::chance::LEVEL)).count();
        let best = st.best_mean_accuracy.is_none_or(|b| mean > b);
        if best {
            st.best_mean_accuracy = Some(mean);
            st.best_step = Some(st.step);
        }
        let report = ValReport {
            step: st.step,
            train_loss: if self.loss_n > 0 { self.loss_sum / self.loss_n as f64 } else { f64::NAN },
            val_loss,
            accuracy: acc.to_map(),
            mean_accuracy: mean,
            lr: st.lr,
            best,
            elapsed_s: self.elapsed_s,
            scored_accuracy: Some(scored),
            above_chance: Some(above),
        };
        st.history.push(report.clone());
        self.loss_sum = 0.0;
        self.loss_n = 0;
        if best {
            // Weights only: the best model is kept for evaluation; runs resume from `checkpoint()`.
            self.best = Some(
                Checkpoint::from_model_async(self.model(), self.config.clone(), self.state.clone())
                    .await
                    .map_err(NnError::device)?,
            );
        }
        Ok(report)
    }

    /// The current model as a checkpoint with async readbacks (works on WebGPU in the browser). Adam's
    /// state is included where it can be read synchronously (every native device, and the CPU backend
    /// in the browser); on a browser GPU it is left out and a resumed run restarts Adam's moments.
    pub async fn checkpoint_async(&self) -> Result<Checkpoint, NnError> {
        let ck = Checkpoint::from_model_async(self.model(), self.config.clone(), self.state.clone()).await?;
        let sync_ok = !cfg!(target_arch = "wasm32") || format!("{:?}", self.device).contains("Flex");
        Ok(if sync_ok { ck.with_optimizer(Some(self.optimizer_bytes()?)) } else { ck })
    }

    /// The current model as a checkpoint, with Adam's state (so [`Trainer::resume`] continues exactly).
    /// Reads tensors synchronously: natively, or on the CPU backend; use [`Trainer::checkpoint_async`] in
    /// the browser.
    pub fn checkpoint(&self) -> Result<Checkpoint, NnError> {
        Ok(Checkpoint::from_model(self.model(), self.config.clone(), self.state.clone())?
            .with_optimizer(Some(self.optimizer_bytes()?)))
    }
}

/// Loss and accuracy of a model on `n` trials per task id of a split (evaluated in chunks of `chunk`
/// trials per task id), without gradients (the loss weighs SFR by `multilabel_scale` as the training loss
/// does), plus every trial scored as a person's (the rows of [`crate::eval::trial_row`]), so the caller
/// can set accuracies beside chance ([`wmlab_core::chance`]).
#[allow(clippy::too_many_arguments)]
pub async fn evaluate_rows(
    model: &WormModel,
    specs: &[TaskSpec],
    seed: u64,
    split: Split,
    n: usize,
    chunk: usize,
    multilabel_scale: f64,
    device: &Device,
) -> Result<(f64, Accuracy, Vec<TrialRow>), NnError> {
    let model = model.valid();
    let mut rows = Vec::with_capacity(specs.len() * n);
    let mut acc = Accuracy::default();
    let mut loss_sum = 0.0;
    let mut batches = 0usize;
    let mut start = 0usize;
    while start < n {
        let m = chunk.min(n - start);
        let mut trials = Vec::with_capacity(specs.len() * m);
        for spec in specs {
            for j in start..start + m {
                // A spread sample of the paper-size split, so small checks are balanced too.
                let idx = if (n as u64) < split.paper_count() {
                    spread_index(j as u64, split.paper_count())
                } else {
                    j as u64
                };
                trials.push(spec.trial(seed, split, idx));
            }
        }
        let batch = Batch::from_trials(&trials);
        let dev = device.clone().without_autodiff();
        let input = ModelInput::from_batch(&batch, &dev);
        let targets = Targets::from_batch(&batch, &dev);
        let logits = model.forward(&input);
        let l: f32 = joint_loss_scaled(&logits, &targets, multilabel_scale)
            .into_scalar_async::<f32>()
            .await
            .map_err(|e| NnError::device(format!("{e:?}")))?;
        loss_sum += l as f64;
        batches += 1;
        let host = logits_to_host(logits).await.map_err(NnError::device)?;
        acc.add(&accuracy(&batch, &host));
        for (b, tr) in trials.iter().enumerate() {
            rows.push(
                crate::eval::trial_row(tr, rows.len() as u64, 0, &host, batch.steps, b)
                    .map_err(|e| NnError::device(format!("scoring the model's answers: {e}")))?,
            );
        }
        start += m;
    }
    Ok((loss_sum / batches.max(1) as f64, acc, rows))
}

#[cfg(test)]
mod error_tests {
    use super::NnError;

    #[test]
    fn out_of_device_memory_says_what_to_change() {
        // What burn-wgpu reported on lavapipe for the paper's LSTM-256 at 140 trials per step.
        let e = NnError::device("An IO error happened\nCaused by:\n  can't allocate buffer of size: 214827008");
        assert!(matches!(e, NnError::OutOfMemory(_)), "{e:?}");
        let m = e.to_string();
        assert!(m.contains("fewer trials per step") && m.contains("214827008"), "{m}");
        assert_eq!(NnError::device("lost").to_string(), "device error: lost");
    }
}

//! The training configuration, the one definition: the model's hyper-parameters ([`ModelConfig`], saved
//! beside the weights as `model.json`) and the run's ([`TrainConfig`], `train.json`), the named presets,
//! the rules a config must pass and the model's parameter count. Plain data: the Networks page edits and
//! checks it without asking the worker, the worker and the CLI hand it to `wmlab_nn`, which builds the
//! burn model from it.

use serde::{Deserialize, Serialize};

use crate::task::{MAX_STEPS, Quirks, STEP_LIMIT, TaskId, TaskParams, TaskSpec};

use super::choices::{Arch, Attention, Encoder, ModelError, Preset, SettingsError, lsr_alone, trained_ids};

/// Rows of the task embedding (= its width): the 14 WorM ids; LSR reads VSR's row.
pub const N_TASKS: usize = TaskId::ALL.len();
/// Output heads: one per [`TaskId::head_index`] (the five CD ids share one).
pub const N_HEADS: usize = 10;
/// Width of one LSR word vector (what a [`Encoder::Words`] model reads per slot).
pub const WORD_DIM: usize = 50;

/// `with_<field>` setters: a config with one field changed.
macro_rules! setters {
    ($ty:ident { $($with:ident $field:ident: $t:ty),* $(,)? }) => {
        impl $ty {
            $(
                #[doc = concat!("This config with `", stringify!($field), "` set.")]
                #[must_use]
                pub fn $with(mut self, $field: $t) -> Self {
                    self.$field = $field;
                    self
                }
            )*
        }
    };
}

/// The model's hyper-parameters. Fields are required in JSON but the optional ones (missing = `None`, so
/// configs saved before a field existed load unchanged).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelConfig {
    /// The memory: a recurrent network (RNN, GRU, LSTM) or the causal Transformer.
    pub arch: Arch,
    /// Memory capacity C (hidden size; `d_model` for the Transformer).
    pub capacity: usize,
    /// Side of the grid the last conv map is average-pooled to before the projection. `None` or 1 is the
    /// paper's global average pool (K = c4 features, no position but what padding leaks); `s > 1` keeps
    /// an s×s grid (K = c4·s²), so where a thing is reaches the memory directly.
    #[serde(default)]
    pub spatial: Option<usize>,
    /// The visual encoder (`None` = [`Encoder::Conv`], the paper's).
    #[serde(default)]
    pub encoder: Option<Encoder>,
    /// The Transformer's attention (`None` = [`Attention::Dot`], the paper's).
    #[serde(default)]
    pub attention: Option<Attention>,
    /// The longest trial the Transformer's position table covers (`None` = [`MAX_STEPS`], the paper's
    /// 20). Set by [`TrainConfig::fit_to_tasks`] when task parameters make longer trials.
    #[serde(default)]
    pub max_steps: Option<usize>,
    /// Word slots per step of an [`Encoder::Words`] model (`None` = 9, LSR's default). Set by
    /// [`TrainConfig::fit_to_tasks`].
    #[serde(default)]
    pub word_slots: Option<usize>,
    /// Conv channels c1..c4 (paper 64/128/256/512).
    pub conv: [usize; 4],
    /// Memory input size for the recurrent models (paper 512): features D = this − 14.
    /// The Transformer uses `capacity` instead (D = C − 14).
    pub mem_input: usize,
    /// Frozen identity task embedding ("Static") instead of a learned one.
    pub frozen_task_embedding: bool,
    /// Transformer layers (paper 2).
    pub trf_layers: usize,
    /// Transformer heads (paper 8).
    pub trf_heads: usize,
    /// Transformer feed-forward size (paper 2048).
    pub trf_ff: usize,
    /// Transformer dropout (PyTorch default 0.1; active only while training).
    pub trf_dropout: f64,
    /// Xavier-normal init of conv, linear, embedding and recurrent weights (the reference does it for the
    /// recurrent models only).
    pub xavier: bool,
}

setters!(ModelConfig {
    with_spatial spatial: Option<usize>,
    with_encoder encoder: Option<Encoder>,
    with_attention attention: Option<Attention>,
    with_max_steps max_steps: Option<usize>,
    with_word_slots word_slots: Option<usize>,
    with_conv conv: [usize; 4],
    with_mem_input mem_input: usize,
    with_frozen_task_embedding frozen_task_embedding: bool,
    with_trf_layers trf_layers: usize,
    with_trf_heads trf_heads: usize,
    with_trf_ff trf_ff: usize,
    with_trf_dropout trf_dropout: f64,
    with_xavier xavier: bool,
});

impl ModelConfig {
    /// The paper's model (Table A1) for an architecture and capacity.
    pub fn new(arch: Arch, capacity: usize) -> Self {
        ModelConfig {
            arch,
            capacity,
            spatial: None,
            encoder: None,
            attention: None,
            max_steps: None,
            word_slots: None,
            conv: [64, 128, 256, 512],
            mem_input: 512,
            frozen_task_embedding: false,
            trf_layers: 2,
            trf_heads: 8,
            trf_ff: 2048,
            trf_dropout: 0.1,
            xavier: true,
        }
    }
    /// The paper's model (Table A1) for an architecture and capacity.
    pub fn paper(arch: Arch, capacity: usize) -> Self {
        ModelConfig::new(arch, capacity)
    }
    /// A small model (the `tiny` and `quick` presets' sizes).
    pub fn tiny(arch: Arch, capacity: usize) -> Self {
        ModelConfig::new(arch, capacity)
            .with_conv([8, 16, 16, 32])
            .with_mem_input(64)
            .with_trf_heads(4)
            .with_trf_ff(64)
            .with_trf_layers(1)
            .with_trf_dropout(0.0)
    }
    /// The longest trial the model takes (the Transformer's position table; the recurrent models take
    /// any length).
    pub fn step_capacity(&self) -> usize {
        self.max_steps.unwrap_or(MAX_STEPS).max(MAX_STEPS)
    }
    /// Width of the memory's input A_t (features + 14).
    pub fn memory_input(&self) -> usize {
        match self.arch {
            Arch::Trf => self.capacity,
            _ => self.mem_input,
        }
    }
    /// The visual encoder (the paper's ConvNet unless set).
    pub fn encoder_kind(&self) -> Encoder {
        self.encoder.unwrap_or(Encoder::Conv)
    }
    /// The Transformer's attention (the paper's dot product unless set).
    pub fn attention_kind(&self) -> Attention {
        self.attention.unwrap_or(Attention::Dot)
    }
    /// Width K of the visual features before the projection (for [`Encoder::Words`], the word slots'
    /// vectors).
    pub fn visual_width(&self) -> usize {
        match self.encoder_kind() {
            Encoder::Conv => self.conv[3] * self.spatial_side().pow(2),
            Encoder::Pixels => crate::raster::TENSOR_LEN,
            Encoder::Words => self.slots() * WORD_DIM,
        }
    }
    /// Word slots per step (9 unless set).
    pub fn slots(&self) -> usize {
        self.word_slots.unwrap_or(9)
    }
    /// Units of each head (by [`TaskId::head_index`]); a words model's serial-recall head (VSR's, which
    /// LSR answers with) has LSR's 16 (one per slot of the longest lists, A3.2; with fewer slots the extra
    /// units point at slots that never hold a word, as VSR's 9 do for lists shorter than 9).
    pub fn head_units(&self) -> [usize; N_HEADS] {
        let mut u = [1; N_HEADS];
        for t in TaskId::ALL {
            u[t.head_index()] = t.head().units() as usize;
        }
        if self.encoder_kind() == Encoder::Words {
            u[TaskId::Lsr.head_index()] = TaskId::Lsr.head().units() as usize;
        }
        u
    }
    /// Side of the pooled grid (1 = the paper's global average pool).
    pub fn spatial_side(&self) -> usize {
        self.spatial.unwrap_or(1).max(1)
    }
    /// Width of the projected visual features D (the memory's input less the task embedding; 0 for a
    /// config [`ModelConfig::validate`] refuses).
    pub fn feature_dim(&self) -> usize {
        self.memory_input().saturating_sub(N_TASKS)
    }
    /// A label such as `TRF-96`.
    pub fn label(&self) -> String {
        format!("{}-{}", self.arch.as_str().to_uppercase(), self.capacity)
    }

    /// Whether this model can be built (the network crate builds only what passes): the memory's
    /// input wider than the task embedding, heads that divide the Transformer's width, positive sizes,
    /// and bounds far above the paper's largest (C 1024, conv 512, FF 2048, 2 layers), so a file
    /// describing an absurd model is refused rather than allocated.
    pub fn validate(&self) -> Result<(), ModelError> {
        let memory_input = self.memory_input();
        if memory_input <= N_TASKS {
            return Err(ModelError::MemoryInput { input: memory_input, tasks: N_TASKS });
        }
        if self.arch == Arch::Trf && !self.capacity.is_multiple_of(self.trf_heads) {
            return Err(ModelError::Heads { d_model: self.capacity, heads: self.trf_heads });
        }
        if !(1..=8).contains(&self.spatial.unwrap_or(1)) {
            return Err(ModelError::Spatial(self.spatial.unwrap_or(1)));
        }
        if self.capacity == 0 || self.conv.contains(&0) {
            return Err(ModelError::NotPositive);
        }
        let bounded = |what: &'static str, v: usize, max: usize| {
            if v > max { Err(ModelError::TooLarge { what, value: v, max }) } else { Ok(()) }
        };
        bounded("capacity", self.capacity, 8192)?;
        for &c in &self.conv {
            bounded("conv width", c, 4096)?;
        }
        bounded("memory input", self.mem_input, 65_536)?;
        bounded("Transformer layers", self.trf_layers, 64)?;
        bounded("Transformer heads", self.trf_heads, 256)?;
        bounded("Transformer feed-forward size", self.trf_ff, 65_536)?;
        bounded("steps", self.max_steps.unwrap_or(0), STEP_LIMIT)?;
        if self.arch == Arch::Trf && (self.trf_layers == 0 || self.trf_heads == 0 || self.trf_ff == 0) {
            return Err(ModelError::TransformerSizes);
        }
        if !(0.0..1.0).contains(&self.trf_dropout) {
            return Err(ModelError::Dropout(self.trf_dropout));
        }
        let slots = self.slots();
        if !(2..=crate::tasks::lsr::MAX_SLOTS).contains(&slots) {
            return Err(ModelError::WordSlots(slots));
        }
        Ok(())
    }

    /// The number of trained parameters of the model this config builds (`wmlab_nn` builds exactly these
    /// layers; its tests compare the two counts), without building it.
    pub fn param_count(&self) -> usize {
        let linear = |i: usize, o: usize| i * o + o;
        let conv = |i: usize, o: usize| o * i * 9 + o;
        let c = self.capacity;
        let [c1, c2, c3, c4] = self.conv;
        let encoder = match self.encoder_kind() {
            Encoder::Conv => conv(3, c1) + conv(c1, c2) + conv(c2, c3) + conv(c3, c4),
            Encoder::Pixels | Encoder::Words => 0,
        };
        let proj = linear(self.visual_width(), self.feature_dim());
        let embedding = if self.frozen_task_embedding { 0 } else { N_TASKS * N_TASKS };
        // A gate: the input's and the hidden state's affine maps (burn's `GateController`).
        let gate = linear(self.memory_input(), c) + linear(c, c);
        let layer_norms = 2 * 2 * c;
        let feed_forward = linear(c, self.trf_ff) + linear(self.trf_ff, c);
        let memory = match (self.arch, self.attention_kind()) {
            (Arch::Rnn, _) => gate,
            (Arch::Gru, _) => 3 * gate,
            (Arch::Lstm, _) => 4 * gate,
            (Arch::Trf, Attention::Dot) => {
                self.step_capacity() * c + self.trf_layers * (4 * linear(c, c) + feed_forward + layer_norms)
            }
            // Queries = keys, values, output, and per head a distance scale and a bias.
            (Arch::Trf, Attention::Distance) => {
                self.step_capacity() * c
                    + self.trf_layers * (3 * linear(c, c) + 2 * self.trf_heads + feed_forward + layer_norms)
            }
        };
        let heads: usize = self.head_units().iter().map(|&u| linear(c, u)).sum();
        encoder + proj + embedding + memory + heads
    }
}

/// Training hyper-parameters (saved beside the weights as `train.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainConfig {
    /// The model to build and train.
    pub model: ModelConfig,
    /// The task ids trained (a subset, as the paper's VSR-alone ablation A3.3); `None` = all 14. The
    /// model keeps all 10 heads (checkpoints look alike), but only the chosen ids' heads get a loss and
    /// a gradient, and validation and evaluation cover these ids (the neural analyses still run over all 14).
    #[serde(default)]
    pub tasks: Option<Vec<TaskId>>,
    /// Clip each parameter's gradient to this L2 norm before Adam (`None` = no clipping, as the paper).
    #[serde(default)]
    pub grad_clip: Option<f64>,
    /// Curriculum: during the first `curriculum` steps, trials come from the easier half of each task's
    /// condition grid ([`TaskSpec::easy_cells`]: shorter lists, smaller sets, shorter retention); `None` =
    /// none, as the paper. Validation always covers the whole grid.
    #[serde(default)]
    pub curriculum: Option<usize>,
    /// Multiply the SFR (multi-label) loss by this (`None` = 1, the reference's mean over its 100 units).
    #[serde(default)]
    pub multilabel_scale: Option<f64>,
    /// The reference code's behaviours to reproduce ([`Quirks`]: CD size change, CS and STS scored
    /// steps); `None` = none, the paper's tasks. Evaluation uses the same, from the checkpoint.
    #[serde(default)]
    pub quirks: Option<Quirks>,
    /// Task parameters set from text (`KEY=VALUE`, [`TaskSpec::set`]; e.g. `noise_mask=true` for WorM
    /// A3.4's noise-masked CD), applied in order to the ids that have each key; `None` = the paper's.
    /// Evaluation uses the same, from the checkpoint.
    #[serde(default)]
    pub task_settings: Option<Vec<(String, String)>>,
    /// Adam's epsilon (`None` = burn's default 1e-5; the `paper` preset: PyTorch's 1e-8, which the
    /// authors used: in the stuck regime 1e-5 shrinks steps 1.5–6×).
    #[serde(default)]
    pub adam_epsilon: Option<f64>,
    /// Initialise as the authors' `init_weights` does (biases 0, the gates' weights as one stacked
    /// matrix); `None` = no. The `paper` preset sets it.
    #[serde(default)]
    pub reference_init: Option<bool>,
    /// Walk the training split (`train_size` trials per id) in a fresh random order every epoch, per
    /// task id, as the authors' shuffled data loaders do; `None` = a fixed spread order. The `paper`
    /// preset sets it.
    #[serde(default)]
    pub shuffle_epochs: Option<bool>,
    /// The preset this config came from (`quick`, `paper`, … or `custom`).
    pub preset: String,
    /// Optimisation steps.
    pub steps: usize,
    /// Trials per task id per step (paper 10 → 140 per step).
    pub per_task: usize,
    /// Adam learning rate (paper 1e-4).
    pub lr: f64,
    /// Master seed of the trial streams and the initialisation (reference 86).
    pub seed: u64,
    /// Train-split size per task id: trial indices wrap around it (paper 86,400).
    pub train_size: u64,
    /// Steps between validation checks.
    pub val_every: usize,
    /// Validation trials per task id per check (paper 9,600).
    pub val_per_task: usize,
    /// Plateau schedule: the factor the learning rate is multiplied by, after `plateau_patience` checks
    /// without a relative improvement of the validation loss by `plateau_threshold`.
    pub plateau_factor: f64,
    /// Plateau schedule: checks without improvement tolerated; the learning rate is cut at the next one
    /// (PyTorch `ReduceLROnPlateau`'s `patience`).
    pub plateau_patience: usize,
    /// Plateau schedule: the relative drop below the best validation loss so far that counts as an
    /// improvement (`0.005`: the loss must fall under 99.5% of the best).
    pub plateau_threshold: f64,
}

setters!(TrainConfig {
    with_tasks tasks: Option<Vec<TaskId>>,
    with_grad_clip grad_clip: Option<f64>,
    with_curriculum curriculum: Option<usize>,
    with_multilabel_scale multilabel_scale: Option<f64>,
    with_quirks quirks: Option<Quirks>,
    with_task_settings task_settings: Option<Vec<(String, String)>>,
    with_adam_epsilon adam_epsilon: Option<f64>,
    with_reference_init reference_init: Option<bool>,
    with_shuffle_epochs shuffle_epochs: Option<bool>,
    with_preset preset: String,
    with_steps steps: usize,
    with_per_task per_task: usize,
    with_lr lr: f64,
    with_seed seed: u64,
    with_train_size train_size: u64,
    with_val_every val_every: usize,
    with_val_per_task val_per_task: usize,
    with_plateau_factor plateau_factor: f64,
    with_plateau_patience plateau_patience: usize,
    with_plateau_threshold plateau_threshold: f64,
});

impl TrainConfig {
    /// A `custom` run of `model` with the paper's optimisation (Adam 1e-4, 140 trials per step, the
    /// reference's seed 86) for 1,000 steps.
    pub fn new(model: ModelConfig) -> Self {
        TrainConfig {
            model,
            tasks: None,
            grad_clip: None,
            curriculum: None,
            multilabel_scale: None,
            quirks: None,
            task_settings: None,
            adam_epsilon: None,
            reference_init: None,
            shuffle_epochs: None,
            preset: "custom".into(),
            steps: 1000,
            per_task: 10,
            lr: 1e-4,
            seed: 86,
            train_size: 86_400,
            val_every: 100,
            val_per_task: 100,
            plateau_factor: 0.8,
            plateau_patience: 3,
            plateau_threshold: 0.005,
        }
    }

    /// A named preset for an architecture and capacity.
    /// - `paper`: Table A1 (conv 64/128/256/512, 140 trials/step, Adam 1e-4, 200 epochs of 8,640 steps,
    ///   one full validation per epoch, so the plateau schedule steps once per epoch) trained as the
    ///   authors' code trains: Adam's epsilon 1e-8, their initialisation, a fresh shuffle of the training
    ///   split every epoch.
    /// - `small`: conv 16/32/64/128 (a quarter of the paper's widths), memory input 128, Transformer FF 512,
    ///   70 trials/step, lr 3e-4, 3,000 steps: minutes on a GPU.
    /// - `tiny`: conv 8/16/16/32, 28 trials/step (2 per task id), lr 1e-3, 300 steps: a smoke test that
    ///   ends at chance on most ids (its timings: docs/learning.md).
    /// - `quick`: chosen from the learning curves in docs/learning.md. Not the paper's model: the pixel
    ///   encoder (a linear map of the raw 32×32×3 frame instead of the ConvNet), the tiny memory sizes,
    ///   lr 1e-3 with each gradient clipped to norm 1, 28 trials per step, 10,000 steps with 30
    ///   validation trials per id every 500. Meant for the causal Transformer (TRF-96), whose attention
    ///   here scores by distance ([`Attention::Distance`]) instead of the paper's dot product, which
    ///   learned fewer ids; the other memories ignore the attention setting.
    pub fn preset(preset: Preset, arch: Arch, capacity: usize) -> TrainConfig {
        let named = |c: TrainConfig| c.with_preset(preset.as_str().into());
        match preset {
            Preset::Paper => named(TrainConfig::new(ModelConfig::paper(arch, capacity)))
                .with_steps(200 * 8640)
                .with_val_every(8640)
                .with_val_per_task(9600)
                .with_adam_epsilon(Some(1e-8))
                .with_reference_init(Some(true))
                .with_shuffle_epochs(Some(true)),
            Preset::Small => named(TrainConfig::new(
                ModelConfig::paper(arch, capacity).with_conv([16, 32, 64, 128]).with_mem_input(128).with_trf_ff(512),
            ))
            .with_per_task(5)
            .with_lr(3e-4)
            .with_steps(3000)
            .with_val_every(250)
            .with_val_per_task(50),
            Preset::Quick => named(TrainConfig::new(
                ModelConfig::tiny(arch, capacity)
                    .with_encoder(Some(Encoder::Pixels))
                    .with_attention(Some(Attention::Distance)),
            ))
            .with_per_task(2)
            .with_lr(1e-3)
            .with_grad_clip(Some(1.0))
            .with_steps(10_000)
            .with_val_every(500)
            .with_val_per_task(30),
            Preset::Tiny => named(TrainConfig::new(ModelConfig::tiny(arch, capacity)))
                .with_per_task(2)
                .with_lr(1e-3)
                .with_steps(300)
                .with_val_every(50)
                .with_val_per_task(10),
        }
    }

    /// The trained task ids, in [`TaskId::ALL`] order (all 14 unless `tasks` names a subset).
    pub fn task_ids(&self) -> Vec<TaskId> {
        trained_ids(self.tasks.as_deref())
    }

    /// Whether this run trains a subset of the 14 ids (or LSR).
    pub fn is_subset(&self) -> bool {
        self.task_ids() != TaskId::ALL
    }

    /// Trials in one training step (`per_task` × trained ids).
    pub fn trials_per_step(&self) -> usize {
        self.per_task * self.task_ids().len()
    }

    /// The trained ids' task specs (reference parameters with `quirks` and `task_settings`), in
    /// [`TaskId::ALL`] order.
    pub fn specs(&self) -> Vec<TaskSpec> {
        let q = self.quirks.unwrap_or_default();
        let set = self.task_settings.as_deref().unwrap_or(&[]);
        self.task_ids()
            .into_iter()
            .map(|t| {
                let mut spec = TaskSpec::with_quirks(t, q);
                // Checked when the settings were made ([`TrainConfig::check_task_settings`]).
                let _ = spec.set_all(set, true);
                spec
            })
            .collect()
    }

    /// Whether every `task_settings` entry applies: each key is a parameter of some trained id, and its
    /// value fits every id that has it (the message names the allowed keys otherwise).
    /// LSR trains alone, and only a words model ([`Encoder::Words`]) reads it.
    pub fn check_task_settings(&self) -> Result<(), SettingsError> {
        let ids = self.task_ids();
        lsr_alone(&ids)?;
        // A run of LSR gets the words encoder whatever the preset's ([`TrainConfig::fit_to_tasks`]).
        if ids != [TaskId::Lsr] && self.model.encoder_kind() == Encoder::Words {
            return Err(SettingsError::WordsWithoutLsr);
        }
        let Some(set) = &self.task_settings else { return Ok(()) };
        let q = self.quirks.unwrap_or_default();
        let mut specs: Vec<TaskSpec> = ids.into_iter().map(|t| TaskSpec::with_quirks(t, q)).collect();
        Ok(TaskSpec::set_on_all(&mut specs, set, "trained")?)
    }

    /// Whether this config can be trained: the model builds ([`ModelConfig::validate`]) and the task
    /// settings apply ([`TrainConfig::check_task_settings`]).
    pub fn check(&self) -> Result<(), SettingsError> {
        self.model.validate().map_err(SettingsError::Model)?;
        self.check_task_settings()
    }

    /// Fit the model's input to the trained tasks. Task parameters that make trials longer than the
    /// paper's 20 steps (long lists, WorM A3.2) set `model.max_steps` to [`STEP_LIMIT`] (the Transformer's
    /// positions; the recurrent models take any length, the field then only records it), otherwise the
    /// paper's (`None`). A run of LSR gets the words encoder with the spec's word slots (9, or 16 for
    /// lists up to 16) in place of the ConvNet.
    pub fn fit_to_tasks(&mut self) {
        let long = self.task_settings.is_some() && self.specs().iter().any(|s| s.longest_trial() > MAX_STEPS);
        self.model.max_steps = long.then_some(STEP_LIMIT);
        if self.task_ids() == [TaskId::Lsr] {
            let slots = self.specs().iter().find_map(|s| match &s.params {
                TaskParams::Lsr(p) => Some(p.slots as usize),
                _ => None,
            });
            self.model.encoder = Some(Encoder::Words);
            self.model.word_slots = slots.filter(|&s| s != 9);
        }
    }

    /// [`TrainConfig::fit_to_tasks`] for settings edited on a page: a words encoder left from an LSR
    /// run whose tasks were changed to visual ones becomes the paper's ConvNet again (the CLI refuses an
    /// explicit `--encoder words` without LSR instead, in [`TrainConfig::check_task_settings`]).
    pub fn fit_edited(&mut self) {
        if self.task_ids() != [TaskId::Lsr] && self.model.encoder == Some(Encoder::Words) {
            self.model.encoder = None;
            self.model.word_slots = None;
        }
        self.fit_to_tasks();
    }

    /// Parse a comma list of task ids (`VSR`, `cd-color,VIR`; case does not matter; empty or `all` =
    /// all 14) into `tasks`: `None` for all 14, else the ids in the order given, once each.
    pub fn parse_tasks(list: &str) -> Result<Option<Vec<TaskId>>, SettingsError> {
        let mut out = Vec::new();
        for part in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            if part.eq_ignore_ascii_case("all") {
                return Ok(None);
            }
            let t = TaskId::EVERY
                .into_iter()
                .find(|t| t.as_str().eq_ignore_ascii_case(part))
                .ok_or_else(|| SettingsError::UnknownTask(part.to_string()))?;
            if !out.contains(&t) {
                out.push(t);
            }
        }
        lsr_alone(&out)?;
        let every_visual = TaskId::ALL.iter().all(|t| out.contains(t));
        Ok((!out.is_empty() && !every_visual).then_some(out))
    }

    /// `task_settings` as [`super::Edit::task_settings`] reads them (empty for none).
    pub fn task_settings_text(&self) -> String {
        let list = self.task_settings.as_deref().unwrap_or(&[]);
        list.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("; ")
    }

    /// `tasks` as the comma list [`TrainConfig::parse_tasks`] reads (empty for all 14).
    pub fn tasks_text(&self) -> String {
        self.tasks.as_ref().map(|v| v.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(",")).unwrap_or_default()
    }

    /// A label such as `TRF-96 (quick preset)`.
    pub fn label(&self) -> String {
        format!("{} ({} preset)", self.model.label(), self.preset)
    }

    /// Read settings a person typed or pasted as JSON, with the reason in plain words when they do not
    /// read (a missing field, a wrong type, an unknown task id).
    pub fn from_json(text: &str) -> Result<TrainConfig, SettingsError> {
        serde_json::from_str(text).map_err(|e| SettingsError::Json(e.to_string()))
    }

    /// As the settings box shows it.
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every preset validates for every memory at the paper's capacities, and reads back from its JSON.
    #[test]
    fn presets_validate_and_read_back() {
        for p in Preset::ALL {
            for arch in Arch::ALL {
                for c in [96, 256, 1024] {
                    let cfg = TrainConfig::preset(p, arch, c);
                    assert_eq!(cfg.check(), Ok(()), "{p:?} {arch:?} {c}");
                    assert_eq!(cfg.preset, p.as_str());
                    assert_eq!(TrainConfig::from_json(&cfg.to_json_pretty()), Ok(cfg));
                }
            }
        }
    }

    /// A config saved before the optional fields existed (none of them in its JSON) loads with them unset;
    /// a config missing a required field is refused, naming it.
    #[test]
    fn optional_fields_may_be_missing_required_ones_not() {
        let mut v = serde_json::to_value(TrainConfig::preset(Preset::Tiny, Arch::Gru, 16)).unwrap();
        let optional = ["tasks", "grad_clip", "curriculum", "multilabel_scale", "quirks", "task_settings"];
        for k in optional.into_iter().chain(["adam_epsilon", "reference_init", "shuffle_epochs"]) {
            v.as_object_mut().unwrap().remove(k);
        }
        for k in ["spatial", "encoder", "attention", "max_steps", "word_slots"] {
            v["model"].as_object_mut().unwrap().remove(k);
        }
        let c: TrainConfig = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(c, TrainConfig::preset(Preset::Tiny, Arch::Gru, 16));
        v.as_object_mut().unwrap().remove("lr");
        let e = TrainConfig::from_json(&v.to_string()).unwrap_err().to_string();
        assert!(e.contains("missing field `lr`"), "{e}");
    }

    /// The counts the paper's Table A1 sizes give by hand: a GRU-96's memory is three gates of
    /// (512·96 + 96) + (96·96 + 96).
    #[test]
    fn a_gru_counts_three_gates() {
        let gru = ModelConfig::paper(Arch::Gru, 96);
        let rnn = ModelConfig::paper(Arch::Rnn, 96);
        let gate = 512 * 96 + 96 + 96 * 96 + 96;
        assert_eq!(gru.param_count() - rnn.param_count(), 2 * gate);
        let frozen = gru.clone().with_frozen_task_embedding(true);
        assert_eq!(gru.param_count() - frozen.param_count(), 14 * 14);
    }
}

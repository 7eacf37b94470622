//! The training configuration as plain data: burn-free mirrors of `wmlab_nn::{TrainConfig, ModelConfig}`
//! with the same JSON (wmlab-nn holds the `From` conversions both ways and a test that round-trips every
//! preset through them), the choices the Networks page offers as enums, and the edits a user makes to
//! the settings while the worker is still answering ([`SettingsEdits`]).

use serde::{Deserialize, Serialize};

use crate::task::{Quirks, TaskId};

/// The memory architecture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arch {
    Rnn,
    Gru,
    Lstm,
    Trf,
}

impl Arch {
    pub const ALL: [Arch; 4] = [Arch::Rnn, Arch::Gru, Arch::Lstm, Arch::Trf];
    pub fn as_str(self) -> &'static str {
        match self {
            Arch::Rnn => "rnn",
            Arch::Gru => "gru",
            Arch::Lstm => "lstm",
            Arch::Trf => "trf",
        }
    }
    /// Case does not matter (`GRU`, `gru`).
    pub fn parse(s: &str) -> Option<Arch> {
        Arch::ALL.into_iter().find(|a| a.as_str().eq_ignore_ascii_case(s.trim()))
    }
    /// As a person reads it.
    pub fn label(self) -> &'static str {
        match self {
            Arch::Rnn => "RNN",
            Arch::Gru => "GRU",
            Arch::Lstm => "LSTM",
            Arch::Trf => "Transformer (causal)",
        }
    }
}

/// The visual encoder in front of the memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Encoder {
    /// The paper's 4-layer ConvNet (Table A1) and a linear projection.
    Conv,
    /// No convolutions: the linear projection reads the raw 32×32×3 frame (3,072 values). Positions and
    /// colours reach the memory unchanged, and a frame costs about a tenth of the tiny ConvNet's arithmetic; not
    /// the paper's model (used by the `quick` preset, which says so).
    Pixels,
    /// Language Serial Recall (WorM A3.1): a linear layer reads each step's word slots (one 50-d word
    /// vector per slot, zeros in empty slots) in place of the ConvNet. A run that trains LSR gets it
    /// (LSR trains alone, as in the paper); it reads no frames.
    Words,
}

/// How the Transformer's attention scores a step against earlier steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Attention {
    /// Scaled dot product (the paper's `nn.TransformerEncoder`).
    Dot,
    /// Negative squared distance between content queries and keys, with a "no match" slot
    /// (`wmlab_nn::dist_attn`): a match with memory is a first-order signal. Not the paper's.
    Distance,
}

/// A named set of settings (`wmlab_nn::TrainConfig::preset` holds the values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Preset {
    Quick,
    Tiny,
    Small,
    Paper,
}

impl Preset {
    pub const ALL: [Preset; 4] = [Preset::Quick, Preset::Tiny, Preset::Small, Preset::Paper];
    pub fn as_str(self) -> &'static str {
        match self {
            Preset::Quick => "quick",
            Preset::Tiny => "tiny",
            Preset::Small => "small",
            Preset::Paper => "paper",
        }
    }
    pub fn parse(s: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.as_str().eq_ignore_ascii_case(s.trim()))
    }
    /// What it is for, as the Networks page offers it.
    pub fn label(self) -> &'static str {
        match self {
            Preset::Quick => "quick (learns in minutes on a CPU)",
            Preset::Tiny => "tiny (a smoke test: stays near chance)",
            Preset::Small => "small (minutes on a GPU)",
            Preset::Paper => "paper (Table A1; days)",
        }
    }
}

/// The backend the page asks the worker for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendPick {
    /// WebGPU if the browser offers it, else the CPU.
    #[default]
    Auto,
    Webgpu,
    Cpu,
}

impl BackendPick {
    pub const ALL: [BackendPick; 3] = [BackendPick::Auto, BackendPick::Webgpu, BackendPick::Cpu];
    pub fn as_str(self) -> &'static str {
        match self {
            BackendPick::Auto => "auto",
            BackendPick::Webgpu => "webgpu",
            BackendPick::Cpu => "cpu",
        }
    }
    pub fn parse(s: &str) -> Option<BackendPick> {
        BackendPick::ALL.into_iter().find(|p| p.as_str().eq_ignore_ascii_case(s.trim()))
    }
    /// Whether this pick runs on the threaded CPU worker rather than the WebGPU one (whose CPU fallback
    /// has one thread): only on a cross-origin isolated page (`isolated`: shared memory between workers),
    /// and only for the CPU — picked, or `Auto` in a browser without WebGPU (`webgpu`: `navigator.gpu`).
    pub fn threaded_worker(self, isolated: bool, webgpu: bool) -> bool {
        isolated
            && match self {
                BackendPick::Cpu => true,
                BackendPick::Auto => !webgpu,
                BackendPick::Webgpu => false,
            }
    }
    pub fn label(self) -> &'static str {
        match self {
            BackendPick::Auto => "WebGPU if available, else CPU",
            BackendPick::Webgpu => "WebGPU",
            BackendPick::Cpu => "CPU",
        }
    }
}

/// The backend the worker runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    Webgpu,
    Cpu,
}

impl Backend {
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Webgpu => "webgpu",
            Backend::Cpu => "cpu",
        }
    }
    pub fn label(self) -> &'static str {
        match self {
            Backend::Webgpu => "WebGPU",
            Backend::Cpu => "CPU (flex, in wasm)",
        }
    }
    /// The pick that asks for this backend.
    pub fn pick(self) -> BackendPick {
        match self {
            Backend::Webgpu => BackendPick::Webgpu,
            Backend::Cpu => BackendPick::Cpu,
        }
    }
}

/// `wmlab_nn::ModelConfig` as plain data (the same fields, names and JSON; see it for what each means).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelSettings {
    pub arch: Arch,
    /// Memory capacity C (hidden size; `d_model` for the Transformer).
    pub capacity: usize,
    /// The side of the average-pooled grid before the projection (`None` = 1, the paper's).
    pub spatial: Option<usize>,
    /// `None` = [`Encoder::Conv`], the paper's.
    pub encoder: Option<Encoder>,
    /// `None` = [`Attention::Dot`], the paper's.
    pub attention: Option<Attention>,
    /// Conv channels c1..c4 (paper 64/128/256/512).
    pub conv: [usize; 4],
    /// Memory input size of the recurrent models (paper 512).
    pub mem_input: usize,
    pub frozen_task_embedding: bool,
    pub trf_layers: usize,
    pub trf_heads: usize,
    pub trf_ff: usize,
    pub trf_dropout: f64,
    pub xavier: bool,
    /// The longest trial the Transformer's positions cover (`None` = 20, the paper's).
    #[serde(default)]
    pub max_steps: Option<usize>,
    /// Word slots a [`Encoder::Words`] model reads per step (`None` = 9, LSR's default).
    #[serde(default)]
    pub word_slots: Option<usize>,
}

/// `wmlab_nn::TrainConfig` as plain data (the same fields, names and JSON; see it for what each means).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainSettings {
    pub model: ModelSettings,
    /// The trained task ids (`None` = all 14).
    pub tasks: Option<Vec<TaskId>>,
    pub grad_clip: Option<f64>,
    pub curriculum: Option<usize>,
    pub multilabel_scale: Option<f64>,
    /// The reference code's behaviours (`None` = none, the paper's tasks).
    pub quirks: Option<Quirks>,
    /// Task parameters set from text (`KEY=VALUE`; `None` = the paper's).
    #[serde(default)]
    pub task_settings: Option<Vec<(String, String)>>,
    /// The preset these came from (`quick`, `paper`, … or `custom`).
    pub preset: String,
    pub steps: usize,
    pub per_task: usize,
    pub lr: f64,
    pub seed: u64,
    pub train_size: u64,
    pub val_every: usize,
    pub val_per_task: usize,
    pub plateau_factor: f64,
    pub plateau_patience: usize,
    pub plateau_threshold: f64,
    /// Adam's epsilon (`None` = burn's default 1e-5; the `paper` preset: 1e-8, as the authors').
    #[serde(default)]
    pub adam_epsilon: Option<f64>,
    /// Initialise as the authors' `init_weights` (biases 0, stacked gate matrices); `None` = no.
    #[serde(default)]
    pub reference_init: Option<bool>,
    /// A fresh random order of the training split every epoch; `None` = the fixed spread order.
    #[serde(default)]
    pub shuffle_epochs: Option<bool>,
}

/// The ids a `tasks` setting trains, in [`TaskId::ALL`] order (all 14 for `None` or an empty list);
/// `TrainSettings::task_ids` and `wmlab_nn::TrainConfig::task_ids` both read it so.
pub fn trained_ids(tasks: Option<&[TaskId]>) -> Vec<TaskId> {
    match tasks {
        Some(v) if !v.is_empty() => TaskId::EVERY.into_iter().filter(|t| v.contains(t)).collect(),
        _ => TaskId::ALL.to_vec(),
    }
}

/// LSR trains alone, as in the paper: a set of trained ids that holds it with others is refused (the
/// page's task list and `wmlab_nn::TrainConfig::check_task_settings` both ask here).
pub fn lsr_alone(ids: &[TaskId]) -> Result<(), SettingsError> {
    if ids.contains(&TaskId::Lsr) && ids.len() > 1 {
        return Err(SettingsError::LsrNotAlone);
    }
    Ok(())
}

/// Why settings a person typed, pasted or loaded are refused (each message in plain words).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SettingsError {
    #[error(
        "LSR (language serial recall) trains alone, as in the paper (A3.1): its model reads words instead of \
         frames; give LSR as the only task id"
    )]
    LsrNotAlone,
    #[error("\"{0}\" is not a task id: use a comma list of {ids} (or all)", ids = TaskId::EVERY.map(|t| t.as_str()).join(", "))]
    UnknownTask(String),
    /// A task-id list a person typed, and what is wrong with it.
    #[error("Task ids: {0}.")]
    Tasks(Box<SettingsError>),
    #[error("The settings JSON is not valid ({0}); the previous settings are kept.")]
    Json(String),
    #[error("{field}: \"{text}\" is not a whole number{above}.", above = if *above_zero { " above 0" } else { "" })]
    NotWhole { field: &'static str, text: String, above_zero: bool },
    #[error("Learning rate: \"{0}\" is not a positive number.")]
    Lr(String),
    #[error("Task parameters: {0}.")]
    TaskSettings(crate::NotKeyValue),
    #[error(transparent)]
    Quirk(#[from] crate::task::SettingError),
}

crate::message_into_string!(SettingsError);

/// Why a model described by [`ModelSettings`] cannot be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    #[error("memory input {input} must exceed {tasks} (the task embedding)")]
    MemoryInput { input: usize, tasks: usize },
    #[error("d_model {d_model} must be divisible by the {heads} heads")]
    Heads { d_model: usize, heads: usize },
    #[error("spatial grid {0} must be 1 (global pool) to 8 (the last conv map is 8×8)")]
    Spatial(usize),
    #[error("sizes must be positive")]
    NotPositive,
    #[error("{what} {value} is over the {max} this app builds")]
    TooLarge { what: &'static str, value: usize, max: usize },
    #[error("the Transformer's layers, heads and feed-forward size must be positive")]
    TransformerSizes,
    #[error("dropout {0} must be at least 0 and below 1")]
    Dropout(f64),
    #[error("word slots {0} must be 2 to {max}", max = crate::tasks::lsr::MAX_SLOTS)]
    WordSlots(usize),
}

crate::message_into_string!(ModelError);

impl ModelSettings {
    /// Whether this model can be built (the network crate builds only what passes): the memory's
    /// input wider than the task embedding, heads that divide the Transformer's width, positive sizes,
    /// and bounds far above the paper's largest (C 1024, conv 512, FF 2048, 2 layers), so a file
    /// describing an absurd model is refused rather than allocated.
    pub fn validate(&self) -> Result<(), ModelError> {
        let n_tasks = TaskId::ALL.len();
        let memory_input = if self.arch == Arch::Trf { self.capacity } else { self.mem_input };
        if memory_input <= n_tasks {
            return Err(ModelError::MemoryInput { input: memory_input, tasks: n_tasks });
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
        bounded("steps", self.max_steps.unwrap_or(0), crate::task::STEP_LIMIT)?;
        if self.arch == Arch::Trf && (self.trf_layers == 0 || self.trf_heads == 0 || self.trf_ff == 0) {
            return Err(ModelError::TransformerSizes);
        }
        if !(0.0..1.0).contains(&self.trf_dropout) {
            return Err(ModelError::Dropout(self.trf_dropout));
        }
        let slots = self.word_slots.unwrap_or(9);
        if !(2..=crate::tasks::lsr::MAX_SLOTS).contains(&slots) {
            return Err(ModelError::WordSlots(slots));
        }
        Ok(())
    }
}

impl TrainSettings {
    /// The trained task ids, in [`TaskId::ALL`] order (all 14 unless `tasks` names a subset).
    pub fn task_ids(&self) -> Vec<TaskId> {
        trained_ids(self.tasks.as_deref())
    }

    /// Trials in one training step (`per_task` × trained ids).
    pub fn trials_per_step(&self) -> usize {
        self.per_task * self.task_ids().len()
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

    /// `task_settings` as [`Edit::task_settings`] reads them (empty for none).
    pub fn task_settings_text(&self) -> String {
        let list = self.task_settings.as_deref().unwrap_or(&[]);
        list.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("; ")
    }

    /// `tasks` as the comma list [`TrainSettings::parse_tasks`] reads (empty for all 14).
    pub fn tasks_text(&self) -> String {
        self.tasks.as_ref().map(|v| v.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(",")).unwrap_or_default()
    }

    /// A label such as `TRF-96 (quick preset)`.
    pub fn label(&self) -> String {
        format!("{}-{} ({} preset)", self.model.arch.as_str().to_uppercase(), self.model.capacity, self.preset)
    }

    /// Read settings a person typed or pasted as JSON, with the reason in plain words when they do not
    /// read (a missing field, a wrong type, an unknown task id).
    pub fn from_json(text: &str) -> Result<TrainSettings, SettingsError> {
        serde_json::from_str(text).map_err(|e| SettingsError::Json(e.to_string()))
    }

    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// A number field of the settings form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    Steps,
    PerTask,
    Lr,
    Seed,
    ValEvery,
    ValPerTask,
}

impl Field {
    pub const ALL: [Field; 6] =
        [Field::Steps, Field::PerTask, Field::Lr, Field::Seed, Field::ValEvery, Field::ValPerTask];

    /// The form element's id.
    pub fn id(self) -> &'static str {
        match self {
            Field::Steps => "nn-steps",
            Field::PerTask => "nn-per-task",
            Field::Lr => "nn-lr",
            Field::Seed => "nn-seed",
            Field::ValEvery => "nn-val-every",
            Field::ValPerTask => "nn-val-n",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Field::Steps => "Steps",
            Field::PerTask => "Trials per task per step",
            Field::Lr => "Learning rate",
            Field::Seed => "Seed",
            Field::ValEvery => "Validate every (steps)",
            Field::ValPerTask => "Validation trials per task",
        }
    }

    /// The field's value in `c`, as the form shows it.
    pub fn show(self, c: &TrainSettings) -> String {
        match self {
            Field::Steps => c.steps.to_string(),
            Field::PerTask => c.per_task.to_string(),
            Field::Lr => c.lr.to_string(),
            Field::Seed => c.seed.to_string(),
            Field::ValEvery => c.val_every.to_string(),
            Field::ValPerTask => c.val_per_task.to_string(),
        }
    }

    /// What a person typed, as an edit, or why it is not one. The trial counts and the validation
    /// interval must be at least 1 (0 trials per step trains nothing; the worker would refuse 0).
    pub fn parse(self, text: &str) -> Result<Edit, SettingsError> {
        let t = text.trim();
        let whole = |least: u64| {
            t.parse::<u64>().ok().filter(|n| *n >= least).ok_or_else(|| SettingsError::NotWhole {
                field: self.label(),
                text: t.to_string(),
                above_zero: least > 0,
            })
        };
        Ok(match self {
            Field::Steps => Edit::Steps(whole(0)? as usize),
            Field::PerTask => Edit::PerTask(whole(1)? as usize),
            Field::Seed => Edit::Seed(whole(0)?),
            Field::ValEvery => Edit::ValEvery(whole(1)? as usize),
            Field::ValPerTask => Edit::ValPerTask(whole(1)? as usize),
            Field::Lr => Edit::Lr(
                t.parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite() && *x > 0.0)
                    .ok_or_else(|| SettingsError::Lr(t.to_string()))?,
            ),
        })
    }
}

/// One change a person makes to the settings.
#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
    Steps(usize),
    PerTask(usize),
    Lr(f64),
    Seed(u64),
    ValEvery(usize),
    ValPerTask(usize),
    Tasks(Option<Vec<TaskId>>),
    /// `None` when every switch is off.
    Quirks(Option<Quirks>),
    /// Task parameters (`KEY=VALUE`), `None` for the paper's.
    TaskSettings(Option<Vec<(String, String)>>),
    /// A frozen identity task embedding (the paper's "static" models) instead of a learned one.
    StaticEmbedding(bool),
}

impl Edit {
    /// The task-id list a person typed (see [`TrainSettings::parse_tasks`]).
    pub fn tasks(text: &str) -> Result<Edit, SettingsError> {
        TrainSettings::parse_tasks(text).map(Edit::Tasks).map_err(|e| SettingsError::Tasks(Box::new(e)))
    }

    /// Task parameters as a person types them: `KEY=VALUE` entries separated by `;` (a value may be a
    /// comma list: `noise_mask=true; set_sizes=2,4`); empty = the paper's. Whether each key and value
    /// fits the trained tasks is the worker's check (`wmlab_nn::TrainConfig::check_task_settings`).
    pub fn task_settings(text: &str) -> Result<Edit, SettingsError> {
        let out = crate::parse_settings(text).map_err(SettingsError::TaskSettings)?;
        Ok(Edit::TaskSettings((!out.is_empty()).then_some(out)))
    }

    /// Switch the reference-code quirk `name` on or off in `c`'s quirks.
    pub fn quirk(c: &TrainSettings, name: &str, on: bool) -> Result<Edit, SettingsError> {
        let mut q = c.quirks.unwrap_or_default();
        q.set(name, on)?;
        Ok(Edit::Quirks((!q.is_none()).then_some(q)))
    }

    pub fn apply(&self, c: &mut TrainSettings) {
        match self {
            Edit::Steps(n) => c.steps = *n,
            Edit::PerTask(n) => c.per_task = *n,
            Edit::Lr(x) => c.lr = *x,
            Edit::Seed(s) => c.seed = *s,
            Edit::ValEvery(n) => c.val_every = *n,
            Edit::ValPerTask(n) => c.val_per_task = *n,
            Edit::Tasks(t) => c.tasks = t.clone(),
            Edit::Quirks(q) => c.quirks = *q,
            Edit::TaskSettings(s) => c.task_settings = s.clone(),
            Edit::StaticEmbedding(on) => c.model.frozen_task_embedding = *on,
        }
    }
}

/// The training settings as the Networks page edits them, kept consistent while requests to the worker
/// are in flight. Choosing a preset, architecture or capacity asks the worker for a whole new
/// configuration ([`SettingsEdits::request`]); answers can arrive after the user has already edited a
/// field (steps, learning rate, …) or asked again. Without care, a late answer overwrites those edits
/// (a run meant to take 2 steps trains 10,000) or an older answer replaces a newer one. Here an answer
/// to an older request is dropped, and the fields edited since the latest request are applied again on
/// top of its answer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SettingsEdits {
    /// The latest request's number (requests are numbered from 1).
    seq: u64,
    /// Whether the latest request is still unanswered (edits are recorded while it is).
    open: bool,
    /// Whether the page should show the settings as still changing (cleared by an error too).
    pending: bool,
    /// Edits made since the latest request, in order.
    edits: Vec<Edit>,
}

impl SettingsEdits {
    pub fn new() -> Self {
        Self::default()
    }

    /// A new request for a whole configuration: its number, to send with `Cmd::Preset` / `Cmd::Check`.
    /// Edits made before it are the old configuration's and are not carried over.
    pub fn request(&mut self) -> u64 {
        self.seq += 1;
        self.open = true;
        self.pending = true;
        self.edits.clear();
        self.seq
    }

    /// Whether a request is unanswered (the settings shown may still change).
    pub fn pending(&self) -> bool {
        self.pending
    }

    /// The worker reported an error (a settings request it refused, or anything else): stop showing
    /// the settings as changing. Edits are still recorded, should the answer come after all.
    pub fn settle(&mut self) {
        self.pending = false;
    }

    /// Apply `edit` to `config` and remember it while a request is unanswered, so its answer keeps it.
    pub fn edit(&mut self, config: &mut TrainSettings, edit: Edit) {
        edit.apply(config);
        if self.open {
            self.edits.push(edit);
        }
    }

    /// The worker's answer `config` to request `seq`: `None` when a newer request is out (drop it),
    /// else the configuration to show, with the edits made since the request applied again. An answer
    /// no request asked for (`seq` 0, e.g. the settings of a resumed checkpoint) replaces everything.
    pub fn answer(&mut self, seq: u64, mut config: TrainSettings) -> Option<TrainSettings> {
        if seq == 0 {
            self.open = false;
            self.pending = false;
            self.edits.clear();
            return Some(config);
        }
        if seq != self.seq {
            return None;
        }
        for e in self.edits.drain(..) {
            e.apply(&mut config);
        }
        self.open = false;
        self.pending = false;
        Some(config)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn only_cpu_picks_on_an_isolated_page_take_the_threaded_worker() {
        use BackendPick::*;
        assert!(Cpu.threaded_worker(true, true));
        assert!(Cpu.threaded_worker(true, false));
        assert!(Auto.threaded_worker(true, false));
        // Auto prefers WebGPU where the browser has it; an explicit WebGPU pick never goes threaded.
        assert!(!Auto.threaded_worker(true, true));
        assert!(!Webgpu.threaded_worker(true, false));
        // Without cross-origin isolation there is no shared memory: always the single-threaded worker.
        for p in BackendPick::ALL {
            assert!(!p.threaded_worker(false, false));
            assert!(!p.threaded_worker(false, true));
        }
    }

    /// Settings as the `tiny` preset makes them for a GRU of `capacity` units.
    pub(crate) fn settings(capacity: usize, steps: usize) -> TrainSettings {
        TrainSettings {
            model: ModelSettings {
                arch: Arch::Gru,
                capacity,
                spatial: None,
                encoder: None,
                attention: None,
                conv: [8, 16, 16, 32],
                mem_input: 64,
                frozen_task_embedding: false,
                trf_layers: 2,
                trf_heads: 8,
                trf_ff: 2048,
                trf_dropout: 0.1,
                xavier: true,
                max_steps: None,
                word_slots: None,
            },
            tasks: None,
            grad_clip: None,
            curriculum: None,
            multilabel_scale: None,
            quirks: None,
            task_settings: None,
            adam_epsilon: None,
            reference_init: None,
            shuffle_epochs: None,
            preset: "tiny".into(),
            steps,
            per_task: 2,
            lr: 1e-3,
            seed: 86,
            train_size: 86_400,
            val_every: 50,
            val_per_task: 10,
            plateau_factor: 0.8,
            plateau_patience: 3,
            plateau_threshold: 0.005,
        }
    }

    #[test]
    fn a_late_answer_keeps_the_fields_edited_since_the_request() {
        let mut e = SettingsEdits::new();
        let mut shown = settings(96, 300);
        // The user changes capacity: a request goes out; then edits steps and the validation interval
        // before the answer comes.
        let seq = e.request();
        assert!(e.pending());
        e.edit(&mut shown, Edit::Steps(2));
        assert_eq!(shown.steps, 2, "the edit shows at once");
        e.edit(&mut shown, Edit::ValEvery(2));
        let answer = TrainSettings { steps: 10_000, val_every: 500, ..settings(16, 0) };
        let now = e.answer(seq, answer).expect("the latest request's answer is used");
        assert_eq!((now.steps, now.val_every), (2, 2));
        assert_eq!(now.model.capacity, 16, "the rest comes from the answer");
        assert!(!e.pending());
        // Edits after the answer are not kept for later answers.
        e.edit(&mut shown, Edit::Steps(5));
        let seq2 = e.request();
        let now = e.answer(seq2, settings(96, 300)).unwrap();
        assert_eq!(now.steps, 300, "a new preset's own values win over edits made before it");
    }

    #[test]
    fn an_answer_to_an_older_request_is_dropped() {
        let mut e = SettingsEdits::new();
        let first = e.request();
        let second = e.request();
        assert_eq!(e.answer(first, settings(16, 1)), None);
        assert!(e.pending(), "still waiting for the newer answer");
        assert_eq!(e.answer(second, settings(32, 1)), Some(settings(32, 1)));
        // An unrequested configuration (a resumed checkpoint's) replaces all.
        e.request();
        let mut shown = settings(16, 3);
        e.edit(&mut shown, Edit::Steps(9));
        assert_eq!(e.answer(0, settings(16, 1)), Some(settings(16, 1)));
        assert!(!e.pending());
    }

    #[test]
    fn an_error_settles_but_a_late_answer_still_keeps_the_edits() {
        let mut e = SettingsEdits::new();
        let seq = e.request();
        e.settle();
        assert!(!e.pending());
        let mut shown = settings(16, 300);
        e.edit(&mut shown, Edit::Steps(7));
        assert_eq!(e.answer(seq, settings(16, 10)).unwrap().steps, 7);
    }

    #[test]
    fn form_fields_read_what_people_type_and_say_why_not() {
        let c = settings(96, 300);
        assert_eq!(Field::ALL.map(|f| f.show(&c)), ["300", "2", "0.001", "86", "50", "10"].map(String::from));
        assert_eq!(Field::Steps.parse(" 2 "), Ok(Edit::Steps(2)));
        assert_eq!(Field::Lr.parse("3e-4"), Ok(Edit::Lr(3e-4)));
        assert_eq!(Field::Lr.parse("0").unwrap_err().to_string(), "Learning rate: \"0\" is not a positive number.");
        assert_eq!(
            Field::PerTask.parse("0").unwrap_err().to_string(),
            "Trials per task per step: \"0\" is not a whole number above 0."
        );
        assert!(Field::Seed.parse("1.5").unwrap_err().to_string().contains("not a whole number"));
        assert!(Field::Lr.parse("NaN").is_err() && Field::Lr.parse("inf").is_err());
        // Every field's edit lands on its own field.
        let mut d = c.clone();
        for (f, text) in Field::ALL.into_iter().zip(["7", "3", "0.5", "9", "4", "6"]) {
            f.parse(text).unwrap().apply(&mut d);
        }
        assert_eq!(Field::ALL.map(|f| f.show(&d)), ["7", "3", "0.5", "9", "4", "6"].map(String::from));
        assert_eq!(d.model, c.model);
    }

    #[test]
    fn task_lists_and_quirks_edit_the_settings() {
        let mut c = settings(96, 300);
        Edit::tasks("vsr, CD-Color,VSR").unwrap().apply(&mut c);
        assert_eq!(c.tasks, Some(vec![TaskId::Vsr, TaskId::CdColor]));
        assert_eq!(c.tasks_text(), "VSR,CD-Color");
        assert_eq!(c.task_ids(), vec![TaskId::Vsr, TaskId::CdColor], "in the model's order");
        assert_eq!(c.trials_per_step(), 4);
        let all: Vec<&str> = TaskId::ALL.iter().map(|t| t.as_str()).collect();
        assert_eq!(Edit::tasks(&all.join(",")), Ok(Edit::Tasks(None)), "all 14 named is all");
        assert_eq!(Edit::tasks(""), Ok(Edit::Tasks(None)));
        assert_eq!(Edit::tasks("VSR,all"), Ok(Edit::Tasks(None)));
        assert!(Edit::tasks("VSR,XYZ").unwrap_err().to_string().starts_with("Task ids: \"XYZ\" is not a task id"));
        let on = Edit::quirk(&c, "cd-size", true).unwrap();
        on.apply(&mut c);
        assert_eq!(c.quirks.unwrap().names(), ["cd-size"]);
        Edit::quirk(&c, "cd-size", false).unwrap().apply(&mut c);
        assert_eq!(c.quirks, None, "all off is none, the paper's tasks");
        assert!(Edit::quirk(&c, "bogus", true).is_err());
        // Task parameters: `;`-separated KEY=VALUE, values may be comma lists; shown back the same way.
        Edit::task_settings(" noise_mask=true; set_sizes=2,4 ;").unwrap().apply(&mut c);
        let want = vec![("noise_mask".to_string(), "true".to_string()), ("set_sizes".to_string(), "2,4".to_string())];
        assert_eq!(c.task_settings, Some(want));
        assert_eq!(c.task_settings_text(), "noise_mask=true; set_sizes=2,4");
        assert_eq!(Edit::task_settings(""), Ok(Edit::TaskSettings(None)));
        let e = Edit::task_settings("noise_mask").unwrap_err().to_string();
        assert!(e.starts_with("Task parameters: \"noise_mask\" is not KEY=VALUE"), "{e}");
    }

    #[test]
    fn settings_json_reads_back_and_a_bad_one_says_why() {
        let c = TrainSettings {
            tasks: Some(vec![TaskId::Sc]),
            quirks: Some(Quirks::parse("cs-all-steps").unwrap()),
            ..settings(96, 300)
        };
        let text = c.to_json_pretty();
        assert!(text.contains("\"arch\": \"gru\"") && text.contains("\"SC\""), "{text}");
        assert_eq!(TrainSettings::from_json(&text).as_ref(), Ok(&c));
        let e = TrainSettings::from_json(r#"{"steps": 3}"#).unwrap_err().to_string();
        assert!(e.starts_with("The settings JSON is not valid (missing field"), "{e}");
        let e = TrainSettings::from_json(&text.replace("\"SC\"", "\"XX\"")).unwrap_err().to_string();
        assert!(e.contains("unknown variant `XX`"), "{e}");
        assert_eq!(c.label(), "GRU-96 (tiny preset)");
    }

    #[test]
    fn choices_read_back_from_their_names() {
        for a in Arch::ALL {
            assert_eq!(Arch::parse(&a.as_str().to_uppercase()), Some(a));
        }
        for p in Preset::ALL {
            assert_eq!(Preset::parse(p.as_str()), Some(p));
            assert_eq!(serde_json::to_string(&p).unwrap(), format!("\"{}\"", p.as_str()));
        }
        for b in BackendPick::ALL {
            assert_eq!(BackendPick::parse(b.as_str()), Some(b));
            assert_eq!(serde_json::to_string(&b).unwrap(), format!("\"{}\"", b.as_str()));
        }
        assert_eq!(serde_json::to_string(&Backend::Webgpu).unwrap(), "\"webgpu\"");
        assert_eq!((Arch::parse("xyz"), Preset::parse("huge")), (None, None));
    }
}

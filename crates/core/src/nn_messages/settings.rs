//! The choices the training configuration ([`super::TrainConfig`]) offers as enums, why a config is
//! refused, and the edits a person makes to it on the Networks page ([`Field`], [`Edit`]).

use serde::{Deserialize, Serialize};

use crate::task::{Quirks, TaskId};

use super::config::TrainConfig;

/// The memory architecture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arch {
    /// A simple recurrent network (the paper's RNN).
    Rnn,
    /// A gated recurrent unit network.
    Gru,
    /// A long short-term memory network.
    Lstm,
    /// The causal Transformer (the paper's `nn.TransformerEncoder`, each step attending to earlier steps).
    Trf,
}

impl Arch {
    /// Every architecture, in the order the Networks page lists them.
    pub const ALL: [Arch; 4] = [Arch::Rnn, Arch::Gru, Arch::Lstm, Arch::Trf];
    /// The name in JSON, on the command line and in file names (`gru`).
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

/// A named set of settings ([`TrainConfig::preset`] holds the values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Preset {
    /// The pixel encoder, tiny memory sizes and distance attention: learns in minutes on a CPU; not the paper's
    /// model.
    Quick,
    /// A smoke test: the ConvNet and the memory at tiny sizes, a few hundred steps; stays near chance on most ids.
    Tiny,
    /// A quarter of the paper's conv widths and smaller memory input and feed-forward sizes: minutes on a GPU.
    Small,
    /// Table A1, trained as the authors' code trains.
    Paper,
}

impl Preset {
    /// Every preset, in the order the Networks page lists them.
    pub const ALL: [Preset; 4] = [Preset::Quick, Preset::Tiny, Preset::Small, Preset::Paper];
    /// The name in JSON, on the command line and in [`TrainConfig::preset`].
    pub fn as_str(self) -> &'static str {
        match self {
            Preset::Quick => "quick",
            Preset::Tiny => "tiny",
            Preset::Small => "small",
            Preset::Paper => "paper",
        }
    }
    /// Case does not matter (`Paper`, `paper`).
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
    /// burn's WebGPU backend on the browser's adapter (a fatal error when there is none).
    Webgpu,
    /// burn's flex CPU backend (on every core in the threaded worker, where the page is cross-origin isolated).
    Cpu,
}

impl BackendPick {
    /// Every pick, in the order the Networks page lists them.
    pub const ALL: [BackendPick; 3] = [BackendPick::Auto, BackendPick::Webgpu, BackendPick::Cpu];
    /// The name in JSON and in the page's backend menu (`auto`).
    pub fn as_str(self) -> &'static str {
        match self {
            BackendPick::Auto => "auto",
            BackendPick::Webgpu => "webgpu",
            BackendPick::Cpu => "cpu",
        }
    }
    /// Case does not matter (`CPU`, `cpu`).
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
    /// As the page's backend menu offers it.
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
    /// burn's WebGPU backend on the browser's GPU adapter.
    Webgpu,
    /// burn's flex CPU backend in wasm: one thread, or every core in the threaded worker.
    Cpu,
}

impl Backend {
    /// The name in JSON and in records (`webgpu`, `cpu`).
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Webgpu => "webgpu",
            Backend::Cpu => "cpu",
        }
    }
    /// As the page shows it (`CPU (flex, in wasm)`).
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

/// The ids a `tasks` setting trains, in [`TaskId::ALL`] order (all 14 for `None` or an empty list);
/// [`TrainConfig::task_ids`] reads it so.
pub fn trained_ids(tasks: Option<&[TaskId]>) -> Vec<TaskId> {
    match tasks {
        Some(v) if !v.is_empty() => TaskId::EVERY.into_iter().filter(|t| v.contains(t)).collect(),
        _ => TaskId::ALL.to_vec(),
    }
}

/// LSR trains alone, as in the paper: a set of trained ids that holds it with others is refused (the
/// page's task list and [`TrainConfig::check_task_settings`] both ask here).
pub fn lsr_alone(ids: &[TaskId]) -> Result<(), SettingsError> {
    if ids.contains(&TaskId::Lsr) && ids.len() > 1 {
        return Err(SettingsError::LsrNotAlone);
    }
    Ok(())
}

/// Why settings a person typed, pasted or loaded are refused (each message in plain words).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SettingsError {
    /// LSR was given with other task ids (it trains alone, WorM A3.1).
    #[error(
        "LSR (language serial recall) trains alone, as in the paper (A3.1): its model reads words instead of \
         frames; give LSR as the only task id"
    )]
    LsrNotAlone,
    /// A name in a task-id list that is not a task id; the name as typed.
    #[error("\"{0}\" is not a task id: use a comma list of {ids} (or all)", ids = TaskId::EVERY.map(|t| t.as_str()).join(", "))]
    UnknownTask(String),
    /// A task-id list a person typed, and what is wrong with it.
    #[error("Task ids: {0}.")]
    Tasks(Box<SettingsError>),
    /// Settings JSON that does not read as a [`TrainConfig`]; serde's account of why.
    #[error("The settings JSON is not valid ({0}); the previous settings are kept.")]
    Json(String),
    /// A form field that needs a whole number got something else.
    #[error("{field}: \"{text}\" is not a whole number{above}.", above = if *above_zero { " above 0" } else { "" })]
    NotWhole {
        /// The field's label.
        field: &'static str,
        /// What was typed (trimmed).
        text: String,
        /// Whether the field needs at least 1 (else 0 is allowed).
        above_zero: bool,
    },
    /// The learning rate typed is not a finite number above 0; the text as typed.
    #[error("Learning rate: \"{0}\" is not a positive number.")]
    Lr(String),
    /// Task parameters with an entry that is not `KEY=VALUE`.
    #[error("Task parameters: {0}.")]
    TaskSettings(crate::NotKeyValue),
    /// A task parameter that does not fit the trained tasks, or an unknown quirk name
    /// ([`crate::task::SettingError`] says which).
    #[error(transparent)]
    Quirk(#[from] crate::task::SettingError),
    /// A words encoder ([`Encoder::Words`]) for a run that does not train LSR.
    #[error("the words encoder reads LSR's word slots only: train it with the task LSR")]
    WordsWithoutLsr,
    /// The model the settings describe cannot be built.
    #[error(transparent)]
    Model(ModelError),
}

crate::message_into_string!(SettingsError);

/// Why a model described by [`super::ModelConfig`] cannot be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// The memory's input leaves no room for visual features beside the task embedding.
    #[error("memory input {input} must exceed {tasks} (the task embedding)")]
    MemoryInput {
        /// The memory's input size (`mem_input`; `capacity` for the Transformer).
        input: usize,
        /// The task embedding's width ([`super::N_TASKS`]), which the input must exceed.
        tasks: usize,
    },
    /// The Transformer's width is not a multiple of its head count.
    #[error("d_model {d_model} must be divisible by the {heads} heads")]
    Heads {
        /// The Transformer's width (`capacity`).
        d_model: usize,
        /// Its attention heads (`trf_heads`).
        heads: usize,
    },
    /// `spatial` is outside 1 to 8; the value given.
    #[error("spatial grid {0} must be 1 (global pool) to 8 (the last conv map is 8×8)")]
    Spatial(usize),
    /// The capacity or a conv width is 0.
    #[error("sizes must be positive")]
    NotPositive,
    /// A size past the bound this app builds (far above the paper's largest).
    #[error("{what} {value} is over the {max} this app builds")]
    TooLarge {
        /// Which size (`capacity`, `conv width`, `memory input`, …), as the message names it.
        what: &'static str,
        /// The size given.
        value: usize,
        /// The largest this app builds.
        max: usize,
    },
    /// A Transformer with 0 layers, heads or feed-forward units.
    #[error("the Transformer's layers, heads and feed-forward size must be positive")]
    TransformerSizes,
    /// Transformer dropout outside [0, 1); the value given.
    #[error("dropout {0} must be at least 0 and below 1")]
    Dropout(f64),
    /// Word slots per step outside 2 to LSR's largest; the number given.
    #[error("word slots {0} must be 2 to {max}", max = crate::tasks::lsr::MAX_SLOTS)]
    WordSlots(usize),
}

crate::message_into_string!(ModelError);

/// A number field of the settings form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// Optimisation steps ([`TrainConfig::steps`]).
    Steps,
    /// Trials per task id per step ([`TrainConfig::per_task`]).
    PerTask,
    /// Adam's learning rate ([`TrainConfig::lr`]).
    Lr,
    /// Master seed of the trial streams and the initialisation ([`TrainConfig::seed`]).
    Seed,
    /// Steps between validation checks ([`TrainConfig::val_every`]).
    ValEvery,
    /// Validation trials per task id per check ([`TrainConfig::val_per_task`]).
    ValPerTask,
}

impl Field {
    /// Every field, in the order of the settings form.
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

    /// The field's label on the form (also names it in [`SettingsError::NotWhole`]).
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
    pub fn show(self, c: &TrainConfig) -> String {
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
    /// Set [`TrainConfig::steps`].
    Steps(usize),
    /// Set [`TrainConfig::per_task`] (at least 1).
    PerTask(usize),
    /// Set [`TrainConfig::lr`] (finite, above 0).
    Lr(f64),
    /// Set [`TrainConfig::seed`].
    Seed(u64),
    /// Set [`TrainConfig::val_every`] (at least 1).
    ValEvery(usize),
    /// Set [`TrainConfig::val_per_task`] (at least 1).
    ValPerTask(usize),
    /// Set [`TrainConfig::tasks`] (`None`: all 14).
    Tasks(Option<Vec<TaskId>>),
    /// `None` when every switch is off.
    Quirks(Option<Quirks>),
    /// Task parameters (`KEY=VALUE`), `None` for the paper's.
    TaskSettings(Option<Vec<(String, String)>>),
    /// A frozen identity task embedding (the paper's "static" models) instead of a learned one.
    StaticEmbedding(bool),
}

impl Edit {
    /// The task-id list a person typed (see [`TrainConfig::parse_tasks`]).
    pub fn tasks(text: &str) -> Result<Edit, SettingsError> {
        TrainConfig::parse_tasks(text).map(Edit::Tasks).map_err(|e| SettingsError::Tasks(Box::new(e)))
    }

    /// Task parameters as a person types them: `KEY=VALUE` entries separated by `;` (a value may be a
    /// comma list: `noise_mask=true; set_sizes=2,4`); empty = the paper's. Whether each key and value
    /// fits the trained tasks is checked with the whole config ([`TrainConfig::check_task_settings`]).
    pub fn task_settings(text: &str) -> Result<Edit, SettingsError> {
        let out = crate::parse_settings(text).map_err(SettingsError::TaskSettings)?;
        Ok(Edit::TaskSettings((!out.is_empty()).then_some(out)))
    }

    /// Switch the reference-code quirk `name` on or off in `c`'s quirks.
    pub fn quirk(c: &TrainConfig, name: &str, on: bool) -> Result<Edit, SettingsError> {
        let mut q = c.quirks.unwrap_or_default();
        q.set(name, on)?;
        Ok(Edit::Quirks((!q.is_none()).then_some(q)))
    }

    /// Make this change to `c`.
    pub fn apply(&self, c: &mut TrainConfig) {
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
    pub(crate) fn settings(capacity: usize, steps: usize) -> TrainConfig {
        TrainConfig::preset(Preset::Tiny, Arch::Gru, capacity).with_steps(steps)
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
        let c = TrainConfig {
            tasks: Some(vec![TaskId::Sc]),
            quirks: Some(Quirks::parse("cs-all-steps").unwrap()),
            ..settings(96, 300)
        };
        let text = c.to_json_pretty();
        assert!(text.contains("\"arch\": \"gru\"") && text.contains("\"SC\""), "{text}");
        assert_eq!(TrainConfig::from_json(&text).as_ref(), Ok(&c));
        let e = TrainConfig::from_json(r#"{"steps": 3}"#).unwrap_err().to_string();
        assert!(e.starts_with("The settings JSON is not valid (missing field"), "{e}");
        let e = TrainConfig::from_json(&text.replace("\"SC\"", "\"XX\"")).unwrap_err().to_string();
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

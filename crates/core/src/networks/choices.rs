//! The choices the training configuration ([`super::TrainConfig`]) offers as enums (architecture,
//! encoder, attention, preset), which task ids a config trains, and why a config is refused.

use serde::{Deserialize, Serialize};

use crate::task::TaskId;

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

/// A named set of settings ([`super::TrainConfig::preset`] holds the values).
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
    /// The name in JSON, on the command line and in [`super::TrainConfig::preset`].
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

/// The ids a `tasks` setting trains, in [`TaskId::ALL`] order (all 14 for `None` or an empty list);
/// [`super::TrainConfig::task_ids`] reads it so.
pub fn trained_ids(tasks: Option<&[TaskId]>) -> Vec<TaskId> {
    match tasks {
        Some(v) if !v.is_empty() => TaskId::EVERY.into_iter().filter(|t| v.contains(t)).collect(),
        _ => TaskId::ALL.to_vec(),
    }
}

/// LSR trains alone, as in the paper: a set of trained ids that holds it with others is refused (the
/// page's task list and [`super::TrainConfig::check_task_settings`] both ask here).
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
    /// Settings JSON that does not read as a [`super::TrainConfig`]; serde's account of why.
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::networks::TrainConfig;
    use crate::task::Quirks;

    /// Settings as the `tiny` preset makes them for a GRU of `capacity` units.
    pub(crate) fn settings(capacity: usize, steps: usize) -> TrainConfig {
        TrainConfig::preset(Preset::Tiny, Arch::Gru, capacity).with_steps(steps)
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
        assert_eq!((Arch::parse("xyz"), Preset::parse("huge")), (None, None));
    }
}

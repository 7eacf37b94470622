//! Tasks as data: the 14 WorM task ids, the shape of a trial, condition metadata and the balanced,
//! seeded generation of splits. The per-task rules live in [`crate::tasks`].

use serde::{Deserialize, Serialize};

use crate::display::Frame;
use crate::rng::{Rng, Split, trial_seed};
use crate::tasks;

/// Trials are padded to this many steps (`max_seq_len` in the reference): the longest trial of the
/// paper's grids. Task parameters may make longer trials (list lengths up to 16 = 32 steps, the paper's
/// A3.2); then a batch pads to its longest trial ([`TaskSpec::longest_trial`]).
pub const MAX_STEPS: usize = 20;

/// The longest trial any task parameter may make.
pub const STEP_LIMIT: usize = 64;

/// The 14 task ids, in the reference's task-embedding order (SC 0 … CS 13).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum TaskId {
    /// Spatial Coordination: cells of a 10×10 board lit one per frame; is the pattern they make mirror-symmetric?
    #[serde(rename = "SC")]
    Sc,
    /// Spatial Free Recall: cells of a board turn red one per frame; recall the whole set, in any order.
    #[serde(rename = "SFR")]
    Sfr,
    /// Spatial Integration: a line figure on a lattice shown in parts; is the probe figure the same as the whole?
    #[serde(rename = "SI")]
    Si,
    /// Spatial Memory Updating: a marker in each box's 3×3 grid, moved by arrows; recall each final cell.
    #[serde(rename = "SMU")]
    Smu,
    /// Spatial Task Switching (cued): a marker's quadrant judged top/bottom or left/right, as the last cue says.
    #[serde(rename = "STS")]
    Sts,
    /// Visual Item Recognition: a list of grid patterns, then a studied one beside a lure; which side was studied?
    #[serde(rename = "VIR")]
    Vir,
    /// Visual Serial Recall: a list of grid patterns, then all of them in a 3×3 layout; pick them in study order.
    #[serde(rename = "VSR")]
    Vsr,
    /// Visual Serial Recognition: a list of patterns, then for each position the studied one beside a lure.
    #[serde(rename = "VSRec")]
    VsRec,
    /// Change Detection, colour condition: did a bar of the array change colour (red ↔ green)?
    #[serde(rename = "CD-Color")]
    CdColor,
    /// Change Detection, orientation condition: did a bar turn (horizontal ↔ vertical)?
    #[serde(rename = "CD-Orientation")]
    CdOrientation,
    /// Change Detection, size condition: did a bar change length (small ↔ large)?
    #[serde(rename = "CD-Size")]
    CdSize,
    /// Change Detection, gap condition: did a bar gain or lose the gap in its middle?
    #[serde(rename = "CD-Gap")]
    CdGap,
    /// Change Detection, conjunction condition: any one of the four features may change (drawn per trial).
    #[serde(rename = "CD-Conjunction")]
    CdConjunction,
    /// Complex Span: stored items alternate with distractor judgements, then each item is recalled from 8 options.
    #[serde(rename = "CS")]
    Cs,
    /// Language Serial Recall (WorM A3.1): VSR's protocol with words. Not one of the 14 jointly trained
    /// ids ([`TaskId::ALL`]); see [`TaskId::EVERY`].
    #[serde(rename = "LSR")]
    Lsr,
}

/// What a network head for a task outputs (paper: per-task linear heads).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "units", rename_all = "snake_case")]
pub enum HeadKind {
    /// One logit, BCE-with-logits; the target is class 0 or 1.
    Binary,
    /// `n` logits, cross-entropy; the target is a class index.
    Classes(u16),
    /// `n` logits, BCE-with-logits per unit; the target is a set of active units.
    MultiLabel(u16),
}

impl HeadKind {
    /// Output units (logits) of the head: 1 for [`HeadKind::Binary`], else its `n`.
    pub fn units(self) -> u16 {
        match self {
            HeadKind::Binary => 1,
            HeadKind::Classes(n) | HeadKind::MultiLabel(n) => n,
        }
    }
}

impl TaskId {
    /// The 14 ids the WorM paper trains jointly, in the reference's task-embedding order (the index is
    /// [`TaskId::ordinal`]); LSR is not among them.
    pub const ALL: [TaskId; 14] = [
        TaskId::Sc,
        TaskId::Sfr,
        TaskId::Si,
        TaskId::Smu,
        TaskId::Sts,
        TaskId::Vir,
        TaskId::Vsr,
        TaskId::VsRec,
        TaskId::CdColor,
        TaskId::CdOrientation,
        TaskId::CdSize,
        TaskId::CdGap,
        TaskId::CdConjunction,
        TaskId::Cs,
    ];

    /// Every task id: the 14 of [`TaskId::ALL`] (the paper's joint training mix, in the reference's
    /// task-embedding order), then the ablation ids of the appendix that are trained alone (LSR, A3.1).
    pub const EVERY: [TaskId; 15] = {
        let mut every = [TaskId::Lsr; 15];
        let mut i = 0;
        while i < TaskId::ALL.len() {
            every[i] = TaskId::ALL[i];
            i += 1;
        }
        every
    };

    /// Position in [`TaskId::EVERY`]: for the 14 WorM ids the reference's task-embedding index; LSR is 14.
    /// It also keys each id's random stream, so LSR's trials are not VSR's.
    pub fn ordinal(self) -> u8 {
        TaskId::EVERY.iter().position(|&t| t == self).expect("TaskId::EVERY lists every id") as u8
    }

    /// The row of the 14-row task embedding a trial of this id reads: its ordinal, and VSR's for LSR (the
    /// paper trains LSR alone with VSR's protocol, so a model needs no 15th row and keeps the paper's
    /// 14-wide task input).
    pub fn embedding_row(self) -> u8 {
        match self {
            TaskId::Lsr => TaskId::Vsr.ordinal(),
            t => t.ordinal(),
        }
    }

    /// The id as written on the command line and in records (`SC`, `CD-Color`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            TaskId::Sc => "SC",
            TaskId::Sfr => "SFR",
            TaskId::Si => "SI",
            TaskId::Smu => "SMU",
            TaskId::Sts => "STS",
            TaskId::Vir => "VIR",
            TaskId::Vsr => "VSR",
            TaskId::VsRec => "VSRec",
            TaskId::CdColor => "CD-Color",
            TaskId::CdOrientation => "CD-Orientation",
            TaskId::CdSize => "CD-Size",
            TaskId::CdGap => "CD-Gap",
            TaskId::CdConjunction => "CD-Conjunction",
            TaskId::Cs => "CS",
            TaskId::Lsr => "LSR",
        }
    }

    /// The id spelled `s` as [`TaskId::as_str`] writes it (exact case: `CD-Color`, `VSRec`, `LSR`), or `None`.
    pub fn parse(s: &str) -> Option<TaskId> {
        TaskId::EVERY.into_iter().find(|t| t.as_str() == s)
    }

    /// The experiment's name in the paper.
    pub fn title(self) -> &'static str {
        match self {
            TaskId::Sc => "Spatial Coordination",
            TaskId::Sfr => "Spatial Free Recall",
            TaskId::Si => "Spatial Integration",
            TaskId::Smu => "Spatial Memory Updating",
            TaskId::Sts => "Spatial Task Switching",
            TaskId::Vir => "Visual Item Recognition",
            TaskId::Vsr => "Visual Serial Recall",
            TaskId::VsRec => "Visual Serial Recognition",
            TaskId::CdColor => "Change Detection (colour)",
            TaskId::CdOrientation => "Change Detection (orientation)",
            TaskId::CdSize => "Change Detection (size)",
            TaskId::CdGap => "Change Detection (gap)",
            TaskId::CdConjunction => "Change Detection (conjunction)",
            TaskId::Cs => "Complex Span",
            TaskId::Lsr => "Language Serial Recall",
        }
    }

    /// The task's output head: SFR one unit per cell of the 10×10 board, SMU and VSR one class per cell
    /// of a 3×3, LSR one per word slot, STS 3 (the two answers and the cue class), CS the reference's 21
    /// classes, every other task one binary logit.
    pub fn head(self) -> HeadKind {
        match self {
            TaskId::Sfr => HeadKind::MultiLabel(100),
            TaskId::Smu | TaskId::Vsr => HeadKind::Classes(9),
            // One class per word slot; the model's serial-recall head has as many units as its slots.
            TaskId::Lsr => HeadKind::Classes(crate::tasks::lsr::MAX_SLOTS as u16),
            TaskId::Sts => HeadKind::Classes(3),
            TaskId::Cs => HeadKind::Classes(21),
            _ => HeadKind::Binary,
        }
    }

    /// Index of the task's output head: the five CD ids share one head, so there are 10 heads; LSR
    /// answers with VSR's serial-recall head (it is trained alone).
    pub fn head_index(self) -> usize {
        match self {
            TaskId::Cs => 9,
            TaskId::Lsr => TaskId::Vsr.ordinal() as usize,
            t if t.is_cd() => 8,
            t => t.ordinal() as usize,
        }
    }

    /// Whether the id is one of the five Change Detection conditions (they share one output head).
    pub fn is_cd(self) -> bool {
        matches!(self, TaskId::CdColor | TaskId::CdOrientation | TaskId::CdSize | TaskId::CdGap | TaskId::CdConjunction)
    }
}

impl std::fmt::Display for TaskId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The phase a step belongs to (paper §3); it sets the human timing (Table A2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Study frames: what is to be remembered (list items, memory arrays, SI's parts, SMU's first array).
    Present,
    /// Frames between study and probe: blank (CD's may be a noise mask), and CS's blank processing frames.
    Retention,
    /// Frames that ask for the answer about what was studied; also STS's task frames.
    Probe,
    /// CS's processing-phase judgements (colour or symmetry), between the stored items.
    Distractor,
    /// SMU's update frames: an arrow that moves one box's marker.
    Update,
    /// STS's cue frames, which set the rule for the task frames that follow.
    Switch,
}

/// What a step asks of the subject. Derived from the task; people's UIs use it to offer the right input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Response {
    /// Nothing to answer at this step.
    None,
    /// Two alternatives; `labels[0]` is class 0.
    Binary {
        /// The two options' names as people see them (`["same", "changed"]`, `["left", "right"]`, …).
        labels: [String; 2],
    },
    /// One of `n` options (VSR positions, SMU cells, CS recall options).
    Choice {
        /// Number of options; option `i` is class `i` of the target (CS adds its class offset).
        n: u16,
    },
    /// Pick `picks` of `n` cells in any order (SFR).
    MultiSelect {
        /// Cells on the board (G² for a G×G board), numbered row by row.
        n: u16,
        /// Cells to pick: the list length L.
        picks: u16,
    },
}

/// The correct answer at a step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Target {
    /// A class index (binary tasks use 0 and 1).
    Class(u16),
    /// The set of correct units of a multi-label answer (SFR), sorted.
    Set(Vec<u16>),
    /// No answer: the step is never scored.
    None,
}

/// One time step of a trial.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// What the step shows, as a display list (networks see its 32×32 rendering, people the canvas).
    pub frame: Frame,
    /// The step's phase; with the task it sets how long people see the step (Table A2).
    pub phase: Phase,
    /// The correct answer; [`Target::None`] on steps built with [`Step::show`].
    pub target: Target,
    /// Whether the step counts in loss and accuracy.
    pub scored: bool,
    /// The kind of input people are offered; [`Response::None`] even on some scored steps (STS cues under
    /// [`Quirks::sts_cue_steps`], CS's no-response steps under [`Quirks::cs_all_steps`]).
    pub response: Response,
    /// For probe steps: the 1-based serial position of the studied item this step asks about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serial_position: Option<u8>,
    /// LSR: what a network reads at this step instead of the frame, one entry per word slot: an index
    /// into [`crate::tasks::lsr::words`], or [`crate::tasks::lsr::NO_WORD`] for an empty (zero) slot.
    /// Empty for every other task.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub words: Vec<u16>,
}

/// Which feature a CD trial changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Feature {
    /// The bar's colour, red ↔ green.
    Color,
    /// The bar's orientation, horizontal ↔ vertical.
    Orientation,
    /// The bar's length, 9 ↔ 15 px (see [`Quirks::cd_size`] for the reference code's sizes).
    Size,
    /// A gap in the middle of the bar, present ↔ absent.
    Gap,
}

/// The storage or distractor domain of a CS trial.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Domain {
    /// Storage: a ball's straight three-cell path through a 3×3 grid; distractor: is a 10×10 pattern symmetric?
    Spatial,
    /// Storage: a 4×4 pattern of red cells; distractor: is a panel red or blue?
    Visual,
}

/// Condition metadata of a trial, for balancing and analysis. A task's condition grid is a list of these
/// with its manipulated factors set; the generator then adds what it drew (probed position, changed
/// feature, …). Fields a task does not use stay `None`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Conditions {
    /// L: items presented (SFR, VIR, VSR, VSRec, SC; SI's number of partial drawings).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_length: Option<u8>,
    /// S: items held at once (CD bars, SMU boxes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set_size: Option<u8>,
    /// Blank frames between the last item and the probe (CD, VIR).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retention: Option<u8>,
    /// Cells by which a distractor pattern differs from its target (VIR, VSRec).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern_difference: Option<u8>,
    /// CD: the feature that changed on a change trial (None on no-change trials).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changed_feature: Option<Feature>,
    /// CS storage domain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage: Option<Domain>,
    /// CS distractor domain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distractor: Option<Domain>,
    /// CS distractors per processing phase (0, 1, 3, 5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distractor_count: Option<u8>,
    /// SC: 0 for a symmetric pattern, else the symmetry offset (cells moved).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symmetry_offset: Option<u8>,
    /// SI: segments per partial drawing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part_size: Option<u8>,
    /// VIR: the 1-based serial position of the probed item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probed_position: Option<u8>,
    /// STS: number of task-switch cues after the first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switches: Option<u8>,
    /// Conditions of the text suites and anything else without a typed field (`n`, `lines`,
    /// `context_depth`, …), by name.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub other: std::collections::BTreeMap<String, String>,
}

impl Conditions {
    /// `name=value` pairs of the fields that are set, in a fixed order (for CSV and display).
    pub fn pairs(&self) -> Vec<(&'static str, String)> {
        fn f<T: std::fmt::Debug>(v: T) -> String {
            format!("{v:?}").to_lowercase()
        }
        let mut v = Vec::new();
        macro_rules! put {
            ($name:literal, $field:expr) => {
                if let Some(x) = &$field {
                    v.push(($name, f(x)));
                }
            };
        }
        put!("list_length", self.list_length);
        put!("set_size", self.set_size);
        put!("retention", self.retention);
        put!("pattern_difference", self.pattern_difference);
        put!("changed_feature", self.changed_feature);
        put!("storage", self.storage);
        put!("distractor", self.distractor);
        put!("distractor_count", self.distractor_count);
        put!("symmetry_offset", self.symmetry_offset);
        put!("part_size", self.part_size);
        put!("probed_position", self.probed_position);
        put!("switches", self.switches);
        v
    }
    /// Every set condition as `(name, value)`: the typed fields, then [`Conditions::other`].
    pub fn all_pairs(&self) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = self.pairs().into_iter().map(|(k, x)| (k.to_string(), x)).collect();
        v.extend(self.other.iter().map(|(k, x)| (k.clone(), x.clone())));
        v
    }
    /// Names of every condition column, in the order of [`Conditions::pairs`].
    pub const COLUMNS: [&'static str; 12] = [
        "list_length",
        "set_size",
        "retention",
        "pattern_difference",
        "changed_feature",
        "storage",
        "distractor",
        "distractor_count",
        "symmetry_offset",
        "part_size",
        "probed_position",
        "switches",
    ];
    /// The set conditions as `name=value, …` (typed fields, then [`Conditions::other`]), or `default` when
    /// none is set: a cell's caption (the gallery's rows).
    pub fn label(&self) -> String {
        let p = self.all_pairs();
        if p.is_empty() {
            return "default".into();
        }
        p.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", ")
    }
}

/// One generated trial: up to 20 steps (padding is implicit), its task and its conditions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Trial {
    /// The task that generated the trial.
    pub task: TaskId,
    /// The trial's steps in order, without padding.
    pub steps: Vec<Step>,
    /// The condition cell's factors plus what the generator drew (probed position, changed feature, …).
    pub conditions: Conditions,
}

impl Trial {
    /// Steps before padding (`seq_len`).
    pub fn len(&self) -> usize {
        self.steps.len()
    }
    /// Whether the trial has no steps.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }
    /// The frame at step `t` of the padded sequence (black padding after the trial's end).
    pub fn frame_at(&self, t: usize) -> Frame {
        self.steps.get(t).map(|s| s.frame.clone()).unwrap_or_else(Frame::padding)
    }
    /// The per-step mask over the trial padded to `t` steps (or its own length, if longer).
    pub fn mask(&self, t: usize) -> Vec<bool> {
        let mut m = vec![false; t.max(self.steps.len())];
        for (i, s) in self.steps.iter().enumerate() {
            m[i] = s.scored;
        }
        m
    }
    /// The scored steps (those that count in loss and accuracy) with their indices in the trial.
    pub fn scored_steps(&self) -> impl Iterator<Item = (usize, &Step)> {
        self.steps.iter().enumerate().filter(|(_, s)| s.scored)
    }
    /// The memoryless control of this trial: every step that is not scored (the memory frames: study
    /// lists, cues, updates, retention) shown as the blank gray frame (LSR: no word in any slot), the
    /// scored steps as they are. A subject's accuracy on such trials is what it gets from the probe
    /// frames alone (the empirical side of [`crate::chance::memoryless`]).
    pub fn memory_blanked(&self) -> Trial {
        let mut t = self.clone();
        for s in t.steps.iter_mut().filter(|s| !s.scored) {
            s.frame = Frame::blank();
            s.words.iter_mut().for_each(|w| *w = crate::tasks::lsr::NO_WORD);
        }
        t
    }
}

/// Why a task parameter (`KEY=VALUE` from the CLI's `--set`, a study link or the Networks page) or a
/// quirk's name was refused; each message names the task, the key and the value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SettingError {
    /// The task has no parameter called `key`.
    #[error("{task} has no parameter \"{key}\"; its parameters: {known}")]
    UnknownKey {
        /// The task the setting was for.
        task: TaskId,
        /// The parameter name as given.
        key: String,
        /// The task's parameter names, comma-separated.
        known: String,
    },
    /// `whose`: which tasks the settings were given for ("chosen", "trained").
    #[error("no {whose} task has a parameter \"{key}\"; their parameters: {known}")]
    NoTaskHas {
        /// Which tasks the settings were given for, as a word for the message (`chosen`, `trained`).
        whose: String,
        /// The parameter name as given.
        key: String,
        /// The parameter names of all those tasks, sorted, without repeats, comma-separated.
        known: String,
    },
    /// The value is not of the parameter's kind (a switch, a number, a comma list of numbers).
    #[error("{task} {key}: \"{value}\" is not {expected}")]
    Kind {
        /// The task the setting was for.
        task: TaskId,
        /// The parameter name as given.
        key: String,
        /// The value as given (trimmed).
        value: String,
        /// What the parameter takes, as words (`true or false`, `a number`, `a comma list of numbers`).
        expected: &'static str,
    },
    /// A list value with more than [`MAX_LIST_ENTRIES`] entries.
    #[error("{task} {key}: {entries} entries, more than the {max} a list may hold", max = MAX_LIST_ENTRIES)]
    TooManyEntries {
        /// The task the setting was for.
        task: TaskId,
        /// The parameter name as given.
        key: String,
        /// How many entries the list had.
        entries: usize,
    },
    /// A list value names the same entry twice (each entry is a condition or choice of the grid).
    #[error("{task} {key}: {entry} is listed twice")]
    Repeated {
        /// The task the setting was for.
        task: TaskId,
        /// The parameter name as given.
        key: String,
        /// The entry that appears more than once.
        entry: String,
    },
    /// The parameter's value is not a switch, a number, a list or a string, so text cannot set it.
    #[error("{task} {key} cannot be set from text")]
    NotText {
        /// The task the setting was for.
        task: TaskId,
        /// The parameter name as given.
        key: String,
    },
    /// The value has the right kind but does not fit the parameter's type (e.g. a number beyond its integer range).
    #[error("{task} {key}: \"{value}\" does not fit ({why})")]
    Shape {
        /// The task the setting was for.
        task: TaskId,
        /// The parameter name as given.
        key: String,
        /// The value as given (trimmed).
        value: String,
        /// serde's message on reading the parameters back with the new value.
        why: String,
    },
    /// The value leaves the task's condition grid empty.
    #[error("{task} {key}: \"{value}\" leaves no conditions to test")]
    NoConditions {
        /// The task the setting was for.
        task: TaskId,
        /// The parameter name as given.
        key: String,
        /// The value as given (trimmed).
        value: String,
    },
    /// A bound of the task (CD's 12 bars, VSR's 3×3 probe).
    #[error("{task} {rule}")]
    Rule {
        /// The task the setting was for.
        task: TaskId,
        /// The bound, stated for the user (names the key).
        rule: String,
    },
    /// A value that makes no trial, or none as the task means it.
    #[error("{task} {rule}; \"{value}\" was given for {key}")]
    Range {
        /// The task the setting was for.
        task: TaskId,
        /// The allowed range, stated for the user (names the key).
        rule: String,
        /// The parameter name as given.
        key: String,
        /// The value as given (trimmed).
        value: String,
    },
    /// Trials that cannot be drawn (random draws that could not finish).
    #[error("{task} {key}: \"{value}\" does not fit: {why}")]
    Draw {
        /// The task the setting was for.
        task: TaskId,
        /// The parameter name as given.
        key: String,
        /// The value as given (trimmed).
        value: String,
        /// The task's own check's message (e.g. a list longer than the cells it is drawn from).
        why: String,
    },
    /// The value makes some condition cell's trial longer than [`STEP_LIMIT`] steps.
    #[error("{task} {key}: \"{value}\" makes a trial of {steps} steps; a trial has at most {max}", max = STEP_LIMIT)]
    TrialTooLong {
        /// The task the setting was for.
        task: TaskId,
        /// The parameter name as given.
        key: String,
        /// The value as given (trimmed).
        value: String,
        /// Steps of the longest trial the value makes ([`TaskSpec::longest_trial`]).
        steps: usize,
    },
    /// A quirk name that is not one of [`Quirks::ALL`].
    #[error("unknown quirk {name:?}; known: {known}")]
    UnknownQuirk {
        /// The name as given.
        name: String,
        /// The names of [`Quirks::ALL`], comma-separated.
        known: String,
    },
    /// The parameters could not be turned into JSON to be edited (not expected); the message says why.
    #[error("{0}")]
    Internal(String),
}

crate::message_into_string!(SettingError);

/// The per-task parameters, with the reference defaults. Serialised into result records so a run can be
/// reproduced exactly.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "task")]
pub enum TaskParams {
    /// [`TaskId::Sfr`]: board size, visible cells, list lengths.
    #[serde(rename = "SFR")]
    Sfr(tasks::sfr::SfrParams),
    /// The five CD ids: which feature may change, set sizes, retentions, noise mask.
    #[serde(rename = "CD")]
    Cd(tasks::cd::CdParams),
    /// [`TaskId::Vir`]: pattern grid and filled cells, list lengths, lure difference, retentions.
    #[serde(rename = "VIR")]
    Vir(tasks::vir::VirParams),
    /// [`TaskId::Vsr`]: pattern grid and filled cells, list lengths.
    #[serde(rename = "VSR")]
    Vsr(tasks::vsr::VsrParams),
    /// [`TaskId::VsRec`]: pattern grid and filled cells, list lengths, lure differences.
    #[serde(rename = "VSRec")]
    VsRec(tasks::vsr::VsRecParams),
    /// [`TaskId::Cs`]: stored items, distractors per phase, (storage, distractor) domains.
    #[serde(rename = "CS")]
    Cs(tasks::cs::CsParams),
    /// [`TaskId::Sc`]: board size, list lengths, symmetry offsets.
    #[serde(rename = "SC")]
    Sc(tasks::sc::ScParams),
    /// [`TaskId::Si`]: lattice, segments, part sizes, distractor differences.
    #[serde(rename = "SI")]
    Si(tasks::si::SiParams),
    /// [`TaskId::Smu`]: set sizes (boxes), updates per trial.
    #[serde(rename = "SMU")]
    Smu(tasks::smu::SmuParams),
    /// [`TaskId::Sts`]: frames per trial, switch chance.
    #[serde(rename = "STS")]
    Sts(tasks::sts::StsParams),
    /// [`TaskId::Lsr`]: list lengths, word slots.
    #[serde(rename = "LSR")]
    Lsr(tasks::lsr::LsrParams),
}

/// What a task generator receives for one trial.
pub struct TrialCtx<'a> {
    /// The trial's own random stream: every draw the generator makes comes from it, in a fixed order.
    pub rng: &'a mut Rng,
    /// The condition cell of the grid this trial belongs to.
    pub cell: &'a Conditions,
    /// A balanced bit for tasks whose answer the reference draws with a coin (change/no change,
    /// symmetric/not, match/not, left/right): alternates between successive passes over the grid, so
    /// answers are balanced within every condition cell.
    pub flip: bool,
}

/// The reference code's behaviours that the paper does not describe, kept as switches so a user can
/// reproduce numbers produced with that code (`../shared/spec/reference-implementations.md`). All off is
/// the paper's intent and the default everywhere.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Quirks {
    /// CD-Size (and CD-Conjunction's size changes): the reference's asymmetric size change (small→large 16.5 px, large→small 10.5 px, gap
    /// left where it was) instead of resizing about the centre to the other size.
    #[serde(default)]
    pub cd_size: bool,
    /// CS: score every step, "no response" (class 20) on memory frames, blanks and padding, as the
    /// reference's loss and accuracy do; the paper scores only the distractor and recall steps.
    #[serde(default)]
    pub cs_all_steps: bool,
    /// STS: score the cue steps too (class 2), as the reference's loss does; the paper's accuracy counts
    /// only the task frames.
    #[serde(default)]
    pub sts_cue_steps: bool,
}

impl Quirks {
    /// (name, what it does) of every switch, as `--quirks` and the app write them.
    pub const ALL: [(&'static str, &'static str); 3] = [
        ("cd-size", "CD-Size changes size as the reference code does (16.5 / 10.5 px, gap not moved)"),
        ("cs-all-steps", "CS scores every step, with 'no response' on memory, blank and padding steps"),
        ("sts-cue-steps", "STS scores the cue steps (class 2) as well as the task frames"),
    ];

    /// Parse a comma list of names (`cd-size,sts-cue-steps`); `""` and `none` are none.
    pub fn parse(list: &str) -> Result<Quirks, SettingError> {
        let mut q = Quirks::default();
        for name in list.split(',').map(str::trim).filter(|s| !s.is_empty() && *s != "none") {
            q.set(name, true)?;
        }
        Ok(q)
    }

    /// Switch the quirk called `name` on or off.
    pub fn set(&mut self, name: &str, on: bool) -> Result<(), SettingError> {
        let flag = match name {
            "cd-size" => &mut self.cd_size,
            "cs-all-steps" => &mut self.cs_all_steps,
            "sts-cue-steps" => &mut self.sts_cue_steps,
            other => {
                let names: Vec<&str> = Quirks::ALL.iter().map(|q| q.0).collect();
                return Err(SettingError::UnknownQuirk { name: other.to_string(), known: names.join(", ") });
            }
        };
        *flag = on;
        Ok(())
    }

    /// The names switched on, in [`Quirks::ALL`] order.
    pub fn names(&self) -> Vec<&'static str> {
        let on = [self.cd_size, self.cs_all_steps, self.sts_cue_steps];
        Quirks::ALL.iter().zip(on).filter(|(_, on)| *on).map(|(q, _)| q.0).collect()
    }

    /// Whether every switch is off (the paper's behaviour throughout).
    pub fn is_none(&self) -> bool {
        *self == Quirks::default()
    }

    /// `spec` with these switches applied to its parameters (other tasks are unchanged).
    pub fn apply(&self, mut spec: TaskSpec) -> TaskSpec {
        match &mut spec.params {
            TaskParams::Cd(p) => p.reference_size_quirk = self.cd_size,
            TaskParams::Cs(p) => p.score_no_response_steps = self.cs_all_steps,
            TaskParams::Sts(p) => p.score_cue_steps = self.sts_cue_steps,
            _ => {}
        }
        spec
    }
}

/// The most entries a list parameter takes from text (every grid of the paper has at most 16).
pub const MAX_LIST_ENTRIES: usize = 64;

/// A list parameter's entries, as a link or a record gives them: at least one; each entry is a condition
/// (or a choice) of the grid, so a list longer than any grid's is a mistake that would multiply the
/// work, and a repeated entry means nothing. `value` is what a message shows for an empty list.
fn check_list(task: TaskId, key: &str, value: &str, items: &[serde_json::Value]) -> Result<(), SettingError> {
    if items.is_empty() {
        return Err(SettingError::Kind {
            task,
            key: key.to_string(),
            value: value.to_string(),
            expected: "a comma list of one number or more",
        });
    }
    if items.len() > MAX_LIST_ENTRIES {
        return Err(SettingError::TooManyEntries { task, key: key.to_string(), entries: items.len() });
    }
    if let Some(d) = items.iter().enumerate().find_map(|(i, x)| items[..i].contains(x).then_some(x)) {
        return Err(SettingError::Repeated { task, key: key.to_string(), entry: d.to_string() });
    }
    Ok(())
}

/// A task id with its parameters: the unit that generates trials.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskSpec {
    /// The task; its [`TaskId::ordinal`] keys the trials' random streams.
    pub id: TaskId,
    /// The task's parameters, the variant matching `id` (the five CD ids share [`TaskParams::Cd`]).
    pub params: TaskParams,
}

impl TaskSpec {
    /// The task with the reference parameters.
    pub fn new(id: TaskId) -> Self {
        let params = match id {
            TaskId::Sfr => TaskParams::Sfr(Default::default()),
            TaskId::Vir => TaskParams::Vir(Default::default()),
            TaskId::Vsr => TaskParams::Vsr(Default::default()),
            TaskId::VsRec => TaskParams::VsRec(Default::default()),
            TaskId::Cs => TaskParams::Cs(Default::default()),
            TaskId::Sc => TaskParams::Sc(Default::default()),
            TaskId::Si => TaskParams::Si(Default::default()),
            TaskId::Smu => TaskParams::Smu(Default::default()),
            TaskId::Sts => TaskParams::Sts(Default::default()),
            TaskId::Lsr => TaskParams::Lsr(Default::default()),
            cd => TaskParams::Cd(tasks::cd::CdParams::for_task(cd)),
        };
        TaskSpec { id, params }
    }

    /// The task with the reference parameters and the given [`Quirks`].
    pub fn with_quirks(id: TaskId, quirks: Quirks) -> Self {
        quirks.apply(TaskSpec::new(id))
    }

    /// The parameter names of this task (`set_sizes`, `noise_mask`, …), as [`TaskSpec::set`] takes them.
    pub fn keys(&self) -> Vec<String> {
        match serde_json::to_value(&self.params) {
            Ok(serde_json::Value::Object(m)) => m.keys().filter(|k| *k != "task").cloned().collect(),
            _ => Vec::new(),
        }
    }

    /// Set one parameter from text, as a study link, the CLI (`--set KEY=VALUE`) or a form gives it: a
    /// switch (`true`/`false`), a number, or a comma list of numbers (`2,4,8`). The value must fit the
    /// parameter's type and give a usable grid; otherwise the spec is unchanged and the message names the
    /// allowed keys or the expected kind of value.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), SettingError> {
        let id = self.id;
        let mut v = serde_json::to_value(&self.params).map_err(|e| SettingError::Internal(e.to_string()))?;
        let keys = self.keys();
        let Some(old) = v.get(key).filter(|_| key != "task").cloned() else {
            return Err(SettingError::UnknownKey { task: id, key: key.to_string(), known: keys.join(", ") });
        };
        let t = value.trim();
        let (k, tv) = (key.to_string(), t.to_string());
        let bad = |expected: &'static str| SettingError::Kind { task: id, key: k.clone(), value: tv.clone(), expected };
        let new = match &old {
            serde_json::Value::Bool(_) => match t.to_ascii_lowercase().as_str() {
                "true" | "1" | "yes" | "on" => serde_json::Value::Bool(true),
                "false" | "0" | "no" | "off" => serde_json::Value::Bool(false),
                _ => return Err(bad("true or false")),
            },
            serde_json::Value::Number(_) => serde_json::from_str::<serde_json::Number>(t)
                .map(serde_json::Value::Number)
                .map_err(|_| bad("a number"))?,
            serde_json::Value::Array(_) => {
                let items: Result<Vec<serde_json::Value>, SettingError> = crate::list_items(t)
                    .map(|p| {
                        serde_json::from_str::<serde_json::Number>(p)
                            .map(Into::into)
                            .map_err(|_| bad("a comma list of numbers"))
                    })
                    .collect();
                let items = items?;
                check_list(id, &k, &tv, &items)?;
                serde_json::Value::Array(items)
            }
            serde_json::Value::String(_) => serde_json::Value::String(t.to_string()),
            _ => return Err(SettingError::NotText { task: id, key: k }),
        };
        v[key] = new;
        let params: TaskParams = serde_json::from_value(v).map_err(|e| SettingError::Shape {
            task: id,
            key: k.clone(),
            value: tv.clone(),
            why: e.to_string(),
        })?;
        let spec = TaskSpec { id: self.id, params };
        spec.check_as(k, tv)?;
        *self = spec;
        Ok(())
    }

    /// Whether these parameters make trials, by the rules a study link's `set=` is held to ([`TaskSpec::set`]):
    /// for parameters that arrive whole — in a record (`--trials-of`, "Evaluate on these trials"), a
    /// checkpoint — so that what a link refuses a file cannot smuggle in (a VSR record with `grid` 2 and
    /// `filled` 18 panicked; `filled` 0 hung).
    pub fn check(&self) -> Result<(), SettingError> {
        let v = serde_json::to_value(&self.params).map_err(|e| SettingError::Internal(e.to_string()))?;
        if let Some(map) = v.as_object() {
            for (k, x) in map {
                if let Some(items) = x.as_array() {
                    check_list(self.id, k, "[]", items)?;
                }
            }
        }
        let shown: String = v.to_string().chars().take(120).collect();
        self.check_as("parameters".into(), shown)
    }

    /// The rules of [`TaskSpec::set`] after the value is in: `k` and `tv` name the key and value a
    /// message points at.
    fn check_as(&self, k: String, tv: String) -> Result<(), SettingError> {
        let (id, spec) = (self.id, self);
        if spec.grid().is_empty() {
            return Err(SettingError::NoConditions { task: id, key: k, value: tv });
        }
        // Bars are placed by rejection sampling, which cannot place more than the paper's 12 apart.
        if let TaskParams::Cd(p) = &spec.params
            && p.set_sizes.iter().any(|&n| !(1..=12).contains(&n))
        {
            return Err(SettingError::Rule {
                task: id,
                rule: "set_sizes: each between 1 and 12 (the paper's largest array is 12 bars)".into(),
            });
        }
        // VSR's probe shows the studied patterns in a 3×3 layout: at most 9 (and the answer is one of 9).
        if let TaskParams::Vsr(p) = &spec.params
            && p.list_lengths.iter().any(|&l| !(1..=9).contains(&l))
        {
            return Err(SettingError::Rule {
                task: id,
                rule: "list_lengths: each between 1 and 9 (the probe shows the list in a 3×3 layout; VSRec, SFR and \
                       VIR take longer lists)"
                    .into(),
            });
        }
        // Values that make no trial, or none as the task means it.
        let sane = match &spec.params {
            TaskParams::Smu(p) if p.set_sizes.iter().any(|&n| !(1..=14).contains(&n)) => {
                Err("set_sizes: each between 1 and 14 (more boxes overlap on the circle)".to_string())
            }
            TaskParams::Sts(p) if !(2..=MAX_STEPS).contains(&(p.length as usize)) => {
                Err(format!("length: between 2 and {MAX_STEPS} frames (a cue and a frame at least)"))
            }
            TaskParams::Sts(p) if p.switch_percent > 100 => Err("switch_percent: a percentage, 0 to 100".to_string()),
            TaskParams::Cs(p) if p.storage_items == 0 => {
                Err("storage_items: at least 1 (the items to remember)".to_string())
            }
            _ => Ok(()),
        };
        sane.map_err(|rule| SettingError::Range { task: id, rule, key: k.clone(), value: tv.clone() })?;
        // Every value must leave trials that can be drawn: random draws that cannot finish would loop
        // forever, and samples larger than their pools would fail.
        let fits = match &spec.params {
            TaskParams::Sc(p) => tasks::sc::check(p),
            TaskParams::Si(p) => tasks::si::check(p),
            TaskParams::Sfr(p) => tasks::sfr::check(p),
            TaskParams::Vir(p) => tasks::check_patterns(p.grid, p.filled, &p.list_lengths, &[p.pattern_difference]),
            TaskParams::Vsr(p) => tasks::check_patterns(p.grid, p.filled, &p.list_lengths, &[]),
            TaskParams::VsRec(p) => tasks::check_patterns(p.grid, p.filled, &p.list_lengths, &p.pattern_differences),
            TaskParams::Lsr(p) => tasks::lsr::check(p),
            _ => Ok(()),
        };
        fits.map_err(|why| SettingError::Draw { task: id, key: k.clone(), value: tv.clone(), why })?;
        // Every cell's trial must fit the longest trial a batch takes.
        let n = spec.longest_trial();
        if n > STEP_LIMIT {
            return Err(SettingError::TrialTooLong { task: id, key: k, value: tv, steps: n });
        }
        Ok(())
    }

    /// The steps of this task's longest trial: one trial of each condition cell is built (the length
    /// is set by the cell). The paper's grids give at most [`MAX_STEPS`].
    pub fn longest_trial(&self) -> usize {
        let grid = self.grid();
        grid.iter()
            .enumerate()
            .map(|(i, cell)| {
                let mut rng = Rng::from_key(trial_seed(0, self.id.ordinal(), Split::Test, i as u64));
                self.build(cell, &mut rng, balanced_flip(i as u64, grid.len() as u64)).steps.len()
            })
            .max()
            .unwrap_or(0)
    }

    /// Apply `KEY=VALUE` settings in order (see [`TaskSpec::set`]); a setting whose key this task does
    /// not have is an error unless `lenient` (settings given once for several tasks).
    pub fn set_all(&mut self, settings: &[(String, String)], lenient: bool) -> Result<(), SettingError> {
        for (k, v) in settings {
            if lenient && !self.keys().contains(k) {
                continue;
            }
            self.set(k, v)?;
        }
        Ok(())
    }

    /// Apply `KEY=VALUE` settings given once for several tasks: each key goes to the specs that have it,
    /// and a key none of them has is refused, naming their parameters (`whose` says which tasks they are:
    /// "chosen", "trained"). On an error the specs may be partly set; callers drop them.
    pub fn set_on_all(specs: &mut [TaskSpec], settings: &[(String, String)], whose: &str) -> Result<(), SettingError> {
        for (k, _) in settings {
            if !specs.iter().any(|s| s.keys().contains(k)) {
                let mut keys: Vec<String> = specs.iter().flat_map(TaskSpec::keys).collect();
                keys.sort();
                keys.dedup();
                return Err(SettingError::NoTaskHas {
                    whose: whose.to_string(),
                    key: k.clone(),
                    known: keys.join(", "),
                });
            }
        }
        specs.iter_mut().try_for_each(|s| s.set_all(settings, true))
    }

    /// The condition grid: trials are spread evenly over these cells.
    pub fn grid(&self) -> Vec<Conditions> {
        match &self.params {
            TaskParams::Sfr(p) => tasks::sfr::grid(p),
            TaskParams::Cd(p) => tasks::cd::grid(p),
            TaskParams::Vir(p) => tasks::vir::grid(p),
            TaskParams::Vsr(p) => tasks::vsr::grid_vsr(p),
            TaskParams::VsRec(p) => tasks::vsr::grid_vsrec(p),
            TaskParams::Cs(p) => tasks::cs::grid(p),
            TaskParams::Sc(p) => tasks::sc::grid(p),
            TaskParams::Si(p) => tasks::si::grid(p),
            TaskParams::Smu(p) => tasks::smu::grid(p),
            TaskParams::Sts(p) => tasks::sts::grid(p),
            TaskParams::Lsr(p) => tasks::lsr::grid(p),
        }
    }

    /// Trial `index` of `split` under `master_seed`. Trial `i` belongs to grid cell `i mod K`, and its
    /// coin-flip answer is [`balanced_flip`]`(i, K)`, so any count of consecutive trials is balanced
    /// within ±1 per cell, answers are balanced within each cell, and neighbouring trials alternate.
    /// Trials are independent: any index can be generated alone, in any order.
    pub fn trial(&self, master_seed: u64, split: Split, index: u64) -> Trial {
        let grid = self.grid();
        let k = grid.len() as u64;
        let cell = &grid[(index % k) as usize];
        let mut rng = Rng::from_key(trial_seed(master_seed, self.id.ordinal(), split, index));
        self.trial_in(cell, &mut rng, balanced_flip(index, k))
    }

    /// The easier half of the condition grid (cell indices, ascending), for a training curriculum: each
    /// cell's difficulty is the sum of its ranks (0 = the grid's smallest value, 1 = the largest) on the
    /// factors that make a trial harder (list length, set size, retention, distractors per phase) minus
    /// its rank on the one that makes it easier (pattern difference); the cells at or below the median
    /// difficulty are kept. A grid without such factors is kept whole.
    pub fn easy_cells(&self) -> Vec<usize> {
        let grid = self.grid();
        type Get = fn(&Conditions) -> Option<u8>;
        let factors: [(Get, f64); 5] = [
            (|c| c.list_length, 1.0),
            (|c| c.set_size, 1.0),
            (|c| c.retention, 1.0),
            (|c| c.distractor_count, 1.0),
            (|c| c.pattern_difference, -1.0),
        ];
        let mut score = vec![0.0f64; grid.len()];
        for (get, sign) in factors {
            let vals: Vec<Option<u8>> = grid.iter().map(get).collect();
            let (Some(lo), Some(hi)) = (vals.iter().flatten().min(), vals.iter().flatten().max()) else { continue };
            if hi == lo {
                continue;
            }
            for (s, v) in score.iter_mut().zip(&vals) {
                if let Some(v) = v {
                    *s += sign * (v - lo) as f64 / (hi - lo) as f64;
                }
            }
        }
        let mut sorted = score.clone();
        sorted.sort_by(f64::total_cmp);
        let median = sorted[(sorted.len() - 1) / 2];
        (0..grid.len()).filter(|&i| score[i] <= median + 1e-12).collect()
    }

    /// Trial index `index` moved into the easier half of the grid ([`TaskSpec::easy_cells`]): the same
    /// pass over the grid (`index div K`), the cell replaced by an easy one. Consecutive indices still
    /// spread over the easy cells and balance the coin-flip answer; distinct indices may give the same
    /// trial (there are fewer easy cells than cells).
    pub fn easy_index(&self, index: u64, easy: &[usize]) -> u64 {
        let k = self.grid().len() as u64;
        if easy.is_empty() {
            return index;
        }
        (index / k) * k + easy[((index % k) as usize) % easy.len()] as u64
    }

    /// A trial in a chosen condition cell (for the gallery and for people's blocks).
    pub fn trial_in(&self, cell: &Conditions, rng: &mut Rng, flip: bool) -> Trial {
        let t = self.build(cell, rng, flip);
        debug_assert!(t.steps.len() <= STEP_LIMIT, "{} trial has {} steps", self.id, t.steps.len());
        t
    }

    /// [`TaskSpec::trial_in`] without the length check (for [`TaskSpec::set`], which reports it).
    fn build(&self, cell: &Conditions, rng: &mut Rng, flip: bool) -> Trial {
        let mut ctx = TrialCtx { rng, cell, flip };
        let (steps, conditions) = match &self.params {
            TaskParams::Sfr(p) => tasks::sfr::generate(p, &mut ctx),
            TaskParams::Cd(p) => tasks::cd::generate(p, &mut ctx),
            TaskParams::Vir(p) => tasks::vir::generate(p, &mut ctx),
            TaskParams::Vsr(p) => tasks::vsr::generate_vsr(p, &mut ctx),
            TaskParams::VsRec(p) => tasks::vsr::generate_vsrec(p, &mut ctx),
            TaskParams::Cs(p) => tasks::cs::generate(p, &mut ctx),
            TaskParams::Sc(p) => tasks::sc::generate(p, &mut ctx),
            TaskParams::Si(p) => tasks::si::generate(p, &mut ctx),
            TaskParams::Smu(p) => tasks::smu::generate(p, &mut ctx),
            TaskParams::Sts(p) => tasks::sts::generate(p, &mut ctx),
            TaskParams::Lsr(p) => tasks::lsr::generate(p, &mut ctx),
        };
        Trial { task: self.id, steps, conditions }
    }
}

/// The coin-flip bit of trial `i` in a grid of `k` cells: `(i div k + i mod k) mod 2`. Within a cell
/// (fixed `i mod k`) it alternates between successive passes over the grid, so answers balance within
/// every cell; between neighbouring indices it alternates too, so any short run of trials (a training
/// batch of 10, a participant's block with one trial per condition) mixes both answers.
pub fn balanced_flip(i: u64, k: u64) -> bool {
    (i / k + i % k) % 2 == 1
}

/// Helpers shared by the generators.
pub(crate) fn binary(labels: [&str; 2]) -> Response {
    Response::Binary { labels: [labels[0].to_string(), labels[1].to_string()] }
}

impl Step {
    /// A step with nothing to answer.
    pub fn show(frame: Frame, phase: Phase) -> Step {
        Step {
            frame,
            phase,
            target: Target::None,
            scored: false,
            response: Response::None,
            serial_position: None,
            words: Vec::new(),
        }
    }
    /// A scored step.
    pub fn ask(frame: Frame, phase: Phase, target: Target, response: Response) -> Step {
        Step { frame, phase, target, scored: true, response, serial_position: None, words: Vec::new() }
    }
    /// The step with its [`Step::serial_position`] set (1-based): a probe about one studied item.
    pub fn at_position(mut self, serial_position: usize) -> Step {
        self.serial_position = Some(serial_position as u8);
        self
    }
    /// The step with the word slots a network reads (LSR).
    pub fn with_words(mut self, words: Vec<u16>) -> Step {
        self.words = words;
        self
    }
}

//! The visual suite: the WorM tasks and the spatial N-back given to a (multimodal) language model one
//! trial at a time, as the same frames a person sees and a network reads, and scored by the people's code.
//!
//! - **Trials** are the people's: WorM trial `i` of a task is `TaskSpec::trial(seed, Human, i)` in grid
//!   cell `i mod K`; an N-back block is [`crate::people::session::nback_block`]. So a person, a network and
//!   a model given the same seed see the same stimuli.
//! - **Renderings** ([`Render`]): `image` — each frame drawn by the network rasterizer at 96×96 (the
//!   reference frames) and enlarged without smoothing to the size asked for, as a PNG; `text` — the same
//!   96×96 picture as a grid of characters, one per block of pixels, a letter per colour ("grids as
//!   characters", as the spatial N-back papers give text models). Identical trials either way.
//! - **Answer options** that a person clicks (VSR places, SMU positions, CS options, SFR cells) are
//!   numbered 1…n in the order of the task's answer areas; the numbers are drawn on the frame (digits in the
//!   picture or in the grid) where they fit, else listed with their regions under the frame.
//! - **The dialogue** ([`VisionDialogue`]): a system message with the task's instructions; then for each
//!   answerable step one user turn carrying every frame since the last question (in order) and the
//!   question in the step's exact answer format. An answer that cannot be read is asked for once more
//!   ([`VisionConfig::max_retries`]), then recorded as no answer and counted as unreadable.
//! - **Scoring**: [`crate::people::session::score_answers`], so the trial row and the summaries
//!   ([`crate::people::session::study_summaries`]) are those of a person's record.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Dialogue, ImagePart, Message, Sample, SampleBody, Suite, SuiteError};
use crate::display::{Area, Frame, Rgb, palette};
use crate::people::score::Answer;
use crate::people::session::{NbackInfo, ScoredAnswers, nback_block, score_answers};
use crate::people::timing::answerable;
use crate::people::{NbackKind, StudyTask};
use crate::raster::{BIG, draw96};
use crate::record::{Setting, TrialRow};
use crate::rng::Split;
use crate::sdt::SdtScores;
use crate::task::{Conditions, Response, Step, TaskId, TaskSpec};
use crate::{font, png, tasks};

/// Reply length cap of the suite (answers are a word or a few numbers).
pub const MAX_TOKENS: u32 = 64;
/// Image sizes a user may ask for (px, square).
pub const MIN_SIZE: u32 = 96;
/// Largest image side a user may ask for (px).
pub const MAX_SIZE: u32 = 1024;
/// Default image size: 4× the reference frames, so option numbers fit beside SMU's 5-unit positions.
pub const DEFAULT_SIZE: u32 = 384;
/// Character-grid widths that divide the 96-pixel frame evenly.
pub const TEXT_COLS: [u32; 6] = [12, 16, 24, 32, 48, 96];
/// Default characters per grid row: one character per 4×4 pixels of the 96-pixel frame.
pub const DEFAULT_TEXT_COLS: u32 = 24;

/// How frames reach the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Render {
    /// Each frame as a PNG: the 96×96 reference frame enlarged without smoothing to the size asked for.
    Image,
    /// Each frame as a grid of characters in the message text, one per block of pixels, a letter per
    /// colour.
    Text,
}

impl Render {
    /// The name on the command line (`--render`) and in records (`vision_render`).
    pub fn as_str(self) -> &'static str {
        match self {
            Render::Image => "image",
            Render::Text => "text",
        }
    }
    /// A rendering from `--render`, any case: `image` (or `images`, `png`) or `text` (or `chars`,
    /// `characters`); `None` otherwise.
    pub fn parse(s: &str) -> Option<Render> {
        match s.trim().to_ascii_lowercase().as_str() {
            "image" | "images" | "png" => Some(Render::Image),
            "text" | "chars" | "characters" => Some(Render::Text),
            _ => None,
        }
    }
}

/// What to run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VisionConfig {
    /// WorM task ids and `nback-spatial`.
    pub tasks: Vec<StudyTask>,
    /// Trials per WorM task; blocks per level for the N-back.
    pub trials: u32,
    /// N-back levels.
    pub nback_ns: Vec<u8>,
    /// Seed of the trials and blocks: the same seed gives a person, a network and a model the same
    /// stimuli.
    pub seed: u64,
    /// How frames reach the model.
    pub render: Render,
    /// Image side in px ([`MIN_SIZE`]–[`MAX_SIZE`]).
    pub size: u32,
    /// Characters per grid row in text rendering (one of [`TEXT_COLS`]).
    pub text_cols: u32,
    /// Extra asks after an unreadable answer.
    pub max_retries: u8,
}

/// Why LSR is not in the visual suite.
pub(crate) const LSR_NOT_VISUAL: &str = "LSR is words, not pictures (a model would get empty frames): the visual suite takes the WorM \
                              picture tasks and nback-spatial";

impl VisionConfig {
    /// A run of `tasks` in that rendering, with the defaults: 4 trials per task (4 blocks per N), N = 1
    /// and 2, seed 0, [`DEFAULT_SIZE`] images or [`DEFAULT_TEXT_COLS`]-wide grids, one retry.
    pub fn new(tasks: Vec<StudyTask>, render: Render) -> Self {
        VisionConfig {
            tasks,
            trials: 4,
            nback_ns: vec![1, 2],
            seed: 0,
            render,
            size: DEFAULT_SIZE,
            text_cols: DEFAULT_TEXT_COLS,
            max_retries: 1,
        }
    }

    /// Tasks from a comma list (`VSR,CD-Color,nback-spatial`); unknown names, the letter N-back and LSR
    /// (words) are refused in words.
    pub fn parse_tasks(list: &str) -> Result<Vec<StudyTask>, SuiteError> {
        let mut out = Vec::new();
        for name in crate::list_items(list) {
            let t = StudyTask::parse(name).ok_or_else(|| SuiteError::NotVisual(name.to_string()))?;
            if t == StudyTask::Nback(NbackKind::Verbal) {
                return Err(SuiteError::VerbalNback);
            }
            if t == StudyTask::Worm(crate::task::TaskId::Lsr) {
                return Err(SuiteError::LsrNotVisual);
            }
            // PI-LLM is words, not pictures: the PI-LLM text suite runs it.
            if t == StudyTask::Pi {
                return Err(SuiteError::NotVisual(name.to_string()));
            }
            if !out.contains(&t) {
                out.push(t);
            }
        }
        if out.is_empty() {
            return Err(SuiteError::NoTask);
        }
        Ok(out)
    }

    /// Refuse settings that cannot make a run, in words.
    pub fn check(&self) -> Result<(), SuiteError> {
        if self.tasks.is_empty() {
            return Err(SuiteError::NoTask);
        }
        if self.tasks.contains(&StudyTask::Nback(NbackKind::Verbal)) {
            return Err(SuiteError::VerbalNback);
        }
        if self.tasks.contains(&StudyTask::Worm(crate::task::TaskId::Lsr)) {
            return Err(SuiteError::LsrNotVisual);
        }
        if self.tasks.contains(&StudyTask::Pi) {
            return Err(SuiteError::NotVisual(StudyTask::Pi.as_str().into()));
        }
        if !(1..=1000).contains(&self.trials) {
            return Err(SuiteError::Trials(self.trials));
        }
        if !(MIN_SIZE..=MAX_SIZE).contains(&self.size) {
            return Err(SuiteError::Size(self.size));
        }
        if !TEXT_COLS.contains(&self.text_cols) {
            return Err(SuiteError::TextCols(self.text_cols));
        }
        if self.tasks.iter().any(|t| t.nback().is_some()) {
            if self.nback_ns.is_empty() {
                return Err(SuiteError::NoLevel);
            }
            if let Some(&n) = self.nback_ns.iter().find(|n| !(1..=5).contains(*n)) {
                return Err(SuiteError::Level(n));
            }
        }
        Ok(())
    }

    /// The settings a record keeps (`vision_` names).
    pub fn settings(&self) -> BTreeMap<String, Setting> {
        let mut m = BTreeMap::new();
        m.insert("vision_render".into(), Setting::Text(self.render.as_str().into()));
        match self.render {
            Render::Image => m.insert("vision_size_px".into(), Setting::Int(self.size as i64)),
            Render::Text => m.insert("vision_text_cols".into(), Setting::Int(self.text_cols as i64)),
        };
        m.insert("vision_trials".into(), Setting::Int(self.trials as i64));
        m.insert(
            "vision_tasks".into(),
            Setting::Text(self.tasks.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(",")),
        );
        if self.tasks.iter().any(|t| t.nback().is_some()) {
            m.insert(
                "nback_ns".into(),
                Setting::Text(self.nback_ns.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(",")),
            );
        }
        m
    }
}

/// The samples of a run, task by task in the configured order: WorM trials `0..trials`, then per N-back
/// level blocks `0..trials`.
pub fn samples(cfg: &VisionConfig) -> Result<Vec<Sample>, SuiteError> {
    cfg.check()?;
    let mut out = Vec::new();
    for &task in &cfg.tasks {
        match task {
            StudyTask::Worm(id) => {
                let spec = TaskSpec::new(id);
                let grid = spec.grid();
                for i in 0..cfg.trials as u64 {
                    let cell = grid[(i % grid.len() as u64) as usize].clone();
                    let t = spec.trial(cfg.seed, Split::Human, i);
                    let d = VisionDialogue::new(task, i, cell, t.conditions, t.steps, None, cfg);
                    out.push(d.into_sample(format!("vision/{id}/{i}")));
                }
            }
            StudyTask::Nback(kind) => {
                for &n in &cfg.nback_ns {
                    for b in 0..cfg.trials {
                        let (steps, info) = nback_block(cfg.seed, kind, n, b, false)?;
                        let cell = Conditions { set_size: Some(n), ..Default::default() };
                        let d = VisionDialogue::new(task, b as u64, cell.clone(), cell, steps, Some(info), cfg);
                        out.push(d.into_sample(format!("vision/{task}/n{n}/b{b}")));
                    }
                }
            }
            // Refused by `check`.
            StudyTask::Pi => {}
        }
    }
    Ok(out)
}

/// One task's staircase in an adaptive run (`wmlab llm run --adaptive`): a WorM task's on its level
/// ([`crate::adaptive::StaircaseConfig::for_task`]; its trials from
/// [`crate::adaptive::staircase_trial`]), or the spatial N-back's on N, one block per step (block
/// numbers from [`crate::people::session::NBACK_ADAPTIVE_BASE`], as a person's adaptive N-back).
#[derive(Clone, Debug, PartialEq)]
pub struct VisionStaircase {
    /// The task: a WorM task or `nback-spatial`.
    pub task: StudyTask,
    /// What the staircase moves: set size, list length or N.
    pub kind: crate::adaptive::LevelKind,
    /// The running staircase: its level and the track so far.
    pub staircase: crate::adaptive::Staircase,
}

impl VisionStaircase {
    /// The sample of the staircase's next trial (`vision/{task}/a{i}`), or `None` once it has settled.
    pub fn next_sample(&self, cfg: &VisionConfig) -> Option<Sample> {
        let level = self.staircase.next_level()?;
        let i = self.staircase.track().len();
        let id = format!("vision/{}/a{i}", self.task.as_str());
        let d = match self.task {
            StudyTask::Worm(task) => {
                let index = crate::adaptive::ADAPTIVE_BASE + i as u64;
                let (cell, t) =
                    crate::adaptive::staircase_trial(&TaskSpec::new(task), cfg.seed, Split::Human, index, level)?;
                VisionDialogue::new(self.task, index, cell, t.conditions, t.steps, None, cfg)
            }
            StudyTask::Nback(kind) => {
                let n = level.min(u8::MAX as u32) as u8;
                let b = crate::people::session::nback_step_block(i);
                let (steps, info) = nback_block(cfg.seed, kind, n, b, false).ok()?;
                let cell = Conditions { set_size: Some(n), ..Default::default() };
                VisionDialogue::new(self.task, b as u64, cell.clone(), cell, steps, Some(info), cfg)
            }
            StudyTask::Pi => return None,
        };
        Some(d.into_sample(id))
    }

    /// The answer to the last sample, from its scored row: a WorM trial counts when every answer is
    /// right, an N-back block when it passed ([`crate::adaptive::nback_passed`]).
    pub fn record(&mut self, row: &TrialRow) {
        self.staircase.record(self.kind.passed(&row.correct))
    }

    /// The run as a record keeps it.
    pub fn result(&self) -> crate::adaptive::StaircaseResult {
        crate::adaptive::StaircaseResult::of(self.task.as_str(), self.kind, &self.staircase)
    }
}

/// An adaptive run's staircases, one per task (CD: set size; VSR / VSRec: list length; nback-spatial:
/// N); a task without a level is refused.
pub fn staircases(cfg: &VisionConfig) -> Result<Vec<VisionStaircase>, SuiteError> {
    cfg.check()?;
    cfg.tasks
        .iter()
        .map(|&task| {
            let not = || SuiteError::NotAdaptive(task.as_str().into());
            let kind = task.level_kind().ok_or_else(not)?;
            let config = task.staircase_config(TaskSpec::new).ok_or_else(not)?;
            let staircase = crate::adaptive::Staircase::new(config).map_err(|_| not())?;
            Ok(VisionStaircase { task, kind, staircase })
        })
        .collect()
}

/// One trial (WorM) or block (N-back) as a dialogue.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VisionDialogue {
    /// The task: a WorM task or `nback-spatial`.
    pub task: StudyTask,
    /// Trial index (WorM) or block index (N-back).
    pub index: u64,
    /// The design cell (what summaries group by).
    pub cell: Conditions,
    /// What the generator drew (answer areas read it).
    pub conditions: Conditions,
    /// The trial's (or block's) time steps as a person sees them: frames and response formats.
    pub steps: Vec<Step>,
    /// The N-back block's stimuli and conditions (for scoring); `None` for a WorM trial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nback: Option<NbackInfo>,
    /// How frames are sent ([`VisionConfig::render`]).
    pub render: Render,
    /// Image side in px, for image rendering ([`VisionConfig::size`]).
    pub size: u32,
    /// Characters per grid row, for text rendering ([`VisionConfig::text_cols`]).
    pub text_cols: u32,
    /// Extra asks after an unreadable answer before it is recorded as none.
    pub max_retries: u8,
    /// The conversation so far; while not finished it ends with the user turn awaiting a reply.
    pub messages: Vec<Message>,
    /// One per answered step, in order.
    pub answers: Vec<Answer>,
    /// Per answer: no readable answer after the retries.
    pub unreadable: Vec<bool>,
    /// Raw replies to the current question.
    #[serde(default)]
    pub pending: Vec<String>,
    /// Steps shown so far.
    pub shown: usize,
}

impl VisionDialogue {
    /// The dialogue of one trial (WorM) or block (N-back): the system message with the task's
    /// instructions, then the user turn of the first question. `cell` is the design cell, `conditions`
    /// what the generator drew; the rendering settings come from `cfg`.
    pub fn new(
        task: StudyTask,
        index: u64,
        cell: Conditions,
        conditions: Conditions,
        steps: Vec<Step>,
        nback: Option<NbackInfo>,
        cfg: &VisionConfig,
    ) -> Self {
        let mut d = VisionDialogue {
            task,
            index,
            cell,
            conditions,
            steps,
            nback,
            render: cfg.render,
            size: cfg.size,
            text_cols: cfg.text_cols,
            max_retries: cfg.max_retries,
            messages: Vec::new(),
            answers: Vec::new(),
            unreadable: Vec::new(),
            pending: Vec::new(),
            shown: 0,
        };
        d.messages.push(Message::system(instructions(task, d.render, d.size, d.text_cols, d.nback.as_ref())));
        d.ask_next();
        d
    }

    fn into_sample(self, id: String) -> Sample {
        let conditions = self.cell.all_pairs().into_iter().collect();
        Sample {
            id,
            suite: Suite::Vision,
            task: self.task.as_str().into(),
            conditions,
            body: SampleBody::Vision(self),
            epoch: 1,
        }
    }

    /// Indices of the answerable steps.
    fn asked(&self) -> Vec<usize> {
        self.steps.iter().enumerate().filter(|(_, s)| answerable(s)).map(|(i, _)| i).collect()
    }

    /// The step whose answer is awaited.
    fn current(&self) -> Option<usize> {
        self.asked().get(self.answers.len()).copied()
    }

    /// Answerable steps still without an answer: requests left, one each without retries.
    pub fn questions_left(&self) -> usize {
        self.asked().len().saturating_sub(self.answers.len())
    }

    /// Whether every answerable step has its answer (read, or recorded as none).
    pub fn finished(&self) -> bool {
        self.current().is_none()
    }

    /// Push the user turn for the next answerable step: the frames since the last question, then the
    /// question.
    fn ask_next(&mut self) {
        let Some(j) = self.current() else { return };
        let from = self.shown;
        let mut text = String::new();
        let mut images = Vec::new();
        let noun = if self.nback.is_some() { "Item" } else { "Frame" };
        let mut notes = Vec::new();
        for t in from..=j {
            let labels = self.labels(t);
            match self.render {
                Render::Image => {
                    let (img, listed) = frame_png(&self.steps[t].frame, self.size, &labels);
                    images.push(img);
                    if let Some(l) = listed {
                        notes.push(format!("{noun} {}: {l}", t + 1));
                    }
                }
                Render::Text => {
                    let (grid, listed) = frame_text(&self.steps[t].frame, self.text_cols as usize, &labels);
                    text.push_str(&format!("{noun} {}:\n```\n{grid}```\n", t + 1));
                    if let Some(l) = listed {
                        text.push_str(&format!("{l}\n"));
                    }
                    text.push('\n');
                }
            }
        }
        self.shown = j + 1;
        let q = question(self.task, &self.steps[j], self.nback.as_ref());
        let content = match self.render {
            Render::Image => {
                let which = if j == from {
                    format!("{noun} {} is the image below.", j + 1)
                } else {
                    format!("{noun}s {}–{} are the {} images below, in order.", from + 1, j + 1, j + 1 - from)
                };
                let mut s = which;
                for n in notes {
                    s.push(' ');
                    s.push_str(&n);
                }
                format!("{s}\n\n{q}")
            }
            Render::Text => format!("{text}{q}"),
        };
        self.messages.push(Message::user_with_images(content, images));
    }

    /// The numbered answer options drawn on step `t`'s frame (none for steps without options).
    fn labels(&self, t: usize) -> Vec<Area> {
        let step = &self.steps[t];
        match (self.task, &step.response) {
            (StudyTask::Worm(id), Response::Choice { .. } | Response::MultiSelect { .. }) if answerable(step) => {
                tasks::answer_areas(id, &self.conditions, step)
            }
            _ => Vec::new(),
        }
    }

    /// The trial scored by the people's code: its long-format row (with `unreadable`, `render` and the
    /// task's own extras) and, for N-back, the block's SDT measures. `None` while unfinished.
    pub fn scored(&self) -> Option<Result<(TrialRow, Option<SdtScores>), crate::people::score::ScoreError>> {
        if !self.finished() {
            return None;
        }
        Some(score_answers(self.task, &self.steps, self.nback.as_ref(), &self.answers).map(
            |ScoredAnswers { targets, responses, correct, sdt, mut extra }| {
                extra.insert("unreadable".into(), Setting::Int(self.unreadable.iter().filter(|&&u| u).count() as i64));
                extra.insert("render".into(), Setting::Text(self.render.as_str().into()));
                extra.insert("index".into(), Setting::Int(self.index.min(i64::MAX as u64) as i64));
                (
                    TrialRow {
                        task: self.task.as_str().into(),
                        trial: self.index,
                        conditions: self.conditions.clone(),
                        targets,
                        responses,
                        correct,
                        rt_ms: Vec::new(),
                        extra,
                    },
                    sdt,
                )
            },
        ))
    }

    /// The answers as read, for logs: 1-based options or classes, `a+b` for a set, `?` for none.
    pub fn answers_text(&self) -> String {
        self.answers
            .iter()
            .map(|a| match a {
                Answer::None => "?".to_string(),
                Answer::Class(c) => (c + 1).to_string(),
                Answer::Set(v) => v.iter().map(|c| (c + 1).to_string()).collect::<Vec<_>>().join("+"),
                Answer::Text(t) => t.clone(),
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

impl Dialogue for VisionDialogue {
    fn next_request(&self) -> Option<Vec<Message>> {
        (!self.finished()).then(|| self.messages.clone())
    }

    fn feed(&mut self, reply: &str) {
        let Some(j) = self.current() else { return };
        self.pending.push(reply.to_string());
        self.messages.push(Message::assistant(reply));
        match read_answer(&self.steps[j].response, reply) {
            Ok(a) => {
                self.answers.push(a);
                self.unreadable.push(false);
            }
            Err(why) => {
                if self.pending.len() <= self.max_retries as usize {
                    self.messages.push(Message::user(format!(
                        "I could not read an answer in your reply ({why}). {}",
                        answer_format(&self.steps[j].response)
                    )));
                    return;
                }
                self.answers.push(Answer::None);
                self.unreadable.push(true);
            }
        }
        self.pending.clear();
        self.ask_next();
    }
}

/// The exact answer format of a step, as the model is told it.
pub fn answer_format(response: &Response) -> String {
    match response {
        Response::Binary { labels } => format!("Answer with \"{}\" or \"{}\" only.", labels[0], labels[1]),
        Response::Choice { n } => format!("Answer with one number from 1 to {n} only."),
        Response::MultiSelect { n, picks } => {
            format!("Answer with {picks} different numbers from 1 to {n}, separated by commas, only.")
        }
        Response::None => String::new(),
    }
}

/// Why a reply does not read as an answer ([`read_answer`]); the run counts it as unreadable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    /// A binary step's reply names neither label; holds the two labels.
    #[error("neither \"{0}\" nor \"{1}\"")]
    NoLabel(String, String),
    /// A number outside the options.
    #[error("{k} is not a number from 1 to {n}")]
    OutOfRange {
        /// The number read.
        k: u64,
        /// The number of options (1 to `n`).
        n: u64,
    },
    /// No number in a reply to an option or cell question.
    #[error("no number")]
    NoNumber,
    /// More different cell numbers than the step takes.
    #[error("{count} numbers, at most {picks}")]
    TooMany {
        /// Different numbers read.
        count: usize,
        /// The most the step takes.
        picks: usize,
    },
}

/// Read a reply as the answer to a step: a binary label (either wording of an `a / b` label; a label
/// inside a longer one, such as "symmetric" in "not symmetric", counts only outside it; the first label
/// named wins), one option number (1-based), or a set of cell numbers (at most `picks`, repeats
/// dropped). Errors say what was missing.
pub fn read_answer(response: &Response, reply: &str) -> Result<Answer, AnswerError> {
    let text = reply.to_lowercase();
    match response {
        Response::Binary { labels } => {
            let mut best: Option<(usize, u16)> = None;
            let full: Vec<String> = labels.iter().map(|l| l.to_lowercase()).collect();
            for (class, label) in full.iter().enumerate() {
                let other = &full[1 - class];
                for alt in label.split(" / ").map(str::trim).filter(|a| !a.is_empty()) {
                    for (pos, _) in text.match_indices(alt) {
                        if !word_at(&text, pos, alt.len()) || inside_other(&text, pos, alt, other) {
                            continue;
                        }
                        if best.is_none_or(|(p, _)| pos < p) {
                            best = Some((pos, class as u16));
                        }
                    }
                }
            }
            best.map(|(_, c)| Answer::Class(c))
                .ok_or_else(|| AnswerError::NoLabel(labels[0].to_string(), labels[1].to_string()))
        }
        Response::Choice { n } => {
            let nums = numbers(&text);
            match nums.first() {
                Some(&k) if (1..=*n as u64).contains(&k) => Ok(Answer::Class(k as u16 - 1)),
                Some(&k) => Err(AnswerError::OutOfRange { k, n: *n as u64 }),
                None => Err(AnswerError::NoNumber),
            }
        }
        Response::MultiSelect { n, picks } => {
            let mut set: Vec<u16> = Vec::new();
            for k in numbers(&text) {
                if !(1..=*n as u64).contains(&k) {
                    return Err(AnswerError::OutOfRange { k, n: *n as u64 });
                }
                if !set.contains(&(k as u16 - 1)) {
                    set.push(k as u16 - 1);
                }
            }
            if set.is_empty() {
                return Err(AnswerError::NoNumber);
            }
            if set.len() > *picks as usize {
                return Err(AnswerError::TooMany { count: set.len(), picks: *picks as usize });
            }
            Ok(Answer::Set(set))
        }
        Response::None => Ok(Answer::None),
    }
}

/// Whether `text[pos..pos+len]` is a whole word (or words).
fn word_at(text: &str, pos: usize, len: usize) -> bool {
    let before = text[..pos].chars().next_back();
    let after = text[pos + len..].chars().next();
    !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
}

/// Whether the match of `alt` at `pos` lies inside a match of the other label (e.g. "match" in "no match").
fn inside_other(text: &str, pos: usize, alt: &str, other: &str) -> bool {
    other
        .split(" / ")
        .map(str::trim)
        .filter(|o| o.len() > alt.len() && o.contains(alt))
        .any(|o| text.match_indices(o).any(|(p, _)| p <= pos && pos + alt.len() <= p + o.len()))
}

/// The unsigned integers in a text, in order.
fn numbers(text: &str) -> Vec<u64> {
    text.split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty() && s.len() < 10)
        .filter_map(|s| s.parse().ok())
        .collect()
}

fn ordinal(k: u8) -> String {
    let suffix = match (k % 10, k % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{k}{suffix}")
}

/// The question of an answerable step, ending with its answer format.
pub fn question(task: StudyTask, step: &Step, nback: Option<&NbackInfo>) -> String {
    let k = ordinal(step.serial_position.unwrap_or(1));
    let ask = match (task, &step.response) {
        (StudyTask::Nback(_), _) => {
            let n = nback.map(|b| b.n).unwrap_or(1);
            let before = if n == 1 { "the item just before".to_string() } else { format!("{n} items before") };
            format!("Is the blue square in the same place as in {before}?")
        }
        (StudyTask::Worm(id), Response::Binary { labels }) => match id {
            t if t.is_cd() => "Compare this array with the one shown before the pause: is it the same, or has one bar changed (colour, direction, size or gap)?".into(),
            TaskId::Vir => "One of these two patterns was in the series. Which one: the left or the right?".into(),
            TaskId::VsRec => format!("Which of these two patterns was the {k} pattern of the series: the left or the right?"),
            TaskId::Sc => "Put together all the red squares shown in this trial: is the pattern they make symmetric (the left half a mirror image of the right half)?".into(),
            TaskId::Si => "Is this complete drawing the same as the drawing made of the parts shown before?".into(),
            TaskId::Sts => "Following the current sign, where is the red dot: top or left (\"top / left\"), or bottom or right (\"bottom / right\")?".into(),
            TaskId::Cs if labels[0] == "red" => "Is the colour of this square red or blue?".into(),
            TaskId::Cs => "Is this pattern symmetric (the left half a mirror image of the right half)?".into(),
            _ => "Which answer is right?".into(),
        },
        (StudyTask::Worm(id), Response::Choice { .. }) => match id {
            TaskId::Vsr => format!("The patterns of the series are shown at numbered places. Which number holds the {k} pattern of the series?"),
            TaskId::Smu => "The red square is the one asked about. Where is its dot now, after all the moves? The possible positions are numbered.".into(),
            TaskId::Cs => format!("Which numbered option is the {k} item you had to remember?"),
            _ => "Which numbered option is right?".into(),
        },
        (StudyTask::Worm(_), Response::MultiSelect { picks, .. }) => {
            format!("Which {picks} squares turned red? The squares of the board are numbered on this frame.")
        }
        (_, Response::None) | (StudyTask::Pi, _) => String::new(),
    };
    format!("{ask} {}", answer_format(&step.response))
}

/// The system message: the task for a model, how frames come, how to answer.
pub fn instructions(task: StudyTask, render: Render, size: u32, cols: u32, nback: Option<&NbackInfo>) -> String {
    let what = match task {
        StudyTask::Worm(TaskId::Sfr) => {
            "Squares on a board turn red one after another. Remember which squares turned red. When the board goes blank you will be asked which squares they were (the order does not matter)."
        }
        StudyTask::Worm(t) if t.is_cd() => {
            "A few coloured bars are shown for a moment, then blank frames, then the bars again. Decide whether one bar has changed (its colour, direction, size or gap) or whether everything is the same."
        }
        StudyTask::Worm(TaskId::Vir) => {
            "A series of patterns of red squares is shown, one per frame, with blank frames after it. Then two patterns appear side by side: one of them was in the series. Say which one."
        }
        StudyTask::Worm(TaskId::Vsr) => {
            "A series of patterns of green squares is shown, one per frame. Then all of them appear together at numbered places. You will be asked, for each pattern of the series in turn, where it is now."
        }
        StudyTask::Worm(TaskId::VsRec) => {
            "A series of patterns of green squares is shown, one per frame. Then, for each pattern of the series in turn, two patterns appear side by side: say which one was in the series at that place."
        }
        StudyTask::Worm(TaskId::Cs) => {
            "Remember what you are shown (a ball's path or a pattern). In between, answer quick questions about other pictures (red or blue? symmetric or not?). At the end, pick what you had to remember, in the order it was shown, from numbered options."
        }
        StudyTask::Worm(TaskId::Sc) => {
            "Squares on a grid turn red one after another. Picture them all together. At the end, decide whether the whole pattern would be symmetric (the left half a mirror image of the right half)."
        }
        StudyTask::Worm(TaskId::Si) => {
            "Parts of a line drawing are shown one after another. Put them together in your mind. Then a complete drawing appears: decide whether it is the same as the drawing made of the parts."
        }
        StudyTask::Worm(TaskId::Smu) => {
            "Each square has a red dot in it. Remember where. Arrows then tell you to move a dot, one step in the arrow's direction, in your mind. At the end, one square is red: say where its dot is now."
        }
        StudyTask::Worm(TaskId::Sts) => {
            "A red dot appears in one of four places. A sign tells you which question to answer: top or bottom, or left or right. Answer for each dot; when the sign changes, switch to the other question."
        }
        StudyTask::Worm(_) => "Follow the frames and answer when asked.",
        StudyTask::Pi => "Follow the frames and answer when asked.",
        StudyTask::Nback(_) => {
            "A square lights up (blue) in a 3×3 grid, one item at a time. For each item, say whether the same square lit up N items before."
        }
    };
    let n = nback.map(|b| format!(" Here N = {}.", b.n)).unwrap_or_default();
    let how = match render {
        Render::Image => format!(
            "Each frame is a {size}×{size} pixel image (a 96×96 picture enlarged). Frames come in order; several frames may come in one message. Numbered answer options are marked on the frame with black numbers on white."
        ),
        Render::Text => format!(
            "Each frame is a picture given as a grid of {cols}×{cols} characters, one per {b}×{b} block of a 96×96 picture, top row first. Characters: {}. Numbered answer options are written into the grid as digits where they fit, else listed under it.",
            legend(),
            b = 96 / cols
        ),
    };
    format!(
        "You are taking a visual working-memory test ({}). {what}{n}\n\n{how}\n\nAnswer each question in the exact format it asks for, with nothing else.",
        task.title()
    )
}

/// The colours a text grid names, nearest first.
const COLOURS: [(Rgb, char, &str); 10] = [
    (palette::GRAY, '.', "gray background"),
    (palette::BLACK, '#', "black"),
    (palette::WHITE, 'W', "white"),
    (palette::RED, 'R', "red"),
    (palette::BLUE, 'B', "blue"),
    (palette::GREEN, 'G', "green"),
    (palette::VIOLET, 'V', "violet"),
    (palette::YELLOW, 'Y', "yellow"),
    (palette::BROWN, 'N', "brown"),
    (palette::ARROW, '#', "black"),
];

fn legend() -> String {
    COLOURS[..9].iter().map(|(_, c, name)| format!("'{c}' {name}")).collect::<Vec<_>>().join(", ")
}

fn nearest_char(c: Rgb) -> char {
    let d = |a: Rgb| {
        let f = |x: u8, y: u8| (x as i32 - y as i32).pow(2);
        f(a.0, c.0) + f(a.1, c.1) + f(a.2, c.2)
    };
    COLOURS.iter().min_by_key(|(rgb, _, _)| d(*rgb)).map(|(_, ch, _)| *ch).unwrap_or('?')
}

/// Labels "1"…"n" for `areas` placed at each area's top-left corner on a `cells`-wide grid of a
/// 96-unit frame, `w`×`h` cells per glyph: `Some(positions)` when every label fits inside its area
/// without touching another, else `None` (the options are then listed in words).
fn place_labels(areas: &[Area], cells: f32, w: f32, h: f32) -> Option<Vec<(usize, usize)>> {
    let unit = cells / 96.0;
    let mut boxes: Vec<(f32, f32, f32, f32)> = Vec::new();
    let mut out = Vec::new();
    for (i, a) in areas.iter().enumerate() {
        let len = (i + 1).to_string().len() as f32;
        let (x0, y0) = ((a.x * unit).ceil(), (a.y * unit).ceil());
        let (x1, y1) = (x0 + len * w, y0 + h);
        if x1 > ((a.x + a.w) * unit).floor() || y1 > ((a.y + a.h) * unit).floor() || x1 > cells || y1 > cells {
            return None;
        }
        if boxes.iter().any(|b| x0 < b.2 && b.0 < x1 && y0 < b.3 && b.1 < y1) {
            return None;
        }
        boxes.push((x0, y0, x1, y1));
        out.push((x0 as usize, y0 as usize));
    }
    Some(out)
}

/// The options listed in words with their regions (`unit` = pixels or characters per display unit).
fn list_options(areas: &[Area], cells: f32, what: &str) -> String {
    let unit = cells / 96.0;
    let parts: Vec<String> = areas
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let (x0, y0) = ((a.x * unit).round() as i64, (a.y * unit).round() as i64);
            let (x1, y1) = (((a.x + a.w) * unit).round() as i64 - 1, ((a.y + a.h) * unit).round() as i64 - 1);
            format!("{} = {what} {}–{}, rows {}–{}", i + 1, x0 + 1, x1 + 1, y0 + 1, y1 + 1)
        })
        .collect();
    format!("The options are too small to number on the frame: {}.", parts.join("; "))
}

/// A frame as RGB8 bytes at `size`×`size`: the 96×96 network picture enlarged without smoothing.
pub fn frame_rgb(frame: &Frame, size: u32) -> Vec<u8> {
    let img = draw96(frame);
    let s = size as usize;
    let mut out = vec![0u8; s * s * 3];
    for y in 0..s {
        let sy = y * BIG / s;
        for x in 0..s {
            let sx = x * BIG / s;
            let i = (sy * BIG + sx) * 3;
            out[(y * s + x) * 3..(y * s + x) * 3 + 3].copy_from_slice(&img.px[i..i + 3]);
        }
    }
    out
}

/// A frame as a PNG image part at `size` px with the options in `labels` numbered 1…n (black digits on
/// white at each area's top-left corner); where they do not fit, the second value lists them in words.
pub fn frame_png(frame: &Frame, size: u32, labels: &[Area]) -> (ImagePart, Option<String>) {
    let mut rgb = frame_rgb(frame, size);
    let scale = (size / DEFAULT_SIZE).max(1) as usize;
    let (gw, gh) = (((font::W + 1) * scale) as f32, ((font::H + 2) * scale) as f32);
    let mut listed = None;
    if !labels.is_empty() {
        match place_labels(labels, size as f32, gw, gh) {
            Some(pos) => {
                for (i, (x, y)) in pos.into_iter().enumerate() {
                    let text = (i + 1).to_string();
                    let w = text.len() * (font::W + 1) * scale + scale;
                    let h = (font::H + 2) * scale;
                    for yy in y..(y + h).min(size as usize) {
                        for xx in x..(x + w).min(size as usize) {
                            let k = (yy * size as usize + xx) * 3;
                            rgb[k..k + 3].copy_from_slice(&[255, 255, 255]);
                        }
                    }
                    font::draw_text(&mut rgb, size as usize, x + scale, y + scale, &text, scale, [0, 0, 0]);
                }
            }
            None => listed = Some(list_options(labels, size as f32, "pixels")),
        }
    }
    (ImagePart::png(&png::encode_rgb(size, size, &rgb), size, size), listed)
}

/// A frame as a `cols`×`cols` character grid (lines end with `\n`): per block, the most common colour
/// other than the background if it covers at least a quarter of the block, else the background; colours
/// by `COLOURS`. Option numbers are written in at each area's top-left character where they fit;
/// otherwise the second value lists the options by columns and rows.
pub fn frame_text(frame: &Frame, cols: usize, labels: &[Area]) -> (String, Option<String>) {
    let img = draw96(frame);
    let b = BIG / cols;
    let bg = frame.background;
    let mut grid: Vec<Vec<char>> = vec![vec!['.'; cols]; cols];
    for (gy, row) in grid.iter_mut().enumerate() {
        for (gx, cell) in row.iter_mut().enumerate() {
            let mut counts: Vec<(Rgb, usize)> = Vec::new();
            for y in gy * b..(gy + 1) * b {
                for x in gx * b..(gx + 1) * b {
                    let c = img.get(x, y);
                    if c == bg {
                        continue;
                    }
                    match counts.iter_mut().find(|(k, _)| *k == c) {
                        Some((_, n)) => *n += 1,
                        None => counts.push((c, 1)),
                    }
                }
            }
            let top = counts.iter().max_by_key(|(_, n)| *n).filter(|(_, n)| *n * 4 >= b * b);
            *cell = nearest_char(top.map(|(c, _)| *c).unwrap_or(bg));
        }
    }
    let mut listed = None;
    if !labels.is_empty() {
        match place_labels(labels, cols as f32, 1.0, 1.0) {
            Some(pos) => {
                for (i, (x, y)) in pos.into_iter().enumerate() {
                    for (k, ch) in (i + 1).to_string().chars().enumerate() {
                        grid[y][x + k] = ch;
                    }
                }
            }
            None => listed = Some(list_options(labels, cols as f32, "columns")),
        }
    }
    let mut s = String::with_capacity(cols * (cols + 1));
    for row in grid {
        s.extend(row);
        s.push('\n');
    }
    (s, listed)
}

/// The one-image request sent before an image run: a red square on the gray background, asked for its
/// colour. A provider that refuses images fails here, before any trial is sent.
pub fn image_probe() -> Vec<Message> {
    let frame = Frame::gray(vec![crate::display::rect(32.0, 32.0, 63.0, 63.0, Some(palette::RED), None, 0.0)]);
    let (img, _) = frame_png(&frame, MIN_SIZE, &[]);
    vec![Message::user_with_images("What colour is the square in this image? Answer with one word.", vec![img])]
}

/// Whether a reply to [`image_probe`] names the square's colour (a model that drops images cannot).
pub fn image_probe_seen(reply: &str) -> bool {
    reply.to_lowercase().contains("red")
}

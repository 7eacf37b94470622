//! The participant session: a serialisable state machine the edge saves after every trial.
//!
//! [`Session::new`] builds the block plan from the [`StudyConfig`]: tasks in the link's order (or a
//! seeded random order); for each WorM task an optional practice block (`practice_trials` trials from
//! their own random streams, so practice never repeats a main trial) and a main block of
//! `trials_per_condition` × the task's condition grid in a seeded shuffled order; for each N-back kind,
//! per level N an optional practice block (one 12-trial block with 4 targets) and a main block of
//! `nback_blocks` blocks of 30 trials with 10 targets ([`crate::tasks::nback::generate_block`]).
//!
//! Stimuli are never stored: a trial is regenerated on demand from (seed, task, index) on the
//! [`Split::Human`] stream, so a resumed session (JSON round trip) shows exactly the same stimuli.
//! The session only moves forward: [`Session::record`] accepts the result of the current position and
//! nothing else, so completed trials are never repeated or dropped.
//!
//! Balance: trial `i` of a main block is grid cell `i mod K` (as [`crate::TaskSpec::trial`]); its coin-flip
//! answer (change / no change, same / different, left / right, symmetric / not) is the core's
//! `task::balanced_flip`, so a session with one trial per condition still has both answers (half the
//! cells each). Trial `i` is exactly `TaskSpec::trial(seed, Split::Human, i)`.
//!
//! N-back rows use `conditions.set_size = N` (the items held at once) and carry `n_back` in `extra`.
//!
//! PI-LLM (key–value updates, [`super::pi`]): a practice stream, then one block of `tpc` streams per
//! level of updates per key in a seeded shuffled order; one row per stream, scored by
//! [`super::pi::score_values`].

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::chinrest::{Calibration, NoFit};
use super::device::{DisplayFacts, TrialView};
use super::pi::PiTrial;
use super::score::{Answer, score_nback, score_trial};
use super::study::{BlockOrder, StudyConfig};
use super::survey::SurveyAt;
use super::timing::{DEFAULT_REFRESH_MS, FrameTiming, timing_stats};
use super::{NbackKind, StudyTask};
use crate::display::{Frame, palette, rect, text};
use crate::record::{ResultRecord, RunConfig, Setting, Subject, Summary, TrialRow, summarise};
use crate::rng::{Rng, Split, trial_seed};
use crate::sdt::{self, SdtScores};
use crate::task::{Conditions, Phase, Step, Target, binary};
use crate::tasks::nback::{LETTERS, MatchRule, generate_block};

/// Version of the saved session JSON.
pub const SESSION_VERSION: u32 = 1;
/// Practice trials use generator indices from here on (main indices stay far below).
pub const PRACTICE_BASE: u64 = 1 << 48;
/// Block numbers of an adaptive N-back run's blocks (apart from a fixed run's `0..nbb`).
pub const NBACK_ADAPTIVE_BASE: u32 = 1000;

/// The block number of an adaptive N-back run's `step`-th block (a person's and the visual suite's).
pub fn nback_step_block(step: usize) -> u32 {
    NBACK_ADAPTIVE_BASE + step as u32
}
/// Index naming the stream that shuffles a main block.
const ORDER_STREAM: u64 = u64::MAX - 1;
/// N-back blocks for people (as the LLM dataset `letters_30`): 30 trials, 10 targets.
pub const NBACK_LEN: usize = 30;
/// Match (target) trials in each main N-back block of [`NBACK_LEN`].
pub const NBACK_MATCHES: usize = 10;
/// Trials in an N-back practice block (one block per level, before its main blocks).
pub const NBACK_PRACTICE_LEN: usize = 12;
/// Match (target) trials in an N-back practice block.
pub const NBACK_PRACTICE_MATCHES: usize = 4;
/// `trial_seed` task ordinals for the N-back streams (WorM tasks use 0–13).
const NBACK_ORDINAL_VERBAL: u8 = 200;
const NBACK_ORDINAL_SPATIAL: u8 = 201;
/// Stream for the task order.
const TASK_ORDER_SALT: u64 = 0x7461_736b_6f72_6465;

/// One unit of a block: a WorM trial (by generator index) or one N-back block of trials.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Unit {
    /// One WorM trial.
    Worm {
        /// Its generator index on the human split: `0..K × trials_per_condition` for main trials, from
        /// [`PRACTICE_BASE`] for practice, from [`crate::adaptive::ADAPTIVE_BASE`] for staircase trials.
        index: u64,
    },
    /// One PI-LLM stream ([`super::pi`]).
    Pi {
        /// Updates per key.
        updates: u16,
        /// The stream's number within its level (`0..tpc`; the practice stream's within practice).
        stream: u32,
    },
    /// One N-back block of [`NBACK_LEN`] trials ([`NBACK_PRACTICE_LEN`] in a practice block).
    Nback {
        /// The level N.
        n: u8,
        /// The block number that keys its stimuli: `0..nback_blocks` in a fixed run, 0 for practice (on the
        /// practice stream), from [`NBACK_ADAPTIVE_BASE`] for a staircase's steps.
        block: u32,
    },
}

/// A block of the plan: one task, practice or main.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlannedBlock {
    /// The task of every unit in the block.
    pub task: StudyTask,
    /// A practice block: feedback after each trial, rows flagged `block_kind=practice` and left out of
    /// summaries and curves.
    pub practice: bool,
    /// N-back level of this block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n: Option<u8>,
    /// The block's trials in presentation order (a main WorM block: its generator indices shuffled by the seed).
    pub units: Vec<Unit>,
    /// A staircase block (`adaptive=`): its units grow one at a time, each trial at the level the
    /// staircase asks after the block's answers so far, until it has settled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adaptive: Option<crate::adaptive::StaircaseConfig>,
}

/// Where the session is: block and trial within it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Position {
    /// Index into [`Session::blocks`], 0-based (shown 1-based).
    pub block: usize,
    /// Index of the unit within the block, 0-based (shown 1-based); an N-back block is one unit.
    pub trial: usize,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "block {} trial {}", self.block + 1, self.trial + 1)
    }
}

/// An N-back block's content.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NbackInfo {
    /// Letters or grid positions.
    pub kind: NbackKind,
    /// The level N: a trial is a match when its stimulus is the one N trials back.
    pub n: u8,
    /// Letters (lower case) or grid cells `1`–`9`.
    pub stimuli: Vec<String>,
    /// `m` / `-` per trial.
    pub conditions: String,
}

/// What the edge shows at a position. For WorM tasks the steps are the generated trial's; for N-back
/// every step is one N-back trial (frame = the stimulus, target 1 = match, a binary response where
/// "no press" is answered as class 0).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SessionTrial {
    /// The task of the trial's block.
    pub task: StudyTask,
    /// Whether the trial belongs to a practice block.
    pub practice: bool,
    /// Where the trial sits in the plan; its [`TrialResult`] must name the same position.
    pub position: Position,
    /// Index over the whole session (0-based).
    pub global: usize,
    /// Generator index (WorM), N-back block number or PI-LLM stream number.
    pub index: u64,
    /// The condition cell of the design (what summaries group by).
    pub cell: Conditions,
    /// The trial's conditions as generated (cell plus what was drawn: probed position, changed feature…).
    pub conditions: Conditions,
    /// The frames to show in order, with each step's target and response (regenerated, never stored).
    pub steps: Vec<Step>,
    /// N-back: the block's stimuli and match string; `None` for a WorM trial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nback: Option<NbackInfo>,
    /// PI-LLM: the stream (keys, updates); `None` for other tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pi: Option<PiTrial>,
}

/// Page events the edge observes (pause screen on blur).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PageEventKind {
    /// The window lost focus (`blur`): the running trial stops and is restarted.
    Blur,
    /// The window has focus again (`focus`): unfocused time stops counting.
    Focus,
    /// The tab was hidden (`visibilitychange` with `document.hidden`): the running trial stops and is restarted.
    Hidden,
    /// The tab is visible again (`visibilitychange`): unfocused time stops counting.
    Visible,
    /// The page went full screen (`fullscreenchange`).
    FullscreenEnter,
    /// The page left full screen (`fullscreenchange`).
    FullscreenExit,
    /// The window changed size (the stimulus is drawn again at the new size).
    Resize,
}

/// One page event and when it happened, recorded with the trial it belongs to (the row's `blur_count` and
/// `unfocused_ms` are counted from them).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PageEvent {
    /// What happened.
    pub kind: PageEventKind,
    /// `performance.now()` ms.
    pub t_ms: f64,
}

/// What the participant did in one trial.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TrialResult {
    /// The position this result is for (must be [`Session::current`]).
    pub position: Position,
    /// One answer per answerable step (WorM) or per N-back trial, in order.
    pub answers: Vec<Answer>,
    /// Response time per answer in ms from the probe onset; `None` = no response. Empty = not measured.
    #[serde(default)]
    pub rt_ms: Vec<Option<f64>>,
    /// Every timed stimulus frame shown (rAF onset/offset).
    #[serde(default)]
    pub frames: Vec<FrameTiming>,
    /// Page events since the previous trial, a stopped attempt's included (the row's `blur_count` and
    /// `unfocused_ms`).
    #[serde(default)]
    pub events: Vec<PageEvent>,
    /// How the trial was seen: the stimulus's size, the window, the pointers that answered (the edge's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<TrialView>,
}

/// A recorded trial: the participant's result and its scored row.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordedTrial {
    /// The task of the trial.
    pub task: StudyTask,
    /// Whether it was a practice trial (left out of the summaries).
    pub practice: bool,
    /// The design cell the trial was drawn for (what summaries group by).
    pub cell: Conditions,
    /// The result as the edge sent it.
    pub result: TrialResult,
    /// The scored long-format row, as it goes into the result record.
    pub row: TrialRow,
    /// N-back: the block's SDT measures; `None` for a WorM trial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sdt: Option<SdtScores>,
}

/// What [`Session::record`] tells the edge.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordOutcome {
    /// Per scored entry (feedback on practice trials).
    pub correct: Vec<bool>,
    /// Share correct (SFR: |chosen ∩ target| / L).
    pub score: f64,
    /// The trial was a practice trial: the edge shows `correct` and `score` as feedback.
    pub practice: bool,
    /// The trial ended its block (post the record now).
    pub block_finished: bool,
    /// Every trial of the plan has now been recorded.
    pub session_finished: bool,
}

/// Why a session refused to record a result, regenerate a trial or resume (each has a plain message).
#[derive(Clone, Debug, PartialEq)]
pub enum SessionError {
    /// Everything has been recorded.
    Finished,
    /// A result for a position other than the current one.
    OutOfOrder {
        /// The session's current position.
        expected: Position,
        /// The position the result was for.
        got: Position,
    },
    /// A position outside the block plan.
    NoSuchPosition(Position),
    /// The result does not fit the trial (wrong number or kind of answers, bad times).
    BadResult(String),
    /// Saved state that cannot be resumed.
    BadState(String),
}

impl fmt::Display for SessionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SessionError::Finished => write!(f, "the session is already finished"),
            SessionError::OutOfOrder { expected, got } => {
                write!(f, "a result for {got} arrived, but the session is at {expected}; it was not recorded")
            }
            SessionError::NoSuchPosition(p) => write!(f, "there is no {p} in this session"),
            SessionError::BadResult(m) => write!(f, "the trial result does not fit the trial: {m}"),
            SessionError::BadState(m) => write!(f, "the saved session cannot be resumed: {m}"),
        }
    }
}

impl std::error::Error for SessionError {}

/// An answer given sooner than this after its probe (ms) counts in the row's `fast_answers`: too soon
/// for a person to have looked and decided.
pub const FAST_ANSWER_MS: f64 = 150.0;

/// The session state (config, seed, plan, position, every recorded trial).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Session {
    /// The [`SESSION_VERSION`] that saved it; a newer one is refused on resume.
    pub version: u32,
    /// The study link's settings (the link's own, so a reload resumes the same session).
    pub config: StudyConfig,
    /// The stimulus seed every trial is regenerated from (also the record's run seed).
    pub seed: u64,
    /// The block plan in presentation order; staircase runs add trials or blocks as they go.
    pub blocks: Vec<PlannedBlock>,
    /// The next position to record; `None` when finished.
    pub cursor: Option<Position>,
    /// Every recorded trial in order, practice included: as many as the units before `cursor`.
    pub done: Vec<RecordedTrial>,
    /// Measured refresh interval (ms), set by the edge at session start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_ms: Option<f64>,
    /// The participant's agreement to the study's consent text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consent: Option<Consent>,
    /// The participant's display as the session started (browser, device, screen, window).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display: Option<DisplayFacts>,
    /// The counterbalanced condition (task order) the session takes, and who assigned it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<Condition>,
    /// The virtual chinrest's result (`chinrest=`): screen scale and viewing distance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<Calibration>,
    /// The questionnaire's answers (`survey=`, `survey_url=`), by item id; unanswered optional items
    /// are absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub survey: Option<BTreeMap<String, String>>,
    /// Text pasted into the page (the questionnaire's fields): a sign of answers prepared elsewhere.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pastes: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// A session's condition: which of the link's `conditions=` and how it was assigned.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Condition {
    /// Index into the link's conditions, from 0.
    pub index: usize,
    /// `datapipe` (its condition API, balanced across the study), `participant id` or `seed` (a hash:
    /// balanced in expectation).
    pub source: String,
}

/// An agreement to a consent text: when (the edge's clock, ISO 8601) and to which text (FNV-64 of the
/// text shown, so a record says which version was agreed to).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Consent {
    /// When, by the edge's clock (ISO 8601).
    pub agreed_at: String,
    /// FNV-64 of the consent text as shown, as 16 lower-case hex digits.
    pub text_fnv64: String,
}

fn nback_ordinal(kind: NbackKind) -> u8 {
    match kind {
        NbackKind::Verbal => NBACK_ORDINAL_VERBAL,
        NbackKind::Spatial => NBACK_ORDINAL_SPATIAL,
    }
}

fn nback_alphabet(kind: NbackKind) -> Vec<String> {
    match kind {
        NbackKind::Verbal => LETTERS.chars().map(String::from).collect(),
        NbackKind::Spatial => (1..=9).map(|c| c.to_string()).collect(),
    }
}

/// One scored trial for [`study_summaries`].
pub struct StudyRow<'a> {
    /// The task of the trial.
    pub task: StudyTask,
    /// The design cell the trial was drawn for (what summaries group by).
    pub cell: &'a Conditions,
    /// The scored row (WorM accuracy is the share of its `correct` flags).
    pub row: &'a TrialRow,
    /// N-back: the block's SDT measures (averaged over blocks per level); `None` for WorM.
    pub sdt: Option<&'a SdtScores>,
}

/// Summaries of scored trials as a person's record has them: accuracy per WorM task × cell (the rows'
/// `correct`), PI-LLM's `last_values` ([`super::pi::summaries`]), and for N-back the SDT measures per
/// level, averaged over blocks. The visual LLM suite summarises its records here too.
pub fn study_summaries(rows: &[StudyRow]) -> Vec<Summary> {
    let worm: Vec<TrialRow> = rows
        .iter()
        .filter(|d| d.task.worm().is_some())
        .map(|d| TrialRow { conditions: d.cell.clone(), ..d.row.clone() })
        .collect();
    let mut out = summarise(&worm);
    let pi: Vec<&TrialRow> = rows.iter().filter(|d| d.task == StudyTask::Pi).map(|d| d.row).collect();
    out.extend(super::pi::summaries(&pi));
    let mut groups: Vec<((StudyTask, Conditions), Vec<SdtScores>)> = Vec::new();
    for d in rows {
        if let Some(s) = d.sdt {
            let key = (d.task, d.cell.clone());
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, v)) => v.push(s.clone()),
                None => groups.push((key, vec![s.clone()])),
            }
        }
    }
    for ((task, cell), blocks) in groups {
        let m = sdt::summarize(&blocks);
        for (metric, ms) in [
            ("accuracy", m.accuracy),
            ("hit_rate", m.hit_rate),
            ("false_alarm_rate", m.false_alarm_rate),
            ("dprime", m.dprime),
            ("dprime_notebook", m.dprime_notebook),
        ] {
            out.push(Summary {
                task: task.as_str().into(),
                conditions: cell.clone(),
                metric: metric.into(),
                n: m.blocks as u32,
                value: ms.mean,
                se: (m.blocks > 1).then_some(ms.se),
            });
        }
    }
    out
}

/// A trial's answers scored by the people's code, in the long-format columns.
#[derive(Clone, Debug, PartialEq)]
pub struct ScoredAnswers {
    /// Per scored entry: the target class, an SFR target cell, or an N-back trial's `m` / `-`.
    pub targets: Vec<String>,
    /// The answers as written: classes or `none`, SFR's chosen cells in click order, N-back `m` / `-`.
    pub responses: Vec<String>,
    /// One flag per `targets` entry.
    pub correct: Vec<bool>,
    /// N-back: the block's SDT measures.
    pub sdt: Option<SdtScores>,
    /// `n_back`, `stimuli` and the SDT rates (N-back); `sfr_exact`, `serial_positions` (WorM).
    pub extra: BTreeMap<String, Setting>,
}

/// Score one answer per answerable step of a trial of `task` (`nback` = the block of an N-back trial).
/// People's sessions and the visual LLM suite both score here.
pub fn score_answers(
    task: StudyTask,
    steps: &[Step],
    nback: Option<&NbackInfo>,
    answers: &[Answer],
) -> Result<ScoredAnswers, crate::people::score::ScoreError> {
    let mut extra: BTreeMap<String, Setting> = BTreeMap::new();
    match (task, nback) {
        (StudyTask::Nback(_), Some(nb)) => {
            let (s, correct, letters) = score_nback(&nb.conditions, answers)?;
            extra.insert("n_back".into(), Setting::Int(nb.n as i64));
            extra.insert("stimuli".into(), Setting::Text(nb.stimuli.join(" ")));
            extra.insert("hit_rate".into(), Setting::Num(s.hit_rate));
            extra.insert("false_alarm_rate".into(), Setting::Num(s.false_alarm_rate));
            extra.insert("dprime".into(), Setting::Num(s.dprime));
            Ok(ScoredAnswers {
                targets: nb.conditions.chars().map(String::from).collect(),
                responses: letters.chars().map(String::from).collect(),
                correct,
                sdt: Some(s),
                extra,
            })
        }
        (StudyTask::Worm(id), _) => {
            let s = score_trial(id, steps, answers)?;
            if let Some(exact) = s.exact_set {
                extra.insert("sfr_exact".into(), Setting::Bool(exact));
            }
            if s.serial_positions.iter().any(|p| p.is_some()) {
                let v: Vec<String> =
                    s.serial_positions.iter().map(|p| p.map(|x| x.to_string()).unwrap_or_else(|| "-".into())).collect();
                extra.insert("serial_positions".into(), Setting::Text(v.join(" ")));
            }
            Ok(ScoredAnswers { targets: s.targets, responses: s.responses, correct: s.correct, sdt: None, extra })
        }
        (StudyTask::Pi, _) => Err(crate::people::score::ScoreError::PiWithoutStream),
        _ => Err(crate::people::score::ScoreError::NbackWithoutBlock),
    }
}

/// N-back block `b` at level `n` under `seed` (a practice block when `practice`): one binary step per
/// stimulus ("no match" / "match"), and what the SDT scorer needs. People's sessions and the visual LLM
/// suite take their blocks from here, so the same seed gives both the same stimuli.
pub fn nback_block(
    seed: u64,
    kind: NbackKind,
    n: u8,
    b: u32,
    practice: bool,
) -> Result<(Vec<Step>, NbackInfo), crate::tasks::nback::BlockError> {
    let (len, matches, key) = if practice {
        (NBACK_PRACTICE_LEN, NBACK_PRACTICE_MATCHES, PRACTICE_BASE + ((n as u64) << 32) + b as u64)
    } else {
        (NBACK_LEN, NBACK_MATCHES, ((n as u64) << 32) + b as u64)
    };
    let mut rng = Rng::from_key(trial_seed(seed, nback_ordinal(kind), Split::Human, key));
    let blk = generate_block(&mut rng, n as usize, len, matches, &nback_alphabet(kind), MatchRule::Identity)?;
    let steps = blk
        .stimuli
        .iter()
        .zip(blk.conditions.chars())
        .map(|(s, c)| {
            Step::ask(
                nback_frame(kind, s),
                Phase::Probe,
                Target::Class((c == 'm') as u16),
                binary(["no match", "match"]),
            )
        })
        .collect();
    Ok((steps, NbackInfo { kind, n, stimuli: blk.stimuli, conditions: blk.conditions }))
}

/// The frame of one N-back stimulus: a capital letter, or a 3×3 grid with one blue cell.
pub fn nback_frame(kind: NbackKind, stimulus: &str) -> Frame {
    match kind {
        NbackKind::Verbal => Frame::gray(vec![text(48.0, 48.0, 40.0, stimulus.to_uppercase(), palette::BLACK)]),
        NbackKind::Spatial => {
            let lit: usize = stimulus.parse().unwrap_or(0);
            let mut f = Frame::blank();
            for i in 0..9 {
                let (x, y) = (12.0 + 24.0 * (i % 3) as f32, 12.0 + 24.0 * (i / 3) as f32);
                let fill = if i + 1 == lit { Some(palette::BLUE) } else { None };
                f.push(rect(x, y, x + 24.0, y + 24.0, fill, Some(palette::BLACK), 1.0));
            }
            f
        }
    }
}

impl Session {
    /// A new session with its block plan. The seed is [`StudyConfig::effective_seed`].
    pub fn new(config: StudyConfig) -> Session {
        let seed = config.effective_seed();
        Session::with_seed(config, seed)
    }

    /// The session a link starts: the link's seed or the participant id's ([`Session::new`]), or, for an
    /// anonymous link (neither, see [`StudyConfig::anonymous`]), `fresh` — a random number the edge
    /// draws, so that anonymous participants do not all see the same stimuli. The seed is stored in the
    /// session and in its result record; the config stays the link's, so a reload resumes the session.
    pub fn for_link(config: StudyConfig, fresh: u64) -> Session {
        if config.anonymous() { Session::with_seed(config, fresh) } else { Session::new(config) }
    }

    /// A new session with its block plan and this stimulus seed; a link with `conditions=` takes the
    /// condition [`StudyConfig::condition_for`] gives.
    pub fn with_seed(config: StudyConfig, seed: u64) -> Session {
        let condition = config.condition_for(seed).map(|index| {
            let source = if config.participant.is_some() { "participant id" } else { "seed" };
            Condition { index, source: source.into() }
        });
        Session::planned(config, seed, condition)
    }

    /// The same new session in condition `index`, assigned from outside (`source`: DataPipe's
    /// condition API); `index` past the link's conditions wraps around.
    pub fn in_condition(self, index: usize, source: &str) -> Session {
        match self.config.condition_count() {
            0 => self,
            n => Session::planned(self.config, self.seed, Some(Condition { index: index % n, source: source.into() })),
        }
    }

    fn planned(config: StudyConfig, seed: u64, condition: Option<Condition>) -> Session {
        let mut order = match &condition {
            Some(c) => config.condition(c.index).0,
            None => config.tasks.clone(),
        };
        let random = config.block_order == BlockOrder::Random;
        if random {
            Rng::from_u64(seed ^ TASK_ORDER_SALT).shuffle(&mut order);
        }
        let k = condition.as_ref().map(|c| c.index);
        let mut blocks = Vec::new();
        for task in order {
            match task {
                StudyTask::Worm(id) => {
                    if config.practice {
                        let units = (0..config.practice_trials as u64)
                            .map(|j| Unit::Worm { index: PRACTICE_BASE + j })
                            .collect();
                        blocks.push(PlannedBlock { task, practice: true, n: None, units, adaptive: None });
                    }
                    let staircase = config
                        .adaptive
                        .contains(&task)
                        .then(|| task.staircase_config(|id| config.spec_in(id, k)))
                        .flatten();
                    if let Some(sc) = staircase {
                        let units = vec![Unit::Worm { index: crate::adaptive::ADAPTIVE_BASE }];
                        blocks.push(PlannedBlock { task, practice: false, n: None, units, adaptive: Some(sc) });
                        continue;
                    }
                    let cells = config.spec_in(id, k).grid().len() as u64;
                    let mut idx: Vec<u64> = (0..cells * config.trials_per_condition as u64).collect();
                    Rng::from_key(trial_seed(seed, id.ordinal(), Split::Human, ORDER_STREAM)).shuffle(&mut idx);
                    blocks.push(PlannedBlock {
                        task,
                        practice: false,
                        n: None,
                        units: idx.into_iter().map(|index| Unit::Worm { index }).collect(),
                        adaptive: None,
                    });
                }
                StudyTask::Pi => blocks.extend(super::pi::plan(&config, seed)),
                StudyTask::Nback(_) if config.adaptive.contains(&task) => {
                    // One block per staircase step, each at the N the answers so far ask (`record`
                    // adds the next); practice at the first N.
                    let Some(sc) = task.staircase_config(|id| config.spec_in(id, k)) else { continue };
                    let n = sc.start as u8;
                    if config.practice {
                        let units = vec![Unit::Nback { n, block: 0 }];
                        blocks.push(PlannedBlock { task, practice: true, n: Some(n), units, adaptive: None });
                    }
                    let units = vec![Unit::Nback { n, block: nback_step_block(0) }];
                    blocks.push(PlannedBlock { task, practice: false, n: Some(n), units, adaptive: Some(sc) });
                }
                StudyTask::Nback(kind) => {
                    let mut ns = config.nback_ns.clone();
                    if random {
                        Rng::from_key(trial_seed(seed, nback_ordinal(kind), Split::Human, ORDER_STREAM))
                            .shuffle(&mut ns);
                    }
                    for n in ns {
                        if config.practice {
                            blocks.push(PlannedBlock {
                                task,
                                practice: true,
                                n: Some(n),
                                units: vec![Unit::Nback { n, block: 0 }],
                                adaptive: None,
                            });
                        }
                        let units = (0..config.nback_blocks as u32).map(|block| Unit::Nback { n, block }).collect();
                        blocks.push(PlannedBlock { task, practice: false, n: Some(n), units, adaptive: None });
                    }
                }
            }
        }
        blocks.retain(|b| !b.units.is_empty());
        let cursor = if blocks.is_empty() { None } else { Some(Position { block: 0, trial: 0 }) };
        Session {
            version: SESSION_VERSION,
            config,
            seed,
            blocks,
            cursor,
            done: Vec::new(),
            refresh_ms: None,
            consent: None,
            display: None,
            condition,
            calibration: None,
            survey: None,
            pastes: 0,
        }
    }

    /// Whether the participant must still agree to the study's consent text (before any trial).
    pub fn needs_consent(&self) -> bool {
        self.config.consent.is_some() && self.consent.is_none()
    }

    /// Record the agreement to `text` (the consent text as shown) at `agreed_at` (ISO 8601).
    pub fn agree(&mut self, agreed_at: impl Into<String>, text: &str) {
        let mut h = crate::hash::Fnv64::default();
        h.write(text.as_bytes());
        self.consent = Some(Consent { agreed_at: agreed_at.into(), text_fnv64: format!("{:016x}", h.finish()) });
    }

    /// Keep the participant's display as the session (re)starts (the facts are clamped first); every
    /// row recorded from now on carries it.
    pub fn set_display(&mut self, facts: DisplayFacts) {
        self.display = Some(facts.sanitized());
    }

    /// A WorM task as this session takes it: the link's parameters and its condition's set.
    pub fn spec(&self, id: crate::TaskId) -> crate::TaskSpec {
        self.config.spec_in(id, self.condition.as_ref().map(|c| c.index))
    }

    /// Whether the study's chinrest is still to be done (before the first trial).
    pub fn needs_calibration(&self) -> bool {
        self.config.chinrest && self.calibration.is_none()
    }

    /// Whether the study's questionnaire is due now: at `at` (start or end) and not yet answered.
    pub fn needs_survey(&self, at: SurveyAt) -> bool {
        self.config.has_survey() && self.config.survey_at == at && self.survey.is_none()
    }

    /// Keep the questionnaire's answers (checked by [`super::survey::Questionnaire::check`]); they go
    /// into the record's settings and every row as `q_<id>`.
    pub fn set_survey(&mut self, answers: BTreeMap<String, String>) {
        self.survey = Some(answers);
    }

    /// The participant pasted text into the page.
    pub fn note_paste(&mut self) {
        self.pastes = self.pastes.saturating_add(1);
    }

    /// Keep the chinrest's result; every row recorded from now on gives its stimulus in degrees.
    pub fn set_calibration(&mut self, cal: Calibration) {
        self.calibration = Some(cal);
    }

    /// The stimulus square's side (CSS px) in a window of `window` CSS px: at the study's
    /// `visual_angle=` (once calibrated), else as large as the window allows
    /// ([`super::chinrest::stimulus_side`]).
    pub fn stimulus_side(&self, window: (f64, f64)) -> Result<f64, NoFit> {
        let want = self.config.visual_angle.zip(self.calibration.as_ref());
        super::chinrest::stimulus_side(window, want)
    }

    /// Save the measured refresh interval (ms).
    pub fn set_refresh(&mut self, refresh_ms: f64) {
        if refresh_ms.is_finite() && refresh_ms > 0.0 {
            self.refresh_ms = Some(refresh_ms);
        }
    }

    /// The position whose result is to be recorded next; `None` when the session is finished.
    pub fn current(&self) -> Option<Position> {
        self.cursor
    }

    /// Whether every trial of the plan has been recorded.
    pub fn is_finished(&self) -> bool {
        self.cursor.is_none()
    }

    /// (recorded trials, all trials). An N-back block of 30 counts as one trial.
    pub fn progress(&self) -> (usize, usize) {
        (self.done.len(), self.blocks.iter().map(|b| b.units.len()).sum())
    }

    /// Index of a position over the whole session.
    pub fn global_index(&self, pos: Position) -> Option<usize> {
        let b = self.blocks.get(pos.block)?;
        if pos.trial >= b.units.len() {
            return None;
        }
        Some(self.blocks[..pos.block].iter().map(|b| b.units.len()).sum::<usize>() + pos.trial)
    }

    fn next_position(&self, pos: Position) -> Option<Position> {
        if pos.trial + 1 < self.blocks[pos.block].units.len() {
            return Some(Position { block: pos.block, trial: pos.trial + 1 });
        }
        (pos.block + 1..self.blocks.len())
            .find(|&b| !self.blocks[b].units.is_empty())
            .map(|block| Position { block, trial: 0 })
    }

    /// The stimuli at a position, regenerated from the seed.
    pub fn trial(&self, pos: Position) -> Result<SessionTrial, SessionError> {
        let global = self.global_index(pos).ok_or(SessionError::NoSuchPosition(pos))?;
        let block = &self.blocks[pos.block];
        let unit = block.units[pos.trial];
        match (block.task, unit) {
            (StudyTask::Worm(id), Unit::Worm { index }) => {
                let spec = self.spec(id);
                let grid = spec.grid();
                let k = grid.len() as u64;
                // A main trial is the task's trial `index` of the human split: the same function the
                // Gallery, the CLI and the networks' data use (one meaning of "seed"). Practice trials
                // (indices from PRACTICE_BASE) walk the grid from its first cell, alternating answers.
                let (cell, t) = if block.adaptive.is_some() {
                    let level = self.adaptive_level(pos).ok_or(SessionError::NoSuchPosition(pos))?;
                    crate::adaptive::staircase_trial(&spec, self.seed, Split::Human, index, level)
                        .ok_or_else(|| SessionError::BadState(format!("block {}: no staircase", pos.block + 1)))?
                } else if block.practice {
                    let j = index.saturating_sub(PRACTICE_BASE);
                    let cell = grid[(j % k) as usize].clone();
                    let mut rng = Rng::from_key(trial_seed(self.seed, id.ordinal(), Split::Human, index));
                    let t = spec.trial_in(&cell, &mut rng, j % 2 == 1);
                    (cell, t)
                } else {
                    (grid[(index % k) as usize].clone(), spec.trial(self.seed, Split::Human, index))
                };
                Ok(SessionTrial {
                    task: block.task,
                    practice: block.practice,
                    position: pos,
                    global,
                    index,
                    cell,
                    conditions: t.conditions,
                    steps: t.steps,
                    nback: None,
                    pi: None,
                })
            }
            (StudyTask::Nback(kind), Unit::Nback { n, block: b }) => {
                let (steps, info) = nback_block(self.seed, kind, n, b, block.practice)
                    .map_err(|e| SessionError::BadState(format!("N-back block: {e}")))?;
                let cell = Conditions { set_size: Some(n), ..Default::default() };
                Ok(SessionTrial {
                    task: block.task,
                    practice: block.practice,
                    position: pos,
                    global,
                    index: b as u64,
                    cell: cell.clone(),
                    conditions: cell,
                    steps,
                    nback: Some(info),
                    pi: None,
                })
            }
            (StudyTask::Pi, Unit::Pi { updates, stream }) => {
                let pi = PiTrial::new(self.seed, updates as usize, stream, block.practice);
                let cell = pi.conditions();
                Ok(SessionTrial {
                    task: block.task,
                    practice: block.practice,
                    position: pos,
                    global,
                    index: stream as u64,
                    cell: cell.clone(),
                    conditions: cell,
                    steps: pi.steps(),
                    nback: None,
                    pi: Some(pi),
                })
            }
            _ => Err(SessionError::BadState(format!("block {} mixes task kinds", pos.block))),
        }
    }

    /// The blocks of the adaptive run `block` belongs to: a WorM task's one block, or an N-back task's
    /// blocks (one per step); `None` outside adaptive blocks.
    fn adaptive_group(&self, block: usize) -> Option<std::ops::Range<usize>> {
        let b = self.blocks.get(block)?;
        b.adaptive.as_ref()?;
        let same = |i: usize| self.blocks[i].adaptive.is_some() && self.blocks[i].task == b.task;
        let start = (0..=block).rev().take_while(|&i| same(i)).last()?;
        let end = (block..self.blocks.len()).take_while(|&i| same(i)).last()? + 1;
        Some(start..end)
    }

    /// The staircase of the adaptive run at `pos` before its trial there (all its answers when `pos`
    /// lies past the run), replayed from the recorded answers: a session is reproducible from its seed
    /// and responses. A WorM trial counts as right when every answer is; an N-back block when it passed
    /// ([`crate::adaptive::nback_passed`]). `None` outside adaptive blocks.
    pub fn staircase_at(&self, pos: Position) -> Option<crate::adaptive::Staircase> {
        let group = self.adaptive_group(pos.block)?;
        let config = self.blocks[group.start].adaptive.clone()?;
        let kind = self.blocks[group.start].task.level_kind()?;
        let mut st = crate::adaptive::Staircase::new(config).ok()?;
        let start: usize = self.blocks[..group.start].iter().map(|b| b.units.len()).sum();
        let before: usize =
            self.blocks[group.start..pos.block].iter().map(|b| b.units.len()).sum::<usize>() + pos.trial;
        for d in self.done.iter().skip(start).take(before) {
            st.record(kind.passed(&d.row.correct));
        }
        Some(st)
    }

    /// The level the trial at `pos` shows, for an adaptive block.
    pub fn adaptive_level(&self, pos: Position) -> Option<u32> {
        self.staircase_at(pos)?.next_level()
    }

    /// Every adaptive run as it stands, as a record keeps it.
    pub fn staircase_results(&self) -> Vec<crate::adaptive::StaircaseResult> {
        let mut out = Vec::new();
        let mut b = 0;
        while b < self.blocks.len() {
            let Some(group) = self.adaptive_group(b) else {
                b += 1;
                continue;
            };
            let task = self.blocks[b].task;
            let past = Position { block: group.end - 1, trial: self.blocks[group.end - 1].units.len() };
            if let (Some(st), Some(kind)) = (self.staircase_at(past), task.level_kind()) {
                out.push(crate::adaptive::StaircaseResult::of(task.as_str(), kind, &st));
            }
            b = group.end;
        }
        out
    }

    /// The trial at the current position.
    pub fn current_trial(&self) -> Option<SessionTrial> {
        self.cursor.and_then(|p| self.trial(p).ok())
    }

    /// Record the result of the current trial, score it and advance. A result for any other position
    /// (a repeat after a reload, a skipped trial) is refused and nothing changes.
    pub fn record(&mut self, result: TrialResult) -> Result<RecordOutcome, SessionError> {
        let expected = self.cursor.ok_or(SessionError::Finished)?;
        if self.needs_consent() {
            return Err(SessionError::BadState("the participant has not agreed to the consent text".into()));
        }
        if result.position != expected {
            return Err(SessionError::OutOfOrder { expected, got: result.position });
        }
        if !result.rt_ms.is_empty() && result.rt_ms.len() != result.answers.len() {
            return Err(SessionError::BadResult(format!(
                "{} response times for {} answers",
                result.rt_ms.len(),
                result.answers.len()
            )));
        }
        if result.rt_ms.iter().flatten().any(|t| !t.is_finite() || *t < 0.0) {
            return Err(SessionError::BadResult("a response time is negative or not a number".into()));
        }
        if result.frames.iter().any(|f| !(f.intended_ms.is_finite() && f.onset.is_finite() && f.offset.is_finite())) {
            return Err(SessionError::BadResult("a frame timing is not a number".into()));
        }
        let trial = self.trial(expected)?;
        let scored = match &trial.pi {
            Some(pi) => pi.score(&result.answers),
            None => score_answers(trial.task, &trial.steps, trial.nback.as_ref(), &result.answers),
        };
        let ScoredAnswers { targets, responses, correct, sdt: sdt_scores, mut extra } =
            scored.map_err(|e| SessionError::BadResult(e.to_string()))?;
        let block = &self.blocks[expected.block];
        extra.insert("block".into(), Setting::Int(expected.block as i64 + 1));
        extra.insert("block_kind".into(), Setting::Text(if block.practice { "practice" } else { "main" }.into()));
        // Generator index of the trial (practice: its number within the practice stream).
        let index =
            if trial.practice && trial.index >= PRACTICE_BASE { trial.index - PRACTICE_BASE } else { trial.index };
        extra.insert("index".into(), Setting::Int(index.min(i64::MAX as u64) as i64));
        let refresh = self.refresh_ms.unwrap_or(DEFAULT_REFRESH_MS);
        if !result.frames.is_empty() {
            let st = timing_stats(&result.frames, refresh);
            extra.insert("refresh_ms".into(), Setting::Num(refresh));
            extra.insert("frame_n".into(), Setting::Int(st.n as i64));
            extra.insert("frame_intended_ms".into(), Setting::Num(st.intended_total_ms));
            extra.insert("frame_actual_ms".into(), Setting::Num(st.actual_total_ms));
            extra.insert("frame_err_median_ms".into(), Setting::Num(st.median_abs_err_ms));
            extra.insert("frame_err_max_ms".into(), Setting::Num(st.max_abs_err_ms));
            extra.insert("frame_within_one".into(), Setting::Num(st.within_one_frame_fraction));
            let d: Vec<String> =
                result.frames.iter().map(|f| format!("{:.1}/{:.1}", f.intended_ms, f.actual_ms())).collect();
            extra.insert("frame_durations".into(), Setting::Text(d.join(" ")));
        }
        let (blurs, away) = unfocused(&result.events);
        extra.insert("blur_count".into(), Setting::Int(blurs as i64));
        extra.insert("unfocused_ms".into(), Setting::Num(away));
        // Answers faster than a person can see and decide (`FAST_ANSWER_MS`): a sign of guessing or a bot.
        let fast = result.rt_ms.iter().flatten().filter(|&&t| t < FAST_ANSWER_MS).count();
        extra.insert("fast_answers".into(), Setting::Int(fast as i64));
        let resizes = result.events.iter().filter(|e| e.kind == PageEventKind::Resize).count();
        extra.insert("resize_count".into(), Setting::Int(resizes as i64));
        if let Some(d) = &self.display {
            extra.extend(d.columns());
        }
        if let Some(v) = &result.view {
            if !(v.css_px.is_finite() && v.css_px >= 0.0 && v.dpr.is_finite() && v.dpr > 0.0) {
                return Err(SessionError::BadResult("the stimulus size is not a number".into()));
            }
            if v.pointers.iter().any(|p| super::device::pointer_kind(p).is_none()) {
                return Err(SessionError::BadResult("a pointer type is not mouse, touch or pen".into()));
            }
            extra.extend(v.columns());
            if let Some(cal) = &self.calibration {
                let deg = (cal.degrees(v.css_px) * 1000.0).round() / 1000.0;
                extra.insert("stimulus_deg".into(), Setting::Num(deg));
            }
        }
        let row = TrialRow {
            task: trial.task.as_str().to_string(),
            trial: trial.global as u64,
            conditions: trial.conditions.clone(),
            targets,
            responses,
            correct,
            rt_ms: result.rt_ms.iter().map(|t| t.unwrap_or(-1.0)).collect(),
            extra,
        };
        let outcome_correct = row.correct.clone();
        let score = row.score();
        self.done.push(RecordedTrial {
            task: trial.task,
            practice: trial.practice,
            cell: trial.cell,
            result,
            row,
            sdt: sdt_scores,
        });
        // A staircase gets its next trial (WorM) or block (N-back) until it has settled.
        let b = expected.block;
        let next = Position { block: b, trial: expected.trial + 1 };
        if let Some(level) = self.adaptive_level(next) {
            let (block, group) = (&self.blocks[b], self.adaptive_group(b).unwrap_or(b..b + 1));
            match block.task {
                StudyTask::Worm(_) => {
                    let index = crate::adaptive::ADAPTIVE_BASE + block.units.len() as u64;
                    self.blocks[b].units.push(Unit::Worm { index });
                }
                // No staircase moves PI-LLM (it has no level kind).
                StudyTask::Pi => {}
                StudyTask::Nback(_) => {
                    let n = level.min(u8::MAX as u32) as u8;
                    let step = nback_step_block(b + 1 - group.start);
                    let units = vec![Unit::Nback { n, block: step }];
                    let adaptive = block.adaptive.clone();
                    let added = PlannedBlock { task: block.task, practice: false, n: Some(n), units, adaptive };
                    self.blocks.insert(b + 1, added);
                }
            }
        }
        self.cursor = self.next_position(expected);
        Ok(RecordOutcome {
            correct: outcome_correct,
            score,
            practice: trial.practice,
            block_finished: self.cursor.is_none_or(|p| p.block != expected.block),
            session_finished: self.cursor.is_none(),
        })
    }

    /// The session as JSON, for the edge to save after every trial; [`Session::from_json`] resumes it.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a session serialises")
    }

    /// Resume a saved session, checking it is consistent (version, plan, position, recorded count).
    pub fn from_json(text: &str) -> Result<Session, SessionError> {
        let s: Session = serde_json::from_str(text).map_err(|e| SessionError::BadState(e.to_string()))?;
        if s.version > SESSION_VERSION {
            return Err(SessionError::BadState(format!(
                "it was saved by a newer version (session version {})",
                s.version
            )));
        }
        let total = s.progress().1;
        match s.cursor {
            None if s.done.len() != total => {
                return Err(SessionError::BadState("finished but trials are missing".into()));
            }
            Some(p) => match s.global_index(p) {
                Some(g) if g == s.done.len() => {}
                _ => return Err(SessionError::BadState("the position does not match the recorded trials".into())),
            },
            None => {}
        }
        Ok(s)
    }

    /// Frame-timing statistics over the whole session so far.
    pub fn timing(&self) -> super::timing::TimingStats {
        let all: Vec<FrameTiming> = self.done.iter().flat_map(|d| d.result.frames.iter().copied()).collect();
        timing_stats(&all, self.refresh_ms.unwrap_or(DEFAULT_REFRESH_MS))
    }

    /// The result record: one row per recorded trial (practice rows flagged `block_kind=practice`),
    /// summaries of the main trials per task × condition cell (accuracy), plus for N-back the SDT
    /// measures per level over blocks. `participant` overrides the link's id.
    pub fn to_record(&self, participant: Option<&str>) -> ResultRecord {
        let id = participant
            .map(str::to_string)
            .or_else(|| self.config.participant.clone())
            .unwrap_or_else(|| "anonymous".into());
        let mut settings: BTreeMap<String, Setting> = BTreeMap::new();
        settings.insert("study_link".into(), Setting::Text(self.config.to_query()));
        settings.insert(
            "tasks".into(),
            Setting::Text(self.config.tasks.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(",")),
        );
        settings.insert("trials_per_condition".into(), Setting::Int(self.config.trials_per_condition as i64));
        settings.insert("block_order".into(), Setting::Text(format!("{:?}", self.config.block_order).to_lowercase()));
        settings.insert("practice".into(), Setting::Bool(self.config.practice));
        settings.insert("split".into(), Setting::Text(Split::Human.as_str().into()));
        settings.insert("finished".into(), Setting::Bool(self.is_finished()));
        settings.insert(
            "block_plan".into(),
            Setting::Text(
                self.blocks
                    .iter()
                    .map(|b| {
                        format!(
                            "{}{}{}",
                            b.task,
                            b.n.map(|n| format!(" N={n}")).unwrap_or_default(),
                            if b.practice { " (practice)" } else { "" }
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
        );
        // The fixed N-back levels, where an N-back runs at them (a staircase's N is in its track).
        if self.config.tasks.iter().any(|t| t.nback().is_some() && !self.config.adaptive.contains(t)) {
            settings.insert(
                "nback_ns".into(),
                Setting::Text(self.config.nback_ns.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(",")),
            );
            settings.insert("nback_blocks".into(), Setting::Int(self.config.nback_blocks as i64));
        }
        if self.config.tasks.contains(&StudyTask::Pi) {
            for (k, v) in super::pi::settings(self.config.trials_per_condition) {
                settings.insert(k.into(), v);
            }
        }
        for (k, v) in &self.config.external_ids {
            settings.insert(k.clone(), Setting::Text(v.clone()));
        }
        if let Some(r) = self.refresh_ms {
            settings.insert("refresh_ms".into(), Setting::Num(r));
        }
        if let Some(c) = &self.condition {
            settings.insert("condition".into(), Setting::Int(c.index as i64 + 1));
            settings.insert("condition_source".into(), Setting::Text(c.source.clone()));
            let (order, set) = self.config.condition(c.index);
            if !self.config.conditions.is_empty() {
                let text = order.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(",");
                settings.insert("condition_order".into(), Setting::Text(text));
            }
            if !set.is_empty() {
                let text = set.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(";");
                settings.insert("condition_set".into(), Setting::Text(text));
            }
        }
        if let Some(d) = &self.display {
            for (k, v) in d.columns() {
                settings.insert(format!("display_{k}"), v);
            }
            settings.insert("display_user_agent".into(), Setting::Text(d.user_agent.clone()));
        }
        let mut pointers: Vec<&str> = Vec::new();
        for p in self.done.iter().filter_map(|d| d.result.view.as_ref()).flat_map(|v| v.pointers.iter()) {
            if !pointers.contains(&p.as_str()) {
                pointers.push(p);
            }
        }
        if self.done.iter().any(|d| d.result.view.is_some()) {
            let text = if pointers.is_empty() { "keyboard".to_string() } else { pointers.join("+") };
            settings.insert("pointer_types".into(), Setting::Text(text));
        }
        let css: Vec<f64> = self.done.iter().filter_map(|d| d.result.view.as_ref()).map(|v| v.css_px).collect();
        if let (Some(lo), Some(hi)) = (css.iter().copied().reduce(f64::min), css.iter().copied().reduce(f64::max)) {
            settings.insert("canvas_css_px_min".into(), Setting::Num(lo));
            settings.insert("canvas_css_px_max".into(), Setting::Num(hi));
        }
        if let Some(cal) = &self.calibration {
            settings.extend(cal.settings());
        }
        if let Some(a) = self.config.visual_angle {
            settings.insert("visual_angle_deg".into(), Setting::Num(a));
        }
        if let Some(c) = &self.consent {
            settings.insert("consent_agreed_at".into(), Setting::Text(c.agreed_at.clone()));
            settings.insert("consent_text_fnv64".into(), Setting::Text(c.text_fnv64.clone()));
        }
        let t = self.timing();
        if t.n > 0 {
            settings.insert("frame_n".into(), Setting::Int(t.n as i64));
            settings.insert("frame_err_median_ms".into(), Setting::Num(t.median_abs_err_ms));
            settings.insert("frame_err_p99_ms".into(), Setting::Num(t.p99_abs_err_ms));
            settings.insert("frame_err_max_ms".into(), Setting::Num(t.max_abs_err_ms));
            settings.insert("frame_within_one_fraction".into(), Setting::Num(t.within_one_frame_fraction));
        }
        for r in self.staircase_results() {
            r.write_into(&mut settings);
        }
        let config = RunConfig {
            seed: self.seed,
            tasks: self.config.tasks.iter().filter_map(|t| t.worm()).map(|id| self.spec(id)).collect(),
            settings,
        };
        let task = self.config.tasks.iter().map(|t| t.as_str()).collect::<Vec<_>>().join("+");
        let mut r = ResultRecord::new(Subject::Person { id }, task, config);
        r.trials = self.done.iter().map(|d| d.row.clone()).collect();
        if self.survey.is_some() || self.pastes > 0 {
            // In every row too, so that a CSV read alone still says it.
            for t in &mut r.trials {
                t.extra.insert("paste_count".into(), Setting::Int(self.pastes as i64));
            }
            r.config.settings.insert("paste_count".into(), Setting::Int(self.pastes as i64));
        }
        if let Some(a) = &self.survey {
            let cols = super::survey::columns(a);
            for t in &mut r.trials {
                t.extra.extend(cols.clone());
            }
            r.config.settings.extend(cols);
            r.config.settings.insert("survey_at".into(), Setting::Text(self.config.survey_at.as_str().into()));
        }
        r.summaries = self.summaries();
        r
    }

    /// Summaries of the main (non-practice) trials.
    pub fn summaries(&self) -> Vec<Summary> {
        let main: Vec<StudyRow> = self
            .done
            .iter()
            .filter(|d| !d.practice)
            .map(|d| StudyRow { task: d.task, cell: &d.cell, row: &d.row, sdt: d.sdt.as_ref() })
            .collect();
        study_summaries(&main)
    }

    /// The instruction-screen moment: whether `pos` starts a block (show the task's instructions).
    pub fn starts_block(&self, pos: Position) -> bool {
        pos.trial == 0
    }
}

/// Number of blur/hidden events and the ms spent unfocused (blur → focus) within a trial.
fn unfocused(events: &[PageEvent]) -> (usize, f64) {
    let mut ev: Vec<&PageEvent> = events.iter().filter(|e| e.t_ms.is_finite()).collect();
    ev.sort_by(|a, b| a.t_ms.total_cmp(&b.t_ms));
    let (mut count, mut away, mut since) = (0usize, 0.0, None::<f64>);
    for e in ev {
        match e.kind {
            PageEventKind::Blur | PageEventKind::Hidden if since.is_none() => {
                count += 1;
                since = Some(e.t_ms);
            }
            PageEventKind::Focus | PageEventKind::Visible => {
                if let Some(s) = since.take() {
                    away += e.t_ms - s;
                }
            }
            _ => {}
        }
    }
    (count, away)
}

#[cfg(test)]
pub(crate) mod tests;

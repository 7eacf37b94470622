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

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::chinrest::{Calibration, NoFit};
use super::device::{DisplayFacts, TrialView};
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
    /// Generator index (WorM) or N-back block number.
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
/// `correct`), and for N-back the SDT measures per level, averaged over blocks. The visual LLM suite
/// summarises its records here too.
pub fn study_summaries(rows: &[StudyRow]) -> Vec<Summary> {
    let worm: Vec<TrialRow> = rows
        .iter()
        .filter(|d| d.task.worm().is_some())
        .map(|d| TrialRow { conditions: d.cell.clone(), ..d.row.clone() })
        .collect();
    let mut out = summarise(&worm);
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
        let ScoredAnswers { targets, responses, correct, sdt: sdt_scores, mut extra } =
            score_answers(trial.task, &trial.steps, trial.nback.as_ref(), &result.answers)
                .map_err(|e| SessionError::BadResult(e.to_string()))?;
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
pub(crate) mod tests {
    use super::*;
    use crate::people::score::Answer;
    use crate::people::timing::answerable;
    use crate::task::TaskSpec;
    use crate::task::{Response, TaskId};

    fn cfg(tasks: Vec<StudyTask>) -> StudyConfig {
        StudyConfig { seed: Some(11), ..StudyConfig::new(tasks) }
    }

    /// The correct answer of a step, as a person gives it.
    pub(crate) fn right_answer(task: StudyTask, step: &Step) -> Answer {
        match (&step.target, &step.response) {
            (Target::Set(v), _) => Answer::Set(v.clone()),
            (Target::Class(t), _) if task == StudyTask::Worm(TaskId::Cs) => {
                Answer::Class(t - crate::tasks::cs::class_offset(*t))
            }
            (Target::Class(t), _) => Answer::Class(*t),
            (Target::None, _) => Answer::None,
        }
    }

    /// A wrong answer of a step.
    pub(crate) fn wrong_answer(task: StudyTask, step: &Step) -> Answer {
        match (right_answer(task, step), &step.response) {
            (Answer::Class(c), Response::Binary { .. }) => Answer::Class(1 - c),
            (Answer::Class(c), Response::Choice { n }) => Answer::Class((c + 1) % n),
            (Answer::Set(v), Response::MultiSelect { n, .. }) => {
                // Keep the first cell (if L > 1), fill up with cells outside the target.
                let mut out = if v.len() > 1 { vec![v[0]] } else { vec![] };
                let mut c = 0u16;
                while out.len() < v.len() {
                    if !v.contains(&c) {
                        out.push(c);
                    }
                    c = (c + 1) % n;
                }
                Answer::Set(out)
            }
            (a, _) => a,
        }
    }

    /// A scripted participant: answers every step right when `right(global)` is true, else wrong.
    pub(crate) fn run(session: &mut Session, right: impl Fn(usize) -> bool) -> Vec<(usize, bool)> {
        run_with(session, |t| right(t.global))
    }

    /// A scripted participant who answers a trial right when `right(trial)` is true, else wrong.
    pub(crate) fn run_with(session: &mut Session, mut right: impl FnMut(&SessionTrial) -> bool) -> Vec<(usize, bool)> {
        let mut log = Vec::new();
        while let Some(pos) = session.current() {
            let t = session.trial(pos).unwrap();
            let ok = right(&t);
            answer(session, &t, ok);
            log.push((t.global, ok));
        }
        log
    }

    /// Answer the current trial `t` all right or all wrong.
    pub(crate) fn answer(session: &mut Session, t: &SessionTrial, ok: bool) {
        let answers: Vec<Answer> = t
            .steps
            .iter()
            .filter(|s| answerable(s))
            .map(|s| if ok { right_answer(t.task, s) } else { wrong_answer(t.task, s) })
            .collect();
        let n = answers.len();
        let frames = t
            .steps
            .iter()
            .enumerate()
            .map(|(i, _)| FrameTiming {
                step: i as u32,
                intended_ms: 100.0,
                onset: 1000.0 * i as f64,
                offset: 1000.0 * i as f64 + 100.2,
            })
            .collect();
        let res = TrialResult {
            position: t.position,
            answers,
            rt_ms: (0..n).map(|i| if i == 0 && !ok { None } else { Some(400.0 + i as f64) }).collect(),
            frames,
            events: vec![],
            view: None,
        };
        let out = session.record(res).unwrap();
        assert!(out.correct.iter().all(|&c| c == ok) || t.task == StudyTask::Worm(TaskId::Sfr), "{} {out:?}", t.task);
    }

    /// `conditions=`: the session takes its condition's task order, the record says which and how.
    #[test]
    fn a_condition_orders_the_blocks_and_is_recorded() {
        let q = "tasks=SC,VIR&conditions=SC,VIR|VIR,SC&practice=0&seed=3";
        let s = Session::new(StudyConfig::from_query(q).unwrap());
        let c = s.condition.clone().unwrap();
        let first = |s: &Session| s.blocks[0].task.as_str().to_string();
        assert_eq!(first(&s), if c.index == 0 { "SC" } else { "VIR" });
        assert_eq!(c.source, "seed");
        let other = s.clone().in_condition(1 - c.index, "datapipe");
        assert_ne!(first(&other), first(&s));
        let rec = other.to_record(None);
        assert_eq!(rec.config.settings["condition"], Setting::Int(2 - c.index as i64));
        assert_eq!(rec.config.settings["condition_source"], Setting::Text("datapipe".into()));
        assert_eq!(Session::from_json(&other.to_json()).unwrap(), other, "resumed in its condition");
        let plain = Session::new(StudyConfig::from_query("tasks=SC,VIR&seed=3").unwrap());
        assert_eq!((plain.condition.clone(), plain.clone().in_condition(1, "x")), (None, plain));
    }

    /// `condition_sets=`: the session's tasks take its set's parameters, crossed with the orders.
    #[test]
    fn a_parameter_set_condition_changes_the_trials_and_is_recorded() {
        let q = "tasks=nback-verbal,VIR&conditions=nback-verbal,VIR|VIR,nback-verbal\
                 &condition_sets=list_lengths=4|list_lengths=16&practice=0&n=1&seed=3";
        let cfg = StudyConfig::from_query(q).unwrap();
        assert_eq!(cfg.condition_count(), 4);
        for k in 0..4 {
            let s = Session::new(cfg.clone()).in_condition(k, "datapipe");
            assert_eq!(s.blocks[0].task.as_str(), if k % 2 == 0 { "nback-verbal" } else { "VIR" }, "order {k}");
            let want = if k < 2 { 4 } else { 16 };
            let vir = s.blocks.iter().position(|b| b.task.as_str() == "VIR").unwrap();
            for trial in 0..s.blocks[vir].units.len() {
                let t = s.trial(Position { block: vir, trial }).unwrap();
                assert_eq!(t.cell.list_length, Some(want), "condition {k}");
            }
            let rec = s.to_record(None);
            let set = format!("list_lengths={want}");
            assert_eq!(rec.config.settings["condition_set"], Setting::Text(set));
            assert!(rec.config.tasks.iter().any(|spec| spec.id == crate::TaskId::Vir));
        }
    }

    #[test]
    fn questionnaire_answers_go_into_the_settings_and_every_row() {
        let config = StudyConfig::from_query("tasks=SC&practice=0&seed=5&survey=demographics&survey_at=end").unwrap();
        let mut s = Session::new(config);
        assert!(!s.needs_survey(SurveyAt::Start) && s.needs_survey(SurveyAt::End));
        let pos = s.current().unwrap();
        let t = s.trial(pos).unwrap();
        let answers: Vec<Answer> =
            t.steps.iter().filter(|s| answerable(s)).map(|st| right_answer(t.task, st)).collect();
        s.record(TrialResult { position: pos, answers, ..Default::default() }).unwrap();
        let a: BTreeMap<String, String> =
            [("age", "41"), ("colour_vision", "yes")].iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        s.set_survey(a);
        s.note_paste();
        assert!(!s.needs_survey(SurveyAt::End));
        let rec = Session::from_json(&s.to_json()).unwrap().to_record(None);
        assert_eq!(rec.config.settings["q_colour_vision"], Setting::Text("yes".into()));
        assert_eq!(rec.config.settings["survey_at"], Setting::Text("end".into()));
        assert_eq!(rec.trials[0].extra["q_age"], Setting::Text("41".into()));
        assert_eq!(rec.trials[0].extra["paste_count"], Setting::Int(1));
        let csv = rec.to_csv().unwrap();
        let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
        assert!(header.contains(&"q_age") && header.contains(&"q_colour_vision"), "{header:?}");
    }

    #[test]
    fn a_calibrated_session_draws_at_its_angle_and_records_degrees() {
        use crate::people::chinrest::{CARD_WIDTH_MM, Chinrest};
        use crate::people::device::TrialView;
        let config = StudyConfig::from_query("tasks=SC&practice=0&seed=5&visual_angle=8").unwrap();
        let mut s = Session::new(config);
        assert!(s.needs_calibration());
        assert_eq!(s.stimulus_side((1366.0, 800.0)), Ok(610.0), "before the chinrest: the window's size");
        let mut c = Chinrest::default();
        for _ in 0..3 {
            c.card(CARD_WIDTH_MM * 4.0).unwrap();
        }
        let off = 500.0 * 13.5f64.to_radians().tan() * 4.0;
        for _ in 0..5 {
            c.press(off).unwrap();
        }
        s.set_calibration(c.calibration().unwrap());
        assert!(!s.needs_calibration());
        // 8° at 50 cm, 4 px/mm: 2·500·tan 4° mm · 4 = 279.7 px.
        let side = s.stimulus_side((1366.0, 800.0)).unwrap();
        assert_eq!(side, 280.0);
        assert!(s.stimulus_side((300.0, 420.0)).is_err());
        let pos = s.current().unwrap();
        let t = s.trial(pos).unwrap();
        let answers: Vec<Answer> =
            t.steps.iter().filter(|s| answerable(s)).map(|st| right_answer(t.task, st)).collect();
        let view =
            TrialView { css_px: side, device_px: 280, window_w: 1366, window_h: 800, dpr: 1.0, ..Default::default() };
        s.record(TrialResult { position: pos, answers, view: Some(view), ..Default::default() }).unwrap();
        let back = Session::from_json(&s.to_json()).unwrap();
        assert_eq!(back.calibration, s.calibration, "kept on resume");
        let rec = back.to_record(None);
        assert!(matches!(rec.trials[0].extra["stimulus_deg"], Setting::Num(d) if (d - 8.0).abs() < 0.01));
        assert_eq!(rec.config.settings["visual_angle_deg"], Setting::Num(8.0));
        assert_eq!(rec.config.settings["chinrest_distance_mm"], Setting::Num(500.0));
        assert_eq!(rec.config.settings["chinrest_px_per_mm"], Setting::Num(4.0));
        assert!(rec.to_csv().unwrap().lines().next().unwrap().split(',').any(|h| h == "stimulus_deg"));
    }

    /// What the participant saw goes into every row, the CSV and the record's settings; a hostile view
    /// (NaN size, an unknown pointer) is refused with nothing recorded.
    #[test]
    fn the_display_and_each_trials_view_are_recorded() {
        use crate::people::device::{DisplayFacts, TrialView};
        let config = StudyConfig::from_query("tasks=SC&practice=0&seed=5").unwrap();
        let mut s = Session::new(config);
        s.set_display(DisplayFacts {
            user_agent: "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) Version/18.1 Mobile Safari/604.1"
                .into(),
            screen_w: 390,
            screen_h: 844,
            window_w: 390,
            window_h: 700,
            outer_w: 0,
            dpr: 3.0,
            touch_points: 5,
            coarse: true,
            fine: false,
            hover: false,
            webdriver: false,
        });
        let pos = s.current().unwrap();
        let t = s.trial(pos).unwrap();
        let answers: Vec<Answer> =
            t.steps.iter().filter(|s| answerable(s)).map(|st| right_answer(t.task, st)).collect();
        let view = TrialView {
            css_px: 358.0,
            device_px: 1074,
            window_w: 390,
            window_h: 700,
            dpr: 3.0,
            pointers: vec!["touch".into()],
            pointer_moves: 0,
            instructions_ms: Some(5300.0),
        };
        for bad in
            [TrialView { css_px: f64::NAN, ..view.clone() }, TrialView { pointers: vec!["<b>".into()], ..view.clone() }]
        {
            let r = TrialResult { position: pos, answers: answers.clone(), view: Some(bad), ..Default::default() };
            assert!(matches!(s.record(r), Err(SessionError::BadResult(_))));
        }
        assert!(s.done.is_empty(), "nothing recorded");
        let resized = vec![PageEvent { kind: PageEventKind::Resize, t_ms: 5.0 }];
        let rt_ms = answers.iter().enumerate().map(|(i, _)| Some(if i == 0 { 90.0 } else { 700.0 })).collect();
        let r = TrialResult { position: pos, answers, view: Some(view), events: resized, rt_ms, ..Default::default() };
        s.record(r).unwrap();
        let rec = s.to_record(None);
        let row = &rec.trials[0].extra;
        assert_eq!(row["device"], Setting::Text("phone".into()));
        assert_eq!(row["os"], Setting::Text("iOS".into()));
        assert_eq!(row["canvas_css_px"], Setting::Num(358.0));
        assert_eq!(row["pointer"], Setting::Text("touch".into()));
        assert_eq!(row["resize_count"], Setting::Int(1));
        assert_eq!(row["fast_answers"], Setting::Int(1));
        assert_eq!(row["instructions_ms"], Setting::Num(5300.0));
        assert_eq!(rec.config.settings["display_device"], Setting::Text("phone".into()));
        assert_eq!(rec.config.settings["pointer_types"], Setting::Text("touch".into()));
        let csv = rec.to_csv().unwrap();
        let header = csv.lines().next().unwrap();
        for col in ["device", "browser", "screen", "window", "dpr", "canvas_css_px", "canvas_device_px", "pointer"] {
            assert!(header.split(',').any(|h| h == col), "{col} in {header}");
        }
        // Saved and resumed with it.
        assert_eq!(Session::from_json(&s.to_json()).unwrap(), s);
    }

    /// `adaptive=`: CD's and VSR's main blocks follow their staircases, one trial at a time; an observer
    /// who holds 4 items (CD) and recalls lists of up to 5 whole (VSR) is placed there; the record keeps
    /// both runs; a session saved halfway resumes with the same next trial; and the person's staircase
    /// trials are regenerated exactly for a network to take (`people::replay`).
    #[test]
    fn an_adaptive_block_follows_its_staircase_and_the_record_keeps_it() {
        let config = StudyConfig::from_query("tasks=SC,CD-Color,VSR&adaptive=CD-Color,VSR&practice=1&seed=3").unwrap();
        let mut s = Session::new(config);
        assert_eq!(s.blocks.iter().filter(|b| b.adaptive.is_some()).count(), 2);
        assert_eq!(s.progress(), (0, 3 + 20 + 3 + 1 + 3 + 1), "SC's 20 cells; an adaptive block starts with one trial");
        let observer = |t: &SessionTrial| match t.task {
            _ if t.practice => true,
            StudyTask::Worm(TaskId::CdColor) => t.cell.set_size.unwrap() <= 4,
            StudyTask::Worm(TaskId::Vsr) => t.cell.list_length.unwrap() <= 5,
            _ => true,
        };
        let mut shown = Vec::new();
        let mut resumed = None;
        while let Some(pos) = s.current() {
            let t = s.trial(pos).unwrap();
            if s.blocks[pos.block].adaptive.is_some() {
                let level = s.adaptive_level(pos).unwrap() as u8;
                assert_eq!(t.cell.set_size.or(t.cell.list_length), Some(level));
                assert_eq!(t.conditions.set_size.or(t.conditions.list_length), Some(level));
                if pos.trial == 6 && resumed.is_none() {
                    let again = Session::from_json(&s.to_json()).unwrap();
                    assert_eq!(again.trial(pos).unwrap(), t, "resumed halfway: the same trial");
                    resumed = Some(again);
                }
            }
            if !t.practice {
                shown.push((t.index, t.steps.clone()));
            }
            answer(&mut s, &t, observer(&t));
        }
        assert!(s.is_finished());
        let record = s.to_record(Some("stair"));
        let runs = crate::adaptive::results_of(&record);
        assert_eq!(runs.iter().map(|r| r.task.as_str()).collect::<Vec<_>>(), ["CD-Color", "VSR"]);
        let cd_run = &runs[0];
        let e = cd_run.estimate.unwrap();
        assert!((2.5..=5.5).contains(&e.level), "CD: {e:?}");
        let vsr = runs[1].estimate.unwrap();
        assert!((5.0..=6.0).contains(&vsr.level), "VSR: {vsr:?}");
        let cd_rows: Vec<_> = record
            .trials
            .iter()
            .filter(|r| r.task == "CD-Color" && !crate::people::reference::is_practice(r))
            .collect();
        assert_eq!(cd_rows.len(), cd_run.track.len());
        for (row, step) in cd_rows.iter().zip(&cd_run.track) {
            assert_eq!(row.conditions.set_size, Some(step.level as u8));
            assert_eq!(row.correct.iter().all(|&c| c), step.correct);
        }
        assert!(cd_run.track.len() < cd_run.config.max_trials, "settled before the trial limit");
        assert!(runs[0].describe().starts_with("set size at 75 % right: "), "{}", runs[0].describe());
        let replay = crate::people::replay::worm_trials_of(&record).unwrap();
        assert_eq!(replay.levels.len(), cd_run.track.len() + runs[1].track.len());
        let again: Vec<_> = replay.generate().into_iter().map(|(i, t)| (i, t.steps)).collect();
        assert_eq!(again.len(), record.trials.iter().filter(|r| !crate::people::reference::is_practice(r)).count());
        assert_eq!(again, shown, "the staircase trials regenerated from the record");
    }

    /// `adaptive=nback-verbal`: one block per step, each at the N the blocks so far ask (up one after a
    /// block passed, down one after one failed); a participant who passes up to 2-back settles between
    /// 2 and 3; the record keeps the run; a session saved between blocks resumes with the same block.
    #[test]
    fn an_adaptive_nback_runs_one_block_per_step() {
        let config = StudyConfig::from_query("tasks=nback-verbal&adaptive=all&practice=1&seed=4").unwrap();
        let mut s = Session::new(config);
        assert_eq!(s.blocks.len(), 2, "practice, then the first step");
        let mut shown = Vec::new();
        let mut resumed = None;
        let player = |t: &SessionTrial| t.practice || t.nback.as_ref().is_some_and(|b| b.n <= 2);
        while let Some(pos) = s.current() {
            let t = s.trial(pos).unwrap();
            let n = t.nback.as_ref().unwrap().n;
            if !t.practice {
                assert_eq!(s.adaptive_level(pos), Some(n as u32));
                assert_eq!(s.blocks[pos.block].n, Some(n), "the block says its N (the page's instructions)");
                shown.push(n);
                if shown.len() == 3 {
                    let again = Session::from_json(&s.to_json()).unwrap();
                    assert_eq!(again.trial(pos).unwrap(), t, "resumed between blocks: the same block");
                    resumed = Some(again);
                }
            }
            answer(&mut s, &t, player(&t));
        }
        let mut again = resumed.expect("resumed at the third block");
        run_with(&mut again, player);
        assert_eq!(again.staircase_results(), s.staircase_results(), "the resumed session ends the same");
        let record = s.to_record(Some("nb"));
        let runs = crate::adaptive::results_of(&record);
        assert_eq!(runs.len(), 1);
        let run = &runs[0];
        assert_eq!((run.task.as_str(), run.kind), ("nback-verbal", crate::adaptive::LevelKind::NbackN));
        assert_eq!(run.track.iter().map(|t| t.level as u8).collect::<Vec<_>>(), shown);
        assert_eq!(&shown[..3], [1, 2, 3], "up after each block passed, from 1-back");
        let e = run.estimate.unwrap();
        assert!((2.0..=3.0).contains(&e.level), "{e:?}");
        assert!(run.track.len() <= 12);
        // Summaries per N, as for a fixed run; no fixed levels in the settings (the staircase chose them).
        assert!(record.summaries.iter().any(|m| m.task == "nback-verbal" && m.conditions.set_size == Some(3)));
        assert!(!record.config.settings.contains_key("nback_ns"), "{:?}", record.config.settings.keys());
        // Beside a fixed N-back the levels are kept.
        let both = StudyConfig::from_query("tasks=nback-verbal,nback-spatial&adaptive=nback-verbal&seed=4").unwrap();
        let record = Session::new(both).to_record(Some("nb2"));
        assert!(record.config.settings.contains_key("nback_ns"));
    }

    #[test]
    fn plan_is_deterministic_and_sized() {
        let mut c =
            cfg(vec![StudyTask::Worm(TaskId::Vir), StudyTask::Worm(TaskId::Sfr), StudyTask::Nback(NbackKind::Verbal)]);
        c.trials_per_condition = 2;
        c.block_order = BlockOrder::Random;
        let a = Session::new(c.clone());
        let b = Session::new(c.clone());
        assert_eq!(a, b);
        // VIR 20 cells × 2 + 3 practice; SFR 12 × 2 + 3; N-back 3 levels × (1 practice + 1 main).
        assert_eq!(a.progress(), (0, 43 + 27 + 6));
        assert_eq!(a.blocks.len(), 2 + 2 + 6);
        for (i, blk) in a.blocks.iter().enumerate() {
            for j in 0..blk.units.len() {
                let p = Position { block: i, trial: j };
                assert_eq!(a.trial(p).unwrap(), b.trial(p).unwrap());
            }
        }
        // Main block = each grid cell exactly tpc times, in a shuffled order.
        let vir = a.blocks.iter().find(|b| b.task == StudyTask::Worm(TaskId::Vir) && !b.practice).unwrap();
        let mut idx: Vec<u64> = vir
            .units
            .iter()
            .map(|u| match u {
                Unit::Worm { index } => *index,
                _ => panic!(),
            })
            .collect();
        assert_ne!(idx, (0..40).collect::<Vec<_>>());
        idx.sort();
        assert_eq!(idx, (0..40).collect::<Vec<_>>());
        // Practice trials differ from every main trial.
        let pi = a.blocks.iter().position(|b| b.task == StudyTask::Worm(TaskId::Vir) && b.practice).unwrap();
        let mi = a.blocks.iter().position(|b| b.task == StudyTask::Worm(TaskId::Vir) && !b.practice).unwrap();
        for j in 0..3 {
            let p = a.trial(Position { block: pi, trial: j }).unwrap();
            for k in 0..40 {
                assert_ne!(p.steps, a.trial(Position { block: mi, trial: k }).unwrap().steps);
            }
        }
        // Another seed gives other stimuli; fixed order keeps the link's order.
        let other = Session::new(StudyConfig { seed: Some(12), ..c.clone() });
        assert_ne!(
            other.trial(Position { block: 1, trial: 0 }).unwrap().steps,
            a.trial(Position { block: 1, trial: 0 }).unwrap().steps
        );
        let fixed = Session::new(StudyConfig { block_order: BlockOrder::Fixed, ..c });
        assert_eq!(fixed.blocks[0].task, StudyTask::Worm(TaskId::Vir));
        assert_eq!(fixed.blocks.iter().filter_map(|b| b.n).collect::<Vec<_>>(), vec![1, 1, 2, 2, 3, 3]);
    }

    #[test]
    fn anonymous_links_draw_their_own_seed_and_named_ones_keep_theirs() {
        let tasks = vec![StudyTask::Worm(TaskId::Vsr)];
        let anon = StudyConfig::new(tasks.clone());
        assert!(anon.anonymous());
        let (a, b) = (Session::for_link(anon.clone(), 1234), Session::for_link(anon.clone(), 98765));
        assert_eq!((a.seed, b.seed), (1234, 98765));
        assert_eq!(a.config, anon, "the config stays the link's, so a reload finds the saved session");
        let first = Position { block: 0, trial: 0 };
        assert_ne!(
            a.trial(first).unwrap().steps,
            b.trial(first).unwrap().steps,
            "two anonymous sessions see other stimuli"
        );
        // A seed or a participant id in the link decides the seed; the fresh number is ignored.
        let seeded = StudyConfig { seed: Some(7), ..anon.clone() };
        assert!(!seeded.anonymous());
        assert_eq!(Session::for_link(seeded, 1234).seed, 7);
        let named = StudyConfig { participant: Some("P01".into()), ..anon };
        assert_eq!(Session::for_link(named.clone(), 1234).seed, named.effective_seed());
        assert_eq!(Session::for_link(named.clone(), 1).seed, Session::for_link(named, 2).seed);
    }

    #[test]
    fn a_main_trial_is_the_tasks_trial_of_the_human_split() {
        let s = Session::new(StudyConfig {
            seed: Some(77),
            ..cfg(vec![StudyTask::Worm(TaskId::Vsr), StudyTask::Worm(TaskId::CdColor)])
        });
        for (b, block) in s.blocks.iter().enumerate().filter(|(_, b)| !b.practice) {
            let id = block.task.worm().unwrap();
            for (j, unit) in block.units.iter().enumerate() {
                let Unit::Worm { index } = *unit else { panic!() };
                let t = s.trial(Position { block: b, trial: j }).unwrap();
                let same = TaskSpec::new(id).trial(77, Split::Human, index);
                assert_eq!((t.steps, t.conditions), (same.steps, same.conditions), "{id:?} trial {index}");
            }
        }
    }

    #[test]
    fn answers_are_balanced_with_one_trial_per_condition() {
        let s = Session::new(StudyConfig { practice: false, ..cfg(vec![StudyTask::Worm(TaskId::CdColor)]) });
        let targets: Vec<u16> = (0..24)
            .map(|j| match s.trial(Position { block: 0, trial: j }).unwrap().steps.last().unwrap().target {
                Target::Class(c) => c,
                _ => panic!(),
            })
            .collect();
        assert_eq!(targets.iter().filter(|&&c| c == 1).count(), 12);
    }

    #[test]
    fn nback_blocks_match_the_llm_shape() {
        let s = Session::new(cfg(vec![StudyTask::Nback(NbackKind::Spatial)]));
        let main = s.trial(Position { block: 1, trial: 0 }).unwrap();
        let nb = main.nback.as_ref().unwrap();
        assert_eq!((nb.n, nb.stimuli.len(), nb.conditions.matches('m').count()), (1, 30, 10));
        assert!(nb.stimuli.iter().all(|c| ("1"..="9").contains(&c.as_str()) && c.len() == 1));
        for (i, c) in nb.conditions.chars().enumerate() {
            assert_eq!(c == 'm', i >= 1 && nb.stimuli[i] == nb.stimuli[i - 1]);
        }
        assert_eq!(main.steps.len(), 30);
        assert_eq!(main.cell.set_size, Some(1));
        let practice = s.trial(Position { block: 0, trial: 0 }).unwrap();
        assert!(practice.practice);
        assert_eq!(practice.nback.unwrap().stimuli.len(), NBACK_PRACTICE_LEN);
    }

    #[test]
    fn resume_mid_session_regenerates_identical_trials() {
        let mut c =
            cfg(vec![StudyTask::Worm(TaskId::VsRec), StudyTask::Worm(TaskId::Cs), StudyTask::Nback(NbackKind::Verbal)]);
        c.nback_ns = vec![2];
        let s = Session::new(c);
        // Take 7 trials, then "reload".
        let mut first = s.clone();
        let mut n = 0;
        while n < 7 {
            let pos = first.current().unwrap();
            let t = first.trial(pos).unwrap();
            let answers = t.steps.iter().filter(|s| answerable(s)).map(|st| right_answer(t.task, st)).collect();
            first.record(TrialResult { position: pos, answers, ..Default::default() }).unwrap();
            n += 1;
        }
        let saved = first.to_json();
        let resumed = Session::from_json(&saved).unwrap();
        assert_eq!(resumed, first);
        assert_eq!(resumed.current(), first.current());
        assert_eq!(resumed.progress().0, 7);
        assert_eq!(resumed.done[..7], first.done[..7]);
        for (i, b) in resumed.blocks.iter().enumerate() {
            for j in 0..b.units.len() {
                let p = Position { block: i, trial: j };
                assert_eq!(resumed.trial(p).unwrap(), s.trial(p).unwrap());
            }
        }
        // A repeat of an earlier trial (e.g. the page re-sending it after reload) is refused, unchanged.
        let mut resumed = resumed;
        let before = resumed.clone();
        let err = resumed
            .record(TrialResult { position: Position { block: 0, trial: 0 }, ..Default::default() })
            .unwrap_err();
        assert!(matches!(err, SessionError::OutOfOrder { .. }), "{err}");
        assert_eq!(resumed, before);
        // Continue to the end from the resumed state.
        let log = run(&mut resumed, |g| g % 2 == 0);
        assert_eq!(log.first().unwrap().0, 7);
        assert!(resumed.is_finished());
        assert_eq!(resumed.progress().0, resumed.progress().1);
        assert_eq!(resumed.record(TrialResult::default()).unwrap_err(), SessionError::Finished);
        // Bad saved states.
        assert!(Session::from_json("{").is_err());
        let mut broken = first.clone();
        broken.done.pop();
        assert!(Session::from_json(&broken.to_json()).is_err());
    }

    #[test]
    fn a_study_with_consent_records_nothing_before_the_agreement_and_keeps_it_in_the_record() {
        use crate::people::study::StudyText;
        let c = StudyConfig {
            consent: Some(StudyText::Text("I agree.".into())),
            ..cfg(vec![StudyTask::Worm(TaskId::Vir)])
        };
        let mut s = Session::new(c);
        assert!(s.needs_consent());
        let pos = s.current().unwrap();
        let t = s.trial(pos).unwrap();
        let answers: Vec<Answer> =
            t.steps.iter().filter(|s| answerable(s)).map(|st| right_answer(t.task, st)).collect();
        let res = TrialResult { position: pos, answers, ..Default::default() };
        let e = s.record(res.clone()).unwrap_err();
        assert!(e.to_string().contains("consent"), "{e}");
        s.agree("2026-11-25T10:00:00Z", "I agree.");
        assert!(!s.needs_consent());
        s.record(res).unwrap();
        // Saved and resumed with the agreement; the record says when and to which text.
        let back = Session::from_json(&s.to_json()).unwrap();
        assert_eq!(back.consent, s.consent);
        let r = s.to_record(None);
        let text = |k: &str| match r.config.settings.get(k) {
            Some(Setting::Text(t)) => t.clone(),
            other => panic!("{k}: {other:?}"),
        };
        assert_eq!(text("consent_agreed_at"), "2026-11-25T10:00:00Z");
        let mut h = crate::hash::Fnv64::default();
        h.write(b"I agree.");
        assert_eq!(text("consent_text_fnv64"), format!("{:016x}", h.finish()));
        // A study without consent text needs none.
        assert!(!Session::new(cfg(vec![StudyTask::Worm(TaskId::Vir)])).needs_consent());
    }

    #[test]
    fn out_of_order_and_malformed_results_are_rejected() {
        let mut s = Session::new(cfg(vec![StudyTask::Worm(TaskId::Vsr)]));
        let pos = s.current().unwrap();
        let skip = Position { block: pos.block, trial: pos.trial + 1 };
        assert!(matches!(
            s.record(TrialResult { position: skip, ..Default::default() }),
            Err(SessionError::OutOfOrder { .. })
        ));
        assert!(matches!(
            s.record(TrialResult { position: pos, answers: vec![], ..Default::default() }),
            Err(SessionError::BadResult(_))
        ));
        let t = s.trial(pos).unwrap();
        let answers: Vec<Answer> =
            t.steps.iter().filter(|s| answerable(s)).map(|st| right_answer(t.task, st)).collect();
        let bad_rt = TrialResult {
            position: pos,
            answers: answers.clone(),
            rt_ms: vec![Some(-5.0); answers.len()],
            ..Default::default()
        };
        assert!(matches!(s.record(bad_rt), Err(SessionError::BadResult(_))));
        let short_rt =
            TrialResult { position: pos, answers: answers.clone(), rt_ms: vec![Some(5.0)], ..Default::default() };
        if answers.len() != 1 {
            assert!(matches!(s.record(short_rt), Err(SessionError::BadResult(_))));
        }
        assert_eq!(s.progress().0, 0);
        let out = s.record(TrialResult { position: pos, answers, ..Default::default() }).unwrap();
        assert!(out.practice && out.correct.iter().all(|&c| c));
        assert_eq!(s.progress().0, 1);
        assert!(s.trial(Position { block: 9, trial: 0 }).is_err());
    }

    #[test]
    fn scripted_participant_completes_every_task() {
        let mut c = cfg(StudyTask::all());
        c.participant = Some("bot-1".into());
        c.practice_trials = 2;
        c.nback_ns = vec![1, 2];
        let mut s = Session::new(c);
        s.set_refresh(1000.0 / 60.0);
        let (_, total) = s.progress();
        let right = |g: usize| g % 3 != 1;
        let log = run(&mut s, right);
        assert!(s.is_finished());
        assert_eq!(log.len(), total);
        let rec = s.to_record(None);
        rec.validate().unwrap();
        assert_eq!(rec.subject, Subject::Person { id: "bot-1".into() });
        assert_eq!(rec.trials.len(), total, "one row per trial");
        for (row, (g, ok)) in rec.trials.iter().zip(&log) {
            assert_eq!(row.trial as usize, *g);
            assert!(!row.correct.is_empty() && row.targets.len() == row.correct.len(), "{}", row.task);
            if row.task == "SFR" {
                assert_eq!(row.correct.iter().all(|&c| c), *ok);
                assert_eq!(row.extra.get("sfr_exact"), Some(&Setting::Bool(*ok)));
            } else {
                assert!(row.correct.iter().all(|&c| c == *ok), "{} {row:?}", row.task);
                let resp: Vec<&String> = row.responses.iter().collect();
                if *ok {
                    assert_eq!(resp, row.targets.iter().collect::<Vec<_>>(), "{}", row.task);
                }
            }
            assert!(matches!(row.extra.get("frame_err_max_ms"), Some(Setting::Num(x)) if (x - 0.2).abs() < 1e-9));
            assert!(row.extra.contains_key("block_kind"));
        }
        // Practice rows: 2 per WorM task and LSR, one block per N-back level and kind.
        let practice =
            rec.trials.iter().filter(|r| r.extra.get("block_kind") == Some(&Setting::Text("practice".into()))).count();
        assert_eq!(practice, 15 * 2 + 2 * 2);
        // Summaries: one accuracy per condition cell of every WorM task, SDT measures per N-back level.
        for id in TaskId::EVERY {
            let k = TaskSpec::new(id).grid().len();
            let sums: Vec<&Summary> = rec.summaries.iter().filter(|x| x.task == id.as_str()).collect();
            assert_eq!(sums.len(), k, "{id}");
            assert!(sums.iter().all(|x| x.metric == "accuracy" && x.n == 1));
            // Each cell's value is the score of its one main row.
            for x in sums {
                let row = s
                    .done
                    .iter()
                    .find(|d| !d.practice && d.task == StudyTask::Worm(id) && d.cell == x.conditions)
                    .unwrap();
                assert!((row.row.score() - x.value).abs() < 1e-12);
            }
        }
        for kind in ["nback-verbal", "nback-spatial"] {
            let sums: Vec<&Summary> = rec.summaries.iter().filter(|x| x.task == kind).collect();
            assert_eq!(sums.len(), 2 * 5, "{kind}");
            for n in [1u8, 2] {
                let acc = sums.iter().find(|x| x.metric == "accuracy" && x.conditions.set_size == Some(n)).unwrap();
                let hr = sums.iter().find(|x| x.metric == "hit_rate" && x.conditions.set_size == Some(n)).unwrap();
                let dp = sums.iter().find(|x| x.metric == "dprime" && x.conditions.set_size == Some(n)).unwrap();
                let ok = right(
                    rec.trials
                        .iter()
                        .find(|r| {
                            r.task == kind
                                && r.conditions.set_size == Some(n)
                                && r.extra.get("block_kind") == Some(&Setting::Text("main".into()))
                        })
                        .unwrap()
                        .trial as usize,
                );
                let expect = if ok { (1.0, 1.0) } else { (0.0, 0.0) };
                assert_eq!((acc.value, hr.value), expect, "{kind} N={n}");
                assert!(if ok { dp.value > 4.0 } else { dp.value < -4.0 });
            }
        }
        // Export: CSV one line per trial with timing columns; JSON round trip.
        let csv = rec.to_csv().unwrap();
        assert_eq!(csv.lines().count(), total + 1);
        assert!(csv.lines().next().unwrap().contains("frame_err_median_ms"));
        // (serde_json without `float_roundtrip` may move a parsed f64 by one ulp: compare with a tolerance.)
        let back = ResultRecord::from_json(&rec.to_json().unwrap()).unwrap();
        assert_eq!(back.trials.len(), rec.trials.len());
        let close = |a: &Setting, b: &Setting| match (a, b) {
            (Setting::Num(x), Setting::Num(y)) => (x - y).abs() <= 1e-9 * x.abs().max(1.0),
            _ => a == b,
        };
        for (a, b) in back.trials.iter().zip(&rec.trials) {
            assert_eq!(
                (&a.task, a.trial, &a.conditions, &a.targets, &a.responses, &a.correct, &a.rt_ms),
                (&b.task, b.trial, &b.conditions, &b.targets, &b.responses, &b.correct, &b.rt_ms)
            );
            assert!(
                a.extra.len() == b.extra.len()
                    && a.extra.iter().zip(&b.extra).all(|((ka, va), (kb, vb))| ka == kb && close(va, vb))
            );
        }
        assert_eq!(back.summaries.len(), rec.summaries.len());
        for (a, b) in back.summaries.iter().zip(&rec.summaries) {
            assert!(
                a.task == b.task
                    && a.conditions == b.conditions
                    && a.metric == b.metric
                    && (a.value - b.value).abs() < 1e-12
            );
        }
        assert!(matches!(rec.config.settings.get("frame_within_one_fraction"), Some(Setting::Num(x)) if *x == 1.0));
        assert_eq!(rec.config.tasks.len(), 15);
        // Person and human curves share panel and label names (VSR: list_length=3..6 on panel VSR).
        let person = crate::people::subject_curves(&rec, StudyTask::Worm(TaskId::Vsr));
        for h in crate::people::human_curves(StudyTask::Worm(TaskId::Vsr)) {
            assert!(
                person.iter().any(|p| p.panel == h.panel && p.label == h.label && p.x_name == h.x_name),
                "{}",
                h.label
            );
        }
        // Curves for the results page exist for every task.
        for t in StudyTask::all() {
            assert!(!crate::people::subject_curves(&rec, t).is_empty(), "{t}");
        }
    }

    #[test]
    fn blur_and_focus_are_counted() {
        let ev = |kind, t_ms| PageEvent { kind, t_ms };
        let (n, ms) = unfocused(&[
            ev(PageEventKind::Blur, 100.0),
            ev(PageEventKind::Hidden, 120.0),
            ev(PageEventKind::Visible, 900.0),
            ev(PageEventKind::Focus, 910.0),
            ev(PageEventKind::Blur, 2000.0),
            ev(PageEventKind::Focus, 2500.0),
        ]);
        assert_eq!((n, ms), (2, 1300.0));
    }
}

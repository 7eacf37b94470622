//! Adaptive testing (issue 48, item 3): a weighted up-down staircase (Kaernbach 1991) on a task's
//! difficulty level (CD's set size, the recall tasks' list length, N-back's N) that converges on the
//! level a subject answers right with a target probability `p`. After a right answer the level rises
//! by `step·(1 − p)`, after a wrong one it falls by `step·p`: at the level where the subject is right
//! with probability `p` the expected move is `p·step·(1 − p) − (1 − p)·step·p = 0`. The level runs
//! continuously; the trial shows it rounded to a whole level within the bounds.
//!
//! The procedure is a pure function of its settings and the answers given, so a run is reproducible
//! from the seed of its trials and its responses, and it is the same for a person, a network and a
//! language model. The estimate is the mean level at the reversals (a right answer after a wrong one,
//! or the other way round) after the first few, with a t interval over them (reversal levels are
//! correlated, so the interval is a rough one; a native test checks its coverage on simulated
//! observers of known capacity).

use serde::{Deserialize, Serialize};

/// A staircase's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StaircaseConfig {
    /// The accuracy the staircase converges on, strictly between 0 and 1 (0.75 for a two-choice task
    /// such as CD is halfway between chance and perfect).
    pub target: f64,
    /// The first level.
    pub start: f64,
    /// The step: a right answer raises the level by `step·(1 − target)`, a wrong one lowers it by
    /// `step·target`.
    pub step: f64,
    /// The lowest and highest whole level shown.
    pub min: u32,
    /// The highest whole level shown (the level itself may run half a level beyond either bound).
    pub max: u32,
    /// Reversals discarded from the estimate (the approach from the start).
    pub discard: usize,
    /// The run ends after this many reversals, or after `max_trials` trials, whichever comes first.
    pub reversals: usize,
    /// The most trials (N-back: blocks) the run takes, if it has not reached `reversals` before.
    pub max_trials: usize,
}

impl StaircaseConfig {
    /// A staircase for CD's set size (1–12) converging on 75 % right: steps of 4 (up 1 after a right
    /// answer, down 3 after a wrong one).
    pub fn cd_set_size() -> StaircaseConfig {
        StaircaseConfig {
            target: 0.75,
            start: 2.0,
            step: 4.0,
            min: 1,
            max: 12,
            discard: 2,
            reversals: 14,
            max_trials: 120,
        }
    }

    /// Whether a staircase can run with these settings: the target strictly between 0 and 1, a positive
    /// finite step, `min ≤ max` with a finite start, and more reversals than are discarded.
    pub fn check(&self) -> Result<(), StaircaseError> {
        if !(self.target > 0.0 && self.target < 1.0) {
            return Err(StaircaseError::Target(self.target));
        }
        if !(self.step.is_finite() && self.step > 0.0) {
            return Err(StaircaseError::Step(self.step));
        }
        if self.min > self.max || !self.start.is_finite() {
            return Err(StaircaseError::Bounds { min: self.min, max: self.max });
        }
        if self.reversals <= self.discard || self.max_trials == 0 {
            return Err(StaircaseError::Length { reversals: self.reversals, discard: self.discard });
        }
        Ok(())
    }
}

/// Settings a staircase cannot run with.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum StaircaseError {
    /// The target accuracy given is not strictly between 0 and 1.
    #[error("the target accuracy must lie strictly between 0 and 1, not {0}")]
    Target(f64),
    /// The step given is zero, negative or not finite.
    #[error("the step must be a positive number, not {0}")]
    Step(f64),
    /// The lowest whole level is above the highest, or the start level is not finite.
    #[error("the lowest level {min} is above the highest {max}, or the start is not a number")]
    Bounds {
        /// The lowest whole level given ([`StaircaseConfig::min`]).
        min: u32,
        /// The highest whole level given ([`StaircaseConfig::max`]).
        max: u32,
    },
    /// The run would end before it kept any reversal for the estimate, or after no trial at all.
    #[error(
        "the run must stop after more reversals ({reversals}) than it discards ({discard}), and after at least one trial"
    )]
    Length {
        /// Reversals after which the run ends ([`StaircaseConfig::reversals`]).
        reversals: usize,
        /// Reversals left out of the estimate ([`StaircaseConfig::discard`]).
        discard: usize,
    },
}

crate::message_into_string!(StaircaseError);

/// One trial of the track: the level shown and whether the answer was right.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// The whole level the trial showed (the continuous level rounded and kept within the bounds).
    pub level: u32,
    /// Whether the trial counted as right ([`LevelKind::passed`]: a list recalled whole, a block passed).
    pub correct: bool,
}

/// The estimate: the mean level at the reversals kept, and a 95 % t interval over them.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// The mean continuous level at the reversals kept: the estimated level answered right with the target
    /// probability.
    pub level: f64,
    /// The lower end of the 95 % t interval on `level`.
    pub low: f64,
    /// The upper end of the 95 % t interval on `level`.
    pub high: f64,
    /// Reversals averaged.
    pub reversals: usize,
}

/// A running staircase: ask [`Staircase::next_level`], show a trial at it, tell it the answer with
/// [`Staircase::record`], until it is done.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Staircase {
    config: StaircaseConfig,
    /// The continuous level (what the next trial shows, rounded and bounded).
    level: f64,
    track: Vec<Step>,
    /// The continuous level at each reversal.
    reversal_levels: Vec<f64>,
}

impl Staircase {
    /// A staircase at `config`'s start level (kept within its bounds), with no trials yet; an error when
    /// [`StaircaseConfig::check`] rejects the settings.
    pub fn new(config: StaircaseConfig) -> Result<Staircase, StaircaseError> {
        config.check()?;
        let level = config.start.clamp(config.min as f64, config.max as f64);
        Ok(Staircase { config, level, track: Vec::new(), reversal_levels: Vec::new() })
    }

    /// The settings the staircase runs with.
    pub fn config(&self) -> &StaircaseConfig {
        &self.config
    }

    /// The trials so far.
    pub fn track(&self) -> &[Step] {
        &self.track
    }

    /// Whether the run has ended (enough reversals, or the trial limit).
    pub fn done(&self) -> bool {
        self.reversal_levels.len() >= self.config.reversals || self.track.len() >= self.config.max_trials
    }

    /// The whole level the next trial shows, or `None` once the run has ended.
    pub fn next_level(&self) -> Option<u32> {
        (!self.done()).then(|| self.shown())
    }

    fn shown(&self) -> u32 {
        (self.level.round().clamp(self.config.min as f64, self.config.max as f64)) as u32
    }

    /// The answer to the trial at [`Staircase::next_level`]. Ignored once the run has ended.
    pub fn record(&mut self, correct: bool) {
        if self.done() {
            return;
        }
        let level = self.shown();
        if self.track.last().is_some_and(|last| last.correct != correct) {
            self.reversal_levels.push(self.level);
        }
        self.track.push(Step { level, correct });
        let c = &self.config;
        let moved = if correct { self.level + c.step * (1.0 - c.target) } else { self.level - c.step * c.target };
        // Bounded a half-level beyond the levels shown, so the level cannot wander off where no answer
        // can move it back within a few trials.
        self.level = moved.clamp(c.min as f64 - 0.5, c.max as f64 + 0.5);
    }

    /// The estimate from the reversals after the discarded ones, once there are at least two of them.
    pub fn estimate(&self) -> Option<Estimate> {
        let kept = self.reversal_levels.get(self.config.discard..).filter(|k| k.len() >= 2)?;
        let level = crate::stats::mean(kept);
        let (low, high) = crate::stats::ci_mean(kept, 0.95).ok()?;
        Some(Estimate { level, low, high, reversals: kept.len() })
    }
}

/// Where adaptive trials' indices start in their task's stream, apart from the fixed grid's trials
/// (a test run's `0..n`).
pub const ADAPTIVE_BASE: u64 = 1 << 40;

/// The condition a staircase moves: change detection's set size, or a recall task's list length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LevelKind {
    /// Change detection's set size: the number of items in the display (the CD tasks).
    SetSize,
    /// A recall task's list length: the number of items to remember (VSR, VSRec, LSR).
    ListLength,
    /// N-back's N: one staircase step per block ([`nback_passed`]).
    #[serde(rename = "n_back")]
    NbackN,
}

impl LevelKind {
    /// The level a task's staircase moves; `None` for tasks without one.
    pub fn of(id: crate::task::TaskId) -> Option<LevelKind> {
        use crate::task::TaskId;
        match id {
            TaskId::CdColor | TaskId::CdOrientation | TaskId::CdSize | TaskId::CdGap | TaskId::CdConjunction => {
                Some(LevelKind::SetSize)
            }
            TaskId::Vsr | TaskId::VsRec | TaskId::Lsr => Some(LevelKind::ListLength),
            _ => None,
        }
    }

    /// "set size", "list length".
    pub fn name(self) -> &'static str {
        match self {
            LevelKind::SetSize => "set size",
            LevelKind::ListLength => "list length",
            LevelKind::NbackN => "N",
        }
    }

    /// How one trial (an N-back block) of a staircase on this level counts: a WorM trial when every
    /// scored answer is right ([`trial_correct`]), an N-back block when it passed ([`nback_passed`]).
    pub fn passed(self, correct: &[bool]) -> bool {
        match self {
            LevelKind::NbackN => nback_passed(correct),
            LevelKind::SetSize | LevelKind::ListLength => trial_correct(correct),
        }
    }

    /// The level of a trial's conditions.
    pub fn get(self, c: &crate::task::Conditions) -> Option<u8> {
        match self {
            // An N-back row keeps its N as the set size (the people's and the LLMs' summaries' cell).
            LevelKind::SetSize | LevelKind::NbackN => c.set_size,
            LevelKind::ListLength => c.list_length,
        }
    }

    fn set(self, c: &mut crate::task::Conditions, v: Option<u8>) {
        match self {
            LevelKind::SetSize | LevelKind::NbackN => c.set_size = v,
            LevelKind::ListLength => c.list_length = v,
        }
    }
}

impl StaircaseConfig {
    /// The staircase a task runs with: CD's set size as [`StaircaseConfig::cd_set_size`]; a recall
    /// task's list length one up after a list recalled whole and one down after any error (converging
    /// on 50 % of lists recalled whole: the span's 50 % point), from its shortest list to its longest.
    pub fn for_task(spec: &crate::task::TaskSpec) -> Option<StaircaseConfig> {
        match LevelKind::of(spec.id)? {
            LevelKind::SetSize => Some(StaircaseConfig::cd_set_size()),
            LevelKind::NbackN => None,
            LevelKind::ListLength => {
                let lengths: Vec<u8> = spec.grid().iter().filter_map(|c| c.list_length).collect();
                let (min, max) = (*lengths.iter().min()? as u32, *lengths.iter().max()? as u32);
                Some(StaircaseConfig {
                    target: 0.5,
                    start: min as f64,
                    step: 2.0,
                    min,
                    max,
                    discard: 2,
                    reversals: 10,
                    max_trials: 60,
                })
            }
        }
    }
}

impl StaircaseConfig {
    /// N-back's N: one step per block, up one after a block passed ([`nback_passed`]) and down one
    /// after a block failed (converging on the N passed half the time), from 1-back, N from 1 to 5; the
    /// run ends after 6 reversals (the first discarded) or 12 blocks.
    pub fn nback() -> StaircaseConfig {
        StaircaseConfig { target: 0.5, start: 1.0, step: 2.0, min: 1, max: 5, discard: 1, reversals: 6, max_trials: 12 }
    }
}

/// The share of an N-back block's answers that must be right for the block to count as passed (at
/// most 6 errors in 30 trials: pressing nothing at all scores 20 of 30, two thirds).
pub const NBACK_PASS: f64 = 0.8;

/// Whether an N-back block passed: at least [`NBACK_PASS`] of its answers right.
pub fn nback_passed(correct: &[bool]) -> bool {
    !correct.is_empty() && nback_accuracy_passes(correct.iter().filter(|&&c| c).count() as f64 / correct.len() as f64)
}

/// Whether a block's accuracy passes ([`NBACK_PASS`]).
pub fn nback_accuracy_passes(accuracy: f64) -> bool {
    accuracy >= NBACK_PASS - 1e-12
}

/// Whether a trial counts as right for a staircase: every scored answer right (a list recalled whole).
pub fn trial_correct(correct: &[bool]) -> bool {
    !correct.is_empty() && correct.iter().all(|&c| c)
}

/// The grid's cells of `spec` with the level left out, each once, in the grid's order (`None` when the
/// task has no level, or a cell lacks it).
fn other_conditions(spec: &crate::task::TaskSpec, kind: LevelKind) -> Option<Vec<crate::task::Conditions>> {
    let mut others: Vec<crate::task::Conditions> = Vec::new();
    for mut c in spec.grid() {
        kind.get(&c)?;
        kind.set(&mut c, None);
        if !others.contains(&c) {
            others.push(c);
        }
    }
    (!others.is_empty()).then_some(others)
}

/// The staircase trial `index` (from [`ADAPTIVE_BASE`]) of `spec` at `level`: its condition cell and
/// the trial. The `i`-th trial of a staircase takes the task's other conditions in turn (CD: its
/// retentions; VSRec: its pattern differences) and draws what is left (CD: change or not) from its own
/// seed, so it is the same trial whoever regenerates it (a network taking a person's staircase trials).
pub fn staircase_trial(
    spec: &crate::task::TaskSpec,
    seed: u64,
    split: crate::rng::Split,
    index: u64,
    level: u32,
) -> Option<(crate::task::Conditions, crate::task::Trial)> {
    let kind = LevelKind::of(spec.id)?;
    let others = other_conditions(spec, kind)?;
    let i = index.checked_sub(ADAPTIVE_BASE)?;
    let mut cell = others[(i % others.len() as u64) as usize].clone();
    kind.set(&mut cell, Some(level.min(u8::MAX as u32) as u8));
    let mut rng = crate::rng::Rng::from_key(crate::rng::trial_seed(seed, spec.id.ordinal(), split, index));
    let flip = rng.index(2) == 1;
    let trial = spec.trial_in(&cell, &mut rng, flip);
    Some((cell, trial))
}

/// A staircase on a task's level ([`LevelKind`]) with the task's own trials ([`staircase_trial`]).
/// Reproducible from `seed` and the answers.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskStaircase {
    spec: crate::task::TaskSpec,
    kind: LevelKind,
    seed: u64,
    split: crate::rng::Split,
    staircase: Staircase,
}

impl TaskStaircase {
    /// `None` when `spec`'s task has no level to move.
    pub fn new(
        spec: crate::task::TaskSpec,
        seed: u64,
        split: crate::rng::Split,
        config: StaircaseConfig,
    ) -> Option<Result<TaskStaircase, StaircaseError>> {
        let kind = LevelKind::of(spec.id)?;
        other_conditions(&spec, kind)?;
        Some(Staircase::new(config).map(|staircase| TaskStaircase { spec, kind, seed, split, staircase }))
    }

    /// The level the staircase moves (set size or list length, from the task).
    pub fn kind(&self) -> LevelKind {
        self.kind
    }

    /// The next trial (its index in the task's stream, its condition cell and the trial), or `None` once
    /// the run has ended.
    pub fn next_trial(&self) -> Option<(u64, crate::task::Conditions, crate::task::Trial)> {
        let level = self.staircase.next_level()?;
        let index = ADAPTIVE_BASE + self.staircase.track().len() as u64;
        let (cell, trial) = staircase_trial(&self.spec, self.seed, self.split, index, level)?;
        Some((index, cell, trial))
    }

    /// The answer to [`TaskStaircase::next_trial`]'s trial.
    pub fn record(&mut self, correct: bool) {
        self.staircase.record(correct)
    }

    /// The underlying staircase: its track so far and its estimate.
    pub fn staircase(&self) -> &Staircase {
        &self.staircase
    }

    /// What a record keeps of the run.
    pub fn result(&self) -> StaircaseResult {
        StaircaseResult::of(self.spec.id.as_str(), self.kind, &self.staircase)
    }
}

/// A staircase run as a record keeps it (setting `staircase_<TASK>`, JSON): the task, the level it
/// moved, its settings, the track and the estimate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StaircaseResult {
    /// The task's name as records write it (`CD-Color`, `LSR`, `nback-verbal`; a language model's N-back
    /// run: its condition slug); the setting's key is `staircase_` and this name.
    pub task: String,
    /// The level the staircase moved.
    pub kind: LevelKind,
    /// The settings the staircase ran with.
    pub config: StaircaseConfig,
    /// Every trial (N-back: block) of the run in order: the level shown and whether it counted as right.
    pub track: Vec<Step>,
    /// The estimate from the reversals kept; `None` while fewer than two reversals are past the discarded
    /// ones, and when the run sat at an end of its range ([`StaircaseResult::bound`]).
    pub estimate: Option<Estimate>,
    /// Where the subject is beyond the range the staircase can show: then there is no level to report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bound: Option<Bound>,
}

/// A run that sat at an end of its range: its reversals there average to a level the subject never
/// reached (a network right on 6 of 20 lists of the shortest length "converged" on 2.06 [1.54, 2.58]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "side")]
pub enum Bound {
    /// Right on fewer than the target share of its trials at the lowest level: below it.
    BelowLowest {
        /// The lowest level.
        level: u32,
        /// Trials right there.
        right: usize,
        /// Trials there.
        trials: usize,
    },
    /// Right on more than the target share of its trials at the highest level: above it.
    AboveHighest {
        /// The highest level.
        level: u32,
        /// Trials right there.
        right: usize,
        /// Trials there.
        trials: usize,
    },
}

/// Trials at an end of the range before a share there decides a [`Bound`].
const BOUND_TRIALS: usize = 3;

impl Staircase {
    /// Whether the run sat at an end of its range (see [`Bound`]): at least 3 trials at the lowest level
    /// and under the target share right there, or at the highest and over it.
    pub fn bound(&self) -> Option<Bound> {
        let at = |level: u32| {
            let t: Vec<&Step> = self.track.iter().filter(|s| s.level == level).collect();
            (t.iter().filter(|s| s.correct).count(), t.len())
        };
        let target = self.config.target;
        let (right, trials) = at(self.config.min);
        if trials >= BOUND_TRIALS && (right as f64) < target * trials as f64 {
            return Some(Bound::BelowLowest { level: self.config.min, right, trials });
        }
        let (right, trials) = at(self.config.max);
        if trials >= BOUND_TRIALS && (right as f64) > target * trials as f64 {
            return Some(Bound::AboveHighest { level: self.config.max, right, trials });
        }
        None
    }
}

const SETTING_PREFIX: &str = "staircase_";

impl StaircaseResult {
    /// What a record keeps of `staircase`, run on `task`'s `kind` of level.
    pub fn of(task: &str, kind: LevelKind, staircase: &Staircase) -> StaircaseResult {
        let bound = staircase.bound();
        StaircaseResult {
            task: task.to_string(),
            kind,
            config: staircase.config().clone(),
            track: staircase.track().to_vec(),
            estimate: if bound.is_some() { None } else { staircase.estimate() },
            bound,
        }
    }

    /// Into a record's settings.
    pub fn write_into(&self, settings: &mut std::collections::BTreeMap<String, crate::record::Setting>) {
        if let Ok(json) = serde_json::to_string(self) {
            settings.insert(format!("{SETTING_PREFIX}{}", self.task), crate::record::Setting::Text(json));
        }
    }

    /// What the run converges on: "set size at 75 % right", "list length at 50 % of lists recalled
    /// whole", "N at 50 % of blocks passed (≥ 80 % right)".
    pub fn criterion(&self) -> String {
        let t = self.config.target * 100.0;
        match self.kind {
            LevelKind::SetSize => format!("set size at {t:.0} % right"),
            LevelKind::ListLength => format!("list length at {t:.0} % of lists recalled whole"),
            LevelKind::NbackN => {
                format!("N at {t:.0} % of blocks passed (≥ {:.0} % right)", NBACK_PASS * 100.0)
            }
        }
    }

    /// "set size at 75 % right: 4.25 [3.80, 4.70] (12 reversals, 31 trials)".
    pub fn describe(&self) -> String {
        let what = self.criterion();
        let name = self.kind.name();
        match self.bound {
            Some(Bound::BelowLowest { level, right, trials }) => {
                return format!(
                    "{what}: below the lowest {name}, {level} ({right} of {trials} right there; no level to report)"
                );
            }
            Some(Bound::AboveHighest { level, right, trials }) => {
                return format!(
                    "{what}: above the highest {name}, {level} ({right} of {trials} right there; at the ceiling)"
                );
            }
            None => {}
        }
        match &self.estimate {
            Some(e) => format!(
                "{what}: {:.2} [{:.2}, {:.2}] ({} reversals, {} trials)",
                e.level,
                e.low,
                e.high,
                e.reversals,
                self.track.len()
            ),
            None => format!("{what}: no estimate yet ({} trials, too few reversals)", self.track.len()),
        }
    }
}

/// The staircase runs a record keeps, by task name.
pub fn results_of(record: &crate::record::ResultRecord) -> Vec<StaircaseResult> {
    record
        .config
        .settings
        .iter()
        .filter(|(k, _)| k.starts_with(SETTING_PREFIX))
        .filter_map(|(_, v)| match v {
            crate::record::Setting::Text(t) => serde_json::from_str(t).ok(),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn the_level_moves_by_the_weighted_steps_and_reversals_are_counted() {
        let mut s = Staircase::new(StaircaseConfig::cd_set_size()).unwrap();
        // Right: up 1 each; wrong: down 3.
        let answers = [true, true, true, false, true, false, false, true];
        let mut shown = Vec::new();
        for a in answers {
            shown.push(s.next_level().unwrap());
            s.record(a);
        }
        assert_eq!(shown, [2, 3, 4, 5, 2, 3, 1, 1]);
        // Reversals at the 4th, 5th, 6th and 8th answers, at the continuous level then; the 7th wrong
        // answer took the level to −3, bounded at half a level below the lowest shown (0.5).
        assert_eq!(s.reversal_levels, [5.0, 2.0, 3.0, 0.5]);
        assert_eq!(s.level, 1.5);
        let e = s.estimate().unwrap();
        assert_eq!(e.reversals, 2);
        assert!((e.level - 1.75).abs() < 1e-12);
        assert!(e.low < e.level && e.level < e.high);
    }

    #[test]
    fn a_run_ends_after_its_reversals_or_its_trials_and_ignores_later_answers() {
        let config = StaircaseConfig { reversals: 3, discard: 0, max_trials: 50, ..StaircaseConfig::cd_set_size() };
        let mut s = Staircase::new(config.clone()).unwrap();
        for a in [true, false, true, false] {
            s.record(a);
        }
        assert!(s.done());
        assert_eq!(s.next_level(), None);
        s.record(true);
        assert_eq!(s.track().len(), 4);
        let mut s = Staircase::new(StaircaseConfig { max_trials: 5, ..config }).unwrap();
        for _ in 0..9 {
            s.record(true);
        }
        assert_eq!(s.track().len(), 5);
        assert_eq!(s.track().last().unwrap().level, 6);
        assert_eq!(s.estimate(), None, "no reversal: no estimate");
    }

    #[test]
    fn a_run_at_an_end_of_its_range_reports_no_level() {
        // A list-length staircase (lists of 2–9, half recalled whole) for a subject who recalls 3 in 10
        // lists of 2 and no longer one.
        let config = StaircaseConfig {
            target: 0.5,
            start: 2.0,
            step: 2.0,
            min: 2,
            max: 9,
            discard: 0,
            reversals: 40,
            max_trials: 40,
        };
        let mut s = Staircase::new(config).unwrap();
        let mut k = 0;
        while let Some(level) = s.next_level() {
            s.record(level == 2 && k % 10 < 3);
            k += 1;
        }
        assert!(s.estimate().is_some(), "the reversals alone would give a level");
        let at2: Vec<&Step> = s.track().iter().filter(|t| t.level == 2).collect();
        let (right, trials) = (at2.iter().filter(|t| t.correct).count(), at2.len());
        assert!(trials >= 3 && 2 * right < trials, "{right} of {trials}");
        let r = StaircaseResult::of("VSR", LevelKind::ListLength, &s);
        assert_eq!(r.bound, Some(Bound::BelowLowest { level: 2, right, trials }));
        assert_eq!(r.estimate, None);
        let want = format!("below the lowest list length, 2 ({right} of {trials} right there");
        assert!(r.describe().contains(&want), "{}", r.describe());
        // Right every time at the top: above the highest.
        let mut s = Staircase::new(StaircaseConfig { max_trials: 30, ..StaircaseConfig::cd_set_size() }).unwrap();
        while s.next_level().is_some() {
            s.record(true);
        }
        assert!(matches!(s.bound(), Some(Bound::AboveHighest { .. })));
        // A run that turns inside its range has no bound.
        let mut s = Staircase::new(StaircaseConfig::cd_set_size()).unwrap();
        for a in [true, true, true, false, true, false, true, true, false] {
            s.record(a);
        }
        assert_eq!(s.bound(), None);
    }

    #[test]
    fn settings_it_cannot_run_with_are_refused_in_words() {
        let base = StaircaseConfig::cd_set_size();
        for (bad, words) in [
            (StaircaseConfig { target: 1.0, ..base.clone() }, "strictly between 0 and 1"),
            (StaircaseConfig { step: 0.0, ..base.clone() }, "positive"),
            (StaircaseConfig { min: 5, max: 4, ..base.clone() }, "above the highest"),
            (StaircaseConfig { discard: 14, ..base.clone() }, "more reversals"),
        ] {
            let e = Staircase::new(bad).unwrap_err();
            assert!(e.to_string().contains(words), "{e}");
        }
    }

    /// A change-detection observer of capacity `k` (Cowan's model, guessing at one half when the probed
    /// item is not held): right with probability `½ + ½·min(1, k/n)` at set size `n`. At 75 % right the
    /// set size is `2k`, so `k = n·(2·0.75 − 1)`.
    fn cowan_observer(k: f64, n: u32, rng: &mut Rng) -> bool {
        let p = 0.5 + 0.5 * (k / n as f64).min(1.0);
        rng.unit_f64() < p
    }

    #[test]
    fn simulated_observers_of_known_capacity_are_recovered() {
        // Capacities whose 75 % set size (2K) lies well inside CD's 1–12: near the top the shallow side
        // of the observer's function (above 2K) pulls the estimate down.
        for k in [1.5, 2.5, 3.5] {
            let (mut estimates, mut covered, runs) = (Vec::new(), 0, 200);
            for seed in 0..runs {
                let mut rng = Rng::from_u64(1_000 * k as u64 + seed);
                let mut s = Staircase::new(StaircaseConfig::cd_set_size()).unwrap();
                while let Some(n) = s.next_level() {
                    s.record(cowan_observer(k, n, &mut rng));
                }
                let e = s.estimate().expect("14 reversals give an estimate");
                let k_hat = |level: f64| level * (2.0 * 0.75 - 1.0);
                estimates.push(k_hat(e.level));
                covered += (k_hat(e.low) <= k && k <= k_hat(e.high)) as usize;
            }
            estimates.sort_by(f64::total_cmp);
            let median = estimates[runs as usize / 2];
            assert!((median - k).abs() <= 0.35, "K {k}: median estimate {median}");
            let spread = estimates[runs as usize * 9 / 10] - estimates[runs as usize / 10];
            assert!(spread < 2.0, "K {k}: 10–90 % of the estimates span {spread}");
            assert!(covered * 100 >= runs as usize * 60, "K {k}: the interval covered K in {covered} of {runs} runs");
        }
    }

    /// CD trials at the staircase's level: the set size shown is the level, retentions cycle, changes
    /// come about half the time; a simulated observer who holds 4 items (right when the set fits,
    /// else guessing) leads to an estimate near the size where it is right 75 % of the time.
    #[test]
    fn a_cd_staircase_shows_its_level_and_finds_an_observers_capacity() {
        use crate::task::{TaskId, TaskSpec};
        let spec = TaskSpec::new(TaskId::CdColor);
        assert!(
            TaskStaircase::new(TaskSpec::new(TaskId::Sc), 1, crate::rng::Split::Test, StaircaseConfig::cd_set_size())
                .is_none()
        );
        let mut run =
            TaskStaircase::new(spec, 5, crate::rng::Split::Test, StaircaseConfig::cd_set_size()).unwrap().unwrap();
        let mut rng = Rng::from_key([3; 32]);
        let (mut changes, mut n) = (0, 0);
        let mut retentions = std::collections::BTreeSet::new();
        while let Some((index, _, trial)) = run.next_trial() {
            assert!(index >= ADAPTIVE_BASE);
            let level = run.staircase().next_level().unwrap();
            assert_eq!(trial.conditions.set_size, Some(level as u8));
            retentions.insert(trial.conditions.retention);
            n += 1;
            changes += trial.conditions.changed_feature.is_some() as usize;
            // Cowan's observer with K = 4: knows min(K, N)/N of the items, guesses the rest.
            let p_know = (4.0 / level as f64).min(1.0);
            let correct = rng.unit_f64() < p_know || rng.unit_f64() < 0.5;
            run.record(correct);
        }
        assert_eq!(retentions.len(), 4, "the four retentions in turn");
        assert!(changes * 4 > n && changes * 4 < 3 * n, "{changes} changes in {n} trials");
        // Right with p = K/N + (1 − K/N)/2 = 0.75 at N = 2K = 8.
        let e = run.staircase().estimate().unwrap();
        assert!((6.0..=10.0).contains(&e.level), "{e:?}");
        // The same seed gives the same first trial.
        let first = || {
            let r = TaskStaircase::new(
                TaskSpec::new(TaskId::CdColor),
                5,
                crate::rng::Split::Test,
                StaircaseConfig::cd_set_size(),
            );
            r.unwrap().unwrap().next_trial().unwrap().2.steps
        };
        assert_eq!(first(), first());
    }

    /// A recall task's staircase moves the list length one up or down; an observer who recalls lists
    /// of up to 5 items whole (and no longer ones) is placed between 5 and 6. VSRec's lists come at its
    /// pattern differences in turn; tasks without a level have no staircase.
    #[test]
    fn a_list_length_staircase_finds_the_longest_list_recalled_whole() {
        use crate::task::{TaskId, TaskSpec};
        for id in [TaskId::Vsr, TaskId::VsRec, TaskId::Lsr] {
            let spec = TaskSpec::new(id);
            let config = StaircaseConfig::for_task(&spec).unwrap();
            assert_eq!((config.min, config.max, config.target), (2, 9, 0.5), "{id}");
            let mut run = TaskStaircase::new(spec, 8, crate::rng::Split::Human, config).unwrap().unwrap();
            assert_eq!(run.kind(), LevelKind::ListLength);
            let mut differences = std::collections::BTreeSet::new();
            while let Some((_, cell, trial)) = run.next_trial() {
                let level = run.staircase().next_level().unwrap();
                assert_eq!(cell.list_length, Some(level as u8));
                assert_eq!(trial.conditions.list_length, Some(level as u8), "{id}");
                differences.insert(cell.pattern_difference);
                run.record(level <= 5);
            }
            let e = run.staircase().estimate().unwrap();
            assert!((5.0..=6.0).contains(&e.level), "{id}: {e:?}");
            assert_eq!(run.staircase().track().len(), 4 + 10, "{id}: right at 2 to 5, then a reversal each trial");
            assert_eq!(differences.len(), if id == TaskId::VsRec { 5 } else { 1 }, "{id}");
        }
        assert_eq!(StaircaseConfig::for_task(&TaskSpec::new(TaskId::CdGap)), Some(StaircaseConfig::cd_set_size()));
        assert_eq!(StaircaseConfig::for_task(&TaskSpec::new(TaskId::Sts)), None);
        assert!(
            TaskStaircase::new(TaskSpec::new(TaskId::Sts), 1, crate::rng::Split::Human, StaircaseConfig::cd_set_size())
                .is_none()
        );
        assert!(!trial_correct(&[]) && trial_correct(&[true, true]) && !trial_correct(&[true, false]));
    }
}

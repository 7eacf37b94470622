//! Participant sessions (issue "People"): the pure core of taking WorM tasks and N-back as a person.
//!
//! Nothing here does IO or reads a clock: times arrive as `f64` milliseconds (rAF timestamps,
//! `performance.now()` differences) from the edge (the web app), which also owns storage, drawing and
//! posting.
//!
//! - [`timing`]: Table A2 durations as data, ms → frames, refresh-rate estimation, frame-timing stats.
//! - [`chinrest`]: the virtual chinrest (screen scale, viewing distance) and stimuli in degrees.
//! - [`device`]: what the participant's display was (browser, device, screen, window, pointers) and
//!   who may take a study on it.
//! - [`study`]: the study link (URL query) ⇄ [`study::StudyConfig`], with plain error messages.
//! - [`presenter`]: one trial on screen, frame by frame (frame lock, response windows, N-back, recall
//!   marks, blur restarts), as a state machine the page drives with timestamps and inputs.
//! - [`session`]: the serialisable session state machine (block plan, practice, resume, records).
//! - [`score`]: scoring a person's answer per step (binary, choice, CS classes, SFR sets, N-back).
//! - [`pi`]: PI-LLM (key–value updates) for people: the built-in vocabulary, the streams (which the LLM
//!   suite draws too), the steps, and the one scorer of typed values.
//! - [`reference`](mod@reference): the WorM human reference curves and the same curves from a person's record.
//! - [`replay`]: the WorM trials of a record, regenerated for another subject to take.
//! - [`survey`]: questionnaires (the built-in demographics, a study's own JSON), checked answers.
//! - [`text`]: instruction screens for lay participants.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::task::TaskId;

pub mod chinrest;
pub mod device;
pub mod pi;
pub mod presenter;
pub mod reference;
pub mod replay;
pub mod score;
pub mod session;
pub mod study;
pub mod survey;
pub mod text;
pub mod timing;

pub use reference::{
    CD_PAPER_RETENTION, Curve, CurveOptions, cd_at_paper_retention, human_curves, subject_curves, subject_curves_with,
};
pub use score::Answer;
pub use session::{Position, RecordOutcome, Session, SessionError, SessionTrial, TrialResult};
pub use study::{BlockOrder, StudyConfig, StudyError};
pub use timing::{
    FrameTiming, StepTiming, TimingStats, estimate_refresh, frames_for, phase_ms, step_timing, timing_stats,
};

/// The kind of N-back block for people.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NbackKind {
    /// Letters (the 20 consonants of the LLM dataset).
    Verbal,
    /// A 3×3 grid, one cell lit (cells `1`–`9`).
    Spatial,
}

/// One task a study can contain: a WorM task id, an N-back kind or PI-LLM. Written as the task id (`VIR`,
/// `CD-Color`, …), `nback-verbal` / `nback-spatial` or `pi-llm` in links, records and JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StudyTask {
    /// A WorM task (the 14 jointly trained ids or LSR), run with the stimuli of [`crate::tasks`].
    Worm(TaskId),
    /// An N-back block of the given kind (letters or grid positions).
    Nback(NbackKind),
    /// PI-LLM's key–value updates ([`pi`]): streams of updates, then the last value of each key, typed.
    Pi,
}

impl StudyTask {
    /// Every task a study can name: the 14 WorM ids and LSR, the two N-back kinds, then PI-LLM.
    pub fn all() -> Vec<StudyTask> {
        let mut v: Vec<StudyTask> = TaskId::EVERY.into_iter().map(StudyTask::Worm).collect();
        v.push(StudyTask::Nback(NbackKind::Verbal));
        v.push(StudyTask::Nback(NbackKind::Spatial));
        v.push(StudyTask::Pi);
        v
    }
    /// The name written in study links, records and JSON (`VIR`, `CD-Color`, `nback-verbal`); [`StudyTask::parse`]
    /// reads it back.
    pub fn as_str(self) -> &'static str {
        match self {
            StudyTask::Worm(t) => t.as_str(),
            StudyTask::Nback(NbackKind::Verbal) => "nback-verbal",
            StudyTask::Nback(NbackKind::Spatial) => "nback-spatial",
            StudyTask::Pi => pi::TASK,
        }
    }
    /// Exact names first, then case-insensitively (`vir`, `cd-color`, `NBACK-VERBAL`).
    pub fn parse(s: &str) -> Option<StudyTask> {
        let all = StudyTask::all();
        all.iter()
            .copied()
            .find(|t| t.as_str() == s)
            .or_else(|| all.into_iter().find(|t| t.as_str().eq_ignore_ascii_case(s)))
    }
    /// The name shown to participants and in reports: the paper's experiment name for a WorM task.
    pub fn title(self) -> &'static str {
        match self {
            StudyTask::Worm(t) => t.title(),
            StudyTask::Nback(NbackKind::Verbal) => "N-back (letters)",
            StudyTask::Nback(NbackKind::Spatial) => "N-back (grid positions)",
            StudyTask::Pi => "Key–value updates (PI-LLM)",
        }
    }
    /// The WorM task id when this is a WorM task (LSR included), `None` for N-back and PI-LLM.
    pub fn worm(self) -> Option<TaskId> {
        match self {
            StudyTask::Worm(t) => Some(t),
            StudyTask::Nback(_) | StudyTask::Pi => None,
        }
    }
    /// The N-back kind when this is an N-back block, `None` for a WorM task and PI-LLM.
    pub fn nback(self) -> Option<NbackKind> {
        match self {
            StudyTask::Nback(k) => Some(k),
            StudyTask::Worm(_) | StudyTask::Pi => None,
        }
    }
    /// The level a staircase on this task moves (CD: set size; VSR, VSRec, LSR: list length; N-back:
    /// N), or `None` (PI-LLM among them).
    pub fn level_kind(self) -> Option<crate::adaptive::LevelKind> {
        match self {
            StudyTask::Worm(id) => crate::adaptive::LevelKind::of(id),
            StudyTask::Nback(_) => Some(crate::adaptive::LevelKind::NbackN),
            StudyTask::Pi => None,
        }
    }
    /// The staircase this task runs with (`spec` gives a WorM task's parameters), or `None`.
    pub fn staircase_config(
        self,
        spec: impl FnOnce(TaskId) -> crate::TaskSpec,
    ) -> Option<crate::adaptive::StaircaseConfig> {
        match self {
            StudyTask::Worm(id) => crate::adaptive::StaircaseConfig::for_task(&spec(id)),
            StudyTask::Nback(_) => Some(crate::adaptive::StaircaseConfig::nback()),
            StudyTask::Pi => None,
        }
    }
}

impl fmt::Display for StudyTask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for StudyTask {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for StudyTask {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        StudyTask::parse(&s).ok_or_else(|| serde::de::Error::custom(format!("unknown task `{s}`")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn study_task_names_round_trip() {
        let all = StudyTask::all();
        assert_eq!(all.len(), 18);
        for t in all {
            assert_eq!(StudyTask::parse(t.as_str()), Some(t));
            assert_eq!(StudyTask::parse(&t.as_str().to_lowercase()), Some(t));
            let j = serde_json::to_string(&t).unwrap();
            assert_eq!(serde_json::from_str::<StudyTask>(&j).unwrap(), t);
        }
        assert_eq!(StudyTask::parse("nback"), None);
        assert_eq!(StudyTask::parse("PI-LLM"), Some(StudyTask::Pi));
        assert_eq!(StudyTask::Pi.as_str(), "pi-llm");
    }
}

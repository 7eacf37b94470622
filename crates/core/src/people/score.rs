//! Scoring a person's answers. One [`Answer`] per answerable step (scored, with an input), in step
//! order; pure functions, no state.
//!
//! - Binary and choice steps: the answer index (0/1 for the two keys or buttons, the option index for a
//!   choice) is compared with the target class. CS answers are indices too (0/1 for the colour and
//!   symmetry judgements, the slot 0–7 for recall); they become CS classes via
//!   [`crate::tasks::cs::class_offset`] of the step's target, so responses and targets are written in
//!   the same class numbers.
//! - SFR: a set of cells. As in the paper, a trial's accuracy is |chosen ∩ target| / L; the row lists
//!   one `correct` flag per target cell (recalled or not), so the row's score is exactly that, and the
//!   exact-set match is kept separately.
//! - N-back: a "match" press is class 1 (`m`), no press or class 0 is `-`; scored with the one SDT
//!   scorer ([`crate::sdt::SdtScores`]).
//! - No answer (time-out) on a binary/choice step: incorrect, written `none`.
//! - PI-LLM (key–value updates): one typed value per key ([`Answer::Text`]), scored by
//!   [`crate::people::pi::score_values`] ([`crate::people::pi::PiTrial::score`]).

use serde::{Deserialize, Serialize};

use super::timing::answerable;
use crate::sdt::SdtScores;
use crate::task::{Response, Step, Target, TaskId};
use crate::tasks::cs::class_offset;

/// A person's answer to one step. JSON: `null` (no answer / time-out), a number (class or option index),
/// a list of cell indices (SFR), or a string (a typed value: PI-LLM).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Answer {
    /// No answer: the response window ran out, or no N-back press (JSON `null`).
    None,
    /// A class or option index: 0/1 for the two keys or buttons, the clicked area for a choice, N-back
    /// 1 = "match".
    Class(u16),
    /// The chosen cell indices of a free-recall step (SFR), in click order.
    Set(Vec<u16>),
    /// A typed value (PI-LLM: the last value of one key), as typed.
    Text(String),
}

/// Written for a step with no answer.
pub const NO_ANSWER: &str = "none";

/// One step's outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepOutcome {
    /// The step's target class, as written in the record.
    pub target: String,
    /// The answer as a class in the target's numbering (CS: offset), or [`NO_ANSWER`].
    pub response: String,
    /// Whether the answer's class is the target.
    pub correct: bool,
}

/// SFR set scoring.
#[derive(Clone, Debug, PartialEq)]
pub struct SetScore {
    /// |chosen ∩ target|.
    pub hits: usize,
    /// L = |target|.
    pub list_length: usize,
    /// hits / L (the paper's SFR accuracy).
    pub accuracy: f64,
    /// chosen == target as sets.
    pub exact: bool,
    /// For each target cell (sorted as in the target), whether it was chosen.
    pub per_target: Vec<bool>,
}

/// Score a chosen set against the target set.
pub fn score_set(target: &[u16], chosen: &[u16]) -> SetScore {
    let per_target: Vec<bool> = target.iter().map(|t| chosen.contains(t)).collect();
    let hits = per_target.iter().filter(|&&b| b).count();
    let mut a: Vec<u16> = chosen.to_vec();
    a.sort_unstable();
    a.dedup();
    let mut b: Vec<u16> = target.to_vec();
    b.sort_unstable();
    b.dedup();
    SetScore {
        hits,
        list_length: target.len(),
        accuracy: if target.is_empty() { 0.0 } else { hits as f64 / target.len() as f64 },
        exact: a == b,
        per_target,
    }
}

/// The class a person's answer index stands for at this step (CS: offset by the target's class range).
pub fn answer_class(task: TaskId, step: &Step, index: u16) -> u16 {
    match (task, &step.target) {
        (TaskId::Cs, Target::Class(t)) => class_offset(*t) + index,
        _ => index,
    }
}

/// What is wrong with an answer given to a step (each message names the task).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScoreError {
    /// [`score_step`] was given a step whose target is a set of cells (SFR): score it with [`score_set`].
    #[error("{task}: this step expects a set of cells, use score_set")]
    ExpectsSet {
        /// The task whose step it was.
        task: TaskId,
    },
    /// A step with a class target whose response is neither binary nor a choice.
    #[error("{task}: a step with response {response} takes no single answer")]
    NoSingleAnswer {
        /// The task whose step it was.
        task: TaskId,
        /// The step's [`Response`], in `Debug` form.
        response: String,
    },
    /// A class or option index at or past the step's number of alternatives.
    #[error("{task}: answer {answer} is out of range (0–{last})")]
    OutOfRange {
        /// The task whose step it was.
        task: TaskId,
        /// The index given.
        answer: u16,
        /// The largest index the step takes (1 for binary, options − 1 for a choice).
        last: u16,
    },
    /// A set of cells given to a binary or choice step.
    #[error("{task}: this step takes one answer, not a set")]
    OneAnswer {
        /// The task whose step it was.
        task: TaskId,
    },
    /// The number of answers is not the trial's number of answerable steps.
    #[error("{task}: {answers} answers for {steps} answerable steps")]
    AnswerCount {
        /// The task of the trial.
        task: TaskId,
        /// Answers given.
        answers: usize,
        /// Answerable steps of the trial (scored, with an input).
        steps: usize,
    },
    /// A single class given to a cell-selection step (SFR).
    #[error("{task}: this step takes a set of cells")]
    TakesSet {
        /// The task whose step it was.
        task: TaskId,
    },
    /// A chosen cell index at or past the grid's number of cells.
    #[error("{task}: cell {cell} is out of range (0–{last})")]
    CellOutOfRange {
        /// The task whose step it was.
        task: TaskId,
        /// The cell index given.
        cell: u16,
        /// The largest cell index of the grid (cells − 1).
        last: u16,
    },
    /// The same cell appears twice in a chosen set.
    #[error("{task}: a cell was chosen twice")]
    CellTwice {
        /// The task whose step it was.
        task: TaskId,
    },
    /// More cells chosen than the step's `picks`.
    #[error("{task}: {chosen} cells chosen, at most {picks} allowed")]
    TooManyCells {
        /// The task whose step it was.
        task: TaskId,
        /// Cells chosen.
        chosen: usize,
        /// The most cells the step takes (its `picks`).
        picks: u16,
    },
    /// An N-back answer that is neither class 0, class 1 nor no answer (in `Debug` form).
    #[error("N-back: answer {0} is not match (1) or no match (0 / none)")]
    NbackAnswer(String),
    /// The number of N-back answers is not the block's number of trials (stimuli).
    #[error("N-back: {answers} answers for {trials} trials")]
    NbackCount {
        /// Answers given.
        answers: usize,
        /// Trials of the block: the length of its `m` / `-` conditions string.
        trials: usize,
    },
    /// An N-back trial was scored without its block's [`crate::people::session::NbackInfo`].
    #[error("N-back trial without its block")]
    NbackWithoutBlock,
    /// A PI-LLM trial was scored without its stream ([`crate::people::pi::PiTrial`]).
    #[error("PI-LLM trial without its stream")]
    PiWithoutStream,
    /// The number of typed values is not the stream's number of keys.
    #[error("PI-LLM: {answers} typed values for {keys} keys")]
    TypedCount {
        /// Values given.
        answers: usize,
        /// Keys of the stream.
        keys: usize,
    },
    /// A PI-LLM key answered with something other than a typed value (or no answer).
    #[error("PI-LLM: each key takes a typed value")]
    TakesText,
    /// A typed value given to a step that takes a class or a set of cells.
    #[error("a typed value was given to a step that takes a click or a key")]
    NotText,
}

crate::message_into_string!(ScoreError);

/// Score a binary or choice step. Errors name what was wrong with the answer.
pub fn score_step(task: TaskId, step: &Step, answer: &Answer) -> Result<StepOutcome, ScoreError> {
    let Target::Class(t) = step.target else {
        return Err(ScoreError::ExpectsSet { task });
    };
    let n = match &step.response {
        Response::Binary { .. } => 2,
        Response::Choice { n } => *n,
        other => return Err(ScoreError::NoSingleAnswer { task, response: format!("{other:?}") }),
    };
    match answer {
        Answer::None => Ok(StepOutcome { target: t.to_string(), response: NO_ANSWER.into(), correct: false }),
        Answer::Class(i) if *i < n => {
            let c = answer_class(task, step, *i);
            Ok(StepOutcome { target: t.to_string(), response: c.to_string(), correct: c == t })
        }
        Answer::Class(i) => Err(ScoreError::OutOfRange { task, answer: *i, last: n - 1 }),
        Answer::Set(_) => Err(ScoreError::OneAnswer { task }),
        Answer::Text(_) => Err(ScoreError::NotText),
    }
}

/// A whole trial scored: the long-format columns.
#[derive(Clone, Debug, PartialEq)]
pub struct ScoredTrial {
    /// Per scored entry: the target class, or for SFR one entry per target cell.
    pub targets: Vec<String>,
    /// The answers as written: one class (or [`NO_ANSWER`]) per binary/choice step; SFR: the chosen cells
    /// in click order (not aligned with `targets`).
    pub responses: Vec<String>,
    /// One flag per `targets` entry: the step answered correctly, or (SFR) the target cell recalled.
    pub correct: Vec<bool>,
    /// SFR: whether the chosen set equals the target set.
    pub exact_set: Option<bool>,
    /// Per `correct` entry: the serial position asked about, where the step names one.
    pub serial_positions: Vec<Option<u8>>,
}

/// Score a trial of `task` from one answer per answerable step, in step order.
pub fn score_trial(task: TaskId, steps: &[Step], answers: &[Answer]) -> Result<ScoredTrial, ScoreError> {
    let asked: Vec<&Step> = steps.iter().filter(|s| answerable(s)).collect();
    if asked.len() != answers.len() {
        return Err(ScoreError::AnswerCount { task, answers: answers.len(), steps: asked.len() });
    }
    let mut out =
        ScoredTrial { targets: vec![], responses: vec![], correct: vec![], exact_set: None, serial_positions: vec![] };
    for (step, ans) in asked.into_iter().zip(answers) {
        match (&step.target, &step.response) {
            (Target::Set(target), Response::MultiSelect { n, picks }) => {
                let chosen: Vec<u16> = match ans {
                    Answer::None => vec![],
                    Answer::Set(v) => v.clone(),
                    Answer::Class(_) => return Err(ScoreError::TakesSet { task }),
                    Answer::Text(_) => return Err(ScoreError::NotText),
                };
                if let Some(c) = chosen.iter().find(|&&c| c >= *n) {
                    return Err(ScoreError::CellOutOfRange { task, cell: *c, last: n - 1 });
                }
                let mut d = chosen.clone();
                d.sort_unstable();
                d.dedup();
                if d.len() != chosen.len() {
                    return Err(ScoreError::CellTwice { task });
                }
                if chosen.len() > *picks as usize {
                    return Err(ScoreError::TooManyCells { task, chosen: chosen.len(), picks: *picks });
                }
                let s = score_set(target, &chosen);
                out.targets.extend(target.iter().map(|t| t.to_string()));
                out.correct.extend(s.per_target.iter().copied());
                out.serial_positions.extend(target.iter().map(|_| None));
                out.responses.extend(chosen.iter().map(|c| c.to_string()));
                out.exact_set = Some(s.exact);
            }
            _ => {
                let o = score_step(task, step, ans)?;
                out.targets.push(o.target);
                out.responses.push(o.response);
                out.correct.push(o.correct);
                out.serial_positions.push(step.serial_position);
            }
        }
    }
    // Probes without a named position (VSRec forward recognition is named; SC/VIR/CD have one probe):
    // nothing to infer.
    Ok(out)
}

/// N-back answers as the `m` / `-` string of the SDT scorer: class 1 = `m`; class 0 or no press = `-`.
pub fn nback_answer_string(answers: &[Answer]) -> Result<String, ScoreError> {
    answers
        .iter()
        .map(|a| match a {
            Answer::Class(1) => Ok('m'),
            Answer::Class(0) | Answer::None => Ok('-'),
            other => Err(ScoreError::NbackAnswer(format!("{other:?}"))),
        })
        .collect()
}

/// Score an N-back block: the SDT scores and one correct flag per trial.
pub fn score_nback(conditions: &str, answers: &[Answer]) -> Result<(SdtScores, Vec<bool>, String), ScoreError> {
    if conditions.chars().count() != answers.len() {
        return Err(ScoreError::NbackCount { answers: answers.len(), trials: conditions.chars().count() });
    }
    let a = nback_answer_string(answers)?;
    let correct = conditions.chars().zip(a.chars()).map(|(c, r)| (c == 'm') == (r == 'm')).collect();
    Ok((SdtScores::score(conditions, &a), correct, a))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::display::Frame;
    use crate::task::{Phase, binary};

    fn ask(target: Target, response: Response) -> Step {
        Step::ask(Frame::blank(), Phase::Probe, target, response)
    }

    #[test]
    fn binary_and_choice_hand_cases() {
        let s = ask(Target::Class(1), binary(["left", "right"]));
        let ok = score_step(TaskId::Vir, &s, &Answer::Class(1)).unwrap();
        assert_eq!((ok.target.as_str(), ok.response.as_str(), ok.correct), ("1", "1", true));
        assert!(!score_step(TaskId::Vir, &s, &Answer::Class(0)).unwrap().correct);
        let none = score_step(TaskId::Vir, &s, &Answer::None).unwrap();
        assert_eq!((none.response.as_str(), none.correct), (NO_ANSWER, false));
        assert!(score_step(TaskId::Vir, &s, &Answer::Class(2)).is_err());
        assert!(score_step(TaskId::Vir, &s, &Answer::Set(vec![1])).is_err());
        let c = ask(Target::Class(7), Response::Choice { n: 9 });
        assert!(score_step(TaskId::Vsr, &c, &Answer::Class(7)).unwrap().correct);
        assert!(!score_step(TaskId::Smu, &c, &Answer::Class(8)).unwrap().correct);
        assert!(score_step(TaskId::Smu, &c, &Answer::Class(9)).is_err());
    }

    #[test]
    fn cs_indices_map_to_classes() {
        // Colour judgement (red 0 / blue 1), symmetry (2 / 3), spatial recall 4 + slot, visual 12 + slot.
        let colour = ask(Target::Class(1), binary(["red", "blue"]));
        assert!(score_step(TaskId::Cs, &colour, &Answer::Class(1)).unwrap().correct);
        let sym = ask(Target::Class(3), binary(["asymmetric", "symmetric"]));
        let o = score_step(TaskId::Cs, &sym, &Answer::Class(1)).unwrap();
        assert_eq!((o.response.as_str(), o.correct), ("3", true));
        let o = score_step(TaskId::Cs, &sym, &Answer::Class(0)).unwrap();
        assert_eq!((o.response.as_str(), o.correct), ("2", false));
        let sp = ask(Target::Class(4 + 5), Response::Choice { n: 8 });
        assert!(score_step(TaskId::Cs, &sp, &Answer::Class(5)).unwrap().correct);
        let vi = ask(Target::Class(12 + 2), Response::Choice { n: 8 });
        let o = score_step(TaskId::Cs, &vi, &Answer::Class(3)).unwrap();
        assert_eq!((o.target.as_str(), o.response.as_str(), o.correct), ("14", "15", false));
    }

    #[test]
    fn sfr_partial_credit_and_exact_match() {
        let s = score_set(&[3, 17, 42, 90], &[42, 3, 55]);
        assert_eq!((s.hits, s.list_length, s.exact), (2, 4, false));
        assert!((s.accuracy - 0.5).abs() < 1e-12);
        assert_eq!(s.per_target, vec![true, false, true, false]);
        assert!(score_set(&[3, 17], &[17, 3]).exact);
        let step = ask(Target::Set(vec![3, 17, 42, 90]), Response::MultiSelect { n: 100, picks: 4 });
        let t = score_trial(TaskId::Sfr, std::slice::from_ref(&step), &[Answer::Set(vec![90, 3, 17, 42])]).unwrap();
        assert_eq!(t.correct, vec![true; 4]);
        assert_eq!(t.exact_set, Some(true));
        assert_eq!(t.responses, vec!["90", "3", "17", "42"]);
        let t = score_trial(TaskId::Sfr, std::slice::from_ref(&step), &[Answer::None]).unwrap();
        assert_eq!((t.correct, t.exact_set), (vec![false; 4], Some(false)));
        assert!(score_trial(TaskId::Sfr, std::slice::from_ref(&step), &[Answer::Set(vec![1, 1])]).is_err());
        assert!(score_trial(TaskId::Sfr, std::slice::from_ref(&step), &[Answer::Set(vec![100])]).is_err());
        assert!(score_trial(TaskId::Sfr, std::slice::from_ref(&step), &[Answer::Set(vec![1, 2, 3, 4, 5])]).is_err());
        assert!(score_trial(TaskId::Sfr, &[step], &[]).is_err());
    }

    #[test]
    fn vsr_per_probe_step() {
        let probe = |slot: u16, pos: usize| ask(Target::Class(slot), Response::Choice { n: 9 }).at_position(pos);
        let steps = vec![Step::show(Frame::blank(), Phase::Present), probe(4, 1), probe(0, 2), probe(8, 3)];
        let t = score_trial(TaskId::Vsr, &steps, &[Answer::Class(4), Answer::Class(8), Answer::Class(8)]).unwrap();
        assert_eq!(t.correct, vec![true, false, true]);
        assert_eq!(t.serial_positions, vec![Some(1), Some(2), Some(3)]);
    }

    #[test]
    fn nback_uses_the_sdt_scorer() {
        let (s, correct, a) =
            score_nback("--m-m", &[Answer::None, Answer::Class(1), Answer::Class(1), Answer::Class(0), Answer::None])
                .unwrap();
        assert_eq!(a, "-mm--");
        assert_eq!((s.hits, s.misses, s.false_alarms, s.correct_rejections, s.unusable), (1, 1, 1, 2, 0));
        assert_eq!(correct, vec![true, false, true, true, false]);
        assert!((s.accuracy - 0.6).abs() < 1e-12);
        assert!(score_nback("--", &[Answer::None]).is_err());
        assert!(score_nback("-", &[Answer::Class(2)]).is_err());
        // JSON shape the edge sends.
        let v: Vec<Answer> = serde_json::from_str("[null, 1, [3, 4]]").unwrap();
        assert_eq!(v, vec![Answer::None, Answer::Class(1), Answer::Set(vec![3, 4])]);
    }
}

//! The WorM trials a record's subject took, regenerated from the record's seed: what a network is
//! evaluated on to be compared with a person (or a language model) item by item (`wmlab eval
//! --trials-of`, issue 48). A trial is its task's spec (the parameters the subject had), the record's
//! split (people and the visual suite: the human split) and the trial's index in its task (the `index`
//! every row carries); practice trials and N-back blocks are left out.

use std::collections::BTreeSet;
use std::fmt;

use crate::record::{ResultRecord, Setting};
use crate::rng::Split;
use crate::task::{TaskId, TaskSpec, Trial};

/// The trials to take again, in the record's order, each once.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Replay {
    /// The record's run seed: with the split and an index it determines each trial.
    pub seed: u64,
    /// The split the record's trials were drawn from (people and the visual suite: [`Split::Human`]).
    pub split: Split,
    /// A spec and the trial's index in its task.
    pub trials: Vec<(TaskSpec, u64)>,
    /// The level (set size, list length) of each staircase trial (index from
    /// [`crate::adaptive::ADAPTIVE_BASE`]), by task and index: such a trial is drawn at the level the
    /// subject's staircase asked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub levels: Vec<(TaskId, u64, u32)>,
}

impl Replay {
    /// The trials themselves.
    pub fn generate(&self) -> Vec<(u64, Trial)> {
        let level = |id: TaskId, i: u64| self.levels.iter().find(|l| l.0 == id && l.1 == i).map(|l| l.2);
        self.trials
            .iter()
            .map(|(spec, i)| {
                let staircase = level(spec.id, *i)
                    .and_then(|l| crate::adaptive::staircase_trial(spec, self.seed, self.split, *i, l))
                    .map(|(_, t)| t);
                (*i, staircase.unwrap_or_else(|| spec.trial(self.seed, self.split, *i)))
            })
            .collect()
    }

    /// Only the trials of the task ids a network was trained on (`trained`), or an error naming both
    /// lists when none of the record's is among them.
    pub fn only(mut self, trained: &[TaskId]) -> Result<Replay, ReplayError> {
        let theirs = self.task_ids();
        self.trials.retain(|(s, _)| trained.contains(&s.id));
        if self.trials.is_empty() {
            return Err(ReplayError::NoneTrained { theirs, trained: trained.to_vec() });
        }
        Ok(self)
    }

    /// One spec per task, in the record's order (the parameters the subject's trials were drawn with).
    pub fn specs(&self) -> Vec<TaskSpec> {
        let mut seen: Vec<TaskSpec> = Vec::new();
        for (s, _) in &self.trials {
            if !seen.iter().any(|t| t.id == s.id) {
                seen.push(s.clone());
            }
        }
        seen
    }

    /// The task ids, in the record's order.
    pub fn task_ids(&self) -> Vec<TaskId> {
        self.specs().into_iter().map(|s| s.id).collect()
    }
}

/// Why a record's trials cannot be taken again ([`worm_trials_of`], [`Replay::only`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayError {
    /// No WorM trial outside practice.
    NoTrials,
    /// A row without the trial's index (a record written before rows carried it).
    NoIndex {
        /// The row's task id as written in the record.
        task: String,
        /// The row's `trial` number (its index in the run).
        trial: u64,
    },
    /// The record names a split this code does not know.
    BadSplit(String),
    /// The record's parameters of a task make no trials (refused as a study link's would be).
    BadTask(crate::task::SettingError),
    /// None of the record's tasks is one the network was trained on.
    NoneTrained {
        /// The record's WorM task ids, in its order.
        theirs: Vec<TaskId>,
        /// The task ids the network was trained on.
        trained: Vec<TaskId>,
    },
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::NoTrials => {
                write!(f, "the record has no WorM trials to take again (N-back and practice are left out)")
            }
            ReplayError::NoIndex { task, trial } => write!(
                f,
                "trial {trial} ({task}) does not say which generated trial it was (no `index`): the record is too old to replay"
            ),
            ReplayError::BadSplit(s) => write!(f, "the record's split `{s}` is not one of train, val, test, human"),
            ReplayError::BadTask(e) => write!(f, "the record's task parameters cannot be used: {e}"),
            ReplayError::NoneTrained { theirs, trained } => {
                let names = |ids: &[TaskId]| ids.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(", ");
                write!(
                    f,
                    "none of the record's WorM tasks ({}) is one the network was trained on ({})",
                    names(theirs),
                    names(trained)
                )
            }
        }
    }
}

impl std::error::Error for ReplayError {}

/// The WorM trials of `record`, regenerated: see the module notes.
pub fn worm_trials_of(record: &ResultRecord) -> Result<Replay, ReplayError> {
    let name = record.split_name();
    let split = Split::parse(name).ok_or_else(|| ReplayError::BadSplit(name.to_string()))?;
    let mut seen = BTreeSet::new();
    let mut trials = Vec::new();
    let mut levels = Vec::new();
    for row in record.trials.iter().filter(|r| !super::reference::is_practice(r)) {
        let Some(id) = TaskId::parse(&row.task) else { continue };
        let index = match row.extra.get("index") {
            Some(Setting::Int(i)) if *i >= 0 => *i as u64,
            _ => return Err(ReplayError::NoIndex { task: row.task.clone(), trial: row.trial }),
        };
        if seen.insert((id, index)) {
            if index >= crate::adaptive::ADAPTIVE_BASE
                && let Some(l) = crate::adaptive::LevelKind::of(id).and_then(|k| k.get(&row.conditions))
            {
                levels.push((id, index, l as u32));
            }
            let spec = record.config.tasks.iter().find(|s| s.id == id).cloned().unwrap_or_else(|| TaskSpec::new(id));
            if !trials.iter().any(|(s, _): &(TaskSpec, u64)| s.id == id) {
                spec.check().map_err(ReplayError::BadTask)?;
            }
            trials.push((spec, index));
        }
    }
    if trials.is_empty() {
        return Err(ReplayError::NoTrials);
    }
    Ok(Replay { seed: record.config.seed, split, trials, levels })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::people::session::tests::run;
    use crate::people::{Position, Session, StudyConfig};

    /// Issue 71: a record's task parameters were trusted — a VSR record with grid 2 and filled 18
    /// panicked ("sample 18 of 4"), filled 0 hung, empty or zero list lengths divided by zero. They are
    /// refused as a study link's `set=` would be; the defaults and a link's own values pass.
    #[test]
    fn a_records_task_parameters_are_held_to_a_links_rules() {
        for id in TaskId::EVERY {
            assert_eq!(TaskSpec::new(id).check(), Ok(()), "{id:?}");
        }
        let config = StudyConfig::from_query("tasks=VSR&tpc=1&practice=0").unwrap();
        let mut s = Session::with_seed(config, 5);
        run(&mut s, |_| true);
        let record = s.to_record(Some("P"));
        assert!(worm_trials_of(&record).is_ok());
        let with = |edit: &dyn Fn(&mut serde_json::Value)| {
            let mut r = record.clone();
            let spec = r.config.tasks.iter_mut().find(|t| t.id == TaskId::Vsr).unwrap();
            let mut v = serde_json::to_value(&*spec).unwrap();
            edit(&mut v);
            *spec = serde_json::from_value(v).unwrap();
            worm_trials_of(&r)
        };
        type Edit = fn(&mut serde_json::Value);
        let edits: [(Edit, &str); 6] = [
            (
                |v| {
                    v["params"]["grid"] = 2.into();
                    v["params"]["filled"] = 18.into();
                },
                "grid 2, filled 18",
            ),
            (|v| v["params"]["grid"] = 0.into(), "grid 0"),
            (|v| v["params"]["filled"] = 0.into(), "filled 0"),
            (|v| v["params"]["list_lengths"] = serde_json::json!([]), "no list lengths"),
            (|v| v["params"]["list_lengths"] = serde_json::json!([0]), "list length 0"),
            (|v| v["params"]["list_lengths"] = serde_json::json!([200]), "list length 200"),
        ];
        for (edit, what) in edits {
            let e = with(&edit).unwrap_err();
            assert!(matches!(e, ReplayError::BadTask(_)), "{what}: {e}");
            assert!(e.to_string().starts_with("the record's task parameters cannot be used: "), "{what}: {e}");
        }
    }

    #[test]
    fn a_persons_trials_are_regenerated_exactly() {
        let config = StudyConfig::from_query("tasks=VSR,CD-Color&tpc=1&practice=1").unwrap();
        let mut s = Session::with_seed(config, 99);
        run(&mut s, |_| true);
        let record = s.to_record(Some("P01"));
        let replay = worm_trials_of(&record).unwrap();
        assert_eq!((replay.seed, replay.split), (99, Split::Human));
        assert_eq!(replay.task_ids(), [TaskId::Vsr, TaskId::CdColor]);
        let main: Vec<_> = record.trials.iter().filter(|r| !crate::people::reference::is_practice(r)).collect();
        assert!(main.len() < record.trials.len(), "the study had practice trials");
        assert_eq!(replay.trials.len(), main.len(), "practice is left out, each main trial once");
        // The same trials as the person saw, step for step.
        let mut seen = Vec::new();
        for block in 0..8 {
            for trial in 0..64 {
                let Ok(t) = s.trial(Position { block, trial }) else { break };
                if !t.practice {
                    seen.push((t.index, t.steps));
                }
            }
        }
        let again: Vec<_> = replay.generate().into_iter().map(|(i, t)| (i, t.steps)).collect();
        assert_eq!(again, seen);
        assert_eq!(replay.clone().only(&[TaskId::CdColor, TaskId::Sc]).unwrap().task_ids(), [TaskId::CdColor]);
        let err = replay.clone().only(&[TaskId::Sc]).unwrap_err();
        assert!(err.to_string().ends_with("(VSR, CD-Color) is one the network was trained on (SC)"), "{err}");

        let mut old = record.clone();
        old.trials.last_mut().unwrap().extra.remove("index");
        assert!(matches!(worm_trials_of(&old), Err(ReplayError::NoIndex { .. })));
        let mut none = record;
        none.trials.clear();
        assert_eq!(worm_trials_of(&none), Err(ReplayError::NoTrials));
    }
}

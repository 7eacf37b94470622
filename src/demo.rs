//! A demo result for trying out share links and exports: a simulated observer answers generated trials
//! of one task, mostly correctly. Scoring and summaries come from the core (`record::summarise`).

use wmlab_core::record::{ResultRecord, RunConfig, Setting, Subject, TrialRow, summarise};
use wmlab_core::{Response, Rng, Split, Target, TaskId, TaskSpec};

/// Lapse rate of the demo observer: one answer in this many is wrong.
const LAPSE_ONE_IN: u32 = 5;

pub fn target_text(t: &Target) -> String {
    match t {
        Target::Class(c) => c.to_string(),
        Target::Set(v) => v.iter().map(|c| c.to_string()).collect::<Vec<_>>().join("/"),
        Target::None => String::new(),
    }
}

/// A wrong answer of the same kind as `target`.
fn wrong(target: &Target, response: &Response) -> Target {
    match target {
        Target::Class(c) => {
            let n = match response {
                Response::Binary { .. } => 2,
                Response::Choice { n } => (*n).max(2),
                Response::MultiSelect { n, .. } => (*n).max(2),
                Response::None => 2,
            };
            Target::Class((c + 1) % n)
        }
        Target::Set(v) if !v.is_empty() => Target::Set(v[..v.len() - 1].to_vec()),
        other => other.clone(),
    }
}

/// `trials` trials of `task` under `seed` (split Test, balanced over the condition grid).
pub fn demo_record(task: TaskId, seed: u64, trials: u64) -> ResultRecord {
    let spec = TaskSpec::new(task);
    let mut rng = Rng::from_u64(seed ^ 0x5EED_DE30);
    let mut rows = Vec::new();
    for i in 0..trials {
        let trial = spec.trial(seed, Split::Test, i);
        let mut row = TrialRow {
            task: task.as_str().to_string(),
            trial: i,
            conditions: trial.conditions.clone(),
            ..Default::default()
        };
        for (_, step) in trial.scored_steps() {
            let answer =
                if rng.chance(1, LAPSE_ONE_IN) { wrong(&step.target, &step.response) } else { step.target.clone() };
            row.targets.push(target_text(&step.target));
            row.responses.push(target_text(&answer));
            row.correct.push(answer == step.target);
        }
        rows.push(row);
    }
    let mut config = RunConfig { seed, tasks: vec![spec], ..Default::default() };
    config.settings.insert("split".into(), Setting::Text(Split::Test.as_str().into()));
    config.settings.insert("trials".into(), Setting::Int(trials as i64));
    config.settings.insert("lapse_rate".into(), Setting::Num(1.0 / LAPSE_ONE_IN as f64));
    let subject = Subject::Reference { source: "Demo observer (simulated, 1 lapse in 5)".into() };
    let mut record = ResultRecord::new(subject, task.as_str(), config);
    record.created = Some(crate::platform::web::now_iso());
    record.summaries = summarise(&rows);
    record.trials = rows;
    record
}

//! Outcomes → the core [`ResultRecord`] (Subject::Llm, settings without any key, one [`TrialRow`] per
//! sample, [`Summary`] rows per task and per condition value). The HTTP runner (`wmlab-llm`) says who
//! answered and how it was asked ([`RunInfo`]); the rest is here.
//!
//! Text-suite conditions (`lines`, `n`, `context_length`, …) go in [`Conditions::other`]: a trial row
//! carries all of its sample's conditions, and there is a summary row per value of each condition that
//! varies within a task (marginal over the others) beside the task's row over all samples.
//!
//! No setting is ever named like a credential (the core refuses such names: `record::credential_like`).

use std::collections::{BTreeMap, BTreeSet};

use super::Suite;
use super::latent::{self, LatentTask};
use super::outcome::Outcome;
use super::vision::VisionConfig;
use crate::people::StudyTask;
use crate::people::session::{StudyRow, study_summaries};
use crate::record::{ResultRecord, RunConfig, Setting, Subject, Summary, TrialRow, credential_like, mean_se};
use crate::stats;
use crate::{Conditions, TaskSpec};

/// Who answered a run and how it was asked, as the runner knows it: the provider's name, the model, and
/// the provider's settings (base URL, sampling, concurrency, retries; never a key).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunInfo {
    /// The provider (`openai`, `anthropic`, `gemini`).
    pub provider: String,
    /// The model's name.
    pub model: String,
    /// The provider's settings for the record.
    pub settings: BTreeMap<String, Setting>,
}

/// Condition names that identify an item rather than a condition.
const NOT_CONDITIONS: [&str; 2] = ["block", "category"];

fn text(s: &str) -> Setting {
    Setting::Text(s.to_string())
}

/// One trial row per outcome.
pub fn trial_row(index: usize, o: &Outcome) -> TrialRow {
    let mut extra = BTreeMap::new();
    extra.insert("sample_id".to_string(), text(&o.sample_id));
    extra.insert("tokens_in".into(), Setting::Int(o.tokens_in as i64));
    extra.insert("tokens_out".into(), Setting::Int(o.tokens_out as i64));
    if o.tokens_reasoning > 0 {
        extra.insert("tokens_reasoning".into(), Setting::Int(o.tokens_reasoning as i64));
    }
    extra.insert("requests".into(), Setting::Int(o.requests as i64));
    if o.retries > 0 {
        extra.insert("retries".into(), Setting::Int(o.retries as i64));
    }
    if let Some(f) = &o.finish_reason {
        extra.insert("finish_reason".into(), text(f));
    }
    if o.epoch > 1 {
        extra.insert("repeat".into(), Setting::Int(o.epoch as i64));
    }
    for (m, v) in &o.scores {
        extra.insert(format!("score_{m}"), Setting::Num(*v));
    }
    if let Some(e) = &o.error {
        extra.insert("error".into(), text(&e.message));
        extra.insert("error_kind".into(), text(e.kind.as_str()));
    }
    if let Some(row) = &o.row {
        // The visual suite: the people's row, with the call's numbers beside the task's own extras.
        let mut r = row.clone();
        r.extra.extend(extra);
        r.rt_ms = if o.requests > 0 { vec![o.latency_ms] } else { vec![] };
        return r;
    }
    let (targets, responses, correct) = match (&o.targets, &o.answers) {
        (Some(t), Some(a)) => {
            let t: Vec<String> = t.chars().map(String::from).collect();
            let a: Vec<String> = a.chars().map(String::from).collect();
            let c = t.iter().zip(&a).map(|(x, y)| x == y).collect();
            (t, a, c)
        }
        _ => {
            let target = match &o.reference {
                Some(r) => super::metrics::format_reference(r),
                None => String::new(),
            };
            let headline = o.scores.values().next().copied();
            let correct = match (&o.error, headline) {
                (None, Some(v)) => vec![v >= 1.0],
                _ => vec![],
            };
            let response = o.answer.clone().or_else(|| o.reply.clone()).unwrap_or_default();
            (vec![target], vec![response], correct)
        }
    };
    TrialRow {
        task: o.task.clone(),
        trial: index as u64,
        conditions: Conditions { other: o.conditions.clone(), ..Default::default() },
        targets,
        responses,
        correct,
        rt_ms: if o.requests > 0 && o.error.is_none() { vec![o.latency_ms] } else { vec![] },
        extra,
    }
}

/// Summary rows: per task and per (task, condition value) for conditions that vary within the task;
/// one row per metric (mean over samples without an error, with its SE), plus an `errors` row (the
/// fraction of samples that failed) when any failed.
pub fn summaries(outcomes: &[Outcome]) -> Vec<Summary> {
    if outcomes.iter().any(|o| o.suite == Suite::Vision) {
        return vision_summaries(outcomes);
    }
    let mut out = Vec::new();
    for task in tasks_in_order(outcomes) {
        let of_task: Vec<&Outcome> = outcomes.iter().filter(|o| o.task == task).collect();
        push_group(&mut out, task, Conditions::default(), &of_task);
        if task == LatentTask::NumberGuessing.as_str() {
            out.extend(yes_sum_row(task, &of_task));
        }
        let names: BTreeSet<&str> = of_task.iter().flat_map(|o| o.conditions.keys().map(|k| k.as_str())).collect();
        for name in names {
            if NOT_CONDITIONS.contains(&name) {
                continue;
            }
            let values: BTreeSet<&str> =
                of_task.iter().filter_map(|o| o.conditions.get(name).map(|v| v.as_str())).collect();
            if values.len() < 2 {
                continue;
            }
            let mut values: Vec<&str> = values.into_iter().collect();
            values.sort_by(|a, b| match (a.parse::<f64>(), b.parse::<f64>()) {
                (Ok(x), Ok(y)) => x.partial_cmp(&y).unwrap_or(std::cmp::Ordering::Equal),
                _ => a.cmp(b),
            });
            for v in values {
                let cell: Vec<&Outcome> =
                    of_task.iter().copied().filter(|o| o.conditions.get(name).map(|x| x.as_str()) == Some(v)).collect();
                let mut c = Conditions::default();
                c.other.insert(name.to_string(), v.to_string());
                push_group(&mut out, task, c, &cell);
            }
        }
    }
    out
}

fn push_group(out: &mut Vec<Summary>, task: &str, conditions: Conditions, group: &[&Outcome]) {
    let mut metric_names: Vec<&str> = Vec::new();
    for o in group {
        for m in o.scores.keys() {
            if !metric_names.contains(&m.as_str()) {
                metric_names.push(m);
            }
        }
    }
    let repeated = group.iter().any(|o| o.epoch > 1);
    for m in metric_names {
        let scored = group.iter().filter(|o| o.error.is_none()).filter_map(|o| Some((*o, o.scores.get(m).copied()?)));
        let (vals, spread) = if repeated { item_means(scored) } else { (scored.map(|(_, v)| v).collect(), None) };
        if vals.is_empty() {
            continue;
        }
        let (value, se) = mean_se(&vals);
        if !value.is_finite() {
            continue;
        }
        out.push(Summary {
            task: task.to_string(),
            conditions: conditions.clone(),
            metric: m.to_string(),
            n: vals.len() as u32,
            value,
            se: se.filter(|s| s.is_finite()),
        });
        if let Some((sd, items)) = spread {
            out.push(Summary {
                task: task.to_string(),
                conditions: conditions.clone(),
                metric: format!("{m}{REPEAT_SD}"),
                n: items,
                value: sd,
                se: None,
            });
        }
    }
    out.extend(errors_row(task, conditions, group));
}

/// Number Guessing's answers as [`latent::yes_sum`] takes them: (k, 1 for yes) of each answered sample.
pub(crate) fn guessing_answers(group: &[&Outcome]) -> Vec<(u32, f64)> {
    group
        .iter()
        .filter(|o| o.error.is_none())
        .filter_map(|o| Some((o.conditions.get("k")?.parse().ok()?, *o.scores.get("says_yes")?)))
        .collect()
}

/// Number Guessing's headline: Σ over k of P(yes | k) ([`latent::yes_sum`]), n the answers it rests on.
fn yes_sum_row(task: &str, group: &[&Outcome]) -> Option<Summary> {
    let points = guessing_answers(group);
    Some(Summary {
        task: task.to_string(),
        conditions: Conditions::default(),
        metric: "yes_sum".into(),
        n: points.len() as u32,
        value: latent::yes_sum(&points)?,
        se: None,
    })
}

/// The suffix of a metric's spread over repeats: `accuracy_repeat_sd` is the mean over items of the
/// standard deviation of an item's scores across its repeats.
pub const REPEAT_SD: &str = "_repeat_sd";

/// With repeats: one value per item, the mean of its repeats (so a summary's n and SE count items, not
/// the repeats of one item as if independent), and the mean over items with two or more scored repeats
/// of their scores' sample SD across repeats, with how many such items.
fn item_means<'a>(scored: impl Iterator<Item = (&'a Outcome, f64)>) -> (Vec<f64>, Option<(f64, u32)>) {
    let items: Vec<Vec<f64>> = super::group_by_item(scored, |(o, _)| o.sample_id.as_str())
        .into_iter()
        .map(|g| g.into_iter().map(|(_, v)| v).collect())
        .collect();
    let means = items.iter().map(|vs| stats::mean(vs)).collect();
    let sds: Vec<f64> = items.iter().filter(|vs| vs.len() >= 2).map(|vs| stats::variance(vs).sqrt()).collect();
    let spread = (!sds.is_empty()).then(|| (sds.iter().sum::<f64>() / sds.len() as f64, sds.len() as u32));
    (means, spread)
}

/// The tasks of the outcomes, in the order they first appear.
fn tasks_in_order(outcomes: &[Outcome]) -> Vec<&str> {
    let mut tasks: Vec<&str> = Vec::new();
    for o in outcomes {
        if !tasks.contains(&o.task.as_str()) {
            tasks.push(&o.task);
        }
    }
    tasks
}

/// The `errors` summary of a group (the fraction of its samples that failed), when any failed.
fn errors_row(task: &str, conditions: Conditions, group: &[&Outcome]) -> Option<Summary> {
    let errors = group.iter().filter(|o| o.error.is_some()).count();
    (errors > 0).then(|| Summary {
        task: task.to_string(),
        conditions,
        metric: "errors".into(),
        n: group.len() as u32,
        value: errors as f64 / group.len() as f64,
        se: None,
    })
}

/// The visual suite's summaries: those of a person's record (accuracy per task × cell, N-back SDT
/// measures per level, [`study_summaries`]) over the trials that finished, plus an `errors` row per
/// task where calls failed.
fn vision_summaries(outcomes: &[Outcome]) -> Vec<Summary> {
    let rows: Vec<StudyRow> = outcomes
        .iter()
        .filter(|o| o.error.is_none())
        .filter_map(|o| {
            let task = StudyTask::parse(&o.task)?;
            Some(StudyRow { task, cell: o.cell.as_ref()?, row: o.row.as_ref()?, sdt: o.sdt.as_ref() })
        })
        .collect();
    let mut out = study_summaries(&rows);
    for task in tasks_in_order(outcomes) {
        let of_task: Vec<&Outcome> = outcomes.iter().filter(|o| o.task == task).collect();
        out.extend(errors_row(task, Conditions::default(), &of_task));
    }
    out
}

/// The record of a visual-suite run: named like a person's (`VSR+CD-Color+…`), the WorM tasks'
/// parameters in the config (so the Compare page and Table A3 read it as they read a person's), the
/// suite's settings (`vision_render`, size or grid width) beside the provider's.
pub fn to_vision_record(
    info: &RunInfo,
    cfg: &VisionConfig,
    outcomes: &[Outcome],
    created: Option<String>,
) -> ResultRecord {
    let mut extra: Vec<(String, Setting)> = cfg.settings().into_iter().collect();
    extra.push(("suite".into(), Setting::Text("worm-vision".into())));
    extra.push(("samples".into(), Setting::Int(outcomes.len() as i64)));
    let extra: Vec<(&str, Setting)> = extra.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    let task = cfg.tasks.iter().map(|t| t.as_str()).collect::<Vec<_>>().join("+");
    let mut r = to_record(info, &task, cfg.seed, &extra, outcomes, created);
    r.config.tasks = cfg.tasks.iter().filter_map(|t| t.worm()).map(TaskSpec::new).collect();
    r
}

/// The record of a run. `task` names what was run (`nback`, `lrt`, `minerva`, or a finer label);
/// `extra_settings` go beside the provider's (a name like a credential is dropped); `created` is ISO
/// 8601 text from the caller's clock.
pub fn to_record(
    info: &RunInfo,
    task: &str,
    seed: u64,
    extra_settings: &[(&str, Setting)],
    outcomes: &[Outcome],
    created: Option<String>,
) -> ResultRecord {
    let mut settings = info.settings.clone();
    for (k, v) in extra_settings {
        settings.insert((*k).to_string(), v.clone());
    }
    settings.retain(|k, _| !credential_like(k));
    let config = RunConfig { seed, tasks: Vec::new(), settings };
    let subject = Subject::Llm { provider: info.provider.clone(), model: info.model.clone() };
    let mut r = ResultRecord::new(subject, task, config);
    r.created = created;
    r.trials = outcomes.iter().enumerate().map(|(i, o)| trial_row(i, o)).collect();
    r.summaries = summaries(outcomes);
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scored(id: &str, epoch: u32, v: f64) -> Outcome {
        serde_json::from_value(serde_json::json!({
            "sample_id": id, "suite": "lrt", "task": "lrt-ordered", "latency_ms": 0.0, "requests": 1,
            "tokens_in": 0, "tokens_out": 0, "epoch": epoch, "conditions": {"lines": "20"},
            "scores": {"first_integer": v},
        }))
        .expect("an Outcome from its JSON")
    }

    #[test]
    fn repeats_are_summarised_per_item_with_their_spread() {
        // Item a: 1, 1, 0 (mean 2/3, SD 0.577); item b: 0, 0, 0 (mean 0, SD 0).
        let run: Vec<Outcome> = [("a", [1.0, 1.0, 0.0]), ("b", [0.0, 0.0, 0.0])]
            .iter()
            .flat_map(|(id, vs)| {
                vs.iter().enumerate().map(move |(e, &v)| {
                    let e = e as u32 + 1;
                    let id = if e == 1 { id.to_string() } else { format!("{id}@r{e}") };
                    scored(&id, e, v)
                })
            })
            .collect();
        let s = summaries(&run);
        let main = s.iter().find(|s| s.metric == "first_integer").unwrap();
        assert_eq!(main.n, 2, "n counts items");
        assert!((main.value - 1.0 / 3.0).abs() < 1e-12);
        // SE over the two item means (2/3 and 0): sd 0.4714 / sqrt 2
        assert!((main.se.unwrap() - (2.0f64 / 9.0).sqrt() / 2.0f64.sqrt()).abs() < 1e-12, "{main:?}");
        let sd = s.iter().find(|s| s.metric == "first_integer_repeat_sd").unwrap();
        assert_eq!(sd.n, 2);
        assert!((sd.value - (1.0f64 / 3.0).sqrt() / 2.0).abs() < 1e-12, "{sd:?}");
        // Without repeats the same six rows would be six samples.
        let flat: Vec<Outcome> = run.iter().map(|o| Outcome { epoch: 1, ..o.clone() }).collect();
        let main = summaries(&flat).into_iter().find(|s| s.metric == "first_integer").unwrap();
        assert_eq!(main.n, 6);
        assert!(!summaries(&flat).iter().any(|s| s.metric.ends_with(REPEAT_SD)));
        // The trial rows name their repeat; the chart points are the items' means.
        assert_eq!(trial_row(5, &run[5]).extra.get("repeat"), Some(&Setting::Int(3)));
        assert!(!trial_row(0, &run[0]).extra.contains_key("repeat"));
        let (items, k) = super::super::charts::per_item(&run).unwrap();
        assert_eq!(k, 3);
        assert_eq!(items.iter().map(|o| o.sample_id.as_str()).collect::<Vec<_>>(), ["a", "b"]);
        assert!((items[0].scores["first_integer"] - 2.0 / 3.0).abs() < 1e-12);
        assert!(super::super::charts::per_item(&flat).is_none());
        let p = super::super::charts::panels(&run);
        assert!(p.iter().all(|p| p.note.as_deref().is_some_and(|n| n.contains("up to 3 times"))), "{p:?}");
    }
}

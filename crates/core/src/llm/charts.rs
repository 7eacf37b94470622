//! What an LLM run's charts show, as data (no drawing): each panel's series, the published numbers drawn
//! beside them and a note where the two are not strictly comparable, plus the N-back paper's tests on the
//! run's d′. Each panel becomes a `crate::chart::Chart` ([`LlmPanel::chart`]) that the app's one
//! chart component draws; native tests check them here.
//!
//! - **N-back**: HR / FAR / accuracy and d′ vs N. The published curves are those of the *same* variant
//!   and protocol ([`nback::reported_for`]); d′ is the notebook's on both sides (rates clipped to
//!   [.01, .99], absolute value), since the published numbers were computed so. A run whose number of
//!   blocks differs from the published mean's says so in the panel's note.
//! - **LRT**: success rate vs lines for each (order, block size B): "ordered", "shuffled" (B = 1, a full
//!   shuffle) and "shuffled, B = 10" are separate series, never merged; the README's full-shuffle and
//!   block-shuffle curves are drawn beside the B the run used.
//! - **Minerva**: the headline score per task beside two of the paper's models; the mean per category
//!   (Fig. 1); string search errors on present and absent subsequences by their length (Fig. 2); a
//!   context-length sweep beside Tables 7 and 11; a steps sweep of the stateful tasks (Fig. 6); the two
//!   wordings of an instruction on the same trials beside Tables 8 and 12.

use std::collections::BTreeMap;

use super::{Suite, latent, lrt, minerva, nback, pi, snapshot};
use crate::chart::{self, Chart, Role};

use super::outcome::Outcome;

/// One line of a panel: this run's points or a published reference's.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// The legend's name (`this run`, `this run: N = 1`, `paper: GPT-4o`).
    pub label: String,
    /// (x, y) points in x order.
    pub points: Vec<(f64, f64)>,
    /// A published reference (thin, hollow) rather than this run (thick, filled).
    pub reference: bool,
}

/// One chart of a run, as data: what it draws and what a reader must know beside it.
#[derive(Clone, Debug, PartialEq)]
pub struct LlmPanel {
    /// A stable id (`nback-dprime`, `lrt`, `pi-llm`): the page's element ids and tests name it.
    pub id: String,
    /// The chart's title.
    pub title: String,
    /// What x is, in words.
    pub x_desc: String,
    /// What y is, in words.
    pub y_desc: String,
    /// The y axis's range.
    pub y_range: (f64, f64),
    /// Category names for x = 0, 1, 2 … (Minerva tasks); `None` = numeric x.
    pub x_labels: Option<Vec<String>>,
    /// The series, this run's first.
    pub series: Vec<Series>,
    /// What a reader must know to compare the run with the references (shown under the chart).
    pub note: Option<String>,
    /// Error bars: (index into `series`, x, low, high).
    pub intervals: Vec<(usize, f64, f64, f64)>,
}

impl LlmPanel {
    /// The panel as a chart spec: this run's series thick and filled, the references thin and hollow,
    /// categories (Minerva tasks) numbered on x, and the intervals as error bars of their series.
    pub fn chart(&self) -> Chart {
        let mut chart = Chart::new(self.title.clone(), self.x_desc.clone(), self.y_desc.clone());
        chart.y_range = Some(self.y_range);
        chart.categories = self.x_labels.clone().unwrap_or_default();
        for (i, s) in self.series.iter().enumerate() {
            let role = if s.reference { Role::Reference } else { Role::Subject };
            let bars = self.intervals.iter().filter(|iv| iv.0 == i).map(|&(_, x, lo, hi)| (x, lo, hi)).collect();
            chart.series.push(chart::Series::new(s.label.clone(), role, s.points.clone()).bars(bars));
        }
        chart
    }
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// Mean of `metric` over error-free outcomes grouped by a numeric x.
fn by_x<'a>(
    outs: impl Iterator<Item = &'a Outcome>,
    x_of: impl Fn(&Outcome) -> Option<f64>,
    metric: &str,
) -> Vec<(f64, f64)> {
    let mut g: BTreeMap<i64, Vec<f64>> = BTreeMap::new();
    for o in outs {
        if o.error.is_some() {
            continue;
        }
        if let (Some(x), Some(v)) = (x_of(o), o.scores.get(metric))
            && v.is_finite()
        {
            g.entry((x * 1000.0) as i64).or_default().push(*v);
        }
    }
    g.into_iter().filter_map(|(x, v)| Some((x as f64 / 1000.0, mean(&v)?))).collect()
}

fn cond_num(o: &Outcome, name: &str) -> Option<f64> {
    o.conditions.get(name)?.parse().ok()
}

fn nback_outcomes(outcomes: &[Outcome]) -> Vec<&Outcome> {
    outcomes.iter().filter(|o| o.suite == Suite::Nback).collect()
}

/// The run's variant and protocol (from its first N-back outcome; a run has one of each).
fn nback_kind(nb: &[&Outcome]) -> (Option<nback::Variant>, Option<nback::Protocol>) {
    let first = nb.first();
    let variant = first.and_then(|o| nback::Variant::parse(o.conditions.get("variant")?));
    let protocol = first
        .and_then(|o| nback::Protocol::parse(o.conditions.get("protocol")?))
        .or(variant.map(|v| v.default_protocol()));
    (variant, protocol)
}

/// The label of an LRT order with its block size: "ordered", "shuffled" (B = 1), "shuffled, B = 10".
pub fn lrt_order_label(order: &str, block: usize) -> String {
    if order == "shuffled" && block > 1 { format!("shuffled, B = {block}") } else { order.to_string() }
}

/// Every panel a run's outcomes give, suite by suite; with repeats the item means ([`per_item`]).
pub fn panels(outcomes: &[Outcome]) -> Vec<LlmPanel> {
    let Some((items, repeats)) = per_item(outcomes) else { return panels_of_items(outcomes) };
    let mut out = panels_of_items(&items);
    let said = format!(
        "Each item was asked up to {repeats} times: a point is the mean over items of each item's mean over its \
         repeats (n and intervals count items)."
    );
    for p in &mut out {
        p.note = Some(match p.note.take() {
            Some(n) => format!("{said} {n}"),
            None => said.clone(),
        });
    }
    out
}

/// With repeats ([`crate::llm::with_repeats`]): one outcome per item, its scores the means over its
/// repeats that did not fail (an item whose repeats all failed keeps the first's error), in the order
/// items first appear, with the most repeats of an item. `None` without repeats.
pub fn per_item(outcomes: &[Outcome]) -> Option<(Vec<Outcome>, u32)> {
    if outcomes.iter().all(|o| o.epoch <= 1) {
        return None;
    }
    let items = super::group_by_item(outcomes, |o| o.sample_id.as_str());
    let most = items.iter().map(|v| v.len()).max().unwrap_or(1) as u32;
    let merged = items
        .into_iter()
        .map(|group| {
            let ok: Vec<&Outcome> = group.iter().copied().filter(|o| o.error.is_none()).collect();
            let Some(first) = ok.first() else { return group[0].clone() };
            let mut m = (*first).clone();
            m.sample_id = crate::llm::item_id(&first.sample_id).to_string();
            m.epoch = 1;
            for (name, v) in m.scores.iter_mut() {
                let vals: Vec<f64> = ok.iter().filter_map(|o| o.scores.get(name).copied()).collect();
                *v = vals.iter().sum::<f64>() / vals.len() as f64;
            }
            m
        })
        .collect();
    Some((merged, most))
}

fn panels_of_items(outcomes: &[Outcome]) -> Vec<LlmPanel> {
    let mut out = Vec::new();
    let nb = nback_outcomes(outcomes);
    if !nb.is_empty() {
        out.extend(nback_panels(&nb));
    }
    let lr: Vec<&Outcome> = outcomes.iter().filter(|o| o.suite == Suite::Lrt).collect();
    if !lr.is_empty() {
        out.push(lrt_panel(&lr));
    }
    let mv: Vec<&Outcome> = outcomes.iter().filter(|o| o.suite == Suite::Minerva).collect();
    if !mv.is_empty() {
        out.push(minerva_panel(&mv));
        out.extend(minerva_categories_panel(&mv));
        out.extend(minerva_subsequence_panel(&mv));
        out.extend(minerva_length_panels(&mv));
        out.extend(minerva_steps_panel(&mv));
        out.extend(minerva_variant_panels(&mv));
    }
    let lat: Vec<&Outcome> = outcomes.iter().filter(|o| o.suite == Suite::Latent).collect();
    if !lat.is_empty() {
        out.extend(guessing_panel(&lat));
        out.extend(latent_panel(&lat));
    }
    let pi: Vec<&Outcome> = outcomes.iter().filter(|o| o.suite == Suite::Pi).collect();
    if !pi.is_empty() {
        out.push(pi_panel(&pi));
    }
    out.extend(reasoning_panel(outcomes));
    out
}

/// Number Guessing: P(yes) for each k, with the sum in the note beside the paper's Table 1.
fn guessing_panel(lat: &[&Outcome]) -> Option<LlmPanel> {
    let task = latent::LatentTask::NumberGuessing.as_str();
    let guesses: Vec<&Outcome> = lat.iter().copied().filter(|o| o.task == task).collect();
    let points = by_x(guesses.iter().copied(), |o| cond_num(o, "k"), "says_yes");
    if points.is_empty() {
        return None;
    }
    let answered = super::record::guessing_answers(&guesses);
    let (sum, answers) = (latent::yes_sum(&answered).unwrap_or(0.0), answered.len());
    let table: Vec<String> = latent::published::NUMBER_GUESSING_SUM
        .iter()
        .filter(|(m, _)| ["GPT-4o-2024-08-06", "GPT-4.1-2025-04-14", "LLaMA-3.1-405B", "DeepSeek-R1"].contains(m))
        .map(|(m, v)| format!("{m} {v}"))
        .collect();
    Some(LlmPanel {
        id: "number-guessing".into(),
        title: "Number Guessing: P(yes) to \"is it k?\"".into(),
        x_desc: "k".into(),
        y_desc: "P(yes)".into(),
        y_range: (0.0, 1.0),
        x_labels: None,
        series: vec![Series { label: "this run".into(), points, reference: false }],
        note: Some(format!(
            "Sum over k: {sum:.3} from {answers} answers (a model that holds one number: 1; one that always says no: \
             0). Paper, Table 1 (200 answers per k): {}. Ask each k many times (Repeats) for the probabilities.",
            table.join(", ")
        )),
        intervals: Vec::new(),
    })
}

/// Yes-No Deduction's pass rate (no contradiction) and Math Magic's consistent answers, beside GPT-4o's
/// and GPT-4o-Mini's in the paper (Tables 4 and 6a).
fn latent_panel(lat: &[&Outcome]) -> Option<LlmPanel> {
    let rate = |task: &str, metric: &str| {
        let v: Vec<f64> = lat
            .iter()
            .filter(|o| o.task == task && o.error.is_none())
            .filter_map(|o| o.scores.get(metric).copied())
            .collect();
        Some((mean(&v)?, v))
    };
    let cats = [(latent::LatentTask::YesNo.as_str(), "pass"), (latent::LatentTask::MathMagic.as_str(), "same_number")];
    let (mut points, mut intervals) = (Vec::new(), Vec::new());
    for (i, (task, metric)) in cats.iter().enumerate() {
        if let Some((m, v)) = rate(task, metric) {
            points.push((i as f64, m));
            if let Ok((lo, hi)) = crate::stats::ci_mean(&v, 0.95) {
                intervals.push((0, i as f64, lo.max(0.0), hi.min(1.0)));
            }
        }
    }
    if points.is_empty() {
        return None;
    }
    let series = vec![
        Series { label: "this run".into(), points, reference: false },
        Series { label: "paper: GPT-4o".into(), points: vec![(0.0, 27.0 / 200.0), (1.0, 0.020)], reference: true },
        Series { label: "paper: GPT-4o-Mini".into(), points: vec![(0.0, 0.0), (1.0, 0.0)], reference: true },
    ];
    Some(LlmPanel {
        id: "latent".into(),
        title: "Latent state: deductions without a contradiction, tricks that add up".into(),
        x_desc: "task".into(),
        y_desc: "fraction of trials".into(),
        y_range: (0.0, 1.0),
        x_labels: Some(vec!["Yes-No: no contradiction".into(), "Math Magic: same number".into()]),
        series,
        note: Some(
            "Paper: Yes-No within 250 questions over 200 trials (Table 4), Math Magic without CoT over 150 trials \
             (Table 6a; GPT-4o-2024-08-06). Bars: 95 % t interval of this run's mean over trials."
                .into(),
        ),
        intervals,
    })
}

/// The published PI-LLM curves drawn beside a run at the paper's setting (46 keys, values as they are,
/// random order).
const PI_REFERENCES: [&str; 4] = ["gpt-4.1", "claude-3.5-sonnet", "gemini-2.0-flash", "qwen3-0.6b"];

/// PI-LLM: accuracy (the fraction of keys whose last value was given) against log10 of the updates per
/// key, a series per (keys, value length, order) with 95 % t intervals over sessions, the fitted line's
/// slope and IES in the note, and four of the authors' published curves when the run is at their
/// setting.
fn pi_panel(pi: &[&Outcome]) -> LlmPanel {
    let kind = |o: &Outcome| {
        let c = |k: &str| o.conditions.get(k).cloned().unwrap_or_default();
        (o.task.clone(), c("keys"), c("value_len"))
    };
    let mut kinds: Vec<(String, String, String)> = pi.iter().map(|o| kind(o)).collect();
    kinds.sort();
    kinds.dedup();
    let (mut series, mut intervals, mut fits) = (Vec::new(), Vec::new(), Vec::new());
    for k in &kinds {
        let mut levels: BTreeMap<usize, Vec<f64>> = BTreeMap::new();
        for o in pi.iter().filter(|o| o.error.is_none() && kind(o) == *k) {
            if let (Some(u), Some(v)) = (cond_num(o, "updates"), o.scores.get("last_values"))
                && u >= 1.0
                && v.is_finite()
            {
                levels.entry(u as usize).or_default().push(*v);
            }
        }
        // (updates, mean accuracy) per level: fitted as they are, drawn on log10 updates.
        let mut raw = Vec::new();
        for (u, vals) in &levels {
            if let Some(m) = mean(vals) {
                raw.push((*u as f64, m));
                if let Ok((lo, hi)) = crate::stats::ci_mean(vals, 0.95) {
                    intervals.push((series.len(), (*u as f64).log10(), lo.max(0.0), hi.min(1.0)));
                }
            }
        }
        let points: Vec<(f64, f64)> = raw.iter().map(|&(u, y)| (u.log10(), y)).collect();
        let mut label = format!("this run: {} keys", k.1);
        if k.2 != "1" {
            label.push_str(&format!(", values of {}", k.2));
        }
        if k.0.ends_with("sequential") {
            label.push_str(", sequential");
        }
        if let Some(f) = pi::log_fit(&raw) {
            fits.push(format!("{label}: {:+.3} a decade, IES {:.2}", f.slope, f.ies));
        }
        series.push(Series { label, points, reference: false });
    }
    let at_paper = kinds.iter().any(|k| k.0 == "pi-llm" && k.1 == pi::PAPER_KEYS.to_string() && k.2 == "1");
    if at_paper {
        for (model, row) in pi::published::REPORTED.iter().filter(|(m, _)| PI_REFERENCES.contains(m)) {
            let points = pi::PAPER_UPDATES.iter().zip(row).map(|(&u, &a)| ((u as f64).log10(), a)).collect();
            series.push(Series { label: format!("paper: {model}"), points, reference: true });
        }
    }
    let mut note = String::from(
        "x: log10 of the updates per key (2 → 0.3, 400 → 2.6). Line fitted to accuracy on log10 updates; IES: the \
         area under accuracy over log10 updates, over its span (1 = all right at every level).",
    );
    if !fits.is_empty() {
        note.push(' ');
        note.push_str(&fits.join("; "));
        note.push('.');
    }
    note.push_str(if at_paper {
        " Published curves: the authors' project page (46 keys, 5–50 sessions a level)."
    } else {
        " The published curves are at 46 keys with values as they are, in random order: not drawn for this run."
    });
    if !intervals.is_empty() {
        note.push_str(" Bars: 95 % t interval over sessions.");
    }
    LlmPanel {
        id: "pi-llm".into(),
        title: "PI-LLM: last values against updates per key".into(),
        x_desc: "updates per key (log10)".into(),
        y_desc: "keys right".into(),
        y_range: (0.0, 1.0),
        x_labels: None,
        series,
        note: Some(note),
        intervals,
    }
}

/// Several models' runs of the same suites side by side: each panel once, with every model's own series
/// in it named after the model ("this run" becomes the model's name, "N = 1" becomes "model: N = 1") and
/// the published references once. Category axes (Minerva's tasks) are merged by name, so a model missing
/// a category keeps its points on the right ones. The notes are the first model's.
pub fn panels_of_models(runs: &[(String, Vec<Outcome>)]) -> Vec<LlmPanel> {
    let mut out: Vec<LlmPanel> = Vec::new();
    for (model, outcomes) in runs {
        for p in panels(outcomes) {
            let slot = match out.iter().position(|q| q.id == p.id) {
                Some(i) => i,
                None => {
                    out.push(LlmPanel { series: Vec::new(), intervals: Vec::new(), ..p.clone() });
                    out.len() - 1
                }
            };
            let merged = &mut out[slot];
            // This model's category x → the merged panel's.
            let x_map: Option<Vec<f64>> = p.x_labels.as_ref().map(|labels| {
                labels
                    .iter()
                    .map(|l| {
                        let all = merged.x_labels.get_or_insert_with(Vec::new);
                        let i = all.iter().position(|x| x == l).unwrap_or_else(|| {
                            all.push(l.clone());
                            all.len() - 1
                        });
                        i as f64
                    })
                    .collect()
            });
            let move_x = |x: f64| match &x_map {
                Some(m) => m.get(x as usize).copied().unwrap_or(x),
                None => x,
            };
            for (i, s) in p.series.iter().enumerate() {
                if s.reference && merged.series.iter().any(|r| r.reference && r.label == s.label) {
                    continue;
                }
                let label = if s.reference {
                    s.label.clone()
                } else if s.label == "this run" {
                    model.clone()
                } else if let Some(rest) = s.label.strip_prefix("this run") {
                    format!("{model}{rest}")
                } else {
                    format!("{model}: {}", s.label)
                };
                let at = merged.series.len();
                merged.series.push(Series {
                    label,
                    points: s.points.iter().map(|&(x, y)| (move_x(x), y)).collect(),
                    reference: s.reference,
                });
                merged
                    .intervals
                    .extend(p.intervals.iter().filter(|iv| iv.0 == i).map(|&(_, x, lo, hi)| (at, move_x(x), lo, hi)));
            }
        }
    }
    out
}

/// The score a suite's outcome is judged by: N-back's accuracy, LRT's first integer, Minerva's
/// headline; `None` for a failed outcome.
fn outcome_score(o: &Outcome) -> Option<f64> {
    if o.error.is_some() {
        return None;
    }
    let v = match o.suite {
        Suite::Nback => o.scores.get("accuracy").copied(),
        Suite::Lrt => o.scores.get("first_integer").copied(),
        Suite::Minerva => headline_score(o),
        Suite::Pi => o.scores.get("last_values").copied(),
        _ => None,
    };
    v.filter(|v| v.is_finite())
}

/// How a reasoning model's score goes with how long it thought (issue 49): per suite, its outcomes
/// sorted by reasoning tokens per request and cut into up to five groups of equal size, each drawn at
/// its mean tokens and mean score. Drawn when two outcomes or more of a suite report reasoning tokens.
fn reasoning_panel(outcomes: &[Outcome]) -> Option<LlmPanel> {
    let mut series = Vec::new();
    for (suite, name) in [(Suite::Nback, "N-back accuracy"), (Suite::Lrt, "LRT"), (Suite::Minerva, "Minerva")] {
        let mut pts: Vec<(f64, f64)> = outcomes
            .iter()
            .filter(|o| o.suite == suite && o.tokens_reasoning > 0)
            .filter_map(|o| Some((o.tokens_reasoning as f64 / o.requests.max(1) as f64, outcome_score(o)?)))
            .collect();
        if pts.len() < 2 {
            continue;
        }
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let groups = pts.len().min(5);
        let points = (0..groups)
            .filter_map(|g| {
                let part = &pts[g * pts.len() / groups..(g + 1) * pts.len() / groups];
                let xs: Vec<f64> = part.iter().map(|p| p.0).collect();
                let ys: Vec<f64> = part.iter().map(|p| p.1).collect();
                Some((mean(&xs)?, mean(&ys)?))
            })
            .collect();
        series.push(Series { label: name.to_string(), points, reference: false });
    }
    (!series.is_empty()).then(|| LlmPanel {
        id: "reasoning".into(),
        title: "Score against reasoning tokens".into(),
        x_desc: "reasoning tokens per request".into(),
        y_desc: "score".into(),
        y_range: (0.0, 1.0),
        x_labels: None,
        series,
        note: Some(
            "Each point: a fifth of the run's samples (fewer with fewer samples), grouped by how many reasoning \
             tokens the provider counted per request, at their mean tokens and mean score. Providers that do not \
             count reasoning tokens apart (Anthropic) give none."
                .into(),
        ),
        intervals: Vec::new(),
    })
}

fn nback_panels(nb: &[&Outcome]) -> Vec<LlmPanel> {
    let (variant, protocol) = nback_kind(nb);
    let kind = format!("{}, {}", variant.map_or("?", |v| v.as_str()), protocol.map_or("?", |p| p.as_str()));
    let n_of = |o: &Outcome| cond_num(o, "n");
    let reported = match (variant, protocol) {
        (Some(v), Some(p)) => nback::reported_for(v, p),
        _ => Vec::new(),
    };
    let mut rates = Vec::new();
    let mut dp = Vec::new();
    for (metric, label) in [("hit_rate", "HR"), ("false_alarm_rate", "FAR"), ("accuracy", "accuracy")] {
        rates.push(Series {
            label: format!("this run: {label}"),
            points: by_x(nb.iter().copied(), n_of, metric),
            reference: false,
        });
    }
    dp.push(Series {
        label: "this run: d′".into(),
        points: by_x(nb.iter().copied(), n_of, "dprime_notebook"),
        reference: false,
    });
    // Files in reported_for's order; rates only for the first (GPT-3.5, or GPT-4 for letters_30).
    let mut files: Vec<&str> = reported.iter().map(|r| r.results_file.as_str()).collect();
    files.dedup();
    for (i, file) in files.iter().enumerate() {
        let rows: Vec<&nback::ReportedSummary> = reported.iter().filter(|r| r.results_file == *file).collect();
        let model = rows[0].model.clone();
        if i == 0 {
            for (label, f) in [
                ("HR", (|r: &nback::ReportedSummary| r.hit_rate.0) as fn(&nback::ReportedSummary) -> f64),
                ("FAR", |r| r.false_alarm_rate.0),
                ("accuracy", |r| r.accuracy.0),
            ] {
                rates.push(Series {
                    label: format!("{model}: {label}"),
                    points: rows.iter().map(|r| (r.n as f64, f(r) / 100.0)).collect(),
                    reference: true,
                });
            }
        }
        dp.push(Series {
            label: format!("{model}: d′"),
            points: rows.iter().map(|r| (r.n as f64, r.dprime.0)).collect(),
            reference: true,
        });
    }
    // Blocks per N in this run (the most of any N) against the published means'.
    let mut per_n: BTreeMap<String, usize> = BTreeMap::new();
    for o in nb.iter().filter(|o| o.error.is_none() && o.scores.contains_key("dprime_notebook")) {
        *per_n.entry(o.conditions.get("n").cloned().unwrap_or_default()).or_default() += 1;
    }
    let run_blocks = per_n.values().copied().max().unwrap_or(0);
    let note = match reported.first() {
        None => {
            Some(format!("The papers published no run of this variant and protocol ({kind}); only this run is drawn."))
        }
        Some(r) if r.blocks_used != run_blocks => Some(format!(
            "This run: {run_blocks} block{} per N; the published means are over {} blocks of {} trials — \
             compare with that in mind.",
            if run_blocks == 1 { "" } else { "s" },
            r.blocks_used,
            r.trials_per_block
        )),
        Some(_) => None,
    };
    let dnote = {
        let def = "d′ as the paper's notebook computes it on both sides: |z(HR) − z(FAR)|, rates clipped to [.01, .99] \
                   (the README's signed d′ is in the outcomes as `dprime`).";
        Some(match &note {
            Some(n) => format!("{n} {def}"),
            None => def.to_string(),
        })
    };
    let ys = dp.iter().flat_map(|s| s.points.iter().map(|p| p.1));
    let (lo, hi) = ys.fold((0.0f64, 1.0f64), |(a, b), y| (a.min(y), b.max(y)));
    vec![
        LlmPanel {
            id: "nback-rates".into(),
            title: format!("N-back ({kind}): rates vs N"),
            x_desc: "N".into(),
            y_desc: "rate".into(),
            y_range: (0.0, 1.0),
            x_labels: None,
            series: rates,
            note,
            intervals: Vec::new(),
        },
        LlmPanel {
            id: "nback-dprime".into(),
            title: format!("N-back ({kind}): d′ vs N"),
            x_desc: "N".into(),
            y_desc: "d′".into(),
            y_range: (lo.floor(), hi.ceil()),
            x_labels: None,
            series: dp,
            note: dnote,
            intervals: Vec::new(),
        },
    ]
}

/// An LRT outcome's series: its order and block size (0 for ordered lines, at least 1 when shuffled).
fn lrt_kind(o: &Outcome) -> Option<(String, usize)> {
    let order = o.conditions.get("order")?.clone();
    let block = o.conditions.get("block").and_then(|b| b.parse::<usize>().ok()).unwrap_or(1);
    Some(if order == "ordered" { (order, 0) } else { (order, block.max(1)) })
}

fn lrt_panel(lr: &[&Outcome]) -> LlmPanel {
    let mut series = Vec::new();
    let mut kinds: Vec<(String, usize)> = lr.iter().filter_map(|o| lrt_kind(o)).collect();
    kinds.sort();
    kinds.dedup();
    for kind in &kinds {
        let pts = by_x(
            lr.iter().copied().filter(|o| lrt_kind(o).as_ref() == Some(kind)),
            |o| cond_num(o, "lines"),
            "first_integer",
        );
        series.push(Series {
            label: format!("this run: {}", lrt_order_label(&kind.0, kind.1)),
            points: pts,
            reference: false,
        });
    }
    let has = |o: &str, b: usize| kinds.iter().any(|k| k.0 == o && (o == "ordered" || k.1 == b));
    for (model, order, rates) in lrt::REPORTED {
        // The README's "shuffled" curves are full shuffles (B = 1).
        if has(order, 1) || !kinds.iter().any(|k| k.0 == "shuffled") {
            series.push(Series {
                label: format!("{model}: {order}"),
                points: lrt::DEFAULT_LINES.iter().zip(rates.iter()).map(|(x, y)| (*x as f64, *y)).collect(),
                reference: true,
            });
        }
    }
    for (b, rates) in lrt::REPORTED_BLOCK_SHUFFLE {
        if has("shuffled", *b) {
            series.push(Series {
                label: format!("README: shuffled, B = {b}"),
                points: lrt::DEFAULT_LINES.iter().zip(rates.iter()).map(|(x, y)| (*x as f64, *y)).collect(),
                reference: true,
            });
        }
    }
    let odd: Vec<usize> = kinds
        .iter()
        .filter(|k| k.0 == "shuffled" && k.1 > 1 && !lrt::REPORTED_BLOCK_SHUFFLE.iter().any(|r| r.0 == k.1))
        .map(|k| k.1)
        .collect();
    let note = (!odd.is_empty()).then(|| {
        format!(
            "The README published block shuffles with B = {} only; this run's B = {} has no published curve.",
            lrt::REPORTED_BLOCK_SHUFFLE.iter().map(|r| r.0.to_string()).collect::<Vec<_>>().join(" and "),
            odd.iter().map(|b| b.to_string()).collect::<Vec<_>>().join(", ")
        )
    });
    LlmPanel {
        id: "lrt".into(),
        title: "Little Retrieval Test: success vs lines".into(),
        x_desc: "lines".into(),
        y_desc: "success rate".into(),
        y_range: (0.0, 1.0),
        x_labels: None,
        series,
        note,
        intervals: Vec::new(),
    }
}

fn minerva_panel(mv: &[&Outcome]) -> LlmPanel {
    // Tasks in the snapshot's (category-grouped) order.
    let mut tasks: Vec<&str> =
        snapshot::FILES.iter().map(|f| f.1).filter(|t| mv.iter().any(|o| o.task == *t)).collect();
    for o in mv {
        if !tasks.contains(&o.task.as_str()) {
            tasks.push(&o.task);
        }
    }
    let source_of = |o: &Outcome| o.conditions.get("source").map_or("generated", |s| s.as_str()).to_string();
    let mut series = Vec::new();
    let mut intervals = Vec::new();
    for source in ["snapshot", "generated"] {
        let mut mine = Vec::new();
        for (i, t) in tasks.iter().enumerate() {
            let metric = headline(t);
            let vals: Vec<f64> = mv
                .iter()
                .filter(|o| o.task == *t && o.error.is_none() && source_of(o) == source)
                .filter_map(|o| o.scores.get(&metric).copied())
                .filter(|v| v.is_finite())
                .collect();
            if let Some(m) = mean(&vals) {
                mine.push((i as f64, m));
                if let Ok((lo, hi)) = crate::stats::ci_mean(&vals, 0.95) {
                    intervals.push((series.len(), i as f64, lo.max(0.0), hi.min(1.0)));
                }
            }
        }
        if mv.iter().any(|o| source_of(o) == source) {
            series.push(Series { label: format!("this run ({source})"), points: mine, reference: false });
        }
    }
    for model in ["gpt-4o", "llama-3.1-8b"] {
        let pts: Vec<(f64, f64)> = tasks
            .iter()
            .enumerate()
            .filter_map(|(i, t)| snapshot::reported_value(model, t).map(|v| (i as f64, v)))
            .collect();
        series.push(Series { label: format!("paper: {model}"), points: pts, reference: true });
    }
    let cats: Vec<String> = tasks.iter().map(|t| minerva::task_category(t).unwrap_or("?").to_string()).collect();
    let mut cat_list = cats.clone();
    cat_list.dedup();
    LlmPanel {
        id: "minerva".into(),
        title: format!("Minerva: headline score per task ({})", cat_list.join(", ").replace('_', " ")),
        x_desc: "task".into(),
        y_desc: "score".into(),
        y_range: (0.0, 1.0),
        x_labels: Some(tasks.iter().map(|t| t.to_string()).collect()),
        series,
        note: (!intervals.is_empty()).then(|| {
            "Bars: 95 % t confidence interval of this run's mean over each task's samples (clipped to [0, 1]); \
             a task with one sample, or the same score on every sample, has none."
                .to_string()
        }),
        intervals,
    }
}

/// The headline metric of a Minerva task.
fn headline(task: &str) -> String {
    minerva::task_metrics(task).first().map(|m| m.as_str()).unwrap_or("exact_match").to_string()
}

/// Error-free outcomes' headline scores.
fn headline_score(o: &Outcome) -> Option<f64> {
    o.error.is_none().then(|| o.scores.get(&headline(&o.task)).copied()).flatten().filter(|v| v.is_finite())
}

/// Fig. 1: the run's mean headline score per test category, beside the same mean of two of the paper's
/// models over the run's tasks the paper reports in numbers (Tables 2–6; the categories drawn only as
/// figures there have none). Drawn when the run covers two categories or more.
fn minerva_categories_panel(mv: &[&Outcome]) -> Option<LlmPanel> {
    let mut cats: Vec<&'static str> = Vec::new();
    for (task, cat, _) in minerva::TASKS.iter().chain(minerva::EXTRA_TASKS) {
        if mv.iter().any(|o| o.task == *task) && !cats.contains(cat) {
            cats.push(cat);
        }
    }
    if cats.len() < 2 {
        return None;
    }
    let in_cat = |o: &&&Outcome, cat: &str| minerva::task_category(&o.task) == Some(cat);
    let mine: Vec<(f64, f64)> = cats
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            let v: Vec<f64> = mv.iter().filter(|o| in_cat(o, c)).filter_map(|o| headline_score(o)).collect();
            Some((i as f64, mean(&v)?))
        })
        .collect();
    let mut series = vec![Series { label: "this run".into(), points: mine, reference: false }];
    for model in ["gpt-4o", "llama-3.1-8b"] {
        let pts = cats
            .iter()
            .enumerate()
            .filter_map(|(i, c)| {
                // The category's tasks this run has, each once (outcomes of a task need not be adjacent).
                let tasks: Vec<&str> = minerva::TASKS
                    .iter()
                    .chain(minerva::EXTRA_TASKS)
                    .filter(|(t, cat, _)| cat == c && mv.iter().any(|o| o.task == *t))
                    .map(|t| t.0)
                    .collect();
                let v: Vec<f64> = tasks.iter().filter_map(|t| snapshot::reported_value(model, t)).collect();
                // Only where the paper reports every task of the category this run has.
                (v.len() == tasks.len()).then(|| mean(&v)).flatten().map(|m| (i as f64, m))
            })
            .collect();
        series.push(Series { label: format!("paper: {model}"), points: pts, reference: true });
    }
    Some(LlmPanel {
        id: "minerva-categories".into(),
        title: "Minerva: mean score per category (Fig. 1)".into(),
        x_desc: "category".into(),
        y_desc: "mean headline score".into(),
        y_range: (0.0, 1.0),
        x_labels: Some(cats.iter().map(|c| c.replace('_', " ")).collect()),
        series,
        note: Some(
            "Each category's mean of its tasks' headline scores (exact match, ROUGE-L or Jaccard), over this run's \
             samples; the paper's models over the same tasks where Tables 2–6 give numbers (recall and edit, match and \
             compare and spot the differences are figures only in the paper)."
                .into(),
        ),
        intervals: Vec::new(),
    })
}

/// Fig. 2: string search with a subsequence, by subsequence length: the share of present subsequences
/// answered "no" (false negatives) and of absent ones answered "yes" (false positives).
fn minerva_subsequence_panel(mv: &[&Outcome]) -> Option<LlmPanel> {
    let ss: Vec<&&Outcome> = mv.iter().filter(|o| o.task == "string_search_sequence" && o.error.is_none()).collect();
    let rate = |label: &str| -> Vec<(f64, f64)> {
        let mut g: BTreeMap<i64, Vec<f64>> = BTreeMap::new();
        for o in &ss {
            if o.conditions.get("label").map(String::as_str) != Some(label) {
                continue;
            }
            if let (Some(len), Some(v)) = (cond_num(o, "sequence_length"), o.scores.get("exact_match")) {
                g.entry(len as i64).or_default().push(if *v >= 0.5 { 0.0 } else { 1.0 });
            }
        }
        g.into_iter().filter_map(|(x, v)| Some((x as f64, mean(&v)?))).collect()
    };
    let (fneg, fpos) = (rate("yes"), rate("no"));
    if fneg.is_empty() && fpos.is_empty() {
        return None;
    }
    Some(LlmPanel {
        id: "minerva-subsequence".into(),
        title: "Minerva: string search (subsequence) errors by length (Fig. 2)".into(),
        x_desc: "subsequence length (words)".into(),
        y_desc: "error rate".into(),
        y_range: (0.0, 1.0),
        x_labels: None,
        series: vec![
            Series { label: "false negatives (present, answered no)".into(), points: fneg, reference: false },
            Series { label: "false positives (absent, answered yes)".into(), points: fpos, reference: false },
        ],
        note: Some(
            "An answer that is neither yes nor no counts as an error on its side. The paper's Fig. 2 (GPT-4o, \
             Mistral, Phi-3-medium) is given as a picture only."
                .into(),
        ),
        intervals: Vec::new(),
    })
}

/// Tables 7 and 11: each task run at two context lengths or more, its headline score against the length,
/// beside the published sweep of the same task.
fn minerva_length_panels(mv: &[&Outcome]) -> Vec<LlmPanel> {
    let mut tasks: Vec<&str> = Vec::new();
    for o in mv {
        if !tasks.contains(&o.task.as_str()) && !minerva::STATEFUL.contains(&o.task.as_str()) {
            tasks.push(&o.task);
        }
    }
    let mut out = Vec::new();
    for task in tasks {
        let of_task = || mv.iter().copied().filter(|o| o.task == task);
        let mine = by_x(of_task(), |o| cond_num(o, "context_length"), &headline(task));
        if mine.len() < 2 {
            continue;
        }
        let mut series = vec![Series { label: "this run".into(), points: mine, reference: false }];
        let mut sources = Vec::new();
        for sweep in snapshot::LENGTH_SWEEPS.iter().filter(|s| s.task == task) {
            sources.push(sweep.source);
            for (model, vals) in sweep.rows {
                let points = sweep.lengths.iter().zip(vals.iter()).map(|(l, v)| (*l as f64, *v)).collect();
                series.push(Series { label: format!("paper: {model}"), points, reference: true });
            }
        }
        let from = if sources.is_empty() { String::new() } else { format!(" ({})", sources.join(", ")) };
        out.push(LlmPanel {
            id: format!("minerva-length-{task}"),
            title: format!("Minerva: {} vs context length{from}", task.replace('_', " ")),
            x_desc: "context length (tokens)".into(),
            y_desc: headline(task).replace('_', " "),
            y_range: (0.0, 1.0),
            x_labels: None,
            series,
            note: None,
            intervals: Vec::new(),
        });
    }
    out
}

/// Fig. 6: the stateful tasks run at two step counts or more, their headline score against the steps.
fn minerva_steps_panel(mv: &[&Outcome]) -> Option<LlmPanel> {
    let series: Vec<Series> = ["quantity_state", "set_state", "theory_of_mind"]
        .iter()
        .filter_map(|t| {
            let points = by_x(mv.iter().copied().filter(|o| o.task == *t), |o| cond_num(o, "step"), &headline(t));
            (points.len() >= 2).then(|| Series { label: t.replace('_', " "), points, reference: false })
        })
        .collect();
    (!series.is_empty()).then(|| LlmPanel {
        id: "minerva-steps".into(),
        title: "Minerva: stateful tasks vs number of operation steps (Fig. 6)".into(),
        x_desc: "operation steps".into(),
        y_desc: "score".into(),
        y_range: (0.0, 1.0),
        x_labels: None,
        series,
        note: Some("The paper's Fig. 6 is given as a picture only.".into()),
        intervals: Vec::new(),
    })
}

/// Tables 8 and 12: a task run in both wordings of its instruction (on the same trials), its headline
/// score in each with the 95 % t interval, beside the paper's models with their printed intervals.
fn minerva_variant_panels(mv: &[&Outcome]) -> Vec<LlmPanel> {
    let mut out = Vec::new();
    for pv in snapshot::PROMPT_VARIANTS {
        let metric = headline(pv.task);
        let scores = |v: &str| -> Vec<f64> {
            mv.iter()
                .filter(|o| o.task == pv.task && o.error.is_none())
                .filter(|o| o.conditions.get("prompt_variant").map(String::as_str) == Some(v))
                .filter_map(|o| o.scores.get(&metric).copied())
                .filter(|x| x.is_finite())
                .collect()
        };
        let (one, two) = (scores("1"), scores("2"));
        let (Some(m1), Some(m2)) = (mean(&one), mean(&two)) else { continue };
        let mut series =
            vec![Series { label: "this run".into(), points: vec![(0.0, m1), (1.0, m2)], reference: false }];
        let mut intervals = Vec::new();
        for (x, vals) in [(0.0, &one), (1.0, &two)] {
            if let Ok((lo, hi)) = crate::stats::ci_mean(vals, 0.95) {
                intervals.push((0, x, lo.max(0.0), hi.min(1.0)));
            }
        }
        for (model, vars) in pv.rows {
            intervals.push((series.len(), 0.0, vars[0].1, vars[0].2));
            intervals.push((series.len(), 1.0, vars[1].1, vars[1].2));
            series.push(Series {
                label: format!("paper: {model}"),
                points: vec![(0.0, vars[0].0), (1.0, vars[1].0)],
                reference: true,
            });
        }
        out.push(LlmPanel {
            id: format!("minerva-variants-{}", pv.task),
            title: format!("Minerva: {}, two wordings of the instruction ({})", pv.name, pv.source),
            x_desc: "instruction wording".into(),
            y_desc: metric.replace('_', " "),
            y_range: (0.0, 1.0),
            x_labels: Some(vec!["wording 1 (the paper's prompt)".into(), "wording 2".into()]),
            series,
            note: Some(format!(
                "Both wordings were asked on the same {} trials; bars: 95 % t interval of this run's mean, and the \
                 paper's printed intervals.",
                one.len().min(two.len())
            )),
            intervals,
        });
    }
    out
}

/// The N-back paper's tests on this run's per-block d′ (notebook definition), and the same tests on the
/// published blocks of the same variant and protocol where the per-block file has them.
pub fn nback_tests(outcomes: &[Outcome]) -> Option<(nback::DprimeTests, Option<(String, nback::DprimeTests)>)> {
    let nb = nback_outcomes(outcomes);
    let per_block: Vec<(u8, f64)> = nb
        .iter()
        .filter(|o| o.error.is_none())
        .filter_map(|o| Some((o.conditions.get("n")?.parse().ok()?, *o.scores.get("dprime_notebook")?)))
        .filter(|p: &(u8, f64)| p.1.is_finite())
        .collect();
    if per_block.is_empty() {
        return None;
    }
    let (variant, protocol) = nback_kind(&nb);
    let published = variant.zip(protocol).and_then(|(v, p)| {
        let reported = nback::reported_for(v, p);
        let first = reported.first()?;
        nback::reported_file_tests(&first.results_file).map(|t| (first.model.clone(), t))
    });
    Some((nback::dprime_tests(&per_block), published))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(suite: Suite, conditions: &[(&str, &str)], scores: &[(&str, f64)]) -> Outcome {
        let v = serde_json::json!({
            "sample_id": "s", "suite": suite, "task": "t", "latency_ms": 0.0, "requests": 1, "tokens_in": 0, "tokens_out": 0,
            "conditions": conditions.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<BTreeMap<_, _>>(),
            "scores": scores.iter().map(|(k, v)| (k.to_string(), *v)).collect::<BTreeMap<_, _>>(),
        });
        serde_json::from_value(v).expect("an Outcome from its JSON")
    }

    fn nb(variant: &str, protocol: &str, n: u8, dprime: f64, signed: f64) -> Outcome {
        outcome(
            Suite::Nback,
            &[("variant", variant), ("protocol", protocol), ("n", &n.to_string())],
            &[
                ("hit_rate", 0.5),
                ("false_alarm_rate", 0.1),
                ("accuracy", 0.8),
                ("dprime_notebook", dprime),
                ("dprime", signed),
            ],
        )
    }

    #[test]
    fn nback_is_drawn_against_the_same_protocol_with_the_notebook_dprime() {
        let run: Vec<Outcome> =
            (1..=3).flat_map(|n| (0..4).map(move |b| nb("letters", "noise", n, 1.0 + b as f64, -2.0))).collect();
        let ps = panels(&run);
        let dp = ps.iter().find(|p| p.id == "nback-dprime").unwrap();
        assert!(dp.title.contains("letters, noise"));
        // This run's d′ is the notebook one (mean of 1..4 = 2.5), not the signed README one (−2).
        assert_eq!(dp.series[0].points, vec![(1.0, 2.5), (2.0, 2.5), (3.0, 2.5)]);
        // The reference is GPT-3.5 with noise (0.89 / 0.76 / 0.71), not the base run (3.53 / …).
        assert_eq!(dp.series.len(), 2);
        assert_eq!(dp.series[1].points, vec![(1.0, 0.89), (2.0, 0.76), (3.0, 0.71)]);
        let note = dp.note.as_deref().unwrap();
        assert!(note.contains("4 blocks per N") && note.contains("over 50 blocks"), "{note}");
        assert!(note.contains("clipped"), "{note}");
    }

    #[test]
    fn letters_30_is_drawn_against_gpt4_and_the_open_models_and_no_note_at_30_blocks() {
        let run: Vec<Outcome> =
            (1..=3).flat_map(|n| (0..30).map(move |_| nb("letters_30", "readme", n, 2.0, 2.0))).collect();
        let ps = panels(&run);
        let rates = ps.iter().find(|p| p.id == "nback-rates").unwrap();
        assert!(rates.note.is_none(), "{:?}", rates.note);
        assert!(rates.series.iter().filter(|s| s.reference).all(|s| s.label.starts_with("GPT-4")));
        let dp = ps.iter().find(|p| p.id == "nback-dprime").unwrap();
        assert_eq!(dp.series.iter().filter(|s| s.reference).count(), 7);
        // letters (24 trials, base) is not drawn against GPT-4.
        let run: Vec<Outcome> = (1..=3).map(|n| nb("letters", "base", n, 2.0, 2.0)).collect();
        let ps = panels(&run);
        assert!(ps.iter().flat_map(|p| &p.series).all(|s| !s.label.starts_with("GPT-4")));
        // No published run: said, and only the run is drawn.
        let ps = panels(&[nb("grids_4x4", "noise", 1, 1.0, 1.0)]);
        assert!(ps[0].note.as_deref().unwrap().contains("published no run"));
        assert!(ps[0].series.iter().all(|s| !s.reference));
    }

    #[test]
    fn lrt_block_sizes_are_never_merged() {
        let lrt = |order: &str, block: &str, lines: &str, v: f64| {
            outcome(Suite::Lrt, &[("order", order), ("block", block), ("lines", lines)], &[("first_integer", v)])
        };
        let run = vec![
            lrt("ordered", "0", "500", 1.0),
            lrt("shuffled", "1", "500", 0.0),
            lrt("shuffled", "10", "500", 1.0),
            lrt("shuffled", "10", "500", 1.0),
            lrt("shuffled", "7", "500", 1.0),
        ];
        let p = &panels(&run)[0];
        let own: Vec<(&str, f64)> =
            p.series.iter().filter(|s| !s.reference).map(|s| (s.label.as_str(), s.points[0].1)).collect();
        assert_eq!(
            own,
            vec![
                ("this run: ordered", 1.0),
                ("this run: shuffled", 0.0),
                ("this run: shuffled, B = 7", 1.0),
                ("this run: shuffled, B = 10", 1.0)
            ]
        );
        let refs: Vec<&str> = p.series.iter().filter(|s| s.reference).map(|s| s.label.as_str()).collect();
        assert!(refs.contains(&"README: shuffled, B = 10"), "{refs:?}");
        assert!(!refs.iter().any(|r| r.contains("B = 250")), "{refs:?}");
        assert!(p.note.as_deref().unwrap().contains("B = 7 has no published curve"));
    }

    #[test]
    fn several_models_share_each_panel_with_the_references_once() {
        let lrt = |order: &str, block: &str, v: f64| {
            outcome(Suite::Lrt, &[("order", order), ("block", block), ("lines", "500")], &[("first_integer", v)])
        };
        let a = vec![lrt("ordered", "0", 1.0), lrt("shuffled", "1", 0.0)];
        let b = vec![lrt("ordered", "0", 0.0), lrt("shuffled", "1", 1.0)];
        let ps = panels_of_models(&[("model-a".into(), a.clone()), ("model-b".into(), b)]);
        assert_eq!(ps.len(), panels(&a).len());
        let own: Vec<(&str, f64)> =
            ps[0].series.iter().filter(|s| !s.reference).map(|s| (s.label.as_str(), s.points[0].1)).collect();
        assert_eq!(
            own,
            [
                ("model-a: ordered", 1.0),
                ("model-a: shuffled", 0.0),
                ("model-b: ordered", 0.0),
                ("model-b: shuffled", 1.0)
            ]
        );
        let refs = ps[0].series.iter().filter(|s| s.reference).count();
        assert_eq!(refs, panels(&a)[0].series.iter().filter(|s| s.reference).count(), "references once");
        // Categories by name: model b has only the second task, and its point and interval land on it.
        let o = |task: &str, v: f64| {
            let mut x = outcome(Suite::Minerva, &[("source", "generated")], &[("exact_match", v)]);
            x.task = task.into();
            x
        };
        let a = vec![o("string_search_word", 1.0), o("count_word", 0.0)];
        let b = vec![o("count_word", 0.2), o("count_word", 0.4), o("count_word", 0.6)];
        let ps = panels_of_models(&[("a".into(), a), ("b".into(), b)]);
        let p = &ps[0];
        let labels = p.x_labels.clone().unwrap();
        let at = labels.iter().position(|l| panels(&[o("count_word", 0.0)])[0].x_labels.as_ref().unwrap()[0] == *l);
        let bs = p.series.iter().position(|s| s.label.starts_with('b')).unwrap();
        assert_eq!(p.series[bs].label, "b (generated)");
        assert_eq!(p.series[bs].points.len(), 1);
        assert_eq!(Some(p.series[bs].points[0].0 as usize), at);
        assert!((p.series[bs].points[0].1 - 0.4).abs() < 1e-12);
        assert_eq!(p.intervals.iter().filter(|iv| iv.0 == bs).count(), 1);
        assert!(p.intervals.iter().all(|iv| iv.0 == bs && iv.1 == at.unwrap() as f64));
    }

    #[test]
    fn minerva_has_confidence_intervals_where_samples_differ() {
        let o = |task: &str, v: f64| {
            let mut x = outcome(Suite::Minerva, &[("source", "generated")], &[("exact_match", v)]);
            x.task = task.into();
            x
        };
        let run = vec![
            o("string_search_word", 0.4),
            o("string_search_word", 0.5),
            o("string_search_word", 0.6),
            o("count_word", 1.0),
        ];
        let p = &panels(&run)[0];
        assert_eq!(p.intervals.len(), 1, "{:?}", p.intervals);
        let (series, x, lo, hi) = p.intervals[0];
        assert!(!p.series[series].reference);
        assert!((p.series[series].points.iter().find(|q| q.0 == x).unwrap().1 - 0.5).abs() < 1e-12);
        // mean 0.5, sd 0.1, n 3: scipy.stats.t.ppf(0.975, 2) = 4.302652729911275 → ±0.2484.
        let half = 4.302652729911275 * 0.1 / 3f64.sqrt();
        assert!((lo - (0.5 - half)).abs() < 1e-9 && (hi - (0.5 + half)).abs() < 1e-9, "{lo} {hi}");
        assert!(p.note.as_deref().unwrap().contains("95 %"));
        // The chart spec carries the interval as its series' error bar, and the tasks as categories.
        let c = p.chart();
        assert_eq!(c.series[series].bars, vec![(x, lo, hi)]);
        assert_eq!(c.series[series].role, Role::Subject);
        assert_eq!(c.categories.len(), 2);
        assert!(c.series.iter().filter(|s| s.role == Role::Reference).all(|s| s.bars.is_empty()));
    }

    #[test]
    fn both_wordings_of_an_instruction_are_drawn_beside_tables_8_and_12() {
        let o = |task: &str, variant: &str, v: f64| {
            mv(task, &[("source", "generated"), ("prompt_variant", variant)], &[("exact_match", v), ("rouge_l", v)])
        };
        let run = vec![
            o("group_association", "1", 1.0),
            o("group_association", "1", 0.0),
            o("group_association", "2", 1.0),
            o("group_association", "2", 1.0),
            o("replace_all", "1", 0.9),
        ];
        let ps = panels(&run);
        assert!(panel(&ps, "minerva-variants-replace_all").is_none(), "one wording: no panel");
        let p = panel(&ps, "minerva-variants-group_association").expect("a wordings panel");
        assert_eq!(p.series[0].points, vec![(0.0, 0.5), (1.0, 1.0)]);
        assert!(p.title.contains("Table 8 (b)"));
        // The paper's three models of Table 8 (b), with their printed intervals (gpt-4o: 0.65 (0.50, 0.78)).
        let refs: Vec<&Series> = p.series.iter().filter(|s| s.reference).collect();
        assert_eq!(refs.len(), 3);
        assert_eq!(refs[0].points, vec![(0.0, 0.65), (1.0, 0.63)]);
        assert!(p.intervals.contains(&(1, 0.0, 0.50, 0.78)));
        // This run's interval at wording 1: mean 0.5, sd 0.707, n 2 (t 12.706) → clipped to [0, 1].
        assert!(p.intervals.contains(&(0, 0.0, 0.0, 1.0)), "{:?}", p.intervals);
        assert_eq!(p.chart().categories.len(), 2);
    }

    #[test]
    fn nback_tests_run_on_the_runs_blocks_and_the_published_ones() {
        let run: Vec<Outcome> = (1..=3)
            .flat_map(|n| (0..6).map(move |b| nb("letters", "base", n, 4.0 - n as f64 + 0.1 * b as f64, 0.0)))
            .collect();
        let (mine, published) = nback_tests(&run).unwrap();
        assert_eq!(mine.levels.len(), 3);
        assert!(mine.kruskal.as_ref().unwrap().p < 0.01);
        let (model, theirs) = published.unwrap();
        assert_eq!(model, "GPT-3.5-turbo");
        assert_eq!(theirs.levels.iter().map(|l| l.1).collect::<Vec<_>>(), vec![50, 50, 50]);
    }

    fn mv(task: &str, conditions: &[(&str, &str)], scores: &[(&str, f64)]) -> Outcome {
        Outcome { task: task.into(), ..outcome(Suite::Minerva, conditions, scores) }
    }

    fn panel<'a>(ps: &'a [LlmPanel], id: &str) -> Option<&'a LlmPanel> {
        ps.iter().find(|p| p.id == id)
    }

    #[test]
    fn minerva_subsequence_errors_split_present_and_absent_by_length() {
        let o = |len: &str, label: &str, em: f64| {
            mv("string_search_sequence", &[("sequence_length", len), ("label", label)], &[("exact_match", em)])
        };
        let outs = vec![
            o("8", "yes", 1.0),
            o("8", "yes", 0.0),
            o("8", "no", 1.0),
            o("64", "yes", 1.0),
            o("64", "no", 0.0),
            o("64", "no", 0.0),
        ];
        let ps = panels(&outs);
        let p = panel(&ps, "minerva-subsequence").expect("Fig. 2 panel");
        assert_eq!(p.series[0].points, vec![(8.0, 0.5), (64.0, 0.0)], "false negatives");
        assert_eq!(p.series[1].points, vec![(8.0, 0.0), (64.0, 1.0)], "false positives");
        assert!(panel(&ps, "minerva-categories").is_none(), "one category: no overview");
    }

    #[test]
    fn minerva_categories_average_tasks_and_the_papers_models_over_the_same_tasks() {
        let outs = vec![
            mv("string_search_word", &[], &[("exact_match", 1.0)]),
            mv("key_value_search", &[], &[("exact_match", 0.5)]),
            mv("count", &[], &[("exact_match", 0.2)]),
        ];
        let ps = panels(&outs);
        let p = panel(&ps, "minerva-categories").expect("Fig. 1 panel");
        assert_eq!(p.x_labels.as_deref(), Some(&["search".to_string(), "match and compare".to_string()][..]));
        assert_eq!(p.series[0].points, vec![(0.0, 0.75), (1.0, 0.2)]);
        let gpt = &p.series[1];
        let want = (snapshot::reported_value("gpt-4o", "string_search_word").unwrap()
            + snapshot::reported_value("gpt-4o", "key_value_search").unwrap())
            / 2.0;
        assert_eq!(gpt.points, vec![(0.0, want)], "count is a figure-only task: no published point");
        // A task's outcomes need not be adjacent (a context sweep interleaves them): each task counts once.
        let mixed = vec![
            mv("string_search_sequence", &[], &[("exact_match", 1.0)]),
            mv("key_value_search", &[], &[("exact_match", 1.0)]),
            mv("count", &[], &[("exact_match", 0.2)]),
            mv("string_search_sequence", &[], &[("exact_match", 0.0)]),
        ];
        let ps = panels(&mixed);
        let gpt = &panel(&ps, "minerva-categories").unwrap().series[1];
        let want = (snapshot::reported_value("gpt-4o", "string_search_sequence").unwrap()
            + snapshot::reported_value("gpt-4o", "key_value_search").unwrap())
            / 2.0;
        assert_eq!(gpt.points, vec![(0.0, want)], "{:?}", gpt.points);
    }

    #[test]
    fn minerva_sweeps_draw_length_and_steps_curves_beside_the_tables() {
        let mut outs = Vec::new();
        for (len, v) in [("1000", 0.5), ("2000", 0.25), ("2000", 0.75)] {
            outs.push(mv("count", &[("context_length", len)], &[("exact_match", v)]));
        }
        for (step, v) in [("50", 0.8), ("100", 0.4)] {
            outs.push(mv("quantity_state", &[("step", step)], &[("final_answer_exact_match", v)]));
        }
        outs.push(mv("key_value_search", &[("context_length", "4000")], &[("exact_match", 1.0)]));
        let ps = panels(&outs);
        let p = panel(&ps, "minerva-length-count").expect("a length panel for count");
        assert_eq!(p.series[0].points, vec![(1000.0, 0.5), (2000.0, 0.5)]);
        assert!(p.title.contains("Table 7 (b)"), "{}", p.title);
        assert_eq!(p.series.len(), 4, "this run and Table 7 (b)'s three models");
        assert!(panel(&ps, "minerva-length-key_value_search").is_none(), "one length: no curve");
        let s = panel(&ps, "minerva-steps").expect("Fig. 6 panel");
        assert_eq!(s.series.len(), 1);
        assert_eq!(s.series[0].points, vec![(50.0, 0.8), (100.0, 0.4)]);
    }

    /// The reasoning panel groups outcomes by reasoning tokens per request (five groups at most) and is
    /// absent when no outcome reports reasoning tokens.
    #[test]
    fn scores_are_drawn_against_reasoning_tokens_when_there_are_some() {
        assert!(
            panels(&[nb("letters", "base", 1, 1.0, 1.0), nb("letters", "base", 2, 1.0, 1.0)])
                .iter()
                .all(|p| p.id != "reasoning")
        );
        let outs: Vec<Outcome> = (0..10)
            .map(|i| {
                let mut o = outcome(Suite::Lrt, &[("lines", "5")], &[("first_integer", if i < 5 { 0.0 } else { 1.0 })]);
                o.requests = 2;
                o.tokens_reasoning = 200 * (i + 1);
                o
            })
            .collect();
        let ps = panels(&outs);
        let p = panel(&ps, "reasoning").expect("the reasoning panel");
        assert_eq!(p.series.len(), 1);
        // Ten samples in five groups of two: tokens per request 100+200, 300+400, …; scores 0, 0, ½, 1, 1.
        assert_eq!(p.series[0].points, vec![(150.0, 0.0), (350.0, 0.0), (550.0, 0.5), (750.0, 1.0), (950.0, 1.0)]);
    }
}

//! The comparison page's pure logic: which results hold which tasks, the per-panel series of many
//! subjects (people, LLMs, networks) beside the published human numbers, published LLM N-back numbers and
//! the chance model, and Table A3 scores A/B of each subject and of the chance model.
//!
//! A subject's curves come from its trial rows through [`crate::people::subject_curves`], so a person, an
//! LLM and a network are put on the axes by the same code. LLM N-back rows (task `<variant>-<N>back`, the
//! text suite's names) are read as the people's N-back kinds when their stimuli are the same kind:
//! `letters` and `letters_30` blocks as `nback-verbal`, `grids_3x3` (identity rule) as `nback-spatial`;
//! other variants (larger grids, the abstraction rules) have no people's counterpart and are left out.
//! A sample that failed (an `error` in its row, or an answer string of the wrong length) is left out too.
//!
//! Panels: one per behavioural panel of [`crate::people::reference`] (VSR: serial position with one curve
//! per list length; VIR and VSRec: one panel per list length; CD and SMU: set size; CS: distractor count;
//! SFR, SC, SI: list length; STS: switches). The N-back panel is split into one panel per measure
//! (accuracy, hit rate, false-alarm rate, d′) on N, since d′ is not on the 0–1 scale of the others.
//! PI-LLM (task `pi-llm`: a person's streams and an LLM's samples alike): one panel, the share of keys
//! whose last value was given (`last_values`) on log10 of the updates per key, one series per subject,
//! with four of the authors' published models (46 keys) as references.
//!
//! The chance model: where the task has human curves, [`crate::analysis::chance_curves`] (flat at
//! [`crate::analysis::chance_level`] on the human x values); elsewhere flat at the chance level on the x
//! values the chosen subjects have; for N-back a coin-flip responder (accuracy, hit and false-alarm rate
//! ½, d′ 0); none for PI-LLM (a typed word has no guessing rate).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::analysis::scores::{ScoreRow, chance_curves, chance_level, table_a3};
use crate::chart::{self, Chart, GREY, INK, Marker, Rgb, Role, n_span, palette};

/// The memoryless model's colour: a warm grey beside the chance model's grey.
pub const MEMORYLESS: Rgb = (0xa0, 0x78, 0x50);
use crate::hash::Fnv64;
use crate::llm::nback::reported_summary;
use crate::people::reference::{Curve, human_curves, subject_curves};
use crate::people::{NbackKind, StudyTask};
use crate::record::{RecordError, ResultRecord, Setting, TrialRow};
use crate::stats::MIN_POINT_N;

/// Version of the [`Comparison`] JSON (inside the `#c=1.` link format).
pub const COMPARISON_SCHEMA: u32 = 1;

/// Extras of a trial row that the curves read; a comparison link keeps only these.
pub const CURVE_EXTRAS: [&str; 5] = ["serial_positions", "block_kind", "n_back", "error", "score_last_values"];

/// A stable id of a record's content (FNV-1a 64 of its JSON without the `created` time), so the same
/// result saved twice is recognised.
pub fn content_id(record: &ResultRecord) -> String {
    let mut r = record.clone();
    r.created = None;
    let json = serde_json::to_vec(&r).expect("a record serialises");
    let mut h = Fnv64::default();
    h.write(&json);
    format!("{:016x}", h.finish())
}

/// The people's N-back kind an LLM N-back row stands for (see the module doc), or `None`.
pub fn llm_nback_kind(row: &TrialRow) -> Option<NbackKind> {
    if !row.task.ends_with("back") {
        return None;
    }
    match row.conditions.other.get("variant").map(|s| s.as_str()) {
        Some("letters" | "letters_30") => Some(NbackKind::Verbal),
        Some("grids_3x3") => Some(NbackKind::Spatial),
        _ => None,
    }
}

/// Whether a row belongs to `task`: its own task id, or an LLM N-back row of the same kind.
pub fn row_is_task(row: &TrialRow, task: StudyTask) -> bool {
    row.task == task.as_str() || matches!(task, StudyTask::Nback(k) if llm_nback_kind(row) == Some(k))
}

fn usable_llm_nback(row: &TrialRow) -> bool {
    !row.extra.contains_key("error")
        && !row.targets.is_empty()
        && row.targets.len() == row.responses.len()
        && row.targets.iter().all(|t| t == "m" || t == "-")
}

/// The record's rows for `task`, with LLM N-back rows renamed to the people's kind (and their N in
/// `n_back`), so [`subject_curves`] reads them. Failed LLM samples are left out.
pub fn rows_for(record: &ResultRecord, task: StudyTask) -> Vec<TrialRow> {
    record
        .trials
        .iter()
        .filter_map(|r| {
            if r.task == task.as_str() {
                return Some(r.clone());
            }
            if !is_llm_row_of(r, task) {
                return None;
            }
            let mut row = r.clone();
            row.task = task.as_str().to_string();
            if let Some(n) = r.conditions.other.get("n").and_then(|n| n.parse::<i64>().ok()) {
                row.extra.insert("n_back".into(), Setting::Int(n));
            }
            Some(row)
        })
        .collect()
}

/// Whether `r` is an LLM's N-back row that counts as one of `task` (an N-back kind).
fn is_llm_row_of(r: &TrialRow, task: StudyTask) -> bool {
    let StudyTask::Nback(kind) = task else { return false };
    llm_nback_kind(r) == Some(kind) && usable_llm_nback(r)
}

/// The tasks a record has rows for (WorM ids, N-back kinds, LLM N-back rows as their kind), in the
/// order of [`StudyTask::all`]. One pass over the rows, none copied: a record of 300k trials is read
/// in well under a second.
pub fn record_tasks(record: &ResultRecord) -> Vec<StudyTask> {
    StudyTask::all()
        .into_iter()
        .filter(|&t| record.trials.iter().any(|r| r.task == t.as_str() || is_llm_row_of(r, t)))
        .collect()
}

/// One chosen result: the record, and (in a shortened comparison link) its curves for the task when
/// the record travels without its trial rows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Compared {
    /// The result; in a link trimmed to the compared task ([`trim`]), or without its trial rows in a
    /// shortened link ([`ResultRecord::summary_only`]).
    pub record: ResultRecord,
    /// Its curves for the task, carried where the record has no trial rows (a shortened link); else empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub curves: Vec<Curve>,
}

impl Compared {
    /// A chosen result with its trial rows and no carried curves.
    pub fn new(record: ResultRecord) -> Self {
        Compared { record, curves: Vec::new() }
    }
    /// The tasks this result can be compared on.
    pub fn tasks(&self) -> Vec<StudyTask> {
        let mut t = record_tasks(&self.record);
        for task in self.curves.iter().filter_map(curve_task) {
            if !t.contains(&task) {
                t.push(task);
            }
        }
        t.sort();
        t
    }
    /// The subject's curves for `task`: from its rows, or the carried curves when it has none.
    pub fn curves(&self, task: StudyTask) -> Vec<Curve> {
        let rows = rows_for(&self.record, task);
        if rows.is_empty() {
            return self.curves.iter().filter(|c| curve_task(c) == Some(task)).cloned().collect();
        }
        subject_curves(&self.record.with_trials(rows), task)
    }
}

/// The task a curve's panel belongs to (`VIR list_length=4` → VIR).
pub fn curve_task(c: &Curve) -> Option<StudyTask> {
    StudyTask::parse(c.panel.split(' ').next().unwrap_or(""))
}

/// The most results one comparison holds ([`Comparison::validate`]).
pub const MAX_COMPARED: usize = 32;

/// The chosen task and results, as carried by a comparison link (`#c=1.`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// Version of this JSON ([`COMPARISON_SCHEMA`]); a newer one than the app reads is refused.
    pub schema: u32,
    /// The task the results are compared on (a WorM task id or an N-back kind).
    pub task: StudyTask,
    /// The chosen results in the order chosen: a result's index is its [`Who::Subject`] and its colour.
    pub results: Vec<Compared>,
    /// Show the published human curves.
    #[serde(default = "yes")]
    pub human: bool,
    /// Show the chance model.
    #[serde(default)]
    pub chance: bool,
    /// Show the published LLM numbers (N-back).
    #[serde(default = "yes")]
    pub published: bool,
    /// One plot per run ([`run_panels`], WorM Figs. A2 and A7–A12) instead of every run on one plot.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub per_run: bool,
    /// Every curve of a panel on one plot ([`Panel::chart`]) instead of the small multiples
    /// ([`Panel::summary_chart`], [`Panel::level_charts`]) drawn by default.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub overlay: bool,
}

fn yes() -> bool {
    true
}

impl Comparison {
    /// A comparison of `results` on `task`, each record trimmed to `task` ([`trim`]).
    pub fn new(task: StudyTask, results: &[Compared], human: bool, chance: bool, published: bool) -> Self {
        let results = results
            .iter()
            .map(|c| {
                let record = trim(&c.record, task);
                let curves = if record.trials.is_empty() { c.curves(task) } else { Vec::new() };
                Compared { record, curves }
            })
            .collect();
        Comparison {
            schema: COMPARISON_SCHEMA,
            task,
            results,
            human,
            chance,
            published,
            per_run: false,
            overlay: false,
        }
    }
    /// The same comparison with every record's trial rows replaced by its curves (a shorter link).
    pub fn summaries_only(&self) -> Self {
        let results = self
            .results
            .iter()
            .map(|c| Compared { curves: c.curves(self.task), record: c.record.summary_only() })
            .collect();
        Comparison { results, ..self.clone() }
    }
    /// Whether every result still has its trial rows.
    pub fn has_rows(&self) -> bool {
        self.results.iter().all(|c| !c.record.trials.is_empty() || c.curves.is_empty())
    }
    /// Check a comparison read from a link: a supported, non-zero version, every record valid, and every
    /// carried curve point a finite number.
    pub fn validate(&self) -> Result<(), RecordError> {
        if self.schema > COMPARISON_SCHEMA {
            return Err(RecordError::FutureVersion { found: self.schema, supported: COMPARISON_SCHEMA });
        }
        if self.schema == 0 {
            return Err(RecordError::Invalid("its comparison version is 0".into()));
        }
        if self.results.len() > MAX_COMPARED {
            return Err(RecordError::Invalid(format!(
                "it holds {} results; a comparison holds at most {MAX_COMPARED} (more cannot be told apart on a plot, \
                 and 400 froze the tab for minutes)",
                self.results.len()
            )));
        }
        for c in &self.results {
            c.record.validate()?;
            if c.curves.iter().flat_map(|c| &c.points).any(|p| !p.0.is_finite() || !p.1.is_finite()) {
                return Err(RecordError::Invalid("a curve point is not a finite number".into()));
            }
        }
        Ok(())
    }
    /// Read a comparison from JSON, refusing future versions before looking further.
    pub fn from_json(text: &str) -> Result<Comparison, RecordError> {
        let v: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| RecordError::Invalid(format!("the text is not valid JSON ({e})")))?;
        crate::record::check_texts(&v)?;
        let schema = v
            .get("schema")
            .and_then(|s| s.as_u64())
            .ok_or_else(|| RecordError::Invalid("it has no comparison version".into()))?;
        if schema > COMPARISON_SCHEMA as u64 {
            return Err(RecordError::FutureVersion {
                found: schema.min(u32::MAX as u64) as u32,
                supported: COMPARISON_SCHEMA,
            });
        }
        let c: Comparison =
            serde_json::from_value(v).map_err(|e| RecordError::Invalid(format!("a field is wrong ({e})")))?;
        c.validate()?;
        Ok(c)
    }
}

/// A record cut down to what a comparison on `task` reads: its rows of that task (with only the
/// extras the curves use, no response times) and the summaries of that task (no network analyses).
pub fn trim(record: &ResultRecord, task: StudyTask) -> ResultRecord {
    let trials: Vec<TrialRow> = record
        .trials
        .iter()
        .filter(|r| row_is_task(r, task))
        .map(|r| TrialRow {
            rt_ms: Vec::new(),
            extra: r
                .extra
                .iter()
                .filter(|(k, _)| CURVE_EXTRAS.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            ..r.clone()
        })
        .collect();
    let llm_tasks: Vec<&str> = trials.iter().filter(|r| r.task != task.as_str()).map(|r| r.task.as_str()).collect();
    let summaries = record
        .summaries
        .iter()
        .filter(|s| s.task == task.as_str() || llm_tasks.contains(&s.task.as_str()))
        .cloned()
        .collect();
    // Network analyses (hidden-state figures) are not part of a comparison.
    ResultRecord { summaries, analyses: None, ..record.with_trials(trials) }
}

/// Who a series belongs to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "id", rename_all = "snake_case")]
pub enum Who {
    /// The i-th chosen result.
    Subject(usize),
    /// The published human numbers (WorM).
    Human,
    /// The chance model.
    Chance,
    /// The memoryless model: the best a subject can do from the current frame alone
    /// ([`memoryless_model`]).
    Memoryless,
    /// Published numbers of a language model (N-back, PI-LLM; the model's name).
    Published(String),
}

impl Who {
    /// What a chart's legend and the scores table call it (`names`: the chosen results' names).
    pub fn name(&self, names: &[String]) -> String {
        match self {
            Who::Subject(i) => names.get(*i).cloned().unwrap_or_else(|| format!("result {}", i + 1)),
            Who::Human => "people (WorM)".into(),
            Who::Chance => "chance model".into(),
            Who::Memoryless => "memoryless model".into(),
            Who::Published(m) => format!("{m} (published)"),
        }
    }

    /// Its colour: the palette for the chosen results, ink for people, grey for chance, and two
    /// alternating greys for published models (`published_index`: its place among them).
    pub fn colour(&self, published_index: usize) -> Rgb {
        match self {
            Who::Subject(i) => palette(*i),
            Who::Human => INK,
            Who::Chance => GREY,
            Who::Memoryless => MEMORYLESS,
            Who::Published(_) => [(0x7f, 0x7f, 0x00), (0x55, 0x55, 0x55)][published_index % 2],
        }
    }

    /// What its series are to a chart's reader.
    pub fn role(&self) -> Role {
        match self {
            Who::Subject(_) => Role::Subject,
            Who::Chance | Who::Memoryless => Role::Chance,
            Who::Human | Who::Published(_) => Role::Reference,
        }
    }

    /// A stable key for element ids: `s0`, `human`, `chance`, `pub-gpt-4`.
    pub fn key(&self) -> String {
        match self {
            Who::Subject(i) => format!("s{i}"),
            Who::Human => "human".into(),
            Who::Chance => "chance".into(),
            Who::Memoryless => "memoryless".into(),
            Who::Published(m) => format!(
                "pub-{}",
                m.to_ascii_lowercase()
                    .chars()
                    .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                    .collect::<String>()
            ),
        }
    }
}

/// One subject's (or reference's) curves on one panel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Series {
    /// Whose curves these are.
    pub who: Who,
    /// Its curves on this panel, one per curve label it has there.
    pub curves: Vec<Curve>,
}

/// One plot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Panel {
    /// The panel's name, as the curves name it (`VSR`, `VIR list_length=4`; N-back: `nback-verbal dprime`).
    pub name: String,
    /// The x axis's variable, as in the curves (`serial_position`, `set_size`, `n_back`, …).
    pub x_name: String,
    /// The y axis: `accuracy`, `rate` (N-back hit and false-alarm rates) or `d′`.
    pub y_name: String,
    /// The curve labels on this panel (e.g. `list_length=3` …), in natural order; one marker per label.
    pub labels: Vec<String>,
    /// The chosen results' series, then the references asked for (people, published LLMs, chance, memoryless).
    pub series: Vec<Series>,
}

impl Panel {
    /// The panel as a chart: one colour per subject (or reference), one marker shape per curve label
    /// (filled for the chosen results, hollow for references), chance dashed, and one legend entry per
    /// subject or reference that has points.
    pub fn chart(&self, names: &[String]) -> Chart {
        let mut chart = Chart::new(self.name.clone(), self.x_name.replace('_', " "), self.y_name.clone());
        chart.min_n = MIN_POINT_N;
        for (s, colour) in self.series.iter().zip(self.colours()) {
            let role = s.who.role();
            let mut first = true;
            let name = format!("{}{}", s.who.name(names), n_span(s.curves.iter().flat_map(|c| c.n.iter().copied())));
            for c in s.curves.iter().filter(|c| !c.points.is_empty()) {
                let k = self.labels.iter().position(|l| *l == c.label).unwrap_or(0);
                let mut series = chart::Series::with_intervals(name.clone(), role, c.points.clone(), &c.ci, &c.n)
                    .colour(colour)
                    .marker(Marker::nth(k));
                if !first {
                    series = series.unlabelled();
                }
                first = false;
                chart.series.push(series);
            }
        }
        let (_, (y0, y1)) = chart.bounds();
        chart.y_range = Some((y0.min(0.0), y1.max(1.0)));
        chart
    }

    /// The panel as small multiples: one chart per curve label (list length, retention, …) with every
    /// subject and reference as one line in its own colour — the same colour on every chart — each point
    /// with its interval and n. A panel of one label is its [`Panel::chart`] with circles only. Reading
    /// one level at a time beats telling eight curves apart by marker shape, and lines of one colour
    /// per subject let the eye follow a subject across the levels.
    pub fn level_charts(&self, names: &[String]) -> Vec<Chart> {
        if self.labels.len() <= 1 {
            let mut c = self.chart(names);
            for s in &mut c.series {
                s.marker = Marker::Circle;
            }
            return vec![c];
        }
        let colours = self.colours();
        self.labels
            .iter()
            .map(|label| {
                let title = format!("{} · {}", self.name, label.replace(['_', '='], " "));
                let mut chart = Chart::new(title, self.x_name.replace('_', " "), self.y_name.clone());
                chart.min_n = MIN_POINT_N;
                for (s, &colour) in self.series.iter().zip(&colours) {
                    if let Some(c) = s.curves.iter().find(|c| c.label == *label && !c.points.is_empty()) {
                        let name = format!("{}{}", s.who.name(names), n_span(c.n.iter().copied()));
                        chart.series.push(
                            chart::Series::with_intervals(name, s.who.role(), c.points.clone(), &c.ci, &c.n)
                                .colour(colour),
                        );
                    }
                }
                let (_, (y0, y1)) = chart.bounds();
                chart.y_range = Some((y0.min(0.0), y1.max(1.0)));
                chart
            })
            .collect()
    }

    /// The panel's summary: each subject's and reference's accuracy per curve label (the main factor:
    /// list length, retention, storage–distractor domains …), pooled over the x axis weighting each
    /// point by its n, with a Wilson interval over the pooled answers. `None` for a panel of one label
    /// and for N-back's rates and d′ (already drawn against N).
    pub fn summary_chart(&self, names: &[String]) -> Option<Chart> {
        if self.labels.len() <= 1 || self.y_name != "accuracy" {
            return None;
        }
        let key = self.labels[0].split_once('=').map(|(k, _)| k.to_string());
        let value = |l: &str| l.split_once('=').and_then(|(_, v)| v.parse::<f64>().ok());
        let numeric = key.is_some() && self.labels.iter().all(|l| value(l).is_some());
        let factor = if numeric { key.clone().unwrap_or_default().replace('_', " ") } else { "condition".into() };
        let mut chart =
            Chart::new(format!("{}: accuracy by {factor}", self.name), factor.clone(), "accuracy (pooled)".to_string());
        chart.min_n = MIN_POINT_N;
        if !numeric {
            chart.categories = self.labels.clone();
        }
        for (s, colour) in self.series.iter().zip(self.colours()) {
            let (mut points, mut bars, mut ns) = (Vec::new(), Vec::new(), Vec::new());
            for (i, label) in self.labels.iter().enumerate() {
                let Some(c) = s.curves.iter().find(|c| c.label == *label && !c.points.is_empty()) else { continue };
                let x = if numeric { value(label).unwrap_or(i as f64) } else { i as f64 };
                let counted = c.n.len() == c.points.len() && c.n.iter().any(|&n| n > 0);
                if counted {
                    let total: u32 = c.n.iter().sum();
                    let right: f64 = c.points.iter().zip(&c.n).map(|(p, &n)| p.1 * n as f64).sum();
                    let (lo, hi) = crate::stats::wilson(right.round() as usize, total as usize, crate::stats::Z95);
                    points.push((x, right / total as f64));
                    bars.push((x, lo, hi));
                    ns.push(total);
                } else {
                    points.push((x, c.points.iter().map(|p| p.1).sum::<f64>() / c.points.len() as f64));
                }
            }
            if points.is_empty() {
                continue;
            }
            let name = format!("{}{}", s.who.name(names), n_span(ns.iter().copied()));
            let mut series = chart::Series::new(name, s.who.role(), points).colour(colour).bars(bars);
            if ns.len() == series.points.len() {
                series.n = ns;
            }
            chart.series.push(series);
        }
        let (_, (y0, y1)) = chart.bounds();
        chart.y_range = Some((y0.min(0.0), y1.max(1.0)));
        Some(chart)
    }

    /// Each series' colour ([`Who::colour`]; published models alternate by their place among them), the
    /// same on every chart of the panel.
    fn colours(&self) -> Vec<Rgb> {
        let mut published = 0;
        self.series
            .iter()
            .map(|s| {
                let c = s.who.colour(published);
                published += usize::from(matches!(s.who, Who::Published(_)));
                c
            })
            .collect()
    }

    /// The marker key written under the chart (`● list length 3   ▲ list length 4`), where the panel
    /// has more than one curve label.
    pub fn marker_key(&self) -> Option<String> {
        (self.labels.len() > 1 || self.labels.first().is_some_and(|l| l != "all")).then(|| {
            self.labels
                .iter()
                .enumerate()
                .map(|(i, l)| format!("{} {}", Marker::nth(i).glyph(), l.replace('_', " ")))
                .collect::<Vec<_>>()
                .join("   ")
        })
    }

    /// Indices of the chosen results that have a series on this panel, in series order.
    pub fn subjects(&self) -> Vec<usize> {
        self.series
            .iter()
            .filter_map(|s| match s.who {
                Who::Subject(i) => Some(i),
                _ => None,
            })
            .collect()
    }
}

/// N-back curves (panel = task, label = measure) as one panel per measure, label `all`.
fn split_measures(task: StudyTask, curves: Vec<Curve>) -> Vec<Curve> {
    if task.nback().is_none() {
        return curves;
    }
    curves
        .into_iter()
        .map(|c| {
            let x_name = c.x_name.clone();
            Curve { panel: format!("{} {}", c.panel, c.label), label: "all".into(), x_name, ..c }
        })
        .collect()
}

const MEASURES: [&str; 4] = ["accuracy", "hit_rate", "false_alarm_rate", "dprime"];

fn measure_curve(task: StudyTask, measure: &str, points: Vec<(f64, f64)>) -> Curve {
    let mut points = points;
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    Curve {
        panel: task.as_str().into(),
        label: measure.into(),
        x_name: "n_back".into(),
        points,
        note: None,
        n: vec![],
        ci: vec![],
    }
}

/// The published PI-LLM models drawn beside PI-LLM subjects (those the LLM page draws).
pub const PI_PUBLISHED: [&str; 4] = ["gpt-4.1", "claude-3.5-sonnet", "gemini-2.0-flash", "qwen3-0.6b"];

/// PI-LLM's published curves ([`PI_PUBLISHED`] of the authors' project page): accuracy on log10 of the
/// updates per key at their setting (46 keys, values as they are, random order).
fn published_pi_curves() -> Vec<(String, Vec<Curve>)> {
    use crate::llm::pi::{PAPER_KEYS, PAPER_UPDATES, published::REPORTED};
    REPORTED
        .iter()
        .filter(|(m, _)| PI_PUBLISHED.contains(m))
        .map(|(model, row)| {
            let points = PAPER_UPDATES.iter().zip(row).map(|(&u, &a)| ((u as f64).log10(), a)).collect();
            let note = format!("published (Wang & Sun 2025): {PAPER_KEYS} keys, values as they are, random order");
            let curve = Curve {
                panel: crate::people::pi::TASK.into(),
                label: "all".into(),
                x_name: crate::people::pi::X_NAME.into(),
                points,
                note: Some(note),
                n: vec![],
                ci: vec![],
            };
            (model.to_string(), vec![curve])
        })
        .collect()
}

/// The published LLM numbers of a task: (model, curves). N-back, the four measures on N — verbal:
/// GPT-3.5-turbo and GPT-4 on the letter blocks; spatial: GPT-3.5-turbo on 3×3 grids (Gong et al. 2024);
/// PI-LLM: four of the authors' models ([`PI_PUBLISHED`]).
pub fn published_llm_curves(task: StudyTask) -> Vec<(String, Vec<Curve>)> {
    if task == StudyTask::Pi {
        return published_pi_curves();
    }
    let Some(kind) = task.nback() else { return Vec::new() };
    let files: &[&str] = match kind {
        NbackKind::Verbal => &["all_trials_verbal.json", "all_trials_verbal_gpt-4.json"],
        NbackKind::Spatial => &["all_trials_spatial_3*3.json"],
    };
    let rows = reported_summary();
    files
        .iter()
        .filter_map(|f| {
            let of: Vec<_> = rows.iter().filter(|r| r.results_file == *f).collect();
            let model = of.first()?.model.clone();
            let curves = MEASURES
                .iter()
                .map(|m| {
                    let pts = of
                        .iter()
                        .map(|r| {
                            let v = match *m {
                                "accuracy" => r.accuracy.0 / 100.0,
                                "hit_rate" => r.hit_rate.0 / 100.0,
                                "false_alarm_rate" => r.false_alarm_rate.0 / 100.0,
                                _ => r.dprime.0,
                            };
                            (r.n as f64, v)
                        })
                        .collect();
                    measure_curve(task, m, pts)
                })
                .collect();
            Some((model, curves))
        })
        .collect()
}

/// The chance model's curves for `task` (see the module doc); `subjects` give the x values where the
/// task has no human curves.
pub fn chance_model(task: StudyTask, subjects: &[Vec<Curve>]) -> Vec<Curve> {
    if task == StudyTask::Pi {
        return Vec::new();
    }
    let human = chance_curves(task);
    if !human.is_empty() {
        return human;
    }
    let Some(level) = chance_level(task) else { return Vec::new() };
    let mut xs: BTreeMap<(String, String, String), Vec<f64>> = BTreeMap::new();
    for c in subjects.iter().flatten() {
        let e = xs.entry((c.panel.clone(), c.label.clone(), c.x_name.clone())).or_default();
        for p in &c.points {
            if !e.iter().any(|x| (x - p.0).abs() < 1e-9) {
                e.push(p.0);
            }
        }
    }
    xs.into_iter()
        .map(|((panel, label, x_name), mut x)| {
            x.sort_by(|a, b| a.total_cmp(b));
            // LSR: a guess among the L words of the probe, per list length (the chance the scorers use).
            let lsr_list = (task == StudyTask::Worm(crate::task::TaskId::Lsr))
                .then(|| label.strip_prefix("list_length=")?.parse::<u8>().ok().filter(|&l| l >= 1))
                .flatten();
            let y = match lsr_list {
                Some(l) => crate::chance::item_chance(
                    crate::task::TaskId::Lsr,
                    &crate::task::Conditions { list_length: Some(l), ..Default::default() },
                ),
                None if task.nback().is_some() && label == "dprime" => 0.0,
                None => level,
            };
            let what = if task.nback().is_some() {
                "a coin-flip responder".to_string()
            } else if lsr_list.is_some() {
                format!("accuracy {y:.4} (a guess among the list's words)")
            } else {
                format!("accuracy {level:.4}")
            };
            Curve {
                panel,
                label,
                x_name,
                points: x.into_iter().map(|x| (x, y)).collect(),
                note: Some(format!("chance model: {what}")),
                n: Vec::new(),
                ci: Vec::new(),
            }
        })
        .collect()
}

/// The memoryless model's curves for `task`: on the chance model's axes, the best accuracy from the
/// current frame alone ([`crate::chance::memoryless::point_memoryless`], reference task parameters),
/// keeping only the curves where it is above the chance model somewhere (VSR, LSR, SMU, STS, CS, SI and
/// the CD ids whose changes can show in the probe). Empty for N-back and the tasks where it equals chance.
pub fn memoryless_model(task: StudyTask, subjects: &[Vec<Curve>]) -> Vec<Curve> {
    memoryless_beside(task, chance_model(task, subjects))
}

/// [`memoryless_model`] on the chance model's curves `chance` (already made by the caller).
fn memoryless_beside(task: StudyTask, chance: Vec<Curve>) -> Vec<Curve> {
    let Some(id) = task.worm() else { return Vec::new() };
    chance
        .into_iter()
        .filter_map(|c| {
            let points: Vec<(f64, f64)> = c
                .points
                .iter()
                .map(|&(x, _)| Some((x, crate::chance::memoryless::point_memoryless(id, &c.label, x)?)))
                .collect::<Option<_>>()?;
            let above = points.iter().zip(&c.points).any(|(m, ch)| m.1 > ch.1 + 1e-9);
            let range =
                points.iter().map(|p| p.1).fold((f64::INFINITY, f64::NEG_INFINITY), |r, y| (r.0.min(y), r.1.max(y)));
            let level = if range.1 - range.0 < 1e-9 {
                format!("{:.4}", range.0)
            } else {
                format!("{:.4}–{:.4}", range.0, range.1)
            };
            above.then(|| Curve {
                points,
                note: Some(format!(
                    "memoryless model: accuracy {level}, the best from the current frame alone (no memory of the \
                     trial's earlier frames; reference task parameters)"
                )),
                ..c
            })
        })
        .collect()
}

/// What to draw besides the subjects.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Extras {
    /// Draw the published human curves (WorM).
    pub human: bool,
    /// Draw the chance model, and the memoryless model where it is above chance.
    pub chance: bool,
    /// Draw the published LLM numbers (N-back: Gong et al. 2024; PI-LLM: Wang & Sun 2025).
    pub published: bool,
}

/// The plots of a comparison: one per panel on which at least one subject has points, each with one
/// series per subject that has points there, then the references asked for.
pub fn panels(task: StudyTask, subjects: &[Vec<Curve>], extras: Extras) -> Vec<Panel> {
    let mut series: Vec<(Who, Vec<Curve>)> =
        subjects.iter().enumerate().map(|(i, c)| (Who::Subject(i), c.clone())).collect();
    if extras.human {
        series.push((Who::Human, human_curves(task)));
    }
    if extras.published {
        for (model, c) in published_llm_curves(task) {
            series.push((Who::Published(model), c));
        }
    }
    if extras.chance {
        let chance = chance_model(task, subjects);
        let memoryless = memoryless_beside(task, chance.clone());
        series.push((Who::Chance, chance));
        if !memoryless.is_empty() {
            series.push((Who::Memoryless, memoryless));
        }
    }
    let mut out: Vec<Panel> = Vec::new();
    for (who, curves) in series {
        let is_subject = matches!(who, Who::Subject(_));
        let mut by_panel: Vec<(String, Vec<Curve>)> = Vec::new();
        for c in split_measures(task, curves) {
            if c.points.is_empty() {
                continue;
            }
            match by_panel.iter_mut().find(|(p, _)| *p == c.panel) {
                Some((_, v)) => v.push(c),
                None => by_panel.push((c.panel.clone(), vec![c])),
            }
        }
        for (name, curves) in by_panel {
            let i = match out.iter().position(|p| p.name == name) {
                Some(i) => i,
                // With no subject at all, the references make their own panels (the page is never empty).
                None if is_subject || subjects.is_empty() => {
                    let y_name = if name.ends_with("dprime") {
                        "d′"
                    } else if name.ends_with("_rate") {
                        "rate"
                    } else {
                        "accuracy"
                    };
                    out.push(Panel {
                        name: name.clone(),
                        x_name: curves[0].x_name.clone(),
                        y_name: y_name.into(),
                        labels: Vec::new(),
                        series: Vec::new(),
                    });
                    out.len() - 1
                }
                // Otherwise references only on panels some subject has.
                None => continue,
            };
            let p = &mut out[i];
            for c in &curves {
                if !p.labels.contains(&c.label) {
                    p.labels.push(c.label.clone());
                }
            }
            p.series.push(Series { who: who.clone(), curves });
        }
    }
    for p in &mut out {
        p.labels.sort_by(|a, b| crate::record::natural_cmp(a, b));
    }
    // Panels in the natural order of their names (VIR list_length=4 before …=10; N-back in MEASURES order).
    let order = |p: &Panel| MEASURES.iter().position(|m| p.name.ends_with(m)).unwrap_or(0);
    out.sort_by(|a, b| order(a).cmp(&order(b)).then_with(|| crate::record::natural_cmp(&a.name, &b.name)));
    out
}

/// One run's plots in the per-run layout.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunPlots {
    /// The run's index among the chosen results (its colour, as in the together layout).
    pub subject: usize,
    /// The run's long name ([`ResultRecord::run_label`]): architecture, capacity, preset, steps, task
    /// subset, task parameters — what tells one ablation from another.
    pub title: String,
    /// The task's panels with this run alone beside the references asked for ([`panels`]).
    pub panels: Vec<Panel>,
}

/// The place of an architecture in the paper's figures (RNN, GRU, LSTM, Transformer).
fn arch_rank(arch: &str) -> usize {
    ["rnn", "gru", "lstm", "trf"].iter().position(|a| a.eq_ignore_ascii_case(arch)).unwrap_or(4)
}

/// The order of the per-run layout: networks as the paper's grid of Figs. A7–A12 (by architecture —
/// RNN, GRU, LSTM, Transformer — then capacity), then every other result in the order chosen.
pub fn run_order(records: &[&ResultRecord]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..records.len()).collect();
    let key = |i: usize| match &records[i].subject {
        crate::record::Subject::Network { arch, capacity, .. } => (0, arch_rank(arch), *capacity, i),
        _ => (1, 0, 0, i),
    };
    idx.sort_by_key(|&i| key(i));
    idx
}

/// The per-run layout (WorM Figs. A2 and A7–A12 draw one panel per model): for each run in `order`
/// that has points on `task`, the task's panels with that run alone beside the references asked for.
/// Each run keeps its index (and so its colour); `titles[i]` names run `i`.
pub fn run_panels(
    task: StudyTask,
    subjects: &[Vec<Curve>],
    extras: Extras,
    order: &[usize],
    titles: &[String],
) -> Vec<RunPlots> {
    order
        .iter()
        .copied()
        .filter(|&i| subjects.get(i).is_some_and(|s| s.iter().any(|c| !c.points.is_empty())))
        .map(|i| {
            // The other runs' curves are left empty: `panels` skips them, and the indices stay.
            let alone: Vec<Vec<Curve>> =
                subjects.iter().enumerate().map(|(j, c)| if j == i { c.clone() } else { Vec::new() }).collect();
            let title = titles.get(i).cloned().unwrap_or_else(|| format!("result {}", i + 1));
            RunPlots { subject: i, title, panels: panels(task, &alone, extras) }
        })
        .collect()
}

/// Titles for the per-run layout: each record's [`ResultRecord::run_label`] with its kind, numbered
/// `#2`, `#3` where two are alike.
pub fn run_titles(records: &[&ResultRecord]) -> Vec<String> {
    number_repeats(records.iter().map(|r| format!("{} ({})", r.run_label(), r.subject.kind())).collect())
}

/// Names still alike numbered in order: the second `n` becomes `n #2`, the third `n #3`.
fn number_repeats(names: Vec<String>) -> Vec<String> {
    names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let k = names[..i].iter().filter(|m| *m == n).count();
            if k > 0 { format!("{n} #{}", k + 1) } else { n.clone() }
        })
        .collect()
}

/// Table A3 rows of every subject with points on the task and of the chance model (in that order)
/// against the human curves. Empty when the task has no human curves (SFR, SC, SI, STS, N-back).
pub fn score_table(task: StudyTask, subjects: &[Vec<Curve>]) -> Vec<(Who, Vec<ScoreRow>)> {
    let human = human_curves(task);
    if human.is_empty() {
        return Vec::new();
    }
    let mut out: Vec<(Who, Vec<ScoreRow>)> = subjects
        .iter()
        .enumerate()
        .filter(|(_, s)| s.iter().any(|c| !c.points.is_empty()))
        .map(|(i, s)| (Who::Subject(i), table_a3(task, s, &human)))
        .collect();
    out.push((Who::Chance, table_a3(task, &chance_curves(task), &human)));
    out
}

/// Names for the chosen results as legends and tables show them: `label (kind)`, and where two would
/// read the same (two LSTM-96 runs), each of those gets the longer [`ResultRecord::run_label`]
/// (preset, steps, task subset, …); any still alike are numbered `#2`, `#3` in order.
pub fn subject_names(records: &[&ResultRecord]) -> Vec<String> {
    let short: Vec<String> = records.iter().map(|r| format!("{} ({})", r.subject.label(), r.subject.kind())).collect();
    let long: Vec<String> = records
        .iter()
        .zip(&short)
        .map(|(r, s)| {
            if short.iter().filter(|t| *t == s).count() > 1 {
                format!("{} ({})", r.run_label(), r.subject.kind())
            } else {
                s.clone()
            }
        })
        .collect();
    number_repeats(long)
}

/// WorM Fig. A4, training curves: the mean validation accuracy of every chosen network against the
/// training trials it had seen (in thousands), one series per result that carries a training curve
/// (`ResultRecord::training`); `None` when none does.
pub fn training_panel(records: &[&ResultRecord]) -> Option<Panel> {
    let series: Vec<Series> = records
        .iter()
        .enumerate()
        .filter(|(_, r)| !r.training.is_empty())
        .map(|(i, r)| Series {
            who: Who::Subject(i),
            curves: vec![Curve {
                panel: "Training (Fig. A4)".into(),
                label: "mean".into(),
                x_name: "trials_seen_(thousands)".into(),
                points: r.training.iter().map(|p| (p.trials as f64 / 1000.0, p.mean_accuracy)).collect(),
                note: None,
                n: Vec::new(),
                ci: Vec::new(),
            }],
        })
        .collect();
    (!series.is_empty()).then(|| Panel {
        name: "Training (Fig. A4)".into(),
        x_name: "trials_seen_(thousands)".into(),
        y_name: "validation accuracy (mean over task ids)".into(),
        labels: vec!["mean".into()],
        series,
    })
}

/// The task most of the results share (ties: the first in [`StudyTask::all`] order), if any.
pub fn common_task(results: &[Compared]) -> Option<StudyTask> {
    let mut best: Option<(StudyTask, usize)> = None;
    let tasks: Vec<Vec<StudyTask>> = results.iter().map(Compared::tasks).collect();
    for t in StudyTask::all() {
        let n = tasks.iter().filter(|ts| ts.contains(&t)).count();
        if n > 0 && best.is_none_or(|(_, m)| n > m) {
            best = Some((t, n));
        }
    }
    best.map(|b| b.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{RunConfig, Subject, summarise};
    use crate::task::{Conditions, TaskId};

    const VSR: StudyTask = StudyTask::Worm(TaskId::Vsr);
    const VERBAL: StudyTask = StudyTask::Nback(NbackKind::Verbal);

    /// A VSR record whose accuracy at each serial position follows the human curves exactly.
    pub(crate) fn vsr_person(id: &str) -> ResultRecord {
        let mut r = ResultRecord::new(Subject::Person { id: id.into() }, "VSR+nback-verbal", RunConfig::default());
        let mut trial = 0;
        for h in human_curves(VSR) {
            let l: u8 = h.label.trim_start_matches("list_length=").parse().unwrap();
            // 200 trials per list length; position p is right in round(200·acc) of them.
            for k in 0..200 {
                let correct: Vec<bool> = h.points.iter().map(|&(_, acc)| (k as f64) < (acc * 200.0).round()).collect();
                r.trials.push(TrialRow {
                    task: "VSR".into(),
                    trial,
                    conditions: Conditions { list_length: Some(l), ..Default::default() },
                    targets: correct.iter().map(|_| "1".into()).collect(),
                    responses: correct.iter().map(|&c| if c { "1" } else { "2" }.into()).collect(),
                    correct,
                    rt_ms: vec![500.0; l as usize],
                    extra: [
                        ("block_kind".to_string(), Setting::Text("main".into())),
                        ("frame_durations".to_string(), Setting::Text("16.7/16.7 ".repeat(40))),
                    ]
                    .into_iter()
                    .collect(),
                });
                trial += 1;
            }
        }
        // Two people's N-back blocks, N = 1 and 2.
        for (n, answers) in [(1u8, "m-m--m-"), (2, "m--m--m")] {
            let cond = "m-m---m";
            r.trials.push(TrialRow {
                task: "nback-verbal".into(),
                trial,
                targets: cond.chars().map(String::from).collect(),
                responses: answers.chars().map(String::from).collect(),
                correct: cond.chars().zip(answers.chars()).map(|(a, b)| a == b).collect(),
                extra: [("n_back".to_string(), Setting::Int(n as i64))].into_iter().collect(),
                ..Default::default()
            });
            trial += 1;
        }
        r.summaries = summarise(&r.trials);
        r
    }

    fn llm_row(task: &str, variant: &str, n: u8, cond: &str, answers: &str, error: bool) -> TrialRow {
        let mut extra: std::collections::BTreeMap<String, Setting> =
            [("sample_id".to_string(), Setting::Text(format!("nback/{task}/0")))].into_iter().collect();
        if error {
            extra.insert("error".into(), Setting::Text("timeout".into()));
        }
        TrialRow {
            task: task.into(),
            trial: 0,
            conditions: Conditions {
                other: [
                    ("n", n.to_string()),
                    ("variant", variant.to_string()),
                    ("protocol", "readme".into()),
                    ("block", "0".into()),
                ]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
                ..Default::default()
            },
            targets: cond.chars().map(String::from).collect(),
            responses: answers.chars().map(String::from).collect(),
            correct: cond.chars().zip(answers.chars()).map(|(a, b)| a == b).collect(),
            extra,
            ..Default::default()
        }
    }

    pub(crate) fn llm() -> ResultRecord {
        let mut r = ResultRecord::new(
            Subject::Llm { provider: "openai".into(), model: "smollm2".into() },
            "nback+lrt",
            RunConfig::default(),
        );
        r.trials = vec![
            llm_row("letters_30-1back", "letters_30", 1, "m-m---m", "m-m---m", false),
            llm_row("letters_30-2back", "letters_30", 2, "m-m---m", "-------", false),
            llm_row("letters_30-2back", "letters_30", 2, "m-m---m", "", true),
            llm_row("grids_4x4-1back", "grids_4x4", 1, "m-m---m", "m-m---m", false),
            TrialRow {
                task: "lrt-ordered".into(),
                targets: vec!["x".into()],
                responses: vec!["y".into()],
                correct: vec![false],
                ..Default::default()
            },
        ];
        r
    }

    fn network(arch: &str, preset: &str, steps: u64, trained: &str) -> ResultRecord {
        let subject =
            Subject::Network { arch: arch.into(), capacity: 96, preset: preset.into(), steps, backend: "flex".into() };
        let mut cfg = RunConfig::default();
        cfg.settings.insert("trained_tasks".into(), Setting::Text(trained.into()));
        ResultRecord::new(subject, trained.replace(',', "+"), cfg)
    }

    #[test]
    fn runs_of_one_kind_get_names_that_tell_them_apart() {
        let all = TaskId::ALL.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(",");
        let a = network("lstm", "quick", 6000, &all);
        let b = network("lstm", "quick", 6000, "VSR");
        let c = network("trf", "paper", 100, &all);
        let mut d = a.clone();
        d.config.settings.insert("task_embedding".into(), Setting::Text("static".into()));
        let names = subject_names(&[&a, &b, &c, &d, &a]);
        assert_eq!(names[0], "LSTM-96 · quick · 6000 steps (network)");
        assert_eq!(names[1], "LSTM-96 · quick · 6000 steps · VSR only (network)");
        assert_eq!(names[2], "TRF-96 (network)", "a name no other shares stays short");
        assert_eq!(names[3], "LSTM-96 · quick · 6000 steps · static embedding (network)");
        assert_eq!(names[4], "LSTM-96 · quick · 6000 steps (network) #2");
        assert_eq!(
            subject_names(&[&vsr_person("p1"), &vsr_person("p2")]),
            ["participant p1 (person)", "participant p2 (person)"]
        );
    }

    #[test]
    fn the_training_panel_draws_each_network_with_a_curve() {
        use crate::record::TrainPoint;
        let mut a = network("lstm", "quick", 200, "VSR");
        assert_eq!(training_panel(&[&a, &vsr_person("p")]), None);
        a.training = [(100, 0.3), (200, 0.6)]
            .map(|(step, m)| TrainPoint { step, trials: step * 140, mean_accuracy: m, accuracy: BTreeMap::new() })
            .to_vec();
        let p = training_panel(&[&vsr_person("p"), &a]).unwrap();
        assert_eq!(p.subjects(), vec![1]);
        assert_eq!(p.series[0].curves[0].points, vec![(14.0, 0.3), (28.0, 0.6)]);
        let chart = p.chart(&["p".into(), "net".into()]);
        assert_eq!(chart.series.len(), 1);
        assert_eq!(chart.series[0].name, "net");
    }

    #[test]
    fn content_ids_ignore_the_time_only() {
        let a = vsr_person("p1");
        let mut b = a.clone();
        b.created = Some("2025-01-01T00:00:00Z".into());
        assert_eq!(content_id(&a), content_id(&b));
        assert_ne!(content_id(&a), content_id(&vsr_person("p2")));
        assert_eq!(content_id(&a).len(), 16);
    }

    #[test]
    fn tasks_of_people_llms_and_rows() {
        assert_eq!(record_tasks(&vsr_person("p")), vec![VSR, VERBAL]);
        // The LLM's letter blocks count as verbal N-back; 4×4 grids and LRT as nothing.
        assert_eq!(record_tasks(&llm()), vec![VERBAL]);
        let rows = rows_for(&llm(), VERBAL);
        assert_eq!(rows.len(), 2, "the failed sample is left out");
        assert!(rows.iter().all(|r| r.task == "nback-verbal"));
        assert_eq!(rows[1].extra.get("n_back"), Some(&Setting::Int(2)));
        assert!(rows_for(&llm(), StudyTask::Nback(NbackKind::Spatial)).is_empty());
        let results = [Compared::new(vsr_person("p")), Compared::new(llm())];
        assert_eq!(common_task(&results), Some(VERBAL));
        assert_eq!(common_task(&results[..1]), Some(VSR));
        assert_eq!(common_task(&[]), None);
    }

    #[test]
    fn person_and_llm_share_the_nback_axes() {
        let p = Compared::new(vsr_person("p")).curves(VERBAL);
        let l = Compared::new(llm()).curves(VERBAL);
        let acc = |cs: &[Curve]| cs.iter().find(|c| c.label == "accuracy").unwrap().points.clone();
        assert_eq!(acc(&l), vec![(1.0, 1.0), (2.0, 4.0 / 7.0)]);
        assert_eq!(acc(&p).len(), 2);
        let ps = panels(VERBAL, &[p, l], Extras { human: true, chance: true, published: true });
        let names: Vec<&str> = ps.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            ["nback-verbal accuracy", "nback-verbal hit_rate", "nback-verbal false_alarm_rate", "nback-verbal dprime"]
        );
        for p in &ps {
            // two subjects, GPT-3.5 and GPT-4, chance; no human N-back numbers
            let who: Vec<String> = p.series.iter().map(|s| s.who.key()).collect();
            assert_eq!(who, ["s0", "s1", "pub-gpt-3-5-turbo", "pub-gpt-4", "chance"], "{}", p.name);
            assert_eq!(p.labels, ["all"]);
        }
        let chance = &ps[3].series[4].curves[0];
        assert!(chance.points.iter().all(|p| p.1 == 0.0) && chance.points.len() == 2);
        let gpt4 = &ps[0].series[3].curves[0];
        assert_eq!(gpt4.points[0], (1.0, 0.99));
        assert_eq!(ps[3].y_name, "d′");
        assert!(score_table(VERBAL, &[]).is_empty());
    }

    #[test]
    fn small_multiples_draw_a_level_each_and_a_pooled_summary() {
        let me = Compared::new(vsr_person("p")).curves(VSR);
        let ps = panels(VSR, std::slice::from_ref(&me), Extras { human: true, chance: true, published: false });
        let names = ["me".to_string()];
        let levels = ps[0].level_charts(&names);
        assert_eq!(levels.len(), 4, "one chart per list length");
        assert_eq!(levels[0].title, "VSR · list length 3");
        for (c, label) in levels.iter().zip(&ps[0].labels) {
            // Me, the people and chance on every level, each in its own colour on every chart.
            assert_eq!(c.series.len(), 4, "{}: me, people, chance, memoryless", c.title);
            assert_eq!(c.series[0].colour, Some(palette(0)));
            assert_eq!(c.series[1].colour, Some(INK));
            assert!(c.series.iter().all(|s| s.marker == Marker::Circle));
            let mine = me.iter().find(|m| m.label == *label).unwrap();
            assert_eq!(c.series[0].points, mine.points);
            assert_eq!(c.series[0].bars.len(), mine.points.len());
            assert_eq!(c.min_n, MIN_POINT_N);
        }
        // The summary: accuracy per list length pooled over positions by n, with Wilson intervals.
        let sum = ps[0].summary_chart(&names).expect("a summary of four list lengths");
        assert_eq!(sum.x_label, "list length");
        let mine = &sum.series[0];
        assert_eq!(mine.points.iter().map(|p| p.0).collect::<Vec<_>>(), [3.0, 4.0, 5.0, 6.0]);
        let l3 = me.iter().find(|m| m.label == "list_length=3").unwrap();
        let total: u32 = l3.n.iter().sum();
        let right: f64 = l3.points.iter().zip(&l3.n).map(|(p, &n)| p.1 * n as f64).sum();
        assert_eq!(mine.n[0], total);
        assert!((mine.points[0].1 - right / total as f64).abs() < 1e-12);
        assert!(mine.bars[0].1 <= mine.points[0].1 && mine.points[0].1 <= mine.bars[0].2);
        // The people's summary is the mean of their published points (no n, no interval).
        let people = sum.series.iter().find(|s| s.name == "people (WorM)").unwrap();
        assert!(people.bars.is_empty() && people.n.is_empty());
        // One label, or not accuracy: no summary, and the chart itself.
        let smu = panels(StudyTask::Worm(TaskId::Smu), &[], Extras { human: true, chance: false, published: false });
        assert!(smu[0].summary_chart(&names).is_none());
        assert_eq!(smu[0].level_charts(&names).len(), 1);
    }

    #[test]
    fn vsr_panel_and_scores_of_many_subjects() {
        let human_like = Compared::new(vsr_person("p")).curves(VSR);
        let flat: Vec<Curve> = human_like
            .iter()
            .map(|c| Curve { points: c.points.iter().map(|p| (p.0, 0.2)).collect(), ..c.clone() })
            .collect();
        let ps =
            panels(VSR, &[human_like.clone(), flat.clone()], Extras { human: true, chance: false, published: true });
        assert_eq!(ps.len(), 1);
        assert_eq!(ps[0].name, "VSR");
        assert_eq!(ps[0].labels, ["list_length=3", "list_length=4", "list_length=5", "list_length=6"]);
        assert_eq!(ps[0].series.iter().map(|s| s.who.key()).collect::<Vec<_>>(), ["s0", "s1", "human"]);
        assert_eq!(ps[0].subjects(), [0, 1]);
        // As a chart: one legend entry per subject and the people, a shape per list length, a colour per who.
        let c = ps[0].chart(&["me".into()]);
        assert_eq!(c.legend_entries(), 3);
        // Each subject named with the n of its points; the published numbers have none.
        let who = |s: &chart::Series| s.name.split(" · n ").next().unwrap_or("").to_string();
        let named: Vec<_> = c.series.iter().filter(|s| s.legend).map(|s| s.name.as_str()).collect();
        assert!(named[0].starts_with("me · n ") && named[1].starts_with("result 2 · n "), "{named:?}");
        assert_eq!(named[2], "people (WorM)");
        assert_eq!(c.series.iter().filter(|s| who(s) == "me").map(|s| s.marker).collect::<Vec<_>>(), &Marker::ALL[..4]);
        assert!(
            c.series.iter().all(|s| s.colour
                == Some(if s.name == "people (WorM)" { INK } else { palette(usize::from(who(s) != "me")) }))
        );
        assert!(
            c.series
                .iter()
                .filter(|s| who(s) == "me")
                .all(|s| s.bars.len() == s.points.len() && s.n.len() == s.points.len())
        );
        assert_eq!(
            ps[0].marker_key().as_deref(),
            Some("● list length=3   ▲ list length=4   ■ list length=5   ✕ list length=6")
        );
        let none =
            panels(VSR, std::slice::from_ref(&human_like), Extras { human: false, chance: false, published: false });
        assert_eq!(none[0].series.len(), 1);
        // Nothing of the task: no panels, no human-only panels.
        assert!(panels(VSR, &[vec![]], Extras { human: true, chance: true, published: true }).is_empty());
        // No subject chosen at all: the published references alone (the Compare page is never empty).
        let refs = panels(VSR, &[], Extras { human: true, chance: false, published: true });
        assert!(!refs.is_empty());
        assert!(refs.iter().all(|p| p.series.iter().all(|s| s.who.key() == "human")), "{refs:?}");
        assert!(panels(VSR, &[], Extras { human: false, chance: false, published: false }).is_empty());
        assert!(
            !panels(VERBAL, &[], Extras { human: false, chance: false, published: true }).is_empty(),
            "the N-back papers' LLM numbers"
        );

        let table = score_table(VSR, &[human_like, vec![], flat]);
        assert_eq!(
            table.iter().map(|t| t.0.key()).collect::<Vec<_>>(),
            ["s0", "s2", "chance"],
            "a subject without the task has no rows"
        );
        for (who, rows) in &table {
            assert_eq!(
                rows.iter().map(|r| r.effect.as_str()).collect::<Vec<_>>(),
                ["primacy", "recency", "list_length"]
            );
            match who {
                // Rounded to whole trials, so close to 0 rather than 0.
                Who::Subject(0) => assert!(
                    rows.iter().all(|r| r.a.unwrap_or(0.0).abs() < 0.1 && r.b.unwrap_or(0.0).abs() < 0.01),
                    "{rows:?}"
                ),
                _ => {
                    assert!((rows[0].a.unwrap() - 1.0).abs() < 1e-9, "a flat curve: A = 1");
                    assert!(rows[2].b.unwrap() > 0.2);
                }
            }
        }
    }

    /// Figs. A7–A12: networks laid out as the paper's grid (architecture, then capacity), each run its own
    /// panels with only its curves beside the references, keeping its colour; a person after the networks.
    #[test]
    fn per_run_layout_orders_networks_as_the_paper_and_draws_each_alone() {
        let mut person = vsr_person("p");
        person.subject = Subject::Person { id: "p".into() };
        let net = |arch: &str, capacity: u32, trained: &str| {
            let mut r = vsr_person("n");
            r.subject = Subject::Network {
                arch: arch.into(),
                capacity,
                preset: "paper".into(),
                steps: 1000,
                backend: "flex".into(),
            };
            r.config.settings.insert("trained_tasks".into(), Setting::Text(trained.into()));
            r
        };
        let all = TaskId::ALL.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(",");
        let records =
            [person, net("trf", 96, &all), net("lstm", 1024, &all), net("lstm", 96, &all), net("lstm", 96, "VSR")];
        let refs: Vec<&ResultRecord> = records.iter().collect();
        assert_eq!(run_order(&refs), [3, 4, 2, 1, 0], "LSTM-96 (both), LSTM-1024, TRF-96, then the person");
        let titles = run_titles(&refs);
        assert_eq!(titles[3], "LSTM-96 · paper · 1000 steps (network)");
        assert_eq!(titles[4], "LSTM-96 · paper · 1000 steps · VSR only (network)", "the VSR-alone ablation (Fig. A2)");
        assert_eq!(titles[0], "participant p (person)");

        let mut curves: Vec<Vec<Curve>> = records.iter().map(|r| Compared::new(r.clone()).curves(VSR)).collect();
        curves[1].clear(); // a run without the task is left out
        let runs = run_panels(
            VSR,
            &curves,
            Extras { human: true, chance: true, published: false },
            &run_order(&refs),
            &titles,
        );
        assert_eq!(runs.iter().map(|r| r.subject).collect::<Vec<_>>(), [3, 4, 2, 0]);
        for run in &runs {
            assert_eq!(run.title, titles[run.subject]);
            assert_eq!(run.panels.len(), 1);
            let keys: Vec<String> = run.panels[0].series.iter().map(|s| s.who.key()).collect();
            assert_eq!(keys, [format!("s{}", run.subject), "human".into(), "chance".into(), "memoryless".into()]);
            assert_eq!(run.panels[0].subjects(), [run.subject]);
            assert_eq!(run.panels[0].labels.len(), 4, "a curve per list length, as Fig. A7");
            // The run keeps its colour of the together layout.
            let chart = run.panels[0].chart(&titles);
            assert_eq!(chart.series[0].colour, Some(palette(run.subject)));
            assert!(chart.series[0].name.starts_with(&format!("{} · n ", titles[run.subject])));
        }
        // With no subject points anywhere, nothing (not a page of references).
        assert!(
            run_panels(VSR, &[vec![]], Extras { human: true, chance: true, published: true }, &[0], &titles).is_empty()
        );
    }

    #[test]
    fn chance_model_without_human_curves_uses_subject_xs() {
        let sfr = StudyTask::Worm(TaskId::Sfr);
        let c = Curve {
            panel: "SFR".into(),
            label: "all".into(),
            x_name: "list_length".into(),
            points: vec![(2.0, 0.9), (4.0, 0.5)],
            note: None,
            n: vec![],
            ci: vec![],
        };
        let m = chance_model(sfr, &[vec![c]]);
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].points.iter().map(|p| p.0).collect::<Vec<_>>(), [2.0, 4.0]);
        assert_eq!(chance_model(VSR, &[]), chance_curves(VSR));
        // LSR: a guess among the list's L words, per list-length curve.
        let lsr = |l: u8| Curve {
            panel: "LSR".into(),
            label: format!("list_length={l}"),
            x_name: "serial_position".into(),
            points: (1..=l).map(|p| (p as f64, 0.5)).collect(),
            note: None,
            n: vec![],
            ci: vec![],
        };
        let m = chance_model(StudyTask::Worm(TaskId::Lsr), &[vec![lsr(2), lsr(8)]]);
        let levels: Vec<(String, f64)> = m.iter().map(|c| (c.label.clone(), c.points[0].1)).collect();
        assert_eq!(levels, vec![("list_length=2".into(), 0.5), ("list_length=8".into(), 0.125)]);
        assert!(m.iter().all(|c| c.points.iter().all(|p| p.1 == c.points[0].1)));
    }

    #[test]
    fn memoryless_line_beside_chance_where_they_differ() {
        // VSR: 1/L per list length, above chance's 1/9, on the human axes.
        let m = memoryless_model(VSR, &[]);
        assert_eq!(m.len(), 4);
        for c in &m {
            let l: f64 = c.label.strip_prefix("list_length=").unwrap().parse().unwrap();
            assert!(c.points.iter().all(|p| (p.1 - 1.0 / l).abs() < 1e-12), "{c:?}");
            assert!(c.note.as_ref().unwrap().starts_with("memoryless model"));
        }
        let ps = panels(VSR, &[], Extras { human: true, chance: true, published: false });
        let keys: Vec<String> = ps[0].series.iter().map(|s| s.who.key()).collect();
        assert_eq!(keys, ["human", "chance", "memoryless"]);
        let chart = ps[0].chart(&[]);
        let line = chart.series.iter().find(|s| s.name == "memoryless model").unwrap();
        assert_eq!((line.role, line.colour), (Role::Chance, Some(MEMORYLESS)));
        // Not without the chance model, and not where the two are equal (VIR, SC; CD-Color; N-back).
        let ps = panels(VSR, &[], Extras { human: true, chance: false, published: false });
        assert!(ps.iter().all(|p| p.series.iter().all(|s| s.who != Who::Memoryless)));
        for t in [TaskId::Vir, TaskId::Sc, TaskId::CdColor, TaskId::CdGap] {
            assert!(memoryless_model(StudyTask::Worm(t), &[]).is_empty(), "{t:?}");
        }
        assert!(memoryless_model(VERBAL, &[]).is_empty());
        // CD-Size: above ½ and growing with the set size (more of the resized bars show).
        let cd = memoryless_model(StudyTask::Worm(TaskId::CdSize), &[]);
        assert_eq!(cd.len(), 1);
        assert!(cd[0].points.windows(2).all(|w| w[1].1 > w[0].1 && w[0].1 > 0.5), "{:?}", cd[0].points);
        // STS without human curves: on the subject's x values.
        let sts = Curve {
            panel: "STS".into(),
            label: "all".into(),
            x_name: "switches".into(),
            points: vec![(0.0, 0.9), (2.0, 0.8)],
            note: None,
            n: vec![],
            ci: vec![],
        };
        let m = memoryless_model(StudyTask::Worm(TaskId::Sts), &[vec![sts]]);
        assert_eq!(m[0].points, vec![(0.0, 0.75), (2.0, 0.75)]);
    }

    #[test]
    fn trimming_keeps_the_task_rows_and_the_curves() {
        let mut p = vsr_person("p");
        p.analyses = Some(serde_json::json!({ "tv": [[1.0, 0.5]] }));
        let t = trim(&p, VSR);
        assert_eq!(t.analyses, None);
        assert!(t.trials.iter().all(|r| r.task == "VSR" && r.rt_ms.is_empty()));
        assert!(t.trials.iter().all(|r| r.extra.keys().all(|k| CURVE_EXTRAS.contains(&k.as_str()))));
        assert!(t.summaries.iter().all(|s| s.task == "VSR"));
        assert_eq!(Compared::new(t).curves(VSR), Compared::new(p.clone()).curves(VSR));
        let l = trim(&llm(), VERBAL);
        assert_eq!(l.trials.len(), 3, "rows kept as they were (the failed one too), renamed only when read");
        assert_eq!(Compared::new(l).curves(VERBAL), Compared::new(llm()).curves(VERBAL));

        let c = Comparison::new(VSR, &[Compared::new(p.clone()), Compared::new(llm())], true, false, true);
        assert!(c.has_rows());
        assert!(c.results[1].record.trials.is_empty(), "the LLM has no VSR rows");
        let s = c.summaries_only();
        assert!(!s.has_rows());
        assert!(s.results[0].record.trials.is_empty());
        assert_eq!(s.results[0].curves(VSR), Compared::new(p).curves(VSR));
        assert_eq!(s.results[0].tasks(), vec![VSR]);
        assert!(s.validate().is_ok());
        let back = Comparison::from_json(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(back, s);
    }

    #[test]
    fn comparison_json_refuses_future_and_bad_input() {
        let mut c = Comparison::new(VSR, &[Compared::new(vsr_person("p"))], true, true, false);
        c.schema = COMPARISON_SCHEMA + 1;
        let e = Comparison::from_json(&serde_json::to_string(&c).unwrap()).unwrap_err();
        assert!(matches!(e, RecordError::FutureVersion { .. }), "{e}");
        assert!(Comparison::from_json("{").is_err());
        assert!(Comparison::from_json("{\"schema\":1,\"task\":\"XYZ\",\"results\":[]}").is_err());
        let ok = Comparison::from_json("{\"schema\":1,\"task\":\"VSR\",\"results\":[]}").unwrap();
        assert!(ok.human && !ok.chance && ok.published);
    }
}

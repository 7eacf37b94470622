//! The one versioned result record shared by every kind of subject: a person, a language model, a network
//! (and published reference numbers). Plots, CSV/JSON export and share links all read this type.
//!
//! There is no field for a secret. Settings are typed values under names, and [`ResultRecord::validate`]
//! refuses names that look like credentials, so an API key cannot travel in a record by accident.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::task::{Conditions, TaskSpec};

/// Bumped whenever the record's shape changes incompatibly. Readers refuse newer versions with a message.
pub const SCHEMA_VERSION: u32 = 1;

/// Who or what took the test.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Subject {
    /// A person who took the tests in the browser.
    Person {
        /// A participant id chosen by the researcher (never a name by default).
        id: String,
    },
    /// A language model answering through a provider's API.
    Llm {
        /// Provider kind: `openai`, `anthropic`, `gemini`.
        provider: String,
        /// The model's id as the provider names it in requests.
        model: String,
    },
    /// A neural network trained by WM Lab's trainer and evaluated on the test split.
    Network {
        /// `rnn`, `gru`, `lstm`, `trf`.
        arch: String,
        /// Memory capacity C: the hidden size (the Transformer's `d_model`).
        capacity: u32,
        /// The training preset it was trained with (`quick`, `paper`, `small`, `tiny`).
        preset: String,
        /// Training steps done when the evaluated weights were taken.
        steps: u64,
        /// The device backend that evaluated it (`flex`, `wgpu`, …).
        backend: String,
    },
    /// Published numbers (e.g. the WorM human reference).
    Reference {
        /// Where the numbers come from (a paper or data set); also the subject's label.
        source: String,
    },
}

impl Subject {
    /// The kind as records and the CSV's `subject_kind` column write it: `person`, `llm`, `network` or
    /// `reference`.
    pub fn kind(&self) -> &'static str {
        match self {
            Subject::Person { .. } => "person",
            Subject::Llm { .. } => "llm",
            Subject::Network { .. } => "network",
            Subject::Reference { .. } => "reference",
        }
    }
    /// A short human-readable name.
    pub fn label(&self) -> String {
        match self {
            Subject::Person { id } => format!("participant {id}"),
            Subject::Llm { provider, model } => format!("{model} ({provider})"),
            Subject::Network { arch, capacity, .. } => format!("{}-{capacity}", arch.to_uppercase()),
            Subject::Reference { source } => source.clone(),
        }
    }
}

/// A plain setting value (no nested structures, no secrets).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Setting {
    /// A flag (a JSON `true` or `false`).
    Bool(bool),
    /// A whole number (seeds, counts, sizes in pixels, …).
    Int(i64),
    /// A real number (learning rate, temperature, …).
    Num(f64),
    /// Text, including structured values stored as JSON text (a staircase run, a model's configuration).
    Text(String),
}

/// The full configuration of a run: enough to reproduce it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunConfig {
    /// The seed the run's trials are drawn from: with the tasks and settings it regenerates the same trials.
    pub seed: u64,
    /// Task ids with their parameters (empty for text suites).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tasks: Vec<TaskSpec>,
    /// Everything else (trials per condition, provider base URL, temperature, preset, …).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub settings: BTreeMap<String, Setting>,
}

/// One aggregated number for one condition cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Task id or suite/sub-task name.
    pub task: String,
    /// The condition cell the number is over; all fields `None` for a number over all the task's trials.
    pub conditions: Conditions,
    /// `accuracy`, `hit_rate`, `dprime`, …
    pub metric: String,
    /// How many values the number aggregates: trials for a cell's accuracy, blocks for N-back, LLM samples,
    /// scored items for a network's task accuracy.
    pub n: u32,
    /// The number, in the metric's units (accuracies and rates as proportions from 0 to 1).
    pub value: f64,
    /// Standard error of the mean, where defined.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub se: Option<f64>,
}

/// One trial in long format. Multi-response trials (VSR, VSRec, SMU, STS, CS, SFR) list one entry per
/// scored step in `targets`, `responses`, `correct` and `rt_ms`, in step order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TrialRow {
    /// The task id as records write it (`VSR`, `CD-Color`, `nback-verbal`, or an LLM suite's task name).
    pub task: String,
    /// Index of the trial in its run.
    pub trial: u64,
    /// The trial's condition cell, with what the generator drew (probed position, changed feature, …).
    #[serde(default)]
    pub conditions: Conditions,
    /// The correct answer of each scored step, as text.
    pub targets: Vec<String>,
    /// The answer given at each scored step, as text; empty where no answer was given.
    pub responses: Vec<String>,
    /// Whether each scored step was answered right, as the task scores it.
    pub correct: Vec<bool>,
    /// Response times in ms from probe onset (people), or latency (LLMs); empty where not measured.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rt_ms: Vec<f64>,
    /// Anything else per trial (frame timings, token counts, …), as plain values.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, Setting>,
}

impl TrialRow {
    /// Proportion of scored steps answered correctly.
    pub fn score(&self) -> f64 {
        if self.correct.is_empty() {
            return 0.0;
        }
        self.correct.iter().filter(|&&c| c).count() as f64 / self.correct.len() as f64
    }
}

/// The record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResultRecord {
    /// The record's shape version ([`SCHEMA_VERSION`] when written); readers refuse newer ones.
    pub schema: u32,
    /// The version of WM Lab that wrote the record.
    pub app_version: String,
    /// When the run ended, as ISO 8601 text supplied by the caller (the core reads no clock).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
    /// Who or what took the test.
    pub subject: Subject,
    /// What was taken: a task id, several joined by `+`, or a suite name.
    pub task: String,
    /// The run's full configuration: seed, task parameters and settings.
    pub config: RunConfig,
    /// The aggregated numbers: one per task, condition cell and metric.
    pub summaries: Vec<Summary>,
    /// Every trial in long format, in run order; empty in a summary-only record ([`ResultRecord::summary_only`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trials: Vec<TrialRow>,
    /// Neural analyses of a network subject (`analysis::NetworkAnalysis` as JSON; dropped by
    /// [`ResultRecord::summary_only`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analyses: Option<serde_json::Value>,
    /// A network's training curve (WorM Fig. A4): its validation checks up to the evaluated step, in
    /// order. Empty for people, LLMs and records made before it existed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub training: Vec<TrainPoint>,
}

/// One validation check of a network's training: after `step` steps (`trials` training trials seen),
/// the mean validation accuracy over the trained ids and each id's, as the reference code measures them
/// during training (`networks::ValReport::accuracy`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainPoint {
    /// Training steps done when the check ran.
    pub step: u64,
    /// Training trials seen by then (trials per step × `step`).
    pub trials: u64,
    /// The mean of the trained ids' validation accuracies, from 0 to 1.
    pub mean_accuracy: f64,
    /// Each trained id's validation accuracy, by task id (`SC`, `VSR`, …).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub accuracy: BTreeMap<String, f64>,
}

/// Why a record was refused.
#[derive(Clone, Debug, PartialEq)]
pub enum RecordError {
    /// The text was written by a newer WM Lab: its schema version is above the highest this build reads.
    FutureVersion {
        /// The schema version the text declares.
        found: u32,
        /// The highest schema version this build reads.
        supported: u32,
    },
    /// The text is not a record this build can read; holds why (not JSON, a wrong field, a non-finite number).
    Invalid(String),
    /// A setting or per-trial extra has a name that looks like a credential ([`credential_like`]); holds the name.
    SecretLike(String),
}

impl std::fmt::Display for RecordError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RecordError::FutureVersion { found, supported } => write!(
                f,
                "This result was made by a newer version of WM Lab (record version {found}; this app reads up to {supported}). Open it with the newer app."
            ),
            RecordError::Invalid(why) => write!(f, "This is not a WM Lab result: {why}."),
            RecordError::SecretLike(name) => {
                write!(f, "The setting “{name}” looks like a credential; WM Lab never stores keys in results.")
            }
        }
    }
}

impl std::error::Error for RecordError {}

/// Whether a setting name looks like a credential (`api_key`, `x-api-key`, `token`, `access_token`,
/// `secret`, `password`, `authorization`, …). Decided on the name's words, so ordinary names such as
/// `max_tokens`, `tokens_in` or `n_keys` pass.
pub fn credential_like(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    if ["apikey", "api_key", "api-key", "secret", "passw", "authoriz", "bearer", "credential"]
        .iter()
        .any(|w| n.contains(w))
    {
        return true;
    }
    n.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| matches!(w, "key" | "token" | "auth" | "pwd" | "sk"))
}

fn secret_like(name: &str) -> bool {
    credential_like(name)
}

/// Text in natural order: runs of digits compare as numbers (`list_length=10` after `list_length=9`).
pub fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    fn parts(s: &str) -> Vec<(bool, &str)> {
        let mut out = Vec::new();
        let mut start = 0;
        let b = s.as_bytes();
        for i in 1..=b.len() {
            if i == b.len() || b[i].is_ascii_digit() != b[start].is_ascii_digit() {
                out.push((b[start].is_ascii_digit(), &s[start..i]));
                start = i;
            }
        }
        out
    }
    let (pa, pb) = (parts(a), parts(b));
    for (x, y) in pa.iter().zip(&pb) {
        let o = match (x, y) {
            ((true, x), (true, y)) => {
                let (x, y) = (x.trim_start_matches('0'), y.trim_start_matches('0'));
                x.len().cmp(&y.len()).then_with(|| x.cmp(y))
            }
            ((_, x), (_, y)) => x.cmp(y),
        };
        if o.is_ne() {
            return o;
        }
    }
    pa.len().cmp(&pb.len()).then_with(|| a.cmp(b))
}

impl ResultRecord {
    /// The summaries as a table shows them: by task, then condition in natural order, then metric.
    pub fn summaries_in_order(&self) -> Vec<&Summary> {
        let mut v: Vec<&Summary> = self.summaries.iter().collect();
        v.sort_by(|a, b| {
            natural_cmp(&a.task, &b.task)
                .then_with(|| natural_cmp(&a.conditions.label(), &b.conditions.label()))
                .then_with(|| a.metric.cmp(&b.metric))
        });
        v
    }

    /// The split its trials were drawn from, as written (setting `split`; people's sessions and the
    /// visual LLM suite write none: the human split).
    pub fn split_name(&self) -> &str {
        match self.config.settings.get("split") {
            Some(Setting::Text(s)) => s.as_str(),
            _ => "human",
        }
    }

    /// An empty record of this schema and app version: `subject` taking `task` under `config`, with no
    /// creation time, summaries, trials, analyses or training curve yet.
    pub fn new(subject: Subject, task: impl Into<String>, config: RunConfig) -> Self {
        ResultRecord {
            schema: SCHEMA_VERSION,
            app_version: crate::VERSION.to_string(),
            created: None,
            subject,
            task: task.into(),
            config,
            summaries: Vec::new(),
            trials: Vec::new(),
            analyses: None,
            training: Vec::new(),
        }
    }

    /// Check the record is one this version can show and carries nothing secret-like.
    pub fn validate(&self) -> Result<(), RecordError> {
        if self.schema > SCHEMA_VERSION {
            return Err(RecordError::FutureVersion { found: self.schema, supported: SCHEMA_VERSION });
        }
        if self.schema == 0 {
            return Err(RecordError::Invalid("its schema version is 0".into()));
        }
        if let Some(name) = self.config.settings.keys().find(|k| secret_like(k)) {
            return Err(RecordError::SecretLike(name.clone()));
        }
        for t in &self.trials {
            if let Some(name) = t.extra.keys().find(|k| secret_like(k)) {
                return Err(RecordError::SecretLike(name.clone()));
            }
        }
        for s in &self.summaries {
            if !s.value.is_finite() {
                return Err(RecordError::Invalid(format!("a summary of {} is not a finite number", s.task)));
            }
        }
        for p in &self.training {
            if !p.mean_accuracy.is_finite() || p.accuracy.values().any(|v| !v.is_finite()) {
                return Err(RecordError::Invalid(format!(
                    "the training curve at step {} is not a finite number",
                    p.step
                )));
            }
        }
        Ok(())
    }

    /// The record as pretty-printed JSON, once [`ResultRecord::validate`] accepts it.
    pub fn to_json(&self) -> Result<String, RecordError> {
        self.validate()?;
        Ok(serde_json::to_string_pretty(self).expect("a record serialises"))
    }

    /// Records from text holding one or more JSON records one after another: a record file, JSON lines,
    /// or what a JATOS study stores (the participant page appends the whole record so far after each
    /// block, pretty-printed, one after another). A later record of the same subject supersedes the
    /// earlier ones (it holds their blocks and more); subjects keep their first order.
    pub fn from_json_documents(text: &str) -> Result<Vec<ResultRecord>, RecordError> {
        let mut out: Vec<ResultRecord> = Vec::new();
        let stream = serde_json::Deserializer::from_str(text).into_iter::<serde_json::Value>();
        for (i, doc) in stream.enumerate() {
            let doc = doc.map_err(|e| {
                RecordError::Invalid(if i == 0 {
                    format!("the text is not valid JSON ({e})")
                } else {
                    format!("JSON document {} is not valid JSON ({e})", i + 1)
                })
            })?;
            let r = ResultRecord::from_value(doc).map_err(|e| match e {
                RecordError::Invalid(m) if i > 0 => RecordError::Invalid(format!("record {}: {m}", i + 1)),
                e => e,
            })?;
            let who = r.subject.label();
            match out.iter_mut().find(|o| o.subject.label() == who) {
                Some(earlier) => *earlier = r,
                None => out.push(r),
            }
        }
        if out.is_empty() {
            return Err(RecordError::Invalid("the text holds no record".into()));
        }
        Ok(out)
    }

    /// Read a record from JSON, refusing future versions with a clear message before looking further.
    pub fn from_json(text: &str) -> Result<ResultRecord, RecordError> {
        let v: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| RecordError::Invalid(format!("the text is not valid JSON ({e})")))?;
        ResultRecord::from_value(v)
    }

    /// [`ResultRecord::from_json`] on JSON already parsed.
    fn from_value(v: serde_json::Value) -> Result<ResultRecord, RecordError> {
        check_texts(&v)?;
        let schema = v
            .get("schema")
            .and_then(|s| s.as_u64())
            .ok_or_else(|| RecordError::Invalid("it has no schema version".into()))?;
        if schema > SCHEMA_VERSION as u64 {
            return Err(RecordError::FutureVersion {
                found: schema.min(u32::MAX as u64) as u32,
                supported: SCHEMA_VERSION,
            });
        }
        let r: ResultRecord =
            serde_json::from_value(v).map_err(|e| RecordError::Invalid(format!("a field is wrong ({e})")))?;
        r.validate()?;
        Ok(r)
    }

    /// The same record without per-trial rows (what a share link carries when the full record is too big).
    pub fn summary_only(&self) -> ResultRecord {
        ResultRecord { analyses: None, ..self.with_trials(Vec::new()) }
    }

    /// The same record with `trials` for its rows: everything else copied, the old rows not (a copy
    /// of a 300k-trial record's rows is most of a second and hundreds of megabytes).
    pub fn with_trials(&self, trials: Vec<TrialRow>) -> ResultRecord {
        ResultRecord {
            schema: self.schema,
            app_version: self.app_version.clone(),
            created: self.created.clone(),
            subject: self.subject.clone(),
            task: self.task.clone(),
            config: self.config.clone(),
            summaries: self.summaries.clone(),
            trials,
            analyses: self.analyses.clone(),
            training: self.training.clone(),
        }
    }

    /// A label that tells runs of one kind apart: the subject's label, and for a network its preset,
    /// trained steps, task subset, frozen task embedding and task parameters where the record says them
    /// (`LSTM-96 · quick · 6000 steps · VSR only · static embedding`), for an LLM the N-back history
    /// where it is not the published one (`gpt-4o · history note64`).
    pub fn run_label(&self) -> String {
        let mut parts = vec![self.subject.label()];
        if let Subject::Network { preset, steps, .. } = &self.subject {
            parts.push(preset.clone());
            parts.push(format!("{steps} steps"));
            let text = |k: &str| match self.config.settings.get(k) {
                Some(Setting::Text(t)) if !t.is_empty() => Some(t.clone()),
                _ => None,
            };
            if let Some(ids) = text("trained_tasks") {
                let n = ids.split(',').count();
                if n < crate::TaskId::ALL.len() {
                    parts.push(if n <= 3 { format!("{} only", ids.replace(',', "+")) } else { format!("{n} ids") });
                }
            }
            if text("task_embedding").as_deref() == Some("static") {
                parts.push("static embedding".into());
            }
            if let Some(p) = text("task_settings") {
                parts.push(p);
            }
        }
        // An LLM's N-back without the visible history (its own note, or nothing).
        if let Some(Setting::Text(h)) = self.config.settings.get("nback_history")
            && h != "full"
        {
            parts.push(if h == "none" { "no history".into() } else { format!("history {h}") });
        }
        parts.join(" · ")
    }

    /// Long-format CSV: a header and one row per trial.
    pub fn to_csv(&self) -> Result<String, RecordError> {
        self.validate()?;
        let mut extra_cols: Vec<&String> = self.trials.iter().flat_map(|t| t.extra.keys()).collect();
        extra_cols.sort();
        extra_cols.dedup();
        let mut other_cols: Vec<&String> = self.trials.iter().flat_map(|t| t.conditions.other.keys()).collect();
        other_cols.sort();
        other_cols.dedup();
        let mut header: Vec<String> =
            ["subject_kind", "subject", "task", "trial"].iter().map(|s| s.to_string()).collect();
        header.extend(Conditions::COLUMNS.iter().map(|s| s.to_string()));
        header.extend(other_cols.iter().map(|s| s.to_string()));
        header.extend(["targets", "responses", "correct", "score", "rt_ms"].iter().map(|s| s.to_string()));
        header.extend(extra_cols.iter().map(|s| s.to_string()));
        let mut out = String::new();
        push_csv_row(&mut out, &header);
        let subject = self.subject.label();
        for t in &self.trials {
            let pairs: BTreeMap<&str, String> = t.conditions.pairs().into_iter().collect();
            let mut row = vec![self.subject.kind().to_string(), subject.clone(), t.task.clone(), t.trial.to_string()];
            row.extend(Conditions::COLUMNS.iter().map(|c| pairs.get(c).cloned().unwrap_or_default()));
            row.extend(other_cols.iter().map(|c| t.conditions.other.get(*c).cloned().unwrap_or_default()));
            row.push(t.targets.join(" "));
            row.push(t.responses.join(" "));
            row.push(t.correct.iter().map(|&c| if c { "1" } else { "0" }).collect::<Vec<_>>().join(" "));
            row.push(format_num(t.score()));
            row.push(t.rt_ms.iter().map(|&v| format_num(v)).collect::<Vec<_>>().join(" "));
            for c in &extra_cols {
                row.push(match t.extra.get(*c) {
                    None => String::new(),
                    Some(Setting::Bool(b)) => b.to_string(),
                    Some(Setting::Int(i)) => i.to_string(),
                    Some(Setting::Num(x)) => format_num(*x),
                    Some(Setting::Text(s)) => s.clone(),
                });
            }
            push_csv_row(&mut out, &row);
        }
        Ok(out)
    }
}

fn format_num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 { format!("{}", x as i64) } else { format!("{x:.4}") }
}

/// The longest text a record or comparison read from outside may hold in one field: far above any
/// label, answer or setting WM Lab writes, far below what freezes a page that shows it.
pub const MAX_TEXT_CHARS: usize = 100_000;

/// Refuses JSON holding a string longer than [`MAX_TEXT_CHARS`] (a link or file made to freeze the
/// page that renders it), before anything is built from it.
pub fn check_texts(v: &serde_json::Value) -> Result<(), RecordError> {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::String(s) if s.len() > MAX_TEXT_CHARS => {
                let n = s.chars().count();
                if n > MAX_TEXT_CHARS {
                    return Err(RecordError::Invalid(format!(
                        "a text field holds {n} characters, more than the {MAX_TEXT_CHARS} a result keeps"
                    )));
                }
            }
            serde_json::Value::Array(a) => stack.extend(a),
            serde_json::Value::Object(o) => {
                for (k, v) in o {
                    if k.chars().count() > MAX_TEXT_CHARS {
                        return Err(RecordError::Invalid("a field name is longer than any WM Lab writes".into()));
                    }
                    stack.push(v);
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Whether a spreadsheet would take this text cell for a formula (OWASP's CSV injection rule): it
/// starts with `=`, `+`, `-`, `@`, a tab or a carriage return, possibly behind apostrophes (so that
/// the escape itself round-trips). Finite numbers (`-0.5`, `+3`) stay numbers.
fn formula_like(c: &str) -> bool {
    if c.parse::<f64>().is_ok_and(f64::is_finite) {
        return false;
    }
    c.trim_start_matches('\'').starts_with(['=', '+', '-', '@', '\t', '\r'])
}

/// A cell as WM Lab writes it into CSV: text a spreadsheet would run as a formula gets a leading `'`
/// (which Excel and LibreOffice show as text); everything else as it is.
pub fn csv_escape(cell: &str) -> std::borrow::Cow<'_, str> {
    if formula_like(cell) { format!("'{cell}").into() } else { cell.into() }
}

/// The cell [`csv_escape`] was given, from what it wrote (cells it left alone come back unchanged).
pub fn csv_unescape(cell: &str) -> &str {
    match cell.strip_prefix('\'') {
        Some(rest) if formula_like(rest) => rest,
        _ => cell,
    }
}

/// One row of several records' summaries side by side ([`side_by_side`]).
#[derive(Clone, Debug, PartialEq)]
pub struct SideBySideRow {
    /// The summary's task.
    pub task: String,
    /// Its condition cell as `name=value, …` (empty for a number over all the task's trials).
    pub cell: String,
    /// The metric.
    pub metric: String,
    /// Each record's number and how many values it aggregates; `None` where a record has no such row.
    pub values: Vec<Option<(f64, u32)>>,
}

/// Several records' summaries as one table: a row per (task, cell, metric) in the order they first
/// appear, a column per record. Used to show several models of one LLM run beside each other.
pub fn side_by_side(records: &[&ResultRecord]) -> Vec<SideBySideRow> {
    let mut rows: Vec<SideBySideRow> = Vec::new();
    for (k, r) in records.iter().enumerate() {
        for s in &r.summaries {
            let cell: Vec<String> = s.conditions.all_pairs().iter().map(|(n, v)| format!("{n}={v}")).collect();
            let cell = cell.join(", ");
            let i = match rows.iter().position(|x| x.task == s.task && x.cell == cell && x.metric == s.metric) {
                Some(i) => i,
                None => {
                    rows.push(SideBySideRow {
                        task: s.task.clone(),
                        cell,
                        metric: s.metric.clone(),
                        values: vec![None; records.len()],
                    });
                    rows.len() - 1
                }
            };
            rows[i].values[k] = Some((s.value, s.n));
        }
    }
    rows
}

/// One CSV row of `cells` with RFC 4180 quoting and formula-like text escaped ([`csv_escape`]), and a
/// newline: every CSV WM Lab writes goes through here (records, the dashboard's long CSV, Psych-DS
/// data, `wmlab compare`, `wmlab sweep`).
pub fn push_csv_row(out: &mut String, cells: &[String]) {
    for (i, c) in cells.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let c = csv_escape(c);
        if c.contains([',', '"', '\n', '\r']) {
            out.push('"');
            out.push_str(&c.replace('"', "\"\""));
            out.push('"');
        } else {
            out.push_str(&c);
        }
    }
    out.push('\n');
}

/// Mean and standard error of the mean of a list of values.
pub fn mean_se(values: &[f64]) -> (f64, Option<f64>) {
    let n = values.len();
    if n == 0 {
        return (0.0, None);
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    if n < 2 {
        return (mean, None);
    }
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    (mean, Some((var / n as f64).sqrt()))
}

/// Accuracy per (task, condition cell) from trial rows: the mean of each trial's score, with its SE.
pub fn summarise(rows: &[TrialRow]) -> Vec<Summary> {
    let mut groups: Vec<((String, Conditions), Vec<f64>)> = Vec::new();
    for r in rows {
        let key = (r.task.clone(), r.conditions.clone());
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(r.score()),
            None => groups.push((key, vec![r.score()])),
        }
    }
    groups
        .into_iter()
        .map(|((task, conditions), v)| {
            let (value, se) = mean_se(&v);
            Summary { task, conditions, metric: "accuracy".into(), n: v.len() as u32, value, se }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::TaskId;

    #[test]
    fn several_records_side_by_side_by_task_cell_and_metric() {
        let sum = |task: &str, n_back: Option<&str>, metric: &str, value: f64| {
            let mut conditions = Conditions::default();
            if let Some(n) = n_back {
                conditions.other.insert("n".into(), n.into());
            }
            Summary { task: task.into(), conditions, metric: metric.into(), n: 3, value, se: None }
        };
        let mut a =
            ResultRecord::new(Subject::Llm { provider: "p".into(), model: "a".into() }, "lrt", RunConfig::default());
        // Runs of one model told apart by their N-back history.
        let mut noted = a.clone();
        noted.config.settings.insert("nback_history".into(), Setting::Text("note64".into()));
        assert_eq!((a.run_label(), noted.run_label()), ("a (p)".to_string(), "a (p) · history note64".to_string()));
        let mut b = a.clone();
        a.summaries = vec![sum("nback", Some("1"), "accuracy", 0.9), sum("lrt", None, "first_integer", 0.5)];
        b.summaries = vec![sum("lrt", None, "first_integer", 0.25), sum("nback", Some("2"), "accuracy", 0.7)];
        let rows = side_by_side(&[&a, &b]);
        let shown: Vec<(&str, &str, &str, Vec<Option<f64>>)> = rows
            .iter()
            .map(|r| {
                (r.task.as_str(), r.cell.as_str(), r.metric.as_str(), r.values.iter().map(|v| v.map(|x| x.0)).collect())
            })
            .collect();
        assert_eq!(
            shown,
            [
                ("nback", "n=1", "accuracy", vec![Some(0.9), None]),
                ("lrt", "", "first_integer", vec![Some(0.5), Some(0.25)]),
                ("nback", "n=2", "accuracy", vec![None, Some(0.7)]),
            ]
        );
        assert!(side_by_side(&[]).is_empty());
    }

    pub(crate) fn sample() -> ResultRecord {
        let mut cfg = RunConfig { seed: 7, tasks: vec![TaskSpec::new(TaskId::Vir)], ..Default::default() };
        cfg.settings.insert("trials_per_condition".into(), Setting::Int(2));
        let mut r = ResultRecord::new(Subject::Person { id: "p01".into() }, "VIR", cfg);
        for i in 0..4 {
            r.trials.push(TrialRow {
                task: "VIR".into(),
                trial: i,
                conditions: Conditions {
                    list_length: Some(4),
                    retention: Some((i % 2) as u8 * 2),
                    ..Default::default()
                },
                targets: vec!["1".into()],
                responses: vec![if i == 0 { "0" } else { "1" }.into()],
                correct: vec![i != 0],
                rt_ms: vec![512.25],
                extra: [("note".to_string(), Setting::Text("a, \"quoted\" note".into()))].into_iter().collect(),
            });
        }
        r.summaries = summarise(&r.trials);
        r
    }

    #[test]
    fn analyses_travel_in_json_and_are_dropped_from_summaries() {
        let mut r = sample();
        assert!(!r.to_json().unwrap().contains("analyses"));
        r.analyses = Some(serde_json::json!({ "k": 3 }));
        let back: ResultRecord = serde_json::from_str(&r.to_json().unwrap()).unwrap();
        assert_eq!(back.analyses, Some(serde_json::json!({ "k": 3 })));
        assert_eq!(r.summary_only().analyses, None);
    }

    #[test]
    fn json_round_trip() {
        let r = sample();
        let back = ResultRecord::from_json(&r.to_json().unwrap()).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn summaries_group_by_condition() {
        let r = sample();
        assert_eq!(r.summaries.len(), 2);
        let ri0 = r.summaries.iter().find(|s| s.conditions.retention == Some(0)).unwrap();
        assert_eq!(ri0.n, 2);
        assert!((ri0.value - 0.5).abs() < 1e-12);
        assert!(ri0.se.is_some());
    }

    #[test]
    fn csv_has_one_row_per_trial_and_quotes() {
        let csv = sample().to_csv().unwrap();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 5);
        assert!(lines[0].starts_with("subject_kind,subject,task,trial,list_length"));
        assert!(lines[1].contains("\"a, \"\"quoted\"\" note\""));
        assert!(lines[2].contains(",512.2500,") || lines[2].contains(",512.25"));
    }

    #[test]
    fn refuses_future_versions_and_secret_like_settings() {
        let mut r = sample();
        r.schema = SCHEMA_VERSION + 1;
        let text = serde_json::to_string(&r).unwrap();
        assert!(matches!(ResultRecord::from_json(&text), Err(RecordError::FutureVersion { .. })));
        let mut r = sample();
        r.config.settings.insert("api_key".into(), Setting::Text("sk-123".into()));
        assert!(matches!(r.to_json(), Err(RecordError::SecretLike(_))));
        assert!(matches!(r.to_csv(), Err(RecordError::SecretLike(_))));
        for bad in [
            "api_key",
            "x-api-key",
            "OPENAI_API_KEY",
            "token",
            "access_token",
            "Authorization",
            "client_secret",
            "password",
            "apiKey",
        ] {
            assert!(credential_like(bad), "{bad}");
        }
        for fine in ["max_tokens", "tokens_in", "n_keys", "keyboard", "monkey", "temperature", "base_url"] {
            assert!(!credential_like(fine), "{fine}");
        }
        assert!(ResultRecord::from_json("{").is_err());
        assert!(ResultRecord::from_json("{\"a\":1}").unwrap_err().to_string().contains("schema"));
    }

    #[test]
    fn summaries_read_in_natural_order() {
        assert!(natural_cmp("list_length=10", "list_length=9").is_gt());
        assert!(natural_cmp("a2b", "a10").is_lt() && natural_cmp("x", "x").is_eq() && natural_cmp("x01", "x1").is_lt());
        let mut r = ResultRecord::new(Subject::Person { id: "p".into() }, "VSR", RunConfig::default());
        for l in [8u8, 6, 10, 3] {
            r.summaries.push(Summary {
                task: "VSR".into(),
                conditions: crate::task::Conditions { list_length: Some(l), ..Default::default() },
                metric: "accuracy".into(),
                n: 1,
                value: 0.5,
                se: None,
            });
        }
        let order: Vec<_> = r.summaries_in_order().iter().map(|s| s.conditions.list_length.unwrap()).collect();
        assert_eq!(order, [3, 6, 8, 10]);
    }
}

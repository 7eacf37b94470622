//! `wmlab llm export --inspect RUN_DIR --out FILE`: a `wmlab llm run` folder as an Inspect AI evaluation
//! log (the format of PyPI `inspect-ai`, checked with 0.3.285), for `inspect view` and Inspect's log
//! readers.
//!
//! - `FILE.json`: Inspect's JSON log, its header fields (`version`, `status`, `eval`, `plan`, `results`,
//!   `stats`) before `samples`, as Inspect's streamed header-only read needs them.
//! - `FILE.eval`: its zip archive: `_journal/start.json`, one `samples/<id>_epoch_<n>.json` per sample
//!   (the `/` of an id makes folders, as Inspect's own writer does), `summaries.json`,
//!   `reductions.json` and `header.json`.
//!
//! One Inspect sample per outcome of `log.jsonl` (the last one logged per sample id): `id` the item id
//! (without the `@r<e>` of a repeat), `epoch` the repeat; `input` the prompt; `target` the formatted
//! reference (an N-back block's condition string); `messages` the conversation with the reply; one score
//! per WM Lab metric, headline first, with the answer read from the reply; a failed sample has an
//! `error` and no scores. `results`: per metric the mean over items of each item's mean over its repeats,
//! with its SE over items (for a run of one task, the numbers of record.json's summaries), reduced with
//! `mean`.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use clap::Args;
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::{Value, json};
use wmlab_core::llm::metrics::format_reference;
use wmlab_core::llm::{Message, Role, Suite, group_by_item, item_id, minerva};
use wmlab_core::record::{ResultRecord, mean_se};
use wmlab_llm::error::printable;
use wmlab_llm::record::iso8601;
use wmlab_llm::{LogEntry, Outcome, RunLog};

/// `wmlab llm export --help`.
pub const LONG_ABOUT: &str = "Write a run folder of `wmlab llm run` as an Inspect AI evaluation log (the format of \
    PyPI inspect-ai, checked with 0.3.285), to open in `inspect view` or read with inspect_ai.log: \
    --out FILE.json writes Inspect's JSON log, --out FILE.eval its zip archive.\n\n\
    One Inspect sample per finished sample of log.jsonl: id = the item (a repeat of --repeats K is its epoch), \
    input = the prompt, target = the reference (an N-back block's condition string), messages = the \
    conversation with the reply, one score per WM Lab metric (headline first) with the answer read from the \
    reply; a failed sample carries its error and no score. Results: each metric's mean over items (each item's \
    mean over its epochs) with its SE, as record.json's summaries count them; model = <provider>/<model>, \
    task = wmlab/<suite>. No key is written (the log holds none).\n\n\
    RUN_DIR may also be a folder of several models' runs (`--model a,b`: models.json and one folder per \
    model): one log per model is written beside FILE, named <stem>-<model folder><ext> \
    (`--out runs/lrt.eval` gives runs/lrt-a.eval and runs/lrt-b.eval).\n\n\
    `inspect view` and `inspect log list` list a .eval log under any name, a .json log only when its name \
    starts with a date and time (2026-01-31T12-00-00_…): FILE is written as named, with a note on stderr \
    when a .json name would not be listed.";

#[derive(Args, Debug, Clone)]
pub struct ExportArgs {
    /// A run folder of `wmlab llm run` (log.jsonl, record.json), or a folder of several models' runs
    /// (models.json and one run folder per model).
    #[arg(long, value_name = "RUN_DIR")]
    pub inspect: PathBuf,
    /// The log to write: FILE.json (Inspect's JSON log) or FILE.eval (its zip archive). Several models:
    /// one log per model beside FILE, named <stem>-<model folder><ext>.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

/// `wmlab llm export`.
pub fn export(a: &ExportArgs) -> anyhow::Result<()> {
    let format = Format::of(&a.out)?;
    for (dir, out) in runs_of(&a.inspect, &a.out, format)? {
        let log = build(&dir)?;
        let bytes = match format {
            Format::Json => to_json(&log.header(true))?,
            Format::Eval => log.archive()?,
        };
        if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::create_dir_all(parent).map_err(|e| anyhow::anyhow!("cannot create {}: {e}", parent.display()))?;
        }
        crate::write_atomic(&out, &bytes)?;
        let name = out.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if format == Format::Json && !timestamped(name) {
            eprintln!(
                "wmlab: note: `inspect view` and `inspect log list` list a .json log only when its name starts with \
                 a date and time (2026-01-31T12-00-00_…); {name} is written as named (rename it, or write .eval)"
            );
        }
        let failed = log.samples.iter().filter(|s| s.error.is_some()).count();
        out!(
            "{}: {} samples ({} items, up to {} epochs, {} failed) of {} on {}",
            out.display(),
            log.samples.len(),
            log.items,
            log.epochs,
            failed,
            log.model,
            log.task
        );
    }
    Ok(())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Json,
    Eval,
}

impl Format {
    fn of(out: &Path) -> anyhow::Result<Format> {
        match out.extension().and_then(|e| e.to_str()) {
            Some("json") => Ok(Format::Json),
            Some("eval") => Ok(Format::Eval),
            _ => Err(anyhow::anyhow!(
                "--out {}: the file must end in .json (Inspect's JSON log) or .eval (its zip archive)",
                out.display()
            )),
        }
    }

    fn ext(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Eval => "eval",
        }
    }
}

/// The run folders to export and the file each goes to: RUN_DIR itself, or each model's folder of a
/// several-model run (`<stem>-<folder><ext>` beside FILE).
fn runs_of(dir: &Path, out: &Path, format: Format) -> anyhow::Result<Vec<(PathBuf, PathBuf)>> {
    if dir.join("log.jsonl").is_file() {
        return Ok(vec![(dir.to_path_buf(), out.to_path_buf())]);
    }
    if !dir.is_dir() {
        return Err(anyhow::anyhow!("--inspect {}: no such folder", dir.display()));
    }
    let listing = dir.join("models.json");
    if !listing.is_file() {
        return Err(anyhow::anyhow!(
            "--inspect {}: neither a run folder (no log.jsonl) nor a folder of several models' runs (no models.json)",
            dir.display()
        ));
    }
    let text = fs::read_to_string(&listing).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", listing.display()))?;
    let v: Value =
        serde_json::from_str(&text).map_err(|e| anyhow::anyhow!("{}: not valid JSON ({e})", listing.display()))?;
    let folders: Vec<&str> =
        v["models"].as_array().map(|ms| ms.iter().filter_map(|m| m["folder"].as_str()).collect()).unwrap_or_default();
    if folders.is_empty() {
        return Err(anyhow::anyhow!("{}: lists no models", listing.display()));
    }
    let stem = out.file_stem().and_then(|s| s.to_str()).unwrap_or("wmlab");
    let mut runs = Vec::new();
    for folder in folders {
        // A folder is one name inside RUN_DIR, never a path out of it.
        if folder.is_empty() || folder.contains(['/', '\\']) || folder == "." || folder == ".." {
            return Err(anyhow::anyhow!("{}: model folder {folder:?} is not a folder name", listing.display()));
        }
        let run = dir.join(folder);
        if !run.join("log.jsonl").is_file() {
            eprintln!("wmlab: {}: no log.jsonl (that model's run never started); skipped", run.display());
            continue;
        }
        runs.push((run, out.with_file_name(format!("{stem}-{folder}.{}", format.ext()))));
    }
    if runs.is_empty() {
        return Err(anyhow::anyhow!("{}: none of its models' folders has a log.jsonl", dir.display()));
    }
    Ok(runs)
}

/// Whether Inspect lists a .json log of this name: it starts `YYYY-MM-DDTHH-MM-SS` (`:` or `-`).
fn timestamped(name: &str) -> bool {
    let pattern = b"dddd-dd-ddTdd:dd:dd";
    let b = name.as_bytes();
    b.len() >= pattern.len()
        && pattern.iter().zip(b).all(|(p, c)| match p {
            b'd' => c.is_ascii_digit(),
            b':' => *c == b':' || *c == b'-',
            _ => p == c,
        })
}

/// A JSON object whose keys keep their order (serde_json's `Map` sorts them): a sample's scores, headline
/// first, and an `EvalScore`'s metrics, `mean` first.
#[derive(Clone, Debug, Default)]
struct Ordered(Vec<(String, Value)>);

impl Serialize for Ordered {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// An Inspect `EvalSample`.
#[derive(Serialize)]
struct Sample {
    id: String,
    epoch: u32,
    input: Value,
    target: Value,
    messages: Vec<Value>,
    output: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    scores: Option<Ordered>,
    metadata: Value,
    model_usage: Value,
    total_time: f64,
    working_time: f64,
    uuid: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<Value>,
    /// The summary's input and target: text cut as Inspect cuts it, images as `(Image)`.
    #[serde(skip)]
    thin_input: Value,
    #[serde(skip)]
    thin_target: Value,
}

/// An Inspect `EvalSampleSummary` (`summaries.json` of a .eval archive).
#[derive(Serialize)]
struct Summary<'a> {
    id: &'a str,
    epoch: u32,
    input: &'a Value,
    target: &'a Value,
    metadata: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    scores: Option<&'a Ordered>,
    model_usage: &'a Value,
    total_time: f64,
    working_time: f64,
    uuid: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    completed: bool,
    message_count: usize,
}

/// An Inspect `EvalScore`: one WM Lab metric over the run.
#[derive(Serialize)]
struct EvalScore {
    name: String,
    scorer: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    reducer: Option<&'static str>,
    scored_samples: usize,
    unscored_samples: usize,
    params: Value,
    metrics: Ordered,
}

#[derive(Serialize)]
struct Results {
    total_samples: usize,
    completed_samples: usize,
    scores: Vec<EvalScore>,
}

/// An Inspect `EvalSampleReductions`: each item's mean over its epochs, for one metric.
#[derive(Serialize)]
struct Reduction {
    scorer: String,
    reducer: &'static str,
    samples: Vec<Value>,
}

/// The log: Inspect's header fields, samples and reductions.
struct Log {
    eval: Value,
    plan: Value,
    results: Results,
    stats: Value,
    samples: Vec<Sample>,
    reductions: Vec<Reduction>,
    model: String,
    task: String,
    items: usize,
    epochs: u32,
}

/// The top-level object, header fields first (Inspect's header-only read stops at `samples`).
#[derive(Serialize)]
struct Top<'a> {
    version: u32,
    status: &'static str,
    eval: &'a Value,
    plan: &'a Value,
    results: &'a Results,
    stats: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    samples: Option<&'a [Sample]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reductions: Option<&'a [Reduction]>,
}

/// Members of a .eval archive: the zip writer of the core holds at most 65,535 entries and 4 GiB.
const ZIP_ENTRIES: usize = 65_535;

impl Log {
    /// The JSON log (`whole`) or the .eval archive's header.json (no samples, no reductions).
    fn header(&self, whole: bool) -> Top<'_> {
        Top {
            version: 2,
            // A failed sample is the sample's error, as in an Inspect run that goes on after one.
            status: "success",
            eval: &self.eval,
            plan: &self.plan,
            results: &self.results,
            stats: &self.stats,
            samples: whole.then_some(&self.samples[..]),
            reductions: whole.then_some(&self.reductions[..]),
        }
    }

    /// The .eval zip archive.
    fn archive(&self) -> anyhow::Result<Vec<u8>> {
        let mut files: Vec<(String, Vec<u8>)> = Vec::with_capacity(self.samples.len() + 4);
        files.push((
            "_journal/start.json".into(),
            to_json(&json!({"version": 2, "eval": self.eval, "plan": self.plan}))?,
        ));
        for s in &self.samples {
            files.push((format!("samples/{}_epoch_{}.json", s.id, s.epoch), to_json(s)?));
        }
        let summaries: Vec<Summary> = self
            .samples
            .iter()
            .map(|s| Summary {
                id: &s.id,
                epoch: s.epoch,
                input: &s.thin_input,
                target: &s.thin_target,
                metadata: &s.metadata,
                scores: s.scores.as_ref(),
                model_usage: &s.model_usage,
                total_time: s.total_time,
                working_time: s.working_time,
                uuid: &s.uuid,
                error: s.error.as_ref().and_then(|e| e["message"].as_str()),
                completed: true,
                message_count: s.messages.len(),
            })
            .collect();
        files.push(("summaries.json".into(), to_json(&summaries)?));
        files.push(("reductions.json".into(), to_json(&self.reductions)?));
        files.push(("header.json".into(), to_json(&self.header(false))?));
        if files.len() > ZIP_ENTRIES {
            return Err(anyhow::anyhow!(
                "{} samples are more than a .eval archive holds here ({}): write .json instead",
                self.samples.len(),
                ZIP_ENTRIES - 4
            ));
        }
        let size: usize = files.iter().map(|(name, data)| data.len() + 2 * name.len() + 76).sum();
        if size > u32::MAX as usize {
            return Err(anyhow::anyhow!(
                "the log is over 4 GiB, more than a .eval archive holds here: write .json instead"
            ));
        }
        Ok(wmlab_core::zip::write(&files))
    }
}

fn to_json<T: Serialize + ?Sized>(v: &T) -> anyhow::Result<Vec<u8>> {
    serde_json::to_vec(v).map_err(|e| anyhow::anyhow!("{e}"))
}

/// Inspect's time text (`2026-01-31T12:00:00+00:00`) of a time.
fn time_text(t: SystemTime) -> String {
    let ms = t.duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_millis() as f64).unwrap_or(0.0);
    inspect_time(&iso8601(ms))
}

/// ISO 8601 with `Z` as Inspect writes it, `+00:00`.
fn inspect_time(iso: &str) -> String {
    match iso.strip_suffix('Z') {
        Some(t) => format!("{t}+00:00"),
        None => iso.to_string(),
    }
}

/// A 16-hex-digit FNV-1a hash of the parts: the log's ids, stable for the same log.
fn hash_id(parts: &[&str]) -> String {
    let mut h = wmlab_core::hash::Fnv64::default();
    for p in parts {
        h.write(p.as_bytes());
        h.write(&[0]);
    }
    format!("{:016x}", h.finish())
}

/// The outcome's metric names, headline first (N-back and the visual suite: accuracy; LRT: the first
/// integer; Minerva: its task's metrics in the paper's order), then the others by name.
fn metric_order(o: &Outcome) -> Vec<&str> {
    let lead: Vec<&'static str> = match o.suite {
        Suite::Minerva => minerva::task_metrics(&o.task).into_iter().map(|m| m.as_str()).collect(),
        _ => vec!["accuracy", "first_integer"],
    };
    let mut names: Vec<&str> =
        lead.iter().filter_map(|m| o.scores.get_key_value(*m).map(|(k, _)| k.as_str())).collect();
    for k in o.scores.keys() {
        if !names.contains(&k.as_str()) {
            names.push(k);
        }
    }
    names
}

/// Text as Inspect's summaries keep it: at most 5,120 characters.
fn thin(text: &str) -> String {
    const MAX: usize = 5120;
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}...\n(content truncated)", &text[..cut]),
        None => text.to_string(),
    }
}

fn role(r: Role) -> &'static str {
    match r {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
    }
}

/// An Inspect `ChatMessage` of a WM Lab message: text, then its images as data URLs (`thin`: as a
/// summary keeps it, text cut and images as `(Image)`).
fn chat(m: &Message, thin_it: bool) -> Value {
    let text = if thin_it { thin(&m.content) } else { m.content.clone() };
    let content = if m.images.is_empty() {
        Value::String(text)
    } else {
        let mut parts = Vec::new();
        if !m.content.is_empty() {
            parts.push(json!({"type": "text", "text": text}));
        }
        for i in &m.images {
            parts.push(if thin_it {
                json!({"type": "text", "text": "(Image)"})
            } else if i.data.is_empty() {
                json!({"type": "text", "text": format!("(a {}×{} image, not kept in the log)", i.width, i.height)})
            } else {
                json!({"type": "image", "image": format!("data:{};base64,{}", i.media_type, i.data)})
            });
        }
        Value::Array(parts)
    };
    json!({"role": role(m.role), "content": content})
}

/// The assistant message of a reply, its reasoning (when logged) before the text.
fn assistant(reply: &str, reasoning: Option<&str>, model: &str) -> Value {
    let content = match reasoning.filter(|r| !r.is_empty()) {
        Some(r) => json!([{"type": "reasoning", "reasoning": r}, {"type": "text", "text": reply}]),
        None => Value::String(reply.to_string()),
    };
    json!({"role": "assistant", "content": content, "source": "generate", "model": model})
}

/// Inspect's `stop_reason` of a provider's finish reason.
fn stop_reason(finish: Option<&str>) -> &'static str {
    match finish.map(|f| f.to_ascii_lowercase()).as_deref() {
        Some("stop" | "end_turn" | "stop_sequence") => "stop",
        Some("length" | "max_tokens") => "max_tokens",
        Some("model_length" | "model_context_window_exceeded") => "model_length",
        Some("content_filter" | "safety" | "recitation" | "refusal" | "prohibited_content") => "content_filter",
        Some("tool_calls" | "tool_use" | "function_call") => "tool_calls",
        _ => "unknown",
    }
}

fn usage(o: &Outcome) -> Value {
    let mut u = json!({
        "input_tokens": o.tokens_in,
        "output_tokens": o.tokens_out,
        "total_tokens": o.tokens_in + o.tokens_out,
    });
    if o.tokens_reasoning > 0 {
        u["reasoning_tokens"] = json!(o.tokens_reasoning);
    }
    u
}

/// The Inspect sample of an outcome.
fn sample(o: &Outcome, model: &str, full_model: &str, run_id: &str) -> Sample {
    const NO_PROMPT: &str = "(the prompt is not in the log: the run used --no-prompts)";
    // Single samples: the prompt, then the reply. Dialogues (N-back blocks, visual trials): the whole
    // conversation is logged; the input is what came before the model's first turn.
    let dialogue = o.answers.is_some();
    let prompt: &[Message] = if dialogue {
        let first_reply = o.messages.iter().position(|m| m.role == Role::Assistant).unwrap_or(o.messages.len());
        &o.messages[..first_reply]
    } else {
        &o.messages
    };
    let (input, thin_input) = if prompt.is_empty() {
        (Value::String(NO_PROMPT.into()), Value::String(NO_PROMPT.into()))
    } else {
        (
            Value::Array(prompt.iter().map(|m| chat(m, false)).collect()),
            Value::Array(prompt.iter().map(|m| chat(m, true)).collect()),
        )
    };
    let mut messages: Vec<Value> = if o.messages.is_empty() {
        vec![json!({"role": "user", "content": NO_PROMPT})]
    } else {
        o.messages.iter().map(|m| chat(m, false)).collect()
    };
    let reply = if dialogue {
        o.messages.iter().rev().find(|m| m.role == Role::Assistant).map(|m| m.content.clone())
    } else {
        o.reply.clone()
    };
    let mut choices = Vec::new();
    if let Some(r) = &reply {
        let message = assistant(r, if dialogue { None } else { o.reasoning.as_deref() }, model);
        if !dialogue {
            messages.push(message.clone());
        }
        choices.push(json!({"message": message, "stop_reason": stop_reason(o.finish_reason.as_deref())}));
    }
    let completion = reply.or_else(|| o.answers.clone()).unwrap_or_default();

    let target = match (&o.targets, &o.reference, &o.row) {
        (Some(t), ..) => Value::String(t.clone()),
        (None, Some(r), _) => Value::String(format_reference(r)),
        (None, None, Some(row)) => json!(row.targets),
        _ => Value::String(String::new()),
    };
    let thin_target = match &target {
        Value::String(s) => Value::String(thin(s)),
        Value::Array(a) => Value::Array(a.iter().map(|t| Value::String(thin(t.as_str().unwrap_or("")))).collect()),
        v => v.clone(),
    };

    let answer = if dialogue { o.answers.clone() } else { o.answer.clone().or_else(|| o.reply.clone()) };
    let mut explanation = match (&o.targets, &o.answers) {
        (Some(t), Some(a)) => format!("conditions {t}, answers {a} (m: a match, -: none, ?: unusable)"),
        _ => format!(
            "reference {}; answer read from the reply: {}",
            match &target {
                Value::String(s) => s.clone(),
                v => v.to_string(),
            },
            o.answer.as_deref().unwrap_or("(none)")
        ),
    };
    if !o.score_errors.is_empty() {
        explanation.push_str(&format!("; not scored: {}", o.score_errors.join("; ")));
    }
    let scores: Vec<(String, Value)> = if o.error.is_some() {
        Vec::new()
    } else {
        metric_order(o)
            .into_iter()
            .filter_map(|m| {
                let v = o.scores[m];
                // JSON holds no NaN or infinity (nor does record.json's mean of them).
                v.is_finite()
                    .then(|| (m.to_string(), json!({"value": v, "answer": answer, "explanation": explanation})))
            })
            .collect()
    };

    let mut metadata = json!({
        "wmlab_sample_id": o.sample_id,
        "suite": o.suite,
        "task": o.task,
        "conditions": o.conditions,
        "requests": o.requests,
        "retries": o.retries,
        "cache_hits": o.cache_hits,
        "latency_ms": o.latency_ms,
    });
    for (k, v) in [
        ("finish_reason", o.finish_reason.as_ref().map(|f| json!(f))),
        ("batch", o.batch.as_ref().map(|b| json!(b))),
        ("score_errors", (!o.score_errors.is_empty()).then(|| json!(o.score_errors))),
    ] {
        if let Some(v) = v {
            metadata[k] = v;
        }
    }
    let seconds = o.latency_ms / 1000.0;
    Sample {
        id: item_id(&o.sample_id).to_string(),
        epoch: o.epoch.max(1),
        input,
        target,
        messages,
        output: json!({
            "model": model,
            "choices": choices,
            "completion": completion,
            "usage": usage(o),
            "time": seconds,
        }),
        scores: (!scores.is_empty()).then_some(Ordered(scores)),
        metadata,
        model_usage: json!({ full_model: usage(o) }),
        total_time: seconds,
        working_time: seconds,
        uuid: hash_id(&[run_id, &o.sample_id]),
        error: o.error.as_ref().map(|e| {
            let kind = format!("wmlab error kind: {}", e.kind.as_str());
            json!({"message": printable(&e.message), "traceback": kind, "traceback_ansi": kind})
        }),
        thin_input,
        thin_target,
    }
}

/// One metric over the run: each item's mean over its epochs (error-free outcomes with a finite value),
/// the mean and SE over items, and per task when the run has several.
struct MetricMeans {
    mean: f64,
    se: Option<f64>,
    items: Vec<(String, f64)>,
    per_task: Vec<(String, f64)>,
}

fn metric_means(outcomes: &[Outcome], metric: &str) -> Option<MetricMeans> {
    let scored = outcomes.iter().filter(|o| o.error.is_none()).filter_map(|o| Some((o, *o.scores.get(metric)?)));
    let means: Vec<(&str, &str, f64)> = group_by_item(scored, |(o, _)| o.sample_id.as_str())
        .into_iter()
        .map(|group| {
            let first = group[0].0;
            let vs: Vec<f64> = group.iter().map(|(_, v)| *v).collect();
            (item_id(&first.sample_id), first.task.as_str(), wmlab_core::stats::mean(&vs))
        })
        .collect();
    if means.is_empty() {
        return None;
    }
    let (mean, se) = mean_se(&means.iter().map(|m| m.2).collect::<Vec<_>>());
    if !mean.is_finite() {
        return None;
    }
    let mut tasks: Vec<&str> = Vec::new();
    for (_, t, _) in &means {
        if !tasks.contains(t) {
            tasks.push(t);
        }
    }
    let per_task = if tasks.len() > 1 {
        tasks
            .iter()
            .map(|t| {
                let vals: Vec<f64> = means.iter().filter(|m| m.1 == *t).map(|m| m.2).collect();
                (t.to_string(), mean_se(&vals).0)
            })
            .collect()
    } else {
        Vec::new()
    };
    Some(MetricMeans {
        mean,
        se: se.filter(|s| s.is_finite()),
        items: means.iter().map(|(id, _, v)| (id.to_string(), *v)).collect(),
        per_task,
    })
}

/// Reads a run folder into an Inspect log.
fn build(dir: &Path) -> anyhow::Result<Log> {
    let path = dir.join("log.jsonl");
    let text = fs::read_to_string(&path).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    let log = RunLog::parse(&text);
    if log.bad_lines > 0 {
        eprintln!("wmlab: {}: {} unreadable line(s) skipped (an interrupted write)", path.display(), log.bad_lines);
    }
    let meta = log
        .meta()
        .cloned()
        .ok_or_else(|| anyhow::anyhow!("{}: no settings line: not a log of `wmlab llm run`", path.display()))?;
    // The last outcome logged per sample (a rerun with --retry-errors logs a redone sample again).
    let mut outcomes: Vec<Outcome> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for e in log.entries {
        if let LogEntry::Outcome(o) = e {
            match index.get(&o.sample_id) {
                Some(&i) => outcomes[i] = *o,
                None => {
                    index.insert(o.sample_id.clone(), outcomes.len());
                    outcomes.push(*o);
                }
            }
        }
    }
    if outcomes.is_empty() {
        return Err(anyhow::anyhow!("{}: no finished sample yet, nothing to export", path.display()));
    }

    let text_of = |k: &str| meta[k].as_str().map(str::to_string);
    let suite = text_of("suite").unwrap_or_else(|| {
        serde_json::to_value(outcomes[0].suite).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
    });
    let model = text_of("model").unwrap_or_else(|| "unknown".into());
    let full_model = format!("{}/{model}", text_of("provider").unwrap_or_else(|| "unknown".into()));
    let task = format!("wmlab/{suite}");
    let run_id = hash_id(&[&text]);

    // When the run ran: record.json's `created` (its end), else the log's last change; the log's
    // creation where the file system keeps it.
    let record = fs::read_to_string(dir.join("record.json")).ok().and_then(|t| ResultRecord::from_json(&t).ok());
    let file = fs::metadata(&path).ok();
    let completed = record
        .as_ref()
        .and_then(|r| r.created.as_deref())
        .map(inspect_time)
        .or_else(|| file.as_ref().and_then(|m| m.modified().ok()).map(time_text))
        .unwrap_or_else(|| "1970-01-01T00:00:00+00:00".into());
    let started = file
        .as_ref()
        .and_then(|m| m.created().ok())
        .map(time_text)
        .filter(|s| *s <= completed)
        .unwrap_or_else(|| completed.clone());

    // Samples by epoch, items in the order the log first has them (as Inspect lists them).
    let mut item_order: Vec<String> = Vec::new();
    let mut item_index: HashMap<String, usize> = HashMap::new();
    for o in &outcomes {
        let id = item_id(&o.sample_id);
        if !item_index.contains_key(id) {
            item_index.insert(id.to_string(), item_order.len());
            item_order.push(id.to_string());
        }
    }
    let mut samples: Vec<Sample> = outcomes.iter().map(|o| sample(o, &model, &full_model, &run_id)).collect();
    samples.sort_by_key(|s| (s.epoch, item_index[&s.id]));
    let epochs = samples.iter().map(|s| s.epoch).max().unwrap_or(1);

    let mut metric_names: Vec<&str> = Vec::new();
    for o in &outcomes {
        for m in metric_order(o) {
            if !metric_names.contains(&m) {
                metric_names.push(m);
            }
        }
    }
    let mut scores = Vec::new();
    let mut reductions = Vec::new();
    for m in &metric_names {
        let Some(r) = metric_means(&outcomes, m) else { continue };
        let mut metrics = vec![("mean".to_string(), json!({"name": "mean", "value": r.mean, "params": {}}))];
        if let Some(se) = r.se {
            metrics.push(("stderr".into(), json!({"name": "stderr", "value": se, "params": {}})));
        }
        for (t, v) in &r.per_task {
            metrics.push((t.clone(), json!({"name": t, "group": "task", "value": v, "params": {}})));
        }
        scores.push(EvalScore {
            name: m.to_string(),
            scorer: m.to_string(),
            reducer: (epochs > 1).then_some("mean"),
            scored_samples: r.items.len(),
            unscored_samples: item_order.len() - r.items.len(),
            params: json!({}),
            metrics: Ordered(metrics),
        });
        reductions.push(Reduction {
            scorer: m.to_string(),
            reducer: "mean",
            samples: r.items.iter().map(|(id, v)| json!({"sample_id": id, "value": v})).collect(),
        });
    }
    let failed = outcomes.iter().filter(|o| o.error.is_some()).count();
    let results = Results { total_samples: outcomes.len(), completed_samples: outcomes.len() - failed, scores };

    let mut generate = json!({});
    for k in ["temperature", "max_tokens", "top_p", "seed"] {
        if !meta[k].is_null() {
            generate[k] = meta[k].clone();
        }
    }
    let (tin, tout) =
        (outcomes.iter().map(|o| o.tokens_in).sum::<u64>(), outcomes.iter().map(|o| o.tokens_out).sum::<u64>());
    let mut total = json!({"input_tokens": tin, "output_tokens": tout, "total_tokens": tin + tout});
    let reasoning: u64 = outcomes.iter().map(|o| o.tokens_reasoning).sum();
    if reasoning > 0 {
        total["reasoning_tokens"] = json!(reasoning);
    }
    let mut wmlab = json!({"log_settings": meta, "exported_by": format!("wmlab {} llm export", wmlab_core::VERSION)});
    if let Some(r) = &record {
        wmlab["record_settings"] = json!(r.config.settings);
        wmlab["record_task"] = json!(r.task);
    }
    let eval = json!({
        "eval_id": run_id,
        "run_id": run_id,
        "created": started,
        "task": task,
        "task_id": run_id,
        "task_version": 0,
        "task_attribs": {},
        "task_args": {},
        "solver": "wmlab llm run",
        "dataset": {"name": task, "samples": item_order.len(), "sample_ids": item_order, "shuffled": false},
        "model": full_model,
        "model_base_url": meta["base_url"],
        "model_generate_config": generate,
        "config": {"epochs": epochs, "epochs_reducer": ["mean"]},
        "packages": {"wmlab": wmlab_core::VERSION},
        "scorers": metric_names.iter().map(|m| json!({
            "name": m,
            "options": {},
            "metrics": [{"name": "mean", "options": {}}, {"name": "stderr", "options": {}}],
            "metadata": {},
        })).collect::<Vec<_>>(),
        "metadata": {"wmlab": wmlab},
    });
    let plan = json!({
        "name": "plan",
        "steps": [{"solver": "wmlab llm run", "params": {"suite": suite}}],
        "config": generate,
    });
    let stats = json!({
        "started_at": started,
        "completed_at": completed,
        "model_usage": { &full_model: total },
    });
    Ok(Log {
        eval,
        plan,
        results,
        stats,
        samples,
        reductions,
        model: full_model,
        task,
        items: item_order.len(),
        epochs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_inspect_lists_and_text_it_cuts() {
        assert!(timestamped("2026-01-31T12-00-00_wmlab-lrt.json"));
        assert!(timestamped("2026-01-31T12:00:00+00-00.json"));
        assert!(!timestamped("lrt.json"));
        assert!(!timestamped("2026-01-31_lrt.json"));
        assert_eq!(thin("abc"), "abc");
        let long = "é".repeat(6000);
        assert_eq!(thin(&long).chars().count(), 5120 + "...\n(content truncated)".chars().count());
        assert_eq!(stop_reason(Some("length")), "max_tokens");
        assert_eq!(stop_reason(Some("end_turn")), "stop");
        assert_eq!(stop_reason(None), "unknown");
        assert_eq!(inspect_time("2026-01-31T12:00:00Z"), "2026-01-31T12:00:00+00:00");
    }

    #[test]
    fn headline_first() {
        let o: Outcome = serde_json::from_value(json!({
            "sample_id": "minerva/set_state/0", "suite": "minerva", "task": "set_state", "latency_ms": 0.0,
            "requests": 1, "tokens_in": 0, "tokens_out": 0,
            "scores": {"exact_match": 0.0, "jaccard": 0.5, "rouge_l": 0.7},
        }))
        .unwrap();
        assert_eq!(metric_order(&o), ["jaccard", "exact_match", "rouge_l"]);
        let mut n = o.clone();
        n.suite = Suite::Nback;
        n.scores = [("accuracy", 1.0), ("dprime", 2.0), ("hit_rate", 1.0)].map(|(k, v)| (k.to_string(), v)).into();
        assert_eq!(metric_order(&n), ["accuracy", "dprime", "hit_rate"]);
    }
}

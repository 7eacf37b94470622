//! A Psych-DS dataset from result records: what a researcher shares or archives after a study.
//!
//! Psych-DS (the behavioural sciences' BIDS-like standard) asks for a `dataset_description.json` at the
//! root — JSON-LD in the schema.org namespace, `@type` Dataset, with `name`, `description` and
//! `variableMeasured` naming every column of every data file — and CSV data files under `data/`, named by
//! keywords: `([a-z]+-[a-zA-Z0-9]+)(_[a-z]+-[a-zA-Z0-9]+)*_data.csv`. Here each record is one file,
//! `data/study-wmlab_subject-<id>_session-<k>_data.csv` (its long-format CSV, [`ResultRecord::to_csv`];
//! `k` counts the subject's records in the order given), and `variableMeasured` describes each column as a
//! `PropertyValue` (what it holds, its unit). The description also carries, under `wmlab:records`, each
//! file's subject, task, app version and run configuration, so the dataset says what was run.
//!
//! Pure: the caller writes the files (`wmlab dataset`).

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::record::{ResultRecord, Subject};

/// One file of the dataset: its path inside the dataset folder and its text.
#[derive(Clone, Debug, PartialEq)]
pub struct DatasetFile {
    /// The path relative to the dataset folder, `/`-separated: `dataset_description.json` or
    /// `data/study-wmlab_subject-<id>_session-<k>_data.csv`.
    pub path: String,
    /// The file's whole contents: the pretty-printed JSON description, or a record's long-format CSV.
    pub text: String,
}

/// Letters and digits only (a Psych-DS keyword value); `anon` when nothing is left.
pub fn keyword_value(s: &str) -> String {
    let v: String = s.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
    if v.is_empty() { "anon".into() } else { v }
}

/// The subject part of a file name: a participant's id, an LLM's model, a network's architecture and
/// capacity.
fn subject_id(s: &Subject) -> String {
    keyword_value(&match s {
        Subject::Person { id } => id.clone(),
        Subject::Llm { model, .. } => model.clone(),
        Subject::Network { arch, capacity, .. } => format!("{arch}{capacity}"),
        Subject::Reference { source } => source.clone(),
    })
}

/// What a column holds, for `variableMeasured` (columns not listed get a general description).
fn describe(column: &str) -> (String, Option<&'static str>) {
    let d = |s: &str| s.to_string();
    match column {
        "subject_kind" => (d("who answered: person, llm or network"), None),
        "subject" => (d("the participant id, the language model or the network (architecture-capacity)"), None),
        "task" => (d("task id (VSR, CD-Color, … as in the WorM paper; nback-verbal/-spatial; LLM suite ids)"), None),
        "trial" => (d("trial index within the record, from 0"), None),
        "list_length" => (d("condition: items in the list (WorM L)"), None),
        "set_size" => (d("condition: items on the display (change detection, SMU)"), None),
        "retention" => (d("condition: retention interval in steps"), None),
        "pattern_difference" => (d("condition: cells in which the lure differs from the studied pattern"), None),
        "changed_feature" => (d("condition: the feature that changed (change detection)"), None),
        "storage" => (d("condition: storage domain (complex span)"), None),
        "distractor" => (d("condition: distractor domain (complex span)"), None),
        "distractor_count" => (d("condition: distractors between stored items (complex span)"), None),
        "symmetry_offset" => (d("condition: cells moved from symmetry (spatial coordination)"), None),
        "part_size" => (d("condition: segments per partial drawing (spatial integration)"), None),
        "probed_position" => (d("condition: serial position of the probed item"), None),
        "switches" => (d("condition: task switches (spatial task switching)"), None),
        "targets" => (d("correct answer of each scored step, space-separated"), None),
        "responses" => (d("given answer of each scored step, space-separated (empty: no answer)"), None),
        "correct" => (d("1 where the response equals the target, per scored step, space-separated"), None),
        "score" => (d("proportion of the trial's scored steps answered correctly"), Some("proportion")),
        "rt_ms" => (d("response time of each scored step from its onset, space-separated"), Some("ms")),
        "block" => (d("block index within the session"), None),
        "block_kind" => (d("practice or main block"), None),
        "serial_positions" => (d("serial position of each scored step, space-separated"), None),
        "n_back" => (d("N of an N-back block"), None),
        "frame_durations" => (d("intended/actual duration of each presented frame"), Some("ms")),
        "refresh_ms" => (d("measured display refresh interval"), Some("ms")),
        "blur_count" => (d("times the window lost focus during the trial"), None),
        "unfocused_ms" => (d("time the window was out of focus during the trial"), Some("ms")),
        "resize_count" => (d("times the window changed size during the trial (the trial was restarted)"), None),
        "device" => (d("the participant's device class: desktop, phone or tablet"), None),
        "browser" => (d("the participant's browser (from its user agent; HeadlessChrome: automated)"), None),
        "browser_version" => (d("the browser's version (major.minor)"), None),
        "os" => (d("the participant's operating system"), None),
        "screen" => (d("the screen's size, width x height"), Some("CSS px")),
        "window" => (d("the browser window's inner size at the start of the session, width x height"), Some("CSS px")),
        "trial_window" => (d("the browser window's inner size during the trial, width x height"), Some("CSS px")),
        "dpr" => {
            (d("device pixel ratio at the start of the session (device px per CSS px; browser zoom included)"), None)
        }
        "trial_dpr" => (d("device pixel ratio during the trial"), None),
        "touch_points" => (d("touch points the device reports (navigator.maxTouchPoints)"), None),
        "webdriver" => (d("true when the browser said it was driven by automation (navigator.webdriver)"), None),
        "zoom" => (d("browser zoom estimated from the window's outer and inner width (desktops only)"), None),
        "canvas_css_px" => (d("side of the square stimulus as drawn during the trial"), Some("CSS px")),
        "stimulus_deg" => (
            d("side of the square stimulus in degrees of visual angle, from the chinrest's px/mm and viewing distance"),
            Some("degrees"),
        ),
        "canvas_device_px" => (d("side of the square stimulus in the screen's own pixels"), Some("device px")),
        "pointer" => (d("pointer types that answered in the trial (mouse, touch, pen; keyboard when none)"), None),
        "pointer_moves" => (d("pointer moves over the page during the trial"), None),
        "instructions_ms" => (d("time on the block's instruction screen before its first trial"), Some("ms")),
        "paste_count" => (d("times the participant pasted text into the page (the questionnaire's fields)"), None),
        "fast_answers" => (d("answers given under 150 ms after their probe (too soon to have looked)"), None),
        "error" => (d("why a language model's sample failed, if it did"), None),
        _ if column.starts_with("frame_") => (d("frame timing statistic of the trial"), Some("ms")),
        _ if column.starts_with("q_") => {
            (d("the participant's answer to the questionnaire item named after q_ (the same in every row)"), None)
        }
        _ => (
            d("a further condition or measure of the trial, as named (see wmlab:records for the run's settings)"),
            None,
        ),
    }
}

/// Why [`dataset`] refused its records.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DatasetError {
    /// No record was given.
    #[error("a dataset needs one record or more")]
    NoRecords,
    /// A record could not be written as CSV (it failed validation).
    #[error("record {place} ({subject}): {source}")]
    Record {
        /// The record's place in the list given, from 1.
        place: usize,
        /// The record's subject as people read it ([`Subject::label`]: `participant P01`, a model, …).
        subject: String,
        /// What is wrong with the record.
        source: crate::record::RecordError,
    },
    /// `dataset_description.json` could not be serialised; holds serde_json's message.
    #[error("the dataset description could not be written ({0})")]
    Json(String),
}

crate::message_into_string!(DatasetError);

/// The dataset of `records` named `name`: `dataset_description.json` and one data file per record, in
/// the order given. A record that fails validation is refused with its place in the list.
pub fn dataset(records: &[ResultRecord], name: &str) -> Result<Vec<DatasetFile>, DatasetError> {
    if records.is_empty() {
        return Err(DatasetError::NoRecords);
    }
    let mut files = Vec::new();
    let mut columns: Vec<String> = Vec::new();
    let mut sessions: BTreeMap<String, usize> = BTreeMap::new();
    let mut about = Vec::new();
    for (i, r) in records.iter().enumerate() {
        let csv =
            r.to_csv().map_err(|e| DatasetError::Record { place: i + 1, subject: r.subject.label(), source: e })?;
        for c in csv.lines().next().unwrap_or("").split(',') {
            if !columns.iter().any(|x| x == c) {
                columns.push(c.to_string());
            }
        }
        let subject = subject_id(&r.subject);
        let k = sessions.entry(subject.clone()).or_insert(0);
        *k += 1;
        let path = format!("data/study-wmlab_subject-{subject}_session-{k}_data.csv");
        about.push(json!({
            "file": path,
            "subject": r.subject,
            "task": r.task,
            "app_version": r.app_version,
            "created": r.created,
            "config": r.config,
        }));
        files.push(DatasetFile { path, text: csv });
    }
    let variables: Vec<Value> = columns
        .iter()
        .map(|c| {
            let (description, unit) = describe(c);
            let mut v = json!({ "@type": "PropertyValue", "name": c, "description": description });
            if let Some(u) = unit {
                v["unitText"] = json!(u);
            }
            v
        })
        .collect();
    let mut tasks: Vec<&str> = records.iter().flat_map(|r| r.trials.iter().map(|t| t.task.as_str())).collect();
    tasks.sort();
    tasks.dedup();
    let description = format!(
        "Working-memory tasks taken in WM Lab ({} record(s); tasks {}). One long-format CSV per record: one row \
         per trial with its conditions, targets, responses and response times.",
        records.len(),
        tasks.join(", ")
    );
    let doc = json!({
        "@context": "https://schema.org",
        "@type": "Dataset",
        "name": name,
        "description": description,
        "variableMeasured": variables,
        "wmlab:records": about,
    });
    let text = serde_json::to_string_pretty(&doc).map_err(|e| DatasetError::Json(e.to_string()))? + "\n";
    files.insert(0, DatasetFile { path: "dataset_description.json".into(), text });
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{RunConfig, Setting, TrialRow};
    use crate::task::Conditions;

    fn person(id: &str, task: &str) -> ResultRecord {
        let mut r = ResultRecord::new(Subject::Person { id: id.into() }, task, RunConfig::default());
        r.created = Some("2026-11-25T10:00:00Z".into());
        r.trials.push(TrialRow {
            task: task.into(),
            trial: 0,
            conditions: Conditions { list_length: Some(3), ..Default::default() },
            targets: vec!["1".into(), "2".into()],
            responses: vec!["1".into(), "3".into()],
            correct: vec![true, false],
            rt_ms: vec![512.0, 640.5],
            extra: [("block_kind".to_string(), Setting::Text("main".into()))].into_iter().collect(),
        });
        r
    }

    /// The Psych-DS data file name rule, `([a-z]+-[a-zA-Z0-9]+)(_[a-z]+-[a-zA-Z0-9]+)*_data\.csv`.
    fn psychds_name(name: &str) -> bool {
        let Some(stem) = name.strip_suffix("_data.csv") else { return false };
        stem.split('_').all(|kv| {
            let mut it = kv.splitn(2, '-');
            let (k, v) = (it.next().unwrap_or(""), it.next().unwrap_or(""));
            !k.is_empty()
                && k.chars().all(|c| c.is_ascii_lowercase())
                && !v.is_empty()
                && v.chars().all(|c| c.is_ascii_alphanumeric())
        })
    }

    #[test]
    fn files_follow_the_psych_ds_rules() {
        let records = [person("P-01", "VSR"), person("P-01", "CD-Color"), person("ü", "SC")];
        let files = dataset(&records, "My study").unwrap();
        assert_eq!(files[0].path, "dataset_description.json");
        let paths: Vec<&str> = files[1..].iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "data/study-wmlab_subject-P01_session-1_data.csv",
                "data/study-wmlab_subject-P01_session-2_data.csv",
                "data/study-wmlab_subject-anon_session-1_data.csv"
            ]
        );
        assert!(paths.iter().all(|p| psychds_name(p.trim_start_matches("data/"))), "{paths:?}");
        assert!(!psychds_name("study-wm_lab_data.csv") && !psychds_name("Study-x_data.csv"));

        let doc: Value = serde_json::from_str(&files[0].text).unwrap();
        assert_eq!(doc["@context"], "https://schema.org");
        assert_eq!(doc["@type"], "Dataset");
        assert_eq!(doc["name"], "My study");
        assert!(doc["description"].as_str().unwrap().contains("CD-Color, SC, VSR"));
        // Every column header of every data file is in variableMeasured, described.
        let vars: Vec<&str> =
            doc["variableMeasured"].as_array().unwrap().iter().map(|v| v["name"].as_str().unwrap()).collect();
        for f in &files[1..] {
            for h in f.text.lines().next().unwrap().split(',') {
                assert!(vars.contains(&h), "{h} missing from variableMeasured");
            }
        }
        let rt = doc["variableMeasured"].as_array().unwrap().iter().find(|v| v["name"] == "rt_ms").unwrap();
        assert_eq!(rt["unitText"], "ms");
        assert_eq!(rt["@type"], "PropertyValue");
        // What was run travels with the data.
        assert_eq!(doc["wmlab:records"][1]["task"], "CD-Color");
        assert_eq!(doc["wmlab:records"][1]["file"], paths[1]);
        assert_eq!(doc["wmlab:records"][0]["created"], "2026-11-25T10:00:00Z");
        // The data file is the record's own CSV.
        assert_eq!(files[1].text, records[0].to_csv().unwrap());
    }

    #[test]
    fn no_records_or_a_broken_one_is_refused_in_words() {
        assert_eq!(dataset(&[], "x").unwrap_err(), DatasetError::NoRecords);
        let mut bad = person("p", "VSR");
        bad.schema = 0; // not a record any version of the app writes
        let e = dataset(&[person("q", "VSR"), bad], "x").unwrap_err();
        assert!(e.to_string().starts_with("record 2 (participant p)"), "{e}");
    }
}

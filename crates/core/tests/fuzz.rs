//! The fuzz suite: property tests over every parser and loader of outside input (share and comparison
//! links, study links, records as JSON, JSON lines and CSV, checkpoint bundles, task settings, the
//! `stats` and `score` lines). Each input is either arbitrary or a valid one damaged (truncated, bytes
//! or characters flipped, pieces repeated or spliced), and each property asserts no panic, a refusal
//! that is a message, and bounded time (a generous 5 s per input: a hang detector, not a benchmark).
//! Inputs are bounded in size, so memory is too. Case counts keep the whole suite to seconds in CI;
//! `WMLAB_FUZZ_SCALE=100` runs a hundred times as many.
#![cfg(not(target_arch = "wasm32"))]

use std::time::{Duration, Instant};

use proptest::prelude::*;
use wmlab_core::analysis::dashboard::{parse_csv, record_from_csv};
use wmlab_core::compare::{Compared, Comparison};
use wmlab_core::llm::score::score_line;
use wmlab_core::networks::Bundle;
use wmlab_core::people::StudyTask;
use wmlab_core::people::study::StudyConfig;
use wmlab_core::record::{ResultRecord, RunConfig, Subject, TrialRow, summarise};
use wmlab_core::stats::stats_line;
use wmlab_core::task::{Conditions, TaskId};
use wmlab_core::{TaskSpec, parse_settings, share};

#[path = "damage/mod.rs"]
mod damage;
use damage::*;

const LIMIT: Duration = Duration::from_secs(5);

/// Runs `f`, failing if it takes longer than [`LIMIT`].
fn bounded<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let out = f();
    assert!(t.elapsed() < LIMIT, "{what} took {:?}", t.elapsed());
    out
}

/// A refusal is a message a person can read: not empty, not a debug dump of a panic.
fn a_message(e: impl std::fmt::Display) {
    let e = e.to_string();
    assert!(!e.trim().is_empty(), "an empty message");
    assert!(!e.contains("panicked"), "{e}");
}

fn record() -> ResultRecord {
    let cfg = RunConfig { seed: 7, tasks: vec![TaskSpec::new(TaskId::Vsr)], ..Default::default() };
    let mut r = ResultRecord::new(Subject::Person { id: "p1".into() }, "VSR", cfg);
    for i in 0..6u64 {
        let l = 2 + (i % 3) as u8;
        r.trials.push(TrialRow {
            task: "VSR".into(),
            trial: i,
            conditions: Conditions { list_length: Some(l), ..Default::default() },
            targets: (0..l).map(|k| k.to_string()).collect(),
            responses: (0..l).map(|k| ((k + i as u8) % 9).to_string()).collect(),
            correct: (0..l).map(|k| i.is_multiple_of(2) || k == 0).collect(),
            rt_ms: (0..l).map(|k| 400.0 + k as f64).collect(),
            extra: Default::default(),
        });
    }
    r.summaries = summarise(&r.trials);
    r
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn share_links_refuse_damage_with_a_message(ds in damages(), junk in texty()) {
        let link = share::fragment(&record()).unwrap();
        for input in [damaged_text(&link, &ds), junk.clone(), format!("#r=1.{junk}")] {
            let r = bounded("share::decode", || share::decode(&input));
            if let Err(e) = r {
                a_message(&e);
            }
        }
    }

    #[test]
    fn comparison_links_refuse_damage_with_a_message(ds in damages(), junk in texty()) {
        let task = StudyTask::Worm(TaskId::Vsr);
        let c = Comparison::new(task, &[Compared::new(record())], true, true, false);
        let (link, _) = share::comparison_fragment(&c).unwrap();
        for input in [damaged_text(&link, &ds), format!("#c=1.{junk}")] {
            if let Err(e) = bounded("share::decode_comparison", || share::decode_comparison(&input)) {
                a_message(&e);
            }
        }
    }

    #[test]
    fn study_links_are_checked_or_refused(ds in damages(), junk in texty(), n in 0usize..5000) {
        let valid = "tasks=VSR,SC&tpc=2&practice=0&seed=3&set=list_lengths=2,3;noise_mask=true&consent=Yes";
        let long = format!("tasks=VSR&set=list_lengths={}", (0..n).map(|i| (i % 30).to_string()).collect::<Vec<_>>().join(","));
        for q in [damaged_text(valid, &ds), junk.clone(), long, format!("tasks=SC&{junk}")] {
            match bounded("StudyConfig::from_query", || StudyConfig::from_query(&q)) {
                Ok(c) => {
                    // What a study link accepts gives a bounded session.
                    let s = bounded("Session::new", || wmlab_core::people::session::Session::new(c));
                    drop(s);
                }
                Err(e) => a_message(&e),
            }
        }
    }

    /// Task parameters inside a record (issue 71): whatever numbers a record carries, taking its trials
    /// again either refuses them in words or generates every trial, in bounded time, without a panic.
    #[test]
    fn records_task_parameters_are_checked_or_refused(
        task in 0usize..3,
        grid in 0u64..256,
        filled in 0u64..256,
        lists in proptest::collection::vec(0u64..256, 0..5),
        diff in 0u64..40,
    ) {
        let id = [TaskId::Vsr, TaskId::Vir, TaskId::VsRec][task];
        let mut v = serde_json::to_value(TaskSpec::new(id)).unwrap();
        v["params"]["grid"] = grid.into();
        v["params"]["filled"] = filled.into();
        v["params"]["list_lengths"] = lists.into();
        if id == TaskId::Vir {
            v["params"]["pattern_difference"] = diff.into();
        } else if id == TaskId::VsRec {
            v["params"]["pattern_differences"] = vec![diff].into();
        }
        let spec = serde_json::from_value::<TaskSpec>(v).expect("the fields' own types");
        let mut r = record();
        r.config.tasks = vec![spec];
        for row in &mut r.trials {
            row.task = id.as_str().into();
            row.extra.insert("index".into(), wmlab_core::record::Setting::Int(row.trial as i64));
        }
        r.config.settings.insert("split".into(), wmlab_core::record::Setting::Text("human".into()));
        match bounded("worm_trials_of", || wmlab_core::people::replay::worm_trials_of(&r)) {
            Ok(replay) => {
                let trials = bounded("Replay::generate", || replay.generate());
                prop_assert!(!trials.is_empty());
            }
            Err(e) => a_message(&e),
        }
    }

    #[test]
    fn record_json_refuses_damage_with_a_message(ds in damages(), junk in texty()) {
        let json = record().to_json().unwrap();
        let lines = format!("{}\n{}\n", serde_json::to_string(&record()).unwrap(), json);
        for input in [damaged_text(&json, &ds), damaged_text(&lines, &ds), junk.clone()] {
            if let Err(e) = bounded("ResultRecord::from_json", || ResultRecord::from_json(&input)) {
                a_message(&e);
            }
            if let Err(e) = bounded("from_json_documents", || ResultRecord::from_json_documents(&input)) {
                a_message(&e);
            }
        }
    }

    #[test]
    fn record_csv_refuses_damage_with_a_message(ds in damages(), junk in texty()) {
        let csv = record().to_csv().unwrap();
        for input in [damaged_text(&csv, &ds), junk.clone()] {
            if let Err(e) = bounded("parse_csv", || parse_csv(&input)) {
                a_message(&e);
            }
            if let Err(e) = bounded("record_from_csv", || record_from_csv(&input)) {
                a_message(&e);
            }
        }
    }

    #[test]
    fn task_settings_make_trials_or_are_refused(
        task in proptest::sample::select(TaskId::ALL.to_vec()),
        key_pick in any::<proptest::sample::Index>(),
        value in prop_oneof![
            texty(),
            any::<i64>().prop_map(|v| v.to_string()),
            any::<f64>().prop_map(|v| v.to_string()),
            (proptest::collection::vec(0u32..100_000, 0..200)).prop_map(|v| v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",")),
            Just("true".to_string()),
        ],
    ) {
        let mut spec = TaskSpec::new(task);
        let keys = spec.keys();
        let key = keys[key_pick.index(keys.len())].clone();
        let text = format!("{key}={value}");
        match bounded("parse_settings", || parse_settings(&text)) {
            Ok(settings) => match bounded("set_all", || spec.set_all(&settings, false)) {
                Ok(()) => {
                    // Accepted settings make a trial, in bounded time.
                    let t = bounded("a trial", || spec.trial(1, wmlab_core::Split::Test, 0));
                    prop_assert!(!t.is_empty(), "{task:?} {text}: an empty trial");
                }
                Err(e) => a_message(&e),
            },
            Err(e) => a_message(&e),
        }
    }

    #[test]
    fn stats_and_score_lines_answer_every_line(
        line in texty(),
        test in proptest::sample::select(wmlab_core::stats::TEST_NAMES.to_vec()),
        a in proptest::collection::vec(prop_oneof![any::<f64>(), -1e308f64..1e308, 0.0f64..1.0], 0..40),
        b in proptest::collection::vec(any::<f64>(), 0..40),
        k in any::<u64>(), n in any::<u64>(), p0 in any::<f64>(),
        reference in texty(), prediction in texty(),
    ) {
        let finite = |v: &[f64]| v.iter().copied().filter(|x| x.is_finite()).collect::<Vec<_>>();
        let (a, b) = (finite(&a), finite(&b));
        let request = serde_json::json!({
            "test": test, "a": a, "b": b, "groups": [a.clone(), b.clone()], "mu": 0.5,
            "k": k, "n": n, "p0": if p0.is_finite() { p0 } else { 0.5 }, "level": 0.95,
        });
        for input in [request.to_string(), line.clone(), format!("{{\"test\":\"{test}\",{line}}}")] {
            let out = bounded("stats_line", || stats_line(&input));
            prop_assert!(!out.contains('\n'), "one answer line: {out}");
            let v: serde_json::Value = serde_json::from_str(&out).expect("a JSON answer");
            if let Some(e) = v.get("error") {
                a_message(e.as_str().unwrap_or_default());
            }
        }
        for metric in ["exact_match", "accuracy", "set_f1", "no_such_metric"] {
            let scored = serde_json::json!({ "metric": metric, "reference": reference, "prediction": prediction });
            for input in [scored.to_string(), line.clone()] {
                let out = bounded("score_line", || score_line(&input));
                prop_assert!(!out.contains('\n'), "one answer line: {out}");
                prop_assert!(serde_json::from_str::<serde_json::Value>(&out).is_ok(), "{out}");
            }
        }
    }
}

proptest! {
    #![proptest_config(config(64))]

    /// A real shipped checkpoint, damaged: refused with a message (a flipped bit is caught by the
    /// checksums), or read with a model description that validates.
    #[test]
    fn checkpoint_bundles_refuse_damage_with_a_message(ds in damages(), junk in proptest::collection::vec(any::<u8>(), 0..512)) {
        let valid = shipped_bundle();
        let mut header_only = b"WMLABNN1".to_vec();
        header_only.extend_from_slice(&(junk.len() as u32).to_le_bytes());
        header_only.extend_from_slice(&junk);
        for bytes in [damaged(valid, &ds), junk.clone(), header_only] {
            match bounded("Bundle::read", || Bundle::read(&bytes)) {
                Ok(b) => {
                    if let Err(e) = b.header.train.model.validate() {
                        a_message(&e);
                    }
                }
                Err(e) => a_message(&e),
            }
        }
    }
}

fn shipped_bundle() -> &'static [u8] {
    static BYTES: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    BYTES.get_or_init(|| {
        let p =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../public/models/wmlab-trf96-quick-vsr.wmlabnn");
        std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    })
}

/// Damage that keeps the checksums right (the header edited in place) is still checked: what the
/// header says must describe a possible model, or the file is refused before a model is built.
#[test]
fn edited_headers_are_validated() {
    let valid = shipped_bundle();
    let (h, start) = wmlab_core::networks::BundleHeader::read(valid).unwrap();
    let json = serde_json::to_value(&h).unwrap();
    let mut refused = 0;
    let model = json["train"]["model"].as_object().unwrap().clone();
    for (k, _) in model.iter() {
        for v in [
            serde_json::json!(0),
            serde_json::json!(-1),
            serde_json::json!(1u64 << 40),
            serde_json::json!(1e300),
            serde_json::json!("x"),
        ] {
            let mut j = json.clone();
            j["train"]["model"][k] = v;
            let text = serde_json::to_vec(&j).unwrap();
            let mut bytes = b"WMLABNN1".to_vec();
            bytes.extend_from_slice(&(text.len() as u32).to_le_bytes());
            bytes.extend_from_slice(&text);
            bytes.extend_from_slice(&valid[start..]);
            match bounded("Bundle::read", || Bundle::read(&bytes)) {
                Ok(b) => {
                    if let Err(e) = b.header.train.model.validate() {
                        a_message(&e);
                        refused += 1;
                    }
                }
                Err(e) => {
                    a_message(&e);
                    refused += 1;
                }
            }
        }
    }
    assert!(refused > model.len(), "most absurd values are refused: {refused}");
}

//! `wmlab llm export --inspect`: runs of `wmlab llm run` against a fake OpenAI-compatible server (the LRT
//! with --repeats 2 and a refused request, an N-back block twice, two models side by side) written as
//! Inspect AI logs (.json and .eval) and read back by Inspect itself: inspect-ai 0.3.285 in the venv of
//! scripts/dev/inspect-venv.sh, whose python is WMLAB_INSPECT_PYTHON (scripts/dev/test.sh sets it).
//! Without it the test fails with a message saying how to make it: a real test, never silently skipped.
//! The same venv runs scripts/research/inspect_task.py: the run's LRT items asked again through Inspect's
//! mockllm (replaying the run's replies) and scored by `wmlab score` get WM Lab's scores.

#[path = "../../llm/tests/common/mod.rs"]
mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;
use wmlab_core::llm::item_id;
use wmlab_core::record::ResultRecord;
use wmlab_llm::{LogEntry, Outcome, RunLog};

/// The venv's python (see the module docs).
fn python() -> PathBuf {
    let p = std::env::var("WMLAB_INSPECT_PYTHON").unwrap_or_default();
    assert!(
        !p.trim().is_empty(),
        "WMLAB_INSPECT_PYTHON is not set: make Inspect AI's venv and point at its python with \
         export WMLAB_INSPECT_PYTHON=\"$(./scripts/dev/inspect-venv.sh)\" (scripts/dev/test.sh does both)"
    );
    let p = PathBuf::from(p.trim());
    assert!(p.is_file(), "WMLAB_INSPECT_PYTHON={} is no file: run ./scripts/dev/inspect-venv.sh", p.display());
    p
}

fn wmlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wmlab")).args(args).output().expect("wmlab runs")
}

fn ok(args: &[&str]) -> (String, String) {
    let out = wmlab(args);
    let (so, se) =
        (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned());
    assert!(out.status.success(), "wmlab {args:?} failed:\n{so}\n{se}");
    (so, se)
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wmlab-inspect-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A fake OpenAI-compatible model. LRT questions: the value of the line asked for, one more than it on
/// every third request. Other turns (N-back): `m` and `-` by turns. With `refuse`, the second request
/// gets a 400, which fails its sample at once.
fn server(refuse: bool) -> String {
    let count = Arc::new(AtomicUsize::new(0));
    common::serve(move |req, conn| {
        let n = count.fetch_add(1, Ordering::SeqCst);
        if refuse && n == 1 {
            common::write_json(conn, 400, &[], r#"{"error": {"message": "refused for the test"}}"#);
            return;
        }
        let body: Value = serde_json::from_str(&req.body).unwrap_or_default();
        let text: String =
            body["messages"].as_array().into_iter().flatten().filter_map(|m| m["content"].as_str()).collect();
        let reply = match lrt_value(&text) {
            Some(v) => (v + u64::from(n % 3 == 2)).to_string(),
            None => (if n.is_multiple_of(2) { "m" } else { "-" }).to_string(),
        };
        let body = serde_json::json!({
            "choices": [{"message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 2}
        });
        common::write_json(conn, 200, &[], &body.to_string());
    }) + "/v1"
}

/// The value an LRT prompt asks for (`Go to line K` … `line K: REGISTER_CONTENT is <V>`).
fn lrt_value(text: &str) -> Option<u64> {
    let k: String = text.split("Go to line ").nth(1)?.chars().take_while(|c| c.is_ascii_digit()).collect();
    let rest = text.split(&format!("line {k}: REGISTER_CONTENT is <")).nth(1)?;
    rest.split('>').next()?.parse().ok()
}

fn run(base: &str, out: &Path, args: &[&str]) {
    let common = ["llm", "run", "--provider", "openai", "--base-url", base, "--concurrency", "1", "-q", "--out"];
    ok(&[&common[..], &[s(out)], args].concat());
}

/// The last outcome per sample of a run folder, by (item, epoch).
fn outcomes(dir: &Path) -> BTreeMap<(String, u32), Outcome> {
    let log = RunLog::parse(&std::fs::read_to_string(dir.join("log.jsonl")).unwrap());
    let mut m = BTreeMap::new();
    for e in log.entries {
        if let LogEntry::Outcome(o) = e {
            m.insert((item_id(&o.sample_id).to_string(), o.epoch), *o);
        }
    }
    m
}

/// record.json's number over all of its one task (the test's runs each have one) for a metric.
fn summary(dir: &Path, metric: &str) -> (f64, Option<f64>) {
    let rec = ResultRecord::from_json(&std::fs::read_to_string(dir.join("record.json")).unwrap()).unwrap();
    let tasks: BTreeSet<&str> = rec.summaries.iter().map(|s| s.task.as_str()).collect();
    assert_eq!(tasks.len(), 1, "one task: {tasks:?}");
    let row = rec
        .summaries
        .iter()
        .find(|s| s.metric == metric && s.conditions == Default::default())
        .unwrap_or_else(|| panic!("no {metric} summary in {:?}", rec.summaries));
    (row.value, row.se)
}

/// Reads each log with inspect_ai (whole and header only; a .eval's last sample also alone) and prints
/// what the test compares, as JSON.
const READ_LOGS: &str = r#"
import json, sys
from inspect_ai.log import read_eval_log, read_eval_log_sample

def results(log):
    return [[s.name, {k: m.value for k, m in s.metrics.items()}] for s in (log.results.scores if log.results else [])]

out = {}
for path in sys.argv[1:]:
    log = read_eval_log(path)
    head = read_eval_log(path, header_only=True)
    entry = {
        "status": log.status, "model": log.eval.model, "task": log.eval.task, "epochs": log.eval.config.epochs,
        "results": results(log), "header_results": results(head), "header_samples": head.samples,
        "usage": {k: v.total_tokens for k, v in log.stats.model_usage.items()},
        "samples": [{
            "id": s.id, "epoch": s.epoch, "target": s.target,
            "scores": [[k, v.value, v.answer] for k, v in (s.scores or {}).items()],
            "error": s.error.message if s.error else None,
            "completion": s.output.completion,
            "roles": [m.role for m in s.messages],
            "input_roles": [m.role for m in s.input] if isinstance(s.input, list) else "text",
        } for s in log.samples],
    }
    if path.endswith(".eval"):
        last = log.samples[-1]
        one = read_eval_log_sample(path, id=last.id, epoch=last.epoch)
        entry["alone"] = [one.id, one.epoch, one.output.completion]
    out[path] = entry
print(json.dumps(out))
"#;

/// Runs scripts/research/inspect_task.py on a run folder with Inspect's mockllm, which answers each
/// prompt with the reply the run logged for it; prints each sample's scores and the results.
const RUN_TASK: &str = r#"
import importlib.util, json, sys
from inspect_ai import eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

task_file, run, wmlab, log_dir = sys.argv[1:5]
spec = importlib.util.spec_from_file_location("inspect_task", task_file)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
replies = {}
for line in open(f"{run}/log.jsonl"):
    e = json.loads(line)
    if e.get("type") == "outcome" and e.get("reply") is not None:
        replies[e["messages"][-1]["content"]] = e["reply"]

def answer(input, tools, tool_choice, config):
    out = ModelOutput.from_content(model="mockllm", content=replies[input[-1].text])
    out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # no tokenizer download
    return out

log, = eval(module.wmlab(run=run, wmlab=wmlab), model=get_model("mockllm/model", custom_outputs=answer),
            log_dir=log_dir, display="none")
print(json.dumps({
    "status": log.status, "error": log.error.message if log.error else None,
    "samples": {s.id: {k: v.value for k, v in (s.scores or {}).items()} for s in log.samples},
    "results": {r.name: {k: m.value for k, m in r.metrics.items()} for r in log.results.scores},
}))
"#;

fn py(python: &Path, script: &str, dir: &Path, args: &[&str]) -> Value {
    let file = dir.join("script.py");
    std::fs::write(&file, script).unwrap();
    let out = Command::new(python).arg(&file).args(args).output().expect("the venv's python runs");
    let (so, se) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "python {args:?} failed:\n{so}\n{se}");
    serde_json::from_str(so.lines().last().unwrap_or("")).unwrap_or_else(|e| panic!("{e}: {so}\n{se}"))
}

fn close(a: &Value, b: f64) -> bool {
    a.as_f64().is_some_and(|a| (a - b).abs() < 1e-12)
}

/// What both formats of one run must show: Inspect's reading of the log against the run's own log.jsonl
/// and record.json.
fn check_log(log: &Value, dir: &Path, model: &str, task: &str, headline: &str) {
    let outcomes = outcomes(dir);
    assert_eq!(log["status"], "success");
    assert_eq!(log["model"], format!("openai/{model}"));
    assert_eq!(log["task"], task);
    let epochs = outcomes.keys().map(|k| k.1).max().unwrap();
    assert_eq!(log["epochs"], epochs);
    let samples = log["samples"].as_array().unwrap();
    assert_eq!(samples.len(), outcomes.len());
    let tokens: u64 = outcomes.values().map(|o| o.tokens_in + o.tokens_out).sum();
    assert_eq!(log["usage"][format!("openai/{model}")], tokens);
    for sm in samples {
        let id = sm["id"].as_str().unwrap();
        assert!(!id.contains("@r"), "{id}: the item's id, its repeat the epoch");
        let o = &outcomes[&(id.to_string(), sm["epoch"].as_u64().unwrap() as u32)];
        let target = match (&o.targets, &o.reference) {
            (Some(t), _) => t.clone(),
            (None, Some(r)) => wmlab_core::llm::metrics::format_reference(r),
            _ => panic!("{id}: no reference"),
        };
        assert_eq!(sm["target"], target.as_str(), "{id}");
        assert!(!sm["input_roles"].as_array().unwrap().iter().any(|r| r == "assistant"), "{sm}");
        match &o.error {
            Some(e) => {
                assert_eq!(sm["error"], e.message.as_str());
                assert_eq!(sm["scores"], Value::Array(vec![]), "a failed sample has no scores");
            }
            None => {
                assert!(sm["error"].is_null());
                assert!(sm["roles"].as_array().unwrap().iter().any(|r| r == "assistant"), "{sm}");
                let scores = sm["scores"].as_array().unwrap();
                assert_eq!(scores[0][0], headline, "headline first: {sm}");
                assert_eq!(scores.len(), o.scores.len());
                for sc in scores {
                    assert!(close(&sc[1], o.scores[sc[0].as_str().unwrap()]), "{id}: {sc} vs {:?}", o.scores);
                }
                let answer = o.answers.clone().or(o.answer.clone());
                assert_eq!(scores[0][2], serde_json::json!(answer), "{id}");
            }
        }
    }
    // Each metric's mean over items (each item's mean over its epochs): record.json's summary.
    let results = log["results"].as_array().unwrap();
    assert_eq!(results[0][0], headline);
    for r in results {
        let (value, se) = summary(dir, r[0].as_str().unwrap());
        assert!(close(&r[1]["mean"], value), "{r} vs {value}");
        match se {
            Some(se) => assert!(close(&r[1]["stderr"], se), "{r} vs se {se}"),
            None => assert!(r[1]["stderr"].is_null()),
        }
    }
    assert_eq!(log["header_results"], log["results"]);
    assert!(log["header_samples"].is_null());
}

#[test]
fn runs_exported_as_inspect_logs_read_back_by_inspect() {
    let python = python();
    let d = tmp("logs");
    let refusing = server(true);
    let plain = server(false);
    let (lrt, nback, two, logs) = (d.join("lrt"), d.join("nback"), d.join("two"), d.join("logs"));
    let lrt_args = ["--suite", "lrt", "--lines", "20", "--shuffle-blocks", "none"];
    run(
        &refusing,
        &lrt,
        &[&lrt_args[..], &["--tests", "3", "--limit", "3", "--repeats", "2", "--model", "fake"]].concat(),
    );
    run(&plain, &nback, &["--suite", "nback", "--n", "1", "--new-blocks", "1", "--repeats", "2", "--model", "fake"]);
    run(&plain, &two, &[&lrt_args[..], &["--tests", "4", "--model", "a,b"]].concat());
    assert_eq!(outcomes(&lrt).len(), 6);
    assert_eq!(outcomes(&lrt).values().filter(|o| o.error.is_some()).count(), 1, "the refused request");
    assert_eq!(outcomes(&nback).len(), 2);

    let lrt_json = logs.join("2026-01-02T03-04-05_wmlab-lrt.json");
    let lrt_eval = logs.join("lrt.eval");
    let nback_eval = logs.join("nback.eval");
    let nback_json = d.join("unlisted").join("nback.json");
    for (run, out) in [(&lrt, &lrt_json), (&lrt, &lrt_eval), (&nback, &nback_eval)] {
        let (stdout, stderr) = ok(&["llm", "export", "--inspect", s(run), "--out", s(out)]);
        assert!(stdout.contains("samples") && !stderr.contains("note"), "{stdout}{stderr}");
    }
    let (_, stderr) = ok(&["llm", "export", "--inspect", s(&nback), "--out", s(&nback_json)]);
    assert!(stderr.contains("only when its name starts with a date"), "{stderr}");
    let (stdout, _) = ok(&["llm", "export", "--inspect", s(&two), "--out", s(&logs.join("two.eval"))]);
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
    for f in [&lrt_json, &lrt_eval, &nback_eval, &nback_json] {
        assert!(!std::fs::read(f).unwrap().is_empty());
    }

    let files = [&lrt_json, &lrt_eval, &nback_eval, &nback_json, &logs.join("two-a.eval"), &logs.join("two-b.eval")];
    let args: Vec<&str> = files.iter().map(|p| s(p)).collect();
    let read = py(&python, READ_LOGS, &d, &args);
    let log = |p: &Path| &read[s(p)];
    check_log(log(&lrt_json), &lrt, "fake", "wmlab/lrt", "first_integer");
    check_log(log(&nback_eval), &nback, "fake", "wmlab/nback", "accuracy");
    check_log(log(&logs.join("two-a.eval")), &two.join("a"), "a", "wmlab/lrt", "first_integer");
    check_log(log(&logs.join("two-b.eval")), &two.join("b"), "b", "wmlab/lrt", "first_integer");
    // The two formats hold the same log.
    let without = |v: &Value| {
        let mut v = v.clone();
        v.as_object_mut().unwrap().remove("alone");
        v
    };
    assert_eq!(without(log(&lrt_json)), without(log(&lrt_eval)));
    assert_eq!(without(log(&nback_json)), without(log(&nback_eval)));
    assert_eq!(log(&nback_eval)["samples"][0]["id"], log(&nback_eval)["samples"][1]["id"], "one block, two epochs");
    // A sample read alone from a .eval: its id's `/` are folders of the archive, as Inspect names them.
    let last = &log(&lrt_eval)["samples"][5];
    assert_eq!(log(&lrt_eval)["alone"], serde_json::json!([last["id"], last["epoch"], last["completion"]]));

    // `inspect log list` lists the .eval logs and the .json one named as Inspect names them.
    let inspect = python.with_file_name("inspect");
    let out = Command::new(&inspect).args(["log", "list", "--json", "--log-dir", s(&logs)]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let listed: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let names: BTreeSet<String> = listed
        .iter()
        .map(|l| Path::new(l["name"].as_str().unwrap()).file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let want = ["2026-01-02T03-04-05_wmlab-lrt.json", "lrt.eval", "nback.eval", "two-a.eval", "two-b.eval"];
    assert_eq!(names, want.iter().map(|n| n.to_string()).collect(), "{listed:?}");

    // The Inspect task: model a's LRT items asked again, each answered with the run's reply, scored by
    // `wmlab score` as WM Lab scored them.
    let task_file = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/research/inspect_task.py");
    let a = two.join("a");
    let got = py(&python, RUN_TASK, &d, &[task_file, s(&a), env!("CARGO_BIN_EXE_wmlab"), s(&d.join("task-logs"))]);
    assert_eq!(got["status"], "success", "{got}");
    let outcomes = outcomes(&a);
    assert_eq!(got["samples"].as_object().unwrap().len(), outcomes.len());
    for ((id, _), o) in &outcomes {
        assert!(close(&got["samples"][id]["first_integer"], o.scores["first_integer"]), "{id}: {got}");
    }
    let (value, se) = summary(&a, "first_integer");
    assert!(close(&got["results"]["first_integer"]["mean"], value), "{got} vs {value}");
    // Inspect's stderr is the same SE over items (n − 1 in the variance).
    assert!(close(&got["results"]["first_integer"]["stderr"], se.unwrap()), "{got} vs {se:?}");
    let _ = std::fs::remove_dir_all(&d);
}

/// Bad input is refused with a sentence and exit status 1, never a panic.
#[test]
fn bad_input_is_refused_in_words() {
    let d = tmp("bad");
    let run = d.join("run");
    std::fs::create_dir_all(&run).unwrap();
    let meta = r#"{"type":"meta","info":{"suite":"lrt","provider":"openai","model":"m"}}"#;
    let outcome = r#"{"type":"outcome","sample_id":"lrt/x/0","suite":"lrt","task":"lrt-ordered","reply":"1","reference":1,"scores":{"first_integer":1.0},"latency_ms":1.0,"requests":1,"tokens_in":1,"tokens_out":1}"#;
    let fails = |args: &[&str], words: &str| {
        let out = wmlab(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(words) && !err.contains("panicked"), "{args:?}: {err}");
    };
    let to = |name: &str| d.join(name).to_str().unwrap().to_string();
    fails(&["llm", "export", "--inspect", s(&run), "--out", &to("x.json")], "no log.jsonl");
    fails(&["llm", "export", "--inspect", s(&d.join("nowhere")), "--out", &to("x.eval")], "no such folder");
    std::fs::write(run.join("log.jsonl"), format!("{meta}\n")).unwrap();
    fails(&["llm", "export", "--inspect", s(&run), "--out", &to("x.eval")], "no finished sample");
    std::fs::write(run.join("log.jsonl"), format!("{meta}\n{outcome}\n")).unwrap();
    for ext in ["x.txt", "x", "x.EVAL.zip"] {
        fails(&["llm", "export", "--inspect", s(&run), "--out", &to(ext)], "must end in .json");
    }
    std::fs::write(run.join("log.jsonl"), format!("{outcome}\n")).unwrap();
    fails(&["llm", "export", "--inspect", s(&run), "--out", &to("x.json")], "not a log of `wmlab llm run`");
    let many = d.join("many");
    std::fs::create_dir_all(&many).unwrap();
    std::fs::write(many.join("models.json"), r#"{"models": [{"model": "m", "folder": "../run"}]}"#).unwrap();
    fails(&["llm", "export", "--inspect", s(&many), "--out", &to("y.json")], "not a folder name");
    std::fs::write(many.join("models.json"), r#"{"models": [{"model": "m", "folder": "m"}]}"#).unwrap();
    fails(&["llm", "export", "--inspect", s(&many), "--out", &to("y.json")], "none of its models");
    assert!(!d.join("x.json").exists() && !d.join("x.eval").exists() && !d.join("y-m.json").exists());
    let _ = std::fs::remove_dir_all(&d);
}

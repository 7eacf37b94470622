//! `wmlab train` and `wmlab eval` end to end (built with `--features nn`): a tiny network trained for a
//! few steps, then evaluated into a result record the app can open.
#![cfg(feature = "nn")]

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

use wmlab_core::people::StudyTask;
use wmlab_core::people::reference::subject_curves;
use wmlab_core::record::{ResultRecord, Subject};
use wmlab_core::task::TaskId;

fn wmlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wmlab")).args(args).output().expect("run wmlab")
}

fn ok(args: &[&str]) -> String {
    let out = wmlab(args);
    assert!(
        out.status.success(),
        "wmlab {args:?} failed ({:?}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf8 stdout")
}

fn fails(args: &[&str]) -> String {
    let out = wmlab(args);
    assert!(!out.status.success(), "wmlab {args:?} should fail");
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(err.starts_with("wmlab: error: "), "plain message expected: {err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wmlab-nn-cli-{}-{name}", std::process::id()));
    std::fs::remove_dir_all(&d).ok();
    d
}

#[test]
fn train_then_eval_writes_a_record() {
    let dir = tmp("run");
    let out = dir.to_str().unwrap();
    let stdout = ok(&[
        "train",
        "--arch",
        "gru",
        "--capacity",
        "16",
        "--preset",
        "tiny",
        "--steps",
        "4",
        "--val-every",
        "2",
        "--quiet",
        "--out",
        out,
    ]);
    let lines: Vec<serde_json::Value> = stdout.lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
    assert_eq!(lines.len(), 2, "one line per validation check: {stdout}");
    for (l, step) in lines.iter().zip([2, 4]) {
        assert_eq!(l["step"], step);
        assert!(l["loss"].as_f64().unwrap().is_finite());
        let acc = l["accuracy"].as_object().unwrap();
        assert_eq!(acc.len(), 14);
        assert!(acc.values().all(|v| (0.0..=1.0).contains(&v.as_f64().unwrap())));
    }
    for f in ["train.json", "last/weights.bpk", "last/optimizer.bpk", "last/state.json", "best/weights.bpk"] {
        assert!(dir.join(f).is_file(), "{f}");
    }

    let rec_path = dir.join("rec.json");
    let stdout = ok(&["eval", "--checkpoint", out, "--n", "4", "--quiet", "--record", rec_path.to_str().unwrap()]);
    let doc: serde_json::Value = serde_json::from_str(stdout.trim()).expect("one JSON document");
    assert_eq!(doc["step"], 4);
    assert_eq!(doc["trials_per_task"], 4);
    assert_eq!(doc["accuracy"].as_object().unwrap().len(), 14);
    let tasks = doc["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 14);
    let vsr = tasks.iter().find(|t| t["task"] == "VSR").unwrap();
    // Chance and significance beside every accuracy (VSR: 4 trials of 2–9 probes over 9 cells).
    assert!((vsr["chance"].as_f64().unwrap() - 1.0 / 9.0).abs() < 1e-12);
    assert!(vsr["responses"].as_u64().unwrap() >= 8);
    let p = vsr["p_above_chance"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&p));
    // Beside chance, the memoryless baseline (VSR: 1/L per probe, so above 1/9) and its test.
    assert!(vsr["memoryless"].as_f64().unwrap() > 1.0 / 9.0 + 0.05);
    for t in tasks {
        let chance = t["chance"].as_f64().unwrap();
        assert!(chance > 0.0 && chance <= 0.5, "{}", t["task"]);
        let memoryless = t["memoryless"].as_f64().unwrap();
        assert!(memoryless >= chance - 1e-12 && memoryless <= 1.0, "{}", t["task"]);
        let (p, p0) = (t["p_above_memoryless"].as_f64().unwrap(), t["p_above_chance"].as_f64().unwrap());
        assert!(p >= p0 - 1e-12 && p <= 1.0, "{}", t["task"]);
        assert!(!t["shows_memory"].as_bool().unwrap() || t["above_chance"].as_bool().unwrap());
    }
    assert_eq!(doc["trials_seen"], 4 * 28);
    assert!(doc["above_chance_ids"].as_u64().unwrap() <= 14);
    assert!(doc["shows_memory_ids"].as_u64().unwrap() <= doc["above_chance_ids"].as_u64().unwrap());
    assert!(doc["control_above_chance_ids"].is_null() && vsr.get("control_accuracy").is_none(), "only when asked");
    // The memoryless control: the same items with the memory frames blank, beside the full accuracy.
    let control = ok(&["eval", "--checkpoint", out, "--n", "4", "--quiet", "--memoryless"]);
    let control: serde_json::Value = serde_json::from_str(control.trim()).unwrap();
    assert!(control["control_above_chance_ids"].as_u64().unwrap() <= 14);
    for (t, c) in tasks.iter().zip(control["tasks"].as_array().unwrap()) {
        assert_eq!(t["accuracy"], c["accuracy"], "the full evaluation is unchanged");
        assert!((0.0..=1.0).contains(&c["control_accuracy"].as_f64().unwrap()), "{}", c["task"]);
        assert!((0.0..=1.0).contains(&c["control_p_above_chance"].as_f64().unwrap()), "{}", c["task"]);
    }
    assert!(!vsr["subject_curves"].as_array().unwrap().is_empty());
    assert!(!vsr["human_curves"].as_array().unwrap().is_empty());
    assert!(!vsr["table_a3"].as_array().unwrap().is_empty());
    // The whole Table A3, ending with CD's five features pooled as the paper; CD compared at retention
    // 18 (4 test trials per id reach only retention 0, so the note says the subject was pooled).
    assert_eq!(doc["cd_retention"], 18);
    let a3 = doc["table_a3"].as_array().unwrap();
    let cd = a3.last().unwrap();
    assert_eq!(cd["task"], "CD");
    assert!(cd["note"].as_str().unwrap().contains("pooled over every retention interval"), "{cd}");
    let pooled: serde_json::Value =
        serde_json::from_str(ok(&["eval", "--checkpoint", out, "--n", "4", "--quiet", "--cd-pooled"]).trim()).unwrap();
    assert_eq!(pooled["cd_retention"], "pooled");

    let rec = ResultRecord::from_json(&std::fs::read_to_string(&rec_path).unwrap()).expect("the record loads");
    assert_eq!(rec.trials.len(), 14 * 4);
    assert!(
        matches!(&rec.subject, Subject::Network { arch, capacity: 16, steps: 4, backend, preset } if arch == "gru" && backend == "flex" && preset == "tiny")
    );
    assert!(rec.created.as_ref().is_some_and(|c| c.ends_with('Z') && c.len() == 20));
    // The training curve (Fig. A4) of the whole run, from last/ even where best/ stopped earlier.
    let curve: Vec<(u64, u64)> = rec.training.iter().map(|p| (p.step, p.trials)).collect();
    assert_eq!(curve, [(2, 2 * 28), (4, 4 * 28)]);
    assert_eq!(rec.training[1].mean_accuracy, lines[1]["mean_accuracy"].as_f64().unwrap());
    assert!(!subject_curves(&rec, StudyTask::Worm(TaskId::Smu)).is_empty());

    // `wmlab analyse` reads the same checkpoint: one JSON report with every figure's data, stored into
    // the record (the app's Results page draws it).
    let stdout = ok(&[
        "analyse",
        "--checkpoint",
        out,
        "--n",
        "3",
        "--tsne-iterations",
        "60",
        "--quiet",
        "--record",
        rec_path.to_str().unwrap(),
    ]);
    let report: serde_json::Value = serde_json::from_str(stdout.trim()).expect("one JSON document");
    let rec = ResultRecord::from_json(&std::fs::read_to_string(&rec_path).unwrap()).expect("the record still loads");
    assert_eq!(rec.analyses.as_ref(), Some(&report), "the record holds the printed report");
    assert_eq!(rec.trials.len(), 14 * 4, "the rest of the record is unchanged");
    for key in ["tv_sorted", "clusters", "ftv", "sts", "task_embedding_cos", "first_item_cos"] {
        assert!(report.get(key).is_some(), "{key} missing from the report");
    }
    assert_eq!(report["units"], 16);
    let err = fails(&["analyse", "--checkpoint", out, "--record", junk_record(&dir).to_str().unwrap()]);
    assert!(err.contains("not a result record"), "{err}");

    // --resume continues from last/ (with Adam's state) to a larger step count.
    let stdout =
        ok(&["train", "--arch", "gru", "--preset", "tiny", "--steps", "6", "--resume", "--quiet", "--out", out]);
    let lines: Vec<serde_json::Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 1, "{stdout}");
    assert_eq!(lines[0]["step"], 6);
    std::fs::remove_dir_all(&dir).ok();
}

/// `wmlab sweep` trains and evaluates a grid into one folder, and a second call resumes it: finished runs
/// are not trained again; a folder holding another grid is refused.
#[test]
fn a_sweep_runs_its_grid_once_and_resumes() {
    let dir = tmp("sweep");
    let out = dir.to_str().unwrap();
    let args = [
        "sweep",
        "--arch",
        "gru",
        "--capacity",
        "8,16",
        "--task-embedding",
        "learned,static",
        "--preset",
        "tiny",
        "--steps",
        "2",
        "--val-every",
        "1",
        "--tasks",
        "VSR,CD-Color",
        "--n",
        "3",
        "--quiet",
        "--out",
        out,
    ];
    let stdout = ok(&args);
    let runs: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v.get("run").is_some())
        .collect();
    let names: Vec<&str> = runs.iter().map(|r| r["run"].as_str().unwrap()).collect();
    assert_eq!(names, ["gru-8", "gru-8-static", "gru-16", "gru-16-static"]);
    assert!(runs.iter().all(|r| r["status"] == "trained"), "{stdout}");
    let rec = |name: &str| {
        ResultRecord::from_json(&std::fs::read_to_string(dir.join(name).join("record.json")).unwrap()).unwrap()
    };
    let r = rec("gru-16-static");
    assert_eq!(r.training.len(), 2);
    // The evaluated checkpoint is the best one (step 1 or 2); the curve is the whole run.
    let Subject::Network { steps, .. } = r.subject else { panic!("a network") };
    assert_eq!(r.run_label(), format!("GRU-16 · tiny · {steps} steps · VSR+CD-Color only · static embedding"));
    assert!(rec("gru-16").run_label().ends_with(" steps · VSR+CD-Color only"));
    let summary = std::fs::read_to_string(dir.join("summary.csv")).unwrap();
    assert_eq!(summary.lines().count(), 5, "{summary}");
    assert!(summary.lines().nth(2).unwrap().starts_with("gru-8-static,gru,8,,,static,86,tiny,"), "{summary}");

    let again = ok(&args);
    assert!(
        again.lines().filter(|l| l.contains("\"run\"")).all(|l| l.contains("done earlier")),
        "nothing is trained twice: {again}"
    );
    assert!(!again.contains("\"step\""), "no training checks on a finished sweep: {again}");
    let err = fails(&["sweep", "--arch", "lstm", "--preset", "tiny", "--quiet", "--out", out]);
    assert!(err.contains("holds a different sweep"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Long lists (WorM A3.2) end to end: a Transformer trained on VSRec lists up to 16 (32-step trials)
/// evaluates into a record whose VSRec curves reach list length 16.
#[test]
fn long_lists_train_and_evaluate() {
    let dir = tmp("long");
    let out = dir.to_str().unwrap();
    ok(&[
        "train",
        "--arch",
        "trf",
        "--capacity",
        "16",
        "--preset",
        "tiny",
        "--steps",
        "2",
        "--val-every",
        "2",
        "--tasks",
        "VSRec",
        "--set",
        "list_lengths=4,16",
        "--quiet",
        "--out",
        out,
    ]);
    let rec_path = dir.join("rec.json");
    ok(&["eval", "--checkpoint", out, "--n", "10", "--quiet", "--record", rec_path.to_str().unwrap()]);
    let rec = ResultRecord::from_json(&std::fs::read_to_string(&rec_path).unwrap()).unwrap();
    let sixteen = rec.trials.iter().filter(|t| t.conditions.list_length == Some(16)).collect::<Vec<_>>();
    assert!(!sixteen.is_empty() && sixteen.iter().all(|t| t.correct.len() == 16), "16 answers per long trial");
    let curves = subject_curves(&rec, StudyTask::Worm(TaskId::VsRec));
    assert!(curves.iter().any(|c| c.panel.contains("16")), "{curves:?}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Language serial recall (WorM A3.1) end to end through the binary: `--tasks LSR` trains the words
/// model alone (the saved config says so), `wmlab eval` writes an LSR record with one answer per word,
/// and `wmlab compare` draws its serial-position curves (Fig. A2B); a mix with a visual task and the
/// neural analyses of a words model are refused in words.
#[test]
fn lsr_trains_alone_evaluates_and_draws() {
    let dir = tmp("lsr");
    let out = dir.to_str().unwrap();
    let err = fails(&["train", "--arch", "trf", "--preset", "quick", "--tasks", "LSR,VSR", "--quiet", "--out", out]);
    assert!(err.contains("trains alone"), "{err}");
    let stdout = ok(&[
        "train",
        "--arch",
        "trf",
        "--capacity",
        "16",
        "--preset",
        "quick",
        "--tasks",
        "LSR",
        "--steps",
        "2",
        "--val-every",
        "2",
        "--quiet",
        "--out",
        out,
    ]);
    let line: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(line["accuracy"].as_object().unwrap().keys().collect::<Vec<_>>(), vec!["LSR"]);
    let cfg: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("train.json")).unwrap()).unwrap();
    assert_eq!(cfg["model"]["encoder"], "words");
    let rec_path = dir.join("rec.json");
    ok(&["eval", "--checkpoint", out, "--n", "16", "--quiet", "--record", rec_path.to_str().unwrap()]);
    let rec = ResultRecord::from_json(&std::fs::read_to_string(&rec_path).unwrap()).unwrap();
    assert_eq!(rec.trials.len(), 16);
    assert!(rec.trials.iter().all(|t| t.task == "LSR" && t.correct.len() as u8 == t.conditions.list_length.unwrap()));
    let svg = dir.join("svg");
    ok(&["compare", rec_path.to_str().unwrap(), "--task", "LSR", "--out", svg.to_str().unwrap()]);
    let drawn: Vec<String> = std::fs::read_dir(&svg)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".svg"))
        .collect();
    assert!(!drawn.is_empty(), "an LSR plot");
    let text = std::fs::read_to_string(svg.join(&drawn[0])).unwrap();
    assert!(text.contains("serial position"), "accuracy against serial position");
    let csv = std::fs::read_to_string(svg.join("curves.csv")).unwrap();
    for l in 2..=9 {
        assert!(csv.contains(&format!(",LSR,list_length={l},serial_position,{l},")), "a curve per list length");
    }
    let err = fails(&["analyse", "--checkpoint", out, "--n", "2", "--quiet"]);
    assert!(err.contains("reads words"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `--tasks` trains a subset: validation lines, the evaluation and the record cover those ids only; a bad
/// id and a resume with other ids are refused in plain words.
#[test]
fn task_subset_train_and_eval() {
    let dir = tmp("subset");
    let out = dir.to_str().unwrap();
    let err = fails(&["train", "--arch", "gru", "--preset", "tiny", "--tasks", "VSR,XYZ", "--quiet", "--out", out]);
    assert!(err.contains("XYZ") && err.contains("CD-Color"), "{err}");
    // A task parameter no trained id has is refused before training.
    let err = fails(&[
        "train",
        "--arch",
        "gru",
        "--preset",
        "tiny",
        "--tasks",
        "VSR",
        "--set",
        "noise_mask=true",
        "--out",
        out,
    ]);
    assert!(err.contains("no trained task has a parameter \"noise_mask\""), "{err}");
    let stdout = ok(&[
        "train",
        "--arch",
        "gru",
        "--capacity",
        "16",
        "--preset",
        "tiny",
        "--tasks",
        "vsr,CD-Color",
        "--set",
        "noise_mask=true",
        "--steps",
        "2",
        "--val-every",
        "2",
        "--quiet",
        "--out",
        out,
    ]);
    let line: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    let ids: Vec<&String> = line["accuracy"].as_object().unwrap().keys().collect();
    assert_eq!(ids, vec!["CD-Color", "VSR"]);
    assert_eq!(line["trials"], 2 * 2 * 2, "2 steps of 2 trials of 2 ids");
    let rec_path = dir.join("rec.json");
    let stdout = ok(&["eval", "--checkpoint", out, "--n", "3", "--quiet", "--record", rec_path.to_str().unwrap()]);
    let doc: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(doc["trained_tasks"], serde_json::json!(["VSR", "CD-Color"]));
    let tasks: Vec<&str> = doc["tasks"].as_array().unwrap().iter().map(|t| t["task"].as_str().unwrap()).collect();
    assert_eq!(tasks, vec!["VSR", "CD-Color"]);
    let rec = ResultRecord::from_json(&std::fs::read_to_string(&rec_path).unwrap()).unwrap();
    assert_eq!(rec.trials.len(), 2 * 3);
    assert!(rec.trials.iter().all(|t| t.task == "VSR" || t.task == "CD-Color"));
    // The evaluation ran the checkpoint's task parameters (noise-masked CD), and the record says so.
    let cd = rec.config.tasks.iter().find(|t| t.id == TaskId::CdColor).expect("CD-Color's spec");
    assert!(matches!(&cd.params, wmlab_core::task::TaskParams::Cd(p) if p.noise_mask), "{:?}", cd.params);
    let err = fails(&[
        "train", "--arch", "gru", "--preset", "tiny", "--tasks", "SMU", "--steps", "4", "--resume", "--quiet", "--out",
        out,
    ]);
    assert!(err.contains("--tasks differs"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

fn junk_record(dir: &std::path::Path) -> PathBuf {
    let p = dir.join("junk-record.json");
    std::fs::write(&p, "{ not a record").unwrap();
    p
}

#[test]
fn bad_checkpoints_and_backends_give_plain_errors() {
    let dir = tmp("bad");
    std::fs::create_dir_all(&dir).unwrap();
    let missing = dir.join("missing");
    let err = fails(&["eval", "--checkpoint", missing.to_str().unwrap(), "--n", "1"]);
    assert!(err.contains("no such checkpoint"), "{err}");
    let junk = dir.join("junk.bin");
    std::fs::write(&junk, b"not a checkpoint at all").unwrap();
    let err = fails(&["eval", "--checkpoint", junk.to_str().unwrap(), "--n", "1"]);
    assert!(err.contains("not a readable checkpoint"), "{err}");
    let err = fails(&["eval", "--checkpoint", dir.to_str().unwrap(), "--n", "1"]);
    assert!(err.contains("not a readable checkpoint"), "{err}");
    #[cfg(not(feature = "wgpu"))]
    {
        let err = fails(&["train", "--arch", "gru", "--backend", "wgpu", "--out", dir.join("w").to_str().unwrap()]);
        assert!(err.contains("this build has no wgpu backend: rebuild with --features wgpu"), "{err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `wmlab compare` on two shipped networks — TRF-96 trained on all 14 ids and on VSR alone — evaluated
/// into records: WorM Fig. A2's joint vs VSR-alone comparison, one plot per run, and the same runs
/// together; the curves and Table A3 rows of both runs and the chance model as CSV.
#[test]
fn compare_draws_the_vsr_ablation_per_run_and_together() {
    let dir = tmp("compare");
    std::fs::create_dir_all(&dir).unwrap();
    let models = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../public/models");
    let mut recs = Vec::new();
    for (name, file) in [("joint", "wmlab-trf96-quick-all14.wmlabnn"), ("vsr", "wmlab-trf96-quick-vsr.wmlabnn")] {
        let rec = dir.join(format!("{name}.json"));
        let ckpt = models.join(file);
        ok(&[
            "eval",
            "--checkpoint",
            ckpt.to_str().unwrap(),
            "--n",
            "12",
            "--quiet",
            "--record",
            rec.to_str().unwrap(),
        ]);
        recs.push(rec.to_str().unwrap().to_string());
    }
    let out = dir.join("per-run");
    let line = ok(&[
        "compare",
        "--task",
        "VSR",
        "--layout",
        "per-run",
        "--chance",
        "--out",
        out.to_str().unwrap(),
        &recs[0],
        &recs[1],
    ]);
    let doc: serde_json::Value = serde_json::from_str(line.trim()).unwrap();
    assert_eq!(doc["task"], "VSR");
    let runs: Vec<&str> = doc["runs"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert!(runs[0].starts_with("TRF-96 · quick") && !runs[0].contains("only"), "{runs:?}");
    assert!(runs[1].starts_with("TRF-96 · quick") && runs[1].contains("VSR only"), "{runs:?}");
    assert_eq!(doc["plots"], serde_json::json!(["run1_vsr.svg", "run2_vsr.svg"]));
    for (k, f) in ["run1_vsr.svg", "run2_vsr.svg"].iter().enumerate() {
        let s = std::fs::read_to_string(out.join(f)).unwrap();
        assert!(s.starts_with("<svg "), "{f}");
        // The run alone, the people and the chance model: three labelled groups of series.
        // Each run named with the n behind its points.
        assert!(s.contains(&format!("data-name=\"{} · n ", runs[k].replace('"', "&quot;"))), "{f}");
        assert!(s.contains("data-name=\"people (WorM)\"") && s.contains("data-name=\"chance model\""), "{f}");
        assert!(s.contains("data-name=\"memoryless model\""), "{f}: VSR's 1/L beside chance");
        assert!(!s.contains(&format!("data-name=\"{} · n ", runs[1 - k])), "{f}: only its own run");
    }
    let scores = std::fs::read_to_string(out.join("scores.csv")).unwrap();
    for who in ["1,", "2,", ",chance model,"] {
        let rows = scores.lines().filter(|l| l.starts_with(who)).count();
        assert_eq!(rows, 3, "{who}: primacy, recency, list length\n{scores}");
    }
    let sig = std::fs::read_to_string(out.join("significance.csv")).unwrap();
    let rows = wmlab_core::analysis::dashboard::parse_csv(&sig).unwrap();
    assert_eq!(rows[0][5], "memoryless");
    let vsr: Vec<&Vec<String>> = rows.iter().skip(1).filter(|c| c[2] == "VSR").collect();
    assert_eq!(vsr.len(), 2, "one VSR row per record\n{sig}");
    for c in &vsr {
        let (chance, memoryless): (f64, f64) = (c[4].parse().unwrap(), c[5].parse().unwrap());
        assert!((chance - 1.0 / 9.0).abs() < 1e-6 && memoryless > chance + 0.05, "{c:?}");
        assert!(["true", "false"].contains(&c[11].as_str()), "{c:?}");
    }
    // The two networks took the same test trials: every VSR trial pairs, and κ is defined.
    let agr = std::fs::read_to_string(out.join("agreement.csv")).unwrap();
    let rows = wmlab_core::analysis::dashboard::parse_csv(&agr).unwrap();
    assert_eq!(rows[0][11], "kappa");
    let vsr = rows.iter().find(|c| c[4] == "VSR").unwrap_or_else(|| panic!("a VSR row\n{agr}"));
    assert_eq!((vsr[0].as_str(), vsr[2].as_str(), vsr[6].as_str()), ("1", "2", "0"), "{vsr:?}");
    assert!(vsr[5].parse::<usize>().unwrap() > 0, "{vsr:?}");
    // Cowan's K per CD set size needs change and no-change trials of the size: 12 trials per task spread
    // over the CD grid give none here (the computation is checked in the core); the file is written.
    let cap = std::fs::read_to_string(out.join("capacity.csv")).unwrap();
    let rows = wmlab_core::analysis::dashboard::parse_csv(&cap).unwrap();
    assert_eq!(rows[0][8], "cowan_k");
    for c in rows.iter().skip(1) {
        let (n, h, fa, k): (f64, f64, f64, f64) =
            (c[3].parse().unwrap(), c[6].parse().unwrap(), c[7].parse().unwrap(), c[8].parse().unwrap());
        assert!((k - n * (h - fa)).abs() < 1e-5, "{c:?}");
    }
    // Both runs have VSR span rows: one per list length 2–9.
    let sp = std::fs::read_to_string(out.join("span.csv")).unwrap();
    let rows = wmlab_core::analysis::dashboard::parse_csv(&sp).unwrap();
    assert_eq!(rows[0][7], "fifty_point");
    for run in ["1", "2"] {
        let n = rows.iter().skip(1).filter(|c| c[0] == run && c[2] == "VSR").count();
        assert_eq!(n, 8, "run {run}\n{sp}");
    }
    // Each length's share of whole lists lies in its 95 % interval.
    assert_eq!((rows[0][8].as_str(), rows[0][9].as_str()), ("recalled_whole_low", "recalled_whole_high"));
    for c in rows.iter().skip(1) {
        let (share, low, high): (f64, f64, f64) = (c[5].parse().unwrap(), c[8].parse().unwrap(), c[9].parse().unwrap());
        assert!(low <= share && share <= high && high - low > 0.0, "{c:?}");
    }
    // measures.csv (the function Results and Compare draw): each run's VSR span is span.csv's.
    let ms = std::fs::read_to_string(out.join("measures.csv")).unwrap();
    let m = wmlab_core::analysis::dashboard::parse_csv(&ms).unwrap();
    assert_eq!(m[0], ["run", "who", "task", "measure", "at", "value", "ci_low", "ci_high", "trials"]);
    for run in ["1", "2"] {
        let span = &rows.iter().skip(1).find(|c| c[0] == run && c[2] == "VSR").unwrap()[6];
        let row = m.iter().find(|c| c[0] == run && c[2] == "VSR" && c[3].starts_with("span"));
        match row {
            None => assert!(span.is_empty(), "run {run}: span {span} in span.csv, none in measures.csv\n{ms}"),
            Some(r) => {
                assert_eq!(r[5].parse::<f64>().unwrap(), span.parse::<f64>().unwrap(), "run {run}");
                let lists: usize = rows
                    .iter()
                    .skip(1)
                    .filter(|c| c[0] == run && c[2] == "VSR")
                    .map(|c| c[4].parse::<usize>().unwrap())
                    .sum();
                assert_eq!(r[8], lists.to_string(), "run {run}: every list");
            }
        }
    }
    let curves = std::fs::read_to_string(out.join("curves.csv")).unwrap();
    assert!(
        curves.lines().any(|l| l.starts_with("2,") && l.contains(",VSR,list_length=6,serial_position,")),
        "{curves}"
    );
    // Every run's point carries its n and its 95 % interval around y; the people's none.
    assert!(curves.starts_with("run,who,panel,label,x_name,x,y,n,ci_low,ci_high,thin\n"));
    for f in wmlab_core::analysis::dashboard::parse_csv(&curves).unwrap().iter().skip(1) {
        if f[0] == "2" {
            let (y, n, lo, hi): (f64, u32, f64, f64) =
                (f[6].parse().unwrap(), f[7].parse().unwrap(), f[8].parse().unwrap(), f[9].parse().unwrap());
            assert!(n >= 1 && lo <= y && y <= hi && f[10] == (n < 10).to_string(), "{f:?}");
        } else if f[1] == "people (WorM)" {
            assert_eq!(f[7..], ["", "", "", ""], "{f:?}");
        }
    }

    let out = dir.join("together");
    let line = ok(&["compare", "--out", out.to_str().unwrap(), &recs[0], &recs[1]]);
    let doc: serde_json::Value = serde_json::from_str(line.trim()).unwrap();
    assert_eq!(doc["layout"], "together");
    let s = std::fs::read_to_string(out.join("together_vsr.svg")).unwrap();
    assert_eq!(s.matches("data-role=\"Subject\"").count(), 16, "two runs × eight list lengths (2–9)");
    // The small multiples: a summary of both runs over the eight list lengths, a plot per list length.
    let sum = std::fs::read_to_string(out.join("summary_vsr.svg")).unwrap();
    assert_eq!(sum.matches("data-role=\"Subject\"").count(), 2, "{sum}");
    for l in 2..=9 {
        let lv = std::fs::read_to_string(out.join(format!("level_vsr_list_length-{l}.svg"))).unwrap();
        assert_eq!(lv.matches("data-role=\"Subject\"").count(), 2, "list length {l}");
    }

    // Bad input: plain words, nothing written over.
    let junk = dir.join("junk.json");
    std::fs::write(&junk, "{not json").unwrap();
    let err = fails(&["compare", "--out", dir.join("x").to_str().unwrap(), junk.to_str().unwrap()]);
    assert!(err.contains("is not a result record"), "{err}");
    let err = fails(&["compare", "--task", "VSRX", "--out", dir.join("x").to_str().unwrap(), &recs[0]]);
    assert!(err.contains("unknown task 'VSRX'"), "{err}");
    let err = fails(&["compare", "--task", "SC", "--out", dir.join("x").to_str().unwrap(), &recs[1]]);
    assert!(err.contains("none of the records has rows of SC"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A person who took VSR and CD-Color (a scripted participant: every other trial right), then a
/// shipped network evaluated on exactly those trials (`--trials-of`): every one of the person's trials
/// pairs with one of the network's in `wmlab compare`'s agreement.csv.
#[test]
fn a_network_takes_a_persons_trials_and_compare_pairs_them() {
    use wmlab_core::people::timing::answerable;
    use wmlab_core::people::{Answer, Session, StudyConfig, TrialResult};
    use wmlab_core::task::Target;
    let dir = tmp("trials-of");
    std::fs::create_dir_all(&dir).unwrap();
    let mut s = Session::with_seed(StudyConfig::from_query("tasks=VSR,CD-Color,SC&tpc=1&practice=1").unwrap(), 41);
    while let Some(pos) = s.current() {
        let t = s.trial(pos).unwrap();
        let right = t.global.is_multiple_of(2);
        let answers = t
            .steps
            .iter()
            .filter(|st| answerable(st))
            .map(|st| match &st.target {
                Target::Class(c) if right => Answer::Class(*c),
                Target::Class(c) => Answer::Class(u16::from(*c == 0)),
                Target::Set(v) if right => Answer::Set(v.clone()),
                Target::Set(_) => Answer::Set(Vec::new()),
                _ => Answer::None,
            })
            .collect();
        s.record(TrialResult { position: pos, answers, ..Default::default() }).unwrap();
    }
    let person = s.to_record(Some("P07"));
    let main = |task: &str| {
        let practice = |r: &&wmlab_core::record::TrialRow| matches!(r.extra.get("block_kind"), Some(wmlab_core::record::Setting::Text(k)) if k == "practice");
        person.trials.iter().filter(|r| r.task == task).filter(|r| !practice(r)).count()
    };
    let (vsr, cd) = (main("VSR"), main("CD-Color"));
    assert!(vsr > 0 && cd > 0);
    let person_path = dir.join("person.json");
    std::fs::write(&person_path, person.to_json().unwrap()).unwrap();

    // The VSR-only network takes the person's VSR trials (not CD-Color's or SC's: it was not trained on them).
    let ckpt = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../public/models/wmlab-trf96-quick-vsr.wmlabnn");
    let net_path = dir.join("net.json");
    let (ckpt, person_s, net_s) = (ckpt.to_str().unwrap(), person_path.to_str().unwrap(), net_path.to_str().unwrap());
    ok(&["eval", "--checkpoint", ckpt, "--trials-of", person_s, "--quiet", "--record", net_s]);
    let net = ResultRecord::from_json(&std::fs::read_to_string(&net_path).unwrap()).unwrap();
    assert_eq!(net.trials.len(), vsr, "one row per VSR trial of the person's");
    assert!(net.trials.iter().all(|r| r.task == "VSR"));
    assert_eq!(net.config.seed, 41, "the trials' seed");
    assert!(matches!(net.config.settings.get("split"), Some(wmlab_core::record::Setting::Text(s)) if s == "human"));

    let out = dir.join("cmp");
    ok(&["compare", "--out", out.to_str().unwrap(), person_s, net_s]);
    let agr = std::fs::read_to_string(out.join("agreement.csv")).unwrap();
    let rows = wmlab_core::analysis::dashboard::parse_csv(&agr).unwrap();
    let row = rows.iter().find(|c| c[4] == "VSR").unwrap_or_else(|| panic!("a VSR row\n{agr}"));
    assert_eq!(row[6], "0", "every VSR trial of the person's pairs with the network's\n{agr}");
    assert!(row[5].parse::<usize>().unwrap() >= vsr, "{row:?}");

    // Bad input: plain words.
    let err = fails(&["eval", "--checkpoint", ckpt, "--trials-of", ckpt, "--quiet"]);
    assert!(err.contains("is not a result record"), "{err}");
    let mut other = person.clone();
    other.trials.retain(|r| r.task != "VSR");
    let other_path = dir.join("other.json");
    std::fs::write(&other_path, other.to_json().unwrap()).unwrap();
    let err = fails(&["eval", "--checkpoint", ckpt, "--trials-of", other_path.to_str().unwrap(), "--quiet"]);
    assert!(err.contains("is one the network was trained on"), "{err}");
    let err = fails(&["eval", "--checkpoint", ckpt, "--trials-of", person_s, "--memoryless", "--quiet"]);
    assert!(err.contains("does not go with --trials-of"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `--adaptive`: a staircase on each task of the shipped joint network that has a level (the five CD
/// tasks' set size, VSR's and VSRec's list length): every trial at the staircase's level, the estimate
/// (when the run reached enough reversals) inside its interval and within the levels, the track in the
/// record; a network with no such task is refused.
#[test]
fn an_adaptive_evaluation_runs_a_staircase_per_task_with_a_level() {
    let dir = tmp("adaptive");
    std::fs::create_dir_all(&dir).unwrap();
    let models = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../public/models");
    let ckpt = models.join("wmlab-trf96-quick-all14.wmlabnn");
    let rec_path = dir.join("adaptive.json");
    let line = ok(&[
        "eval",
        "--checkpoint",
        ckpt.to_str().unwrap(),
        "--adaptive",
        "--quiet",
        "--record",
        rec_path.to_str().unwrap(),
    ]);
    let doc: serde_json::Value = serde_json::from_str(line.trim()).unwrap();
    assert_eq!(doc["adaptive"], "staircase");
    let tasks = doc["tasks"].as_array().unwrap();
    let names: Vec<&str> = tasks.iter().map(|t| t["task"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 7, "the five CD tasks, VSR and VSRec: {names:?}");
    assert_eq!(names.iter().filter(|n| n.starts_with("CD-")).count(), 5, "{names:?}");
    assert!(names.contains(&"VSR") && names.contains(&"VSRec"), "{names:?}");
    let rec = ResultRecord::from_json(&std::fs::read_to_string(&rec_path).unwrap()).unwrap();
    let kept = wmlab_core::adaptive::results_of(&rec);
    assert_eq!(kept.len(), 7, "the record keeps each run");
    let mut total = 0;
    for t in tasks {
        let track = t["track"].as_array().unwrap();
        let n = t["trials"].as_u64().unwrap() as usize;
        assert!(n > 0 && n <= 120 && track.len() == n, "{t}");
        total += n;
        let task = t["task"].as_str().unwrap();
        // Each row shows the level of its place in the track.
        let rows: Vec<_> = rec.trials.iter().filter(|r| r.task == task).collect();
        assert_eq!(rows.len(), n);
        for (row, step) in rows.iter().zip(track) {
            let level = row.conditions.set_size.or(row.conditions.list_length);
            assert_eq!(level.map(u64::from), step[0].as_u64(), "{task}");
            assert_eq!(row.correct.iter().all(|&c| c), step[1].as_bool().unwrap(), "{task}");
        }
        if let Some(level) = t["level"].as_f64() {
            let (low, high) = (t["ci_low"].as_f64().unwrap(), t["ci_high"].as_f64().unwrap());
            assert!(low <= level && level <= high && (0.5..=12.5).contains(&level), "{t}");
        }
        let run = kept.iter().find(|r| r.task == task).unwrap();
        assert_eq!(run.track.len(), n, "{task}");
        assert_eq!(run.estimate.map(|e| e.level), t["level"].as_f64(), "{task}");
        // A run that sat at an end of its range has a bound and no level, said in words (issue 71).
        let bound: Option<wmlab_core::adaptive::Bound> = serde_json::from_value(t["bound"].clone()).unwrap();
        assert_eq!(run.bound, bound, "{task}");
        let words = t["describe"].as_str().unwrap();
        if bound.is_some() {
            assert!(
                t["level"].is_null() && (words.contains("below the lowest") || words.contains("above the highest")),
                "{t}"
            );
        }
        let target = if task.starts_with("CD-") { 0.75 } else { 0.5 };
        assert_eq!(t["target"].as_f64(), Some(target), "{task}");
    }
    assert_eq!(rec.trials.len(), total);
    // A network of SMU alone (no level to move): refused in words.
    let smu = dir.join("smu");
    let smu_s = smu.to_str().unwrap();
    let args = ["--arch", "gru", "--capacity", "8", "--preset", "tiny", "--steps", "1", "--tasks", "SMU"];
    ok(&[&["train"][..], &args, &["--quiet", "--out", smu_s]].concat());
    let ck = smu.join("last");
    let err = fails(&["eval", "--checkpoint", ck.to_str().unwrap(), "--adaptive", "--quiet"]);
    assert!(err.contains("trained on none of them"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A `.npy` float32 array written by wmlab: its shape and values.
fn read_npy(path: &std::path::Path) -> (Vec<usize>, Vec<f32>) {
    let b = std::fs::read(path).unwrap();
    assert_eq!(&b[..6], b"\x93NUMPY");
    let len = u16::from_le_bytes([b[8], b[9]]) as usize;
    let header = std::str::from_utf8(&b[10..10 + len]).unwrap();
    assert!(header.contains("'descr': '<f4'"), "{header}");
    let dims = header.split("'shape': (").nth(1).unwrap().split(')').next().unwrap();
    let shape = dims.split(',').map(str::trim).filter(|d| !d.is_empty()).map(|d| d.parse().unwrap()).collect();
    let values = b[10 + len..].chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    (shape, values)
}

/// `wmlab predict` runs a checkpoint on the frames `wmlab generate` wrote and writes the task head's raw
/// logits [N, T, K]: the shipped joint model reads STS's frames as it was tested (argmax right at every
/// scored step, as its card's 1.000), and a trial's outputs do not depend on the trials batched with it
/// (VSR's lists of 2–9 items pad to 20 steps under the Transformer's padding mask).
#[test]
fn predict_writes_a_models_raw_outputs_on_generated_trials() {
    let dir = tmp("predict");
    let ckpt = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../public/models/wmlab-trf96-quick-all14.wmlabnn");
    let ckpt = ckpt.to_str().unwrap();
    let sts = dir.join("sts");
    ok(&[
        "generate",
        "--task",
        "STS",
        "--split",
        "test",
        "--count",
        "16",
        "--png",
        "none",
        "-q",
        "--out",
        sts.to_str().unwrap(),
    ]);
    let out = dir.join("sts.npy");
    ok(&["predict", "--checkpoint", ckpt, "--trials", sts.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let (shape, logits) = read_npy(&out);
    assert_eq!(shape, [16, 20, 3]);
    let (mut right, mut scored) = (0, 0);
    for (i, line) in std::fs::read_to_string(sts.join("trials.jsonl")).unwrap().lines().enumerate() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        for t in 0..20 {
            if v["mask"][t] == true {
                let row = &logits[(i * 20 + t) * 3..(i * 20 + t + 1) * 3];
                let best = (0..3).max_by(|&a, &b| row[a].total_cmp(&row[b])).unwrap();
                right += usize::from(v["targets"][t] == best);
                scored += 1;
            }
        }
    }
    assert!(scored > 200 && right as f64 >= 0.95 * scored as f64, "{right} of {scored} scored steps right");

    let vsr = dir.join("vsr");
    ok(&[
        "generate",
        "--task",
        "VSR",
        "--split",
        "test",
        "--count",
        "12",
        "--png",
        "none",
        "-q",
        "--out",
        vsr.to_str().unwrap(),
    ]);
    let at = |batch: &str| {
        let out = dir.join(format!("vsr-{batch}.npy"));
        let args = ["predict", "--checkpoint", ckpt, "--trials", vsr.to_str().unwrap(), "--batch", batch, "--out"];
        ok(&[&args[..], &[out.to_str().unwrap()]].concat());
        read_npy(&out)
    };
    let (one, all) = (at("1"), at("12"));
    assert_eq!(one.0, [12, 20, 9]);
    assert_eq!(one, all, "a trial's logits depend on the trials beside it");
    assert!(one.1.iter().all(|x| x.is_finite()));

    // Word trials and a folder without trials are refused in words.
    let lsr = dir.join("lsr");
    ok(&[
        "generate",
        "--task",
        "LSR",
        "--split",
        "test",
        "--count",
        "2",
        "--png",
        "none",
        "-q",
        "--out",
        lsr.to_str().unwrap(),
    ]);
    let err = fails(&["predict", "--checkpoint", ckpt, "--trials", lsr.to_str().unwrap(), "--out", "x.npy"]);
    assert!(err.contains("LSR trials are word vectors"), "{err}");
    let err =
        fails(&["predict", "--checkpoint", ckpt, "--trials", dir.join("none").to_str().unwrap(), "--out", "x.npy"]);
    assert!(err.contains("trials.jsonl"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `wmlab export --torch` writes a trained paper-architecture model as the authors' `state_dict`, and
/// `wmlab import --torch` reads it back (the `.pt` through burn's PyTorch reader): the imported
/// checkpoint predicts what the original does, on every memory (the mapping's equations are checked
/// against the authors' forward in crates/nn/tests/torch.rs). A model the authors' code cannot build is
/// refused, and so is a file of another memory.
#[test]
fn export_and_import_of_the_authors_pytorch_state_dict_keep_the_outputs() {
    let dir = tmp("torch");
    let cd = dir.join("cd");
    let args = ["generate", "--task", "CD-Color", "--split", "test", "--count", "6", "--png", "none", "-q", "--out"];
    ok(&[&args[..], &[cd.to_str().unwrap()]].concat());
    for arch in ["rnn", "gru", "lstm", "trf"] {
        let run = dir.join(arch);
        let run_s = run.to_str().unwrap();
        ok(&common::one_step_train(arch, run_s));
        let pt = dir.join(format!("{arch}.pt"));
        let stdout = ok(&["export", "--torch", run_s, "--out", pt.to_str().unwrap()]);
        assert!(stdout.contains(if arch == "trf" { "56 tensors" } else { "35 tensors" }), "{stdout}");
        let back = dir.join(format!("{arch}.wmlabnn"));
        ok(&[
            "import",
            "--torch",
            pt.to_str().unwrap(),
            "--arch",
            arch,
            "--capacity",
            "16",
            "--out",
            back.to_str().unwrap(),
        ]);
        let predict = |ck: &str, name: &str| {
            let out = dir.join(name);
            ok(&["predict", "--checkpoint", ck, "--trials", cd.to_str().unwrap(), "--out", out.to_str().unwrap()]);
            read_npy(&out)
        };
        let (a, b) =
            (predict(run_s, &format!("{arch}-a.npy")), predict(back.to_str().unwrap(), &format!("{arch}-b.npy")));
        assert_eq!(a.0, b.0);
        let worst = a.1.iter().zip(&b.1).map(|(x, y)| (x - y).abs()).fold(0.0f32, f32::max);
        assert!(worst < 1e-5, "{arch}: the imported model's logits differ by {worst}");
        if arch == "gru" {
            // The memory and capacity are read from the file; asking for others is refused in words.
            let lstm = ["import", "--torch", pt.to_str().unwrap(), "--arch", "lstm", "--out", "x.wmlabnn"];
            let e = fails(&lstm);
            assert!(e.contains("gru.pt: the file holds a GRU-16, not a LSTM"), "{e}");
            let e = fails(&["import", "--torch", pt.to_str().unwrap(), "--capacity", "96", "--out", "x.wmlabnn"]);
            assert!(e.contains("not capacity 96"), "{e}");
            let plain = dir.join("plain.wmlabnn");
            let stdout = ok(&["import", "--torch", pt.to_str().unwrap(), "--out", plain.to_str().unwrap()]);
            assert!(stdout.contains("GRU-16"), "{stdout}");
        }
    }
    let quick = dir.join("quick");
    ok(&[
        "train",
        "--arch",
        "trf",
        "--capacity",
        "16",
        "--preset",
        "quick",
        "--steps",
        "1",
        "--val-every",
        "1",
        "--val-per-task",
        "1",
        "--quiet",
        "--out",
        quick.to_str().unwrap(),
    ]);
    let e = fails(&["export", "--torch", quick.to_str().unwrap(), "--out", dir.join("q.pt").to_str().unwrap()]);
    assert!(e.contains("not the paper's model"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

//! `wmlab sweep` on a real scheduler: a 4-run grid planned with `--slurm`, submitted to the one-node
//! Slurm cluster `scripts/dev/slurm.sh` starts (scripts/dev/test.sh exports its `SLURM_CONF`), run as a
//! job array two at a time; every run's record, the summary and the overlap of the runs are checked.
#![cfg(feature = "nn")]

use std::path::{Path, PathBuf};
use std::process::Command;

use wmlab_core::record::ResultRecord;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wmlab-slurm-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn wmlab(args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_wmlab")).args(args).output().expect("run wmlab");
    assert!(o.status.success(), "wmlab {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// Start and end (seconds since the epoch) of each array task, from the lines the sbatch script prints.
fn spans(dir: &Path) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir.join("slurm")).unwrap().flatten() {
        let text = std::fs::read_to_string(e.path()).unwrap();
        let at = |what: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(&format!("wmlab-sweep {what} ")))
                .and_then(|rest| rest.split_whitespace().next())
                .and_then(|t| t.parse::<f64>().ok())
                .unwrap_or_else(|| panic!("no {what} line in {}:\n{text}", e.path().display()))
        };
        out.push((at("start"), at("end")));
    }
    out
}

#[test]
fn a_planned_sweep_runs_as_a_slurm_job_array_two_at_a_time() {
    let ready = Command::new("sinfo").args(["-h", "-o", "%T"]).output();
    let up = ready.as_ref().is_ok_and(|o| o.status.success() && !o.stdout.is_empty());
    assert!(
        up,
        "no Slurm cluster answers (sinfo: {:?}): start one with scripts/dev/slurm.sh and export SLURM_CONF={}",
        ready.map(|o| String::from_utf8_lossy(&o.stderr).into_owned()).map_err(|e| e.to_string()),
        "$(scripts/dev/slurm.sh)"
    );
    let dir = tmp("array");
    let out = dir.to_str().unwrap();
    let plan = wmlab(&[
        "sweep",
        "--arch",
        "gru,lstm",
        "--capacity",
        "8,16",
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
        "--out",
        out,
        "--slurm",
        "--max-parallel",
        "2",
    ]);
    let listed: Vec<serde_json::Value> = plan.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let names: Vec<&str> = listed.iter().map(|r| r["run"].as_str().unwrap()).collect();
    assert_eq!(names, ["gru-8", "gru-16", "lstm-8", "lstm-16"]);
    assert!(listed.iter().enumerate().all(|(i, r)| r["index"] == i && r["done"] == false), "{plan}");
    let script = std::fs::read_to_string(dir.join("sweep.sbatch")).unwrap();
    assert!(script.contains("#SBATCH --array=0-3%2"), "{script}");

    let submitted =
        Command::new("sbatch").args(["--wait", "--parsable"]).arg(dir.join("sweep.sbatch")).output().unwrap();
    let logs = || {
        std::fs::read_dir(dir.join("slurm"))
            .map(|d| d.flatten().map(|e| std::fs::read_to_string(e.path()).unwrap_or_default()).collect::<Vec<_>>())
            .unwrap_or_default()
            .join("\n---\n")
    };
    assert!(submitted.status.success(), "sbatch --wait: {}\n{}", String::from_utf8_lossy(&submitted.stderr), logs());

    for name in names {
        let text = std::fs::read_to_string(dir.join(name).join("record.json"))
            .unwrap_or_else(|e| panic!("{name}: no record ({e})\n{}", logs()));
        let rec = ResultRecord::from_json(&text).unwrap();
        assert_eq!(rec.training.len(), 2, "{name}: two training steps");
        assert!(dir.join(name).join("last").join("weights.bpk").exists());
    }
    let summary = std::fs::read_to_string(dir.join("summary.csv")).unwrap();
    assert_eq!(summary.lines().count(), 5, "a header and the 4 runs, written by runs in parallel:\n{summary}");
    // No temporary file is left behind by the renames.
    assert!(std::fs::read_dir(&dir).unwrap().flatten().all(|e| !e.file_name().to_string_lossy().ends_with(".tmp")));
    // Two tasks at a time: some pair of runs overlapped, and never three.
    let s = spans(&dir);
    assert_eq!(s.len(), 4, "{}", logs());
    let overlap = |a: (f64, f64), b: (f64, f64)| a.0 < b.1 && b.0 < a.1;
    assert!((0..4).any(|i| (i + 1..4).any(|j| overlap(s[i], s[j]))), "the array's tasks ran one after another: {s:?}");
    for i in 0..4 {
        let at_once = (0..4).filter(|&j| j != i && overlap(s[i], s[j]) && s[j].0 <= s[i].0 && s[i].0 < s[j].1).count();
        assert!(at_once < 2, "three tasks at once under %2: {s:?}");
    }
    // A rebuilt summary is the same; a rerun of one index finds its run done.
    let before = summary.clone();
    wmlab(&["sweep", "--out", out, "--summary"]);
    assert_eq!(std::fs::read_to_string(dir.join("summary.csv")).unwrap(), before);
    let again = wmlab(&["sweep", "--out", out, "--index", "2", "--quiet"]);
    let v: serde_json::Value = serde_json::from_str(again.lines().last().unwrap()).unwrap();
    assert_eq!((v["run"].as_str(), v["status"].as_str()), (Some("lstm-8"), Some("done earlier")));
    std::fs::remove_dir_all(&dir).ok();
}

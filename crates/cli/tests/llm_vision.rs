//! `wmlab llm run --suite worm-vision --render image` against a checking server (no registry ships a
//! vision model small enough for this machine): every image part must be a PNG data URL of the asked
//! size; the server answers the first option. The run writes a record scored like a person's, a rerun
//! resumes without sending anything, and a server that refuses images stops the run at the one-image
//! probe with its own words.

#[path = "../../llm/tests/common/mod.rs"]
mod common;

use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use base64::Engine;
use wmlab_core::png::decode_rgb;
use wmlab_core::record::ResultRecord;

struct Seen {
    requests: AtomicUsize,
    images: AtomicUsize,
    problems: Mutex<Vec<String>>,
}

fn serve(size: u32, refuse: bool) -> (String, Arc<Seen>) {
    let seen =
        Arc::new(Seen { requests: AtomicUsize::new(0), images: AtomicUsize::new(0), problems: Mutex::new(vec![]) });
    let st = seen.clone();
    let base = common::serve(move |req, conn| {
        st.requests.fetch_add(1, Ordering::SeqCst);
        let v: serde_json::Value = serde_json::from_str(&req.body).unwrap_or_default();
        let probe = req.body.contains("What colour is the square");
        let mut last = String::new();
        let mut images = 0;
        for m in v["messages"].as_array().cloned().unwrap_or_default() {
            match &m["content"] {
                serde_json::Value::String(s) => last = s.clone(),
                serde_json::Value::Array(parts) => {
                    for p in parts {
                        if let Some(t) = p["text"].as_str() {
                            last = t.to_string();
                        } else if let Some(url) = p["image_url"]["url"].as_str() {
                            images += 1;
                            let want = if probe { 96 } else { size };
                            let ok = url
                                .strip_prefix("data:image/png;base64,")
                                .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
                                .and_then(|b| decode_rgb(&b).ok())
                                .is_some_and(|(w, h, _)| (w, h) == (want, want));
                            if ok {
                                st.images.fetch_add(1, Ordering::SeqCst);
                            } else {
                                st.problems
                                    .lock()
                                    .unwrap()
                                    .push(format!("bad image part {}", &url[..40.min(url.len())]));
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        if refuse && images > 0 {
            let body = serde_json::json!({"error": {"message": "this model does not accept image input"}});
            common::write_json(conn, 400, &[], &body.to_string());
            return;
        }
        let body = serde_json::json!({
            "choices": [{"message": {"role": "assistant", "content": common::answer(&last)}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 300, "completion_tokens": 1}
        });
        common::write_json(conn, 200, &[], &body.to_string());
    }) + "/v1";
    (base, seen)
}

fn run(base: &str, out: &std::path::Path, extra: &[&str]) -> std::process::Output {
    let mut args =
        vec!["llm", "run", "--suite", "worm-vision", "--provider", "openai", "--base-url", base, "--model", "vlm"];
    args.extend_from_slice(&["--out", out.to_str().unwrap(), "-q", "--retries", "0"]);
    args.extend_from_slice(extra);
    Command::new(env!("CARGO_BIN_EXE_wmlab")).args(&args).output().unwrap()
}

#[test]
fn an_image_run_from_the_cli_is_scored_as_people_are_and_resumes() {
    let (base, seen) = serve(192, false);
    let out = std::env::temp_dir().join(format!("wmlab-vision-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let args = ["--tasks", "VSR,CD-Color,VIR,SMU,nback-spatial", "--trials", "1", "--n", "1", "--size", "192"];
    let o = run(&base, &out, &args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(seen.problems.lock().unwrap().is_empty(), "{:?}", seen.problems.lock().unwrap());
    assert!(seen.images.load(Ordering::SeqCst) > 30, "every frame as an image");
    let rec = ResultRecord::from_json(&std::fs::read_to_string(out.join("record.json")).unwrap()).unwrap();
    assert_eq!(rec.task, "VSR+CD-Color+VIR+SMU+nback-spatial");
    for t in ["VSR", "CD-Color", "VIR", "SMU", "nback-spatial"] {
        assert!(rec.summaries.iter().any(|s| s.task == t && s.metric == "accuracy"), "{t}");
    }
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(table.contains("nback-spatial") && table.contains("dprime"), "{table}");
    // a rerun resumes: nothing is sent, not even the probe
    let before = seen.requests.load(Ordering::SeqCst);
    let o = run(&base, &out, &args);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("(5 resumed"), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(seen.requests.load(Ordering::SeqCst), before);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_model_without_images_is_stopped_by_the_probe() {
    let (base, seen) = serve(96, true);
    let out = std::env::temp_dir().join(format!("wmlab-vision-cli-refuse-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let o = run(&base, &out, &["--tasks", "CD-Color", "--trials", "2", "--size", "96"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("did not take an image")
            && err.contains("does not accept image input")
            && err.contains("--render text"),
        "{err}"
    );
    assert_eq!(seen.requests.load(Ordering::SeqCst), 1, "only the probe");
    let _ = std::fs::remove_dir_all(&out);
}

/// `--adaptive`: one staircase per task, one trial at a time; every row shows its track's level and the
/// answer the track records, the record keeps both runs, a rerun resumes without sending anything, and
/// a task without a level is refused in words.
#[test]
fn an_adaptive_run_walks_a_staircase_per_task_and_resumes() {
    let (base, seen) = serve(96, false);
    let out = std::env::temp_dir().join(format!("wmlab-vision-cli-adaptive-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let args = ["--tasks", "CD-Color,VSR,nback-spatial", "--adaptive", "--size", "96"];
    let o = run(&base, &out, &args);
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success(), "{err}");
    assert!(seen.problems.lock().unwrap().is_empty(), "{:?}", seen.problems.lock().unwrap());
    assert!(
        err.contains("CD-Color: set size at 75 % right")
            && err.contains("VSR: list length at 50 % of lists recalled whole"),
        "{err}"
    );
    let rec = ResultRecord::from_json(&std::fs::read_to_string(out.join("record.json")).unwrap()).unwrap();
    let runs = wmlab_core::adaptive::results_of(&rec);
    assert_eq!(runs.iter().map(|r| r.task.as_str()).collect::<Vec<_>>(), ["CD-Color", "VSR", "nback-spatial"]);
    for run in &runs {
        let rows: Vec<_> = rec.trials.iter().filter(|r| r.task == run.task).collect();
        assert_eq!(rows.len(), run.track.len(), "{}", run.task);
        assert!(!rows.is_empty() && rows.len() <= run.config.max_trials, "{}", run.task);
        for (row, step) in rows.iter().zip(&run.track) {
            let level = row.conditions.set_size.or(row.conditions.list_length).map(u32::from);
            assert_eq!(level, Some(step.level), "{}", run.task);
            let passed = if run.task.starts_with("nback") {
                wmlab_core::adaptive::nback_passed(&row.correct)
            } else {
                wmlab_core::adaptive::trial_correct(&row.correct)
            };
            assert_eq!(passed, step.correct, "{}", run.task);
        }
        // The staircase ran to its end: enough reversals, or the trial limit.
        let mut again = wmlab_core::adaptive::Staircase::new(run.config.clone()).unwrap();
        for s in &run.track {
            again.record(s.correct);
        }
        assert!(again.done(), "{}: {:?}", run.task, run.track);
    }
    // The rows are the staircase's very trials: a network could take them (people::replay).
    let replay = wmlab_core::people::replay::worm_trials_of(&rec).unwrap();
    let worm = rec.trials.iter().filter(|r| !r.task.starts_with("nback")).count();
    assert_eq!(replay.levels.len(), worm, "every WorM row (N-back blocks are not replayed)");
    // A rerun resumes: nothing is sent, and the tracks are the same.
    let before = seen.requests.load(Ordering::SeqCst);
    let o = run(&base, &out, &args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(seen.requests.load(Ordering::SeqCst), before);
    let again = ResultRecord::from_json(&std::fs::read_to_string(out.join("record.json")).unwrap()).unwrap();
    assert_eq!(wmlab_core::adaptive::results_of(&again), runs);
    // Tasks without a level, and other suites, are refused.
    let o = run(&base, &out.join("smu"), &["--tasks", "SMU", "--adaptive", "--size", "96"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("SMU has no level a staircase can move"));
    let _ = std::fs::remove_dir_all(&out);
}

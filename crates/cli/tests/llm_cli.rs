//! `wmlab score` and `wmlab llm run` end to end against a tiny fake OpenAI-compatible server.

#[path = "../../llm/tests/common/mod.rs"]
mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

fn wmlab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_wmlab"))
}

#[test]
fn score_keeps_order_and_skips_blank_lines() {
    let input = concat!(
        r#"{"metric":"first_integer","reference":42,"prediction":"it is 42."}"#,
        "\n\n",
        r#"{"metric":"nback","reference":"m--m","prediction":"m-mm"}"#,
        "\n",
        "not json\n",
        r#"{"metric":"exact_match","reference":"cat","prediction":"The cat."}"#,
        "\n"
    );
    let mut child = wmlab().arg("score").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["score"], 1.0);
    assert_eq!(lines[1]["hit_rate"], 1.0);
    assert!(lines[2]["error"].is_string());
    assert_eq!(lines[3]["score"], 1.0);
}

/// Answers every chat request with the first number found after "line K" … a fake that is right
/// half the time: it replies with the number of the request.
fn fake_server() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    let count = Arc::new(AtomicUsize::new(0));
    let c = count.clone();
    std::thread::spawn(move || {
        for conn in listener.incoming().take(1000) {
            let Ok(mut s) = conn else { continue };
            let c = c.clone();
            std::thread::spawn(move || {
                let mut r = BufReader::new(s.try_clone().unwrap());
                let mut len = 0;
                let mut line = String::new();
                loop {
                    line.clear();
                    if r.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    if line.trim().is_empty() {
                        break;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        len = v.trim().parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0; len];
                let _ = r.read_exact(&mut body);
                let n = c.fetch_add(1, Ordering::SeqCst);
                let reply = serde_json::json!({
                    "choices": [{"message": {"role": "assistant", "content": format!("{}", 1000 + n)}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 100, "completion_tokens": 3}
                })
                .to_string();
                let _ = write!(
                    s,
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
                    reply.len()
                );
            });
        }
    });
    (base, count)
}

#[test]
fn llm_run_writes_log_record_and_resumes() {
    let (base, count) = fake_server();
    let dir = std::env::temp_dir().join(format!("wmlab-llm-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    let args = [
        "llm",
        "run",
        "--suite",
        "lrt",
        "--lines",
        "20,40",
        "--tests",
        "3",
        "--limit",
        "5",
        "--provider",
        "openai",
        "--base-url",
        &base,
        "--model",
        "fake",
        "--out",
        d,
        "-q",
        "--price-in",
        "1",
        "--price-out",
        "2",
    ];
    let out = wmlab().args(args).env("OPENAI_API_KEY", "sk-cli-TOPSECRET-123").output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("first_integer"), "{stdout}");
    assert!(stdout.contains("lrt-ordered | lines=20"), "{stdout}");
    assert!(stdout.contains("estimated cost"), "{stdout}");
    assert_eq!(count.load(Ordering::SeqCst), 5);
    let log = std::fs::read_to_string(dir.join("log.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 6, "meta + 5 outcomes");
    for f in ["log.jsonl", "record.json", "record.csv"] {
        assert!(!std::fs::read_to_string(dir.join(f)).unwrap().contains("TOPSECRET"), "key in {f}");
    }
    let rec = wmlab_core::record::ResultRecord::from_json(&std::fs::read_to_string(dir.join("record.json")).unwrap())
        .unwrap();
    assert_eq!(rec.trials.len(), 5);
    assert!(matches!(rec.subject, wmlab_core::record::Subject::Llm { .. }));

    // simulate a crash mid-write of the last line, then resume with a bigger limit
    let mut cut: Vec<&str> = log.lines().collect();
    let last = cut.pop().unwrap();
    let text = format!("{}\n{}", cut.join("\n"), &last[..last.len() / 2]);
    std::fs::write(dir.join("log.jsonl"), text).unwrap();
    let mut more = args.to_vec();
    more[9] = "6";
    let out = wmlab().args(&more).env("OPENAI_API_KEY", "sk-cli-TOPSECRET-123").output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("unreadable line"), "{err}");
    assert_eq!(count.load(Ordering::SeqCst), 7, "the cut sample and the new one");
    assert!(err.contains("6 of 6 samples done (4 resumed"), "{err}");

    // another model in the same OUT is refused
    let mut other = args.to_vec();
    other[15] = "other-model";
    let out = wmlab().args(&other).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("another run"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn llm_run_asks_for_a_key_for_remote_providers() {
    let out = wmlab()
        .args([
            "llm",
            "run",
            "--suite",
            "lrt",
            "--lines",
            "20",
            "--limit",
            "1",
            "--provider",
            "anthropic",
            "--model",
            "m",
            "--out",
        ])
        .arg(std::env::temp_dir().join("wmlab-llm-nokey"))
        .env_remove("ANTHROPIC_API_KEY")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("ANTHROPIC_API_KEY"), "{err}");
}

/// `wmlab llm run ARGS` against the fake server at `base`, into `dir`.
fn run_fake(base: &str, dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    wmlab()
        .args(["llm", "run"])
        .args(args)
        .args(["--provider", "openai", "--base-url", base, "--model", "fake", "-q", "--out"])
        .arg(dir)
        .output()
        .unwrap()
}

/// The outcome lines of a run's log.
fn logged_outcomes(dir: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("log.jsonl"))
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["type"] == "outcome")
        .collect()
}

/// LRT's orders, block sizes and insertion from the command line: ordered off, B = 1 and 10 side by
/// side (each its own task), the published code's insertion; bad block sizes are refused in words.
#[test]
fn llm_run_lrt_block_sizes_and_insertion() {
    let (base, count) = fake_server();
    let dir = std::env::temp_dir().join(format!("wmlab-llm-cli-blocks-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let lrt = ["--suite", "lrt", "--lines", "30"];
    let out = run_fake(
        &base,
        &dir,
        &[&lrt[..], &["--tests", "2", "--ordered", "false", "--shuffle-blocks", "1,10", "--insertion", "reference"]]
            .concat(),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(count.load(Ordering::SeqCst), 4, "2 tests × 2 block sizes");
    let tasks: std::collections::BTreeSet<String> =
        logged_outcomes(&dir).iter().filter_map(|v| v["task"].as_str().map(String::from)).collect();
    assert_eq!(tasks.into_iter().collect::<Vec<_>>(), vec!["lrt-shuffled", "lrt-shuffled_b10"]);
    for (flag, value, words) in
        [("--shuffle-blocks", "0", "block sizes of 1 or more"), ("--insertion", "middle", "uniform")]
    {
        let out = run_fake(&base, &dir, &[&lrt[..], &[flag, value]].concat());
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(words), "{flag} {value}: {err}");
    }
}

/// N-back blocks from the generator: any N, the variant's published shape, named by their seed.
#[test]
fn llm_run_nback_new_blocks() {
    let (base, _count) = fake_server();
    let dir = std::env::temp_dir().join(format!("wmlab-llm-cli-newblocks-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let args =
        ["--suite", "nback", "--variant", "letters", "--n", "4", "--new-blocks", "2", "--seed", "7", "--limit", "1"];
    let out = run_fake(&base, &dir, &args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let outcomes = logged_outcomes(&dir);
    let outcome = outcomes.first().expect("one outcome");
    assert_eq!(outcome["task"], "letters_gen7-4back");
    assert_eq!(outcome["targets"].as_str().unwrap().len(), 24);
    assert_eq!(outcome["targets"].as_str().unwrap().matches('m').count(), 8);
    let out = run_fake(&base, &dir, &["--suite", "nback", "--n", "4"]);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("no published blocks for N = 4"));
}

/// A fake model that does the N-back right up to 2-back and answers "-" at 3-back and above: it reads
/// N from the instruction ("a 3-back task") and the letters from the user turns.
fn two_back_server() -> (String, Arc<AtomicUsize>) {
    let count = Arc::new(AtomicUsize::new(0));
    let c = count.clone();
    let base = common::serve(move |req, conn| {
        c.fetch_add(1, Ordering::SeqCst);
        let v: serde_json::Value = serde_json::from_str(&req.body).unwrap_or_default();
        let msgs = v["messages"].as_array().cloned().unwrap_or_default();
        let text = |m: &serde_json::Value| m["content"].as_str().unwrap_or("").to_string();
        let n: usize = msgs
            .first()
            .map(text)
            .and_then(|t| t.split("-back task").next().and_then(|h| h.chars().last()).and_then(|d| d.to_digit(10)))
            .unwrap_or(1) as usize;
        let letters: Vec<String> =
            msgs.iter().skip(1).filter(|m| m["role"] == "user").map(text).map(|t| t.trim().to_string()).collect();
        let k = letters.len();
        let answer = if n <= 2 && k > n && letters[k - 1] == letters[k - 1 - n] { "m" } else { "-" };
        let body = serde_json::json!({
            "choices": [{"message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 1}
        });
        common::write_json(conn, 200, &[], &body.to_string());
    }) + "/v1";
    (base, count)
}

/// `--suite nback --adaptive`: N by a staircase, one block per step; a model that manages 2-back but not
/// 3-back settles between 2 and 3 (up after a block passed, down after one failed); the record keeps
/// the run and its blocks; a rerun resumes without sending anything.
#[test]
fn llm_run_nback_adaptive_settles_on_the_models_n() {
    let (base, count) = two_back_server();
    let dir = std::env::temp_dir().join(format!("wmlab-llm-cli-nback-adaptive-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let args = ["--suite", "nback", "--variant", "letters", "--adaptive"];
    let out = run_fake(&base, &dir, &args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{err}");
    assert!(err.contains("letters: N at 50 % of blocks passed (≥ 80 % right)"), "{err}");
    let rec = wmlab_core::record::ResultRecord::from_json(&std::fs::read_to_string(dir.join("record.json")).unwrap())
        .unwrap();
    let runs = wmlab_core::adaptive::results_of(&rec);
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    let levels: Vec<u32> = run.track.iter().map(|s| s.level).collect();
    assert_eq!(&levels[..4], [1, 2, 3, 2], "up, up, down after 3-back failed, …");
    assert!(run.track.iter().all(|s| s.correct == (s.level <= 2)), "{:?}", run.track);
    let e = run.estimate.unwrap();
    assert!((2.0..=3.0).contains(&e.level), "{e:?}");
    let tasks: Vec<String> =
        logged_outcomes(&dir).iter().map(|o| o["task"].as_str().unwrap_or("").to_string()).collect();
    assert_eq!(tasks.len(), run.track.len());
    assert_eq!(tasks[2], "letters-3back");
    let before = count.load(Ordering::SeqCst);
    let again = run_fake(&base, &dir, &args);
    assert!(again.status.success());
    assert_eq!(count.load(Ordering::SeqCst), before, "resumed from the log");
    let out = run_fake(&base, &dir.join("lrt"), &["--suite", "lrt", "--adaptive"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--suite worm-vision or --suite nback"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Several models in one run: `--model a,b` with a concurrency each runs both side by side on the same
/// items, one sub-folder per model with its own log and record, and `models.json` naming them; a rerun
/// resumes both; a concurrency list that fits neither one value nor one per model is refused.
#[test]
fn llm_run_several_models_side_by_side() {
    let (base, count) = fake_server();
    let dir = std::env::temp_dir().join(format!("wmlab-llm-cli-models-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let args = |models: &str, conc: &str| {
        let mut c = wmlab();
        c.args([
            "llm",
            "run",
            "--suite",
            "lrt",
            "--lines",
            "20",
            "--tests",
            "2",
            "--limit",
            "3",
            "--provider",
            "openai",
        ])
        .args(["--base-url", &base, "--model", models, "--concurrency", conc, "-q", "--out"])
        .arg(&dir);
        c.output().unwrap()
    };
    let out = args("fake-a,org/fake b", "1,2");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(count.load(Ordering::SeqCst), 6, "3 samples for each model");
    let listed: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("models.json")).unwrap()).unwrap();
    assert_eq!(listed["suite"], "lrt");
    assert_eq!(listed["models"][1]["folder"], "org_fake_b");
    assert_eq!(listed["models"][1]["concurrency"], 2);
    let mut prompts = Vec::new();
    for (folder, model) in [("fake-a", "fake-a"), ("org_fake_b", "org/fake b")] {
        let rec = wmlab_core::record::ResultRecord::from_json(
            &std::fs::read_to_string(dir.join(folder).join("record.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(rec.trials.len(), 3);
        let wmlab_core::record::Subject::Llm { model: m, .. } = &rec.subject else { panic!("an LLM record") };
        assert_eq!(m, model);
        let mut items: Vec<(String, String)> = logged_outcomes(&dir.join(folder))
            .iter()
            .map(|o| (o["sample_id"].as_str().unwrap().to_string(), o["messages"].to_string()))
            .collect();
        items.sort();
        assert!(items.len() == 3 && items.iter().all(|(id, m)| !id.is_empty() && m.len() > 100), "{items:?}");
        prompts.push(items);
    }
    assert_eq!(prompts[0], prompts[1], "both models got the same items");
    let again = args("fake-a,org/fake b", "1,2");
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    assert_eq!(count.load(Ordering::SeqCst), 6, "a rerun resumes both: nothing sent twice");
    // The run's folder stands for every model's record on Compare (here the N-back, which it draws).
    let nb = dir.join("nback");
    let out = wmlab()
        .args(["llm", "run", "--suite", "nback", "--variant", "letters", "--n", "1", "--limit", "1"])
        .args(["--provider", "openai", "--base-url", &base, "--model", "m-a,m-b", "-q", "--out"])
        .arg(&nb)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let cmp = wmlab().arg("compare").arg(&nb).arg("--out").arg(dir.join("cmp")).output().unwrap();
    assert!(cmp.status.success(), "{}", String::from_utf8_lossy(&cmp.stderr));
    let drawn: serde_json::Value = serde_json::from_slice(&cmp.stdout).unwrap();
    assert_eq!(drawn["runs"].as_array().map(Vec::len), Some(2), "{drawn}");
    let bad = args("fake-a,fake-b,fake-c", "1,2");
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("3 models"), "{}", String::from_utf8_lossy(&bad.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--batch`: an LRT run goes out as one OpenAI batch (a JSONL file, then `POST /batches`), is looked at
/// until it ends and is scored from its output file, with no ordinary request; the log names the batch
/// on each outcome. Dialogue suites are refused in words.
#[test]
fn llm_run_batch_sends_one_batch_and_scores_its_replies() {
    use std::sync::Mutex;
    let state = Arc::new(Mutex::new((Vec::<String>::new(), 0usize, Vec::<String>::new())));
    let st = state.clone();
    let root = common::serve(move |req, s| {
        let mut st = st.lock().unwrap();
        let path = req.path().to_string();
        st.2.push(path.clone());
        let ok = |s: &mut std::net::TcpStream, v: serde_json::Value| common::write_json(s, 200, &[], &v.to_string());
        match path.as_str() {
            "/v1/files" => {
                st.0 = req.body.lines().filter(|l| l.starts_with('{')).map(String::from).collect();
                ok(s, serde_json::json!({"id": "file-in"}));
            }
            "/v1/batches" => ok(s, serde_json::json!({"id": "batch_1", "status": "validating"})),
            "/v1/batches/batch_1" => {
                st.1 += 1;
                let status = if st.1 < 2 { "in_progress" } else { "completed" };
                ok(s, serde_json::json!({"id": "batch_1", "status": status, "output_file_id": "file-out"}));
            }
            "/v1/files/file-out/content" => {
                let lines: String = st
                    .0
                    .iter()
                    .map(|l| {
                        let v: serde_json::Value = serde_json::from_str(l).unwrap();
                        let body = serde_json::json!({
                            "choices": [{"message": {"role": "assistant", "content": "7"}, "finish_reason": "stop"}],
                            "usage": {"prompt_tokens": 50, "completion_tokens": 1}
                        });
                        serde_json::json!({"custom_id": v["custom_id"], "response": {"status_code": 200, "body": body}})
                            .to_string()
                            + "\n"
                    })
                    .collect();
                common::write_json(s, 200, &[], &lines);
            }
            _ => common::write_json(s, 404, &[], "{}"),
        }
    });
    let base = format!("{root}/v1");
    let dir = std::env::temp_dir().join(format!("wmlab-llm-cli-batch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let args = ["--suite", "lrt", "--lines", "20", "--tests", "3", "--batch", "--batch-poll", "0.01"];
    let out = run_fake(&base, &dir, &args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let st = state.lock().unwrap();
    let n = st.0.len();
    assert!(n >= 3, "every item in one file: {n}");
    assert!(!st.2.iter().any(|p| p.contains("chat/completions")), "no ordinary request: {:?}", st.2);
    let outcomes = logged_outcomes(&dir);
    assert_eq!(outcomes.len(), n);
    assert!(outcomes.iter().all(|o| o["batch"] == "batch_1" && o["reply"] == "7"), "{outcomes:?}");
    let log = std::fs::read_to_string(dir.join("log.jsonl")).unwrap();
    assert_eq!(log.lines().filter(|l| l.contains("\"type\":\"batch\"")).count(), 1);
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("record.json")).unwrap()).unwrap();
    assert_eq!(record["config"]["settings"]["batch_answered"], n as u64, "{}", record["config"]["settings"]);
    drop(st);
    let out = run_fake(&base, &dir.join("nback"), &["--suite", "nback", "--batch"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("dialogues"), "{}", String::from_utf8_lossy(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 71: a `Retry-After: 100000` wait was silent when stderr is not a terminal (a log, CI), and
/// waits of 300 s were allowed six times by default. Each wait is now a line of stderr, the cap (60 s
/// by default, here 0.05 s) and what the provider asked for in it.
#[test]
fn a_long_retry_after_is_said_on_stderr_without_a_terminal() {
    let calls = Arc::new(AtomicUsize::new(0));
    let c = calls.clone();
    let base = common::serve(move |_req, s| {
        if c.fetch_add(1, Ordering::SeqCst) == 0 {
            let h = [("Retry-After".to_string(), "100000".to_string())];
            common::write_json(s, 429, &h, r#"{"error":{"message":"slow down"}}"#);
        } else {
            let body = serde_json::json!({"choices": [{"message": {"role": "assistant", "content": "The value is 7."},
                "finish_reason": "stop"}], "usage": {"prompt_tokens": 5, "completion_tokens": 3}});
            common::write_json(s, 200, &[], &body.to_string());
        }
    });
    let dir = std::env::temp_dir().join(format!("wmlab-llm-wait-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let base = format!("{base}/v1");
    let args =
        ["llm", "run", "--suite", "lrt", "--lines", "20", "--tests", "1", "--limit", "1", "--provider", "openai"];
    let out = wmlab()
        .args(args)
        .args(["--base-url", &base, "--model", "fake", "--max-wait", "0.05", "--out", dir.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("wmlab: waiting 1 s for the provider's rate limit (it asked for 100000 s), retry 1 of"),
        "{err}"
    );
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    std::fs::remove_dir_all(&dir).ok();
}

/// The same LRT run from the CLI and from the LLM page writes the same settings, key for key: both
/// fill one `LlmRun` (issue 70). The expected settings are a fixture the browser test reads too.
#[test]
fn llm_run_settings_are_the_pages() {
    let fixture: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/lrt-run-settings.json"))
            .unwrap(),
    )
    .unwrap();
    let args: Vec<&str> = fixture["cli"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    let (base, _) = fake_server();
    let dir = std::env::temp_dir().join(format!("wmlab-llm-cli-settings-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = run_fake(&base, &dir, &args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("record.json")).unwrap()).unwrap();
    let settings = rec["config"]["settings"].as_object().unwrap();
    let want = fixture["run_settings"].as_object().unwrap();
    for (k, v) in want {
        assert_eq!(settings.get(k), Some(v), "{k}");
    }
    let other: Vec<&str> = fixture["other_keys"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    for k in settings.keys() {
        assert!(want.contains_key(k) || other.contains(&k.as_str()), "a setting the page does not write: {k}");
    }
    assert_eq!(settings["samples"], 4, "2 items × 2 repeats");
    let _ = std::fs::remove_dir_all(&dir);
}

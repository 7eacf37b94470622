//! `wmlab llm run` against a real model: the local llama-cpp-python server with SmolLM2-135M
//! (scripts/dev/llm-server.sh), at WMLAB_LLM_URL (e.g. http://127.0.0.1:18080/v1; scripts/dev/test.sh sets it).
//! Without it the tests fail with a message saying how to start the server. The 135M model is weak: the test checks the shape of
//! what comes back (outcomes, non-empty replies or classified errors, numeric scores, a valid
//! record), not its intelligence. It also prints requests/s at concurrency 1 and 4.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use wmlab_core::analysis::dashboard::parse_csv;
use wmlab_core::llm::{Message, Metric, Reference, Sample, SampleBody, Single, Suite};
use wmlab_core::record::ResultRecord;
use wmlab_llm::native::{StdClock, UreqTransport, block_on};
use wmlab_llm::{Control, NoCache, ProviderConfig, ProviderKind, RunLog, RunOptions, Runner, Secret};

/// The server under test. `scripts/dev/test.sh` starts it and sets WMLAB_LLM_URL; without it these tests
/// fail (they are real tests, never silently skipped).
fn server() -> (String, String) {
    let u = std::env::var("WMLAB_LLM_URL").unwrap_or_default();
    assert!(
        !u.trim().is_empty(),
        "WMLAB_LLM_URL is not set: start ./scripts/dev/llm-server.sh and export WMLAB_LLM_URL=http://127.0.0.1:18080/v1 \
         (scripts/dev/test.sh does both)"
    );
    let model = std::env::var("WMLAB_LLM_MODEL").unwrap_or_else(|_| "smollm2".into());
    (u.trim().trim_end_matches('/').to_string(), model)
}

fn out_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wmlab-llm-real-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn wmlab(args: &[&str]) -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_wmlab")).args(args).output().expect("wmlab runs");
    let (so, se) =
        (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned());
    assert!(out.status.success(), "wmlab {args:?} failed:\n{so}\n{se}");
    (so, se)
}

fn outcomes(dir: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(dir.join("log.jsonl")).unwrap();
    text.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("every log line is JSON"))
        .filter(|v| v["type"] == "outcome")
        .collect()
}

/// Run a suite slice, check the shape, rerun (must resume: nothing new), return the outcomes.
fn run_suite(url: &str, model: &str, name: &str, extra: &[&str], expected: usize) -> Vec<serde_json::Value> {
    let dir = out_dir(name);
    let d = dir.to_str().unwrap();
    let mut args = vec!["llm", "run", "--provider", "openai", "--base-url", url, "--model", model, "--out", d, "-q"];
    args.extend_from_slice(extra);
    let t0 = Instant::now();
    let (table, _) = wmlab(&args);
    println!("--- {name} ({:.1} s)\n{table}", t0.elapsed().as_secs_f64());
    let got = outcomes(&dir);
    assert_eq!(got.len(), expected, "{name}: one outcome per sample");
    for o in &got {
        match o.get("error") {
            Some(e) => {
                let kind = e["kind"].as_str().unwrap_or("");
                assert!(
                    !kind.is_empty() && e["message"].as_str().is_some_and(|m| !m.is_empty()),
                    "{name}: unclassified error {e}"
                );
            }
            None => {
                let dialogue = o.get("targets").is_some();
                if let Some(row) = o.get("row") {
                    // the visual suite: the people's row, one correct flag per target
                    let n = row["targets"].as_array().unwrap().len();
                    assert!(n > 0 && row["correct"].as_array().unwrap().len() == n, "{name}: {row}");
                } else if dialogue {
                    let answers = o["answers"].as_str().unwrap();
                    assert_eq!(answers.len(), o["targets"].as_str().unwrap().len());
                    assert!(
                        o["trials"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .all(|t| t["prefilled"] == true || t["replies"].as_array().is_some_and(|r| !r.is_empty()))
                    );
                } else if o["suite"] == "latent" && o.get("answers").is_some() {
                    // a Yes-No Deduction: one y / n / ? per question asked
                    let answers = o["answers"].as_str().unwrap();
                    assert!(!answers.is_empty() && answers.chars().all(|c| "yn?".contains(c)), "{name}: {o}");
                } else {
                    assert!(o["reply"].is_string(), "{name}: reply missing in {o}");
                }
                let scores = o["scores"].as_object().unwrap();
                assert!(!scores.is_empty(), "{name}: no scores");
                assert!(scores.values().all(|v| v.as_f64().is_some_and(f64::is_finite)), "{name}: {scores:?}");
                assert!(o["requests"].as_u64().unwrap() >= 1);
            }
        }
    }
    let rec = ResultRecord::from_json(&std::fs::read_to_string(dir.join("record.json")).unwrap())
        .expect("record.json parses");
    assert_eq!(rec.trials.len(), expected);
    // a header and one record per trial (a model's reply may hold line breaks, quoted in its field)
    let csv = parse_csv(&std::fs::read_to_string(dir.join("record.csv")).unwrap()).expect("record.csv parses");
    assert_eq!(csv.len(), expected + 1, "{name}: record.csv");
    // rerun: everything is resumed, nothing is sent or logged again
    let lines_before = std::fs::read_to_string(dir.join("log.jsonl")).unwrap().lines().count();
    let (_, err) = wmlab(&args);
    assert!(err.contains(&format!("({expected} resumed")), "{name}: rerun did not resume: {err}");
    assert_eq!(std::fs::read_to_string(dir.join("log.jsonl")).unwrap().lines().count(), lines_before);
    let _ = std::fs::remove_dir_all(&dir);
    got
}

#[test]
fn suites_against_the_local_model() {
    let (url, model) = server();
    // N-back: one block, N = 1, letters_30, README protocol (6 pre-filled trials, one retry).
    let nb = run_suite(
        &url,
        &model,
        "nback",
        &[
            "--suite",
            "nback",
            "--variant",
            "letters_30",
            "--protocol",
            "readme",
            "--n",
            "1",
            "--limit",
            "1",
            "--max-tokens",
            "8",
        ],
        1,
    );
    if nb[0].get("error").is_none() {
        assert_eq!(nb[0]["answers"].as_str().unwrap().len(), 30);
    }
    // N-back without the visible history (issue 69): the model keeps only its own note, at most 16
    // tokens; every request is the instructions, that note and the current letter.
    let dir = out_dir("nback-note");
    let d = dir.to_str().unwrap();
    let args = [
        "llm",
        "run",
        "--provider",
        "openai",
        "--base-url",
        &url,
        "--model",
        &model,
        "--out",
        d,
        "-q",
        "--suite",
        "nback",
        "--variant",
        "letters",
        "--n",
        "2",
        "--limit",
        "1",
        "--max-tokens",
        "24",
        "--history",
        "note",
        "--note-tokens",
        "16",
    ];
    wmlab(&args);
    let got = outcomes(&dir);
    assert_eq!(got.len(), 1);
    let o = &got[0];
    assert_eq!(o["sample_id"], "nback/letters_note16-2back/0", "{o}");
    if o.get("error").is_none() {
        let trials = o["trials"].as_array().unwrap();
        assert_eq!(trials.len(), 24);
        for t in trials {
            let note = t["note"].as_str().unwrap_or_else(|| panic!("a trial without its note: {t}"));
            assert!(wmlab_core::llm::nback::note_tokens(note) <= 16, "{note:?}");
        }
    }
    let rec = ResultRecord::from_json(&std::fs::read_to_string(dir.join("record.json")).unwrap()).unwrap();
    assert_eq!(rec.config.settings.get("nback_history"), Some(&wmlab_core::record::Setting::Text("note16".into())));
    assert!(rec.trials.iter().all(|r| r.conditions.other.get("history").map(String::as_str) == Some("note16")));
    let _ = std::fs::remove_dir_all(&dir);
    // LRT: two items of 20 lines.
    run_suite(
        &url,
        &model,
        "lrt",
        &["--suite", "lrt", "--lines", "20", "--tests", "2", "--limit", "2", "--max-tokens", "16"],
        2,
    );
    // Repeats (issue 69): two LRT items asked twice each, sampled at temperature 0.8: each repeat its own
    // request, the summary over the two items' means, with the spread across repeats beside it.
    let rep = run_suite(
        &url,
        &model,
        "lrt-repeats",
        &[
            "--suite",
            "lrt",
            "--lines",
            "20",
            "--tests",
            "2",
            "--limit",
            "2",
            "--max-tokens",
            "16",
            "--temperature",
            "0.8",
            "--repeats",
            "2",
            "--cache",
            out_dir("lrt-repeats-cache").join("cache.jsonl").to_str().unwrap(),
        ],
        4,
    );
    let mut ids: Vec<(&str, u64)> =
        rep.iter().map(|o| (o["sample_id"].as_str().unwrap(), o["epoch"].as_u64().unwrap_or(1))).collect();
    ids.sort();
    assert_eq!(ids.iter().filter(|(id, e)| *e == 2 && id.ends_with("@r2")).count(), 2, "{ids:?}");
    assert_eq!(ids.iter().filter(|(id, e)| *e == 1 && !id.contains("@r")).count(), 2, "{ids:?}");
    assert!(rep.iter().all(|o| o["cache_hits"].as_u64().unwrap_or(0) == 0), "a repeat read another's cached reply");
    let dir = out_dir("lrt-repeats-record");
    let d = dir.to_str().unwrap();
    wmlab(&[
        "llm",
        "run",
        "--provider",
        "openai",
        "--base-url",
        &url,
        "--model",
        &model,
        "--out",
        d,
        "-q",
        "--suite",
        "lrt",
        "--lines",
        "20",
        "--tests",
        "2",
        "--shuffle-blocks",
        "none",
        "--max-tokens",
        "16",
        "--repeats",
        "3",
    ]);
    let rec = ResultRecord::from_json(&std::fs::read_to_string(dir.join("record.json")).unwrap()).unwrap();
    assert_eq!(rec.trials.len(), 6);
    assert_eq!(rec.config.settings.get("repeats"), Some(&wmlab_core::record::Setting::Int(3)));
    let all = rec.summaries.iter().find(|s| s.metric == "first_integer" && s.conditions == Default::default());
    let failed = outcomes(&dir).iter().filter(|o| o.get("error").is_some()).count();
    if failed == 0 {
        let all = all.expect("a first_integer summary");
        assert_eq!(all.n, 2, "n counts items, not repeats: {all:?}");
        let sd = rec.summaries.iter().find(|s| s.metric == "first_integer_repeat_sd" && s.conditions == all.conditions);
        assert_eq!(sd.expect("the spread over repeats").n, 2);
    }
    let _ = std::fs::remove_dir_all(&dir);
    // PI-LLM (issue 69): three keys, 2 and 4 updates each, one stream a level; each reply read by key.
    let pi = run_suite(
        &url,
        &model,
        "pi-llm",
        &["--suite", "pi-llm", "--keys", "3", "--updates", "2,4", "--sessions", "1", "--max-tokens", "96"],
        2,
    );
    let mut ids: Vec<&str> = pi.iter().map(|o| o["sample_id"].as_str().unwrap()).collect();
    ids.sort();
    assert_eq!(ids, ["pi-llm/k3-u2/0", "pi-llm/k3-u4/0"]);
    for o in pi.iter().filter(|o| o.get("error").is_none()) {
        let v = o["scores"]["last_values"].as_f64().unwrap();
        assert!([0.0, 1.0 / 3.0, 2.0 / 3.0, 1.0].iter().any(|x| (x - v).abs() < 1e-9), "{v}");
        let prompt = o["messages"][0]["content"].as_str().unwrap();
        assert!(prompt.starts_with("As my secretary") && prompt.contains("The current value of <key> is <value>."));
    }
    // The latent-state tasks (issue 69): "is it k?" for k = 1..3 in separate conversations, one Yes-No
    // Deduction of at most 4 questions in one conversation, one Math Magic trick.
    let lat = run_suite(
        &url,
        &model,
        "latent",
        &["--suite", "latent", "--range", "3", "--trials", "1", "--questions", "4", "--max-tokens", "24"],
        5,
    );
    let by_id = |id: &str| lat.iter().find(|o| o["sample_id"] == id).unwrap_or_else(|| panic!("{id} missing"));
    for k in 1..=3 {
        let o = by_id(&format!("latent/number-guessing-n3/k{k}"));
        if o.get("error").is_none() {
            assert!([0.0, 1.0].contains(&o["scores"]["says_yes"].as_f64().unwrap()), "{o}");
        }
    }
    let d = by_id("latent/yes-no/0");
    if d.get("error").is_none() {
        let asked = d["answers"].as_str().unwrap().len();
        assert!((1..=4).contains(&asked), "{d}");
        assert_eq!(d["requests"].as_u64().unwrap() as usize, asked, "one request per question");
        assert!(d["scores"]["consistent_answers"].as_f64().unwrap() <= asked as f64);
        assert!(d["answer"].as_str().unwrap().contains("contradiction"), "{d}");
    }
    let m = by_id("latent/math-magic/0");
    if m.get("error").is_none() {
        assert!([0.0, 1.0].contains(&m["scores"]["same_number"].as_f64().unwrap()), "{m}");
    }
    // Minerva snapshot: three entries (4k-token prompts exceed the 2048 context: classified errors are fine).
    let ms = run_suite(
        &url,
        &model,
        "minerva-snapshot",
        &["--suite", "minerva-snapshot", "--limit", "3", "--max-tokens", "64", "--retries", "1"],
        3,
    );
    for o in &ms {
        if let Some(e) = o.get("error") {
            assert_eq!(e["kind"], "context_too_long", "{e}");
        }
    }
    // Minerva generator: two short items.
    run_suite(
        &url,
        &model,
        "minerva",
        &[
            "--suite",
            "minerva",
            "--tasks",
            "string_search_word",
            "--context-tokens",
            "300",
            "--samples-per-cell",
            "1",
            "--limit",
            "2",
            "--max-tokens",
            "16",
        ],
        2,
    );
    // A steps sweep (Fig. 6) in one run: quantity_state at 3 and 6 steps, one sample each, each with its
    // point in its id and conditions.
    let swept = run_suite(
        &url,
        &model,
        "minerva-steps",
        &[
            "--suite",
            "minerva",
            "--tasks",
            "quantity_state",
            "--steps",
            "3,6",
            "--samples-per-cell",
            "1",
            "--max-tokens",
            "16",
        ],
        2,
    );
    let mut points: Vec<(String, String)> = swept
        .iter()
        .map(|o| (o["sample_id"].as_str().unwrap().to_string(), o["conditions"]["step"].as_str().unwrap().to_string()))
        .collect();
    points.sort();
    assert_eq!(
        points,
        [("minerva/quantity_state@steps=3/0", "3"), ("minerva/quantity_state@steps=6/0", "6")]
            .map(|(a, b)| (a.to_string(), b.to_string()))
    );
}

/// The visual suite's text rendering (the 135M model reads no images): two WorM trials as character
/// grids, scored as people are, resumed on a rerun; the same folder refuses an image run of it.
#[test]
fn visual_suite_as_text_against_the_local_model() {
    let (url, model) = server();
    let args = [
        "--suite",
        "worm-vision",
        "--render",
        "text",
        "--text-cols",
        "12",
        "--tasks",
        "CD-Color,VIR",
        "--trials",
        "1",
        "--concurrency",
        "1",
    ];
    let got = run_suite(&url, &model, "vision-keep", &args, 2);
    assert!(got.iter().all(|o| o["suite"] == "vision"));
    // run again into a folder, then ask for images there: refused before anything is sent
    let dir = out_dir("vision-render");
    let d = dir.to_str().unwrap();
    let mut a = vec!["llm", "run", "--provider", "openai", "--base-url", &url, "--model", &model, "--out", d, "-q"];
    a.extend_from_slice(&args);
    a.extend_from_slice(&["--limit", "1"]);
    wmlab(&a);
    let rec = ResultRecord::from_json(&std::fs::read_to_string(dir.join("record.json")).unwrap()).unwrap();
    assert_eq!(rec.task, "CD-Color+VIR");
    assert!(rec.summaries.iter().any(|s| s.task == "CD-Color" && s.metric == "accuracy"));
    let i = a.iter().position(|x| *x == "text").unwrap();
    a[i] = "image";
    let out = Command::new(env!("CARGO_BIN_EXE_wmlab")).args(&a).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("belongs to another run"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn requests_per_second_at_concurrency_1_and_4() {
    let (url, model) = server();
    let transport = UreqTransport::new();
    let clock = StdClock::new();
    let mut provider = ProviderConfig::new(ProviderKind::OpenAi, &url, &model);
    provider.max_tokens = Some(4);
    for (round, concurrency) in [1usize, 4].into_iter().enumerate() {
        let samples: Vec<Sample> = (0..12)
            .map(|i| Sample {
                id: format!("rps/{round}/{i}"),
                suite: Suite::Lrt,
                task: "rps".into(),
                conditions: Default::default(),
                epoch: 1,
                body: SampleBody::Single(Single {
                    messages: vec![Message::user(format!("Reply with the number {}.", 100 * round + i))],
                    reference: Reference::Int(i as i64),
                    metrics: vec![Metric::FirstInteger],
                }),
            })
            .collect();
        let options = RunOptions { concurrency, timeout_ms: 60_000, ..Default::default() };
        let runner = Runner::new(&transport, &clock, &NoCache, provider.clone(), Secret::none(), options);
        let t0 = Instant::now();
        let res = block_on(runner.run(&samples, &RunLog::default(), &Control::new(), &mut |_| {}, &mut |_| {}));
        let secs = t0.elapsed().as_secs_f64();
        let ok = res.outcomes.iter().filter(|o| o.error.is_none()).count();
        assert_eq!(ok, samples.len(), "{:?}", res.outcomes.iter().find_map(|o| o.error.clone()));
        let lat: f64 = res.outcomes.iter().map(|o| o.latency_ms).sum::<f64>() / ok as f64;
        println!(
            "llm_real: concurrency {concurrency}: {} requests in {secs:.2} s = {:.2} requests/s (mean latency {lat:.0} ms, {} tokens out)",
            samples.len(),
            samples.len() as f64 / secs,
            res.progress.tokens_out
        );
    }
}

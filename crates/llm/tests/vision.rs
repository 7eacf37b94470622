//! The visual suite over real sockets against a checking server: for each provider's wire format the
//! server finds every image part, decodes its base64 and its PNG and checks the size asked for, then
//! answers the question in the format it names (the first option, or the first label). The runs end in
//! result records scored by the people's code; a rerun from half the log sends only what is missing;
//! a server that refuses images fails the one-image probe with its own words.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use base64::Engine;
use serde_json::{Value, json};
use wmlab_core::llm::vision::{self, Render, VisionConfig};
use wmlab_core::png::decode_rgb;
use wmlab_llm::native::{StdClock, UreqTransport, block_on};
use wmlab_llm::record::to_vision_record;
use wmlab_llm::{Control, LogEntry, NoCache, ProviderConfig, ProviderKind, RunLog, RunOptions, Runner, Secret};

#[derive(Default)]
struct Seen {
    requests: AtomicUsize,
    images: AtomicUsize,
    /// Problems found in requests (an empty list = every request was well formed).
    problems: Mutex<Vec<String>>,
}

struct Server {
    base: String,
    seen: Arc<Seen>,
}

fn check_png(b64: &str, size: u32, seen: &Seen) -> Result<(), String> {
    let bytes = base64::engine::general_purpose::STANDARD.decode(b64).map_err(|e| format!("base64: {e}"))?;
    let (w, h, _) = decode_rgb(&bytes)?;
    if (w, h) != (size, size) {
        return Err(format!("image {w}×{h}, asked {size}"));
    }
    seen.images.fetch_add(1, Ordering::SeqCst);
    Ok(())
}

/// The texts and image check of one request in a provider's format; the last text is the question.
fn read_body(kind: &str, v: &Value, size: u32, seen: &Seen) -> Result<Vec<String>, String> {
    let mut texts = Vec::new();
    match kind {
        "openai" => {
            for m in v["messages"].as_array().ok_or("no messages")? {
                match &m["content"] {
                    Value::String(s) => texts.push(s.clone()),
                    Value::Array(parts) => {
                        for p in parts {
                            match p["type"].as_str() {
                                Some("text") => texts.push(p["text"].as_str().ok_or("text part")?.into()),
                                Some("image_url") => {
                                    let url = p["image_url"]["url"].as_str().ok_or("image_url.url")?;
                                    let b64 = url.strip_prefix("data:image/png;base64,").ok_or("not a PNG data URL")?;
                                    check_png(b64, size, seen)?;
                                }
                                other => return Err(format!("unknown part {other:?}")),
                            }
                        }
                    }
                    other => return Err(format!("content {other}")),
                }
            }
        }
        "anthropic" => {
            if v["max_tokens"].as_u64().is_none() {
                return Err("no max_tokens".into());
            }
            for m in v["messages"].as_array().ok_or("no messages")? {
                match &m["content"] {
                    Value::String(s) => texts.push(s.clone()),
                    Value::Array(blocks) => {
                        for b in blocks {
                            match b["type"].as_str() {
                                Some("text") => texts.push(b["text"].as_str().ok_or("text block")?.into()),
                                Some("image") => {
                                    let src = &b["source"];
                                    if src["type"] != "base64" || src["media_type"] != "image/png" {
                                        return Err(format!("image source {src}"));
                                    }
                                    check_png(src["data"].as_str().ok_or("data")?, size, seen)?;
                                }
                                other => return Err(format!("unknown block {other:?}")),
                            }
                        }
                    }
                    other => return Err(format!("content {other}")),
                }
            }
        }
        _ => {
            for c in v["contents"].as_array().ok_or("no contents")? {
                for p in c["parts"].as_array().ok_or("no parts")? {
                    if let Some(t) = p["text"].as_str() {
                        texts.push(t.into());
                    } else if let Some(d) = p.get("inline_data") {
                        if d["mime_type"] != "image/png" {
                            return Err(format!("inline_data {d}"));
                        }
                        check_png(d["data"].as_str().ok_or("data")?, size, seen)?;
                    } else {
                        return Err(format!("unknown part {p}"));
                    }
                }
            }
        }
    }
    Ok(texts)
}

fn reply(kind: &str, text: &str) -> String {
    match kind {
        "openai" => json!({"choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 1}}),
        "anthropic" => json!({"content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
            "usage": {"input_tokens": 100, "output_tokens": 1}}),
        _ => json!({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 1}}),
    }
    .to_string()
}

/// `refuse`: answer every request carrying an image with 400, as a text-only model's API does.
fn serve(size: u32, refuse: bool) -> Server {
    let seen = Arc::new(Seen::default());
    let st = seen.clone();
    let base = common::serve(move |req, conn| {
        let path = req.path().to_string();
        let kind = if path.ends_with("/chat/completions") {
            "openai"
        } else if path.ends_with("/v1/messages") {
            "anthropic"
        } else {
            "gemini"
        };
        st.requests.fetch_add(1, Ordering::SeqCst);
        let v: Value = serde_json::from_str(&req.body).unwrap_or_default();
        let problem = |p: String| st.problems.lock().unwrap().push(format!("{kind}: {p}"));
        if refuse && req.body.contains("base64") {
            let body = json!({"error": {"message": "image input is not supported by this model"}}).to_string();
            common::write_json(conn, 400, &[], &body);
            return;
        }
        // the probe is a 96 px picture whatever size the trials use
        let want = if req.body.contains("What colour is the square") { vision::MIN_SIZE } else { size };
        match read_body(kind, &v, want, &st) {
            Ok(texts) => {
                let q = texts.last().cloned().unwrap_or_default();
                common::write_json(conn, 200, &[], &reply(kind, &common::answer(&q)));
            }
            Err(e) => {
                problem(e.clone());
                common::write_json(conn, 400, &[], &json!({"error": {"message": e}}).to_string());
            }
        }
    });
    Server { base, seen }
}

fn options() -> RunOptions {
    RunOptions { concurrency: 2, max_retries: 0, timeout_ms: 20_000, seed: 3, keep_prompts: true, ..Default::default() }
}

fn config(size: u32) -> VisionConfig {
    let mut c =
        VisionConfig::new(VisionConfig::parse_tasks("VSR,CD-Color,VIR,SMU,nback-spatial").unwrap(), Render::Image);
    c.trials = 1;
    c.nback_ns = vec![1];
    c.size = size;
    c.seed = 9;
    c
}

fn base_for(kind: ProviderKind, s: &Server) -> String {
    match kind {
        ProviderKind::OpenAi => format!("{}/v1", s.base),
        ProviderKind::Anthropic => s.base.clone(),
        ProviderKind::Gemini => format!("{}/v1beta", s.base),
    }
}

#[test]
fn every_provider_carries_the_frames_as_images_and_the_run_is_scored_as_people_are() {
    for kind in ProviderKind::ALL {
        let size = 192;
        let s = serve(size, false);
        let cfg = config(size);
        let samples = vision::samples(&cfg).unwrap();
        let mut p = ProviderConfig::new(kind, base_for(kind, &s), "vision-model");
        p.paper_sampling = true;
        let (transport, clock) = (UreqTransport::new(), StdClock::new());
        let r = Runner::new(&transport, &clock, &NoCache, p.clone(), Secret::none(), options());
        let control = Control::new();
        assert_eq!(block_on(r.probe_images(&control)).unwrap(), "Red.", "{kind:?}");
        let mut lines = Vec::new();
        let res = block_on(r.run(
            &samples,
            &RunLog::default(),
            &control,
            &mut |e: &LogEntry| lines.push(e.to_line()),
            &mut |_| {},
        ));
        let problems = s.seen.problems.lock().unwrap().clone();
        assert!(problems.is_empty(), "{kind:?}: {problems:?}");
        assert!(
            res.outcomes.iter().all(|o| o.error.is_none()),
            "{kind:?}: {:?}",
            res.outcomes.iter().find_map(|o| o.error.clone())
        );
        // every frame of every trial went as an image at least once (the N-back block has 30 items)
        let frames: usize = samples
            .iter()
            .map(|x| match &x.body {
                wmlab_core::llm::SampleBody::Vision(d) => d.steps.len(),
                _ => 0,
            })
            .sum();
        assert!(s.seen.images.load(Ordering::SeqCst) >= frames, "{kind:?}");
        let rec = to_vision_record(&p, &options(), &cfg, &res.outcomes, None);
        rec.validate().unwrap();
        assert_eq!(rec.task, "VSR+CD-Color+VIR+SMU+nback-spatial");
        assert_eq!(rec.config.tasks.len(), 4, "the WorM tasks' parameters");
        for t in ["VSR", "CD-Color", "VIR", "SMU", "nback-spatial"] {
            assert!(rec.summaries.iter().any(|x| x.task == t && x.metric == "accuracy"), "{kind:?} {t}");
        }
        assert!(rec.summaries.iter().any(|x| x.task == "nback-spatial" && x.metric == "dprime"));
        // the server always names the first option: VSR's rows read option 0 for every position
        let vsr = rec.trials.iter().find(|t| t.task == "VSR").unwrap();
        assert!(vsr.responses.iter().all(|x| x == "0"), "{:?}", vsr.responses);
        assert_eq!(vsr.targets.len(), vsr.correct.len());
        // the log keeps the prompts without the image bytes
        let log = lines.join("\n");
        assert!(!log.contains("iVBORw0KGgo"), "a PNG's base64 in the log");
        assert!(log.contains("\"width\":192"));
    }
}

#[test]
fn a_rerun_from_half_the_log_sends_only_what_is_missing() {
    let s = serve(96, false);
    let cfg = config(96);
    let samples = vision::samples(&cfg).unwrap();
    let p = ProviderConfig::new(ProviderKind::OpenAi, base_for(ProviderKind::OpenAi, &s), "m");
    let (transport, clock) = (UreqTransport::new(), StdClock::new());
    let mut opts = options();
    opts.concurrency = 1;
    let r = Runner::new(&transport, &clock, &NoCache, p, Secret::none(), opts);
    let mut lines = Vec::new();
    let full = block_on(r.run(
        &samples,
        &RunLog::default(),
        &Control::new(),
        &mut |e: &LogEntry| lines.push(e.to_line()),
        &mut |_| {},
    ));
    let total = s.seen.requests.load(Ordering::SeqCst);
    assert!(total > 30);
    // keep the first half of the log (turns of finished and unfinished trials)
    let half = lines[..lines.len() / 2].join("\n");
    let kept_turns = RunLog::parse(&half).turns().values().map(|v| v.len()).sum::<usize>();
    let kept_outcomes = RunLog::parse(&half).outcomes().len();
    assert!(kept_turns > 0 && kept_outcomes > 0);
    let before = s.seen.requests.load(Ordering::SeqCst);
    let again = block_on(r.run(&samples, &RunLog::parse(&half), &Control::new(), &mut |_| {}, &mut |_| {}));
    let resent = s.seen.requests.load(Ordering::SeqCst) - before;
    // the finished trials' turns are not sent again, nor the logged turns of the unfinished one
    let finished_turns: usize = RunLog::parse(&half).outcomes().values().map(|o| o.requests as usize).sum();
    let logged_unfinished = kept_turns - finished_turns.min(kept_turns);
    assert_eq!(resent, total - finished_turns - logged_unfinished, "resent {resent} of {total}");
    let score =
        |rs: &wmlab_llm::RunResult| rs.outcomes.iter().map(|o| o.row.clone().unwrap().correct).collect::<Vec<_>>();
    assert_eq!(score(&again), score(&full), "the same answers, the same scores");
}

#[test]
fn a_model_that_refuses_images_fails_the_probe_in_the_providers_words() {
    let s = serve(96, true);
    let p = ProviderConfig::new(ProviderKind::OpenAi, base_for(ProviderKind::OpenAi, &s), "text-only");
    let (transport, clock) = (UreqTransport::new(), StdClock::new());
    let r = Runner::new(&transport, &clock, &NoCache, p, Secret::none(), options());
    let e = block_on(r.probe_images(&Control::new())).unwrap_err();
    assert!(e.message.contains("image input is not supported"), "{}", e.message);
}

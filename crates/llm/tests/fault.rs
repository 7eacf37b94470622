//! The runner against a fault injector: a hand-written HTTP/1.1 server on 127.0.0.1:0 that answers
//! from a script (429 with Retry-After, 500, a stalled reply, malformed JSON, success), counts
//! requests per sample and the connections open at once. Real sockets, the real native transport and
//! clock; ms-scale backoffs.

mod common;

use std::collections::BTreeMap;
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use wmlab_core::llm::nback::{self, BlockSource, DialogueOptions, NbackConfig, Protocol, Variant};
use wmlab_core::llm::{Message, Metric, Reference, Sample, SampleBody, Single, Suite};
use wmlab_llm::native::{StdClock, UreqTransport, block_on};
use wmlab_llm::{
    Control, LlmErrorKind, LogEntry, MemoryCache, NoCache, ProviderConfig, ProviderKind, RunLog, RunOptions, Runner,
    Secret,
};

enum Action {
    /// status, extra headers, body
    Reply(u16, Vec<(String, String)>, String),
    /// keep the connection open without answering for this long, then close
    Stall(u64),
}

struct Req {
    /// `ID:<tag>` from the first user message, or `nback` for N-back prompts.
    tag: String,
    /// Count of messages in the request (distinguishes dialogue turns).
    messages: usize,
    body: String,
}

type Script = dyn Fn(&Req, usize) -> Action + Send + Sync;

#[derive(Default)]
struct Stats {
    per_tag: Mutex<BTreeMap<String, usize>>,
    bodies: Mutex<Vec<String>>,
    open: AtomicUsize,
    max_open: AtomicUsize,
    total: AtomicUsize,
}

struct Server {
    base: String,
    stats: Arc<Stats>,
}

fn openai_ok(text: &str) -> String {
    serde_json::json!({
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 2}
    })
    .to_string()
}

fn tag_of(body: &str) -> (String, usize) {
    let v: serde_json::Value = serde_json::from_str(body).unwrap_or_default();
    let msgs = v["messages"].as_array().cloned().unwrap_or_default();
    let first_user = msgs.iter().find(|m| m["role"] == "user").and_then(|m| m["content"].as_str()).unwrap_or("");
    let tag = match first_user.find("ID:") {
        Some(i) => first_user[i + 3..].split_whitespace().next().unwrap_or("").to_string(),
        None => "nback".to_string(),
    };
    (tag, msgs.len())
}

fn handle(mut s: TcpStream, stats: &Stats, script: &Script) {
    let Some(req) = common::read_request(&s) else { return };
    let body = req.body;
    let (tag, messages) = tag_of(&body);
    let n = {
        let mut m = stats.per_tag.lock().unwrap();
        let c = m.entry(tag.clone()).or_insert(0);
        *c += 1;
        *c - 1
    };
    stats.bodies.lock().unwrap().push(body.clone());
    stats.total.fetch_add(1, Ordering::SeqCst);
    let open = stats.open.fetch_add(1, Ordering::SeqCst) + 1;
    stats.max_open.fetch_max(open, Ordering::SeqCst);
    let action = script(&Req { tag, messages, body }, n);
    // Count the request as finished before replying: the client may start its next request as soon as
    // it has read the reply, possibly before this thread runs again, which would look like overlap.
    stats.open.fetch_sub(1, Ordering::SeqCst);
    match action {
        Action::Stall(ms) => std::thread::sleep(Duration::from_millis(ms)),
        Action::Reply(status, headers, body) => common::write_json(&mut s, status, &headers, &body),
    }
}

/// Serve at most `max_requests` connections, each on its own thread.
fn serve(max_requests: usize, script: impl Fn(&Req, usize) -> Action + Send + Sync + 'static) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    let stats = Arc::new(Stats::default());
    let script: Arc<Script> = Arc::new(script);
    let st = stats.clone();
    std::thread::spawn(move || {
        for conn in listener.incoming().take(max_requests) {
            let Ok(conn) = conn else { continue };
            let (st, script) = (st.clone(), script.clone());
            std::thread::spawn(move || handle(conn, &st, &*script));
        }
    });
    Server { base, stats }
}

fn single(tag: &str, answer: i64) -> Sample {
    Sample {
        id: format!("test/{tag}"),
        suite: Suite::Lrt,
        task: "echo".into(),
        conditions: BTreeMap::from([("lines".to_string(), (answer % 2).to_string())]),
        epoch: 1,
        body: SampleBody::Single(Single {
            messages: vec![Message::user(format!("ID:{tag} say {answer}"))],
            reference: Reference::Int(answer),
            metrics: vec![Metric::FirstInteger],
        }),
    }
}

fn fast_options() -> RunOptions {
    RunOptions {
        concurrency: 1,
        max_retries: 5,
        backoff_base_ms: 5,
        backoff_max_ms: 20,
        max_wait_ms: 50,
        timeout_ms: 400,
        seed: 1,
        poll_ms: 5,
        ..Default::default()
    }
}

fn provider(s: &Server) -> ProviderConfig {
    ProviderConfig::new(ProviderKind::OpenAi, &s.base, "fake-model")
}

/// Answers "the number is N" where N is the number in the prompt (single) or m/- (dialogue).
fn echo_reply(r: &Req) -> String {
    if r.tag == "nback" {
        // deterministic but varied: by message count
        return openai_ok(if r.messages.is_multiple_of(3) { "m" } else { "-" });
    }
    let v: serde_json::Value = serde_json::from_str(&r.body).unwrap();
    let prompt = v["messages"][0]["content"].as_str().unwrap().to_string();
    let n = prompt.rsplit(' ').next().unwrap();
    openai_ok(&format!("The number is {n}."))
}

fn run(
    server: &Server,
    samples: &[Sample],
    log: &RunLog,
    options: RunOptions,
    key: &str,
    control: &Control,
    mut on_entry: impl FnMut(&LogEntry),
) -> wmlab_llm::RunResult {
    let (t, c) = (UreqTransport::new(), StdClock::new());
    let runner = Runner::new(&t, &c, &NoCache, provider(server), Secret::new(key), options);
    block_on(runner.run(samples, log, control, &mut |e| on_entry(e), &mut |_| {}))
}

#[test]
fn retries_429_500_stall_malformed_then_succeeds() {
    let server = serve(50, |r, n| match n {
        0 => Action::Reply(
            429,
            vec![("retry-after".into(), "0.01".into())],
            r#"{"error":{"message":"slow down"}}"#.into(),
        ),
        1 => Action::Reply(500, vec![], "internal".into()),
        2 => Action::Stall(1500),
        3 => Action::Reply(200, vec![], "{\"choices\": [".into()),
        4 => Action::Reply(503, vec![("retry-after-ms".into(), "5".into())], "{}".into()),
        _ => Action::Reply(200, vec![], echo_reply(r)),
    });
    let t0 = std::time::Instant::now();
    let res = run(&server, &[single("a", 42)], &RunLog::default(), fast_options(), "", &Control::new(), |_| {});
    let o = &res.outcomes[0];
    assert!(o.error.is_none(), "{:?}", o.error);
    assert_eq!(o.retries, 5);
    assert_eq!(o.scores["first_integer"], 1.0);
    assert_eq!(o.answer.as_deref(), Some("42"));
    assert_eq!(o.tokens_in, 10);
    assert_eq!(server.stats.per_tag.lock().unwrap()["a"], 6);
    assert_eq!(res.progress.retries, 5);
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
}

/// A provider asking for a wait of an hour: the run waits the user's cap instead, and says so on the
/// progress line while it waits ("waiting … for the provider's rate limit (it asked for 3600 s), retry 1
/// of 5"), then clears it.
#[test]
fn a_huge_retry_after_is_capped_and_shown_while_waiting() {
    let server = serve(10, |r, n| match n {
        0 => Action::Reply(429, vec![("retry-after".into(), "3600".into())], r#"{"error":{"message":"later"}}"#.into()),
        _ => Action::Reply(200, vec![], echo_reply(r)),
    });
    let (t, c) = (UreqTransport::new(), StdClock::new());
    let runner = Runner::new(&t, &c, &NoCache, provider(&server), Secret::new(""), fast_options());
    let mut seen = Vec::new();
    let t0 = std::time::Instant::now();
    let res = block_on(runner.run(&[single("w", 7)], &RunLog::default(), &Control::new(), &mut |_| {}, &mut |p| {
        seen.push(p.waiting.as_ref().map(|w| w.message()))
    }));
    assert!(res.outcomes[0].error.is_none(), "{:?}", res.outcomes[0].error);
    assert!(t0.elapsed() < Duration::from_secs(5), "waited {:?}, not the cap", t0.elapsed());
    let waits: Vec<&String> = seen.iter().flatten().collect();
    assert_eq!(waits, ["waiting 1 s for the provider's rate limit (it asked for 3600 s), retry 1 of 5"], "{seen:?}");
    assert_eq!(res.progress.waiting, None, "cleared after the wait");
}

#[test]
fn gives_up_and_records_classified_failures() {
    let key = "sk-test-SECRETSECRET99";
    let server = serve(50, move |r, _| {
        match r.tag.as_str() {
        "down" => Action::Reply(500, vec![], "boom".into()),
        "auth" => Action::Reply(
            401,
            vec![],
            format!(r#"{{"error":{{"message":"Incorrect API key provided: {key}. You can find your API key at https://x."}}}}"#),
        ),
        "long" => Action::Reply(
            400,
            vec![],
            r#"{"error":{"message":"This model's maximum context length is 2048 tokens","code":"context_length_exceeded"}}"#.into(),
        ),
        "stall" => Action::Stall(1500),
        _ => Action::Reply(200, vec![], echo_reply(r)),
    }
    });
    let mut opts = fast_options();
    opts.max_retries = 2;
    opts.concurrency = 4;
    let samples = [single("down", 1), single("auth", 2), single("long", 3), single("stall", 4), single("fine", 5)];
    let mut lines = Vec::new();
    let res =
        run(&server, &samples, &RunLog::default(), opts.clone(), key, &Control::new(), |e| lines.push(e.to_line()));
    let by: BTreeMap<&str, &wmlab_llm::Outcome> = res.outcomes.iter().map(|o| (o.sample_id.as_str(), o)).collect();
    let kind = |id: &str| by[id].error.as_ref().map(|e| e.kind);
    assert_eq!(kind("test/down"), Some(LlmErrorKind::Server));
    assert_eq!(kind("test/auth"), Some(LlmErrorKind::Auth));
    assert_eq!(kind("test/long"), Some(LlmErrorKind::ContextTooLong));
    assert_eq!(kind("test/stall"), Some(LlmErrorKind::Timeout));
    assert_eq!(kind("test/fine"), None);
    assert!(by["test/down"].scores.is_empty());
    let counts = server.stats.per_tag.lock().unwrap().clone();
    assert_eq!(counts["down"], 3, "retried twice");
    assert_eq!(counts["stall"], 3, "timeouts are retried");
    assert_eq!(counts["auth"], 1, "auth errors are not retried");
    assert_eq!(counts["long"], 1);
    assert_eq!(res.progress.failed, 4);
    // the key never leaks: not in the log, errors or the record
    let all = lines.join("\n");
    assert!(!all.contains("SECRETSECRET"), "key leaked into the log: {all}");
    assert!(by["test/auth"].error.as_ref().unwrap().message.contains("key"));
    let rec = wmlab_llm::record::to_record(&provider(&server), &opts, "test", 1, &[], &res.outcomes, None);
    let json = rec.to_json().expect("record validates");
    assert!(!json.contains("SECRETSECRET"));
    let back = wmlab_core::record::ResultRecord::from_json(&json).unwrap();
    assert!(back.summaries.iter().any(|s| s.metric == "errors" && s.task == "echo"));
    assert!(back.summaries.iter().any(|s| s.metric == "first_integer" && s.value == 1.0));
    rec.to_csv().expect("csv");
}

#[test]
fn respects_the_concurrency_limit() {
    let server = serve(100, |r, _| {
        std::thread::sleep(Duration::from_millis(40));
        Action::Reply(200, vec![], echo_reply(r))
    });
    let samples: Vec<Sample> = (0..12).map(|i| single(&format!("c{i}"), i)).collect();
    let mut opts = fast_options();
    opts.concurrency = 3;
    opts.timeout_ms = 5000;
    let res = run(&server, &samples, &RunLog::default(), opts, "", &Control::new(), |_| {});
    assert_eq!(res.outcomes.len(), 12);
    assert!(res.outcomes.iter().all(|o| o.error.is_none() && o.scores["first_integer"] == 1.0));
    let max = server.stats.max_open.load(Ordering::SeqCst);
    assert!(max <= 3, "{max} requests at once with a limit of 3");
    assert!(max >= 2, "requests ran one at a time ({max})");
    assert_eq!(server.stats.total.load(Ordering::SeqCst), 12);
}

fn nback_sample() -> Sample {
    let cfg = NbackConfig {
        variant: Variant::Letters,
        ns: vec![1],
        blocks: None,
        limit: Some(1),
        options: DialogueOptions::new(Protocol::Readme),
        source: BlockSource::Published,
    };
    nback::samples(&cfg).remove(0)
}

#[test]
fn resume_after_crash_sends_no_duplicates() {
    let samples: Vec<Sample> =
        std::iter::once(nback_sample()).chain((0..6).map(|i| single(&format!("r{i}"), i))).collect();

    // Baseline: one uninterrupted run.
    let base_server = serve(500, |r, _| Action::Reply(200, vec![], echo_reply(r)));
    let base = run(&base_server, &samples, &RunLog::default(), fast_options(), "", &Control::new(), |_| {});
    let base_total = base_server.stats.total.load(Ordering::SeqCst);
    let turns = base.outcomes[0].requests as usize;
    assert!(turns >= 10, "the dialogue took {turns} turns");
    assert_eq!(base_total, turns + 6);

    // Crash: stop after 9 log lines (mid-dialogue), leave a half-written line.
    let server = serve(500, |r, _| Action::Reply(200, vec![], echo_reply(r)));
    let control = Control::new();
    let mut lines: Vec<String> = Vec::new();
    let first = run(&server, &samples, &RunLog::default(), fast_options(), "", &control, |e| {
        lines.push(e.to_line());
        if lines.len() == 9 {
            control.cancel();
        }
    });
    assert!(first.cancelled);
    let sent_before = server.stats.total.load(Ordering::SeqCst);
    assert_eq!(sent_before, 9, "every request sent before the crash was logged");
    let mut text = lines.join("\n");
    text.push('\n');
    text.push_str(r#"{"type":"turn","sample_id":"nback/lett"#);
    let log = RunLog::parse(&text);
    assert_eq!(log.bad_lines, 1);

    // Resume on the same server: only what is missing is sent.
    let mut more = Vec::new();
    let second = run(&server, &samples, &log, fast_options(), "", &Control::new(), |e| more.push(e.to_line()));
    assert!(!second.cancelled);
    assert_eq!(server.stats.total.load(Ordering::SeqCst), base_total, "no request was sent twice");
    let bodies = server.stats.bodies.lock().unwrap().clone();
    let mut uniq = bodies.clone();
    uniq.sort();
    uniq.dedup();
    assert_eq!(uniq.len(), bodies.len(), "a request body was sent twice");
    // Same results as the uninterrupted run.
    assert_eq!(second.outcomes.len(), base.outcomes.len());
    for (a, b) in second.outcomes.iter().zip(&base.outcomes) {
        assert_eq!(a.sample_id, b.sample_id);
        assert_eq!(a.scores, b.scores);
        assert_eq!(a.answers, b.answers);
        assert_eq!(a.requests, b.requests);
    }
    assert_eq!(second.progress.resumed, 0, "the dialogue had no outcome yet");

    // A third run does nothing.
    let all = format!("{text}\n{}", more.join("\n"));
    let third =
        run(&server, &samples, &RunLog::parse(&all), fast_options(), "", &Control::new(), |_| panic!("nothing to log"));
    assert_eq!(third.progress.resumed, samples.len());
    assert_eq!(server.stats.total.load(Ordering::SeqCst), base_total);
}

#[test]
fn retry_errors_redoes_only_failed_samples_and_cache_answers_repeats() {
    let server = serve(100, |r, n| {
        if r.tag == "flaky" && n == 0 {
            Action::Reply(401, vec![], "{}".into())
        } else {
            Action::Reply(200, vec![], echo_reply(r))
        }
    });
    let samples = [single("flaky", 7), single("ok", 8)];
    let mut lines = Vec::new();
    let first =
        run(&server, &samples, &RunLog::default(), fast_options(), "k", &Control::new(), |e| lines.push(e.to_line()));
    assert!(first.outcomes[0].error.is_some());
    let mut opts = fast_options();
    opts.retry_errors = true;
    let second = run(&server, &samples, &RunLog::parse(&lines.join("\n")), opts, "k", &Control::new(), |_| {});
    assert!(second.outcomes[0].error.is_none());
    assert_eq!(server.stats.per_tag.lock().unwrap()["ok"], 1);
    assert_eq!(server.stats.per_tag.lock().unwrap()["flaky"], 2);

    // cache: a fresh run with a warm cache sends nothing
    let (t, c) = (UreqTransport::new(), StdClock::new());
    let cache = MemoryCache::new();
    for _ in 0..2 {
        let runner = Runner::new(&t, &c, &cache, provider(&server), Secret::new("sk-cachekey-123456"), fast_options());
        block_on(runner.run(&samples[1..], &RunLog::default(), &Control::new(), &mut |_| {}, &mut |_| {}));
    }
    assert_eq!(server.stats.per_tag.lock().unwrap()["ok"], 2, "second run came from the cache");
    let saved = cache.take_new_lines().join("\n");
    assert!(!saved.contains("cachekey"));
}

#[test]
fn pause_holds_requests_and_cancel_stops_a_stalled_one() {
    let server =
        serve(50, |r, _| if r.tag == "slow" { Action::Stall(3000) } else { Action::Reply(200, vec![], echo_reply(r)) });
    let control = Control::new();
    control.pause();
    let c2 = control.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(150));
        c2.resume();
        std::thread::sleep(Duration::from_millis(150));
        c2.cancel();
    });
    let mut opts = fast_options();
    opts.timeout_ms = 10_000;
    let t0 = std::time::Instant::now();
    let res = run(
        &server,
        &[single("p", 1), single("slow", 2), single("never", 3)],
        &RunLog::default(),
        opts,
        "",
        &control,
        |_| {},
    );
    t.join().unwrap();
    assert!(res.cancelled);
    assert!(t0.elapsed() >= Duration::from_millis(140), "pause held the first request");
    assert!(t0.elapsed() < Duration::from_secs(2), "cancel stopped the stalled request: {:?}", t0.elapsed());
    assert_eq!(res.outcomes.len(), 1, "only the first sample finished");
    assert!(!server.stats.per_tag.lock().unwrap().contains_key("never"));
}

/// A reasoning model's reply to `r`: the echo's answer after reasoning that names a wrong one, in one of
/// three wire formats (a `<think>` block, a template-opened block with only `</think>`, and
/// `reasoning_content`), with its reasoning tokens counted.
fn thinking_reply(r: &Req, n: usize) -> String {
    let plain: serde_json::Value = serde_json::from_str(&echo_reply(r)).unwrap();
    let answer = plain["choices"][0]["message"]["content"].as_str().unwrap().to_string();
    let wrong = match answer.as_str() {
        "m" => "-".to_string(),
        "-" => "m".to_string(),
        _ => "The number is 99.".to_string(),
    };
    let message = match (n + r.messages + r.tag.len()) % 3 {
        0 => serde_json::json!({"role": "assistant", "content": format!("<think>{wrong}</think>\n{answer}")}),
        1 => serde_json::json!({"role": "assistant", "content": format!("{wrong}\n</think>\n\n{answer}")}),
        _ => serde_json::json!({"role": "assistant", "content": answer, "reasoning_content": wrong}),
    };
    serde_json::json!({
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 12, "completion_tokens_details": {"reasoning_tokens": 10}}
    })
    .to_string()
}

/// Issue 49: a reasoning model is scored from its final answer only, on N-back (whose answer is the
/// reply's first character) and on single replies, exactly as the same answers without reasoning; the
/// reasoning is logged with its tokens, and the conversation sent back holds the answers only.
#[test]
fn a_reasoning_models_answers_are_read_after_its_reasoning() {
    let samples: Vec<Sample> =
        std::iter::once(nback_sample()).chain((0..4).map(|i| single(&format!("t{i}"), i))).collect();
    let plain_server = serve(500, |r, _| Action::Reply(200, vec![], echo_reply(r)));
    let plain = run(&plain_server, &samples, &RunLog::default(), fast_options(), "", &Control::new(), |_| {});
    let server = serve(500, |r, n| Action::Reply(200, vec![], thinking_reply(r, n)));
    let mut lines = Vec::new();
    let thought =
        run(&server, &samples, &RunLog::default(), fast_options(), "", &Control::new(), |e| lines.push(e.to_line()));
    assert_eq!(thought.outcomes.len(), plain.outcomes.len());
    for (a, b) in thought.outcomes.iter().zip(&plain.outcomes) {
        assert!(a.error.is_none(), "{a:?}");
        assert_eq!((&a.scores, &a.answers, &a.answer), (&b.scores, &b.answers, &b.answer), "{}", a.sample_id);
        assert_eq!(a.tokens_reasoning, 10 * a.requests as u64, "{}", a.sample_id);
    }
    assert!(plain.outcomes[0].scores.get("accuracy").is_some_and(|&v| v > 0.5), "{:?}", plain.outcomes[0].scores);
    for o in &thought.outcomes[1..] {
        assert!(o.reasoning.as_deref().is_some_and(|r| r.contains("99")), "{:?}", o.reasoning);
    }
    let turns = lines.iter().filter(|l| l.contains("\"type\":\"turn\"")).count();
    let reasoned = lines.iter().filter(|l| l.contains("\"type\":\"turn\"") && l.contains("\"reasoning\"")).count();
    assert!(turns >= 10 && reasoned == turns, "{reasoned} of {turns} turns logged their reasoning");
    // What went back to the model in the dialogue: the same conversation as the plain run's.
    let sent = |s: &Server| {
        let mut b: Vec<String> =
            s.stats.bodies.lock().unwrap().iter().filter(|b| !b.contains("ID:")).cloned().collect();
        b.sort();
        b
    };
    assert_eq!(sent(&server), sent(&plain_server));
}

/// Issue 49: a spending limit stops the run before the request that would pass it (the cost so far
/// plus the last request's), leaves the rest without an outcome, and a rerun with a higher limit
/// continues from the log without sending anything twice.
#[test]
fn a_spending_limit_stops_the_run_and_a_higher_one_resumes_it() {
    let samples: Vec<Sample> = (0..6).map(|i| single(&format!("c{i}"), i)).collect();
    let server = serve(50, |r, _| Action::Reply(200, vec![], echo_reply(r)));
    // One currency unit per token: a request costs 10 in + 2 out = 12.
    let priced = |max: f64| RunOptions {
        price_in_per_m: Some(1e6),
        price_out_per_m: Some(1e6),
        max_cost: Some(max),
        ..fast_options()
    };
    let mut lines = Vec::new();
    let first =
        run(&server, &samples, &RunLog::default(), priced(40.0), "", &Control::new(), |e| lines.push(e.to_line()));
    assert!(first.limit_reached && !first.cancelled);
    assert_eq!(server.stats.total.load(Ordering::SeqCst), 3, "12 + 12 + 12 = 36; a fourth would pass 40");
    assert_eq!(first.outcomes.len(), 3);
    assert_eq!(first.progress.cost, Some(36.0));
    let log = RunLog::parse(&lines.join("\n"));
    let second = run(&server, &samples, &log, priced(100.0), "", &Control::new(), |_| {});
    assert!(!second.limit_reached);
    assert_eq!(second.outcomes.len(), 6);
    assert_eq!(server.stats.total.load(Ordering::SeqCst), 6, "nothing sent twice");
    assert_eq!(second.progress.cost, Some(72.0));
    // No limit: no stop.
    let third = run(&server, &samples, &RunLog::default(), fast_options(), "", &Control::new(), |_| {});
    assert!(!third.limit_reached && third.outcomes.len() == 6);
}

/// Before the first sample finishes (one long N-back block) the progress line counts its turns and
/// estimates the time left from their pace, instead of "ETA —" until the block ends.
#[test]
fn a_long_block_has_a_time_estimate_before_it_finishes() {
    let server = serve(100, |r, _| {
        std::thread::sleep(Duration::from_millis(2));
        Action::Reply(200, vec![], echo_reply(r))
    });
    let samples = vec![nback_sample(), nback_sample()];
    let samples: Vec<Sample> = samples
        .into_iter()
        .enumerate()
        .map(|(i, mut s)| {
            s.id = format!("{}-{i}", s.id);
            s
        })
        .collect();
    let per_block = samples[0].expected_requests() as u64;
    assert!(per_block > 10, "{per_block}");
    let (t, c) = (UreqTransport::new(), StdClock::new());
    let runner = Runner::new(&t, &c, &NoCache, provider(&server), Secret::new(""), fast_options());
    let mut seen: Vec<(usize, u64, u64, Option<f64>)> = Vec::new();
    let log = RunLog::default();
    block_on(runner.run(&samples, &log, &Control::new(), &mut |_| {}, &mut |p| {
        seen.push((p.done, p.turns_done, p.turns_total, p.eta_ms))
    }));
    assert!(seen.iter().all(|s| s.2 == 2 * per_block), "turns to come: {seen:?}");
    let first_block: Vec<_> = seen.iter().filter(|s| s.0 == 0 && s.1 > 0).collect();
    assert!(!first_block.is_empty() && first_block.iter().all(|s| s.3.is_some_and(|e| e > 0.0)), "{seen:?}");
    assert_eq!(seen.last().unwrap().1, 2 * per_block);
}

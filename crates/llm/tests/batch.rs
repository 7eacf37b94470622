//! Batch mode against a batch API of each provider's wire format, served on 127.0.0.1 by a
//! hand-written server that keeps the batch's state: OpenAI (a JSONL file uploaded as multipart, then
//! `POST /batches`, `GET /batches/{id}`, the output file), Anthropic's Message Batches (requests inline,
//! a results URL of JSONL lines) and Gemini's `batchGenerateContent` (an operation whose results are
//! inline). The server answers "still running" for a set number of looks, then ends the batch with a
//! chosen request failed, or expires it whole; ordinary chat requests are answered as well, so the
//! runner's fallback is seen. Real sockets, the native transport and clock.

mod common;

use std::collections::BTreeMap;
use std::net::TcpStream;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use wmlab_core::llm::nback::{self, BlockSource, DialogueOptions, NbackConfig, Protocol, Variant};
use wmlab_core::llm::{Message, Metric, Reference, Sample, SampleBody, Single, Suite};
use wmlab_llm::native::{StdClock, UreqTransport, block_on};
use wmlab_llm::{
    Control, LogEntry, NoCache, Progress, ProviderConfig, ProviderKind, RunLog, RunOptions, RunResult, Runner, Secret,
};

const KEY: &str = "sk-test-BATCHKEY-0123456789abcdef";

#[derive(Default)]
struct State {
    base: String,
    /// The batch's requests: custom id and the number its prompt asks for.
    requests: Vec<(String, i64)>,
    creates: usize,
    looks: usize,
    /// Ordinary chat requests: the numbers they asked for.
    chats: Vec<i64>,
    /// Looks answered "running" before the batch ends.
    running_looks: usize,
    /// Requests (by index) the batch returns as failed.
    fail: Vec<usize>,
    /// The batch expires with no results.
    expire: bool,
    /// Requests that came without the key.
    keyless: Vec<String>,
    /// Every look at the batch fails (HTTP 500).
    poll_fails: bool,
}

/// The number the prompt `ID:x say N` asks for, anywhere in a JSON body.
fn asked(body: &str) -> i64 {
    let i = body.find(" say ").expect("a prompt") + 5;
    body[i..].chars().take_while(|c| c.is_ascii_digit()).collect::<String>().parse().unwrap()
}

fn reply(kind: ProviderKind, n: i64) -> Value {
    let text = format!("The number is {n}.");
    match kind {
        ProviderKind::OpenAi => json!({
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 2}
        }),
        ProviderKind::Anthropic => json!({
            "type": "message", "role": "assistant", "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn", "usage": {"input_tokens": 10, "output_tokens": 2}
        }),
        ProviderKind::Gemini => json!({
            "candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 2}
        }),
    }
}

fn handle(kind: ProviderKind, st: &Mutex<State>, req: common::HttpIn, s: &mut TcpStream) {
    let mut st = st.lock().unwrap();
    let keyed = [req.header("authorization"), req.header("x-api-key"), req.header("x-goog-api-key")]
        .iter()
        .any(|h| h.is_some_and(|v| v.contains(KEY)));
    if !keyed {
        st.keyless.push(req.line.clone());
    }
    let (method, path) = (req.line.split_whitespace().next().unwrap_or("").to_string(), req.path().to_string());
    let ok = |s: &mut TcpStream, v: Value| common::write_json(s, 200, &[], &v.to_string());
    let n = st.requests.len();
    if st.poll_fails && method == "GET" {
        st.looks += 1;
        common::write_json(s, 500, &[], r#"{"error": {"message": "the batch service is down"}}"#);
        return;
    }
    match (kind, method.as_str(), path.as_str()) {
        // Ordinary requests, for what the batch did not answer.
        (ProviderKind::OpenAi, "POST", "/v1/chat/completions")
        | (ProviderKind::Anthropic, "POST", "/v1/messages")
        | (ProviderKind::Gemini, "POST", "/v1beta/models/fake-model:generateContent") => {
            let a = asked(&req.body);
            st.chats.push(a);
            ok(s, reply(kind, a));
        }
        (ProviderKind::OpenAi, "POST", "/v1/files") => {
            assert!(req.header("content-type").unwrap().starts_with("multipart/form-data; boundary="));
            assert!(req.body.contains("name=\"purpose\"\r\n\r\nbatch\r\n"), "{}", req.body);
            for line in req.body.lines().filter(|l| l.starts_with('{')) {
                let v: Value = serde_json::from_str(line).unwrap();
                assert_eq!(v["url"], "/v1/chat/completions");
                assert_eq!(v["body"]["model"], "fake-model");
                st.requests.push((v["custom_id"].as_str().unwrap().into(), asked(line)));
            }
            ok(s, json!({"id": "file-in", "object": "file", "purpose": "batch"}));
        }
        (ProviderKind::OpenAi, "POST", "/v1/batches") => {
            let v: Value = serde_json::from_str(&req.body).unwrap();
            assert_eq!(v["input_file_id"], "file-in");
            assert_eq!(v["endpoint"], "/v1/chat/completions");
            st.creates += 1;
            ok(s, json!({"id": "batch_1", "object": "batch", "status": "validating"}));
        }
        (ProviderKind::OpenAi, "GET", "/v1/batches/batch_1") => {
            st.looks += 1;
            let v = match (st.looks > st.running_looks, st.expire) {
                (false, _) => json!({"id": "batch_1", "status": "in_progress",
                    "request_counts": {"total": n, "completed": 1, "failed": 0}}),
                (true, true) => json!({"id": "batch_1", "status": "expired", "output_file_id": null}),
                (true, false) => json!({"id": "batch_1", "status": "completed", "output_file_id": "file-out"}),
            };
            ok(s, v);
        }
        (ProviderKind::OpenAi, "GET", "/v1/files/file-out/content") => {
            let lines: String = st
                .requests
                .iter()
                .enumerate()
                .map(|(i, (id, a))| {
                    let line = if st.fail.contains(&i) {
                        json!({"id": format!("r{i}"), "custom_id": id,
                            "response": {"status_code": 500, "body": {"error": {"message": "boom"}}}, "error": null})
                    } else {
                        json!({"id": format!("r{i}"), "custom_id": id,
                            "response": {"status_code": 200, "body": reply(kind, *a)}, "error": null})
                    };
                    line.to_string() + "\n"
                })
                .collect();
            common::write_json(s, 200, &[], &lines);
        }
        (ProviderKind::Anthropic, "POST", "/v1/messages/batches") => {
            let v: Value = serde_json::from_str(&req.body).unwrap();
            for r in v["requests"].as_array().unwrap() {
                assert_eq!(r["params"]["model"], "fake-model");
                st.requests.push((r["custom_id"].as_str().unwrap().into(), asked(&r["params"].to_string())));
            }
            st.creates += 1;
            ok(s, json!({"id": "msgbatch_1", "type": "message_batch", "processing_status": "in_progress"}));
        }
        (ProviderKind::Anthropic, "GET", "/v1/messages/batches/msgbatch_1") => {
            st.looks += 1;
            let v = if st.looks > st.running_looks {
                json!({"id": "msgbatch_1", "processing_status": "ended",
                    "results_url": format!("{}/v1/messages/batches/msgbatch_1/results", st.base)})
            } else {
                json!({"id": "msgbatch_1", "processing_status": "in_progress",
                    "request_counts": {"processing": n - 1, "succeeded": 1, "errored": 0, "canceled": 0, "expired": 0}})
            };
            ok(s, v);
        }
        (ProviderKind::Anthropic, "GET", "/v1/messages/batches/msgbatch_1/results") => {
            let lines: String = st
                .requests
                .iter()
                .enumerate()
                .map(|(i, (id, a))| {
                    let result = if st.expire {
                        json!({"type": "expired"})
                    } else if st.fail.contains(&i) {
                        json!({"type": "errored", "error": {"type": "error", "error": {"type": "api_error"}}})
                    } else {
                        json!({"type": "succeeded", "message": reply(kind, *a)})
                    };
                    json!({"custom_id": id, "result": result}).to_string() + "\n"
                })
                .collect();
            common::write_json(s, 200, &[], &lines);
        }
        (ProviderKind::Gemini, "POST", "/v1beta/models/fake-model:batchGenerateContent") => {
            let v: Value = serde_json::from_str(&req.body).unwrap();
            for r in v["batch"]["input_config"]["requests"]["requests"].as_array().unwrap() {
                st.requests.push((r["metadata"]["key"].as_str().unwrap().into(), asked(&r["request"].to_string())));
            }
            st.creates += 1;
            ok(s, json!({"name": "batches/b1", "metadata": {"state": "BATCH_STATE_PENDING"}}));
        }
        (ProviderKind::Gemini, "GET", "/v1beta/batches/b1") => {
            st.looks += 1;
            let v = if st.looks <= st.running_looks {
                json!({"name": "batches/b1", "metadata": {"state": "BATCH_STATE_RUNNING",
                    "batchStats": {"requestCount": n, "successfulRequestCount": 1}}})
            } else if st.expire {
                json!({"name": "batches/b1", "done": true, "metadata": {"state": "BATCH_STATE_EXPIRED"}})
            } else {
                let items: Vec<Value> = st
                    .requests
                    .iter()
                    .enumerate()
                    .map(|(i, (id, a))| {
                        if st.fail.contains(&i) {
                            json!({"error": {"code": 500, "message": "boom"}, "metadata": {"key": id}})
                        } else {
                            json!({"response": reply(kind, *a), "metadata": {"key": id}})
                        }
                    })
                    .collect();
                json!({"name": "batches/b1", "done": true, "metadata": {"state": "BATCH_STATE_SUCCEEDED"},
                    "response": {"inlinedResponses": {"inlinedResponses": items}}})
            };
            ok(s, v);
        }
        _ => common::write_json(s, 404, &[], &json!({"error": {"message": format!("no {method} {path}")}}).to_string()),
    }
}

struct Server {
    base: String,
    state: Arc<Mutex<State>>,
}

fn serve(kind: ProviderKind, setup: impl FnOnce(&mut State)) -> Server {
    let state = Arc::new(Mutex::new(State::default()));
    setup(&mut state.lock().unwrap());
    let st = state.clone();
    let root = common::serve(move |req, s| handle(kind, &st, req, s));
    state.lock().unwrap().base = root.clone();
    let base = match kind {
        ProviderKind::OpenAi => format!("{root}/v1"),
        ProviderKind::Anthropic => root,
        ProviderKind::Gemini => format!("{root}/v1beta"),
    };
    Server { base, state }
}

fn single(i: i64) -> Sample {
    Sample {
        id: format!("lrt/item {i}"),
        suite: Suite::Lrt,
        task: "echo".into(),
        conditions: BTreeMap::new(),
        epoch: 1,
        body: SampleBody::Single(Single {
            messages: vec![Message::user(format!("ID:{i} say {}", 40 + i))],
            reference: Reference::Int(40 + i),
            metrics: vec![Metric::FirstInteger],
        }),
    }
}

fn options() -> RunOptions {
    RunOptions {
        concurrency: 2,
        max_retries: 2,
        backoff_base_ms: 5,
        backoff_max_ms: 20,
        timeout_ms: 2000,
        poll_ms: 5,
        batch_poll_ms: 10,
        batch_poll_max_ms: 20,
        ..Default::default()
    }
}

/// Runs the samples in batch mode; the log lines written and the progress notes seen come back too.
fn run(
    kind: ProviderKind,
    server: &Server,
    samples: &[Sample],
    log: &RunLog,
    control: &Control,
    cancel_on_note: bool,
) -> (RunResult, String, Vec<String>) {
    let (t, c) = (UreqTransport::new(), StdClock::new());
    let provider = ProviderConfig::new(kind, &server.base, "fake-model");
    let runner = Runner::new(&t, &c, &NoCache, provider, Secret::new(KEY), options());
    let mut lines = String::new();
    let mut notes = Vec::new();
    let result = block_on(runner.run_batch(
        samples,
        log,
        control,
        &mut |e: &LogEntry| {
            lines.push_str(&e.to_line());
            lines.push('\n');
        },
        &mut |p: &Progress| {
            if let Some(b) = &p.batch {
                notes.push(b.clone());
                if cancel_on_note && b.contains("next look") {
                    control.cancel();
                }
            }
        },
    ))
    .unwrap();
    (result, lines, notes)
}

#[test]
fn every_provider_batches_and_sends_what_failed_as_ordinary_requests() {
    let samples: Vec<Sample> = (0..4).map(single).collect();
    for kind in ProviderKind::ALL {
        let server = serve(kind, |s| {
            s.running_looks = 1;
            s.fail = vec![2];
        });
        let (res, lines, notes) = run(kind, &server, &samples, &RunLog::default(), &Control::new(), false);
        let st = server.state.lock().unwrap();
        assert_eq!(st.creates, 1, "{kind:?}: one batch");
        assert_eq!(st.requests.len(), 4, "{kind:?}: every item in it");
        assert_eq!(st.looks, 2, "{kind:?}: a look while it ran, one when it ended");
        assert_eq!(st.chats, vec![42], "{kind:?}: only the failed item is asked again, alone");
        assert!(st.keyless.is_empty(), "{kind:?}: every request carries the key: {:?}", st.keyless);
        assert_eq!(res.outcomes.len(), 4);
        for (i, o) in res.outcomes.iter().enumerate() {
            assert!(o.error.is_none(), "{kind:?} {i}: {:?}", o.error);
            assert_eq!(o.scores["first_integer"], 1.0, "{kind:?} {i}: {:?}", o.reply);
            assert_eq!(o.tokens_in, 10);
            assert_eq!(o.batch.is_some(), i != 2, "{kind:?} {i}: answered by the batch, or alone");
        }
        assert!(notes.iter().any(|n| n.contains("1 of 4 finished")), "{kind:?}: {notes:?}");
        assert!(notes.last().unwrap().contains("3 answered, 1 sent again"), "{kind:?}: {notes:?}");
        // The log keeps the batch (for a rerun) and the outcomes, and never the key.
        let log = RunLog::parse(&lines);
        assert_eq!(log.entries.iter().filter(|e| matches!(e, LogEntry::Batch(_))).count(), 1);
        assert_eq!(log.outcomes().len(), 4);
        assert!(!lines.contains(KEY));
        assert_eq!(res.progress.requests, 4, "{kind:?}: three from the batch, one alone");
    }
}

#[test]
fn a_run_stopped_while_its_batch_is_open_polls_the_same_batch_when_rerun() {
    let samples: Vec<Sample> = (0..3).map(single).collect();
    for kind in ProviderKind::ALL {
        let server = serve(kind, |s| s.running_looks = 3);
        // Stopped at the first "still running" (as a closed tab or Ctrl-C would).
        let control = Control::new();
        let (res, lines, _) = run(kind, &server, &samples, &RunLog::default(), &control, true);
        assert!(res.cancelled, "{kind:?}");
        assert!(res.outcomes.is_empty(), "{kind:?}");
        assert_eq!(server.state.lock().unwrap().creates, 1);
        // The rerun reads the batch from the log, sends no other, and takes its replies.
        let log = RunLog::parse(&lines);
        let (res, more, _) = run(kind, &server, &samples, &log, &Control::new(), false);
        let st = server.state.lock().unwrap();
        assert_eq!(st.creates, 1, "{kind:?}: the same batch, not a second");
        assert!(st.chats.is_empty(), "{kind:?}: no ordinary request");
        assert_eq!(res.outcomes.len(), 3);
        assert!(res.outcomes.iter().all(|o| o.batch.is_some() && o.scores["first_integer"] == 1.0), "{kind:?}");
        assert!(!more.contains("\"type\":\"batch\""), "{kind:?}: no new batch logged");
        // A third run finds every item done: nothing is sent.
        let all = RunLog::parse(&(lines.clone() + &more));
        let (looks, creates) = (st.looks, st.creates);
        drop(st);
        let (res, _, _) = run(kind, &server, &samples, &all, &Control::new(), false);
        assert_eq!(res.progress.resumed, 3);
        let st = server.state.lock().unwrap();
        assert_eq!((st.looks, st.creates, st.chats.len()), (looks, creates, 0), "{kind:?}");
    }
}

#[test]
fn an_expired_batch_falls_back_to_ordinary_requests() {
    let samples: Vec<Sample> = (0..3).map(single).collect();
    for kind in ProviderKind::ALL {
        let server = serve(kind, |s| s.expire = true);
        let (res, _, notes) = run(kind, &server, &samples, &RunLog::default(), &Control::new(), false);
        let mut chats = server.state.lock().unwrap().chats.clone();
        chats.sort();
        assert_eq!(chats, vec![40, 41, 42], "{kind:?}");
        assert!(res.outcomes.iter().all(|o| o.batch.is_none() && o.scores["first_integer"] == 1.0), "{kind:?}");
        assert!(notes.last().unwrap().contains("0 answered, 3 sent again"), "{kind:?}: {notes:?}");
    }
}

/// Issue 71: when looking at the batch failed, every item was sent again as an ordinary request while
/// the batch might still run (paid twice). The run now stops with the reason and sends nothing.
#[test]
fn a_batch_that_cannot_be_looked_at_is_not_sent_again() {
    let samples: Vec<Sample> = (0..3).map(single).collect();
    for kind in ProviderKind::ALL {
        let server = serve(kind, |s| s.poll_fails = true);
        let (t, c) = (UreqTransport::new(), StdClock::new());
        let provider = ProviderConfig::new(kind, &server.base, "fake-model");
        let runner = Runner::new(&t, &c, &NoCache, provider, Secret::new(KEY), options());
        // The failed looks are retried under the run's one policy, each wait said on the progress line.
        let mut waits = Vec::new();
        let mut on_progress = |p: &Progress| waits.extend(p.waiting.clone());
        let r =
            block_on(runner.run_batch(&samples, &RunLog::default(), &Control::new(), &mut |_| {}, &mut on_progress));
        let Err(e) = r else { panic!("{kind:?}: the run should stop") };
        assert!(e.message.contains("may still be running, so nothing was sent again"), "{kind:?}: {}", e.message);
        let retries: Vec<u32> = waits.iter().map(|w| w.retry).collect();
        assert_eq!(retries, (1..=options().max_retries).collect::<Vec<_>>(), "{kind:?}: {waits:?}");
        let st = server.state.lock().unwrap();
        assert!(st.chats.is_empty(), "{kind:?}: no ordinary request");
        assert_eq!(st.creates, 1, "{kind:?}");
    }
}

#[test]
fn dialogues_do_not_batch() {
    let cfg = NbackConfig {
        variant: Variant::Letters,
        ns: vec![1],
        blocks: None,
        limit: Some(1),
        options: DialogueOptions::new(Protocol::Readme),
        source: BlockSource::Published,
    };
    let server = serve(ProviderKind::OpenAi, |_| {});
    let (t, c) = (UreqTransport::new(), StdClock::new());
    let provider = ProviderConfig::new(ProviderKind::OpenAi, &server.base, "fake-model");
    let runner = Runner::new(&t, &c, &NoCache, provider, Secret::new(KEY), options());
    let samples = vec![single(0), nback::samples(&cfg).remove(0)];
    let err = block_on(runner.run_batch(&samples, &RunLog::default(), &Control::new(), &mut |_| {}, &mut |_| {}))
        .unwrap_err();
    assert!(err.message.contains("dialogues"), "{}", err.message);
    let st = server.state.lock().unwrap();
    assert_eq!((st.creates, st.requests.len(), st.chats.len()), (0, 0, 0), "nothing sent");
}

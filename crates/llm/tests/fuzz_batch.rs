//! The fuzz suite's sibling for batch replies (issue 71): a provider's batch id, status and results
//! file, arbitrary or a valid one damaged, for OpenAI, Anthropic and Gemini. Each property: no panic,
//! bounded time, and no answer given to a request the reply does not name exactly — a result is kept
//! only under an index whose custom id (`s17`) the reply holds, and an index named twice is refused.

#[path = "../../core/tests/damage/mod.rs"]
mod damage;

use std::time::{Duration, Instant};

use damage::*;
use proptest::prelude::*;
use serde_json::{Value, json};
use wmlab_llm::{ProviderConfig, ProviderKind};

const KINDS: [ProviderKind; 3] = [ProviderKind::OpenAi, ProviderKind::Anthropic, ProviderKind::Gemini];

fn provider(kind: ProviderKind) -> ProviderConfig {
    ProviderConfig::new(kind, "http://127.0.0.1:9/v1", "fake-model")
}

/// A batch's results as each provider returns them for `n` requests (`s0` … `s{n-1}`), answer `k` to
/// request `k`: the JSONL file (OpenAI, Anthropic) or the inline list (Gemini).
fn valid_results(kind: ProviderKind, n: usize) -> String {
    match kind {
        ProviderKind::OpenAi => (0..n)
            .map(|i| {
                json!({"custom_id": format!("s{i}"), "response": {"status_code": 200, "body": {
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": format!("answer {i}")},
                        "finish_reason": "stop"}]}}})
                .to_string()
                    + "\n"
            })
            .collect(),
        ProviderKind::Anthropic => (0..n)
            .map(|i| {
                json!({"custom_id": format!("s{i}"), "result": {"type": "succeeded", "message": {
                    "type": "message", "role": "assistant", "content": [{"type": "text", "text": format!("answer {i}")}]}}})
                .to_string()
                    + "\n"
            })
            .collect(),
        ProviderKind::Gemini => json!((0..n)
            .map(|i| json!({"metadata": {"key": format!("s{i}")}, "response": {
                "candidates": [{"content": {"parts": [{"text": format!("answer {i}")}], "role": "model"}}]}}))
            .collect::<Vec<_>>())
        .to_string(),
    }
}

/// Every index kept is one the text names as a custom id, character for character.
fn named_exactly(text: &str, kind: ProviderKind) -> impl Fn(usize) -> bool + '_ {
    move |i: usize| {
        let id = format!("\"s{i}\"");
        text.contains(&id) || (kind == ProviderKind::Gemini && !text.contains("\"key\""))
    }
}

fn parse(
    kind: ProviderKind,
    text: &str,
) -> std::collections::HashMap<usize, Result<wmlab_llm::Reply, wmlab_llm::LlmError>> {
    let p = provider(kind);
    let t0 = Instant::now();
    let out = if kind == ProviderKind::Gemini {
        let v: Option<Value> = serde_json::from_str(text).ok();
        p.parse_batch_results(None, v.as_ref())
    } else {
        p.parse_batch_results(Some(text), None)
    };
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?} took {:?}", kind, t0.elapsed());
    out
}

#[test]
fn valid_results_are_read_whole_and_a_request_named_twice_is_refused() {
    for kind in KINDS {
        let out = parse(kind, &valid_results(kind, 5));
        assert_eq!(out.len(), 5, "{kind:?}");
        for i in 0..5 {
            assert_eq!(out[&i].as_ref().unwrap().text, format!("answer {i}"), "{kind:?}");
        }
    }
    let mut twice = valid_results(ProviderKind::OpenAi, 3);
    twice.push_str(&valid_results(ProviderKind::OpenAi, 1));
    let out = parse(ProviderKind::OpenAi, &twice);
    assert!(out[&0].as_ref().unwrap_err().message.contains("more than one result"));
    assert!(out[&1].is_ok() && out[&2].is_ok());
}

proptest! {
    #![proptest_config(config(96))]

    /// A damaged results file: every kept index is named exactly; nothing panics.
    #[test]
    fn damaged_results_keep_only_requests_named_exactly(ds in damages(), k in 0usize..3, n in 1usize..12) {
        let kind = KINDS[k];
        let text = damaged_text(&valid_results(kind, n), &ds);
        let out = parse(kind, &text);
        let named = named_exactly(&text, kind);
        for i in out.keys() {
            prop_assert!(named(*i), "{kind:?}: index {i} kept but not named in {text}");
        }
    }

    /// Arbitrary text as a results file, a status and a batch id: no panic, ids only as named.
    #[test]
    fn arbitrary_replies_are_read_or_refused(junk in texty(), k in 0usize..3) {
        let kind = KINDS[k];
        let out = parse(kind, &junk);
        let named = named_exactly(&junk, kind);
        for i in out.keys() {
            prop_assert!(named(*i), "{kind:?}: index {i} from {junk:?}");
        }
        let p = provider(kind);
        for v in [serde_json::from_str::<Value>(&junk).unwrap_or(Value::String(junk.clone())), json!({"id": junk}),
            json!({"processing_status": junk, "results_url": junk}), json!({"status": junk, "name": junk})] {
            let _ = p.parse_batch_id(&v);
            let _ = p.parse_batch_status(&v);
        }
    }
}

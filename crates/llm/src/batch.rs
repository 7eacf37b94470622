//! Batch mode: the single-request suites (LRT, Minerva) sent through the providers' batch APIs, which
//! cost half and have rate limits of their own — OpenAI's Batch API (a JSONL file uploaded, then a batch
//! of `/v1/chat/completions` requests), Anthropic's Message Batches, Gemini's `batchGenerateContent`
//! (requests inline).
//!
//! [`Runner::run_batch`] submits every sample not yet in the log as one batch, logs the batch
//! ([`LogEntry::Batch`]: its id and which sample each request is), polls it with back-off until it
//! ends, takes the replies it returned, and then runs the samples as [`Runner::run`] does: a sample
//! with a batch reply is scored from it without a request; a sample the batch returned as failed,
//! expired or not at all is sent as an ordinary request. A run stopped while its batch is open (a
//! cancel, a crash, a closed tab) finds the batch in its log and polls it again instead of submitting
//! another. Multi-turn suites (N-back, the visual suite) cannot batch: each turn is asked after the
//! model's answer to the previous one.

use std::cell::RefCell;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use wmlab_core::llm::{Message, Sample, SampleBody};

use crate::error::{LlmError, LlmErrorKind};
use crate::provider::{ProviderConfig, ProviderKind, Reply};
use crate::runner::{Control, LogEntry, Progress, RunLog, RunResult, Runner};
use crate::{Cache, Clock, HttpRequest, Secret, Transport};

/// A submitted batch, as the run log keeps it: enough to poll it again after a restart.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BatchEntry {
    /// The provider's id: `batch_…` (OpenAI), `msgbatch_…` (Anthropic), `batches/…` (Gemini).
    pub batch_id: String,
    /// The provider it was sent to.
    pub provider: ProviderKind,
    /// The model it asks.
    pub model: String,
    /// The sample of each request: request `i` carries the custom id `s{i}` (the providers restrict
    /// custom ids to a few characters; sample ids may hold others).
    pub sample_ids: Vec<String>,
}

/// Where a batch stands.
#[derive(Clone, Debug, PartialEq)]
pub enum BatchStatus {
    /// Still being processed: the provider's word for its state, and how many requests have finished
    /// of how many (when it says).
    Running {
        /// `validating`, `in_progress`, `BATCH_STATE_RUNNING`, …
        state: String,
        /// Requests finished so far (answered or failed).
        finished: Option<u64>,
        /// Requests in the batch.
        total: Option<u64>,
    },
    /// Finished (completely, or cut short by expiry or a cancel): where its results are, if anywhere.
    Ended {
        /// The provider's final state (`completed`, `expired`, `ended`, `BATCH_STATE_SUCCEEDED`, …).
        state: String,
        /// Where the results are read from: a file id (OpenAI), a URL (Anthropic); `None` for Gemini,
        /// whose results come inline in the status itself, or when there are none.
        results: Option<String>,
        /// Gemini's inline results, in request order.
        inline: Option<Value>,
    },
}

/// Why a multi-turn suite is not sent as a batch.
pub const DIALOGUES_DO_NOT_BATCH: &str = "batch mode takes single-request suites only (the Little Retrieval \
    Test, Minerva): N-back and the visual suite are dialogues, each turn asked after the model's answer to the \
    previous one, which a batch cannot do";

fn custom_id(i: usize) -> String {
    format!("s{i}")
}

/// The request index a custom id names, read exactly: only the ids [`custom_id`] writes (`s0`, `s17`);
/// `s+1`, `s01` or ` s1` were never sent and name nothing.
fn index_of(custom: &str) -> Option<usize> {
    let i: usize = custom.strip_prefix('s')?.parse().ok()?;
    (custom_id(i) == custom).then_some(i)
}

/// Results by index, where an index returned twice is refused: neither copy is used (which one the
/// provider meant cannot be known), and the sample is recorded as failed with the reason.
fn insert_once(
    out: &mut HashMap<usize, Result<Reply, LlmError>>,
    twice: &mut Vec<usize>,
    i: usize,
    r: Result<Reply, LlmError>,
) {
    if out.insert(i, r).is_some() && !twice.contains(&i) {
        twice.push(i);
    }
}

fn bad(what: impl Into<String>) -> LlmError {
    LlmError::new(LlmErrorKind::BadResponse, what.into())
}

impl ProviderConfig {
    fn batch_get(&self, url: String, key: &Secret, timeout_ms: u64) -> HttpRequest {
        HttpRequest { method: "GET".into(), url, headers: self.headers(key, false), body: String::new(), timeout_ms }
    }

    fn batch_post(&self, url: String, body: String, key: &Secret, timeout_ms: u64) -> HttpRequest {
        HttpRequest { method: "POST".into(), url, headers: self.headers(key, true), body, timeout_ms }
    }

    /// OpenAI's batch input file: one `/v1/chat/completions` request a line.
    pub fn batch_jsonl(&self, requests: &[(&ProviderConfig, &[Message])]) -> String {
        requests
            .iter()
            .enumerate()
            .map(|(i, (p, msgs))| {
                json!({"custom_id": custom_id(i), "method": "POST", "url": "/v1/chat/completions",
                    "body": p.chat_body(msgs)})
                .to_string()
                    + "\n"
            })
            .collect()
    }

    /// The upload of OpenAI's batch input file (`POST /files`, `purpose=batch`, multipart).
    pub fn batch_upload_request(&self, jsonl: &str, key: &Secret, timeout_ms: u64) -> HttpRequest {
        let boundary = "wmlab-batch-7f3a9c1e";
        let body = format!(
            "--{boundary}\r\ncontent-disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n--{boundary}\r\n\
             content-disposition: form-data; name=\"file\"; filename=\"wmlab-batch.jsonl\"\r\n\
             content-type: application/jsonl\r\n\r\n{jsonl}\r\n--{boundary}--\r\n"
        );
        let mut req = self.batch_post(format!("{}/files", self.base()), body, key, timeout_ms);
        for h in &mut req.headers {
            if h.0 == "content-type" {
                h.1 = format!("multipart/form-data; boundary={boundary}");
            }
        }
        req
    }

    /// The request that starts a batch: OpenAI's `POST /batches` for an uploaded file (`file_id`),
    /// Anthropic's `POST /v1/messages/batches`, Gemini's `:batchGenerateContent` (requests inline).
    pub fn batch_create_request(
        &self,
        requests: &[(&ProviderConfig, &[Message])],
        file_id: Option<&str>,
        key: &Secret,
        timeout_ms: u64,
    ) -> HttpRequest {
        let (url, body) = match self.kind {
            ProviderKind::OpenAi => (
                format!("{}/batches", self.base()),
                json!({"input_file_id": file_id.unwrap_or_default(), "endpoint": "/v1/chat/completions",
                    "completion_window": "24h"}),
            ),
            ProviderKind::Anthropic => {
                let reqs: Vec<Value> = requests
                    .iter()
                    .enumerate()
                    .map(|(i, (p, msgs))| json!({"custom_id": custom_id(i), "params": p.chat_body(msgs)}))
                    .collect();
                (format!("{}/v1/messages/batches", self.base()), json!({ "requests": reqs }))
            }
            ProviderKind::Gemini => {
                let reqs: Vec<Value> = requests
                    .iter()
                    .enumerate()
                    .map(|(i, (p, msgs))| json!({"request": p.chat_body(msgs), "metadata": {"key": custom_id(i)}}))
                    .collect();
                (
                    format!("{}/models/{}:batchGenerateContent", self.base(), self.gemini_model()),
                    json!({"batch": {"display_name": "wmlab", "input_config": {"requests": {"requests": reqs}}}}),
                )
            }
        };
        self.batch_post(url, body.to_string(), key, timeout_ms)
    }

    /// The batch id in the answer to [`Self::batch_create_request`].
    pub fn parse_batch_id(&self, body: &Value) -> Result<String, LlmError> {
        let field = if self.kind == ProviderKind::Gemini { "name" } else { "id" };
        body.get(field)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .ok_or_else(|| bad(format!("The batch API's answer has no batch {field}.")))
    }

    /// The request asking where batch `id` stands.
    pub fn batch_status_request(&self, id: &str, key: &Secret, timeout_ms: u64) -> HttpRequest {
        let url = match self.kind {
            ProviderKind::OpenAi => format!("{}/batches/{id}", self.base()),
            ProviderKind::Anthropic => format!("{}/v1/messages/batches/{id}", self.base()),
            ProviderKind::Gemini => format!("{}/{id}", self.base()),
        };
        self.batch_get(url, key, timeout_ms)
    }

    /// Where a batch stands, from the answer to [`Self::batch_status_request`].
    pub fn parse_batch_status(&self, v: &Value) -> Result<BatchStatus, LlmError> {
        let u = |p: &str| v.pointer(p).and_then(Value::as_u64);
        let text = |p: &str| v.pointer(p).and_then(Value::as_str).map(str::to_string);
        match self.kind {
            ProviderKind::OpenAi => {
                let state = text("/status").ok_or_else(|| bad("The batch has no status."))?;
                match state.as_str() {
                    "completed" | "failed" | "expired" | "cancelled" => {
                        Ok(BatchStatus::Ended { state, results: text("/output_file_id"), inline: None })
                    }
                    _ => Ok(BatchStatus::Running {
                        state,
                        finished: u("/request_counts/completed").map(|c| c + u("/request_counts/failed").unwrap_or(0)),
                        total: u("/request_counts/total"),
                    }),
                }
            }
            ProviderKind::Anthropic => {
                let state = text("/processing_status").ok_or_else(|| bad("The batch has no processing_status."))?;
                if state == "ended" {
                    return Ok(BatchStatus::Ended { state, results: text("/results_url"), inline: None });
                }
                let counts = ["succeeded", "errored", "canceled", "expired"];
                let finished = counts.iter().filter_map(|c| u(&format!("/request_counts/{c}"))).sum::<u64>();
                let total = finished + u("/request_counts/processing").unwrap_or(0);
                Ok(BatchStatus::Running { state, finished: Some(finished), total: Some(total) })
            }
            ProviderKind::Gemini => {
                let state = text("/metadata/state")
                    .or_else(|| text("/state"))
                    .unwrap_or_else(|| "BATCH_STATE_PENDING".to_string());
                let done = v.get("done").and_then(Value::as_bool) == Some(true);
                let ended =
                    ["BATCH_STATE_SUCCEEDED", "BATCH_STATE_FAILED", "BATCH_STATE_CANCELLED", "BATCH_STATE_EXPIRED"];
                if done || ended.contains(&state.as_str()) {
                    let inline = v
                        .pointer("/response/inlinedResponses/inlinedResponses")
                        .or_else(|| v.pointer("/metadata/output/inlinedResponses/inlinedResponses"))
                        .cloned();
                    return Ok(BatchStatus::Ended { state, results: None, inline });
                }
                Ok(BatchStatus::Running {
                    state,
                    finished: u("/metadata/batchStats/successfulRequestCount")
                        .map(|s| s + u("/metadata/batchStats/failedRequestCount").unwrap_or(0)),
                    total: u("/metadata/batchStats/requestCount"),
                })
            }
        }
    }

    /// The request for an ended batch's results: OpenAI's output file, Anthropic's results URL.
    pub fn batch_results_request(&self, at: &str, key: &Secret, timeout_ms: u64) -> HttpRequest {
        let url = match self.kind {
            ProviderKind::OpenAi => format!("{}/files/{at}/content", self.base()),
            _ => at.to_string(),
        };
        self.batch_get(url, key, timeout_ms)
    }

    /// Each request's reply or error, by index: from the results file (JSONL; OpenAI, Anthropic) or
    /// Gemini's inline list. Lines that cannot be read, and requests a batch did not return, are left
    /// out (those samples are sent again as ordinary requests).
    pub fn parse_batch_results(
        &self,
        file: Option<&str>,
        inline: Option<&Value>,
    ) -> HashMap<usize, Result<Reply, LlmError>> {
        let mut out = HashMap::new();
        let mut twice: Vec<usize> = Vec::new();
        let failed = |why: String| Err(LlmError::new(LlmErrorKind::Server, format!("The batch returned: {why}")));
        match self.kind {
            ProviderKind::OpenAi | ProviderKind::Anthropic => {
                for line in file.unwrap_or_default().lines().filter(|l| !l.trim().is_empty()) {
                    let Ok(v) = serde_json::from_str::<Value>(line) else { continue };
                    let Some(i) = v.get("custom_id").and_then(Value::as_str).and_then(index_of) else { continue };
                    let r = if self.kind == ProviderKind::OpenAi {
                        match (v.pointer("/response/status_code").and_then(Value::as_u64), v.pointer("/response/body"))
                        {
                            (Some(200..=299), Some(body)) => self.parse_reply(&body.to_string()),
                            (status, _) => failed(match v.pointer("/error/message").and_then(Value::as_str) {
                                Some(m) => m.to_string(),
                                None => format!("status {}", status.unwrap_or(0)),
                            }),
                        }
                    } else {
                        match v.pointer("/result/type").and_then(Value::as_str) {
                            Some("succeeded") => match v.pointer("/result/message") {
                                Some(m) => self.parse_reply(&m.to_string()),
                                None => failed("a success without a message".into()),
                            },
                            Some(t) => failed(t.to_string()),
                            None => failed("no result".into()),
                        }
                    };
                    insert_once(&mut out, &mut twice, i, r);
                }
            }
            ProviderKind::Gemini => {
                for (n, item) in inline.and_then(Value::as_array).into_iter().flatten().enumerate() {
                    // No key: the request order; a key that names no request sent: left out.
                    let i = match item.pointer("/metadata/key") {
                        None => n,
                        Some(k) => match k.as_str().and_then(index_of) {
                            Some(i) => i,
                            None => continue,
                        },
                    };
                    let r = match (item.get("response"), item.get("error")) {
                        (Some(resp), _) => self.parse_reply(&resp.to_string()),
                        (None, Some(e)) => {
                            failed(e.get("message").and_then(Value::as_str).unwrap_or("an error").to_string())
                        }
                        (None, None) => failed("nothing".into()),
                    };
                    insert_once(&mut out, &mut twice, i, r);
                }
            }
        }
        for i in twice {
            out.insert(
                i,
                Err(bad(format!(
                    "the batch returned more than one result for request {}; none of them is used",
                    custom_id(i)
                ))),
            );
        }
        out
    }
}

impl<T: Transport, C: Clock, K: Cache> Runner<'_, T, C, K> {
    /// One request of the batch protocol under the run's one policy ([`Runner::send_with_retries`]:
    /// pause, cancel, timeout, retries with the wait on the progress line). `Err` with
    /// [`LlmErrorKind::Cancelled`] when cancelled.
    async fn batch_send(
        &self,
        req: HttpRequest,
        control: &Control,
        on_progress: Option<&RefCell<&mut dyn FnMut(&Progress)>>,
    ) -> Result<Value, LlmError> {
        let p = &self.provider;
        let retries = std::cell::Cell::new(0);
        self.send_with_retries(
            || req.clone(),
            // A results file is JSONL, not one JSON value: handed back as a string.
            |resp| Ok(serde_json::from_str(&resp.body).unwrap_or(Value::String(resp.body))),
            (p.kind, &p.model, &p.base_url),
            control,
            false,
            &retries,
            on_progress,
        )
        .await
        .map(|(v, _)| v)
    }

    /// Submit `pending` (indices into `samples`) as one batch; its log entry.
    async fn batch_submit(
        &self,
        samples: &[Sample],
        pending: &[usize],
        control: &Control,
    ) -> Result<BatchEntry, LlmError> {
        let providers: Vec<ProviderConfig> =
            pending.iter().map(|&i| self.provider.for_suite(samples[i].suite)).collect();
        let requests: Vec<(&ProviderConfig, &[Message])> = pending
            .iter()
            .zip(&providers)
            .map(|(&i, p)| match &samples[i].body {
                SampleBody::Single(s) => (p, s.messages.as_slice()),
                _ => unreachable!("run_batch checks that every sample is single"),
            })
            .collect();
        let timeout = self.options.timeout_ms;
        let file_id = if self.provider.kind == ProviderKind::OpenAi {
            let jsonl = self.provider.batch_jsonl(&requests);
            let v =
                self.batch_send(self.provider.batch_upload_request(&jsonl, &self.key, timeout), control, None).await?;
            Some(
                v.get("id")
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .ok_or_else(|| bad("The file upload's answer has no id."))?,
            )
        } else {
            None
        };
        let req = self.provider.batch_create_request(&requests, file_id.as_deref(), &self.key, timeout);
        let v = self.batch_send(req, control, None).await?;
        Ok(BatchEntry {
            batch_id: self.provider.parse_batch_id(&v)?,
            provider: self.provider.kind,
            model: self.provider.model.clone(),
            sample_ids: pending.iter().map(|&i| samples[i].id.clone()).collect(),
        })
    }

    /// Poll `batch` until it ends (with back-off: `batch_poll_ms`, doubling to `batch_poll_max_ms`) and
    /// return the replies it gave, by sample id. `Err` cancelled when cancelled (the batch stays open).
    async fn batch_collect(
        &self,
        batch: &BatchEntry,
        control: &Control,
        on_progress: &mut dyn FnMut(&Progress),
    ) -> Result<HashMap<String, Reply>, LlmError> {
        let timeout = self.options.timeout_ms;
        let mut wait = self.options.batch_poll_ms.max(1);
        // A look that must be retried says so on the progress line, as a chat turn's does.
        let cb = RefCell::new(on_progress);
        let (state, results, inline) = loop {
            let req = self.provider.batch_status_request(&batch.batch_id, &self.key, timeout);
            let v = self.batch_send(req, control, Some(&cb)).await?;
            match self.provider.parse_batch_status(&v)? {
                BatchStatus::Ended { state, results, inline } => break (state, results, inline),
                BatchStatus::Running { state, finished, total } => {
                    let counts = match (finished, total) {
                        (Some(f), Some(t)) => format!(", {f} of {t} finished"),
                        _ => String::new(),
                    };
                    self.set_batch_note(Some(format!(
                        "batch {} {state}{counts}; next look in {} s",
                        batch.batch_id,
                        wait.div_ceil(1000)
                    )));
                    (cb.borrow_mut())(&self.snapshot());
                    if !self.sleep_unless_cancelled(wait, control).await {
                        return Err(LlmError::cancelled());
                    }
                    wait = (wait * 2).min(self.options.batch_poll_max_ms.max(1));
                }
            }
        };
        let file = match &results {
            Some(at) => {
                let req = self.provider.batch_results_request(at, &self.key, timeout);
                match self.batch_send(req, control, Some(&cb)).await {
                    Ok(Value::String(s)) => Some(s),
                    Ok(v) => Some(v.to_string()),
                    Err(e) if e.kind == LlmErrorKind::Cancelled => return Err(e),
                    Err(_) => None,
                }
            }
            None => None,
        };
        let replies = self.provider.parse_batch_results(file.as_deref(), inline.as_ref());
        let got: HashMap<String, Reply> =
            replies.into_iter().filter_map(|(i, r)| Some((batch.sample_ids.get(i)?.clone(), r.ok()?))).collect();
        let sent_again = batch.sample_ids.len() - got.len();
        self.set_batch_note(Some(format!(
            "batch {} {state}: {} answered{}",
            batch.batch_id,
            got.len(),
            if sent_again > 0 { format!(", {sent_again} sent again as ordinary requests") } else { String::new() }
        )));
        (cb.borrow_mut())(&self.snapshot());
        Ok(got)
    }

    /// Run `samples` through the provider's batch API (see the module doc), then as [`Runner::run`]
    /// does. `Err` before anything is sent when a sample is a dialogue or the provider's batch API
    /// refuses the batch; a cancel while the batch is open returns a cancelled result (the batch is
    /// in the log, and a rerun polls it).
    pub async fn run_batch(
        &self,
        samples: &[Sample],
        log: &RunLog,
        control: &Control,
        on_entry: &mut dyn FnMut(&LogEntry),
        on_progress: &mut dyn FnMut(&Progress),
    ) -> Result<RunResult, LlmError> {
        if samples.iter().any(|s| !matches!(s.body, SampleBody::Single(_))) {
            return Err(LlmError::new(LlmErrorKind::BadRequest, DIALOGUES_DO_NOT_BATCH));
        }
        let prior = log.outcomes();
        let pending: Vec<usize> = (0..samples.len())
            .filter(|&i| match prior.get(samples[i].id.as_str()) {
                Some(o) => self.options.retry_errors && o.error.is_some(),
                None => true,
            })
            .collect();
        // A batch of this run still open in the log: one with a sample not yet answered.
        let open = log
            .entries
            .iter()
            .rev()
            .filter_map(|e| match e {
                LogEntry::Batch(b) => Some(b),
                _ => None,
            })
            .find(|b| {
                b.provider == self.provider.kind
                    && b.model == self.provider.model
                    && b.sample_ids.iter().any(|id| pending.iter().any(|&i| samples[i].id == *id))
            })
            .cloned();
        if !pending.is_empty() {
            let batch = match open {
                Some(b) => b,
                None if self.over_limit() => return Ok(self.run(samples, log, control, on_entry, on_progress).await),
                None => match self.batch_submit(samples, &pending, control).await {
                    Ok(b) => {
                        on_entry(&LogEntry::Batch(b.clone()));
                        b
                    }
                    Err(e) if e.kind == LlmErrorKind::Cancelled => {
                        return Ok(self.run(samples, log, &cancelled(), on_entry, on_progress).await);
                    }
                    Err(e) => return Err(e),
                },
            };
            match self.batch_collect(&batch, control, on_progress).await {
                Ok(got) => self.prefill(&batch.batch_id, got),
                Err(e) if e.kind == LlmErrorKind::Cancelled => {
                    return Ok(self.run(samples, log, &cancelled(), on_entry, on_progress).await);
                }
                // Its state is unknown (the look failed, or its reply could not be read): it may still
                // run, so sending every item again would pay twice. The run stops; the log keeps the
                // batch, and running again goes on polling it.
                Err(e) => {
                    self.set_batch_note(Some(format!("batch {}: {}", batch.batch_id, e.message)));
                    return Err(LlmError::new(
                        e.kind,
                        format!(
                            "Looking at batch {} failed ({}); it may still be running, so nothing was sent again. \
                             Run again (or Resume) to go on polling it: the log keeps its id.",
                            batch.batch_id, e.message
                        ),
                    ));
                }
            }
        }
        Ok(self.run(samples, log, control, on_entry, on_progress).await)
    }
}

/// A control already cancelled: the runner then reports the log's outcomes and sends nothing.
fn cancelled() -> Control {
    let c = Control::new();
    c.cancel();
    c
}

#[cfg(test)]
mod id_tests {
    use super::*;

    fn openai() -> ProviderConfig {
        ProviderConfig::new(ProviderKind::OpenAi, "http://127.0.0.1:1/v1", "m")
    }

    fn line(id: &str, text: &str) -> String {
        json!({"custom_id": id, "response": {"status_code": 200, "body":
            {"choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]}}})
        .to_string()
    }

    /// Issue 71: `s+1` and `s01`, never sent, were read as `s1` (a wrong answer recorded for a sample),
    /// and of two results for one id the last won silently.
    #[test]
    fn ids_are_read_exactly_and_a_duplicate_is_refused() {
        assert_eq!(index_of("s1"), Some(1));
        assert_eq!(index_of("s0"), Some(0));
        for bad in ["s+1", "s01", " s1", "s1 ", "s", "1", "S1", "s-1", "s１"] {
            assert_eq!(index_of(bad), None, "{bad:?}");
        }
        let file =
            [line("s0", "zero"), line("s+1", "junk"), line("s01", "junk"), line("s2", "a"), line("s2", "b")].join("\n");
        let r = openai().parse_batch_results(Some(&file), None);
        assert_eq!(r.len(), 2, "s0 and s2 only: {:?}", r.keys().collect::<Vec<_>>());
        assert_eq!(r[&0].as_ref().unwrap().text, "zero");
        let e = r[&2].as_ref().unwrap_err();
        assert!(e.message.contains("more than one result for request s2"), "{}", e.message);
    }
}

//! The runner: samples in, outcomes out.
//!
//! - **Concurrency**: `options.concurrency` workers pull samples from one queue (single-threaded
//!   async; the transport does the waiting).
//! - **Retries**: rate limits (429), server errors (5xx), timeouts, network errors and malformed
//!   answers are retried up to `max_retries` times. The wait is the provider's `Retry-After` /
//!   rate-limit reset when given (capped by `max_wait_ms`), else exponential backoff
//!   `base · 2^attempt` (capped by `backoff_max_ms`) with "equal jitter" from a seeded core [`Rng`]
//!   (no global RNG: the same seed gives the same waits). Auth, unknown model, context too long and
//!   other 4xx fail at once. A sample that still fails gets an outcome with `error` (never a panic);
//!   it is not scored and counts as an error, not as a wrong answer.
//! - **Timeout**: per request (`timeout_ms`), given to the transport and raced with the clock.
//! - **Pause / cancel**: a shared [`Control`]; pause holds new requests, cancel stops everything,
//!   including requests in flight and backoff waits. A cancelled sample gets no outcome (so a rerun
//!   does it), but a dialogue's finished turns are already logged.
//! - **Resume**: every finished sample is one [`LogEntry::Outcome`] line and every dialogue turn one
//!   [`LogEntry::Turn`] line, emitted through `on_entry` as soon as they happen. Given the previous
//!   log, samples with an outcome are skipped (with `retry_errors`, failed ones are redone) and a
//!   half-finished dialogue is rebuilt by feeding its logged replies, so no request is sent twice.
//! - **Cache**: before a request, [`Cache::get`] by [`cache_key`]; successful replies are put.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use futures::future::{Either, join_all, select};
use serde::{Deserialize, Serialize};
use wmlab_core::Rng;
use wmlab_core::llm::{Dialogue, Message, Metric, Reference, Sample, SampleBody, Suite, metrics};

use crate::cache::{Cache, cache_key};
use crate::error::{LlmError, LlmErrorKind, from_status, from_transport};
use crate::provider::{ProviderConfig, Reply};
use crate::{Clock, Secret, Transport};
pub use wmlab_core::llm::outcome::{Outcome, TurnEntry};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunOptions {
    /// Requests in flight at once (at least 1).
    pub concurrency: usize,
    /// Retries after the first attempt of each request.
    pub max_retries: u32,
    pub backoff_base_ms: u64,
    pub backoff_max_ms: u64,
    /// Longest wait honoured from `Retry-After` / rate-limit reset headers.
    pub max_wait_ms: u64,
    /// Per request.
    pub timeout_ms: u64,
    /// Seed of the backoff jitter.
    pub seed: u64,
    /// Redo samples whose logged outcome has an error.
    pub retry_errors: bool,
    /// Keep the prompt messages in each outcome (large for long-context suites).
    pub keep_prompts: bool,
    /// User prices in currency units per 1M tokens, for the cost estimate.
    pub price_in_per_m: Option<f64>,
    pub price_out_per_m: Option<f64>,
    /// A spending limit in the prices' currency: no request is sent once the estimated cost so far plus
    /// the last request's cost would pass it (requests already in flight finish). Needs a price.
    pub max_cost: Option<f64>,
    /// How often pause/cancel are checked while waiting.
    pub poll_ms: u64,
    /// Batch mode ([`Runner::run_batch`]): the first wait between looks at an open batch, doubling up to
    /// `batch_poll_max_ms`.
    #[serde(default = "batch_poll_ms")]
    pub batch_poll_ms: u64,
    /// The longest wait between looks at an open batch.
    #[serde(default = "batch_poll_max_ms")]
    pub batch_poll_max_ms: u64,
}

fn batch_poll_ms() -> u64 {
    10_000
}

fn batch_poll_max_ms() -> u64 {
    300_000
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            concurrency: 4,
            max_retries: 6,
            backoff_base_ms: 1000,
            backoff_max_ms: 60_000,
            // A provider's Retry-After of a day would hold a run for hours: a minute, then the retry.
            max_wait_ms: 60_000,
            timeout_ms: 120_000,
            seed: 0,
            retry_errors: false,
            keep_prompts: true,
            price_in_per_m: None,
            price_out_per_m: None,
            max_cost: None,
            poll_ms: 50,
            batch_poll_ms: batch_poll_ms(),
            batch_poll_max_ms: batch_poll_max_ms(),
        }
    }
}

/// Pause / resume / cancel, shared between the UI (or a signal handler) and the runner.
#[derive(Clone, Debug, Default)]
pub struct Control(Arc<AtomicU8>);

const RUNNING: u8 = 0;
const PAUSED: u8 = 1;
const CANCELLED: u8 = 2;

impl Control {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn pause(&self) {
        let _ = self.0.compare_exchange(RUNNING, PAUSED, Ordering::SeqCst, Ordering::SeqCst);
    }
    pub fn resume(&self) {
        let _ = self.0.compare_exchange(PAUSED, RUNNING, Ordering::SeqCst, Ordering::SeqCst);
    }
    pub fn cancel(&self) {
        self.0.store(CANCELLED, Ordering::SeqCst);
    }
    pub fn is_paused(&self) -> bool {
        self.0.load(Ordering::SeqCst) == PAUSED
    }
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst) == CANCELLED
    }
}

/// Progress so far (sent after every finished request and sample).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// Samples finished, including those taken from the previous log.
    pub done: usize,
    pub total: usize,
    /// Of `done`: taken from the previous log.
    pub resumed: usize,
    /// Of `done`: finished with an error.
    pub failed: usize,
    /// Requests answered by the provider in this session (not counting cache hits).
    pub requests: u64,
    pub cache_hits: u64,
    pub retries: u64,
    /// Tokens of all outcomes so far (previous log included).
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub elapsed_ms: f64,
    /// Estimated time left, from this session's pace: per finished sample, or before the first sample
    /// finishes (a long N-back block), per answered turn.
    pub eta_ms: Option<f64>,
    /// Turns (requests) answered in this session, and about how many this session's samples take in all
    /// ([`wmlab_core::llm::Sample::expected_requests`]): the progress line's count inside a sample.
    #[serde(default)]
    pub turns_done: u64,
    /// See `turns_done`.
    #[serde(default)]
    pub turns_total: u64,
    /// From the user's prices, when given.
    pub cost: Option<f64>,
    /// A retry's wait in progress (the provider's rate limit or a backoff), for the progress line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting: Option<Waiting>,
    /// Batch mode: where the run's batch stands (`batch msgbatch_… in_progress, 3 of 8 finished`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<String>,
}

/// A wait before a retry.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Waiting {
    pub ms: u64,
    /// This retry's number and the most there will be.
    pub retry: u32,
    pub of: u32,
    /// The provider asked for it (`Retry-After` or a rate-limit reset), rather than our backoff.
    pub rate_limit: bool,
    /// The provider asked for longer than the run's cap (`max_wait_ms`), which was used instead.
    pub capped_from_ms: Option<u64>,
}

impl Waiting {
    /// `waiting 300 s for the provider's rate limit (it asked for 1800 s), retry 2 of 6`.
    pub fn message(&self) -> String {
        let why = if self.rate_limit { "for the provider's rate limit" } else { "before retrying" };
        let asked =
            self.capped_from_ms.map(|ms| format!(" (it asked for {} s)", ms.div_ceil(1000))).unwrap_or_default();
        format!("waiting {} s {why}{asked}, retry {} of {}", self.ms.div_ceil(1000), self.retry, self.of)
    }
}

/// Extra information a caller wants in the log (the CLI writes the run's settings first).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MetaEntry {
    pub info: serde_json::Value,
}

/// One line of the run log (JSONL).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LogEntry {
    Meta(MetaEntry),
    Turn(TurnEntry),
    Outcome(Box<Outcome>),
    /// A batch submitted in batch mode ([`Runner::run_batch`]), for a rerun to poll instead of sending
    /// another.
    Batch(crate::batch::BatchEntry),
}

impl LogEntry {
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).expect("log entries serialise")
    }
}

/// A parsed run log.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunLog {
    pub entries: Vec<LogEntry>,
    /// Lines that did not parse (e.g. the last line cut by a crash).
    pub bad_lines: usize,
}

impl RunLog {
    pub fn parse(text: &str) -> RunLog {
        let mut log = RunLog::default();
        for line in text.lines() {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<LogEntry>(line) {
                Ok(e) => log.entries.push(e),
                Err(_) => log.bad_lines += 1,
            }
        }
        log
    }
    /// The last outcome per sample id.
    pub fn outcomes(&self) -> HashMap<&str, &Outcome> {
        let mut m = HashMap::new();
        for e in &self.entries {
            if let LogEntry::Outcome(o) = e {
                m.insert(o.sample_id.as_str(), &**o);
            }
        }
        m
    }
    /// The contiguous logged turns 0..k per dialogue (duplicates by index are ignored).
    pub fn turns(&self) -> HashMap<&str, Vec<&TurnEntry>> {
        let mut m: HashMap<&str, Vec<&TurnEntry>> = HashMap::new();
        for e in &self.entries {
            if let LogEntry::Turn(t) = e {
                let v = m.entry(t.sample_id.as_str()).or_default();
                if t.turn as usize == v.len() {
                    v.push(t);
                }
            }
        }
        m
    }
    pub fn meta(&self) -> Option<&serde_json::Value> {
        self.entries.iter().find_map(|e| match e {
            LogEntry::Meta(m) => Some(&m.info),
            _ => None,
        })
    }
}

/// What [`Runner::run`] returns.
#[derive(Clone, Debug, PartialEq)]
pub struct RunResult {
    /// One per sample that has an outcome (previous log included), in sample order.
    pub outcomes: Vec<Outcome>,
    pub cancelled: bool,
    /// The run stopped at [`RunOptions::max_cost`] (the samples it did not reach have no outcome, so a
    /// rerun with a higher limit continues).
    pub limit_reached: bool,
    pub progress: Progress,
}

/// A successful call.
#[derive(Clone, Debug)]
pub struct Call {
    pub reply: Reply,
    pub latency_ms: f64,
    pub cached: bool,
}

pub struct Runner<'a, T, C, K> {
    pub transport: &'a T,
    pub clock: &'a C,
    pub cache: &'a K,
    pub provider: ProviderConfig,
    pub(crate) key: Secret,
    pub options: RunOptions,
    rng: RefCell<Rng>,
    progress: RefCell<Progress>,
    start_ms: Cell<f64>,
    session_done: Cell<usize>,
    /// The estimated cost of the last answered request (for the spending limit).
    last_cost: Cell<f64>,
    limit_reached: Cell<bool>,
    /// Batch mode: replies a batch returned, by sample id, with the batch's id (taken by the sample).
    prefilled: RefCell<HashMap<String, (String, Reply)>>,
    /// Batch mode: where the batch stands, for the progress line.
    batch_note: RefCell<Option<String>>,
}

impl<'a, T: Transport, C: Clock, K: Cache> Runner<'a, T, C, K> {
    pub fn new(
        transport: &'a T,
        clock: &'a C,
        cache: &'a K,
        provider: ProviderConfig,
        key: Secret,
        options: RunOptions,
    ) -> Self {
        let rng = Rng::from_u64(options.seed ^ 0x6C6C_6D5F_6A69_7474);
        Runner {
            transport,
            clock,
            cache,
            provider,
            key,
            options,
            rng: RefCell::new(rng),
            progress: RefCell::new(Progress::default()),
            start_ms: Cell::new(0.0),
            session_done: Cell::new(0),
            last_cost: Cell::new(0.0),
            limit_reached: Cell::new(false),
            prefilled: RefCell::new(HashMap::new()),
            batch_note: RefCell::new(None),
        }
    }

    /// The estimated cost of `tokens_in` and `tokens_out` at the user's prices.
    fn cost_of(&self, tokens_in: u64, tokens_out: u64) -> f64 {
        tokens_in as f64 / 1e6 * self.options.price_in_per_m.unwrap_or(0.0)
            + tokens_out as f64 / 1e6 * self.options.price_out_per_m.unwrap_or(0.0)
    }

    /// Whether the spending limit stops the next request: the cost so far plus the last request's.
    pub(crate) fn over_limit(&self) -> bool {
        let Some(max) = self.options.max_cost else { return false };
        if self.limit_reached.get() {
            return true;
        }
        let p = self.progress.borrow();
        let spent = self.cost_of(p.tokens_in, p.tokens_out);
        drop(p);
        if spent + self.last_cost.get() > max {
            self.limit_reached.set(true);
        }
        self.limit_reached.get()
    }

    async fn wait_cancel(&self, control: &Control) {
        while !control.is_cancelled() {
            self.clock.sleep(self.options.poll_ms.max(1)).await;
        }
    }

    /// Sleep `ms`, returning early (false) when cancelled.
    pub(crate) async fn sleep_unless_cancelled(&self, ms: u64, control: &Control) -> bool {
        let s = Box::pin(self.clock.sleep(ms));
        let c = Box::pin(self.wait_cancel(control));
        matches!(select(s, c).await, Either::Left(_)) && !control.is_cancelled()
    }

    pub(crate) fn backoff_ms(&self, attempt: u32) -> u64 {
        let exp = self
            .options
            .backoff_base_ms
            .saturating_mul(1u64 << attempt.min(30))
            .min(self.options.backoff_max_ms)
            .max(1);
        let half = exp / 2;
        let jitter = (self.rng.borrow_mut().unit_f64() * (exp - half) as f64) as u64;
        half + jitter
    }

    fn bump(&self, f: impl FnOnce(&mut Progress)) {
        f(&mut self.progress.borrow_mut());
    }

    /// One request with cache, retries, timeout, pause and cancel, sent with `provider` (the run's
    /// configuration as a sample's suite sends it, [`ProviderConfig::for_suite`]). `retries` counts the
    /// retries made.
    /// Send the visual suite's one-image probe ([`wmlab_core::llm::vision::image_probe`]) and return the
    /// reply: an error here means the endpoint or model does not take images.
    pub async fn probe_images(&self, control: &Control) -> Result<String, LlmError> {
        let msgs = wmlab_core::llm::vision::image_probe();
        let retries = Cell::new(0);
        let provider = self.provider.for_suite(Suite::Vision);
        self.call(&provider, &msgs, 1, control, &retries, None).await.map(|c| c.reply.text)
    }

    /// `epoch`: the sample's repeat ([`Sample::epoch`]); each repeat has its own cache entry, so a
    /// repeat asks the model again rather than reading the first one's reply.
    pub async fn call(
        &self,
        provider: &ProviderConfig,
        messages: &[Message],
        epoch: u32,
        control: &Control,
        retries: &Cell<u32>,
        on_progress: Option<&RefCell<&mut dyn FnMut(&Progress)>>,
    ) -> Result<Call, LlmError> {
        let key = cache_key(provider, messages, epoch);
        if let Some(reply) = self.cache.get(&key).await {
            self.bump(|p| p.cache_hits += 1);
            return Ok(Call { reply, latency_ms: 0.0, cached: true });
        }
        let reply = self
            .send_with_retries(
                || provider.chat_request(messages, &self.key, self.options.timeout_ms),
                |resp| provider.parse_reply(&resp.body),
                (provider.kind, &provider.model, &provider.base_url),
                control,
                true,
                retries,
                on_progress,
            )
            .await?;
        let (reply, latency) = reply;
        self.last_cost.set(self.cost_of(reply.tokens_in.unwrap_or(0), reply.tokens_out.unwrap_or(0)));
        self.bump(|p| p.requests += 1);
        self.cache.put(&key, &reply).await;
        Ok(Call { reply, latency_ms: latency, cached: false })
    }

    /// One request under the run's policy, the one every request of a run follows (chat turns and the
    /// batch protocol alike): it waits while paused, stops when cancelled (or, with `stop_at_limit`, at
    /// the spending limit), gives up after the timeout, and retries rate limits, server errors and
    /// network failures `max_retries` times — after the provider's `Retry-After` (capped at
    /// `max_wait_ms`) or an exponential backoff — saying on the progress line what it waits for.
    /// `parse` reads a 2xx answer. The answer and its latency (ms), or the last error.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn send_with_retries<R>(
        &self,
        request: impl Fn() -> crate::HttpRequest,
        parse: impl Fn(crate::HttpResponse) -> Result<R, LlmError>,
        (kind, model, base_url): (crate::ProviderKind, &str, &str),
        control: &Control,
        stop_at_limit: bool,
        retries: &Cell<u32>,
        on_progress: Option<&RefCell<&mut dyn FnMut(&Progress)>>,
    ) -> Result<(R, f64), LlmError> {
        let timeout = self.options.timeout_ms;
        let mut attempt = 0u32;
        loop {
            while control.is_paused() {
                self.clock.sleep(self.options.poll_ms.max(1)).await;
            }
            if control.is_cancelled() || (stop_at_limit && self.over_limit()) {
                // At the limit the sample stops as a cancelled one does: no outcome, resumable.
                return Err(LlmError::cancelled());
            }
            let t0 = self.clock.now_ms();
            let send = Box::pin(self.transport.send(request()));
            let guard = Box::pin(async {
                let t = Box::pin(self.clock.sleep(timeout + 1000));
                let c = Box::pin(self.wait_cancel(control));
                select(t, c).await;
            });
            let result = match select(send, guard).await {
                Either::Left((r, _)) => r,
                Either::Right(_) if control.is_cancelled() => return Err(LlmError::cancelled()),
                Either::Right(_) => Err(crate::TransportError::Timeout),
            };
            let latency = self.clock.now_ms() - t0;
            let outcome = match result {
                Err(e) => Err(from_transport(&e, kind, base_url, timeout)),
                Ok(resp) if (200..300).contains(&resp.status) => parse(resp),
                Ok(resp) => Err(from_status(&resp, kind, model, &self.key, self.clock.now_ms())),
            };
            match outcome {
                Ok(r) => return Ok((r, latency)),
                Err(e) if e.kind == LlmErrorKind::Cancelled => return Err(e),
                Err(e) if e.kind.retryable() && attempt < self.options.max_retries => {
                    let wait = match e.retry_after_ms {
                        Some(ms) => ms.min(self.options.max_wait_ms),
                        None => self.backoff_ms(attempt),
                    };
                    attempt += 1;
                    retries.set(retries.get() + 1);
                    let waiting = Waiting {
                        ms: wait,
                        retry: attempt,
                        of: self.options.max_retries,
                        rate_limit: e.retry_after_ms.is_some(),
                        capped_from_ms: e.retry_after_ms.filter(|&ms| ms > self.options.max_wait_ms),
                    };
                    self.bump(|p| {
                        p.retries += 1;
                        p.waiting = Some(waiting);
                    });
                    if let Some(cb) = on_progress {
                        self.emit_progress(cb);
                    }
                    let slept = self.sleep_unless_cancelled(wait, control).await;
                    self.bump(|p| p.waiting = None);
                    if !slept {
                        return Err(LlmError::cancelled());
                    }
                }
                Err(mut e) => {
                    if attempt > 0 {
                        e.message = format!("{} (after {} attempts)", e.message, attempt + 1);
                    }
                    return Err(e);
                }
            }
        }
    }

    /// The progress now, with elapsed time, ETA and cost filled in.
    pub fn snapshot(&self) -> Progress {
        let mut p = self.progress.borrow().clone();
        p.elapsed_ms = self.clock.now_ms() - self.start_ms.get();
        let session = self.session_done.get();
        let left = p.total.saturating_sub(p.done);
        p.eta_ms = if session > 0 {
            Some(p.elapsed_ms / session as f64 * left as f64)
        } else if p.turns_done > 0 && p.turns_total > p.turns_done {
            // No sample finished yet: the pace per turn over the turns still to come.
            Some(p.elapsed_ms / p.turns_done as f64 * (p.turns_total - p.turns_done) as f64)
        } else {
            None
        };
        if self.options.price_in_per_m.is_some() || self.options.price_out_per_m.is_some() {
            p.cost = Some(self.cost_of(p.tokens_in, p.tokens_out));
        }
        p.batch = self.batch_note.borrow().clone();
        p
    }

    /// Batch mode: the progress line's note on the batch.
    pub(crate) fn set_batch_note(&self, note: Option<String>) {
        // The note carries the provider's batch state: shown on progress lines, so made printable.
        *self.batch_note.borrow_mut() = note.map(|n| crate::error::printable(&n));
    }

    /// Batch mode: replies of batch `id` by sample id, answered without a request by [`Runner::run`].
    pub(crate) fn prefill(&self, id: &str, replies: HashMap<String, Reply>) {
        let mut p = self.prefilled.borrow_mut();
        for (sample, reply) in replies {
            p.insert(sample, (id.to_string(), reply));
        }
    }

    fn emit_progress(&self, on_progress: &RefCell<&mut dyn FnMut(&Progress)>) {
        let p = self.snapshot();
        (on_progress.borrow_mut())(&p);
    }

    /// Run `samples`, skipping those finished in `log`. `on_entry` receives each new log line (write
    /// it to durable storage before returning); `on_progress` receives progress updates.
    pub async fn run(
        &self,
        samples: &[Sample],
        log: &RunLog,
        control: &Control,
        on_entry: &mut dyn FnMut(&LogEntry),
        on_progress: &mut dyn FnMut(&Progress),
    ) -> RunResult {
        self.start_ms.set(self.clock.now_ms());
        self.session_done.set(0);
        let prior = log.outcomes();
        let prior_turns = log.turns();
        let mut results: Vec<Option<Outcome>> = vec![None; samples.len()];
        let mut queue = VecDeque::new();
        {
            let mut p = self.progress.borrow_mut();
            *p = Progress { total: samples.len(), ..Default::default() };
            for (i, s) in samples.iter().enumerate() {
                match prior.get(s.id.as_str()) {
                    Some(o) if !(self.options.retry_errors && o.error.is_some()) => {
                        p.done += 1;
                        p.resumed += 1;
                        p.failed += o.error.is_some() as usize;
                        p.tokens_in += o.tokens_in;
                        p.tokens_out += o.tokens_out;
                        results[i] = Some((*o).clone());
                    }
                    _ => {
                        p.turns_total += s.expected_requests() as u64;
                        queue.push_back(i);
                    }
                }
            }
        }
        let on_entry = RefCell::new(on_entry);
        let on_progress = RefCell::new(on_progress);
        self.emit_progress(&on_progress);
        let queue = RefCell::new(queue);
        let results = RefCell::new(results);
        self.limit_reached.set(false);
        let workers = (0..self.options.concurrency.max(1).min(queue.borrow().len())).map(|_| async {
            loop {
                if control.is_cancelled() || self.over_limit() {
                    break;
                }
                let Some(i) = queue.borrow_mut().pop_front() else { break };
                let s = &samples[i];
                let turns: Vec<TurnEntry> = prior_turns
                    .get(s.id.as_str())
                    .map(|v| v.iter().map(|t| (*t).clone()).collect())
                    .unwrap_or_default();
                let Some(o) = self.run_sample(s, turns, control, &on_entry, &on_progress).await else {
                    continue;
                };
                (on_entry.borrow_mut())(&LogEntry::Outcome(Box::new(o.clone())));
                self.session_done.set(self.session_done.get() + 1);
                self.bump(|p| {
                    p.done += 1;
                    p.failed += o.error.is_some() as usize;
                });
                results.borrow_mut()[i] = Some(o);
                self.emit_progress(&on_progress);
            }
        });
        join_all(workers).await;
        let cancelled = control.is_cancelled();
        self.emit_progress(&on_progress);
        let mut progress = self.snapshot();
        progress.eta_ms = None;
        RunResult {
            outcomes: results.into_inner().into_iter().flatten().collect(),
            cancelled,
            limit_reached: self.limit_reached.get(),
            progress,
        }
    }

    fn base_outcome(&self, s: &Sample) -> Outcome {
        Outcome {
            sample_id: s.id.clone(),
            suite: s.suite,
            task: s.task.clone(),
            conditions: s.conditions.clone(),
            messages: Vec::new(),
            reply: None,
            answer: None,
            reference: None,
            scores: BTreeMap::new(),
            score_errors: Vec::new(),
            targets: None,
            answers: None,
            trials: Vec::new(),
            sdt: None,
            row: None,
            cell: None,
            finish_reason: None,
            latency_ms: 0.0,
            requests: 0,
            cache_hits: 0,
            retries: 0,
            tokens_in: 0,
            tokens_out: 0,
            tokens_reasoning: 0,
            reasoning: None,
            error: None,
            batch: None,
            epoch: s.epoch,
        }
    }

    /// Run a multi-turn protocol to its end: replay the logged turns, then ask and feed until the dialogue
    /// is finished or a call fails (the error goes in the outcome). `None` when cancelled.
    #[allow(clippy::too_many_arguments)]
    async fn drive<D: Dialogue>(
        &self,
        d: &mut D,
        s: &Sample,
        prior_turns: &[TurnEntry],
        o: &mut Outcome,
        sample_provider: &ProviderConfig,
        control: &Control,
        retries: &Cell<u32>,
        on_entry: &RefCell<&mut dyn FnMut(&LogEntry)>,
        on_progress: &RefCell<&mut dyn FnMut(&Progress)>,
    ) -> Option<()> {
        let mut turn = 0u32;
        for t in prior_turns {
            if d.next_request().is_none() {
                break;
            }
            d.feed(&t.reply);
            turn += 1;
            o.add_turn(t);
        }
        self.bump(|p| {
            p.tokens_in += o.tokens_in;
            p.tokens_out += o.tokens_out;
        });
        while let Some(msgs) = d.next_request() {
            match self.call(sample_provider, &msgs, s.epoch, control, retries, Some(on_progress)).await {
                Err(e) if e.kind == LlmErrorKind::Cancelled => return None,
                Err(e) => {
                    o.error = Some(e);
                    break;
                }
                Ok(call) => {
                    let entry = TurnEntry {
                        sample_id: s.id.clone(),
                        turn,
                        reply: call.reply.text.clone(),
                        latency_ms: call.latency_ms,
                        tokens_in: call.reply.tokens_in.unwrap_or(0),
                        tokens_out: call.reply.tokens_out.unwrap_or(0),
                        cached: call.cached,
                        reasoning: call.reply.reasoning.clone(),
                        tokens_reasoning: call.reply.tokens_reasoning.unwrap_or(0),
                    };
                    (on_entry.borrow_mut())(&LogEntry::Turn(entry.clone()));
                    d.feed(&call.reply.text);
                    turn += 1;
                    o.add_turn(&entry);
                    o.finish_reason = call.reply.finish_reason.clone();
                    self.bump(|p| {
                        p.tokens_in += entry.tokens_in;
                        p.tokens_out += entry.tokens_out;
                        p.turns_done += 1;
                    });
                    self.emit_progress(on_progress);
                }
            }
        }
        Some(())
    }

    /// `None` when cancelled before the sample finished.
    async fn run_sample(
        &self,
        s: &Sample,
        prior_turns: Vec<TurnEntry>,
        control: &Control,
        on_entry: &RefCell<&mut dyn FnMut(&LogEntry)>,
        on_progress: &RefCell<&mut dyn FnMut(&Progress)>,
    ) -> Option<Outcome> {
        let mut o = self.base_outcome(s);
        let retries = Cell::new(0u32);
        let sample_provider = self.provider.for_suite(s.suite);
        match &s.body {
            SampleBody::Single(single) => {
                if self.options.keep_prompts {
                    o.messages = single.messages.clone();
                }
                o.reference = Some(single.reference.clone());
                let batched = self.prefilled.borrow_mut().remove(&s.id);
                let r = match batched {
                    Some((id, reply)) => {
                        o.batch = Some(id);
                        self.bump(|p| p.requests += 1);
                        Ok(Call { reply, latency_ms: 0.0, cached: false })
                    }
                    None => {
                        self.call(&sample_provider, &single.messages, s.epoch, control, &retries, Some(on_progress))
                            .await
                    }
                };
                o.retries = retries.get();
                match r {
                    Err(e) if e.kind == LlmErrorKind::Cancelled => return None,
                    Err(e) => o.error = Some(e),
                    Ok(call) => {
                        let text = call.reply.text.clone();
                        o.latency_ms = call.latency_ms;
                        o.requests = 1;
                        o.cache_hits = call.cached as u32;
                        o.tokens_in = call.reply.tokens_in.unwrap_or(0);
                        o.tokens_out = call.reply.tokens_out.unwrap_or(0);
                        o.tokens_reasoning = call.reply.tokens_reasoning.unwrap_or(0);
                        o.reasoning = call.reply.reasoning.clone();
                        o.finish_reason = call.reply.finish_reason.clone();
                        self.bump(|p| {
                            p.tokens_in += o.tokens_in;
                            p.tokens_out += o.tokens_out;
                        });
                        o.answer = match (&single.reference, single.metrics.first()) {
                            // PI-LLM: the value read for each key asked.
                            (Reference::Agents(keys), Some(Metric::LastValues)) => {
                                Some(wmlab_core::llm::pi::read_for_display(keys, &text))
                            }
                            _ => extract_answer(&single.metrics, &text),
                        };
                        for &m in &single.metrics {
                            match metrics::score(m, &single.reference, &text) {
                                Ok(v) => {
                                    o.scores.insert(m.as_str().to_string(), v);
                                }
                                Err(e) => o.score_errors.push(format!("{}: {e}", m.as_str())),
                            }
                        }
                        o.reply = Some(text);
                    }
                }
            }
            SampleBody::Dialogue(d0) => {
                let mut d = d0.clone();
                self.drive(&mut d, s, &prior_turns, &mut o, &sample_provider, control, &retries, on_entry, on_progress)
                    .await?;
                o.retries = retries.get();
                let k = d.trials.len();
                o.targets = Some(d.conditions.chars().take(k).collect());
                o.answers = Some(d.answers());
                if o.error.is_none() {
                    let sdt = d.scores();
                    for (name, v) in [
                        ("accuracy", sdt.accuracy),
                        ("hit_rate", sdt.hit_rate),
                        ("false_alarm_rate", sdt.false_alarm_rate),
                        ("dprime", sdt.dprime),
                        ("dprime_notebook", sdt.dprime_notebook),
                    ] {
                        o.scores.insert(name.to_string(), v);
                    }
                    o.sdt = Some(sdt);
                }
                o.trials = d.trials.clone();
                if self.options.keep_prompts {
                    o.messages = d.messages.clone();
                }
            }
            SampleBody::Deduction(d0) => {
                let mut d = d0.clone();
                self.drive(&mut d, s, &prior_turns, &mut o, &sample_provider, control, &retries, on_entry, on_progress)
                    .await?;
                o.retries = retries.get();
                o.answers = Some(d.answers.clone());
                o.answer = Some(d.describe());
                if o.error.is_none() {
                    o.scores.extend(d.scores());
                }
                if self.options.keep_prompts {
                    o.messages = d.messages.clone();
                }
            }
            SampleBody::Vision(d0) => {
                let mut d = d0.clone();
                self.drive(&mut d, s, &prior_turns, &mut o, &sample_provider, control, &retries, on_entry, on_progress)
                    .await?;
                o.retries = retries.get();
                o.answers = Some(d.answers_text());
                o.cell = Some(d.cell.clone());
                if o.error.is_none() {
                    match d.scored() {
                        Some(Ok((row, sdt))) => {
                            o.scores.insert("accuracy".into(), row.score());
                            if let Some(sdt) = &sdt {
                                o.scores.insert("dprime".into(), sdt.dprime);
                                o.scores.insert("hit_rate".into(), sdt.hit_rate);
                                o.scores.insert("false_alarm_rate".into(), sdt.false_alarm_rate);
                            }
                            o.sdt = sdt;
                            o.row = Some(row);
                        }
                        Some(Err(e)) => o.score_errors.push(e.to_string()),
                        None => o.score_errors.push("the trial did not finish".into()),
                    }
                }
                if self.options.keep_prompts {
                    o.messages = d.messages.iter().map(Message::without_image_data).collect();
                }
            }
        }
        Some(o)
    }
}

/// What a reply is read as, for display: by the sample's headline metric.
pub fn extract_answer(metric_list: &[Metric], reply: &str) -> Option<String> {
    match metric_list.first()? {
        Metric::FirstInteger => metrics::first_integer(reply).map(str::to_string),
        Metric::FinalAnswerExactMatch | Metric::TheoryOfMind => Some(metrics::parse_final_answer(reply)),
        Metric::CountAccuracy => metrics::count_from_reply(reply).map(|n| n.to_string()),
        Metric::LastValues => None,
        _ => Some(metrics::normalize_generation(reply)),
    }
}

//! What a model's run of one sample came to ([`Outcome`]), its dialogue turns as logged ([`TurnEntry`])
//! and a failed request's classified error ([`LlmError`]): plain data the HTTP runner (`wmlab-llm`)
//! writes and the record and charts ([`super::record`], [`super::charts`]) read.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::nback::TrialRecord;
use super::{Message, Reference, Suite};
use crate::sdt::SdtScores;

/// What kind of failure a request met: what the runner does about it (retry or not) and what a person
/// is told to change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LlmErrorKind {
    /// 401/403: wrong or missing key, or no access.
    Auth,
    /// 404: unknown model or wrong base URL.
    NotFound,
    /// The prompt does not fit the model's context window.
    ContextTooLong,
    /// Any other 4xx: the provider refused the request as written.
    BadRequest,
    /// 429.
    RateLimited,
    /// 5xx (and Anthropic's 529 "overloaded").
    Server,
    /// No answer within the timeout.
    Timeout,
    /// Connection failed (in a browser: also a CORS refusal).
    Network,
    /// A 2xx answer that is not the JSON the provider should send.
    BadResponse,
    /// The provider blocked the prompt or the reply (safety filter).
    Blocked,
    /// The run was cancelled.
    Cancelled,
}

impl LlmErrorKind {
    /// The snake_case name in logs and records (`rate_limited`, `context_too_long`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            LlmErrorKind::Auth => "auth",
            LlmErrorKind::NotFound => "not_found",
            LlmErrorKind::ContextTooLong => "context_too_long",
            LlmErrorKind::BadRequest => "bad_request",
            LlmErrorKind::RateLimited => "rate_limited",
            LlmErrorKind::Server => "server",
            LlmErrorKind::Timeout => "timeout",
            LlmErrorKind::Network => "network",
            LlmErrorKind::BadResponse => "bad_response",
            LlmErrorKind::Blocked => "blocked",
            LlmErrorKind::Cancelled => "cancelled",
        }
    }

    /// Whether trying again later may help.
    pub fn retryable(self) -> bool {
        matches!(
            self,
            LlmErrorKind::RateLimited
                | LlmErrorKind::Server
                | LlmErrorKind::Timeout
                | LlmErrorKind::Network
                | LlmErrorKind::BadResponse
        )
    }
}

/// A classified failure. `message` is plain text for people and never contains the key.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LlmError {
    /// The kind of failure.
    pub kind: LlmErrorKind,
    /// What happened and what to change, in plain words (never the key).
    pub message: String,
    /// The HTTP status, when the provider answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// How long the provider asked us to wait (Retry-After and rate-limit reset headers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<u64>,
}

impl fmt::Display for LlmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LlmError {}

impl LlmError {
    /// An error with this message, its control characters made visible ([`printable`]): messages carry
    /// provider text to terminals and pages.
    pub fn new(kind: LlmErrorKind, message: impl Into<String>) -> Self {
        LlmError { kind, message: printable(&message.into()), status: None, retry_after_ms: None }
    }
    /// The run was cancelled before this request finished.
    pub fn cancelled() -> Self {
        LlmError::new(LlmErrorKind::Cancelled, "Cancelled.")
    }
}

/// Text from a provider made safe to show: every control character but the newline (an escape
/// sequence that would clear a terminal or set its title, a carriage return that would overwrite the
/// line, a bell) written as a visible `\u{…}` escape.
pub fn printable(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() && c != '\n' {
            out.push_str(&c.escape_unicode().to_string());
        } else {
            out.push(c);
        }
    }
    out
}

/// One dialogue turn's reply, logged as it happens (for resume).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TurnEntry {
    /// The sample the turn belongs to.
    pub sample_id: String,
    /// The turn's number in the dialogue, from 0.
    pub turn: u32,
    /// The model's reply (its final answer for a reasoning model).
    pub reply: String,
    /// Milliseconds the request took (0 from the cache).
    #[serde(default)]
    pub latency_ms: f64,
    /// Prompt tokens the provider counted.
    #[serde(default)]
    pub tokens_in: u64,
    /// Reply tokens the provider counted.
    #[serde(default)]
    pub tokens_out: u64,
    /// The reply came from the response cache.
    #[serde(default)]
    pub cached: bool,
    /// A reasoning model's reasoning before its reply (never scored; `reply` is the final answer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// Of `tokens_out`, the reasoning's (when the provider says).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub tokens_reasoning: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The result of one sample.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The sample's id ([`super::Sample::id`]; a repeat's ends in `@r<e>`).
    pub sample_id: String,
    /// The suite the sample belongs to.
    pub suite: Suite,
    /// The sample's task or variant name.
    pub task: String,
    /// The sample's conditions (`n`, `lines`, `updates`, …).
    #[serde(default)]
    pub conditions: BTreeMap<String, String>,
    /// The prompt (single) or the final conversation (dialogue); empty without `keep_prompts`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<Message>,
    /// The raw reply (single samples).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply: Option<String>,
    /// What was read from the reply for scoring (the first integer, the final answer, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// The reference the reply was scored against (single samples).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<Reference>,
    /// Metric name → score (single samples: the sample's metrics; dialogues: `accuracy`, `hit_rate`,
    /// `false_alarm_rate`, `dprime`, `dprime_notebook`). Empty when the sample failed.
    #[serde(default)]
    pub scores: BTreeMap<String, f64>,
    /// Metrics that could not score the reply, each with why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub score_errors: Vec<String>,
    /// Dialogues: the condition string (`m`/`-` per trial).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub targets: Option<String>,
    /// Dialogues: one char per completed trial (`m`, `-`, `?` unusable).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answers: Option<String>,
    /// Dialogues (N-back): each trial's replies and answer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trials: Vec<TrialRecord>,
    /// Dialogues (N-back): hit rate, false-alarm rate, accuracy and d′ of the block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sdt: Option<SdtScores>,
    /// Visual suite: the trial scored by the people's code (long-format row).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row: Option<crate::record::TrialRow>,
    /// Visual suite: the design cell of the trial (what summaries group by).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell: Option<crate::Conditions>,
    /// Why the provider stopped the last reply (`stop`, `length`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// Sum over the sample's requests (cache hits count 0).
    pub latency_ms: f64,
    /// Requests answered (dialogues: turns), cache hits included.
    pub requests: u32,
    /// Requests answered from the cache.
    #[serde(default)]
    pub cache_hits: u32,
    /// Retries made (429, 5xx, timeouts, network).
    #[serde(default)]
    pub retries: u32,
    /// Prompt tokens over the sample's requests.
    pub tokens_in: u64,
    /// Reply tokens over the sample's requests (reasoning included).
    pub tokens_out: u64,
    /// Of `tokens_out`, the reasoning's (when the provider says).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub tokens_reasoning: u64,
    /// Single samples: a reasoning model's reasoning before its reply (logged, never scored).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// Why the sample failed, classified; `None` when it was answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<LlmError>,
    /// Batch mode: the id of the batch that answered the sample (`None`: an ordinary request).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<String>,
    /// The sample's repeat of its item ([`super::with_repeats`]), from 1; absent when 1.
    #[serde(default = "super::first_epoch", skip_serializing_if = "super::is_first_epoch")]
    pub epoch: u32,
}

impl Outcome {
    /// Count one dialogue turn (replayed from the log or just answered) into the sample's totals.
    pub fn add_turn(&mut self, t: &TurnEntry) {
        self.latency_ms += t.latency_ms;
        self.tokens_in += t.tokens_in;
        self.tokens_out += t.tokens_out;
        self.tokens_reasoning += t.tokens_reasoning;
        self.requests += 1;
        self.cache_hits += t.cached as u32;
    }
}

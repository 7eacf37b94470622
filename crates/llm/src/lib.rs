//! # wmlab-llm
//!
//! The LLM runner of WM Lab: provider request builders and reply parsers (OpenAI-compatible,
//! Anthropic Messages, Gemini generateContent), friendly error classification, and a runner with a
//! concurrency limit, retries with seeded jittered backoff, timeouts, pause/cancel, progress, a
//! resumable log and a response cache. Scoring and record building use the pure core.
//!
//! The IO edges are two small traits so the same runner runs natively (CLI) and in wasm32 (the app):
//! - [`Transport`]: send one HTTP request ([`native::UreqTransport`], [`web::FetchTransport`]);
//! - [`Clock`]: read a millisecond clock and sleep ([`native::StdClock`], [`web::WebClock`]).
//!
//! Both use `async fn` in traits without a `Send` bound (wasm futures are not `Send`); the runner
//! drives its workers on one thread (`futures::executor::block_on` natively, the browser's event
//! loop in wasm).
//!
//! Keys: the API key is a [`Secret`], passed beside the [`ProviderConfig`] and only ever written into
//! request headers. It is never serialised, never part of a cache key, an outcome, a log line, an error
//! message or a record (errors are redacted in case a provider echoes the key).

#![allow(async_fn_in_trait)]

use std::collections::BTreeMap;
use std::fmt;

pub mod batch;
pub mod cache;
/// The charts of a run's outcomes: now the core's ([`wmlab_core::llm::charts`]).
pub use wmlab_core::llm::charts;
pub mod error;
pub mod models;
pub mod provider;
pub mod record;
pub mod runner;
pub mod time;

#[cfg(all(feature = "native", not(target_arch = "wasm32")))]
pub mod native;
#[cfg(target_arch = "wasm32")]
pub mod web;

pub use batch::{BatchEntry, BatchStatus};
pub use cache::{Cache, MemoryCache, NoCache, cache_key};
pub use error::{LlmError, LlmErrorKind};
pub use models::{ModelListError, folder_name, model_list};
pub use provider::{ModelInfo, ProviderConfig, ProviderKind, Reasoning, Reply, SettingsError};
pub use runner::{Control, LogEntry, Outcome, Progress, RunLog, RunOptions, RunResult, Runner};

/// One HTTP request. Header names are lower-case.
#[derive(Clone, PartialEq)]
pub struct HttpRequest {
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
    pub timeout_ms: u64,
}

impl HttpRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// Debug never prints header values that carry credentials.
impl fmt::Debug for HttpRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let headers: Vec<(&str, &str)> = self
            .headers
            .iter()
            .map(|(k, v)| {
                let secret = matches!(k.as_str(), "authorization" | "x-api-key" | "x-goog-api-key");
                (k.as_str(), if secret { "***" } else { v.as_str() })
            })
            .collect();
        f.debug_struct("HttpRequest")
            .field("method", &self.method)
            .field("url", &self.url)
            .field("headers", &headers)
            .field("body_len", &self.body.len())
            .field("timeout_ms", &self.timeout_ms)
            .finish()
    }
}

/// One HTTP response (any status). Header names are lower-case.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HttpResponse {
    pub status: u16,
    pub headers: BTreeMap<String, String>,
    pub body: String,
}

impl HttpResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(&name.to_ascii_lowercase()).map(|s| s.as_str())
    }
}

/// Why no HTTP response came back.
#[derive(Clone, Debug, PartialEq)]
pub enum TransportError {
    /// No answer within the request's timeout.
    Timeout,
    /// Connection refused, DNS, TLS, or (in a browser) a CORS refusal, which looks the same.
    Network(String),
    /// The request was aborted by the caller.
    Aborted,
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TransportError::Timeout => write!(f, "timed out"),
            TransportError::Network(m) => write!(f, "network error: {m}"),
            TransportError::Aborted => write!(f, "aborted"),
        }
    }
}

/// Sends HTTP requests. Implementations: [`native::UreqTransport`] and [`web::FetchTransport`];
/// tests use scripted fakes.
pub trait Transport {
    async fn send(&self, req: HttpRequest) -> Result<HttpResponse, TransportError>;
}

/// Wall-clock milliseconds and sleeping.
pub trait Clock {
    /// Milliseconds since the Unix epoch (fractional allowed).
    fn now_ms(&self) -> f64;
    async fn sleep(&self, ms: u64);
}

impl<T: Transport + ?Sized> Transport for &T {
    async fn send(&self, req: HttpRequest) -> Result<HttpResponse, TransportError> {
        (**self).send(req).await
    }
}

impl<C: Clock + ?Sized> Clock for &C {
    fn now_ms(&self) -> f64 {
        (**self).now_ms()
    }
    async fn sleep(&self, ms: u64) {
        (**self).sleep(ms).await
    }
}

/// An API key. `Debug` and `Display` print `***`; it is not `Serialize`.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(s: impl Into<String>) -> Self {
        Secret(s.into().trim().to_string())
    }
    pub fn none() -> Self {
        Secret(String::new())
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// The key itself, for a request header only.
    pub fn expose(&self) -> &str {
        &self.0
    }
    /// `text` with every occurrence of the key (and anything that looks like a provider key) masked.
    pub fn redact(&self, text: &str) -> String {
        let mut out = if self.0.len() >= 4 { text.replace(&self.0, "***") } else { text.to_string() };
        out = redact_key_like(&out);
        out
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// Mask words that look like API keys (`sk-…`, `sk-ant-…`, `AIza…`, `gsk_…`, `Bearer …`), including
/// the partially masked forms providers echo in 401 messages.
pub fn redact_key_like(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut bearer = false;
    for (i, word) in text.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let w = word.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '-' && c != '_' && c != '*');
        let looks = bearer
            || ((w.starts_with("sk-") || w.starts_with("AIza") || w.starts_with("gsk_") || w.starts_with("xai-"))
                && w.len() >= 8);
        bearer = w.eq_ignore_ascii_case("bearer");
        if looks && !w.is_empty() {
            out.push_str(&word.replace(w, "***"));
        } else {
            out.push_str(word);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_never_prints() {
        let s = Secret::new("sk-live-abcdef123456");
        assert_eq!(format!("{s}"), "***");
        assert_eq!(format!("{s:?}"), "***");
        let r = s.redact("Incorrect API key provided: sk-live-abcdef123456. And sk-li*****3456 too.");
        assert!(!r.contains("abcdef"), "{r}");
        assert!(!r.contains("3456"), "{r}");
        let req = HttpRequest {
            method: "POST".into(),
            url: "http://x".into(),
            headers: vec![("authorization".into(), "Bearer sk-live-abcdef123456".into())],
            body: String::new(),
            timeout_ms: 1,
        };
        assert!(!format!("{req:?}").contains("abcdef"));
    }
}

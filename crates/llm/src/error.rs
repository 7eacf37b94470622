//! Friendly errors: every failure of a request becomes an [`LlmError`] with a kind (what the runner
//! does about it: retry or not) and a plain message saying what to change.

pub use wmlab_core::llm::outcome::{LlmError, LlmErrorKind, printable};

use crate::provider::ProviderKind;
use crate::{HttpResponse, Secret, TransportError};

/// The provider's own error text from a JSON error body (`error.message`, `message`), shortened.
pub fn provider_message(body: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(body).ok()?;
    let m = v
        .pointer("/error/message")
        .or_else(|| v.get("message"))
        .or_else(|| v.get("detail"))
        .or_else(|| v.get("error").filter(|e| e.is_string()))?;
    let s = m.as_str().map(str::to_string).unwrap_or_else(|| m.to_string());
    Some(printable(&shorten(&s, 300)))
}

fn shorten(s: &str, max: usize) -> String {
    let s = s.trim();
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max).collect();
    out.push('…');
    out
}

fn looks_context_too_long(text: &str) -> bool {
    let t = text.to_ascii_lowercase();
    [
        "context length",
        "context_length",
        "context window",
        "maximum context",
        "prompt is too long",
        "too many tokens",
        "input is too long",
        "exceeds the context",
        "exceed context",
        "exceeds the maximum number of tokens",
        "input token count",
        "reduce the length",
        "requested tokens",
        // llama.cpp's server: "request (3031 tokens) exceeds the available context size (2048 tokens)".
        "available context size",
        "exceed_context_size",
    ]
    .iter()
    .any(|p| t.contains(p))
}

/// Where a browser's CORS refusal is fixed, for the network-error message.
pub fn network_hint(kind: ProviderKind, base_url: &str) -> String {
    let u = base_url.to_ascii_lowercase();
    let local = u.contains("localhost") || u.contains("127.0.0.1") || u.contains("[::1]") || u.contains("0.0.0.0");
    if u.contains(":11434") || u.contains("ollama") {
        return "Is Ollama running? In a browser, Ollama only answers pages it trusts: start it with \
                OLLAMA_ORIGINS set to this page's origin (e.g. OLLAMA_ORIGINS=https://wmlab.example ollama serve)."
            .into();
    }
    if u.contains(":1234") {
        return "Is LM Studio's server running? In a browser, turn on \"Enable CORS\" in its server settings.".into();
    }
    if local {
        return "Is the local server running at this address? In a browser it must allow this page's origin: \
                llama.cpp's llama-server allows all origins by default (--cors-origins), vLLM uses --allowed-origins, \
                LiteLLM LITELLM_CORS_ORIGINS; Chrome may also ask permission to reach local addresses."
            .into();
    }
    match kind {
        ProviderKind::Anthropic => {
            "Check the network connection and the base URL. In a browser, Anthropic answers only \
            with the anthropic-dangerous-direct-browser-access header (WM Lab sends it); an organisation setting can \
            still block browser calls."
                .into()
        }
        ProviderKind::Gemini => "Check the network connection and the base URL (the native endpoint \
            https://generativelanguage.googleapis.com/v1beta allows browser calls; its /openai/ endpoint may not)."
            .into(),
        ProviderKind::OpenAi => {
            "Check the network connection and the base URL. In a browser, a provider that does not \
            allow cross-origin calls (CORS) fails the same way; use a provider or proxy that does."
                .into()
        }
    }
}

/// Classify a transport failure.
pub fn from_transport(e: &TransportError, kind: ProviderKind, base_url: &str, timeout_ms: u64) -> LlmError {
    match e {
        TransportError::Timeout => LlmError::new(
            LlmErrorKind::Timeout,
            format!(
                "No answer within {:.0} s. The server may be overloaded or the prompt long; raise the timeout or lower the concurrency.",
                timeout_ms as f64 / 1000.0
            ),
        ),
        TransportError::Aborted => LlmError::cancelled(),
        TransportError::Network(m) => LlmError::new(
            LlmErrorKind::Network,
            format!("Could not reach {base_url} ({}). {}", shorten(m, 200), network_hint(kind, base_url)),
        ),
    }
}

/// Classify a non-2xx response. `now_ms` is used for HTTP-date and timestamp reset headers.
pub fn from_status(resp: &HttpResponse, kind: ProviderKind, model: &str, key: &Secret, now_ms: f64) -> LlmError {
    let status = resp.status;
    let detail = provider_message(&resp.body).map(|m| key.redact(&m));
    let with = |base: String| match &detail {
        Some(d) if !d.is_empty() => format!("{base} (provider said: {d})"),
        _ => base,
    };
    let (k, msg) = match status {
        401 | 403 => {
            // Anthropic's browser refusals are 401 with a CORS message.
            let d = detail.clone().unwrap_or_default().to_ascii_lowercase();
            if d.contains("cors") {
                (LlmErrorKind::Auth, with("The provider refused a browser call.".into()))
            } else if key.is_empty() {
                (LlmErrorKind::Auth, with(format!("HTTP {status}: this provider needs an API key; none was given.")))
            } else {
                (
                    LlmErrorKind::Auth,
                    with(format!(
                        "HTTP {status}: the API key was refused (wrong key, expired, or no access to this model). Check the key."
                    )),
                )
            }
        }
        404 => (
            LlmErrorKind::NotFound,
            with(format!(
                "HTTP 404: model \"{model}\" or the endpoint was not found. Check the model name and the base URL."
            )),
        ),
        429 => (LlmErrorKind::RateLimited, with("HTTP 429: rate limit or quota reached.".into())),
        400 | 413 | 422 if looks_context_too_long(&resp.body) => (
            LlmErrorKind::ContextTooLong,
            with(format!(
                "HTTP {status}: the prompt is longer than the model's context window. Choose a model with a longer context or a shorter task."
            )),
        ),
        400..=499 => {
            let d = detail.clone().unwrap_or_default().to_ascii_lowercase();
            if kind == ProviderKind::Gemini && (d.contains("api key not valid") || d.contains("api_key_invalid")) {
                (LlmErrorKind::Auth, with(format!("HTTP {status}: the API key was refused. Check the key.")))
            } else {
                (LlmErrorKind::BadRequest, with(format!("HTTP {status}: the provider refused the request.")))
            }
        }
        500..=599 => (
            LlmErrorKind::Server,
            with(format!(
                "HTTP {status}: the provider's server failed{}.",
                if status == 529 || status == 503 { " (overloaded)" } else { "" }
            )),
        ),
        _ => (LlmErrorKind::BadResponse, with(format!("Unexpected HTTP status {status}."))),
    };
    LlmError {
        kind: k,
        message: printable(&key.redact(&msg)),
        status: Some(status),
        retry_after_ms: crate::time::retry_after_ms(resp, now_ms),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resp(status: u16, body: &str) -> HttpResponse {
        HttpResponse { status, headers: Default::default(), body: body.into() }
    }

    /// Issue 71: an error body with escape sequences cleared the screen and set the window title
    /// through stderr; every control character but the newline is now shown, not obeyed.
    #[test]
    fn provider_text_reaches_no_terminal_raw() {
        let body = r#"{"error": {"message": "busy\u001b[2J\u001b]0;pwned\u0007\rnow"}}"#;
        let e = from_status(&resp(500, body), ProviderKind::OpenAi, "m", &Secret::new(""), 0.0);
        assert!(!e.message.chars().any(|c| c.is_control() && c != '\n'), "{:?}", e.message);
        assert!(e.message.contains("busy\\u{1b}[2J\\u{1b}]0;pwned\\u{7}\\u{d}now"), "{}", e.message);
        assert_eq!(printable("line one\nline two\t!"), "line one\nline two\\u{9}!");
        assert_eq!(LlmError::new(LlmErrorKind::Server, "a\u{1b}b").message, "a\\u{1b}b");
    }

    #[test]
    fn classifies_statuses() {
        let key = Secret::new("sk-test-1234567890");
        let c = |s, b: &str, k| from_status(&resp(s, b), k, "m", &key, 0.0).kind;
        assert_eq!(
            c(401, r#"{"error":{"message":"Incorrect API key provided: sk-test-1234567890"}}"#, ProviderKind::OpenAi),
            LlmErrorKind::Auth
        );
        assert_eq!(c(404, "{}", ProviderKind::OpenAi), LlmErrorKind::NotFound);
        assert_eq!(c(429, "{}", ProviderKind::OpenAi), LlmErrorKind::RateLimited);
        assert_eq!(c(500, "oops", ProviderKind::OpenAi), LlmErrorKind::Server);
        assert_eq!(
            c(
                529,
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
                ProviderKind::Anthropic
            ),
            LlmErrorKind::Server
        );
        assert_eq!(
            c(
                400,
                r#"{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.","code":"context_length_exceeded"}}"#,
                ProviderKind::OpenAi
            ),
            LlmErrorKind::ContextTooLong
        );
        assert_eq!(
            c(
                400,
                r#"{"error":{"code":400,"message":"request (3031 tokens) exceeds the available context size (2048 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":3031,"n_ctx":2048}}"#,
                ProviderKind::OpenAi
            ),
            LlmErrorKind::ContextTooLong
        );
        assert_eq!(
            c(
                400,
                r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#,
                ProviderKind::Anthropic
            ),
            LlmErrorKind::ContextTooLong
        );
        assert_eq!(
            c(
                400,
                r#"{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}"#,
                ProviderKind::Gemini
            ),
            LlmErrorKind::Auth
        );
        assert_eq!(
            c(400, r#"{"error":{"message":"temperature must be <= 2"}}"#, ProviderKind::OpenAi),
            LlmErrorKind::BadRequest
        );
        let e = from_status(
            &resp(401, r#"{"error":{"message":"Incorrect API key provided: sk-test-1234567890."}}"#),
            ProviderKind::OpenAi,
            "m",
            &key,
            0.0,
        );
        assert!(!e.message.contains("1234567890"), "{}", e.message);
        assert!(e.message.contains("key"));
    }

    #[test]
    fn network_hints_name_the_fix() {
        assert!(network_hint(ProviderKind::OpenAi, "http://localhost:11434/v1").contains("OLLAMA_ORIGINS"));
        assert!(
            network_hint(ProviderKind::Anthropic, "https://api.anthropic.com")
                .contains("anthropic-dangerous-direct-browser-access")
        );
        let e = from_transport(
            &TransportError::Network("connection refused".into()),
            ProviderKind::OpenAi,
            "http://127.0.0.1:8080/v1",
            1000,
        );
        assert_eq!(e.kind, LlmErrorKind::Network);
        assert!(e.message.contains("--cors-origins"));
    }
}

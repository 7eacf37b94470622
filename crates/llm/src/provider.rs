//! Providers: request builders and reply parsers for the three wire formats.
//!
//! - [`ProviderKind::OpenAi`]: OpenAI-compatible `POST {base}/chat/completions` with
//!   `Authorization: Bearer KEY` (omitted when there is no key). Covers OpenAI, OpenRouter, Groq,
//!   Mistral, Together, Ollama, llama.cpp, vLLM, LM Studio. Only `Authorization` and `Content-Type` are
//!   sent, so strict CORS allow-lists (Mistral) pass.
//! - [`ProviderKind::Anthropic`]: Messages `POST {base}/v1/messages` with `x-api-key`,
//!   `anthropic-version: 2023-06-01` and `anthropic-dangerous-direct-browser-access: true`; system
//!   messages go in `system`; `max_tokens` is required (default 1024).
//! - [`ProviderKind::Gemini`]: `POST {base}/models/{model}:generateContent` with the key in the
//!   `x-goog-api-key` header (never in the URL, so it cannot leak into logs); system messages go in
//!   `systemInstruction`, assistant turns have role `model`.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use wmlab_core::llm::{Message, Role, Suite};

use crate::error::{LlmError, LlmErrorKind};
use crate::{HttpRequest, HttpResponse, Secret};

pub const ANTHROPIC_VERSION: &str = "2023-06-01";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    #[serde(rename = "openai")]
    OpenAi,
    Anthropic,
    Gemini,
}

impl ProviderKind {
    pub const ALL: [ProviderKind; 3] = [ProviderKind::OpenAi, ProviderKind::Anthropic, ProviderKind::Gemini];
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::OpenAi => "openai",
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::Gemini => "gemini",
        }
    }
    pub fn parse(s: &str) -> Option<ProviderKind> {
        ProviderKind::ALL.into_iter().find(|k| k.as_str().eq_ignore_ascii_case(s))
    }
    pub fn default_base_url(self) -> &'static str {
        match self {
            ProviderKind::OpenAi => "https://api.openai.com/v1",
            ProviderKind::Anthropic => "https://api.anthropic.com",
            ProviderKind::Gemini => "https://generativelanguage.googleapis.com/v1beta",
        }
    }
    /// The environment variable the CLI reads the key from by default.
    pub fn default_key_env(self) -> &'static str {
        match self {
            ProviderKind::OpenAi => "OPENAI_API_KEY",
            ProviderKind::Anthropic => "ANTHROPIC_API_KEY",
            ProviderKind::Gemini => "GEMINI_API_KEY",
        }
    }
}

/// Everything about the endpoint and sampling except the key (which is a [`Secret`] held apart).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProviderConfig {
    pub kind: ProviderKind,
    /// Without a trailing slash: `https://api.openai.com/v1`, `http://127.0.0.1:18080/v1`,
    /// `https://api.anthropic.com`, `https://generativelanguage.googleapis.com/v1beta`.
    pub base_url: String,
    pub model: String,
    /// `None` = not sent (some reasoning models refuse it). Default 0.
    #[serde(default = "zero")]
    pub temperature: Option<f64>,
    /// Reply length cap. `None` = not sent (Anthropic requires one: 1024 is used).
    #[serde(default)]
    pub max_tokens: Option<u32>,
    #[serde(default)]
    pub top_p: Option<f64>,
    /// Sampling seed where the API has one (OpenAI-compatible, Gemini).
    #[serde(default)]
    pub seed: Option<i64>,
    /// OpenAI's newer models want `max_completion_tokens` instead of `max_tokens`.
    #[serde(default)]
    pub max_completion_tokens_field: bool,
    /// Sample each suite as its paper did ([`Suite::paper_sampling`]): temperature, max_tokens and top_p
    /// above are then replaced per sample by the suite's values. The app and the CLI turn it on unless the
    /// user sets one of them; records made before it existed read as off.
    #[serde(default)]
    pub paper_sampling: bool,
    /// How long a reasoning model may think, in the provider's own field; `None` = not sent (the
    /// model's default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<Reasoning>,
}

fn zero() -> Option<f64> {
    Some(0.0)
}

/// How long a reasoning model may think: OpenAI-compatible `reasoning_effort`, Anthropic's `thinking`
/// budget, Gemini's `thinkingConfig.thinkingBudget`. The three efforts are budgets of 1,024, 4,096 and
/// 16,384 tokens where the API takes a budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reasoning {
    Off,
    Low,
    Medium,
    High,
    /// A budget of this many tokens (Anthropic and Gemini).
    Budget(u32),
}

/// Why a provider's settings are refused ([`Reasoning::parse`], [`ProviderConfig::check`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    /// A reasoning setting that is none of the words or a number.
    #[error("reasoning \"{0}\": off, low, medium, high, or a number of tokens")]
    Reasoning(String),
    /// A token budget for an OpenAI-compatible endpoint.
    #[error("an OpenAI-compatible endpoint takes a reasoning effort (off, low, medium, high), not a token budget")]
    EffortOnly,
    /// Anthropic's thinking budget under its minimum.
    #[error("Anthropic's thinking budget is 1024 tokens or more, not {0}")]
    SmallBudget(u32),
}

impl Reasoning {
    /// `off` (or `none`), `low`, `medium`, `high`, or a number of tokens.
    pub fn parse(text: &str) -> Result<Reasoning, SettingsError> {
        let t = text.trim().to_ascii_lowercase();
        Ok(match t.as_str() {
            "off" | "none" => Reasoning::Off,
            "low" => Reasoning::Low,
            "medium" => Reasoning::Medium,
            "high" => Reasoning::High,
            _ => Reasoning::Budget(t.parse::<u32>().map_err(|_| SettingsError::Reasoning(text.trim().to_string()))?),
        })
    }

    /// As [`Reasoning::parse`] reads it.
    pub fn label(self) -> String {
        match self {
            Reasoning::Off => "off".into(),
            Reasoning::Low => "low".into(),
            Reasoning::Medium => "medium".into(),
            Reasoning::High => "high".into(),
            Reasoning::Budget(n) => n.to_string(),
        }
    }

    /// The thinking budget in tokens (0 = off).
    fn budget(self) -> u32 {
        match self {
            Reasoning::Off => 0,
            Reasoning::Low => 1024,
            Reasoning::Medium => 4096,
            Reasoning::High => 16_384,
            Reasoning::Budget(n) => n,
        }
    }
}

impl ProviderConfig {
    pub fn new(kind: ProviderKind, base_url: impl Into<String>, model: impl Into<String>) -> Self {
        let mut base: String = base_url.into();
        if base.trim().is_empty() {
            base = kind.default_base_url().to_string();
        }
        ProviderConfig {
            kind,
            base_url: base.trim().trim_end_matches('/').to_string(),
            model: model.into().trim().to_string(),
            temperature: Some(0.0),
            max_tokens: None,
            top_p: None,
            seed: None,
            max_completion_tokens_field: false,
            paper_sampling: false,
            reasoning: None,
        }
    }

    /// Whether the provider takes these settings: an OpenAI-compatible endpoint takes an effort, not a
    /// budget; Anthropic's thinking budget is 1,024 tokens or more.
    pub fn check(&self) -> Result<(), SettingsError> {
        match (self.kind, self.reasoning) {
            (ProviderKind::OpenAi, Some(Reasoning::Budget(_))) => Err(SettingsError::EffortOnly),
            (ProviderKind::Anthropic, Some(Reasoning::Budget(n))) if n < 1024 => Err(SettingsError::SmallBudget(n)),
            _ => Ok(()),
        }
    }

    /// The configuration a sample of `suite` is sent with: this one, with the suite's paper sampling when
    /// [`ProviderConfig::paper_sampling`] is on.
    pub fn for_suite(&self, suite: Suite) -> ProviderConfig {
        let mut c = self.clone();
        if self.paper_sampling {
            let p = suite.paper_sampling();
            c.temperature = p.temperature;
            c.max_tokens = p.max_tokens;
            c.top_p = p.top_p;
        }
        c
    }

    pub(crate) fn base(&self) -> &str {
        self.base_url.trim_end_matches('/')
    }

    /// Gemini model ids may be written `models/gemini-…`.
    pub(crate) fn gemini_model(&self) -> &str {
        self.model.strip_prefix("models/").unwrap_or(&self.model)
    }

    pub(crate) fn headers(&self, key: &Secret, json_body: bool) -> Vec<(String, String)> {
        let mut h = Vec::new();
        if json_body {
            h.push(("content-type".to_string(), "application/json".to_string()));
        }
        match self.kind {
            ProviderKind::OpenAi => {
                if !key.is_empty() {
                    h.push(("authorization".into(), format!("Bearer {}", key.expose())));
                }
            }
            ProviderKind::Anthropic => {
                if !key.is_empty() {
                    h.push(("x-api-key".into(), key.expose().to_string()));
                }
                h.push(("anthropic-version".into(), ANTHROPIC_VERSION.into()));
                h.push(("anthropic-dangerous-direct-browser-access".into(), "true".into()));
            }
            ProviderKind::Gemini => {
                if !key.is_empty() {
                    h.push(("x-goog-api-key".into(), key.expose().to_string()));
                }
            }
        }
        h
    }

    /// The JSON body of a chat request (no key in it).
    pub fn chat_body(&self, messages: &[Message]) -> Value {
        match self.kind {
            ProviderKind::OpenAi => {
                let msgs: Vec<Value> = messages
                    .iter()
                    .map(|m| {
                        if m.images.is_empty() {
                            return json!({"role": role_str(m.role), "content": m.content});
                        }
                        let mut parts = vec![json!({"type": "text", "text": m.content})];
                        parts.extend(
                            m.images.iter().map(|i| json!({"type": "image_url", "image_url": {"url": i.data_url()}})),
                        );
                        json!({"role": role_str(m.role), "content": parts})
                    })
                    .collect();
                let mut b = json!({"model": self.model, "messages": msgs});
                if let Some(t) = self.temperature {
                    b["temperature"] = json!(t);
                }
                if let Some(n) = self.max_tokens {
                    let field = if self.max_completion_tokens_field { "max_completion_tokens" } else { "max_tokens" };
                    b[field] = json!(n);
                }
                if let Some(p) = self.top_p {
                    b["top_p"] = json!(p);
                }
                if let Some(s) = self.seed {
                    b["seed"] = json!(s);
                }
                match self.reasoning {
                    Some(Reasoning::Off) => b["reasoning_effort"] = json!("none"),
                    Some(Reasoning::Low) => b["reasoning_effort"] = json!("low"),
                    Some(Reasoning::Medium) => b["reasoning_effort"] = json!("medium"),
                    Some(Reasoning::High) => b["reasoning_effort"] = json!("high"),
                    // Refused by `check`.
                    Some(Reasoning::Budget(_)) | None => {}
                }
                b
            }
            ProviderKind::Anthropic => {
                let system: Vec<&str> =
                    messages.iter().filter(|m| m.role == Role::System).map(|m| m.content.as_str()).collect();
                // Consecutive turns of one role become one turn with several text blocks.
                let msgs: Vec<Value> = merge_turns(messages)
                    .into_iter()
                    .map(|(role, turn)| {
                        let content: Value = if turn.len() == 1 && turn[0].images.is_empty() {
                            json!(turn[0].content)
                        } else {
                            let mut blocks = Vec::new();
                            for m in turn {
                                blocks.push(json!({"type": "text", "text": m.content}));
                                blocks.extend(m.images.iter().map(|i| {
                                    json!({"type": "image", "source": {"type": "base64", "media_type": i.media_type, "data": i.data}})
                                }));
                            }
                            Value::Array(blocks)
                        };
                        json!({"role": role_str(role), "content": content})
                    })
                    .collect();
                let mut b = json!({
                    "model": self.model,
                    "max_tokens": self.max_tokens.unwrap_or(1024),
                    "messages": msgs,
                });
                if !system.is_empty() {
                    b["system"] = json!(system.join("\n\n"));
                }
                let thinking = self.reasoning.map_or(0, Reasoning::budget);
                if thinking > 0 {
                    // Extended thinking: the budget on top of the answer's cap (max_tokens must exceed
                    // it), and no temperature or top-p (the API refuses them with thinking on).
                    b["thinking"] = json!({"type": "enabled", "budget_tokens": thinking});
                    b["max_tokens"] = json!(thinking + self.max_tokens.unwrap_or(1024));
                } else {
                    if let Some(t) = self.temperature {
                        b["temperature"] = json!(t);
                    }
                    if let Some(p) = self.top_p {
                        b["top_p"] = json!(p);
                    }
                }
                b
            }
            ProviderKind::Gemini => {
                let system: Vec<&str> =
                    messages.iter().filter(|m| m.role == Role::System).map(|m| m.content.as_str()).collect();
                // Gemini wants alternating roles: consecutive turns of one role become one turn with
                // several parts.
                let contents: Vec<Value> = merge_turns(messages)
                    .into_iter()
                    .map(|(role, turn)| {
                        let role = if role == Role::Assistant { "model" } else { "user" };
                        let mut parts = Vec::new();
                        for m in turn {
                            parts.push(json!({"text": m.content}));
                            parts.extend(
                                m.images
                                    .iter()
                                    .map(|i| json!({"inline_data": {"mime_type": i.media_type, "data": i.data}})),
                            );
                        }
                        json!({"role": role, "parts": parts})
                    })
                    .collect();
                let mut gcfg = serde_json::Map::new();
                if let Some(t) = self.temperature {
                    gcfg.insert("temperature".into(), json!(t));
                }
                if let Some(n) = self.max_tokens {
                    gcfg.insert("maxOutputTokens".into(), json!(n));
                }
                if let Some(p) = self.top_p {
                    gcfg.insert("topP".into(), json!(p));
                }
                if let Some(s) = self.seed {
                    gcfg.insert("seed".into(), json!(s));
                }
                if let Some(r) = self.reasoning {
                    let budget = r.budget();
                    let cfg = if budget > 0 {
                        json!({"thinkingBudget": budget, "includeThoughts": true})
                    } else {
                        json!({"thinkingBudget": 0})
                    };
                    gcfg.insert("thinkingConfig".into(), cfg);
                }
                let mut b = json!({"contents": contents});
                if !system.is_empty() {
                    b["systemInstruction"] = json!({"parts": [{"text": system.join("\n\n")}]});
                }
                if !gcfg.is_empty() {
                    b["generationConfig"] = Value::Object(gcfg);
                }
                b
            }
        }
    }

    /// The chat request for `messages`.
    pub fn chat_request(&self, messages: &[Message], key: &Secret, timeout_ms: u64) -> HttpRequest {
        let url = match self.kind {
            ProviderKind::OpenAi => format!("{}/chat/completions", self.base()),
            ProviderKind::Anthropic => format!("{}/v1/messages", self.base()),
            ProviderKind::Gemini => format!("{}/models/{}:generateContent", self.base(), self.gemini_model()),
        };
        HttpRequest {
            method: "POST".into(),
            url,
            headers: self.headers(key, true),
            body: self.chat_body(messages).to_string(),
            timeout_ms,
        }
    }

    /// Parse a 2xx chat response.
    pub fn parse_reply(&self, body: &str) -> Result<Reply, LlmError> {
        let v: Value = serde_json::from_str(body).map_err(|e| {
            LlmError::new(
                LlmErrorKind::BadResponse,
                format!(
                    "The provider's answer is not valid JSON ({e}). Is the base URL an API endpoint of the chosen kind?"
                ),
            )
        })?;
        let bad = |what: &str| {
            LlmError::new(
                LlmErrorKind::BadResponse,
                format!("The provider's answer has no {what}. Is the provider kind right for this base URL?"),
            )
        };
        let u = |p: &str| v.pointer(p).and_then(Value::as_u64);
        match self.kind {
            ProviderKind::OpenAi => {
                let choice = v.pointer("/choices/0").ok_or_else(|| bad("choices"))?;
                let msg = choice.get("message").ok_or_else(|| bad("message"))?;
                let text = match msg.get("content") {
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Null) | None => String::new(),
                    Some(Value::Array(parts)) => {
                        parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect()
                    }
                    Some(other) => other.to_string(),
                };
                if text.is_empty() && msg.get("refusal").and_then(Value::as_str).is_some() {
                    return Err(LlmError::new(LlmErrorKind::Blocked, "The model refused to answer."));
                }
                // Reasoning apart from the content: `reasoning_content` (llama.cpp, vLLM, DeepSeek) or
                // `reasoning` (OpenRouter, Ollama).
                let apart = ["reasoning_content", "reasoning"]
                    .iter()
                    .filter_map(|k| msg.get(*k).and_then(Value::as_str).map(str::to_string))
                    .collect();
                Ok(Reply::read(
                    &text,
                    apart,
                    choice.get("finish_reason").and_then(Value::as_str).map(str::to_string),
                    [
                        u("/usage/prompt_tokens"),
                        u("/usage/completion_tokens"),
                        u("/usage/completion_tokens_details/reasoning_tokens"),
                    ],
                ))
            }
            ProviderKind::Anthropic => {
                let content = v.get("content").and_then(Value::as_array).ok_or_else(|| bad("content"))?;
                let of_type = |t: &'static str, field: &'static str| {
                    content
                        .iter()
                        .filter(move |c| c.get("type").and_then(Value::as_str) == Some(t))
                        .filter_map(move |c| c.get(field).and_then(Value::as_str))
                };
                let text = of_type("text", "text").collect::<Vec<_>>().join("");
                // Extended thinking: `thinking` blocks (their text), `redacted_thinking` (encrypted).
                let mut apart: Vec<String> = of_type("thinking", "thinking").map(str::to_string).collect();
                apart.extend(of_type("redacted_thinking", "data").map(|_| "[redacted thinking]".to_string()));
                // `output_tokens` counts the thinking too (billed as output).
                Ok(Reply::read(
                    &text,
                    apart,
                    v.get("stop_reason").and_then(Value::as_str).map(str::to_string),
                    [u("/usage/input_tokens"), u("/usage/output_tokens"), None],
                ))
            }
            ProviderKind::Gemini => {
                let cand = match v.pointer("/candidates/0") {
                    Some(c) => c,
                    None => {
                        if let Some(r) = v.pointer("/promptFeedback/blockReason").and_then(Value::as_str) {
                            return Err(LlmError::new(
                                LlmErrorKind::Blocked,
                                format!("Gemini blocked the prompt ({r})."),
                            ));
                        }
                        return Err(bad("candidates"));
                    }
                };
                let parts = cand.pointer("/content/parts").and_then(Value::as_array).cloned().unwrap_or_default();
                let thought = |p: &Value| p.get("thought").and_then(Value::as_bool) == Some(true);
                let text_of = |p: &Value| p.get("text").and_then(Value::as_str).map(str::to_string);
                let text = parts.iter().filter(|p| !thought(p)).filter_map(text_of).collect::<String>();
                let apart: Vec<String> = parts.iter().filter(|p| thought(p)).filter_map(text_of).collect();
                let finish = cand.get("finishReason").and_then(Value::as_str).map(str::to_string);
                if text.is_empty() && matches!(finish.as_deref(), Some("SAFETY" | "PROHIBITED_CONTENT" | "BLOCKLIST")) {
                    return Err(LlmError::new(LlmErrorKind::Blocked, "Gemini blocked the reply (safety filter)."));
                }
                // `candidatesTokenCount` leaves the thoughts out; they are billed as output.
                let thoughts = u("/usageMetadata/thoughtsTokenCount");
                let out = match (u("/usageMetadata/candidatesTokenCount"), thoughts) {
                    (Some(c), Some(t)) => Some(c + t),
                    (c, t) => c.or(t),
                };
                Ok(Reply::read(&text, apart, finish, [u("/usageMetadata/promptTokenCount"), out, thoughts]))
            }
        }
    }

    /// The request listing the models the key can use.
    pub fn models_request(&self, key: &Secret, timeout_ms: u64) -> HttpRequest {
        let url = match self.kind {
            ProviderKind::OpenAi => format!("{}/models", self.base()),
            ProviderKind::Anthropic => format!("{}/v1/models?limit=1000", self.base()),
            ProviderKind::Gemini => format!("{}/models?pageSize=1000", self.base()),
        };
        HttpRequest { method: "GET".into(), url, headers: self.headers(key, false), body: String::new(), timeout_ms }
    }

    /// Parse a 2xx model list. Gemini lists only models that offer `generateContent`.
    pub fn parse_models(&self, body: &str) -> Result<Vec<ModelInfo>, LlmError> {
        let v: Value = serde_json::from_str(body).map_err(|e| {
            LlmError::new(LlmErrorKind::BadResponse, format!("The model list is not valid JSON ({e})."))
        })?;
        let s = |x: &Value, k: &str| x.get(k).and_then(Value::as_str).map(str::to_string);
        let out = match self.kind {
            ProviderKind::OpenAi | ProviderKind::Anthropic => v
                .get("data")
                .and_then(Value::as_array)
                .ok_or_else(|| LlmError::new(LlmErrorKind::BadResponse, "The model list has no `data`."))?
                .iter()
                .filter_map(|m| {
                    Some(ModelInfo { id: s(m, "id")?, name: s(m, "display_name").or_else(|| s(m, "name")) })
                })
                .collect(),
            ProviderKind::Gemini => v
                .get("models")
                .and_then(Value::as_array)
                .ok_or_else(|| LlmError::new(LlmErrorKind::BadResponse, "The model list has no `models`."))?
                .iter()
                .filter(|m| {
                    m.get("supportedGenerationMethods")
                        .and_then(Value::as_array)
                        .is_none_or(|a| a.iter().any(|x| x.as_str() == Some("generateContent")))
                })
                .filter_map(|m| {
                    let id = s(m, "name")?;
                    Some(ModelInfo {
                        id: id.strip_prefix("models/").unwrap_or(&id).to_string(),
                        name: s(m, "displayName"),
                    })
                })
                .collect(),
        };
        Ok(out)
    }
}

/// Non-system messages with consecutive turns of the same role grouped.
fn merge_turns(messages: &[Message]) -> Vec<(Role, Vec<&Message>)> {
    let mut out: Vec<(Role, Vec<&Message>)> = Vec::new();
    for m in messages.iter().filter(|m| m.role != Role::System) {
        match out.last_mut() {
            Some((r, turn)) if *r == m.role => turn.push(m),
            _ => out.push((m.role, vec![m])),
        }
    }
    out
}

fn role_str(r: Role) -> &'static str {
    match r {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
    }
}

/// A model's reply.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    /// The final answer: what is scored (a reasoning model's reasoning is never in it).
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_in: Option<u64>,
    /// Output tokens as billed, reasoning included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_out: Option<u64>,
    /// The reasoning the model returned before its answer (a field or block of its own, or `<think>`
    /// text): logged, never scored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// Of `tokens_out`, the reasoning's, when the provider says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_reasoning: Option<u64>,
}

impl Reply {
    /// A reply from its text (`<think>` blocks taken out into `reasoning`, after any reasoning the
    /// provider returned apart) and counts.
    fn read(text: &str, apart: Vec<String>, finish_reason: Option<String>, tokens: [Option<u64>; 3]) -> Reply {
        let split = wmlab_core::llm::reasoning::split_reasoning(text);
        let parts: Vec<String> =
            apart.into_iter().chain(split.reasoning).map(|r| r.trim().to_string()).filter(|r| !r.is_empty()).collect();
        Reply {
            text: split.answer,
            finish_reason,
            tokens_in: tokens[0],
            tokens_out: tokens[1],
            reasoning: (!parts.is_empty()).then(|| parts.join("\n\n")),
            tokens_reasoning: tokens[2],
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelInfo {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// Fetch the model list with any transport.
pub async fn list_models<T: crate::Transport, C: crate::Clock>(
    transport: &T,
    clock: &C,
    config: &ProviderConfig,
    key: &Secret,
    timeout_ms: u64,
) -> Result<Vec<ModelInfo>, LlmError> {
    let resp: HttpResponse = transport
        .send(config.models_request(key, timeout_ms))
        .await
        .map_err(|e| crate::error::from_transport(&e, config.kind, &config.base_url, timeout_ms))?;
    if !(200..300).contains(&resp.status) {
        return Err(crate::error::from_status(&resp, config.kind, &config.model, key, clock.now_ms()));
    }
    config.parse_models(&resp.body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msgs() -> Vec<Message> {
        vec![Message::system("Be brief."), Message::user("2+2?"), Message::assistant("4"), Message::user("3+3?")]
    }

    /// With the papers' sampling on, each suite's request carries its paper's values whatever the fields
    /// say; off, the fields go to every suite.
    #[test]
    fn paper_sampling_per_suite() {
        let mut c = ProviderConfig::new(ProviderKind::OpenAi, "http://127.0.0.1:18080/v1", "m");
        c.temperature = Some(0.7);
        c.max_tokens = Some(16);
        let body = |c: &ProviderConfig| -> Value {
            serde_json::from_str(&c.chat_request(&msgs(), &Secret::none(), 1).body).unwrap()
        };
        assert_eq!(c.for_suite(Suite::Minerva), c, "off: unchanged");
        c.paper_sampling = true;
        let m = body(&c.for_suite(Suite::Minerva));
        assert_eq!(
            (m["temperature"].as_f64(), m["max_tokens"].as_u64(), m["top_p"].as_f64()),
            (Some(0.0), Some(4096), Some(1.0))
        );
        let l = body(&c.for_suite(Suite::Lrt));
        assert_eq!((l["temperature"].as_f64(), l["max_tokens"].as_u64(), l.get("top_p")), (Some(0.0), Some(10), None));
        let n = body(&c.for_suite(Suite::Nback));
        assert!(n.get("temperature").is_none() && n.get("max_tokens").is_none() && n.get("top_p").is_none(), "{n}");
        // Anthropic requires a cap: the N-back requests get the 1024 it always gets when none is set.
        let mut a = ProviderConfig::new(ProviderKind::Anthropic, "", "claude");
        a.paper_sampling = true;
        let n = body(&a.for_suite(Suite::Nback));
        assert_eq!(n["max_tokens"], 1024);
        assert!(n.get("temperature").is_none());
        // Records made before the flag read as off.
        let mut old = serde_json::to_value(&c).unwrap();
        old.as_object_mut().unwrap().remove("paper_sampling");
        assert!(!serde_json::from_value::<ProviderConfig>(old).unwrap().paper_sampling);
    }

    #[test]
    fn openai_request_and_reply() {
        let mut c = ProviderConfig::new(ProviderKind::OpenAi, "http://127.0.0.1:18080/v1/", "smollm2");
        c.max_tokens = Some(16);
        c.seed = Some(7);
        let key = Secret::new("sk-abcdefgh12345");
        let r = c.chat_request(&msgs(), &key, 5000);
        assert_eq!(r.url, "http://127.0.0.1:18080/v1/chat/completions");
        assert_eq!(r.header("authorization"), Some("Bearer sk-abcdefgh12345"));
        assert!(!r.body.contains("sk-abc"));
        let b: Value = serde_json::from_str(&r.body).unwrap();
        assert_eq!(b["messages"][0]["role"], "system");
        assert_eq!(b["messages"][2]["role"], "assistant");
        assert_eq!(b["temperature"], 0.0);
        assert_eq!(b["max_tokens"], 16);
        assert_eq!(b["seed"], 7);
        // no key: no header at all (local servers)
        assert!(c.chat_request(&msgs(), &Secret::none(), 1).header("authorization").is_none());
        let body = r#"{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"6"},"finish_reason":"stop"}],"usage":{"prompt_tokens":20,"completion_tokens":1,"total_tokens":21}}"#;
        let rep = c.parse_reply(body).unwrap();
        assert_eq!(
            rep,
            Reply {
                text: "6".into(),
                finish_reason: Some("stop".into()),
                tokens_in: Some(20),
                tokens_out: Some(1),
                ..Default::default()
            }
        );
        let null = r#"{"choices":[{"message":{"role":"assistant","content":null},"finish_reason":"length"}]}"#;
        assert_eq!(c.parse_reply(null).unwrap().text, "");
        assert_eq!(c.parse_reply("<html>").unwrap_err().kind, LlmErrorKind::BadResponse);
        assert_eq!(c.parse_reply("{}").unwrap_err().kind, LlmErrorKind::BadResponse);
        let models = c.parse_models(r#"{"object":"list","data":[{"id":"smollm2","object":"model"}]}"#).unwrap();
        assert_eq!(models[0].id, "smollm2");
        assert_eq!(c.models_request(&key, 1).url, "http://127.0.0.1:18080/v1/models");
    }

    #[test]
    fn anthropic_request_and_reply() {
        let c = ProviderConfig::new(ProviderKind::Anthropic, "", "claude-x");
        let key = Secret::new("sk-ant-api03-secret");
        let r = c.chat_request(&msgs(), &key, 5000);
        assert_eq!(r.url, "https://api.anthropic.com/v1/messages");
        assert_eq!(r.header("x-api-key"), Some("sk-ant-api03-secret"));
        assert_eq!(r.header("anthropic-version"), Some(ANTHROPIC_VERSION));
        assert_eq!(r.header("anthropic-dangerous-direct-browser-access"), Some("true"));
        let b: Value = serde_json::from_str(&r.body).unwrap();
        assert_eq!(b["system"], "Be brief.");
        assert_eq!(b["messages"].as_array().unwrap().len(), 3);
        assert_eq!(b["messages"][0]["role"], "user");
        assert_eq!(b["max_tokens"], 1024);
        let two_users = [Message::user("instructions"), Message::user("b"), Message::assistant("-")];
        let b = c.chat_body(&two_users);
        assert_eq!(b["messages"].as_array().unwrap().len(), 2);
        assert_eq!(b["messages"][0]["content"][1]["text"], "b");
        let body = r#"{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"6"}],"model":"claude-x","stop_reason":"end_turn","usage":{"input_tokens":12,"output_tokens":1}}"#;
        let rep = c.parse_reply(body).unwrap();
        assert_eq!(
            rep,
            Reply {
                text: "6".into(),
                finish_reason: Some("end_turn".into()),
                tokens_in: Some(12),
                tokens_out: Some(1),
                ..Default::default()
            }
        );
        let models = c
            .parse_models(r#"{"data":[{"type":"model","id":"claude-x","display_name":"Claude X"}],"has_more":false}"#)
            .unwrap();
        assert_eq!(models[0].name.as_deref(), Some("Claude X"));
    }

    #[test]
    fn gemini_request_and_reply() {
        let mut c = ProviderConfig::new(ProviderKind::Gemini, "", "models/gemini-2.5-flash");
        c.max_tokens = Some(8);
        let key = Secret::new("AIzaSyFAKEFAKEFAKE");
        let r = c.chat_request(&msgs(), &key, 5000);
        assert_eq!(r.url, "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent");
        assert!(!r.url.contains("AIza"), "key must not be in the URL");
        assert_eq!(r.header("x-goog-api-key"), Some("AIzaSyFAKEFAKEFAKE"));
        let b: Value = serde_json::from_str(&r.body).unwrap();
        assert_eq!(b["systemInstruction"]["parts"][0]["text"], "Be brief.");
        assert_eq!(b["contents"][1]["role"], "model");
        assert_eq!(b["generationConfig"]["maxOutputTokens"], 8);
        assert_eq!(b["generationConfig"]["temperature"], 0.0);
        let two_users = [Message::user("instructions"), Message::user("b"), Message::assistant("-")];
        let b = c.chat_body(&two_users);
        assert_eq!(b["contents"].as_array().unwrap().len(), 2);
        assert_eq!(b["contents"][0]["parts"][1]["text"], "b");
        let body = r#"{"candidates":[{"content":{"parts":[{"text":"6"}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":1,"totalTokenCount":10}}"#;
        let rep = c.parse_reply(body).unwrap();
        assert_eq!(
            rep,
            Reply {
                text: "6".into(),
                finish_reason: Some("STOP".into()),
                tokens_in: Some(9),
                tokens_out: Some(1),
                ..Default::default()
            }
        );
        let blocked = r#"{"promptFeedback":{"blockReason":"SAFETY"}}"#;
        assert_eq!(c.parse_reply(blocked).unwrap_err().kind, LlmErrorKind::Blocked);
        let models = c
            .parse_models(r#"{"models":[{"name":"models/gemini-2.5-flash","displayName":"Gemini 2.5 Flash","supportedGenerationMethods":["generateContent","countTokens"]},{"name":"models/embedding-001","supportedGenerationMethods":["embedContent"]}]}"#)
            .unwrap();
        assert_eq!(models.len(), 1);
        assert_eq!(models[0].id, "gemini-2.5-flash");
        assert_eq!(c.models_request(&key, 1).header("x-goog-api-key"), Some("AIzaSyFAKEFAKEFAKE"));
    }

    /// A reasoning model's reply in each provider's format: the answer is the final text only; the
    /// reasoning (a field, a block, thought parts, or `<think>` text) is kept apart with its tokens.
    #[test]
    fn reasoning_is_kept_apart_from_the_answer() {
        let openai = ProviderConfig::new(ProviderKind::OpenAi, "", "m");
        let r = openai
            .parse_reply(
                r#"{"choices":[{"message":{"role":"assistant","content":"<think>K two back? m</think>\n-","reasoning_content":"Counting back."},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":40,"completion_tokens_details":{"reasoning_tokens":38}}}"#,
            )
            .unwrap();
        assert_eq!(r.text, "-");
        assert_eq!(r.reasoning.as_deref(), Some("Counting back.\n\nK two back? m"));
        assert_eq!((r.tokens_out, r.tokens_reasoning), (Some(40), Some(38)));
        // A plain reply is unchanged.
        let plain = openai.parse_reply(r#"{"choices":[{"message":{"role":"assistant","content":" m "}}]}"#).unwrap();
        assert_eq!((plain.text.as_str(), plain.reasoning), (" m ", None));

        let anthropic = ProviderConfig::new(ProviderKind::Anthropic, "", "claude");
        let r = anthropic
            .parse_reply(
                r#"{"content":[{"type":"thinking","thinking":"It was 7, no: 3.","signature":"x"},{"type":"redacted_thinking","data":"zz"},{"type":"text","text":"The number is 3."}],"stop_reason":"end_turn","usage":{"input_tokens":9,"output_tokens":30}}"#,
            )
            .unwrap();
        assert_eq!(r.text, "The number is 3.");
        assert_eq!(r.reasoning.as_deref(), Some("It was 7, no: 3.\n\n[redacted thinking]"));
        assert_eq!(r.tokens_out, Some(30));

        let gemini = ProviderConfig::new(ProviderKind::Gemini, "", "gemini-2.5-flash");
        let r = gemini
            .parse_reply(
                r#"{"candidates":[{"content":{"parts":[{"text":"Maybe 9.","thought":true},{"text":"3"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":1,"thoughtsTokenCount":20}}"#,
            )
            .unwrap();
        assert_eq!((r.text.as_str(), r.reasoning.as_deref()), ("3", Some("Maybe 9.")));
        assert_eq!((r.tokens_out, r.tokens_reasoning), (Some(21), Some(20)), "thoughts are billed as output");
    }

    /// The reasoning setting in each provider's field, and the settings they refuse.
    #[test]
    fn reasoning_goes_in_each_providers_field() {
        let msgs = vec![Message::user("hi")];
        let body = |kind, r: &str| {
            let mut c = ProviderConfig::new(kind, "", "m");
            c.reasoning = Some(Reasoning::parse(r).unwrap());
            c.top_p = Some(0.9);
            (c.check(), c.chat_body(&msgs))
        };
        let (ok, b) = body(ProviderKind::OpenAi, "HIGH");
        assert!(ok.is_ok());
        assert_eq!(b["reasoning_effort"], "high");
        assert_eq!(body(ProviderKind::OpenAi, "off").1["reasoning_effort"], "none");
        assert!(body(ProviderKind::OpenAi, "2000").0.unwrap_err().to_string().contains("effort"));
        let (ok, b) = body(ProviderKind::Anthropic, "medium");
        assert!(ok.is_ok());
        assert_eq!(b["thinking"], json!({"type": "enabled", "budget_tokens": 4096}));
        assert_eq!(b["max_tokens"], 4096 + 1024);
        assert!(b.get("temperature").is_none() && b.get("top_p").is_none(), "{b}");
        assert!(body(ProviderKind::Anthropic, "off").1.get("thinking").is_none());
        assert!(body(ProviderKind::Anthropic, "500").0.is_err());
        let (_, b) = body(ProviderKind::Gemini, "3000");
        assert_eq!(b["generationConfig"]["thinkingConfig"], json!({"thinkingBudget": 3000, "includeThoughts": true}));
        assert_eq!(
            body(ProviderKind::Gemini, "none").1["generationConfig"]["thinkingConfig"],
            json!({"thinkingBudget": 0})
        );
        // Not set: nothing sent.
        let plain = ProviderConfig::new(ProviderKind::OpenAi, "", "m").chat_body(&msgs);
        assert!(plain.get("reasoning_effort").is_none());
        assert!(Reasoning::parse("lots").is_err());
        assert_eq!(Reasoning::parse("16384").unwrap().label(), "16384");
    }
}

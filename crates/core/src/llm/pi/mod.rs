//! PI-LLM (Wang & Sun, "Unable to Forget: Proactive Interference Reveals Working Memory Limits in LLMs
//! Beyond Context Length", arXiv 2506.08184; code: zhuangziGiantfish/Unable-to-Forget, MIT): a stream of
//! key–value updates (`bird: emu; sport: judo; bird: kea; …`), then the last value of each key. The answer
//! is always the most recent line of its key, yet accuracy falls with the updates per key: earlier values
//! interfere. People take the same stream, one update at a time ([`crate::people`]), and are scored by the
//! same [`score_values`].
//!
//! What follows the authors' code (`core/pi_flow_upgrade.py`): the keys are the categories of their
//! vocabulary (46, 400 values each, shipped as `public/data/pi-llm/categories.json.gz`), each key's values
//! drawn without replacement; the random order never puts a key twice in a row (a dead end restarts the
//! shuffle); the sequential order gives each key its updates in one run; a value of length V > 1 is V
//! values of the category run together without spaces, each capitalised (`DarkchocolatePie`); the
//! prompt is their one user turn, verbatim (its missing space after "updated." included); a reply is read
//! as theirs is, by "The current value of <key> is <value>." (and `key: value` lines when the reply says
//! "current value"), and a key scores when its value equals the last one, ignoring case. Where we
//! differ: the reply is read by the keys asked (theirs reads any two words as a key, so "water body" could
//! land on "body"), and their adaptive number of sessions (5–50, until the bootstrap interval is narrow)
//! is a fixed `sessions` per level here.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Message, Metric, Reference, Sample, SampleBody, Single, Suite, SuiteError};
/// The order of a stream's updates, a stream, and the one scorer: the people's PI-LLM code
/// ([`crate::people::pi`]), which a person's typed answers are scored by too.
pub use crate::people::pi::{Order, Stream, score_values};
use crate::record::Setting;

pub mod published;
#[cfg(test)]
mod tests;

/// The updates per key of the paper's main experiment (test1), in order.
pub const PAPER_UPDATES: [usize; 16] = [2, 3, 4, 6, 8, 12, 17, 24, 34, 48, 68, 97, 139, 197, 281, 400];

/// Keys tracked in the paper's main experiment: every category of the vocabulary.
pub const PAPER_KEYS: usize = 46;

/// The vocabulary file's path under the app's `public/` folder (and the CLI's default).
pub const VOCABULARY_PATH: &str = "data/pi-llm/categories.json.gz";

/// The categories (keys) and their values; from the authors' `dict_category_double-word_46-400_v1-1.json`.
#[derive(Clone, Debug, PartialEq)]
pub struct Vocabulary {
    /// (category, its values), categories in name order.
    pub categories: Vec<(String, Vec<String>)>,
}

impl Vocabulary {
    /// From the JSON object `{category: [value, …]}`. Refused: not that shape, no category, a category
    /// with no value.
    pub fn from_json(text: &str) -> Result<Self, SuiteError> {
        let map: BTreeMap<String, Vec<String>> =
            serde_json::from_str(text).map_err(|e| SuiteError::PiVocabulary(e.to_string()))?;
        if map.is_empty() {
            return Err(SuiteError::PiVocabulary("it holds no category".into()));
        }
        if let Some((k, _)) = map.iter().find(|(_, v)| v.is_empty()) {
            return Err(SuiteError::PiVocabulary(format!("category {k:?} has no value")));
        }
        Ok(Vocabulary { categories: map.into_iter().collect() })
    }
    /// The fewest values a category has: the most updates per key a value length of 1 allows.
    pub fn min_values(&self) -> usize {
        self.categories.iter().map(|(_, v)| v.len()).min().unwrap_or(0)
    }
}

/// A PI-LLM run: keys, the levels of updates per key, the value length and the sessions per level.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PiConfig {
    /// Keys tracked (the first of the vocabulary's categories in a seeded draw), 1 to the categories.
    pub keys: usize,
    /// Updates per key, one level each.
    pub updates: Vec<usize>,
    /// Values run together into one (1 = a value as it is).
    pub value_len: usize,
    /// Streams (sessions) per level, each its own draw.
    pub sessions: usize,
    /// How the keys' updates interleave.
    pub order: Order,
    /// Seed of the draws.
    pub seed: u64,
}

impl Default for PiConfig {
    /// The paper's main experiment: 46 keys, 2–400 updates, values as they are, random order; 5
    /// sessions a level (the authors' least).
    fn default() -> Self {
        PiConfig {
            keys: PAPER_KEYS,
            updates: PAPER_UPDATES.to_vec(),
            value_len: 1,
            sessions: 5,
            order: Order::Random,
            seed: 0,
        }
    }
}

/// The most sessions per level, keys, updates per key and value length a run takes.
pub const MAX_SESSIONS: usize = 1000;
/// The longest value, in values run together (the paper's test4 goes to 40).
pub const MAX_VALUE_LEN: usize = 40;

impl PiConfig {
    /// Refuse what makes no run or cannot be drawn from `vocab`, in words.
    pub fn check(&self, vocab: &Vocabulary) -> Result<(), SuiteError> {
        let bad = |s: String| Err(SuiteError::PiConfig(s));
        if self.keys == 0 || self.keys > vocab.categories.len() {
            return bad(format!(
                "keys: 1 to {} (the vocabulary's categories), not {}",
                vocab.categories.len(),
                self.keys
            ));
        }
        if self.updates.is_empty() {
            return bad("give at least one number of updates per key".into());
        }
        let most = if self.value_len == 1 { vocab.min_values() } else { 10_000 };
        if let Some(u) = self.updates.iter().find(|&&u| u == 0 || u > most) {
            return bad(format!("updates per key: 1 to {most} (each value of a key differs), not {u}"));
        }
        if self.value_len == 0 || self.value_len > MAX_VALUE_LEN {
            return bad(format!("value length: 1 to {MAX_VALUE_LEN}, not {}", self.value_len));
        }
        if self.sessions == 0 || self.sessions > MAX_SESSIONS {
            return bad(format!("sessions per level: 1 to {MAX_SESSIONS}, not {}", self.sessions));
        }
        Ok(())
    }
    /// What a record keeps of the configuration (`pi_keys`, `pi_updates` as a comma list, `pi_value_len`,
    /// `pi_sessions`, `pi_order`, `pi_seed`): the same from the CLI and the page.
    pub fn settings(&self) -> Vec<(&'static str, Setting)> {
        let updates: Vec<String> = self.updates.iter().map(usize::to_string).collect();
        vec![
            ("pi_keys", Setting::Int(self.keys as i64)),
            ("pi_updates", Setting::Text(updates.join(","))),
            ("pi_value_len", Setting::Int(self.value_len as i64)),
            ("pi_sessions", Setting::Int(self.sessions as i64)),
            ("pi_order", Setting::Text(self.order.as_str().into())),
            ("pi_seed", Setting::Int(self.seed as i64)),
        ]
    }
    /// The task name of the run's samples: `pi-llm`, or `pi-llm-sequential`.
    pub fn task(&self) -> &'static str {
        match self.order {
            Order::Random => "pi-llm",
            Order::Sequential => "pi-llm-sequential",
        }
    }
}

/// The stream of session `session` of a level: `keys` categories, `updates` distinct values each, in
/// `order`. Deterministic in (seed, keys, updates, value length, session); the config must have passed
/// [`PiConfig::check`]. The draw is [`crate::people::pi::draw`], which people's streams take too.
pub fn stream(vocab: &Vocabulary, cfg: &PiConfig, updates: usize, session: usize) -> Stream {
    crate::people::pi::draw(&vocab.categories, cfg.keys, updates, cfg.value_len, cfg.order, cfg.seed, session)
}

/// The one user turn the authors send, verbatim: the instruction naming the keys, the stream on one
/// line, the question; for values run together (test4) the request to give them whole.
pub fn prompt(s: &Stream, value_len: usize) -> String {
    let keys = s.keys.join(", ");
    let mut p = format!(
        "As my secretary, I need you to carefully read a text stream where the values of multiple keys are being \
         continuously updated.The {} keys to track include {keys}. I will ask you to identify the value of each \
         key later.\n\nThe text stream starts on the next line.\n{}\n\nWhat are the current value of each key \
         ({keys}) you are tracking? End your response with: 'The current value of <key> is <value>.'",
        s.keys.len(),
        s.text()
    );
    if value_len > 1 {
        p.push_str("Provide the exact current value string without modification or breaking it into pieces.");
    }
    p
}

/// The samples of a run: for each level of updates, `sessions` streams; id
/// `pi-llm/k<keys>-u<updates>[-v<len>][-seq]/<session>`, task [`PiConfig::task`], conditions `updates`,
/// `keys`, `value_len`; one request, scored by [`Metric::LastValues`] against each key's last value.
pub fn samples(vocab: &Vocabulary, cfg: &PiConfig) -> Result<Vec<Sample>, SuiteError> {
    cfg.check(vocab)?;
    let mut out = Vec::new();
    for &u in &cfg.updates {
        for session in 0..cfg.sessions {
            let s = stream(vocab, cfg, u, session);
            let mut cell = format!("k{}-u{u}", cfg.keys);
            if cfg.value_len > 1 {
                cell.push_str(&format!("-v{}", cfg.value_len));
            }
            if cfg.order == Order::Sequential {
                cell.push_str("-seq");
            }
            let conditions = BTreeMap::from([
                ("updates".to_string(), u.to_string()),
                ("keys".to_string(), cfg.keys.to_string()),
                ("value_len".to_string(), cfg.value_len.to_string()),
            ]);
            let reference =
                Reference::Agents(s.last_values().into_iter().map(|(k, v)| (k, vec![v])).collect::<BTreeMap<_, _>>());
            out.push(Sample {
                id: format!("pi-llm/{cell}/{session}"),
                suite: Suite::Pi,
                task: cfg.task().into(),
                conditions,
                epoch: 1,
                body: SampleBody::Single(Single {
                    messages: vec![Message::user(prompt(&s, cfg.value_len))],
                    reference,
                    metrics: vec![Metric::LastValues],
                }),
            });
        }
    }
    Ok(out)
}

/// Phrases after which a reply's `key: value` lines count as answers (the authors' condition).
const CURRENT_WORDS: [&str; 8] =
    ["most recent", "final", "last", "latest", "current", "up-to-date", "asked", "queried"];

/// Where a value read from a reply ends: the first of these (the authors cut there too).
fn value_end(c: char) -> bool {
    matches!(c, '.' | ',' | ';' | ':' | '\n' | '\r')
}

fn clean_value(s: &str) -> String {
    let s = s.trim_start_matches([' ', ':', '\t']);
    let end = s.find(value_end).unwrap_or(s.len());
    s[..end].trim().trim_matches(|c: char| "\"'[]<>`“”‘’".contains(c) || c.is_whitespace()).to_string()
}

/// After `at` in `low`: skip spaces; then `word` and one space or more; the rest. `None` when not there.
fn after_word<'a>(low: &'a str, word: &str) -> Option<&'a str> {
    let t = low.trim_start();
    let rest = t.strip_prefix(word)?;
    (rest.starts_with(char::is_whitespace) || rest.is_empty()).then_some(rest)
}

/// The value a reply gives each of `keys` (those it gives), read as the authors read it: the last
/// "(the) current/final/last/latest/… value of/for (the) (key) <key> is/was <value>" of each key, and where
/// the reply says "current value" (or final, last, …), `<key>: <value>` lines for keys left. `*`
/// (markdown bold) and backslashes are dropped first; the value runs to the first `. , ; :` or line end,
/// quotes and brackets trimmed. Keys are matched ignoring case.
pub fn read_reply(reply: &str, keys: &[String]) -> BTreeMap<String, String> {
    let text: String = reply.chars().filter(|&c| c != '*' && c != '\\').collect();
    let low = text.to_lowercase();
    // Byte offsets in `low` equal those in `text` only for ASCII-stable lowercasing: work on `low` for
    // both matching and values (answers are compared ignoring case anyway).
    let mut sorted: Vec<(&String, String)> = keys.iter().map(|k| (k, k.to_lowercase())).collect();
    // Longest first, so "water body" is tried before "body" where both could start at a place.
    sorted.sort_by_key(|(_, l)| std::cmp::Reverse(l.len()));
    let mut found: BTreeMap<String, String> = BTreeMap::new();
    let mut from = 0;
    while let Some(pos) = low[from..].find("value") {
        let start = from + pos;
        from = start + "value".len();
        let mut rest = &low[from..];
        rest = rest.strip_prefix('s').unwrap_or(rest);
        let Some(r) = ["of", "for", "to", "with"].iter().find_map(|w| after_word(rest, w)) else { continue };
        let mut r = r.trim_start();
        for skip in ["the ", "key ", "category "] {
            r = r.strip_prefix(skip).map(str::trim_start).unwrap_or(r);
        }
        let r = r.trim_start_matches(['"', '\'', '[', '<', '`', '“', '‘']);
        let Some((key, l)) = sorted.iter().find(|(_, l)| r.starts_with(l.as_str())) else { continue };
        let after = r[l.len()..].trim_start_matches(['"', '\'', ']', '>', '`', '”', '’']);
        let Some(v) = after_word(after, "is").or_else(|| after_word(after, "was")) else { continue };
        let v = clean_value(v);
        if !v.is_empty() {
            found.insert((*key).clone(), v);
        }
    }
    if CURRENT_WORDS.iter().any(|w| low.contains(&format!("{w} value"))) {
        for line in low.lines() {
            let line = line.trim_start_matches(|c: char| c.is_whitespace() || "-•>#".contains(c));
            let line = line.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ')').trim_start();
            for (key, l) in &sorted {
                if found.contains_key(key.as_str()) {
                    continue;
                }
                if let Some(v) = line.strip_prefix(l.as_str()).and_then(|r| r.trim_start().strip_prefix(':')) {
                    let v = clean_value(v);
                    if !v.is_empty() {
                        found.insert((*key).clone(), v);
                    }
                    break;
                }
            }
        }
    }
    found
}

/// [`Metric::LastValues`]: the reply read by [`read_reply`], scored by [`score_values`] against the
/// reference (key → [last value]).
pub fn score_reply(reference: &BTreeMap<String, Vec<String>>, reply: &str) -> f64 {
    let truth: BTreeMap<String, String> =
        reference.iter().filter_map(|(k, v)| Some((k.clone(), v.first()?.clone()))).collect();
    let keys: Vec<String> = truth.keys().cloned().collect();
    score_values(&truth, &read_reply(reply, &keys))
}

/// The reply as read, for display: `key=value` pairs in key order.
pub fn read_for_display(reference: &BTreeMap<String, Vec<String>>, reply: &str) -> String {
    let keys: Vec<String> = reference.keys().cloned().collect();
    read_reply(reply, &keys).iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("; ")
}

/// The paper's summary of accuracy against interference: a least-squares line of accuracy on log10 of
/// the updates per key (its slope: the accuracy lost per tenfold more updates) and the Interference
/// Endurance Score, the area under accuracy over log-scaled updates, here normalised by the span of
/// log10 updates (1 = perfect at every level). `None` with fewer than two distinct levels.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogFit {
    /// Accuracy per tenfold more updates (negative when accuracy falls).
    pub slope: f64,
    /// Accuracy the line gives at 1 update per key (log10 1 = 0).
    pub intercept: f64,
    /// The normalised trapezoid area under accuracy over log10 updates.
    pub ies: f64,
}

/// [`LogFit`] of (updates, accuracy) points (any order; a level given twice is averaged first).
pub fn log_fit(points: &[(f64, f64)]) -> Option<LogFit> {
    let mut levels: BTreeMap<u64, (f64, usize)> = BTreeMap::new();
    for &(u, a) in points {
        if u > 0.0 && u.is_finite() && a.is_finite() {
            let e = levels.entry(u.to_bits()).or_insert((0.0, 0));
            e.0 += a;
            e.1 += 1;
        }
    }
    let mut pts: Vec<(f64, f64)> =
        levels.iter().map(|(u, (s, n))| (f64::from_bits(*u).log10(), s / *n as f64)).collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    if pts.len() < 2 {
        return None;
    }
    let n = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let slope = sxy / sxx;
    let area: f64 = pts.windows(2).map(|w| (w[1].0 - w[0].0) * (w[0].1 + w[1].1) / 2.0).sum();
    let span = pts[pts.len() - 1].0 - pts[0].0;
    Some(LogFit { slope, intercept: my - slope * mx, ies: area / span })
}

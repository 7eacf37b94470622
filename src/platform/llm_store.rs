//! Browser storage of the LLM page: the run in progress (its spec and its log, one JSONL line per
//! [`LogEntry`], written as each entry arrives so a reload can resume), the response cache (the runner's
//! [`Cache`] trait over localStorage), the remembered key (only when the user asks) and data files
//! fetched from the app's own folder (`data/…`).
//!
//! Nothing here ever writes the API key except [`save_key`], which the page calls only when
//! "remember on this device" is ticked.

use std::cell::RefCell;

use serde::{Deserialize, Serialize};
use wmlab_core::llm::run::LlmRun;
use wmlab_llm::provider::Reply;
use wmlab_llm::{Cache, LogEntry, ProviderConfig, RunOptions};

use wmlab_app::storage::keys::{
    LLM_CACHE_PREFIX as CACHE_PREFIX, LLM_CURRENT as CURRENT, LLM_FORM as FORM, LLM_KEY as KEY_KEY,
    LLM_RUN_PREFIX as RUN_PREFIX,
};
use wmlab_app::storage::{LocalStorage, Store, keys_with_prefix, llm_current_ids, stale_llm_runs};

fn get(key: &str) -> Option<String> {
    LocalStorage.get(key)
}

/// `false` when the browser refused (quota, private mode).
fn set(key: &str, value: &str) -> bool {
    LocalStorage.set(key, value).is_ok()
}

fn remove(key: &str) {
    LocalStorage.remove(key)
}

// ---------------------------------------------------------------------------------------------
// The key (only with "remember on this device")
// ---------------------------------------------------------------------------------------------

pub fn saved_key() -> Option<String> {
    get(KEY_KEY).filter(|k| !k.is_empty())
}

pub fn save_key(key: &str) {
    set(KEY_KEY, key);
}

pub fn forget_key() {
    remove(KEY_KEY);
}

// ---------------------------------------------------------------------------------------------
// What to run
// ---------------------------------------------------------------------------------------------

/// Everything needed to rebuild the same samples and run them the same way (no key).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunSpec {
    pub id: String,
    pub provider: ProviderConfig,
    pub options: RunOptions,
    pub use_cache: bool,
    /// What runs: the suites, the slice and the repeats (the CLI fills the same).
    pub run: LlmRun,
    /// Send the samples through the provider's batch API ([`wmlab_llm::Runner::run_batch`]).
    #[serde(default)]
    pub batch: bool,
    pub created: String,
    /// Every model of the start this run is one of, with its concurrency, when there are several (each
    /// runs as its own spec with its own log); empty for one model.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<(String, usize)>,
    /// The model in this tab the run is on (`tab://…` base URL): its file, SHA-256 and runtime.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local: Option<super::local_llm::LocalModel>,
}

impl RunSpec {
    /// `nback+lrt+minerva` style label of what runs.
    pub fn label(&self) -> String {
        self.run.label()
    }
}

/// The form as last used (no key).
pub fn save_form(spec: &RunSpec) {
    if let Ok(t) = serde_json::to_string(spec) {
        set(FORM, &t);
    }
}

pub fn load_form() -> Option<RunSpec> {
    serde_json::from_str(&get(FORM)?).ok()
}

// ---------------------------------------------------------------------------------------------
// The run log
// ---------------------------------------------------------------------------------------------

fn spec_key(id: &str) -> String {
    format!("{RUN_PREFIX}{id}.spec")
}
fn log_key(id: &str) -> String {
    format!("{RUN_PREFIX}{id}.log")
}

/// The unfinished runs of the last start (one per model), if any: each spec and its saved log text.
pub fn unfinished() -> Option<Vec<(RunSpec, String)>> {
    let runs: Vec<(RunSpec, String)> = llm_current_ids(&get(CURRENT)?)
        .iter()
        .filter_map(|id| {
            let spec: RunSpec = serde_json::from_str(&get(&spec_key(id))?).ok()?;
            Some((spec, get(&log_key(id)).unwrap_or_default()))
        })
        .collect();
    (!runs.is_empty()).then_some(runs)
}

/// Start new runs (one per model): drop every older run's storage, save the specs, mark them current.
pub fn begin(specs: &[RunSpec]) -> bool {
    let ids: Vec<String> = specs.iter().map(|s| s.id.clone()).collect();
    for k in stale_llm_runs(&LocalStorage, &ids) {
        remove(&k);
    }
    let ok =
        specs.iter().all(|spec| serde_json::to_string(spec).map(|t| set(&spec_key(&spec.id), &t)).unwrap_or(false));
    set(CURRENT, &ids.join(",")) && ok
}

/// The runs finished: they are no longer offered for resuming (their logs stay until the next start).
pub fn finish(ids: &[String]) {
    if get(CURRENT).is_some_and(|c| llm_current_ids(&c) == ids) {
        remove(CURRENT);
    }
}

/// Forget the unfinished runs entirely.
pub fn discard(ids: &[String]) {
    finish(ids);
    for id in ids {
        remove(&spec_key(id));
        remove(&log_key(id));
    }
}

/// Appends log lines to storage as they arrive. Outcome lines are saved without their prompt
/// messages (the samples rebuild them; long-context prompts would fill the storage quota).
pub struct LogWriter {
    id: String,
    text: RefCell<String>,
    pub failed: std::cell::Cell<bool>,
}

impl LogWriter {
    pub fn new(id: &str, prior: String) -> Self {
        let mut text = prior;
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        LogWriter { id: id.to_string(), text: RefCell::new(text), failed: std::cell::Cell::new(false) }
    }
    pub fn append(&self, entry: &LogEntry) {
        let line = match entry {
            LogEntry::Outcome(o) if !o.messages.is_empty() => {
                let mut slim = (**o).clone();
                slim.messages.clear();
                LogEntry::Outcome(Box::new(slim)).to_line()
            }
            e => e.to_line(),
        };
        let mut t = self.text.borrow_mut();
        t.push_str(&line);
        t.push('\n');
        if !set(&log_key(&self.id), &t) {
            self.failed.set(true);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The response cache
// ---------------------------------------------------------------------------------------------

/// The runner's cache over localStorage (`wmlab.llm.cache.<key>` → reply JSON). The key is the
/// runner's hash of (provider kind, base URL, model, settings, messages): it never holds the API key.
pub struct StorageCache {
    pub enabled: bool,
}

impl Cache for StorageCache {
    async fn get(&self, key: &str) -> Option<Reply> {
        if !self.enabled {
            return None;
        }
        serde_json::from_str(&get(&format!("{CACHE_PREFIX}{key}"))?).ok()
    }
    async fn put(&self, key: &str, reply: &Reply) {
        if !self.enabled {
            return;
        }
        if let Ok(t) = serde_json::to_string(reply) {
            // A full storage only means the reply is not cached.
            set(&format!("{CACHE_PREFIX}{key}"), &t);
        }
    }
}

/// Remove every cached reply; returns how many.
pub fn clear_cache() -> usize {
    let keys = keys_with_prefix(&LocalStorage, CACHE_PREFIX);
    for k in &keys {
        remove(k);
    }
    keys.len()
}

// ---------------------------------------------------------------------------------------------
// Data files
// ---------------------------------------------------------------------------------------------

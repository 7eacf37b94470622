//! localStorage behind a small trait ([`Store`]): the browser's ([`LocalStorage`], wasm32) and one in
//! memory ([`MemoryStore`], for tests, or where the browser has none). Every localStorage key the app
//! uses is named in [`keys`]; the switches tests turn on are read in one place ([`TestFlags`]).

use std::cell::RefCell;
use std::collections::BTreeMap;

/// The localStorage keys of the app, in one place.
pub mod keys {
    /// A participant's saved session: `wmlab.session.<FNV-64 of the study's query>`.
    pub const SESSION_PREFIX: &str = "wmlab.session.";
    /// The participant outbox: records waiting to be posted.
    pub const OUTBOX: &str = "wmlab.outbox";
    /// How many threads the threaded networks worker starts.
    pub const NN_THREADS: &str = "wmlab.nn.threads";
    /// The Networks page's backend choice (`BackendPick::as_str`), kept across reloads.
    pub const NN_BACKEND: &str = "wmlab.nn.backend";
    /// The backends' timings per model size behind the Networks page's Auto
    /// (`wmlab_core::nn_protocol::workers::ProbeCache` as JSON).
    pub const NN_PROBES: &str = "wmlab.nn.probes";
    /// The LLM page: the current run's id, the form, the reply cache and the runs.
    pub const LLM_CURRENT: &str = "wmlab.llm.run.current";
    pub const LLM_FORM: &str = "wmlab.llm.form";
    pub const LLM_CACHE_PREFIX: &str = "wmlab.llm.cache.";
    pub const LLM_RUN_PREFIX: &str = "wmlab.llm.run.";
    /// The provider API key, only when the user ticks "remember on this device".
    pub const LLM_KEY: &str = "wmlab.llm.key";
    /// Test support: one refresh per timed frame, N-back trials wait for an answer, shorter patience.
    pub const TEST_FAST: &str = "wmlab_fast";
    /// Test support: the participant's current step and its answer on `window.__wmlab_test`.
    pub const TEST_HOOK: &str = "wmlab_test";
}

/// A key-value store of text, as localStorage is.
pub trait Store {
    fn get(&self, key: &str) -> Option<String>;
    /// Keep `value` under `key`; an error in words when the store refuses (full, blocked, absent).
    fn set(&self, key: &str, value: &str) -> Result<(), String>;
    fn remove(&self, key: &str);
    /// Every key, in no particular order.
    fn keys(&self) -> Vec<String>;
}

/// The message when a store refuses a write.
pub const REFUSED: &str = "the browser refused to save (storage full or blocked)";

/// A store in memory. `capacity`: the most bytes of keys and values it keeps (a full store refuses
/// writes, as a browser's does at its quota).
#[derive(Debug, Default)]
pub struct MemoryStore {
    items: RefCell<BTreeMap<String, String>>,
    capacity: Option<usize>,
}

impl MemoryStore {
    pub fn new() -> Self {
        Self::default()
    }
    /// A store that refuses writes past `bytes` in all.
    pub fn with_capacity(bytes: usize) -> Self {
        MemoryStore { capacity: Some(bytes), ..Self::default() }
    }
    fn used_without(&self, key: &str) -> usize {
        self.items.borrow().iter().filter(|(k, _)| *k != key).map(|(k, v)| k.len() + v.len()).sum()
    }
}

impl Store for MemoryStore {
    fn get(&self, key: &str) -> Option<String> {
        self.items.borrow().get(key).cloned()
    }
    fn set(&self, key: &str, value: &str) -> Result<(), String> {
        if self.capacity.is_some_and(|c| self.used_without(key) + key.len() + value.len() > c) {
            return Err(REFUSED.into());
        }
        self.items.borrow_mut().insert(key.to_string(), value.to_string());
        Ok(())
    }
    fn remove(&self, key: &str) {
        self.items.borrow_mut().remove(key);
    }
    fn keys(&self) -> Vec<String> {
        self.items.borrow().keys().cloned().collect()
    }
}

/// The browser's localStorage (none in some private modes: then every read is empty and every write
/// refused with a message).
#[cfg(target_arch = "wasm32")]
#[derive(Clone, Copy, Debug, Default)]
pub struct LocalStorage;

#[cfg(target_arch = "wasm32")]
impl LocalStorage {
    fn storage() -> Option<web_sys::Storage> {
        web_sys::window()?.local_storage().ok().flatten()
    }
}

#[cfg(target_arch = "wasm32")]
impl Store for LocalStorage {
    fn get(&self, key: &str) -> Option<String> {
        Self::storage()?.get_item(key).ok().flatten()
    }
    fn set(&self, key: &str, value: &str) -> Result<(), String> {
        Self::storage()
            .ok_or("this browser has no local storage")?
            .set_item(key, value)
            .map_err(|_| REFUSED.to_string())
    }
    fn remove(&self, key: &str) {
        if let Some(s) = Self::storage() {
            let _ = s.remove_item(key);
        }
    }
    fn keys(&self) -> Vec<String> {
        let Some(s) = Self::storage() else { return Vec::new() };
        (0..s.length().unwrap_or(0)).filter_map(|i| s.key(i).ok().flatten()).collect()
    }
}

/// The keys under `prefix`, sorted.
pub fn keys_with_prefix(store: &dyn Store, prefix: &str) -> Vec<String> {
    let mut v: Vec<String> = store.keys().into_iter().filter(|k| k.starts_with(prefix)).collect();
    v.sort();
    v
}

/// Every saved participant session's key, sorted.
pub fn session_keys(store: &dyn Store) -> Vec<String> {
    keys_with_prefix(store, keys::SESSION_PREFIX)
}

/// The LLM runs' keys to drop when the runs `keep` begin: every other run's spec and log (not the
/// current-run marker, not the cache, not the remembered key).
pub fn stale_llm_runs(store: &dyn Store, keep: &[String]) -> Vec<String> {
    let own: Vec<String> = keep.iter().map(|id| format!("{}{id}.", keys::LLM_RUN_PREFIX)).collect();
    keys_with_prefix(store, keys::LLM_RUN_PREFIX)
        .into_iter()
        .filter(|k| k != keys::LLM_CURRENT && !own.iter().any(|o| k.starts_with(o)))
        .collect()
}

/// The run ids of one start of the LLM page: the start's id for one model, `<id>-1`, `<id>-2`, … for
/// several (each model's run has its own spec and log).
pub fn llm_run_ids(start: &str, models: usize) -> Vec<String> {
    if models <= 1 { vec![start.to_string()] } else { (1..=models).map(|k| format!("{start}-{k}")).collect() }
}

/// The run ids kept under [`keys::LLM_CURRENT`] (comma-separated; one id for one model).
pub fn llm_current_ids(value: &str) -> Vec<String> {
    value.split(',').map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect()
}

/// The switches the browser tests turn on (never on by default): each is `"1"` under its key.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TestFlags {
    /// [`keys::TEST_FAST`].
    pub fast: bool,
    /// [`keys::TEST_HOOK`].
    pub hook: bool,
}

impl TestFlags {
    pub fn read(store: &dyn Store) -> TestFlags {
        let on = |k: &str| store.get(k).as_deref() == Some("1");
        TestFlags { fast: on(keys::TEST_FAST), hook: on(keys::TEST_HOOK) }
    }
}

/// A positive whole number under `key` (e.g. [`keys::NN_THREADS`]); None when absent or not one.
pub fn positive(store: &dyn Store, key: &str) -> Option<usize> {
    store.get(key)?.trim().parse::<usize>().ok().filter(|&n| n > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_memory_store_keeps_refuses_and_lists() {
        let s = MemoryStore::new();
        assert_eq!(s.get("a"), None);
        s.set("a", "1").unwrap();
        s.set("a", "2").unwrap();
        assert_eq!(s.get("a").as_deref(), Some("2"));
        s.remove("a");
        assert_eq!(s.get("a"), None);
        assert!(s.keys().is_empty());
        // Full: a write that would pass the quota is refused in words; what was kept stays.
        let full = MemoryStore::with_capacity(10);
        full.set("k", "12345").unwrap();
        assert_eq!(full.set("q", "123456789").unwrap_err(), REFUSED);
        assert_eq!(full.get("k").as_deref(), Some("12345"));
        full.set("k", "123456789").unwrap(); // a replacement counts once
        assert_eq!(full.get("q"), None);
    }

    #[test]
    fn session_keys_are_the_sessions_only_sorted() {
        let s = MemoryStore::new();
        for k in ["wmlab.session.b", keys::OUTBOX, "wmlab.session.a", "other", keys::TEST_FAST] {
            s.set(k, "x").unwrap();
        }
        assert_eq!(session_keys(&s), ["wmlab.session.a", "wmlab.session.b"]);
        assert_eq!(keys_with_prefix(&s, "wmlab."), ["wmlab.outbox", "wmlab.session.a", "wmlab.session.b"]);
    }

    #[test]
    fn a_new_llm_run_drops_the_other_runs_only() {
        let s = MemoryStore::new();
        for k in [
            "wmlab.llm.run.a1.spec",
            "wmlab.llm.run.a1.log",
            "wmlab.llm.run.b2.spec",
            "wmlab.llm.run.b22.log",
            keys::LLM_CURRENT,
            keys::LLM_KEY,
            "wmlab.llm.cache.x",
            keys::LLM_FORM,
        ] {
            s.set(k, "x").unwrap();
        }
        let keep = |ids: &[&str]| ids.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            stale_llm_runs(&s, &keep(&["b2"])),
            ["wmlab.llm.run.a1.log", "wmlab.llm.run.a1.spec", "wmlab.llm.run.b22.log"]
        );
        assert_eq!(stale_llm_runs(&s, &keep(&["c3"])).len(), 4);
        assert_eq!(stale_llm_runs(&s, &keep(&["a1", "b22"])), ["wmlab.llm.run.b2.spec"]);
    }

    #[test]
    fn several_models_are_several_runs_of_one_start() {
        assert_eq!(llm_run_ids("18c", 1), ["18c"]);
        assert_eq!(llm_run_ids("18c", 3), ["18c-1", "18c-2", "18c-3"]);
        assert_eq!(llm_current_ids(&llm_run_ids("18c", 2).join(",")), ["18c-1", "18c-2"]);
        assert_eq!(llm_current_ids("18c"), ["18c"]);
        assert!(llm_current_ids("").is_empty());
    }

    #[test]
    fn test_flags_are_on_only_when_one() {
        let s = MemoryStore::new();
        assert_eq!(TestFlags::read(&s), TestFlags::default());
        s.set(keys::TEST_FAST, "1").unwrap();
        s.set(keys::TEST_HOOK, "true").unwrap();
        assert_eq!(TestFlags::read(&s), TestFlags { fast: true, hook: false });
        s.set(keys::TEST_HOOK, "1").unwrap();
        assert_eq!(TestFlags::read(&s), TestFlags { fast: true, hook: true });
    }

    #[test]
    fn positive_numbers_only() {
        let s = MemoryStore::new();
        for (v, want) in [("4", Some(4)), (" 8 ", Some(8)), ("0", None), ("-2", None), ("many", None)] {
            s.set(keys::NN_THREADS, v).unwrap();
            assert_eq!(positive(&s, keys::NN_THREADS), want, "{v:?}");
        }
        s.remove(keys::NN_THREADS);
        assert_eq!(positive(&s, keys::NN_THREADS), None);
    }

    #[test]
    fn every_key_is_under_the_apps_names() {
        for k in [
            keys::SESSION_PREFIX,
            keys::OUTBOX,
            keys::NN_THREADS,
            keys::NN_BACKEND,
            keys::NN_PROBES,
            keys::LLM_CURRENT,
            keys::LLM_FORM,
        ] {
            assert!(k.starts_with("wmlab."), "{k}");
        }
        for k in [keys::LLM_CACHE_PREFIX, keys::LLM_RUN_PREFIX] {
            assert!(k.starts_with("wmlab.llm.") && k.ends_with('.'), "{k}");
        }
    }
}

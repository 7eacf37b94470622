//! The response cache: `hash(provider kind, base URL, model, sampling settings, messages) → reply`.
//! The key is a hash of the [`ProviderConfig`] (which holds no API key) and the messages, so it never
//! depends on or reveals the key. Only successful replies are cached.
//!
//! [`Cache`] is async so the app can back it with IndexedDB; [`MemoryCache`] is the in-memory
//! implementation (the CLI loads/saves it as JSONL, see [`MemoryCache::from_jsonl`]).

use std::cell::RefCell;
use std::collections::HashMap;

use wmlab_core::hash::Fnv64;
use wmlab_core::llm::Message;

use crate::provider::{ProviderConfig, Reply};

pub trait Cache {
    async fn get(&self, key: &str) -> Option<Reply>;
    async fn put(&self, key: &str, reply: &Reply);
}

/// No caching.
pub struct NoCache;

impl Cache for NoCache {
    async fn get(&self, _key: &str) -> Option<Reply> {
        None
    }
    async fn put(&self, _key: &str, _reply: &Reply) {}
}

/// 32 hex digits (two independent 64-bit FNV-1a hashes) of the canonical JSON of config and messages,
/// and of the repeat (`epoch`) when it is past the first (a first repeat's key is what it always was).
pub fn cache_key(config: &ProviderConfig, messages: &[Message], epoch: u32) -> String {
    let text = if epoch <= 1 {
        serde_json::to_string(&(1u32, config, messages))
    } else {
        serde_json::to_string(&(1u32, config, messages, epoch))
    }
    .expect("serialises");
    let mut a = Fnv64::default();
    a.write(b"wmlab-cache-a");
    a.write(text.as_bytes());
    let mut b = Fnv64::default();
    b.write(b"wmlab-cache-b:");
    b.write(text.as_bytes());
    b.write(&(text.len() as u64).to_le_bytes());
    format!("{:016x}{:016x}", a.finish(), b.finish())
}

/// In-memory cache. `new_lines` collects the entries added since creation (for appending to a file).
#[derive(Default)]
pub struct MemoryCache {
    map: RefCell<HashMap<String, Reply>>,
    added: RefCell<Vec<String>>,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct CacheLine {
    key: String,
    reply: Reply,
}

impl MemoryCache {
    pub fn new() -> Self {
        Self::default()
    }
    /// Load `{"key": …, "reply": {…}}` lines; broken lines (a crash mid-write) are skipped.
    pub fn from_jsonl(text: &str) -> Self {
        let c = MemoryCache::new();
        for line in text.lines() {
            if let Ok(l) = serde_json::from_str::<CacheLine>(line) {
                c.map.borrow_mut().insert(l.key, l.reply);
            }
        }
        c
    }
    pub fn len(&self) -> usize {
        self.map.borrow().len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// JSONL lines of the entries added since the last call.
    pub fn take_new_lines(&self) -> Vec<String> {
        let keys = std::mem::take(&mut *self.added.borrow_mut());
        let map = self.map.borrow();
        keys.into_iter()
            .filter_map(|k| {
                let reply = map.get(&k)?.clone();
                serde_json::to_string(&CacheLine { key: k, reply }).ok()
            })
            .collect()
    }
}

impl Cache for MemoryCache {
    async fn get(&self, key: &str) -> Option<Reply> {
        self.map.borrow().get(key).cloned()
    }
    async fn put(&self, key: &str, reply: &Reply) {
        if self.map.borrow_mut().insert(key.to_string(), reply.clone()).is_none() {
            self.added.borrow_mut().push(key.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::ProviderKind;

    #[test]
    fn key_depends_on_settings_not_secret() {
        let c = ProviderConfig::new(ProviderKind::OpenAi, "http://x/v1", "m");
        let m = vec![Message::user("hi")];
        let k = cache_key(&c, &m, 1);
        assert_eq!(k.len(), 32);
        assert_eq!(k, cache_key(&c, &m, 1));
        assert_eq!(k, cache_key(&c, &m, 0), "0 and 1 are both the first repeat");
        assert_ne!(k, cache_key(&c, &m, 2), "a repeat asks again");
        assert_ne!(cache_key(&c, &m, 2), cache_key(&c, &m, 3));
        let mut c2 = c.clone();
        c2.temperature = Some(0.7);
        assert_ne!(k, cache_key(&c2, &m, 1));
        assert_ne!(k, cache_key(&c, &[Message::user("hi!")], 1));
        let mc = MemoryCache::new();
        futures::executor::block_on(mc.put(&k, &Reply { text: "yo".into(), ..Default::default() }));
        let lines = mc.take_new_lines();
        assert_eq!(lines.len(), 1);
        let back = MemoryCache::from_jsonl(&format!("{}\n{{broken", lines[0]));
        assert_eq!(futures::executor::block_on(back.get(&k)).unwrap().text, "yo");
    }
}

//! A small key-value store in IndexedDB (one database `wmlab`, one object store `kv`) for what is too big
//! for localStorage: network checkpoints and the results history. Values are bytes or text; the texts
//! under a key prefix are read together ([`text_entries`]).

use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(inline_js = r#"
const DB = 'wmlab', STORE = 'kv';
// The last operations of this page (window.__wmlab_idb), for a test that finds the store stuck.
const LOG = (globalThis.__wmlab_idb = globalThis.__wmlab_idb || []);
let seq = 0;
function note(s) { LOG.push(Math.round(performance.now()) + ' ' + s); if (LOG.length > 80) LOG.shift(); }
function open(what) {
  const n = ++seq;
  note(n + ' open ' + what);
  return new Promise((res, rej) => {
    const r = indexedDB.open(DB, 1);
    r.onupgradeneeded = () => { note(n + ' upgrade'); r.result.createObjectStore(STORE); };
    r.onsuccess = () => { note(n + ' opened'); res([n, r.result]); };
    r.onerror = () => { note(n + ' open error ' + r.error); rej(r.error); };
    r.onblocked = () => note(n + ' open blocked');
  });
}
function run(mode, what, f) {
  return open(mode + ' ' + what).then(([n, db]) => new Promise((res, rej) => {
    const tx = db.transaction(STORE, mode);
    let out = null;
    const req = f(tx.objectStore(STORE));
    req.onsuccess = () => { note(n + ' request done'); out = req.result === undefined ? null : req.result; };
    tx.oncomplete = () => { note(n + ' complete'); db.close(); res(out); };
    tx.onerror = () => { note(n + ' error ' + tx.error); db.close(); rej(tx.error); };
    tx.onabort = () => { note(n + ' abort ' + tx.error); db.close(); rej(tx.error || new Error('aborted')); };
  }));
}
export function idb_put(key, value) { return run('readwrite', 'put ' + key, s => s.put(value, key)); }
export function idb_get(key) { return run('readonly', 'get ' + key, s => s.get(key)); }
export function idb_delete(key) { return run('readwrite', 'delete ' + key, s => s.delete(key)); }
function range(prefix) { return IDBKeyRange.bound(prefix, prefix + '\uffff'); }
export function idb_entries(prefix) {
  return open('entries ' + prefix).then(([n, db]) => new Promise((res, rej) => {
    const tx = db.transaction(STORE, 'readonly');
    const out = [];
    const req = tx.objectStore(STORE).openCursor(range(prefix));
    req.onsuccess = () => { const c = req.result; if (c) { out.push([String(c.key), c.value]); c.continue(); } };
    tx.oncomplete = () => { note(n + ' complete'); db.close(); res(out); };
    tx.onerror = () => { note(n + ' error ' + tx.error); db.close(); rej(tx.error); };
    tx.onabort = () => { note(n + ' abort ' + tx.error); db.close(); rej(tx.error || new Error('aborted')); };
  }));
}
"#)]
extern "C" {
    #[wasm_bindgen(catch)]
    async fn idb_put(key: &str, value: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch)]
    async fn idb_get(key: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch)]
    async fn idb_delete(key: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch)]
    async fn idb_entries(prefix: &str) -> Result<JsValue, JsValue>;
}

pub fn js_err(e: JsValue) -> String {
    e.as_string()
        .or_else(|| Reflect::get(&e, &"message".into()).ok().and_then(|m| m.as_string()))
        .unwrap_or_else(|| format!("{e:?}"))
}

/// Store bytes under a key.
pub async fn store_bytes(key: &str, bytes: &[u8]) -> Result<(), String> {
    idb_put(key, Uint8Array::from(bytes).into()).await.map(|_| ()).map_err(js_err)
}

/// Store text under a key.
pub async fn store_text(key: &str, text: &str) -> Result<(), String> {
    idb_put(key, JsValue::from_str(text)).await.map(|_| ()).map_err(js_err)
}

pub async fn load_bytes(key: &str) -> Result<Option<Vec<u8>>, String> {
    let v = idb_get(key).await.map_err(js_err)?;
    Ok(v.dyn_into::<Uint8Array>().ok().map(|a| a.to_vec()))
}

pub async fn load_text(key: &str) -> Result<Option<String>, String> {
    Ok(idb_get(key).await.map_err(js_err)?.as_string())
}

pub async fn delete(key: &str) -> Result<(), String> {
    idb_delete(key).await.map(|_| ()).map_err(js_err)
}

/// The (key, text) pairs whose key starts with `prefix`, in key order (values that are not text are
/// left out), read in one transaction.
pub async fn text_entries(prefix: &str) -> Result<Vec<(String, String)>, String> {
    let v = idb_entries(prefix).await.map_err(js_err)?;
    Ok(js_sys::Array::from(&v)
        .iter()
        .filter_map(|pair| {
            let pair = js_sys::Array::from(&pair);
            Some((pair.get(0).as_string()?, pair.get(1).as_string()?))
        })
        .collect())
}

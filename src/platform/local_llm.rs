//! "In this tab": a small instruct model run by llama.cpp compiled for the browser (wllama, the npm
//! package `@wllama/wllama`, MIT), behind the same [`Transport`] as every provider. Requests to the
//! pseudo base URL [`TAB_BASE`] (`tab://local/v1`) are answered here: `POST …/chat/completions` by
//! wllama's OpenAI-shaped chat completion (with its `usage` tokens), `GET …/models` by the loaded model;
//! every other URL goes to the browser's `fetch` ([`FetchTransport`]). The provider kind stays
//! OpenAI-compatible, so the runner, cache, log, scoring and records are the ones every run uses.
//!
//! The runtime and the model are files of the build, not of the app's wasm: `local-llm/` beside
//! `index.html` (`scripts/dev/local-llm.sh`; `scripts/dev/publish.sh --with-local-model`), described by
//! its `manifest.json`, and loaded only when the user asks. A `.gguf` from disk loads the same way. The
//! model file's SHA-256 is computed in the browser (SubtleCrypto) over the bytes loaded, and goes into
//! the run's record with the runtime's version ([`LocalModel::settings`]).

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use wmlab_core::record::Setting;
use wmlab_llm::web::FetchTransport;
use wmlab_llm::{HttpRequest, HttpResponse, Transport, TransportError};

use super::idb::js_err;

/// The base URL of the model in this tab.
pub const TAB_BASE: &str = "tab://local/v1";

/// localStorage: the CPU threads the model may use (default: half the cores on a cross-origin isolated
/// page, as llama.cpp counts physical cores; one elsewhere).
pub const THREADS_KEY: &str = "wmlab.llm.local.threads";

/// Whether a base URL (or a request URL) names the model in this tab.
pub fn is_tab(url: &str) -> bool {
    url.trim().to_ascii_lowercase().starts_with("tab://")
}

#[wasm_bindgen(inline_js = r#"
const S = { mod: null, inst: null, info: null, log: [], ctrl: new Map() };
// For tests/e2e/bench/local-llm.mjs: the loaded runtime, to time it beside the native server.
globalThis.__wmlab_local_llm = S;
const dir = () => new URL('local-llm/', document.baseURI);
const fail = (status, message, type) => JSON.stringify({ status, body: JSON.stringify({ error: { message, type: type || 'error' } }) });
export async function llm_local_manifest() {
  try {
    const r = await fetch(new URL('manifest.json', dir()), { cache: 'no-cache' });
    return r.ok ? await r.text() : null;
  } catch (e) { return null; }
}
function memory64() {
  try { new WebAssembly.Memory({ address: 'i64', initial: 1n }); return true; } catch (e) { return false; }
}
async function download(url, progress) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url} answered HTTP ${r.status}`);
  const total = Number(r.headers.get('content-length')) || 0;
  const reader = r.body.getReader();
  const parts = [];
  let got = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    got += value.length;
    progress(got, total);
  }
  return new Blob(parts);
}
// source: a file name in local-llm/ (the build's model) or a Blob (a .gguf opened from disk).
export async function llm_local_load(source, name, runtime, gpu, threads, progress) {
  if (!globalThis.crypto || !crypto.subtle) {
    throw new Error('Loading a model needs a secure page (https, or localhost): the browser computes its SHA-256 with SubtleCrypto.');
  }
  if (!memory64()) {
    throw new Error('This browser has no 64-bit WebAssembly memory (Memory64: Chrome and Edge 133+, Firefox 134+), which this build of llama.cpp needs.');
  }
  if (S.inst) {
    const old = S.inst;
    S.inst = null;
    S.info = null;
    try { await old.exit(); } catch (e) {}
  }
  if (!S.mod) S.mod = await import(new URL('wllama.js', dir()).href);
  const blob = typeof source === 'string' ? await download(new URL(source, dir()).href, progress) : source;
  progress(blob.size, blob.size);
  const digest = await crypto.subtle.digest('SHA-256', await blob.arrayBuffer());
  const sha256 = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
  S.log = [];
  const keep = (...a) => { S.log.push(a.map(String).join(' ')); if (S.log.length > 2000) S.log.shift(); };
  const warn = (...a) => { keep(...a); console.warn('[wllama]', ...a); };
  // Errors go back to the page as HTTP-shaped answers (a prompt past the context is a classified error).
  const logger = { debug: keep, log: keep, info: keep, warn, error: warn };
  const inst = new S.mod.Wllama({ default: new URL('wllama.wasm', dir()).href }, { logger, allowOffline: true });
  // Never the CDN: browsers without JSPI or Memory64 would otherwise fetch wllama's compat build from it.
  inst.setCompat(null);
  const want = threads > 0 ? threads
    : (globalThis.crossOriginIsolated ? Math.max(1, Math.floor((navigator.hardwareConcurrency || 1) / 2)) : 1);
  const params = { n_ctx: 4096, n_parallel: 1, n_threads: want };
  if (!gpu) params.n_gpu_layers = 0;
  await inst.loadModel([blob], params);
  // llama.cpp names each device its weights went to: "load_tensors: CPU model buffer size = …".
  const devices = S.log.map((l) => /(\S+) model buffer size/.exec(l)).filter(Boolean).map((m) => m[1]);
  const gpuUsed = devices.some((d) => !/^CPU/i.test(d));
  const nThreads = inst.useMultiThread ? inst.nbThreads : 1;
  S.inst = inst;
  S.info = {
    model: name,
    file: typeof source === 'string' ? source : (source.name || name + '.gguf'),
    bytes: blob.size,
    sha256,
    runtime,
    llama_cpp: S.mod.Wllama.getLibllamaVersion ? S.mod.Wllama.getLibllamaVersion() : '',
    backend: gpuUsed ? 'WebGPU' : `CPU (WebAssembly, ${nThreads} thread${nThreads === 1 ? '' : 's'})`,
    n_ctx: params.n_ctx,
  };
  return JSON.stringify(S.info);
}
export function llm_local_models() {
  const data = S.info ? [{ id: S.info.model, object: 'model', owned_by: 'this tab' }] : [];
  return JSON.stringify({ object: 'list', data });
}
export async function llm_local_chat(id, body, timeoutMs) {
  if (!S.inst) return fail(503, 'No model is loaded in this tab: load one on the LLM page ("In this tab").');
  let req;
  try { req = JSON.parse(body); } catch (e) { return fail(400, 'The request is not JSON.'); }
  const images = (req.messages || []).some((m) => Array.isArray(m.content) && m.content.some((p) => p && p.type === 'image_url'));
  if (images && !S.inst.supportInputModality('image')) return fail(400, 'The model in this tab takes no images.', 'invalid_request_error');
  delete req.model;
  delete req.stream;
  if (req.max_completion_tokens != null) {
    if (req.max_tokens == null) req.max_tokens = req.max_completion_tokens;
    delete req.max_completion_tokens;
  }
  const ctrl = new AbortController();
  S.ctrl.set(id, ctrl);
  let timedOut = false;
  const timer = setTimeout(() => { timedOut = true; ctrl.abort(); }, Math.max(1, timeoutMs));
  try {
    const r = await S.inst.createChatCompletion({ ...req, abortSignal: ctrl.signal });
    r.model = S.info.model;
    return JSON.stringify({ status: 200, body: JSON.stringify(r) });
  } catch (e) {
    if (ctrl.signal.aborted) return JSON.stringify({ status: timedOut ? 'timeout' : 'aborted' });
    let message = String((e && e.message) || e);
    if (e && e.type === 'kv_cache_full') message = 'The request exceeds the available context size (its cache is full): ' + message;
    const past = /context size|context length/i.test(message);
    return fail(past ? 400 : 500, message, e && e.type);
  } finally {
    clearTimeout(timer);
    S.ctrl.delete(id);
  }
}
export function llm_local_abort(id) {
  const c = S.ctrl.get(id);
  if (c) c.abort();
}
"#)]
extern "C" {
    async fn llm_local_manifest() -> JsValue;
    #[wasm_bindgen(catch)]
    async fn llm_local_load(
        source: &JsValue,
        name: &str,
        runtime: &str,
        gpu: bool,
        threads: u32,
        progress: &js_sys::Function,
    ) -> Result<JsValue, JsValue>;
    fn llm_local_models() -> String;
    async fn llm_local_chat(id: u32, body: &str, timeout_ms: f64) -> JsValue;
    fn llm_local_abort(id: u32);
}

/// What the build's `local-llm/manifest.json` says (`scripts/dev/local-llm.sh` writes it).
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Manifest {
    pub runtime: Runtime,
    /// The model shipped with the build (`--with-local-model`); none with the runtime alone.
    pub model: Option<ShippedModel>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Runtime {
    pub name: String,
    pub version: String,
    #[serde(default)]
    pub bytes: u64,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct ShippedModel {
    pub name: String,
    pub file: String,
    pub bytes: u64,
    pub sha256: String,
    #[serde(default)]
    pub license: String,
}

impl Manifest {
    /// `wllama 3.13.0`: the runtime's name and npm version, as the record keeps it.
    pub fn runtime_label(&self) -> String {
        format!("{} {}", self.runtime.name, self.runtime.version)
    }
}

/// The model loaded in this tab, as a run's spec and record keep it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LocalModel {
    /// The model's name (the shipped model's, or the file's name without `.gguf`): the run's model.
    pub model: String,
    pub file: String,
    pub bytes: u64,
    /// Of the bytes loaded, computed in the browser.
    pub sha256: String,
    /// `wllama 3.13.0`.
    pub runtime: String,
    /// llama.cpp's build inside the runtime (`b12211-7d7f028`).
    #[serde(default)]
    pub llama_cpp: String,
    /// `WebGPU` or `CPU (WebAssembly, N threads)`.
    pub backend: String,
    pub n_ctx: u32,
}

impl LocalModel {
    /// The record's settings for a run on this model.
    pub fn settings(&self) -> Vec<(&'static str, Setting)> {
        vec![
            ("local_runtime", Setting::Text(self.runtime.clone())),
            ("local_llama_cpp", Setting::Text(self.llama_cpp.clone())),
            ("local_model_file", Setting::Text(self.file.clone())),
            ("local_model_bytes", Setting::Int(self.bytes as i64)),
            ("local_model_sha256", Setting::Text(self.sha256.clone())),
            ("local_backend", Setting::Text(self.backend.clone())),
            ("local_context", Setting::Int(self.n_ctx as i64)),
        ]
    }
}

thread_local! {
    static LOADED: RefCell<Option<LocalModel>> = const { RefCell::new(None) };
    static MANIFEST: RefCell<Option<Option<Manifest>>> = const { RefCell::new(None) };
    static NEXT_ID: Cell<u32> = const { Cell::new(1) };
}

/// The model loaded in this tab, if any.
pub fn loaded() -> Option<LocalModel> {
    LOADED.with(|l| l.borrow().clone())
}

/// The build's manifest (fetched once per page load); `None` when the build has no `local-llm/`.
pub async fn manifest() -> Option<Manifest> {
    if let Some(m) = MANIFEST.with(|m| m.borrow().clone()) {
        return m;
    }
    let m = llm_local_manifest().await.as_string().and_then(|t| serde_json::from_str::<Manifest>(&t).ok());
    MANIFEST.with(|slot| *slot.borrow_mut() = Some(m.clone()));
    m
}

/// Where a model comes from.
pub enum Source {
    /// The model shipped in the build's `local-llm/`.
    Shipped,
    /// A `.gguf` file the user opened.
    File(web_sys::File),
}

/// Load a model into this tab (the one before is unloaded first). `gpu`: WebGPU where the browser has
/// it (else the CPU); `progress(bytes, total)` while the shipped model downloads.
pub async fn load(
    source: Source,
    gpu: bool,
    mut progress: impl FnMut(f64, f64) + 'static,
) -> Result<LocalModel, String> {
    let Some(m) = manifest().await else {
        return Err(
            "This build has no in-tab runtime (local-llm/): publish it with scripts/dev/publish.sh --with-local-model \
                    (or --with-local-runtime)."
                .into(),
        );
    };
    let (js_source, name) = match &source {
        Source::Shipped => {
            let Some(s) = &m.model else {
                return Err("The model is not in this build (published without --with-local-model); open a .gguf from disk instead.".into());
            };
            (JsValue::from_str(&s.file), s.name.clone())
        }
        Source::File(f) => {
            let n = f.name();
            let stem = n.strip_suffix(".gguf").or_else(|| n.strip_suffix(".GGUF")).unwrap_or(&n).to_string();
            (JsValue::from(f.clone()), stem)
        }
    };
    let threads = wmlab_app::storage::positive(&wmlab_app::storage::LocalStorage, THREADS_KEY).unwrap_or(0) as u32;
    let cb = Closure::<dyn FnMut(f64, f64)>::new(move |got: f64, total: f64| progress(got, total));
    LOADED.with(|l| *l.borrow_mut() = None);
    let info = llm_local_load(&js_source, &name, &m.runtime_label(), gpu, threads, cb.as_ref().unchecked_ref())
        .await
        .map_err(|e| format!("The model did not load: {}", js_err(e)))?;
    drop(cb);
    let info: LocalModel = info
        .as_string()
        .and_then(|t| serde_json::from_str(&t).ok())
        .ok_or_else(|| "The runtime said nothing readable about the model it loaded.".to_string())?;
    LOADED.with(|l| *l.borrow_mut() = Some(info.clone()));
    Ok(info)
}

/// Before a run (or a resumed one) on the model in this tab: the model it was started with must be the
/// one loaded. The shipped model is loaded here when it is that one; any other must be opened again.
pub async fn ensure(wanted: &LocalModel) -> Result<(), String> {
    if loaded().is_some_and(|l| l.sha256 == wanted.sha256) {
        return Ok(());
    }
    if manifest().await.and_then(|m| m.model).is_some_and(|s| s.sha256 == wanted.sha256) {
        let gpu = wanted.backend.starts_with("WebGPU");
        return load(Source::Shipped, gpu, |_, _| {}).await.map(|_| ());
    }
    Err(format!(
        "This run used {} (SHA-256 {}…) in this tab: open that file again (In this tab → Open a .gguf), then resume.",
        wanted.file,
        &wanted.sha256[..wanted.sha256.len().min(12)]
    ))
}

/// Undoes a request's wait when the runner drops it (cancel, its own timeout): the model stops.
struct AbortOnDrop(u32);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        llm_local_abort(self.0);
    }
}

fn json_response(status: u16, body: String) -> HttpResponse {
    let mut headers = BTreeMap::new();
    headers.insert("content-type".to_string(), "application/json".to_string());
    HttpResponse { status, headers, body }
}

async fn send_local(req: HttpRequest) -> Result<HttpResponse, TransportError> {
    let path = req.url.split('?').next().unwrap_or_default().trim_end_matches('/').to_string();
    let post = req.method.eq_ignore_ascii_case("POST");
    if !post && path.ends_with("/models") {
        return Ok(json_response(200, llm_local_models()));
    }
    if !(post && path.ends_with("/chat/completions")) {
        let msg = format!(
            "The model in this tab answers chat completions only ({} {} is not one): untick batch mode.",
            req.method, req.url
        );
        return Ok(json_response(404, serde_json::json!({"error": {"message": msg}}).to_string()));
    }
    let id = NEXT_ID.with(|n| {
        let id = n.get();
        n.set(id.wrapping_add(1).max(1));
        id
    });
    // Dropped when the answer is in (a no-op then) or when the runner drops this request.
    let _abort = AbortOnDrop(id);
    let answer = llm_local_chat(id, &req.body, req.timeout_ms as f64).await;
    let v: serde_json::Value = answer
        .as_string()
        .and_then(|t| serde_json::from_str(&t).ok())
        .ok_or_else(|| TransportError::Network("the model in this tab gave no answer".into()))?;
    match (v["status"].as_u64(), v["status"].as_str()) {
        (Some(status), _) => Ok(json_response(status as u16, v["body"].as_str().unwrap_or_default().to_string())),
        (None, Some("timeout")) => Err(TransportError::Timeout),
        _ => Err(TransportError::Aborted),
    }
}

/// The LLM page's transport: the model in this tab for [`TAB_BASE`], `fetch` for everything else.
#[derive(Clone, Default)]
pub struct PageTransport {
    fetch: FetchTransport,
}

impl PageTransport {
    pub fn new() -> Self {
        PageTransport { fetch: FetchTransport::new() }
    }
}

impl Transport for PageTransport {
    async fn send(&self, req: HttpRequest) -> Result<HttpResponse, TransportError> {
        if is_tab(&req.url) { send_local(req).await } else { self.fetch.send(req).await }
    }
}

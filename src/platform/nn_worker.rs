//! The page's side of the networks worker (`crates/nn-worker`): start it, send commands, receive events.
//! Checkpoints are kept across reloads in IndexedDB (`platform::idb`; the paper's models are megabytes,
//! beyond what localStorage holds).
//!
//! Messages are `{ json, bytes? }` objects; the JSON is `wmlab_core::nn_protocol::{Cmd, Event}`, the
//! one definition the worker uses too.
//! The page reads a checkpoint bundle's header with the core's reader
//! ([`wmlab_core::networks::BundleHeader`], the one `wmlab_nn` uses) to show what a file or a stored
//! run holds without loading burn into the page's own wasm.

use js_sys::{Object, Reflect, Uint8Array};
use leptos::prelude::{RwSignal, Set as _};

use super::idb::js_err;
pub use super::idb::{delete, load_bytes, load_text, store_bytes, store_text};
use super::{outbox, web};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{MessageEvent, Worker};
use wmlab_app::storage::keys;

/// The worker script Trunk writes for `data-type="worker" data-loader-shim` (index.html): WebGPU, and the
/// CPU on one thread.
pub const WORKER_URL: &str = "./wmlab-nn-worker_loader.js";
/// The threaded CPU worker's entry, a module worker (`scripts/dev/build-threaded-worker.sh`).
pub const THREADED_WORKER_URL: &str = "./worker-mt/entry.js";

/// Whether the page is cross-origin isolated, i.e. may share memory with workers (the threaded worker
/// needs it; the host sends COOP/COEP headers, docs/hosting.md).
pub fn cross_origin_isolated() -> bool {
    Reflect::get(&js_sys::global(), &"crossOriginIsolated".into()).ok().and_then(|v| v.as_bool()).unwrap_or(false)
}

/// The service worker that adds the isolation headers on hosts that cannot send them (coi-serviceworker,
/// MIT, in `public/`; registered only when the user asks, on the Networks page).
pub const ISOLATION_WORKER_URL: &str = "./coi-serviceworker.js";

fn service_workers() -> Option<web_sys::ServiceWorkerContainer> {
    let w = web_sys::window()?;
    // Service workers need a secure context (https, or localhost); elsewhere the property is absent.
    if !w.is_secure_context() || !Reflect::has(&w.navigator(), &"serviceWorker".into()).unwrap_or(false) {
        return None;
    }
    Some(w.navigator().service_worker())
}

/// Whether this page could be made cross-origin isolated by [`enable_isolation_worker`].
pub fn can_isolate_with_worker() -> bool {
    !cross_origin_isolated() && service_workers().is_some()
}

/// Whether the isolation service worker controls this page (so [`disable_isolation_worker`] applies).
pub fn isolation_worker_active() -> bool {
    service_workers().and_then(|c| c.controller()).is_some_and(|sw| is_isolation_worker(&sw.script_url()))
}

/// Register the isolation service worker, wait until it is active, and reload the page under it.
pub async fn enable_isolation_worker() -> Result<(), String> {
    let c = service_workers().ok_or("this browser offers no service workers here (they need https)")?;
    let reg: web_sys::ServiceWorkerRegistration = JsFuture::from(c.register(ISOLATION_WORKER_URL))
        .await
        .map_err(|e| format!("the service worker could not be installed: {}", js_err(e)))?
        .unchecked_into();
    // Wait for this registration's worker to be active (`ready` may answer with another registration
    // of the origin): it then controls the page after the reload.
    for _ in 0..200 {
        if reg.active().is_some() {
            if let Some(s) = web::window().session_storage().ok().flatten() {
                let _ = s.set_item(PICK_KEY, BackendPick::Cpu.as_str());
            }
            let _ = web::window().location().reload();
            return Ok(());
        }
        outbox::sleep(50.0).await;
    }
    Err("the service worker was installed but did not start within 10 s; reload the page".to_string())
}

/// sessionStorage key: the backend pick to take after the reload [`enable_isolation_worker`] makes
/// (the CPU: what the user asked more threads for).
const PICK_KEY: &str = "wmlab.nn.pick";

/// The pick [`enable_isolation_worker`] saved before its reload, taken once.
pub fn take_pick_after_reload() -> Option<BackendPick> {
    let store = web::window().session_storage().ok()??;
    let pick = store.get_item(PICK_KEY).ok()??;
    let _ = store.remove_item(PICK_KEY);
    BackendPick::parse(&pick)
}

/// Remove the isolation service worker (only that one: the origin may hold other sites' workers, e.g.
/// other projects on one GitHub Pages domain) and reload without it.
pub async fn disable_isolation_worker() -> Result<(), String> {
    let c = service_workers().ok_or("no service workers here")?;
    let regs = JsFuture::from(c.get_registrations()).await.map_err(js_err)?;
    let ours = |w: Option<web_sys::ServiceWorker>| w.is_some_and(|w| is_isolation_worker(&w.script_url()));
    for r in js_sys::Array::from(&regs).iter() {
        let r: web_sys::ServiceWorkerRegistration = r.unchecked_into();
        if (ours(r.active()) || ours(r.waiting()) || ours(r.installing()))
            && let Ok(p) = r.unregister()
        {
            let _ = JsFuture::from(p).await;
        }
    }
    let _ = web::window().location().reload();
    Ok(())
}

/// Whether a service worker's script is this app's [`ISOLATION_WORKER_URL`] (resolved against the page).
fn is_isolation_worker(script_url: &str) -> bool {
    web_sys::Url::new_with_base(ISOLATION_WORKER_URL, &web::base_url()).is_ok_and(|u| u.href() == script_url)
}

/// Whether the browser offers WebGPU at all (`navigator.gpu`; an adapter may still be refused).
pub fn has_webgpu() -> bool {
    Reflect::get(&js_sys::global(), &"navigator".into())
        .ok()
        .and_then(|n| Reflect::get(&n, &"gpu".into()).ok())
        .is_some_and(|g| !g.is_undefined() && !g.is_null())
}

pub use wmlab_core::networks::CheckpointKind;
use wmlab_core::nn_protocol::BackendPick;
pub use wmlab_core::nn_protocol::{Cmd, Event};

/// A running worker.
#[derive(Clone)]
pub struct NnWorker {
    worker: Worker,
}

impl NnWorker {
    /// Start the worker (the threaded CPU one when `threaded`); `on_event` gets every event (with
    /// checkpoint bytes where the event has them).
    pub fn spawn(threaded: bool, on_event: impl Fn(Event, Option<Vec<u8>>) + 'static) -> Result<NnWorker, String> {
        let worker = if threaded {
            // `wmlab.nn.threads` (default: the browser's `navigator.hardwareConcurrency`).
            let threads = wmlab_app::storage::positive(&wmlab_app::storage::LocalStorage, keys::NN_THREADS);
            let url = match threads {
                Some(t) => format!("{THREADED_WORKER_URL}?threads={t}"),
                None => THREADED_WORKER_URL.to_string(),
            };
            let opts = web_sys::WorkerOptions::new();
            opts.set_type(web_sys::WorkerType::Module);
            Worker::new_with_options(&url, &opts)
        } else {
            Worker::new(WORKER_URL)
        }
        .map_err(|e| format!("the networks worker could not start: {}", js_err(e)))?;
        let handler = Closure::<dyn Fn(MessageEvent)>::new(move |e: MessageEvent| {
            let data = e.data();
            let json = Reflect::get(&data, &"json".into()).ok().and_then(|v| v.as_string()).unwrap_or_default();
            let bytes = Reflect::get(&data, &"bytes".into())
                .ok()
                .filter(|v| v.is_instance_of::<Uint8Array>())
                .map(|v| v.unchecked_into::<Uint8Array>().to_vec());
            match serde_json::from_str::<Event>(&json) {
                Ok(ev) => on_event(ev, bytes),
                Err(e) => on_event(
                    Event::Error { message: format!("unreadable message from the worker: {e}"), fatal: false },
                    None,
                ),
            }
        });
        worker.set_onmessage(Some(handler.as_ref().unchecked_ref()));
        handler.forget();
        Ok(NnWorker { worker })
    }

    /// Also report a worker that fails to load (missing file, wasm that will not compile).
    pub fn on_error(&self, f: impl Fn(String) + 'static) {
        // A script that fails to load (404, a module that does not parse) fires a plain `Event`, not
        // an `ErrorEvent`: it has no message to read.
        let h = Closure::<dyn Fn(web_sys::Event)>::new(move |e: web_sys::Event| {
            let m = e.dyn_ref::<web_sys::ErrorEvent>().map(web_sys::ErrorEvent::message).unwrap_or_default();
            f(if m.is_empty() { "the networks worker failed to load".to_string() } else { m })
        });
        self.worker.set_onerror(Some(h.as_ref().unchecked_ref()));
        h.forget();
    }

    pub fn send(&self, cmd: &Cmd, bytes: Option<&[u8]>) {
        let obj = Object::new();
        let json = serde_json::to_string(cmd).unwrap_or_default();
        let _ = Reflect::set(&obj, &"json".into(), &json.into());
        if let Some(b) = bytes {
            let _ = Reflect::set(&obj, &"bytes".into(), &Uint8Array::from(b));
        }
        let _ = self.worker.post_message(&obj);
    }

    pub fn terminate(&self) {
        self.worker.terminate();
    }
}

// ---- checkpoints in IndexedDB ----

/// The stored checkpoint to evaluate or analyse: the best one, else the latest (None: the worker uses
/// the run in memory).
pub async fn stored_model() -> Option<Vec<u8>> {
    match load_bytes(CheckpointKind::Best.key()).await.ok().flatten() {
        Some(b) => Some(b),
        None => load_bytes(CheckpointKind::Latest.key()).await.ok().flatten(),
    }
}

thread_local! {
    /// Checkpoints waiting to be stored (the newest of each kind, with the curves JSON at that moment)
    /// and whether a writer is running.
    static WRITES: std::cell::RefCell<(bool, Vec<(CheckpointKind, Vec<u8>, String)>)> = const { std::cell::RefCell::new((false, Vec::new())) };
}

/// Store a checkpoint (`nn/<kind>`) and the curves (`nn/run`) in IndexedDB. One writer at a time:
/// checkpoints that arrive while it writes wait, and only the newest of each kind is written, so a fast
/// run cannot queue up writes that hold the browser's storage (the results history of another tab
/// waits on it). Lives outside the page, so a write under way finishes when the page is left; `notice` hears of a failure.
pub fn store_checkpoint(kind: CheckpointKind, bytes: Vec<u8>, curves_json: String, notice: RwSignal<Option<String>>) {
    let start = WRITES.with_borrow_mut(|(busy, q)| {
        q.retain(|(k, _, _)| *k != kind);
        q.push((kind, bytes, curves_json));
        !std::mem::replace(busy, true)
    });
    if !start {
        return;
    }
    wasm_bindgen_futures::spawn_local(async move {
        loop {
            let next = WRITES.with_borrow_mut(|(busy, q)| {
                if q.is_empty() {
                    *busy = false;
                    None
                } else {
                    Some(q.remove(0))
                }
            });
            let Some((kind, bytes, text)) = next else { break };
            let r = async {
                store_bytes(kind.key(), &bytes).await?;
                store_text("nn/run", &text).await
            }
            .await;
            if let Err(e) = r {
                let _ = notice.try_set(Some(format!(
                    "The checkpoint could not be saved in this browser ({e}); download it to keep it."
                )));
            }
        }
    });
}

//! Browser storage for participant sessions and the outbox of records to POST.
//!
//! - A session is saved after every trial under `wmlab.session.<hash>` (hash of the study's canonical
//!   query and participant), so a reload offers to resume it.
//! - When the study names an endpoint, each finished block (and the end) puts one item in the outbox
//!   (`wmlab.outbox`, kept in localStorage until acknowledged, so it survives a reload; when storage is
//!   full or blocked the items stay in this page's memory and are sent all the same). Items are POSTed
//!   in order as JSON `{idempotency_id, block, participant, final, record}` with an `Idempotency-Key`
//!   header, and retried with exponential backoff (0.5 s doubling to 30 s) until the server answers
//!   2xx; only then is the item removed. Each item has a stable id, so it is sent until acknowledged
//!   once, and never again after.
//! - With a DataPipe experiment id, each block's end queues the session so far as a CSV for DataPipe
//!   (its own file, `_partNN`), and the end the whole session (`{experimentID, filename, data}`,
//!   `people::study::datapipe_part_body`), sent the same way without the `Idempotency-Key` header.
//! - Inside JATOS (`window.jatos` exists) results go through `jatos.appendResultData` per block and
//!   `jatos.endStudy` at the end instead.

use std::cell::Cell;

use serde::{Deserialize, Serialize};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::platform::web;

pub use wmlab_app::storage::keys::{OUTBOX, SESSION_PREFIX};
use wmlab_app::storage::{LocalStorage, Store};

pub fn get(key: &str) -> Option<String> {
    LocalStorage.get(key)
}

pub fn set(key: &str, value: &str) -> Result<(), String> {
    LocalStorage.set(key, value)
}

pub fn remove(key: &str) {
    LocalStorage.remove(key)
}

/// Every saved session key.
pub fn session_keys() -> Vec<String> {
    wmlab_app::storage::session_keys(&LocalStorage)
}

/// One record waiting to be posted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Item {
    pub id: String,
    pub endpoint: String,
    /// The JSON body.
    pub body: String,
    #[serde(default)]
    pub attempts: u32,
    /// A plain JSON POST without the `Idempotency-Key` header (DataPipe: a service whose CORS allows
    /// only the usual headers).
    #[serde(default)]
    pub plain: bool,
}

thread_local! {
    /// Items this page queued that storage would not keep (full, or blocked in private mode): they are
    /// sent from memory all the same.
    static UNSAVED: std::cell::RefCell<Vec<Item>> = const { std::cell::RefCell::new(Vec::new()) };
    /// Ids this page saw acknowledged (so a stale stored copy is never sent again).
    static ACKED: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The queue: what storage holds, plus what this page could not store, less what it saw acknowledged.
pub fn load_outbox() -> Vec<Item> {
    let mut items: Vec<Item> = get(OUTBOX).and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default();
    UNSAVED.with(|u| {
        for i in u.borrow().iter() {
            if !items.iter().any(|x| x.id == i.id) {
                items.push(i.clone());
            }
        }
    });
    ACKED.with(|a| items.retain(|i| !a.borrow().contains(&i.id)));
    items
}

/// Store the queue; what cannot be stored stays in memory ([`UNSAVED`]).
fn save_outbox(items: &[Item]) {
    let stored = set(OUTBOX, &serde_json::to_string(items).unwrap_or_else(|_| "[]".into())).is_ok();
    UNSAVED.with(|u| {
        let mut u = u.borrow_mut();
        if stored {
            u.clear();
        } else {
            for i in items {
                match u.iter_mut().find(|x| x.id == i.id) {
                    Some(x) => *x = i.clone(),
                    None => u.push(i.clone()),
                }
            }
        }
    });
}

/// Queue one item (an id already queued is not queued again) and start sending.
pub fn enqueue(item: Item, on_status: impl Fn(usize) + 'static) {
    let mut items = load_outbox();
    if !items.iter().any(|i| i.id == item.id) {
        items.push(item);
        save_outbox(&items);
    }
    flush(on_status);
}

thread_local! {
    static SENDING: Cell<bool> = const { Cell::new(false) };
    /// Set by the browser's `online` event: the back-off wait ends at once.
    static WOKEN: Cell<bool> = const { Cell::new(false) };
    static LISTENING: Cell<bool> = const { Cell::new(false) };
}

/// Wait `ms`, or less if the browser comes back online meanwhile (checked every 200 ms).
async fn sleep_unless_online(ms: f64) {
    if !LISTENING.with(|l| l.replace(true)) {
        let cb = Closure::<dyn Fn()>::new(|| WOKEN.with(|w| w.set(true)));
        let _ = web::window().add_event_listener_with_callback("online", cb.as_ref().unchecked_ref());
        cb.forget();
    }
    // An `online` event since the last wait (even during the failed request) ends this wait at once.
    let mut left = ms;
    while left > 0.0 && !WOKEN.with(|w| w.get()) {
        sleep(left.min(200.0)).await;
        left -= 200.0;
    }
    WOKEN.with(|w| w.set(false));
}

/// Send queued items one at a time until the queue is empty; on failure wait and retry.
/// `on_status(pending)` is told how many items are still queued after each attempt.
pub fn flush(on_status: impl Fn(usize) + 'static) {
    if SENDING.with(|s| s.replace(true)) {
        return;
    }
    wasm_bindgen_futures::spawn_local(async move {
        loop {
            let items = load_outbox();
            on_status(items.len());
            let Some(first) = items.first().cloned() else { break };
            let ok = post(&first).await;
            let mut items = load_outbox();
            if ok {
                ACKED.with(|a| a.borrow_mut().push(first.id.clone()));
                UNSAVED.with(|u| u.borrow_mut().retain(|i| i.id != first.id));
                items.retain(|i| i.id != first.id);
                save_outbox(&items);
                on_status(items.len());
                continue;
            }
            let attempts = first.attempts + 1;
            if let Some(i) = items.iter_mut().find(|i| i.id == first.id) {
                i.attempts = attempts;
            }
            save_outbox(&items);
            let wait = (500.0 * 2f64.powi(attempts.min(8) as i32 - 1)).min(30_000.0);
            sleep_unless_online(wait).await;
        }
        SENDING.with(|s| s.set(false));
    });
}

async fn post(item: &Item) -> bool {
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    let headers = match web_sys::Headers::new() {
        Ok(h) => h,
        Err(_) => return false,
    };
    let _ = headers.set("content-type", "application/json");
    if item.plain {
        let _ = headers.set("accept", "*/*");
    } else {
        let _ = headers.set("idempotency-key", &item.id);
    }
    init.set_headers(&headers);
    init.set_body(&JsValue::from_str(&item.body));
    let Ok(req) = web_sys::Request::new_with_str_and_init(&item.endpoint, &init) else { return false };
    let Ok(resp) = JsFuture::from(web::window().fetch_with_request(&req)).await else { return false };
    let Ok(resp) = resp.dyn_into::<web_sys::Response>() else { return false };
    if resp.ok() {
        return true;
    }
    // DataPipe writes a file once: a retry of a file that did arrive (its answer was lost) is refused
    // as existing. That file is there, so the item is done (else it would block the queue forever).
    if item.plain
        && resp.status() == 400
        && let Ok(p) = resp.text()
    {
        let text = JsFuture::from(p).await.ok().and_then(|t| t.as_string()).unwrap_or_default();
        return text.to_ascii_lowercase().contains("already exists");
    }
    false
}

pub async fn sleep(ms: f64) {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        let _ = web::window().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms as i32);
    });
    let _ = JsFuture::from(p).await;
}

/// `window.jatos`, when the app runs inside a JATOS study.
pub fn jatos() -> Option<JsValue> {
    let j = js_sys::Reflect::get(&web::window(), &JsValue::from_str("jatos")).ok()?;
    (!j.is_undefined() && !j.is_null()).then_some(j)
}

fn call(obj: &JsValue, name: &str, args: &[JsValue]) -> Option<JsValue> {
    let f: js_sys::Function = js_sys::Reflect::get(obj, &JsValue::from_str(name)).ok()?.dyn_into().ok()?;
    let arr = js_sys::Array::new();
    for a in args {
        arr.push(a);
    }
    f.apply(obj, &arr).ok()
}

/// `jatos.onLoad(f)`: runs `f` once jatos.js is ready (at once when there is no JATOS).
pub fn jatos_on_load(f: impl FnOnce() + 'static) {
    match jatos() {
        Some(j) => {
            let cb = Closure::once_into_js(f);
            if call(&j, "onLoad", &[cb]).is_none() {
                web_sys::console::warn_1(&JsValue::from_str("jatos.onLoad failed"));
            }
        }
        None => f(),
    }
}

/// `jatos.appendResultData(text)`.
pub fn jatos_append(text: &str) -> bool {
    jatos().and_then(|j| call(&j, "appendResultData", &[JsValue::from_str(text)])).is_some()
}

/// `jatos.endStudy(true, message)`.
pub fn jatos_end() -> bool {
    jatos().and_then(|j| call(&j, "endStudy", &[JsValue::TRUE, JsValue::from_str("finished")])).is_some()
}

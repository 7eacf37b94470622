//! Browser IO (wasm32): [`FetchTransport`] uses `fetch` (gloo-net) with an `AbortController` that
//! fires at the request's timeout; [`WebClock`] uses `Date.now()` and `setTimeout`. Works in a window
//! or a worker (uses the global scope).
//!
//! A CORS refusal reaches us as a plain network error (the browser hides the reason), so it is
//! classified as [`TransportError::Network`] and the error message names the provider setting that
//! allows browser calls.

use std::collections::BTreeMap;

use gloo_net::http::{Method, RequestBuilder};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use crate::{Clock, HttpRequest, HttpResponse, Transport, TransportError};

#[derive(Clone, Default)]
pub struct FetchTransport;

impl FetchTransport {
    pub fn new() -> Self {
        FetchTransport
    }
}

fn set_timeout(f: &js_sys::Function, ms: u64) -> Option<JsValue> {
    let global = js_sys::global();
    let st: js_sys::Function = js_sys::Reflect::get(&global, &JsValue::from_str("setTimeout")).ok()?.dyn_into().ok()?;
    st.call2(&global, f, &JsValue::from_f64(ms as f64)).ok()
}

fn clear_timeout(handle: &JsValue) {
    let global = js_sys::global();
    if let Ok(ct) = js_sys::Reflect::get(&global, &JsValue::from_str("clearTimeout"))
        && let Ok(ct) = ct.dyn_into::<js_sys::Function>()
    {
        let _ = ct.call1(&global, handle);
    }
}

/// Owns the abort controller and its timeout. Dropped when the request finishes or when the caller
/// drops the future (runner cancel/timeout): clears the timer (so the closure is never called after
/// it is freed) and aborts the fetch (a no-op when it already finished).
struct Abort {
    controller: web_sys::AbortController,
    timer: Option<JsValue>,
    _cb: Closure<dyn FnMut()>,
}

impl Abort {
    fn new(timeout_ms: u64) -> Option<Abort> {
        let controller = web_sys::AbortController::new().ok()?;
        let c2 = controller.clone();
        let cb: Closure<dyn FnMut()> = Closure::once(move || c2.abort());
        let timer = set_timeout(cb.as_ref().unchecked_ref(), timeout_ms.max(1));
        Some(Abort { controller, timer, _cb: cb })
    }
    fn aborted(&self) -> bool {
        self.controller.signal().aborted()
    }
}

impl Drop for Abort {
    fn drop(&mut self) {
        if let Some(t) = self.timer.take() {
            clear_timeout(&t);
        }
        self.controller.abort();
    }
}

impl Transport for FetchTransport {
    async fn send(&self, req: HttpRequest) -> Result<HttpResponse, TransportError> {
        let abort = Abort::new(req.timeout_ms);
        let is_get = req.method.eq_ignore_ascii_case("GET");
        let mut b = RequestBuilder::new(&req.url).method(if is_get { Method::GET } else { Method::POST });
        for (k, v) in &req.headers {
            b = b.header(k, v);
        }
        if let Some(a) = &abort {
            let signal = a.controller.signal();
            b = b.abort_signal(Some(&signal));
        }
        let request = if is_get { b.build() } else { b.body(req.body.clone()) };
        let request = request.map_err(|e| TransportError::Network(e.to_string()))?;
        let result = request.send().await;
        let aborted = abort.as_ref().is_some_and(Abort::aborted);
        let resp = match result {
            Ok(r) => r,
            Err(_) if aborted => return Err(TransportError::Timeout),
            Err(e) => return Err(TransportError::Network(e.to_string())),
        };
        let status = resp.status();
        let mut headers = BTreeMap::new();
        for (k, v) in resp.headers().entries() {
            headers.insert(k.to_ascii_lowercase(), v);
        }
        let body = match resp.text().await {
            Ok(t) => t,
            Err(_) if abort.as_ref().is_some_and(Abort::aborted) => {
                return Err(TransportError::Timeout);
            }
            Err(e) => return Err(TransportError::Network(e.to_string())),
        };
        Ok(HttpResponse { status, headers, body })
    }
}

#[derive(Clone, Default)]
pub struct WebClock;

impl WebClock {
    pub fn new() -> Self {
        WebClock
    }
}

impl Clock for WebClock {
    fn now_ms(&self) -> f64 {
        js_sys::Date::now()
    }

    async fn sleep(&self, ms: u64) {
        let promise = js_sys::Promise::new(&mut |resolve, _reject| {
            if set_timeout(&resolve, ms).is_none() {
                let _ = resolve.call0(&JsValue::NULL);
            }
        });
        let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
    }
}

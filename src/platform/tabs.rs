//! One tab per study: a participant who opens the same study link twice must not fork the session
//! (two tabs writing the same saved session and sending the same blocks). The first tab takes an
//! exclusive Web Lock named after the session key and holds it while the page lives; a second tab asks
//! for it with `ifAvailable`, is refused at once and shows "open in another tab" without touching
//! storage. Closing the first tab releases the lock, so a reload of the second then resumes the session.
//! Browsers without the Web Locks API (before 2022) go on as before.

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use crate::platform::web;

/// Ask for the study's lock; `then(true)` when this tab holds it (or locks are unavailable),
/// `then(false)` when another tab does. Called once, possibly after this returns.
pub fn claim(name: &str, then: impl FnOnce(bool) + 'static) {
    let nav = web::window().navigator();
    let locks = js_sys::Reflect::get(&nav, &JsValue::from_str("locks")).unwrap_or(JsValue::UNDEFINED);
    let request = js_sys::Reflect::get(&locks, &JsValue::from_str("request"))
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    let Some(request) = request.filter(|_| !locks.is_undefined() && !locks.is_null()) else {
        then(true);
        return;
    };
    let opts = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&opts, &JsValue::from_str("ifAvailable"), &JsValue::TRUE);
    let _ = js_sys::Reflect::set(&opts, &JsValue::from_str("mode"), &JsValue::from_str("exclusive"));
    let then = std::rc::Rc::new(std::cell::RefCell::new(Some(then)));
    let once = then.clone();
    let cb = Closure::once_into_js(move |lock: JsValue| -> JsValue {
        let mine = !(lock.is_null() || lock.is_undefined());
        if let Some(f) = once.borrow_mut().take() {
            f(mine);
        }
        if mine {
            // Held until the page goes away.
            js_sys::Promise::new(&mut |_, _| {}).into()
        } else {
            JsValue::NULL
        }
    });
    let name = JsValue::from_str(&format!("wmlab-study:{name}"));
    if request.call3(&locks, &name, &opts, &cb).is_err() {
        web_sys::console::warn_1(&JsValue::from_str(
            "navigator.locks.request failed; going on without the one-tab lock",
        ));
        if let Some(f) = then.borrow_mut().take() {
            f(true);
        }
    }
}

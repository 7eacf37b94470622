//! The participant page's browser glue: the clock, flags, a fresh seed, the session's storage key, the
//! stimulus canvas and its size, and the test hook (`window.__wmlab_test`).

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wmlab_core::people::device::{DisplayFacts, TrialView};
use wmlab_core::people::{Answer, StudyConfig};

use super::ui::Cur;
use crate::platform::outbox;
use crate::platform::web;

thread_local! {
    static HOOK_SEQ: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

pub fn now() -> f64 {
    web::window().performance().map(|p| p.now()).unwrap_or(0.0)
}

/// The test switches (`wmlab_app::storage::TestFlags`), read from localStorage.
pub fn flags() -> wmlab_app::storage::TestFlags {
    wmlab_app::storage::TestFlags::read(&wmlab_app::storage::LocalStorage)
}

/// A random 64-bit seed for a session of an anonymous link (the browser's crypto source, else
/// Math.random).
pub fn fresh_seed() -> u64 {
    let mut b = [0u8; 8];
    let crypto = web::window().crypto().ok();
    if crypto.is_some_and(|c| c.get_random_values_with_u8_array(&mut b).is_ok()) {
        return u64::from_le_bytes(b);
    }
    ((js_sys::Math::random() * 4294967296.0) as u64) << 32 | (js_sys::Math::random() * 4294967296.0) as u64
}

/// The storage key of a study (+ participant): FNV-64 of the canonical query.
pub fn session_key(cfg: &StudyConfig) -> String {
    let mut h = wmlab_core::hash::Fnv64::default();
    h.write(cfg.to_query().as_bytes());
    format!("{}{:016x}", outbox::SESSION_PREFIX, h.finish())
}

pub fn canvas() -> Option<web_sys::HtmlCanvasElement> {
    web::window().document()?.get_element_by_id("take-canvas")?.dyn_into().ok()
}

/// The window's inner size in CSS px, as fractions (the stimulus's side is the core's
/// `Session::stimulus_side` of it).
pub fn window_css() -> (f64, f64) {
    let w = web::window();
    let iw = w.inner_width().ok().and_then(|v| v.as_f64()).unwrap_or(800.0);
    let ih = w.inner_height().ok().and_then(|v| v.as_f64()).unwrap_or(800.0);
    (iw, ih)
}

fn media(query: &str) -> bool {
    web::window().match_media(query).ok().flatten().is_some_and(|m| m.matches())
}

fn px(v: Result<JsValue, JsValue>) -> u32 {
    v.ok().and_then(|v| v.as_f64()).filter(|v| v.is_finite() && *v >= 0.0).map(|v| v.round() as u32).unwrap_or(0)
}

/// The window's inner size, CSS px.
pub fn window_size() -> (u32, u32) {
    let w = web::window();
    (px(w.inner_width()), px(w.inner_height()))
}

/// What the browser says of the participant's display and pointers (the core reads the rules in them).
pub fn display_facts() -> DisplayFacts {
    let w = web::window();
    let nav = w.navigator();
    let (sw, sh) = w
        .screen()
        .ok()
        .map(|s| (s.width().unwrap_or(0).max(0) as u32, s.height().unwrap_or(0).max(0) as u32))
        .unwrap_or((0, 0));
    let (window_w, window_h) = window_size();
    DisplayFacts {
        user_agent: nav.user_agent().unwrap_or_default(),
        screen_w: sw,
        screen_h: sh,
        window_w,
        window_h,
        outer_w: px(w.outer_width()),
        dpr: w.device_pixel_ratio(),
        touch_points: nav.max_touch_points().max(0) as u32,
        coarse: media("(any-pointer: coarse)"),
        fine: media("(any-pointer: fine)"),
        hover: media("(hover: hover)"),
        webdriver: js_sys::Reflect::get(&nav, &JsValue::from_str("webdriver"))
            .ok()
            .and_then(|v| v.as_bool())
            .unwrap_or(false),
    }
    .sanitized()
}

/// The trial's view as drawn now: the stimulus's side (CSS px and device px), the window, the ratio.
pub fn trial_view(css_px: f64, pointers: Vec<String>) -> TrialView {
    let dpr = web::window().device_pixel_ratio();
    let dpr = if dpr.is_finite() && dpr > 0.0 { dpr } else { 1.0 };
    let (window_w, window_h) = window_size();
    // The canvas's backing store as painted (`components::painter`), else what the ratio gives.
    let device_px = canvas().map(|c| c.width()).filter(|&w| w > 0).unwrap_or((css_px * dpr).round() as u32);
    TrialView { css_px, device_px, window_w, window_h, dpr, pointers, ..Default::default() }
}

pub fn answer_js(a: &Answer) -> JsValue {
    match a {
        Answer::Class(c) => JsValue::from(*c),
        Answer::Set(v) => v.iter().map(|&x| JsValue::from(x)).collect::<js_sys::Array>().into(),
        Answer::Text(t) => JsValue::from_str(t),
        Answer::None => JsValue::NULL,
    }
}

/// The correct typed values (PI-LLM) as the test hook's target: an array of strings.
pub fn values_js(values: &[String]) -> JsValue {
    values.iter().map(|v| JsValue::from_str(v)).collect::<js_sys::Array>().into()
}

/// `window.__wmlab_test` (only with `localStorage.wmlab_test = '1'`).
pub fn publish_hook(key: &str, c: &Cur, step: Option<usize>, awaiting: Option<&str>, target: JsValue) {
    let o = js_sys::Object::new();
    let set = |k: &str, v: JsValue| {
        let _ = js_sys::Reflect::set(&o, &JsValue::from_str(k), &v);
    };
    set("key", JsValue::from_str(key));
    set("task", JsValue::from_str(&c.task));
    set("block", JsValue::from(c.block as u32));
    set("trial", JsValue::from(c.trial as u32));
    set("global", JsValue::from(c.global as u32));
    set("practice", JsValue::from(c.practice));
    set("level", c.level.map(JsValue::from).unwrap_or(JsValue::NULL));
    set("step", step.map(|s| JsValue::from(s as u32)).unwrap_or(JsValue::NULL));
    set("awaiting", awaiting.map(JsValue::from_str).unwrap_or(JsValue::NULL));
    set("target", target);
    let seq = HOOK_SEQ.with(|q| {
        q.set(q.get() + 1);
        q.get()
    });
    set("seq", JsValue::from(seq));
    let _ = js_sys::Reflect::set(&web::window(), &JsValue::from_str("__wmlab_test"), &o);
}

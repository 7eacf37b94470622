//! The browser app's code, shared by its two binaries: the whole app (`src/main.rs`, `index.html`)
//! and the participant's page alone (`src/participant.rs`, `take.html`: a study link's light first
//! load). [`storage`] (the browser's localStorage behind a small trait, every key the app uses, the
//! test flags) builds natively too, so that plain `cargo test -p wmlab-app --lib` reaches it; the pages,
//! components and the rest of the browser glue build for wasm32 only.

// The modules name this crate `wmlab_app::…` for what builds natively too.
extern crate self as wmlab_app;

#[cfg(target_arch = "wasm32")]
pub mod app;
#[cfg(target_arch = "wasm32")]
pub mod components;
#[cfg(target_arch = "wasm32")]
pub mod demo;
#[cfg(target_arch = "wasm32")]
pub mod pages;
#[cfg(target_arch = "wasm32")]
pub mod platform;
pub mod storage;

/// Tell tests and tools that the app is mounted (`body[data-app-ready]`).
#[cfg(target_arch = "wasm32")]
pub fn mark_ready() {
    if let Some(body) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.body()) {
        let _ = body.set_attribute("data-app-ready", "true");
    }
}

//! WM Lab browser app (Leptos CSR, built by Trunk for wasm32).
//!
//! The UI only turns core values into pixels and input into core values; every rule lives in
//! `wmlab-core`. Natively this binary only prints how to build the app.

#[cfg(target_arch = "wasm32")]
mod app;
#[cfg(target_arch = "wasm32")]
mod components;
#[cfg(target_arch = "wasm32")]
mod demo;
#[cfg(target_arch = "wasm32")]
mod pages;
#[cfg(target_arch = "wasm32")]
mod platform;

#[cfg(target_arch = "wasm32")]
fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(app::App);
    // An explicit signal for tests and tools: the app is mounted.
    if let Some(body) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.body()) {
        let _ = body.set_attribute("data-app-ready", "true");
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!(
        "wmlab-app is the browser app: build it with `trunk build --release` \
         or serve it with `./scripts/dev/serve.sh` (http://127.0.0.1:8080)."
    );
}

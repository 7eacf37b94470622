//! WM Lab browser app (Leptos CSR, built by Trunk for wasm32): every page (`wmlab_app::app::App`).
//!
//! The UI only turns core values into pixels and input into core values; every rule lives in
//! `wmlab-core`. Natively this binary only prints how to build the app.

#[cfg(target_arch = "wasm32")]
fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(wmlab_app::app::App);
    wmlab_app::mark_ready();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!(
        "wmlab-app is the browser app: build it with `trunk build --release` \
         or serve it with `./scripts/dev/serve.sh` (http://127.0.0.1:8080)."
    );
}

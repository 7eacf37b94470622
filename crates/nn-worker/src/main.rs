//! The networks Web Worker: trains and evaluates the WorM models off the page's thread, on WebGPU
//! (burn-wgpu) when the browser offers it and on burn's pure-Rust `flex` CPU backend otherwise.
//!
//! The page (`src/platform/nn_worker.rs`) and this worker exchange plain messages
//! `{ json: "<Cmd or Event as JSON>", bytes?: Uint8Array }`; `bytes` carries checkpoint bundles
//! (`wmlab_nn::Checkpoint::to_bundle`). The worker holds no storage of its own: every checkpoint goes to
//! the page, which keeps it in IndexedDB, so a reload (or a crash of the worker) loses at most the steps
//! since the last checkpoint. The messages are `wmlab_core::nn_protocol`.
//!
//! Between training steps the loop yields to the worker's event loop (`setTimeout(0)`), so pause, stop and
//! evaluation requests are seen within one step.

#[cfg(target_arch = "wasm32")]
mod analyse;
#[cfg(target_arch = "wasm32")]
pub(crate) use wmlab_core::nn_protocol as protocol;
#[cfg(target_arch = "wasm32")]
mod worker;

#[cfg(all(target_arch = "wasm32", not(feature = "threads")))]
fn main() {
    console_error_panic_hook::set_once();
    worker::start();
}

/// The threaded build's `main` does nothing: every thread of rayon's pool instantiates this module too,
/// and only the worker's own thread may listen for the page's messages. Its entry script
/// (`public/worker-mt/entry.js`) starts the pool and then calls [`start_threaded`].
#[cfg(all(target_arch = "wasm32", feature = "threads"))]
fn main() {}

#[cfg(all(target_arch = "wasm32", feature = "threads"))]
pub use wasm_bindgen_rayon::init_thread_pool;

/// Start listening for the page's commands (the threaded build, after `initThreadPool`).
#[cfg(all(target_arch = "wasm32", feature = "threads"))]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn start_threaded() {
    console_error_panic_hook::set_once();
    worker::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("wmlab-nn-worker runs in the browser (Trunk builds it for wasm32); use `wmlab train` natively.");
}

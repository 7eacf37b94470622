// The threaded CPU networks worker's entry (a module worker; scripts/build-threaded-worker.sh copies it
// beside the wasm). The page starts it only where `crossOriginIsolated` is true (SharedArrayBuffer).
// It instantiates the wasm, starts rayon's pool on `threads` Web Workers (wasm-bindgen-rayon), then
// listens for the page's commands like the single-threaded worker (crates/nn-worker).
import init, { initThreadPool, start_threaded } from './wmlab-nn-worker-mt.js';

const asked = Number(new URL(import.meta.url).searchParams.get('threads'));
const cores = navigator.hardwareConcurrency || 1;
const threads = Math.max(1, Math.min(Number.isInteger(asked) && asked > 0 ? asked : cores, 64));

try {
  await init();
  await initThreadPool(threads);
  start_threaded();
} catch (e) {
  // The page hears of it as a worker error and offers the single-threaded worker.
  setTimeout(() => { throw new Error(`the threaded worker could not start: ${e && e.message ? e.message : e}`); });
}

// The threaded CPU networks worker's entry (a module worker; scripts/dev/build-threaded-worker.sh copies it
// beside the wasm). The page starts it only where `crossOriginIsolated` is true (SharedArrayBuffer).
// It instantiates the wasm, starts rayon's pool on `threads` Web Workers (wasm-bindgen-rayon), then
// listens for the page's commands like the single-threaded worker (crates/nn-worker).
import init, { initThreadPool, start_threaded } from './wmlab-nn-worker-mt.js';

const asked = Number(new URL(import.meta.url).searchParams.get('threads'));
const cores = navigator.hardwareConcurrency || 1;
const threads = Math.max(1, Math.min(Number.isInteger(asked) && asked > 0 ? asked : cores, 64));

// rayon's helpers are Web Workers that each load the wasm: one that cannot start (blocked, out of memory)
// would leave the pool waiting for ever, so the page hears of it as a failure to start instead.
const START_LIMIT_MS = 60_000;
const tooLong = new Promise((_, reject) => setTimeout(
  () => reject(new Error(`its ${threads} threads did not start within ${START_LIMIT_MS / 1000} s`)), START_LIMIT_MS));

try {
  await Promise.race([(async () => { await init(); await initThreadPool(threads); })(), tooLong]);
  start_threaded();
} catch (e) {
  // The page hears of it as a worker error and offers the single-threaded worker.
  setTimeout(() => { throw new Error(`the threaded worker could not start: ${e && e.message ? e.message : e}`); });
}

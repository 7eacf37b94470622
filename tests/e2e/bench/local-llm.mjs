// Tokens per second of SmolLM2-135M-Instruct (Q4_1) in the LLM page's "In this tab" provider (llama.cpp
// compiled to WebAssembly: npm @wllama/wllama, in headless Chromium) beside the same model under the native
// llama.cpp server (scripts/dev/llm-server.sh, 127.0.0.1:18080, one thread), side by side: the same
// requests, taking turns, each timed by llama.cpp's own counters (`timings`: prompt tokens/s, generated
// tokens/s; both runtimes are llama.cpp's server code) and by the caller's clock. Prints numbers, asserts none.
//   node tests/e2e/bench/local-llm.mjs          after a build into dist/ (tests/e2e/run.sh or trunk build)
// Environment: WMLAB_BENCH_ROUNDS (default 5), WMLAB_BENCH_TOKENS (generated per request, default 64),
// WMLAB_BENCH_BACKEND (cpu or auto: WebGPU where the browser has it; default cpu), WMLAB_BENCH_ISOLATED=1
// (serve cross-origin isolated: wllama may then use threads, half the cores unless WMLAB_BENCH_THREADS,
// which sets localStorage wmlab.llm.local.threads), WMLAB_LLM_URL (default http://127.0.0.1:18080/v1).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DIST, serve, launch, openPage } from '../helpers.mjs';

const env = (k, d) => process.env[k] || d;
const rounds = Number(env('WMLAB_BENCH_ROUNDS', '5'));
const tokens = Number(env('WMLAB_BENCH_TOKENS', '64'));
const backend = env('WMLAB_BENCH_BACKEND', 'cpu');
const isolated = env('WMLAB_BENCH_ISOLATED', '0') === '1';
const native = env('WMLAB_LLM_URL', 'http://127.0.0.1:18080/v1');
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

// dist/ and, beside it, the local-llm/ folder publish.sh --with-local-model adds.
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wmlab-bench-tab-'));
for (const name of fs.readdirSync(DIST)) fs.symlinkSync(path.join(DIST, name), path.join(root, name));
execFileSync('bash', [path.join(repo, 'scripts', 'dev', 'local-llm.sh'), root, 'model'], { stdio: ['ignore', 'ignore', 'inherit'] });
const server = await serve(root, { isolated });
const browser = await launch();
const page = await openPage(browser.context, server.url + '#/llm');
const threads = env('WMLAB_BENCH_THREADS', '');
await page.evaluate((t) => (t ? localStorage.setItem('wmlab.llm.local.threads', t) : localStorage.removeItem('wmlab.llm.local.threads')), threads);
await page.selectOption('#llm-preset', 'tab');
await page.waitForSelector('#llm-local[data-state="ready"]');
await page.selectOption('#llm-local-backend', backend === 'cpu' ? 'cpu' : 'auto');
const t0 = Date.now();
await page.click('#llm-local-load');
await page.waitForSelector('#llm-local[data-state="loaded"], #llm-local[data-state="failed"]', { timeout: 600_000 });
const loadMs = Date.now() - t0;
const info = await page.$eval('#llm-local-info', (e) => ({ ...e.dataset }));

// Prompts differ in their first words, within a run and from any run before (the native server keeps
// its cache between runs), so each one's prompt is processed anew: the chat template's opening is the
// only prefix a cache can reuse, on both sides.
const nonce = Date.now().toString(36);
const topics = ['rivers', 'bread', 'clocks', 'maps', 'bees', 'glass', 'salt', 'kites', 'moss', 'tides'];
const body = (i) => ({
  messages: [{ role: 'user', content: `(${nonce}) ${topics[i % topics.length]}: write a short paragraph about them, in plain words, for a child who asks how they work.` }],
  max_tokens: tokens, temperature: 0, ignore_eos: true,
});

async function inTab(i) {
  return page.evaluate(async (b) => {
    const s = performance.now();
    const r = await globalThis.__wmlab_local_llm.inst.createChatCompletion(b);
    return { ms: performance.now() - s, timings: r.timings, usage: r.usage };
  }, body(i));
}

async function onServer(i) {
  const s = performance.now();
  const r = await fetch(`${native}/chat/completions`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'smollm2', ...body(i) }),
  });
  if (!r.ok) throw new Error(`${native}: HTTP ${r.status} ${await r.text()}`);
  const j = await r.json();
  return { ms: performance.now() - s, timings: j.timings, usage: j.usage };
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN; };
const lines = { tab: [], server: [] };
await inTab(99);
await onServer(99); // warm both (first-use allocations, page faults)
for (let r = 0; r < rounds; r++) {
  for (const [name, f] of [['tab', inTab], ['server', onServer]]) {
    const x = await f(r);
    lines[name].push(x);
    console.log(`round ${r + 1} ${name.padEnd(6)} prompt ${x.timings.prompt_n} tok at ${x.timings.prompt_per_second.toFixed(1)}/s, ` +
      `generated ${x.timings.predicted_n} tok at ${x.timings.predicted_per_second.toFixed(1)}/s, ${(x.ms / 1000).toFixed(2)} s`);
  }
}
const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
const version = browser.context.browser()?.version() ?? '';
console.log(`\nmachine: ${cpu}, ${os.cpus().length} threads, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; headless Chromium ${version}`);
console.log(`in the tab: ${info.runtime} (${info.backend}), page ${isolated ? 'cross-origin isolated' : 'not isolated'}; model loaded in ${(loadMs / 1000).toFixed(1)} s (download, SHA-256, load)`);
console.log(`native: llama.cpp server at ${native} (scripts/dev/llm-server.sh: one thread)`);
console.log(`${rounds} rounds, ${tokens} tokens generated per request, temperature 0; medians:`);
for (const name of ['tab', 'server']) {
  const xs = lines[name];
  console.log(`  ${name === 'tab' ? 'in the tab' : 'native   '}: prompt ${median(xs.map((x) => x.timings.prompt_per_second)).toFixed(1)} tok/s, ` +
    `generation ${median(xs.map((x) => x.timings.predicted_per_second)).toFixed(1)} tok/s, ` +
    `${(median(xs.map((x) => x.ms)) / 1000).toFixed(2)} s a request`);
}
const g = (n) => median(lines[n].map((x) => x.timings.predicted_per_second));
console.log(`  native / tab, generation: ${(g('server') / g('tab')).toFixed(1)}×`);
await browser.close();
await server.close();
fs.rmSync(root, { recursive: true, force: true });

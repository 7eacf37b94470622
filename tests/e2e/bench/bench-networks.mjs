// Browser training/inference throughput of the Networks page (prints numbers; not a test).
//   node tests/e2e/bench/bench-networks.mjs            after a build into dist/ (tests/e2e/run.sh or trunk build)
// Environment: WMLAB_BENCH_PER_TASK (trials per task id per step, default 1 → 14 trials; the paper's 10 → 140),
// WMLAB_BENCH_STEPS (default 4), WMLAB_BENCH_BACKENDS (default "webgpu,cpu"), WMLAB_BENCH_MODELS
// (default "lstm-256,trf-256"), WMLAB_BENCH_PRESET (default "paper": the paper's encoder), WMLAB_BENCH_EVAL_N
// (test trials per task id for the inference timing, default 1), WMLAB_BENCH_ISOLATED=1 (serve with the
// cross-origin isolation headers: the CPU backend is then the threaded worker; docs/hosting.md),
// WMLAB_BENCH_THREADS (its thread count, default every core).
// Training: the time from the end of step 1 to the end of the last step before the validation check, per step
// (step 1 holds shader compilation and warm-up). Inference: one evaluation (batch building, forward, scoring).
import os from 'node:os';
import { serve, launch, openPage } from '../helpers.mjs';

const env = (k, d) => process.env[k] || d;
const perTask = Number(env('WMLAB_BENCH_PER_TASK', '1'));
const steps = Math.max(3, Number(env('WMLAB_BENCH_STEPS', '4')));
const backends = env('WMLAB_BENCH_BACKENDS', 'webgpu,cpu').split(',');
const models = env('WMLAB_BENCH_MODELS', 'lstm-256,trf-256').split(',').map((m) => m.split('-'));
const preset = env('WMLAB_BENCH_PRESET', 'paper');
const evalN = Number(env('WMLAB_BENCH_EVAL_N', '1'));
const WAIT = { timeout: 3_600_000 };

const isolated = env('WMLAB_BENCH_ISOLATED', '0') === '1';
const server = await serve(undefined, { isolated });
const browser = await launch();
const page = await openPage(browser.context, server.url + '#/networks');
const threadsWanted = env('WMLAB_BENCH_THREADS', '');
if (threadsWanted) {
  await page.evaluate((t) => localStorage.setItem('wmlab.nn.threads', t), threadsWanted);
  await page.reload();
} else {
  await page.evaluate(() => localStorage.removeItem('wmlab.nn.threads'));
}
page.on('dialog', (d) => d.accept());
await page.waitForSelector('#networks[data-phase="ready"]', WAIT);
const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
const version = browser.context.browser()?.version() ?? '';
console.log(`machine: ${cpu}, ${os.cpus().length} threads; headless Chromium ${version} (WebGPU = SwiftShader, a CPU emulating a GPU; CPU = burn flex in a Web Worker${isolated ? ', the threaded one (page cross-origin isolated)' : ', one thread'})`);
console.log(`preset ${preset} encoder, ${perTask} trial(s) per task id per step (batch ${14 * perTask}), ${steps} steps`);

const stepOf = () => page.$eval('#nn-step', (e) => Number(e.dataset.step));
async function waitStep(n) {
  await page.waitForFunction((n) => Number(document.querySelector('#nn-step').dataset.step) >= n || !!document.querySelector('#nn-error'), n, WAIT);
  const err = await page.$eval('body', (b) => b.querySelector('#nn-error')?.textContent ?? null);
  if (err) throw new Error(err);
  return Date.now();
}

for (const backend of backends) {
  await page.selectOption('#nn-backend-pick', backend);
  const want = backend === 'cpu' ? 'CPU' : 'WebGPU';
  try {
    await page.waitForFunction((w) => document.querySelector('#nn-backend').textContent.includes(w), want, { timeout: 60_000 });
  } catch {
    console.log(`${backend}: not available in this browser (${await page.textContent('#nn-backend')})`);
    continue;
  }
  await page.waitForSelector('#networks[data-phase="ready"]', WAIT);
  const threads = Number(await page.getAttribute('#nn-threads', 'data-threads'));
  const device = `${(await page.getAttribute('#nn-device', 'title').catch(() => '')) || ''} (${threads} thread${threads > 1 ? 's' : ''})`;
  for (const [arch, capacity] of models) {
    await page.selectOption('#nn-preset', preset);
    await page.selectOption('#nn-arch', arch);
    await page.fill('#nn-capacity', capacity);
    await page.press('#nn-capacity', 'Tab');
    await page.waitForFunction((c) => document.querySelector('#nn-config-json').value.includes(`"capacity": ${c}`), capacity, WAIT);
    for (const [id, v] of [['#nn-steps', steps], ['#nn-per-task', perTask], ['#nn-val-every', steps], ['#nn-val-n', 1]]) {
      await page.fill(id, String(v));
      await page.press(id, 'Tab');
    }
    const params = (await page.textContent('#nn-params')).trim();
    const t0 = Date.now();
    await page.click('#nn-train');
    const t1 = await waitStep(1);
    const tn = await waitStep(steps - 1);
    await page.waitForSelector('#networks[data-phase="done"]', WAIT);
    const per = (tn - t1) / 1000 / (steps - 2);
    const b = 14 * perTask;
    console.log(`${backend} ${device} ${arch.toUpperCase()}-${capacity} (${params}) training: ${per.toFixed(2)} s/step at batch ${b} → ${(b / per).toFixed(2)} trials/s (first step ${((t1 - t0) / 1000).toFixed(1)} s)`);
    await page.fill('#nn-eval-n', String(evalN));
    const e0 = Date.now();
    await page.click('#nn-evaluate');
    await page.waitForSelector('#nn-eval #nn-eval-table tbody tr', WAIT);
    const dt = (Date.now() - e0) / 1000;
    console.log(`${backend} ${arch.toUpperCase()}-${capacity} inference (evaluation of ${14 * evalN} test trials incl. batch building and scoring): ${(dt * 1000 / (14 * evalN)).toFixed(0)} ms per trial`);
    // What the run learned: ids above chance on the evaluation's test trials, after how long.
    const above = (await page.textContent('#nn-above-count').catch(() => '')).trim();
    console.log(`${backend} ${arch.toUpperCase()}-${capacity} after ${steps} steps (${((tn - t0) / 60000).toFixed(1)} min of training in the tab): ${above || 'no chance marks'}`);
  }
}
await page.close();
await browser.close();
await server.close();

// The threaded CPU networks worker: on a page served with the cross-origin isolation headers
// (docs/hosting.md), the CPU backend runs in the second worker (scripts/dev/build-threaded-worker.sh, wasm with
// atomics and rayon's pool on Web Workers), reports its thread count, trains and evaluates; a WebGPU pick
// goes back to the other worker; without the headers the CPU is the single-threaded worker's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import { appUnderTest, openPage, serve, DIST, setModelSetting } from './helpers.mjs';

const app = appUnderTest({ isolated: true });
const LONG = { timeout: Number(process.env.WMLAB_E2E_WAIT || 600_000) };

async function openNetworks(url) {
  const page = await openPage(app.browser.context, url);
  page.on('dialog', (d) => d.accept());
  await page.waitForSelector('#networks[data-phase="ready"]', LONG);
  await page.waitForFunction(() => /parameters/.test(document.querySelector('#nn-params')?.textContent || ''), null, LONG);
  return page;
}

async function pickCpu(page) {
  await page.selectOption('#nn-backend-pick', 'cpu');
  // A pick that starts the other worker passes through "starting"; one the running worker takes does not.
  await page.waitForSelector('#networks:not([data-phase="starting"])', LONG);
  await page.waitForFunction(() => /CPU/.test(document.querySelector('#nn-backend').textContent), null, LONG);
  return Number(await page.getAttribute('#nn-threads', 'data-threads'));
}

/** Train LSTM-32 of the tiny preset for `steps` steps; `encoder: 'pixels'` swaps its ConvNet for the pixel
 * encoder (through the settings JSON), which SwiftShader's WebGPU runs about ten times faster (docs/ci.md). */
async function trainTiny(page, steps, { encoder } = {}) {
  await page.selectOption('#nn-preset', 'tiny');
  await page.waitForFunction(() => document.querySelector('#nn-config-json').value.includes('"preset": "tiny"'), null, LONG);
  await page.selectOption('#nn-arch', 'lstm');
  await page.fill('#nn-capacity', '32');
  await page.press('#nn-capacity', 'Tab');
  await page.waitForFunction(() => document.querySelector('#nn-config-json').value.includes('"capacity": 32'), null, LONG);
  for (const [id, v] of [['#nn-steps', steps], ['#nn-per-task', 1], ['#nn-val-every', steps], ['#nn-val-n', 1]]) {
    await page.fill(id, String(v));
    await page.press(id, 'Tab');
  }
  await page.waitForFunction((n) => JSON.parse(document.querySelector('#nn-config-json').value).val_per_task === n, 1, LONG);
  if (encoder) {
    await setModelSetting(page, 'encoder', encoder, LONG);
  }
  await page.click('#nn-train');
  await page.waitForSelector('#networks[data-phase="done"], #nn-error', LONG);
  assert.equal(await page.$eval('body', (b) => b.querySelector('#nn-error')?.textContent ?? null), null);
  assert.equal(await page.$eval('#nn-step', (e) => Number(e.dataset.step)), steps);
}

test('an isolated page trains on the threaded CPU worker, with every core the browser reports', LONG, async () => {
  const page = await openNetworks(app.server.url + '#/networks');
  assert.equal(await page.evaluate(() => self.crossOriginIsolated), true);
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  const threads = await pickCpu(page);
  assert.equal(threads, cores, `the threaded worker reports ${threads} threads, the browser ${cores} cores`);
  if (os.cpus().length >= 2) {
    assert.ok(threads >= 2, `${threads} threads on a ${os.cpus().length}-core machine`);
    assert.match(await page.textContent('#nn-threads'), new RegExp(`${threads} threads`));
  }
  await trainTiny(page, 2);
  // The evaluation runs in the same worker (the run in memory or its checkpoint).
  await page.fill('#nn-eval-n', '1');
  await page.click('#nn-evaluate');
  await page.waitForSelector('#nn-eval #nn-eval-table tbody tr, #nn-error', LONG);
  assert.equal(await page.$eval('body', (b) => b.querySelector('#nn-error')?.textContent ?? null), null);
  // WebGPU goes back to the other worker (one CPU thread), and the CPU pick to the threaded one again.
  await page.selectOption('#nn-backend-pick', 'webgpu');
  await page.waitForFunction(() => /WebGPU/.test(document.querySelector('#nn-backend').textContent)
    || !!document.querySelector('#nn-error'), null, LONG);
  assert.equal(await page.getAttribute('#nn-threads', 'data-threads'), '1');
  assert.equal(await pickCpu(page), threads);
  assert.deepEqual(page.errors.filter((e) => !/XDG|powerPreference/i.test(e)), []);
  await page.close();
});

test('Auto on an isolated page times the CPU in the threaded worker and WebGPU in the other, and runs on the faster', LONG, async () => {
  // A first visit: no timings kept and no backend chosen before (the test above chose the CPU).
  const first = await openNetworks(app.server.url + '#/networks');
  await first.evaluate(() => { localStorage.removeItem('wmlab.nn.probes'); localStorage.removeItem('wmlab.nn.backend'); });
  await first.close();
  const page = await openNetworks(app.server.url + '#/networks');
  assert.equal(await page.inputValue('#nn-backend-pick'), 'auto');
  // The probe's WebGPU steps on the pixel encoder: what is tested is the choice, not the ConvNet (the
  // ConvNet on WebGPU is networks.test.mjs's checkpoint test).
  await trainTiny(page, 2, { encoder: 'pixels' });
  assert.equal(JSON.parse(await page.inputValue('#nn-config-json')).model.encoder, 'pixels');
  const probe = JSON.parse(await page.getAttribute('#nn-probe', 'data-probe'));
  console.log(`[threads] ${await page.textContent('#nn-probe')}`);
  const by = Object.fromEntries(probe.timings.map((t) => [t.backend, t]));
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  assert.equal(by.cpu.threads, cores, 'the CPU was timed in the threaded worker');
  assert.ok(by.cpu.ms_per_step > 0);
  if (await page.evaluate(() => !!navigator.gpu)) assert.ok(by.webgpu, 'WebGPU was timed too');
  const threads = await page.getAttribute('#nn-threads', 'data-threads');
  assert.equal(threads, probe.chosen === 'cpu' ? String(cores) : '1', `the run went to the ${probe.chosen} worker`);
  assert.deepEqual(page.errors.filter((e) => !/XDG|powerPreference/i.test(e)), []);
  await page.close();
});

test('the thread count can be set (localStorage wmlab.nn.threads)', LONG, async () => {
  const page = await openNetworks(app.server.url + '#/networks');
  await page.evaluate(() => localStorage.setItem('wmlab.nn.threads', '3'));
  await page.reload();
  await page.waitForSelector('#networks[data-phase="ready"]', LONG);
  assert.equal(await pickCpu(page), 3);
  await page.evaluate(() => localStorage.removeItem('wmlab.nn.threads'));
  await page.close();
});

test('without the isolation headers the CPU runs in the single-threaded worker', LONG, async () => {
  const plain = await serve(DIST);
  try {
    const page = await openNetworks(plain.url + '#/networks');
    assert.equal(await page.evaluate(() => self.crossOriginIsolated), false);
    assert.equal(await pickCpu(page), 1);
    assert.equal((await page.textContent('#nn-threads')).trim(), '');
    await page.close();
  } finally {
    await plain.close();
  }
});

test('on a host without the headers, "Use all N cores" isolates the page with a service worker, and "Remove it" undoes it', LONG, async () => {
  const plain = await serve(DIST);
  try {
    const page = await openNetworks(plain.url + '#/networks');
    assert.equal(await pickCpu(page), 1);
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    if (cores < 2) { console.log('[threads] one core: no offer to test'); await page.close(); return; }
    assert.match(await page.textContent('#nn-isolation'), /one thread/);
    await Promise.all([page.waitForEvent('load', LONG), page.click('#nn-isolation-on')]);
    await page.waitForSelector('#networks[data-phase="ready"]', LONG);
    assert.equal(await page.evaluate(() => self.crossOriginIsolated), true);
    // The reload keeps the CPU pick the offer was made for, now on every core.
    assert.equal(await page.inputValue('#nn-backend-pick'), 'cpu');
    await page.waitForFunction(() => /CPU/.test(document.querySelector('#nn-backend').textContent), null, LONG);
    assert.equal(Number(await page.getAttribute('#nn-threads', 'data-threads')), cores);
    assert.match(await page.textContent('#nn-isolation'), /Multi-threaded through a service worker/);
    await trainTiny(page, 1);
    await Promise.all([page.waitForEvent('load', LONG), page.click('#nn-isolation-off')]);
    await page.waitForSelector('#networks[data-phase="ready"]', LONG);
    assert.equal(await page.evaluate(() => self.crossOriginIsolated), false);
    assert.equal(await page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length), 0);
    assert.deepEqual(page.errors.filter((e) => !/XDG|powerPreference/i.test(e)), []);
    await page.close();
  } finally {
    await plain.close();
  }
});

test('an isolated host that lacks worker-mt/ still trains on the CPU, on one thread, and says why', LONG, async () => {
  const partial = await serve(DIST, { isolated: true, hide: ['/worker-mt/'] });
  try {
    const page = await openNetworks(partial.url + '#/networks');
    assert.equal(await page.evaluate(() => self.crossOriginIsolated), true);
    assert.equal(await pickCpu(page), 1);
    assert.match(await page.textContent('#nn-notice'), /multi-threaded CPU worker could not start/);
    assert.equal(await page.$('#nn-error'), null);
    await trainTiny(page, 1);
    // Picking the CPU again does not retry the missing worker.
    await page.selectOption('#nn-backend-pick', 'webgpu');
    await page.waitForFunction(() => /WebGPU/.test(document.querySelector('#nn-backend').textContent), null, LONG);
    assert.equal(await pickCpu(page), 1);
    await page.close();
  } finally {
    await partial.close();
  }
});

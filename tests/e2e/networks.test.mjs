// Networks page: a small WorM model trains in the tab (WebGPU through SwiftShader; the CPU backend too),
// the live curves draw, pause/resume works, a reload resumes from the checkpoint in IndexedDB, a
// downloaded checkpoint loads back, a bad file is refused with the run kept, and the evaluation draws
// the behavioural curves over the human ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { appUnderTest, openPage, setModelSetting } from './helpers.mjs';

const app = appUnderTest();

const LONG = { timeout: Number(process.env.WMLAB_E2E_WAIT || 600_000) };

async function openNetworks(url = app.server.url + '#/networks') {
  const page = await openPage(app.browser.context, url);
  await page.waitForSelector('#networks[data-phase="ready"]', LONG);
  await page.waitForFunction(() => /parameters/.test(document.querySelector('#nn-params')?.textContent || ''), null, LONG);
  return page;
}

/** A small run: GRU-16 with the tiny preset's encoder, few steps, few validation trials. */
async function configure(page, { arch = 'gru', capacity = 16, steps = 8, valEvery = 3 } = {}) {
  // The tiny preset's ConvNet: its steps are slow enough for the pause/resume timing below (the default
  // preset, quick, trains 8 steps in about 2 s, before a pause could land).
  await page.selectOption('#nn-preset', 'tiny');
  await page.waitForFunction(() => document.querySelector('#nn-config-json').value.includes('"preset": "tiny"'), null, LONG);
  await page.selectOption('#nn-arch', arch);
  // Tab out of each field: the browser's own change event (one per edit, as for a person typing).
  await page.fill('#nn-capacity', String(capacity));
  await page.press('#nn-capacity', 'Tab');
  await page.waitForFunction(([a, c]) => {
    const v = document.querySelector('#nn-config-json').value;
    return v.includes(`"capacity": ${c}`) && v.includes(`"arch": "${a}"`);
  }, [arch, capacity], LONG);
  for (const [id, v] of [['#nn-steps', steps], ['#nn-per-task', 1], ['#nn-val-every', valEvery], ['#nn-val-n', 2]]) {
    await page.fill(id, String(v));
    await page.press(id, 'Tab');
  }
  const cfg = JSON.parse(await page.inputValue('#nn-config-json'));
  assert.equal(cfg.steps, steps);
  assert.equal(cfg.per_task, 1);
  assert.equal(cfg.model.arch, arch);
}

/** Train on `tasks` only (`#nn-tasks`, a comma list, as a person types it); waits until the settings hold them. */
async function trainOnly(page, tasks) {
  await page.fill('#nn-tasks', tasks);
  await page.press('#nn-tasks', 'Tab');
  const want = JSON.stringify(tasks.split(','));
  await page.waitForFunction((w) => JSON.stringify(JSON.parse(document.querySelector('#nn-config-json').value).tasks) === w, want, LONG);
}

test('the paper preset\'s parameter count is shown beside Table A4\'s', LONG, async () => {
  const page = await openNetworks();
  await page.selectOption('#nn-preset', 'paper');
  await page.selectOption('#nn-arch', 'lstm');
  await page.fill('#nn-capacity', '256');
  await page.press('#nn-capacity', 'Tab');
  await page.waitForFunction(() => /Table A4: 2\.5M/.test(document.querySelector('#nn-params')?.textContent || ''), null, LONG);
  const n = Number((await page.textContent('#nn-params')).match(/^(\d+) parameters/)[1]);
  assert.ok(Math.abs(n - 2.5e6) / 2.5e6 < 0.2, `LSTM-256 has ${n} parameters`);
  await page.close();
});

const step = (name) => { if (process.env.WMLAB_E2E_TRACE) console.log(`[networks] ${new Date().toISOString()} ${name}`); };
const stepOf = (page) => page.$eval('#nn-step', (e) => Number(e.dataset.step));

/**
 * Under Auto a run starts with a probe: a few steps of its model timed on each backend (here WebGPU
 * through SwiftShader and the CPU in the same worker), both figures shown, the run on the faster. The
 * probe's first losses are a fresh run from one seed on each backend: they agree (the weights are drawn
 * on the CPU and moved). A second run of the same model takes the figures this browser kept.
 */
async function checkProbe(page) {
  const probe = JSON.parse(await page.getAttribute('#nn-probe', 'data-probe'));
  console.log(`[networks] ${await page.textContent('#nn-probe')}`);
  assert.equal(await page.getAttribute('#nn-probe', 'data-measured'), 'true');
  const by = Object.fromEntries(probe.timings.map((t) => [t.backend, t]));
  assert.ok(by.cpu.ms_per_step > 0, 'the CPU was timed');
  assert.ok(by.cpu.losses.length >= 2, 'a warm-up step and at least one timed one');
  if (await page.evaluate(() => !!navigator.gpu)) {
    assert.ok(by.webgpu, 'WebGPU was timed');
    assert.ok(by.webgpu.ms_per_step > 0, `WebGPU: ${by.webgpu.error}`);
    for (let i = 0; i < 2; i++) {
      const [g, c] = [by.webgpu.losses[i], by.cpu.losses[i]];
      assert.ok(Math.abs(g - c) <= 1e-3 * Math.abs(c), `loss ${i}: WebGPU ${g}, CPU ${c}`);
    }
  }
  const fastest = probe.timings.filter((t) => t.ms_per_step !== null).sort((a, b) => a.ms_per_step - b.ms_per_step)[0];
  assert.equal(probe.chosen, fastest.backend);
  assert.match(await page.textContent('#nn-backend'), probe.chosen === 'webgpu' ? /WebGPU/ : /CPU/);
}

test('trains on the browser\'s backend (WebGPU through SwiftShader here) and saves a GPU checkpoint', LONG, async () => {
  const page = await openNetworks();
  const backend = await page.textContent('#nn-backend');
  console.log(`[networks] default backend: ${backend}`);
  assert.match(backend, /WebGPU|CPU/);
  await configure(page, { steps: 2, valEvery: 2 });
  // The probe runs the tiny ConvNet on WebGPU, which here is SwiftShader (a CPU emulating the GPU) running
  // every frame of the batch: one task with short trials (VSRec, 4–10 frames) keeps its steps short (the
  // times in docs/ci.md); the ConvNet, the probe and the checkpoint are the same as with 14.
  await trainOnly(page, 'VSRec');
  await page.click('#nn-train');
  await page.waitForSelector('#networks[data-phase="done"]', LONG);
  assert.equal(await stepOf(page), 2);
  console.log(`[networks] ${backend}: ${await page.textContent('#nn-step')}`);
  await checkProbe(page);
  // Drawn: the mean and the one task's accuracy.
  await page.waitForFunction(() => Number(document.querySelector('#nn-acc-chart').dataset.series) >= 2, null, LONG);
  // The checkpoint was read back from the device asynchronously and stored.
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#nn-download-best')]);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wmlab-nn-')), 'best.wmlabnn');
  await dl.saveAs(file);
  assert.equal(fs.readFileSync(file).subarray(0, 8).toString(), 'WMLABNN1');
  // The same model again: Auto takes the figures kept in this browser, without a probe.
  const chosen = await page.getAttribute('#nn-probe', 'data-chosen');
  await page.click('#nn-train');
  await page.waitForSelector('#networks[data-phase="done"]', LONG);
  assert.equal(await page.getAttribute('#nn-probe', 'data-measured'), 'false');
  assert.equal(await page.getAttribute('#nn-probe', 'data-chosen'), chosen);
  assert.deepEqual(page.errors.filter((e) => !/XDG|powerPreference/i.test(e)), []);
  await page.close();
});

// Every memory type trains in the tab on both backends (one step and a validation check each), and every
// capacity of the paper (96, 256, 1024) on the CPU backend (the tiny preset's encoder keeps it quick).
test('fields edited while the worker answers a settings request are kept (a run meant for 2 steps takes 2)', LONG, async () => {
  const page = await openNetworks();
  await page.selectOption('#nn-preset', 'paper');
  // Each capacity change makes the preset's settings anew twice: once by the change event sent here and
  // once by the browser's own when the field loses focus to the next one, as the steps are typed: that
  // second one comes before the steps land and must not put the preset's steps back.
  for (const capacity of [1024, 256, 1024]) {
    await page.fill('#nn-capacity', String(capacity));
    await page.dispatchEvent('#nn-capacity', 'change');
    await page.waitForFunction((c) => document.querySelector('#nn-config-json').value.includes(`"capacity": ${c}`), capacity, LONG);
    for (const [id, v] of [['#nn-steps', 2], ['#nn-val-every', 2]]) {
      await page.fill(id, String(v));
      await page.dispatchEvent(id, 'change');
    }
    await page.waitForFunction(() => JSON.parse(document.querySelector('#nn-config-json').value).val_every === 2, null, LONG);
    const cfg = JSON.parse(await page.inputValue('#nn-config-json'));
    assert.equal(cfg.model.capacity, capacity, 'the capacity change landed');
    assert.equal(cfg.preset, 'paper');
    assert.equal(cfg.steps, 2, `capacity ${capacity}: the steps typed while the answer was under way are kept`);
    assert.equal(cfg.val_every, 2);
    assert.equal(await page.inputValue('#nn-steps'), '2');
  }
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('every architecture trains in the tab: RNN, LSTM, TRF on WebGPU and on the CPU, capacities 96/256/1024', LONG, async () => {
  const page = await openNetworks();
  page.on('dialog', (d) => d.accept());
  const runs = [
    // Each run changes the capacity: the form's last request to the worker is then the capacity's, and
    // `configure` waits for its answer before typing the other fields.
    ['webgpu', 'rnn', 16], ['webgpu', 'lstm', 24], ['webgpu', 'trf', 32],
    ['cpu', 'rnn', 1024], ['cpu', 'lstm', 96], ['cpu', 'trf', 256],
  ];
  for (const [backend, arch, capacity] of runs) {
    const options = await page.$$eval('#nn-backend-pick option', (os) => os.map((o) => o.value));
    if (!options.includes(backend)) { console.log(`[networks] ${backend} not offered: ${options}`); continue; }
    await page.selectOption('#nn-backend-pick', backend);
    const want = backend === 'cpu' ? /CPU/ : /WebGPU/;
    await page.waitForFunction((w) => new RegExp(w).test(document.querySelector('#nn-backend').textContent), want.source, LONG);
    await page.selectOption('#nn-preset', 'tiny');
    await configure(page, { arch, capacity, steps: 1, valEvery: 1 });
    if (backend === 'webgpu') {
      // The memories on WebGPU read the pixels: SwiftShader runs the tiny ConvNet about ten times slower
      // than the rest of a step (docs/ci.md). The ConvNet on WebGPU is the GPU-checkpoint test's.
      await setModelSetting(page, 'encoder', 'pixels', LONG);
      assert.equal(await page.$('#nn-error'), null);
    }
    const t0 = Date.now();
    await page.click('#nn-train');
    await page.waitForSelector('#networks[data-phase="done"], #nn-error', LONG);
    assert.equal(await page.$eval('body', (b) => b.querySelector('#nn-error')?.textContent ?? null), null, `${backend} ${arch}-${capacity}`);
    assert.equal(await stepOf(page), 1);
    await page.waitForFunction(() => Number(document.querySelector('#nn-acc-chart').dataset.series) >= 14, null, LONG);
    const cfg = JSON.parse(await page.inputValue('#nn-config-json'));
    assert.deepEqual([cfg.model.arch, cfg.model.capacity], [arch, capacity]);
    assert.equal(cfg.model.encoder ?? 'conv', backend === 'webgpu' ? 'pixels' : 'conv');
    assert.equal(cfg.model.attention ?? 'dot', 'dot', 'the paper\'s attention');
    console.log(`[networks] ${backend} ${arch}-${capacity}: one step + validation in ${Date.now() - t0} ms`);
  }
  assert.deepEqual(page.errors.filter((e) => !/XDG|powerPreference/i.test(e)), []);
  await page.close();
});

test('CPU backend: live curves, pause/resume, reload resume, download/upload, bad input, evaluation', LONG, async () => {
  const page = await openNetworks();
  await page.selectOption('#nn-backend-pick', 'cpu');
  await page.waitForFunction(() => /CPU/.test(document.querySelector('#nn-backend').textContent), null, LONG);
  step('1');
  // 24 steps: both pauses below land before the end even on a loaded machine (2 test files at a time).
  await configure(page, { steps: 24 });
  // The reference-code quirks are boxes that write `quirks` into the settings (null when all are off).
  assert.equal(JSON.parse(await page.inputValue('#nn-config-json')).quirks ?? null, null);
  await page.check('#nn-quirk-sts-cue-steps');
  await page.waitForFunction(() => JSON.parse(document.querySelector('#nn-config-json').value).quirks?.sts_cue_steps === true, null, LONG);
  await page.uncheck('#nn-quirk-sts-cue-steps');
  await page.waitForFunction(() => (JSON.parse(document.querySelector('#nn-config-json').value).quirks ?? null) === null, null, LONG);
  // Task parameters are checked against the trained tasks: a key no task has is refused in words, a good one lands in the settings, an empty box is the paper's again.
  await page.fill('#nn-task-params', 'colour=red');
  await page.press('#nn-task-params', 'Tab');
  await page.waitForSelector('#nn-error');
  assert.match(await page.textContent('#nn-error'), /no trained task has a parameter "colour"/);
  await page.fill('#nn-task-params', 'noise_mask=true');
  await page.press('#nn-task-params', 'Tab');
  await page.waitForFunction(() => JSON.stringify(JSON.parse(document.querySelector('#nn-config-json').value).task_settings ?? null) === '[["noise_mask","true"]]', null, LONG);
  assert.equal(await page.$('#nn-error'), null);
  await page.fill('#nn-task-params', '');
  await page.press('#nn-task-params', 'Tab');
  await page.waitForFunction(() => (JSON.parse(document.querySelector('#nn-config-json').value).task_settings ?? null) === null, null, LONG);
  // The static (frozen one-hot) task embedding of Table A1: the parameters are counted again (the learned
  // 14-row table is gone: 196 fewer), and unticking gives the learned one back.
  const paramsOf = async () => Number((await page.textContent('#nn-params')).match(/^(\d+) parameters/)[1]);
  const learned = await paramsOf();
  await page.check('#nn-static-emb');
  await page.waitForFunction(() => JSON.parse(document.querySelector('#nn-config-json').value).model.frozen_task_embedding === true, null, LONG);
  assert.equal(await paramsOf(), learned - 14 * 14, `static embedding: the 14×14 table of the ${learned} is gone`);
  await page.uncheck('#nn-static-emb');
  await page.waitForFunction(() => JSON.parse(document.querySelector('#nn-config-json').value).model.frozen_task_embedding === false, null, LONG);
  assert.equal(await paramsOf(), learned);
  // A settings JSON that does not parse is refused and the settings stay.
  await page.click('#nn-json-summary');
  await page.fill('#nn-config-json', '{ not json');
  await page.press('#nn-config-json', 'Tab');
  await page.waitForSelector('#nn-error');
  assert.match(await page.textContent('#nn-error'), /not valid/);
  // The text stays for the user to fix; the settings in use are the previous ones.
  assert.equal(await page.inputValue('#nn-steps'), '24');
  await page.click('#nn-train');
  await page.waitForSelector('#networks[data-phase="training"]');
  // A validation check at step 3 draws the accuracy chart and saves a checkpoint.
  await page.waitForFunction(() => Number(document.querySelector('#nn-step').dataset.step) >= 3, null, LONG);
  step('2');
  await page.waitForFunction(() => Number(document.querySelector('#nn-acc-chart').dataset.series) >= 14, null, LONG);
  step('3');
  await page.click('#nn-pause');
  await page.waitForSelector('#networks[data-phase="paused"]', LONG);
  step('4');
  const paused = await stepOf(page);
  assert.ok(paused >= 3 && paused < 24, `paused at ${paused}`);
  assert.equal(await page.$eval('#nn-loss-chart', (c) => c.dataset.drawn), 'true');
  assert.match(await page.textContent('#nn-step'), /trials\/s/);
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(await stepOf(page), paused, 'no steps while paused');
  await page.click('#nn-continue');
  await page.waitForFunction((p) => Number(document.querySelector('#nn-step').dataset.step) > p, paused, LONG);
  step('5');
  await page.click('#nn-pause');
  await page.waitForSelector('#networks[data-phase="paused"]', LONG);
  step('6');
  const before = await stepOf(page);

  // Reload: the saved run is offered at the step of the pause checkpoint and resumes to the end.
  await page.reload();
  await page.waitForSelector('#networks[data-phase="ready"]', LONG);
  step('7');
  await page.waitForSelector('#nn-saved', LONG);
  step('8');
  assert.match(await page.textContent('#nn-saved'), new RegExp(`step ${before} of 24`));
  assert.equal(await page.$eval('#nn-loss-chart', (c) => c.dataset.drawn), 'true');
  // The backend chosen before the reload is still the one chosen.
  assert.equal(await page.inputValue('#nn-backend-pick'), 'cpu');
  await page.selectOption('#nn-backend-pick', 'cpu');
  await page.waitForFunction(() => /CPU/.test(document.querySelector('#nn-backend').textContent), null, LONG);
  step('9');
  await page.click('#nn-resume-saved');
  await page.waitForSelector('#networks[data-phase="done"], #networks[data-phase="stopped"], #nn-error', LONG);
  assert.equal(await page.$eval('body', (b) => b.querySelector('#nn-error')?.textContent ?? null), null, page.errors.join('\n').slice(0, 1500));
  await page.waitForSelector('#networks[data-phase="done"]', LONG);
  step('10');
  assert.equal(await stepOf(page), 24);

  // Download the latest checkpoint; it starts with the bundle magic.
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#nn-download-latest')]);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wmlab-nn-')), 'latest.wmlabnn');
  await dl.saveAs(file);
  assert.equal(fs.readFileSync(file).subarray(0, 8).toString(), 'WMLABNN1');

  // A garbage file is refused with a plain message; the stored run is kept.
  await page.setInputFiles('#nn-upload', { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not a checkpoint') });
  await page.waitForSelector('#nn-error');
  assert.match(await page.textContent('#nn-error'), /not a WM Lab network checkpoint/);
  assert.equal(await page.$eval('#nn-download-latest', (b) => b.disabled), false);
  // Damaged copies of a real checkpoint: a flipped bit in the weights, a cut, an impossible model in
  // the header. Each is refused in words; the stored checkpoint stays byte for byte as it was.
  const good = fs.readFileSync(file);
  const headerLen = good.readUInt32LE(8);
  const header = JSON.parse(good.subarray(12, 12 + headerLen).toString());
  const withHeader = (edit) => {
    const h = JSON.parse(JSON.stringify(header));
    edit(h.train.model);
    const json = Buffer.from(JSON.stringify(h));
    const len = Buffer.alloc(4);
    len.writeUInt32LE(json.length);
    return Buffer.concat([good.subarray(0, 8), len, json, good.subarray(12 + headerLen)]);
  };
  const flipped = Buffer.from(good);
  flipped[good.length - 7] ^= 0x10;
  for (const [name, buffer, why] of [
    ['flipped.wmlabnn', flipped, /checksum/],
    ['cut.wmlabnn', good.subarray(0, Math.floor(good.length / 2)), /cut short|truncated|damaged/],
    ['impossible.wmlabnn', withHeader((m) => { m.capacity = 0; }), /impossible model/],
    // A possible model, but not the one these weights are for: only loading them tells (the worker).
    ['other-width.wmlabnn', withHeader((m) => { m.capacity += 8; }), /weights do not fit the model/],
  ]) {
    await page.setInputFiles('#nn-upload', { name, mimeType: 'application/octet-stream', buffer });
    await page.waitForFunction((n) => (document.querySelector('#nn-error')?.textContent || '').includes(n), name);
    const msg = await page.textContent('#nn-error');
    assert.match(msg, new RegExp(name.replace('.', '\\.') + ' is not a usable checkpoint'), msg);
    assert.match(msg, why, msg);
  }
  const [again] = await Promise.all([page.waitForEvent('download'), page.click('#nn-download-latest')]);
  const kept = path.join(path.dirname(file), 'kept.wmlabnn');
  await again.saveAs(kept);
  assert.ok(fs.readFileSync(kept).equals(good), 'the stored checkpoint is untouched by the refused files');
  // The downloaded file loads back.
  await page.setInputFiles('#nn-upload', file);
  await page.waitForFunction(() => /Loaded latest\.wmlabnn/.test(document.querySelector('#nn-notice')?.textContent || ''), null, LONG);
  step('11');

  // Evaluate: 14 task rows, Fig. 4 curves with the human overlay. The default is big enough for every
  // condition cell (10 × VSRec's 40 cells), and says why; this test takes 3 for speed.
  assert.equal(await page.inputValue('#nn-eval-n'), '400');
  assert.match(await page.textContent('#nn-eval-n-why'), /400 trials per task.*40 cells.*10 trials/);
  await page.fill('#nn-eval-n', '3');
  await page.click('#nn-evaluate');
  await page.waitForSelector('#nn-eval #nn-eval-table tbody tr', LONG);
  step('12');
  const rows = await page.$$eval('#nn-eval-table tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  assert.equal(rows.length, 14, JSON.stringify(rows));
  for (const [, acc] of rows) assert.ok(Number(acc) >= 0 && Number(acc) <= 1);
  await page.waitForSelector('#nn-eval #charts canvas[data-drawn="true"]', LONG);
  step('13');
  const panels = await page.$$eval('#nn-eval #charts canvas', (cs) => cs.map((c) => [c.dataset.panel, c.dataset.drawn]));
  for (const name of ['VSR', 'SMU', 'CS', 'CD-Color']) {
    assert.ok(panels.some(([p, d]) => p === name && d === 'true'), `${name} panel drawn: ${JSON.stringify(panels)}`);
  }
  // Fig. A3: VIR accuracy per retention interval of the test trials, with the test across them (or why not).
  assert.match(await page.textContent('#nn-vir-retention'), /retention interval \(Fig\. A3\): \d: [\d.]+ \(n \d+\).*; (Kruskal–Wallis across intervals H = [\d.]+, p = [\d.]+|no test \(.+\))\.$/);
  // The record opens in Results (downloads and share link live there).
  await page.click('#nn-open-results');
  await page.waitForSelector('#results[data-state="shown"]', LONG);
  step('14');
  assert.match(await page.textContent('#subject'), /GRU-16/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// Language serial recall (WorM A3.1) trains alone in the tab: the worker gives the run the words
// encoder, validation and evaluation cover LSR only, and its serial-position curves are drawn.
test('LSR trains alone in the tab (CPU): a words model, evaluated per serial position', LONG, async () => {
  const page = await openNetworks();
  await page.selectOption('#nn-backend-pick', 'cpu');
  await page.waitForFunction(() => /CPU/.test(document.querySelector('#nn-backend').textContent), null, LONG);
  await configure(page, { steps: 2, valEvery: 2 });
  // A mix with a visual task is refused in words; LSR alone lands in the settings.
  await page.fill('#nn-tasks', 'LSR,VSR');
  await page.press('#nn-tasks', 'Tab');
  await page.waitForSelector('#nn-error');
  assert.match(await page.textContent('#nn-error'), /trains alone/);
  await trainOnly(page, 'LSR');
  await page.click('#nn-train');
  await page.waitForSelector('#networks[data-phase="done"], #nn-error', LONG);
  assert.equal(await page.$eval('body', (b) => b.querySelector('#nn-error')?.textContent ?? null), null, page.errors.join('\n').slice(0, 1500));
  assert.equal(await stepOf(page), 2);
  await page.fill('#nn-eval-n', '16');
  await page.click('#nn-evaluate');
  await page.waitForSelector('#nn-eval #nn-eval-table tbody tr', LONG);
  const rows = await page.$$eval('#nn-eval-table tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  assert.deepEqual(rows.map((r) => r[0]), ['LSR'], JSON.stringify(rows));
  await page.waitForSelector('#nn-eval #charts canvas[data-panel="LSR"][data-drawn="true"]', LONG);
  // The evaluated model is the words model: its record says so.
  await page.click('#nn-open-results');
  await page.waitForSelector('#results[data-state="shown"]', LONG);
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#download-json')]);
  const rec = JSON.parse(fs.readFileSync(await dl.path(), 'utf8'));
  assert.ok(rec.trials.every((t) => t.task === 'LSR'));
  assert.equal(JSON.parse(rec.config.settings.model_config).encoder, 'words', 'the record names the words encoder');
  assert.equal(rec.config.settings.trained_tasks, 'LSR');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('CPU backend: analyses of a tiny trained network draw every figure (Fig. 5, A5, A6, A13)', LONG, async () => {
  const page = await openNetworks();
  page.on('dialog', (d) => d.accept());
  await page.selectOption('#nn-backend-pick', 'cpu');
  await page.waitForFunction(() => /CPU/.test(document.querySelector('#nn-backend').textContent), null, LONG);
  await configure(page, { steps: 2, valEvery: 2 });
  await page.click('#nn-train');
  await page.waitForSelector('#networks[data-phase="done"]', LONG);
  // A long evaluation can be cancelled: the worker restarts, the settings and checkpoints stay.
  const settings = await page.inputValue('#nn-config-json');
  await page.fill('#nn-eval-n', '400');
  await page.click('#nn-evaluate');
  await page.waitForSelector('#nn-cancel-eval', LONG);
  await page.click('#nn-cancel-eval');
  await page.waitForSelector('#networks[data-phase="ready"]', LONG);
  assert.match(await page.textContent('#nn-notice'), /Cancelled/);
  assert.equal(await page.$('#nn-eval'), null);
  assert.equal(await page.inputValue('#nn-config-json'), settings);
  await page.fill('#nn-analyse-n', '4');
  await page.waitForFunction(() => !document.querySelector('#nn-analyse').disabled, null, LONG);
  await page.click('#nn-analyse');
  await page.waitForSelector('#nn-analyse-progress', LONG);
  console.log(`[networks] analysis: ${await page.textContent('#nn-analyse-progress')}`);
  await page.waitForSelector('#nn-analysis', LONG);
  const ids = ['nn-an-tv', 'nn-an-tsne', 'nn-an-ftv', 'nn-an-lesion', 'nn-an-sts', 'nn-an-emb', 'nn-an-a5', 'nn-an-first'];
  await page.waitForFunction((ids) => ids.every((id) => document.getElementById(id)?.dataset.drawn), ids, LONG);
  const drawn = await page.$$eval('#nn-analysis canvas', (cs) => cs.map((c) => [c.id, c.dataset.drawn, c.dataset.error || '']));
  for (const id of ids) {
    assert.ok(drawn.some(([i, d]) => i === id && d === 'true'), `${id} drawn: ${JSON.stringify(drawn)}`);
  }
  assert.ok(await page.$$eval('#nn-an-clusters li', (lis) => lis.length) >= 1);
  assert.equal(await page.$('#nn-analyse-progress'), null);
  // Evaluating after the analysis keeps the analyses in the record; Table A3 is under the curves, and
  // Results shows the analyses of the stored record.
  // 30 test trials per task id reach every condition cell of every task (trial i is cell i mod K).
  await page.fill('#nn-eval-n', '30');
  await page.click('#nn-evaluate');
  await page.waitForSelector('#nn-eval #nn-a3-table tbody tr', LONG);
  const a3 = await page.$$eval('#nn-a3-table tbody tr', (trs) => trs.map((tr) => [tr.dataset.task, tr.dataset.effect, tr.dataset.b, tr.dataset.a]));
  assert.ok(a3.some(([, , , a]) => a !== '' && Number(a) >= 0), `some slope score A: ${JSON.stringify(a3)}`);
  assert.equal(a3.length, 13, JSON.stringify(a3));
  assert.ok(a3.some(([t, e]) => t === 'VSR' && e === 'primacy'), JSON.stringify(a3));
  // The last row pools the five CD features (the paper's table); CD is compared at retention 18 (the
  // paper's comparison) unless the user pools the retention intervals.
  assert.equal(a3[12][0], 'CD');
  // n beside every A and B: 30 trials a task leave points under 10 trials (flagged ⚠ with the reason).
  const ns = await page.$$eval('#nn-a3-table td.a3-n', (tds) => tds.map((td) => [td.textContent, td.dataset.thin, td.title]));
  assert.equal(ns.length, 13);
  for (const [text, thin, title] of ns) {
    assert.match(text, /^\d+( ⚠)?$/, text);
    assert.equal(text.endsWith('⚠'), thin !== '0', text);
    if (thin !== '0') assert.match(title, /fewer than 10 observations/);
  }
  assert.ok(ns.some(([, thin]) => thin !== '0'), 'CD at retention 18 on 30 trials: thin points');
  // Table A3's t-tests against the chance model: run where the parts have scores, p shown on hover, and
  // an asterisk exactly where p < 0.01.
  const tests = await page.$$eval('#nn-a3-table td.a3-b', (tds) => tds.map((td) => [td.dataset.p, td.dataset.star, td.textContent, td.title]));
  assert.ok(tests.some(([p]) => p !== ''), `some B is tested: ${JSON.stringify(tests)}`);
  for (const [p, star, text, title] of tests) {
    if (p === '') continue;
    assert.equal(star === 'true', Number(p) < 0.01, JSON.stringify([p, star]));
    assert.equal(text.endsWith('*'), star === 'true', text);
    assert.match(title, /p = .*chance model/);
  }
  const cdNote = () => page.$eval('#nn-a3-table tr[data-task="CD"]', (tr) => tr.dataset.note);
  assert.match(await cdNote(), /retention 18/);
  await page.check('#nn-a3-cd-pooled');
  await page.waitForFunction(() => /pooled over every retention/.test(document.querySelector('#nn-a3-table tr[data-task="CD"]').dataset.note));
  assert.match(await page.$eval('#nn-a3-table tr[data-task="CD-Color"]', (tr) => tr.dataset.note), /pooled over every retention/);
  // Every effect but VSR's primacy and recency (slope scores only) has a B score: the network answered
  // every task, so each has a mean accuracy to compare with the humans'.
  for (const [t, e, b] of a3) {
    if (['primacy', 'recency'].includes(e)) continue;
    assert.ok(b !== '' && Number(b) >= 0, `B of ${t} ${e}: ${b}`);
  }
  await page.click('#nn-open-results');
  await page.waitForSelector('#results[data-state="shown"]', LONG);
  await page.waitForFunction(() => document.querySelector('#record-analyses #nn-an-tv')?.dataset.drawn === 'true', null, LONG);
  assert.deepEqual(page.errors.filter((e) => !/XDG|powerPreference/i.test(e)), []);
  await page.close();
});

// A shipped pretrained model: its card lists every trained id with chance and p; loading it fetches the
// weights (only then), and its evaluation marks the ids above chance beside the Fig. 4 panels.
test('pretrained model: card, load, evaluation with chance marks', LONG, async () => {
  const page = await openNetworks();
  await page.selectOption('#nn-backend-pick', 'cpu');
  await page.waitForFunction(() => /CPU/.test(document.querySelector('#nn-backend').textContent), null, LONG);
  const index = JSON.parse(fs.readFileSync(path.join(process.env.WMLAB_DIST, 'models', 'index.json'), 'utf8'));
  const joint = index.findIndex((c) => c.tasks.length === 14);
  assert.ok(joint >= 0, 'a joint model over the 14 ids is shipped');
  const fetched = [];
  page.on('request', (r) => { if (r.url().endsWith('.wmlabnn')) fetched.push(r.url()); });
  await page.waitForSelector('#nn-pretrained', LONG);
  await page.selectOption('#nn-pretrained', String(joint));
  await page.waitForSelector('#nn-model-card tbody tr');
  const card = await page.$$eval('#nn-model-card tbody tr', (trs) => trs.map((tr) => tr.dataset.task));
  assert.equal(card.length, 14, JSON.stringify(card));
  assert.deepEqual(fetched, [], 'no weights are fetched before the model is loaded');
  await page.click('#nn-load-pretrained');
  await page.waitForFunction((f) => (document.querySelector('#nn-notice')?.textContent || '').includes(`Loaded ${f}`), index[joint].file, LONG);
  assert.equal(fetched.length, 1);
  await page.fill('#nn-eval-n', '20');
  await page.click('#nn-evaluate');
  await page.waitForSelector('#nn-eval #nn-eval-table tbody tr', LONG);
  const rows = await page.$$eval('#nn-eval-table tbody tr', (trs) => trs.map((tr) => [tr.dataset.task, tr.dataset.above, ...[...tr.children].map((td) => td.textContent)]));
  assert.equal(rows.length, 14, JSON.stringify(rows));
  const sts = rows.find((r) => r[0] === 'STS');
  // STS: the pretrained models answer the task frames well above the 1/2 of guessing (about 0.73).
  assert.equal(sts[1], 'true', JSON.stringify(sts));
  assert.equal(Number(sts[4]), 0.5);
  assert.match(sts[7], /above chance/);
  for (const r of rows) assert.ok(Number(r[3]) >= 0 && Number(r[3]) <= 1, JSON.stringify(r));
  assert.match(await page.textContent('#nn-above-count'), /of 14 task ids above chance \(.*\); \d+ show memory/);
  // STS at about 0.73 is above guessing (1/2) but not above the 3/4 its frames give without memory.
  assert.equal(await page.$eval('#nn-eval-table tr[data-task="STS"]', (tr) => tr.dataset.memory), 'false');
  assert.match(sts[7], /no memory shown \(the current frame alone gives 0\.7\d\d\)/);
  // Not a success: no check mark, not drawn as one.
  assert.doesNotMatch(sts[7], /✓/);
  assert.equal(await page.$eval('#nn-eval-table tr[data-task="STS"]', (tr) => tr.className), 'no-memory');
  await page.waitForSelector('#nn-eval #charts canvas[data-drawn="true"]', LONG);
  const panels = await page.$$eval('#nn-eval #charts canvas', (cs) => cs.map((c) => c.dataset.panel));
  assert.ok(panels.includes('VSR'), JSON.stringify(panels));
  // Table A3 sets the paper's value for the same model (the first pretrained model is a TRF-96) beside
  // this evaluation's: VSR primacy A 3.307, CD pooled B 0.110.
  await page.waitForSelector('#nn-a3-table tbody tr');
  assert.match(await page.textContent('#nn-a3-paper-head'), /paper, TRF-96/);
  const paper = async (task, effect) => page.$eval(`#nn-a3-table tr[data-task="${task}"][data-effect="${effect}"] td.a3-paper`, (td) => td.textContent);
  assert.equal(await paper('VSR', 'primacy'), '3.307* / —');
  assert.equal(await paper('CD', 'set_size'), '0.999* / 0.110*');
  assert.deepEqual(page.errors, []);
  await page.close();
});

// A checkpoint chosen within a moment of opening the page (issue 71: it stayed at "Checking…" when the
// worker it was sent to was replaced, or not started yet): checked and loaded, on each of three fresh
// browsers with the default backend choice.
test('a checkpoint chosen as the page opens is checked and loaded', LONG, async () => {
  const { launch } = await import('./helpers.mjs');
  const file = path.join(process.env.WMLAB_DIST, 'models', 'wmlab-trf96-quick-vsr.wmlabnn');
  for (let k = 0; k < 3; k++) {
    const fresh = await launch();
    try {
      const page = await fresh.context.newPage();
      await page.goto(app.server.url + '#/networks');
      await page.waitForSelector('#nn-upload', { state: 'attached', timeout: 60_000 });
      await page.setInputFiles('#nn-upload', file);
      await page.waitForFunction(() => /Loaded wmlab-trf96-quick-vsr\.wmlabnn/.test(document.querySelector('#nn-notice')?.textContent || ''),
        null, { timeout: 120_000 });
    } finally {
      await fresh.close();
    }
  }
});

// A worker that dies (a panic in its wasm, made here through the test hook) is reported in words and
// replaced by a fresh one; the stored checkpoint is kept and evaluates with the new worker.
test('a crashed worker is restarted and the stored run kept', LONG, async () => {
  const first = await openPage(app.browser.context, app.server.url + '#/');
  await first.evaluate(() => localStorage.setItem('wmlab_test', '1'));
  await first.close();
  const page = await openNetworks();
  await page.selectOption('#nn-backend-pick', 'cpu');
  await page.waitForFunction(() => /CPU/.test(document.querySelector('#nn-backend').textContent), null, LONG);
  const index = JSON.parse(fs.readFileSync(path.join(process.env.WMLAB_DIST, 'models', 'index.json'), 'utf8'));
  const vsr = index.findIndex((c) => c.tasks.length === 1 && c.tasks[0] === 'VSR');
  await page.waitForSelector('#nn-pretrained', LONG);
  await page.selectOption('#nn-pretrained', String(vsr));
  await page.click('#nn-load-pretrained');
  await page.waitForFunction((f) => (document.querySelector('#nn-notice')?.textContent || '').includes(`Loaded ${f}`), index[vsr].file, LONG);
  await page.waitForSelector('#networks[data-phase="ready"]', LONG);
  await page.evaluate(() => window.__wmlab_nn_crash());
  await page.waitForFunction(() => /worker stopped.*fresh worker was started/s.test(document.querySelector('#nn-error')?.textContent || ''), null, LONG);
  await page.waitForSelector('#networks[data-phase="ready"]', LONG);
  await page.fill('#nn-eval-n', '3');
  await page.click('#nn-evaluate');
  await page.waitForSelector('#nn-eval #nn-eval-table tbody tr[data-task="VSR"]', LONG);
  await page.evaluate(() => localStorage.removeItem('wmlab_test'));
  await page.close();
});

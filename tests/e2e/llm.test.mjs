// The LLM page: (a) a small slice of every suite against the real local model (WMLAB_LLM_URL, started
// by scripts/dev/llm-server.sh) comes back scored or with classified errors, with log rows and charts;
// requests/s at concurrency 1 and 4 are measured; (b) a fault-injecting server (429 + Retry-After,
// 500, a stall, malformed JSON) is retried or recorded, never a crash; (c) a reload mid-run resumes
// with no finished sample sent again; (d) the key never reaches storage (unless remembered),
// exports, the share link, the URL or the console.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { serve, launch, openPage } from './helpers.mjs';
import { startFaultServer } from './fault-server.mjs';

const LLM_URL = process.env.WMLAB_LLM_URL;

let server, browser, faults;
before(async () => {
  server = await serve();
  browser = await launch();
  faults = await startFaultServer({ gateFree: 3 });
});
after(async () => {
  await browser?.close();
  await server?.close();
  await faults?.close();
});

/** Console messages of every type, and page errors, for the key check and crash checks. */
async function open(url = server.url + '#/llm') {
  const page = await openPage(browser.context, url);
  page.consoleAll = [];
  page.on('console', (m) => page.consoleAll.push(m.text()));
  await page.waitForSelector('#llm');
  return page;
}

/** Errors that are not the browser's own notes about HTTP error statuses we provoke on purpose. */
function realErrors(page) {
  return page.errors.filter((e) => !/Failed to load resource|net::ERR_|status of (4|5)\d\d/.test(e));
}

const SUITES = ['nback', 'lrt', 'snap', 'gen'];

/** Fill the form. Unlisted suites are switched off. */
async function configure(page, o) {
  await page.selectOption('#llm-kind', 'openai');
  await page.fill('#llm-base-url', o.base);
  await page.fill('#llm-model', o.model ?? 'smollm2');
  await page.fill('#llm-key', o.key ?? '');
  // The papers' sampling is the default; typing a cap sends that cap to every suite instead.
  if (o.paperSampling) {
    await page.setChecked('#llm-paper-sampling', true);
    // Each suite sends its paper's values: the fields say so rather than show a number (a 0 here read as
    // "temperature 0" while N-back runs at the API's default).
    assert.equal(await page.inputValue('#llm-temperature'), '');
    assert.equal(await page.getAttribute('#llm-temperature', 'placeholder'), 'per paper');
  } else {
    await page.fill('#llm-max-tokens', String(o.maxTokens ?? 16));
    assert.equal(await page.isChecked('#llm-paper-sampling'), false, 'typing a sampling value turns the papers\' sampling off');
  }
  await page.fill('#llm-concurrency', String(o.concurrency ?? 2));
  await page.fill('#llm-timeout', String(o.timeout ?? 120));
  await page.fill('#llm-retries', String(o.retries ?? 6));
  await page.fill('#llm-backoff', String(o.backoff ?? 1000));
  await page.setChecked('#llm-use-cache', o.cache ?? false);
  // The form keeps the last run's settings: batch mode only where a test asks for it.
  await page.setChecked('#llm-batch', Boolean(o.batch));
  await page.fill('#llm-slice', String(o.slice ?? 0));
  await page.setChecked('#llm-vis-on', Boolean(o.vision));
  for (const s of SUITES) await page.setChecked(`#llm-${s}-on`, Boolean(o[s]));
  if (o.vision) {
    await page.fill('#llm-vis-tasks', o.vision.tasks);
    await page.selectOption('#llm-vis-render', o.vision.render ?? 'image');
    await page.fill('#llm-vis-size', String(o.vision.size ?? 384));
    await page.fill('#llm-vis-cols', String(o.vision.cols ?? 24));
    await page.fill('#llm-vis-trials', String(o.vision.trials ?? 1));
    await page.fill('#llm-vis-ns', o.vision.ns ?? '1');
    await page.fill('#llm-vis-seed', String(o.vision.seed ?? 0));
  }
  if (o.nback) {
    await page.selectOption('#llm-nback-variant', o.nback.variant);
    await page.fill('#llm-nback-ns', o.nback.ns);
    await page.selectOption('#llm-nback-protocol', o.nback.protocol);
    await page.fill('#llm-nback-blocks', String(o.nback.blocks));
    await page.selectOption('#llm-nback-history', o.nback.history ?? 'full');
    if (o.nback.noteTokens) await page.fill('#llm-nback-note-tokens', String(o.nback.noteTokens));
  }
  if (o.lrt) {
    await page.fill('#llm-lrt-lines', o.lrt.lines);
    await page.fill('#llm-lrt-tests', String(o.lrt.tests));
    await page.setChecked('#llm-lrt-ordered', o.lrt.ordered ?? true);
    await page.setChecked('#llm-lrt-shuffled', o.lrt.shuffled ?? false);
    await page.fill('#llm-lrt-seed', String(o.lrt.seed ?? 1));
  }
  if (o.snap) {
    const ids = await page.$$eval('input[id^="llm-snap-"][type=checkbox]', (els) =>
      els.map((e) => e.id).filter((id) => id !== 'llm-snap-on'));
    for (const id of ids) await page.setChecked('#' + id, o.snap.files.includes(id.slice('llm-snap-'.length)));
    await page.fill('#llm-snap-limit', String(o.snap.limit));
  }
  if (o.gen) {
    const ids = await page.$$eval('input[id^="llm-gen-"][type=checkbox]', (els) =>
      els.map((e) => e.id).filter((id) => id !== 'llm-gen-on'));
    for (const id of ids) await page.setChecked('#' + id, o.gen.tasks.includes(id.slice('llm-gen-'.length)));
    await page.fill('#llm-gen-spc', String(o.gen.spc));
    await page.fill('#llm-gen-ctx', String(o.gen.ctx));
    await page.fill('#llm-gen-steps', o.gen.steps ?? '');
    await page.fill('#llm-gen-variants', o.gen.variants ?? '');
  }
  await page.setChecked('#llm-lat-on', Boolean(o.latent));
  if (o.latent) {
    await page.setChecked('#llm-lat-guess', o.latent.tasks.includes('number-guessing'));
    await page.setChecked('#llm-lat-yesno', o.latent.tasks.includes('yes-no'));
    await page.setChecked('#llm-lat-magic', o.latent.tasks.includes('math-magic'));
    await page.fill('#llm-lat-range', String(o.latent.range ?? 10));
    await page.fill('#llm-lat-trials', String(o.latent.trials ?? 1));
    await page.fill('#llm-lat-questions', String(o.latent.questions ?? 250));
  }
  await page.setChecked('#llm-pi-on', Boolean(o.pi));
  if (o.pi) {
    await page.fill('#llm-pi-keys', String(o.pi.keys));
    await page.fill('#llm-pi-updates', o.pi.updates);
    await page.fill('#llm-pi-sessions', String(o.pi.sessions ?? 1));
    await page.fill('#llm-pi-value-len', String(o.pi.valueLen ?? 1));
    await page.selectOption('#llm-pi-order', o.pi.order ?? 'random');
  }
  await page.fill('#llm-repeats', String(o.repeats ?? 1));
}

async function runToEnd(page, timeout = 600_000) {
  const seq = Number(await page.getAttribute('#llm', 'data-run-seq')) + 1;
  const t0 = Date.now();
  await page.click('#llm-start');
  await page.waitForSelector(`#llm[data-run-seq="${seq}"]:is([data-run="done"], [data-run="failed"])`, { timeout });
  const ms = Date.now() - t0;
  const err = await page.$('#llm-error');
  assert.equal(err, null, err ? await err.textContent() : '');
  assert.equal(await page.getAttribute('#llm', 'data-run'), 'done');
  return ms;
}

async function progress(page) {
  const n = async (id) => Number(await page.textContent(id));
  return {
    done: await n('#llm-done'), total: await n('#llm-total'), failed: await n('#llm-failed'),
    requests: await n('#llm-requests'), retries: await n('#llm-retries-count'),
  };
}

async function rows(page) {
  return page.$$eval('#llm-log tbody tr.llm-row', (trs) => trs.map((tr) => ({
    sample: tr.dataset.sample, task: tr.dataset.task, error: tr.dataset.error, score: tr.dataset.score,
  })));
}

async function download(page, selector) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return fs.readFileSync(await dl.path(), 'utf8');
}

/** Poll a condition in Node (the fault server's state), without fixed sleeps in the page. */
async function until(cond, what, ms = 60_000) {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('a small slice of every suite runs against the real local model and is scored', { timeout: 900_000 }, async (t) => {
  assert.ok(LLM_URL, 'WMLAB_LLM_URL is not set: start the local model server with ./scripts/dev/llm-server.sh and export WMLAB_LLM_URL=http://127.0.0.1:18080/v1 (scripts/dev/test.sh does both)');
  const page = await open();
  // The model list comes from the provider.
  await page.fill('#llm-base-url', LLM_URL);
  await page.fill('#llm-model', '');
  await page.click('#llm-fetch-models');
  await page.waitForSelector('#llm-fetch-models[data-state="loaded"]', { timeout: 30_000 });
  const models = await page.$$eval('#llm-models option', (os) => os.map((o) => o.value));
  assert.ok(models.length >= 1, 'the model list is empty');

  await configure(page, {
    base: LLM_URL, model: 'smollm2', maxTokens: 12, concurrency: 2, slice: 2, cache: false,
    nback: { variant: 'letters_30', ns: '1', protocol: 'readme', blocks: 1 },
    lrt: { lines: '20', tests: 1, ordered: true, shuffled: true },
    snap: { files: ['string_search_word'], limit: 2 },
    gen: { tasks: ['string_search_word'], spc: 1, ctx: 300 },
  });
  const ms = await runToEnd(page);
  const p = await progress(page);
  t.diagnostic(`real model, all four suites (7 samples, ${p.requests} requests): ${(ms / 1000).toFixed(1)} s`);
  assert.equal(p.total, 7);
  assert.equal(p.done, p.total);
  // The N-back block's turns are counted on the progress line (its time estimate runs from them).
  assert.ok(Number(await page.textContent('#llm-turns')) >= 24, await page.textContent('#llm-progress-box'));
  const rs = await rows(page);
  assert.equal(rs.length, 7);
  assert.equal(Number(await page.getAttribute('#llm-log', 'data-rows')), 7);
  const tasks = new Set(rs.map((r) => r.task));
  for (const want of ['letters_30-1back', 'lrt-ordered', 'lrt-shuffled', 'string_search_word']) {
    assert.ok(tasks.has(want), `no row of ${want}: ${[...tasks]}`);
  }
  for (const r of rs) {
    if (r.error) assert.notEqual(r.error, 'network', `${r.sample}: network error`);
    else assert.ok(Number.isFinite(Number(r.score)) && r.score !== '', `${r.sample}: score "${r.score}"`);
  }
  // The published snapshot prompts are ~4k tokens: a 2048-token model refuses them, classified.
  for (const r of rs.filter((r) => r.sample.startsWith('minerva-snapshot') || r.sample.includes('snapshot'))) {
    if (r.error) assert.equal(r.error, 'context_too_long', r.sample);
  }
  const nb = rs.find((r) => r.task === 'letters_30-1back');
  assert.equal(nb.error, '', 'the N-back dialogue failed');

  // Charts of the three suites are drawn.
  for (const id of ['nback-rates', 'nback-dprime', 'lrt', 'minerva']) {
    assert.equal(await page.getAttribute(`#llm-plot-${id}`, 'data-drawn'), 'true', id);
  }
  // One block of letters_30 beside GPT-4's 30: the d′ chart says which d′ and that the block counts differ;
  // the paper's tests are shown for this run (one N: in words) and for the published blocks.
  assert.match(await page.textContent('#llm-note-nback-dprime'), /1 block per N; the published means are over 30 blocks.*clipped/s);
  const tests = await page.textContent('#llm-nback-tests');
  assert.match(tests, /Kruskal–Wallis needs at least two N levels/);
  assert.match(tests, /published \(GPT-4\)/);
  // A row opens its sample: the conversation and the extracted answer.
  await page.click(`tr.llm-row[data-sample="${nb.sample}"]`);
  await page.waitForSelector(`#llm-detail[data-sample="${nb.sample}"]`);
  assert.ok(Number(await page.getAttribute('#llm-detail .llm-messages', 'data-count')) > 10);
  const lrtRow = rs.find((r) => r.task === 'lrt-ordered');
  await page.click(`tr.llm-row[data-sample="${lrtRow.sample}"]`);
  await page.waitForSelector(`#llm-detail[data-sample="${lrtRow.sample}"] #llm-detail-reply`);
  assert.match(await page.textContent('#llm-detail .llm-messages'), /Testing Long Context/);
  // Filters.
  await page.setChecked('#llm-filter-failures', true);
  const failed = await rows(page);
  assert.ok(failed.every((r) => r.error !== ''));
  await page.setChecked('#llm-filter-failures', false);
  await page.selectOption('#llm-filter-task', 'lrt-shuffled');
  assert.deepEqual([...new Set((await rows(page)).map((r) => r.task))], ['lrt-shuffled']);
  await page.selectOption('#llm-filter-task', '');

  // Exports and share link.
  const jsonl = (await download(page, '#llm-export-jsonl')).trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(jsonl.length, 7);
  assert.ok(jsonl.every((o) => o.sample_id && o.task));
  const csv = await download(page, '#llm-export-csv');
  assert.ok(csv.split('\n').length >= 8);
  const link = await page.inputValue('#llm-share-link');
  assert.match(link, /#r=1\.[A-Za-z0-9_-]+$/);
  await page.click('#llm-open-results');
  await page.waitForSelector('#results[data-state="shown"] #summary-table');
  assert.match(await page.textContent('#subject'), /smollm2/);
  assert.deepEqual(realErrors(page), []);
  await page.close();
});

test('a Minerva steps sweep runs in one go and draws score against steps (Fig. 6)', { timeout: 600_000 }, async () => {
  assert.ok(LLM_URL, 'WMLAB_LLM_URL is not set: start ./scripts/dev/llm-server.sh (scripts/dev/test.sh does)');
  const page = await open();
  // The token ranks the generator counts with are not in the app's wasm: fetched once, for the first
  // generated Minerva run of the page.
  const ranks = [];
  page.on('request', (r) => { if (r.url().includes('cl100k_base')) ranks.push(r.url()); });
  // A bad list is refused in plain words, nothing starts.
  await configure(page, {
    base: LLM_URL, model: 'smollm2', maxTokens: 12, concurrency: 2, cache: false,
    gen: { tasks: ['quantity_state'], spc: 1, ctx: 300, steps: '3, six' },
  });
  await page.click('#llm-start');
  await page.waitForSelector('#llm-error');
  assert.match(await page.textContent('#llm-error'), /Operation steps: "six" is not a whole number/);
  // The app's own address as the model server (llama-server's default port is the one serve.sh uses)
  // is named before any request.
  await page.fill('#llm-base-url', new URL(server.url).origin + '/v1');
  await page.click('#llm-start');
  await page.waitForFunction(() => /WM Lab's own address/.test(document.querySelector('#llm-error')?.textContent || ''));
  await page.fill('#llm-base-url', LLM_URL);
  assert.deepEqual(ranks, [], 'no ranks before a Minerva context is generated');
  await page.fill('#llm-gen-steps', '3, 6');
  await runToEnd(page);
  assert.equal(ranks.length, 1, JSON.stringify(ranks));
  const rs = await rows(page);
  assert.deepEqual(rs.map((r) => r.sample).sort(), ['minerva/quantity_state@steps=3/0', 'minerva/quantity_state@steps=6/0']);
  // Both points land on the steps chart when both were scored; an unscorable reply is a classified error.
  const scored = rs.filter((r) => !r.error).length;
  if (scored === 2) assert.equal(await page.getAttribute('#llm-plot-minerva-steps', 'data-drawn'), 'true');
  else for (const r of rs.filter((r) => r.error)) assert.notEqual(r.error, 'network', r.sample);

  // Tables 8 and 12: both wordings of the instruction on the same trial; a wording other than 1 or 2 is
  // refused first.
  await page.fill('#llm-gen-steps', '3');
  await page.fill('#llm-gen-variants', '1, 3');
  await page.click('#llm-start');
  await page.waitForSelector('#llm-error');
  assert.match(await page.textContent('#llm-error'), /"3" is not 1 or 2/);
  await page.fill('#llm-gen-variants', '1, 2');
  await runToEnd(page);
  const vs = await rows(page);
  assert.deepEqual(vs.map((r) => r.sample).sort(), ['minerva/quantity_state@var=1/0', 'minerva/quantity_state@var=2/0']);
  assert.equal(ranks.length, 1, 'the ranks are fetched once per page load');
  if (vs.every((r) => !r.error)) {
    assert.equal(await page.getAttribute('#llm-plot-minerva-variants-quantity_state', 'data-drawn'), 'true');
  }
  await page.close();
});

test('requests per second against the local model at concurrency 1 and 4', { timeout: 900_000 }, async (t) => {
  assert.ok(LLM_URL, 'WMLAB_LLM_URL is not set: start ./scripts/dev/llm-server.sh and export WMLAB_LLM_URL');
  const page = await open();
  for (const [c, seed] of [[1, 11], [4, 12]]) {
    await configure(page, {
      base: LLM_URL, maxTokens: 4, concurrency: c, cache: false, lrt: { lines: '10', tests: 8, seed },
    });
    const ms = await runToEnd(page);
    const p = await progress(page);
    assert.equal(p.done, 8);
    t.diagnostic(`local model, concurrency ${c}: ${p.requests} requests in ${(ms / 1000).toFixed(2)} s = ${(p.requests / (ms / 1000)).toFixed(2)} requests/s`);
  }
  await page.close();
});

test('faults are retried or recorded, never a crash; overhead per request', { timeout: 300_000 }, async (t) => {
  faults.reset();
  const page = await open();
  // 429 with Retry-After, 500, a stall past the timeout, malformed JSON, then answers.
  await configure(page, {
    base: faults.base('faults'), model: 'fake', concurrency: 1, timeout: 1.5, retries: 6, backoff: 100,
    lrt: { lines: '20', tests: 2 },
  });
  await runToEnd(page, 120_000);
  let p = await progress(page);
  assert.equal(p.done, 2);
  assert.equal(p.failed, 0);
  assert.ok(p.retries >= 4, `retries ${p.retries}`);
  assert.equal(faults.total, 6);
  for (const r of await rows(page)) {
    assert.equal(r.error, '');
    assert.ok(Number.isFinite(Number(r.score)));
  }

  // A server that always fails: the samples are recorded as failures with a plain message.
  await configure(page, {
    base: faults.base('fail'), model: 'fake', concurrency: 2, retries: 1, backoff: 50,
    lrt: { lines: '20', tests: 2 },
  });
  await runToEnd(page, 60_000);
  p = await progress(page);
  assert.equal(p.done, 2);
  assert.equal(p.failed, 2);
  assert.ok((await rows(page)).every((r) => r.error === 'server'));
  assert.match(await page.textContent('#llm-failures'), /HTTP 500/);

  // A wrong address: a friendly message naming the setting that fixes it.
  await configure(page, { base: 'http://127.0.0.1:9/v1', model: 'fake', retries: 0, lrt: { lines: '20', tests: 1 } });
  await runToEnd(page, 60_000);
  assert.equal((await rows(page))[0].error, 'network');
  assert.match(await page.textContent('#llm-failures'), /cors-origins|allow/i);

  // Overhead: an instant server, 40 requests, concurrency 1 and 4.
  for (const c of [1, 4]) {
    await configure(page, { base: faults.base('ok'), model: 'fake', concurrency: c, lrt: { lines: '20', tests: 40 } });
    const ms = await runToEnd(page, 120_000);
    assert.equal((await progress(page)).done, 40);
    t.diagnostic(`instant server, concurrency ${c}: 40 requests in ${ms} ms = ${(ms / 40).toFixed(1)} ms per request (page + runner + fetch overhead)`);
  }
  assert.deepEqual(realErrors(page), []);
  await page.close();
});

/** Reload mid-run (held requests in flight), wait for the resume banner and the held requests to be
 * dropped, release the server and resume to the end. */
async function reloadAndResume(page, what = 'the held requests to be dropped by the reload') {
  await page.reload();
  await page.waitForSelector('body[data-app-ready="true"]');
  await page.waitForSelector('#llm-resume-banner');
  await until(() => faults.held === 0, what);
  faults.release();
  await page.click('#llm-resume');
  await page.waitForSelector('#llm[data-run="done"]', { timeout: 60_000 });
}

test('a reload mid-run resumes without sending a finished sample again', { timeout: 300_000 }, async () => {
  faults.reset();
  const page = await open();
  await configure(page, { base: faults.base('gate'), model: 'fake', concurrency: 2, lrt: { lines: '20', tests: 6 } });
  await page.click('#llm-start');
  // Three answered at once, then two held in flight.
  await page.waitForSelector('#llm-progress-box[data-done="3"]');
  await until(() => faults.held === 2, 'two held requests');
  const before = [...faults.prompts.entries()].filter(([, s]) => s.answered === 1).map(([h]) => h);
  assert.equal(before.length, 3);
  await page.reload();
  await page.waitForSelector('body[data-app-ready="true"]');
  await page.waitForSelector('#llm-resume-banner');
  assert.match(await page.textContent('#llm-resume-banner'), /3 samples saved/);
  await until(() => faults.held === 0, 'the held requests to be dropped by the reload');
  faults.release();
  await page.click('#llm-resume');
  await page.waitForSelector('#llm[data-run="done"]', { timeout: 60_000 });
  const p = await progress(page);
  assert.equal(p.done, 6);
  assert.equal(p.total, 6);
  for (const h of before) assert.equal(faults.prompts.get(h).received, 1, 'a finished sample was sent again');
  const answered = [...faults.prompts.values()].map((s) => s.answered);
  assert.equal(answered.length, 6);
  assert.ok(answered.every((n) => n === 1), `answered per prompt: ${answered}`);
  assert.equal((await rows(page)).length, 6);
  // The finished run is no longer offered after another reload.
  await page.reload();
  await page.waitForSelector('body[data-app-ready="true"]');
  await page.waitForSelector('#llm');
  assert.equal(await page.$('#llm-resume-banner'), null);
  await page.close();
});

test('a spending limit stops the run, and Resume with a higher one finishes it sending nothing twice', { timeout: 300_000 }, async () => {
  faults.reset();
  const page = await open();
  await configure(page, { base: faults.base('ok'), model: 'fake', concurrency: 1, lrt: { lines: '20', tests: 6 } });
  // One unit per token: each request costs 11 + 5 = 16; a third would take 32 past 40.
  await page.fill('#llm-price-in', '1000000');
  await page.fill('#llm-price-out', '1000000');
  await page.fill('#llm-max-cost', '40');
  await page.click('#llm-start');
  await page.waitForSelector('#llm[data-run="cancelled"]', { timeout: 60_000 });
  assert.match(await page.textContent('#llm-notice'), /spending limit \(40; estimated so far 32/);
  assert.equal((await progress(page)).done, 2);
  await page.fill('#llm-max-cost', '1000');
  await page.click('#llm-resume-cancelled');
  await page.waitForSelector('#llm[data-run="done"]', { timeout: 60_000 });
  assert.equal((await progress(page)).done, 6);
  const received = [...faults.prompts.values()].map((s) => s.received);
  assert.equal(received.length, 6);
  assert.ok(received.every((n) => n === 1), `requests per prompt: ${received}`);
  await page.close();
});

test('batch mode: one batch, scored from its file, the failed item sent alone; a reload polls the same batch', { timeout: 300_000 }, async () => {
  faults.reset();
  faults.batch.hold = true;
  const page = await open();
  await configure(page, { base: faults.base('batch'), model: 'fake', concurrency: 2, batch: true, lrt: { lines: '20', tests: 4 } });
  // Dialogues do not batch: refused in words before anything is sent.
  await page.setChecked('#llm-nback-on', true);
  await page.click('#llm-start');
  await page.waitForSelector('#llm-error');
  assert.match(await page.textContent('#llm-error'), /dialogues/);
  assert.equal(faults.total + faults.batch.creates, 0);
  await page.setChecked('#llm-nback-on', false);
  await page.click('#llm-start');
  // The batch is sent and looked at; a reload while it runs offers the run, and Resume polls the
  // same batch instead of sending another.
  await page.waitForSelector('#llm-batch-state');
  assert.match(await page.textContent('#llm-batch-state'), /batch_1 in_progress, 0 of 4 finished/);
  assert.equal(faults.batch.creates, 1);
  assert.equal(faults.batch.items.length, 4);
  await page.reload();
  await page.waitForSelector('body[data-app-ready="true"]');
  await page.waitForSelector('#llm-resume-banner');
  const looks = faults.batch.looks;
  await page.click('#llm-resume');
  await until(() => faults.batch.looks > looks, 'the resumed run to look at the batch');
  faults.batch.hold = false;
  await page.waitForSelector('#llm[data-run="done"]', { timeout: 60_000 });
  assert.equal(faults.batch.creates, 1, 'one batch, not a second');
  assert.equal(faults.total, 1, 'one ordinary request: the item the batch returned as failed');
  const p = await progress(page);
  assert.equal(p.done, 4);
  assert.equal(p.failed, 0);
  assert.match(await page.textContent('#llm-batch-state'), /3 answered, 1 sent again/);
  for (const r of await rows(page)) assert.equal(r.error, '');
  assert.deepEqual(realErrors(page), []);
  await page.close();
});

test('several models run side by side on the same samples, resume together after a reload, and open together on Compare', { timeout: 300_000 }, async () => {
  faults.reset({ gateFree: 40 });
  const page = await open();
  const nback = { variant: 'letters_30', ns: '1', protocol: 'readme', blocks: 1 };
  await configure(page, { base: faults.base('gate'), model: 'fake-a, fake-b', concurrency: '1, 2, 3', nback });
  await page.click('#llm-start');
  await page.waitForSelector('#llm-error');
  assert.match(await page.textContent('#llm-error'), /3 values for 2 models/);
  assert.equal(faults.total, 0);
  await page.fill('#llm-concurrency', '1, 2');
  await page.click('#llm-start');
  // Both dialogues run at once: 40 turns answered between them, then one held each.
  await until(() => faults.held === 2 && faults.total === 42, 'both models to reach the gate');
  assert.equal(await page.$$eval('#llm-lanes tr.llm-lane', (t) => t.length), 2);
  assert.ok(faults.models.get('fake-a') > 1 && faults.models.get('fake-b') > 1, JSON.stringify([...faults.models]));
  await reloadAndResume(page, 'both held turns to be dropped by the reload');
  // The form keeps both models and their concurrencies.
  assert.equal(await page.inputValue('#llm-model'), 'fake-a, fake-b');
  assert.equal(await page.inputValue('#llm-concurrency'), '1, 2');
  const lanes = await page.$$eval('#llm-lanes tr.llm-lane', (t) => t.map((r) => [r.dataset.model, r.dataset.state, r.dataset.done]));
  assert.deepEqual(lanes, [['fake-a', 'done', '1'], ['fake-b', 'done', '1']]);
  // Every turn of each model answered once (the reload sent nothing twice), and both models had the
  // same dialogue: the same number of turns, each sent once more only for the turn the reload dropped.
  const answered = [...faults.prompts.values()].map((s) => s.answered);
  assert.ok(answered.every((n) => n === 1), `a turn was answered twice: ${answered}`);
  const perModel = [faults.models.get('fake-a'), faults.models.get('fake-b')];
  assert.equal(perModel[0], perModel[1], `requests per model: ${perModel}`);
  assert.equal(answered.length, 2 * (perModel[0] - 1), `${answered.length} distinct (model, turn) requests`);
  assert.ok(answered.length > 60, `${answered.length} turns for two dialogues of 30 trials`);
  // Side by side: one table with a column per model, each chart once with both models on it.
  const head = await page.$$eval('#llm-side-by-side thead th', (t) => t.map((x) => x.textContent));
  assert.deepEqual(head.slice(3), ['fake-a', 'fake-b']);
  assert.ok(Number(await page.getAttribute('#llm-side-by-side', 'data-rows')) > 0);
  const rates = await page.getAttribute('#llm-models-plot-nback-rates', 'data-labels');
  assert.ok(rates.includes('fake-a') && rates.includes('fake-b'), rates);
  // Each model's samples and results on their own.
  assert.match(await page.textContent('#llm-samples-title'), /Samples: fake-a/);
  await page.click('#llm-show-1');
  await page.waitForSelector('#llm-show-1[disabled]');
  assert.match(await page.textContent('#llm-samples-title'), /Samples: fake-b/);
  assert.equal((await rows(page)).length, 1);
  assert.deepEqual(realErrors(page), []);
  await page.click('#llm-compare-all');
  await page.waitForSelector('#compare[data-chosen="2"][data-task="nback-verbal"]');
  await page.close();
});

// N-back without the visible history (issue 69, after Huang et al. 2025): every request is the
// instructions, the model's own note from its last turn and the current letter, never the dialogue.
test('N-back without the visible history: each request holds the last note and the current letter only', { timeout: 300_000 }, async () => {
  const noter = await startFaultServer({ reply: '-\nNOTE: q then v' });
  try {
    const page = await open();
    await configure(page, {
      base: noter.base('ok'), model: 'fake', concurrency: 1,
      nback: { variant: 'letters', ns: '2', protocol: 'base', blocks: 1, history: 'note', noteTokens: 16 },
    });
    await runToEnd(page);
    const [row] = await rows(page);
    assert.equal(row.error, '');
    assert.match(row.sample, /^nback\/letters_note16-2back\/0$/);
    assert.equal(noter.shapes.length, 24, 'one request a trial: no retries');
    assert.ok(noter.shapes.every((s) => s.count === 2), JSON.stringify(noter.shapes.map((s) => s.count)));
    assert.match(noter.shapes[0].last, /^Your note from the previous step: \(none yet\)\n\n\w$/);
    assert.ok(noter.shapes.slice(1).every((s) => /^Your note from the previous step: q then v\n\n\w$/.test(s.last)));
    await page.close();
  } finally {
    await noter.close();
  }
});

test('the same LRT run from the page writes the CLI\'s settings, key for key', { timeout: 120_000 }, async () => {
  // tests/fixtures/lrt-run-settings.json: crates/cli/tests/llm_cli.rs runs the same run from the CLI.
  const fixture = JSON.parse(fs.readFileSync(new URL('../fixtures/lrt-run-settings.json', import.meta.url), 'utf8'));
  const page = await open();
  await configure(page, {
    base: faults.base('ok'), model: 'fake', concurrency: 1,
    lrt: fixture.page.lrt, slice: fixture.page.slice, repeats: fixture.page.repeats,
  });
  await runToEnd(page);
  const rec = JSON.parse(await download(page, '#llm-export-json'));
  const settings = rec.config.settings;
  for (const [k, v] of Object.entries(fixture.run_settings)) assert.deepEqual(settings[k], v, k);
  for (const k of Object.keys(settings)) {
    assert.ok(k in fixture.run_settings || fixture.other_keys.includes(k), `a setting the CLI does not write: ${k}`);
  }
  assert.equal(settings.samples, 4);
  await page.close();
});

/** A model that reads a PI-LLM stream and gives each key's last value, as the prompt asks. */
function piAnswer(prompt) {
  const stream = prompt.split('The text stream starts on the next line.\n')[1]?.split('\n\n')[0] ?? '';
  const last = new Map();
  for (const pair of stream.split('; ')) {
    const at = pair.indexOf(': ');
    if (at > 0) last.set(pair.slice(0, at).trim(), pair.slice(at + 2).trim());
  }
  return [...last].map(([k, v]) => `The current value of ${k} is ${v}.`).join('\n');
}

test('PI-LLM with repeats: each stream asked twice, read by key, drawn against updates per key', { timeout: 300_000 }, async () => {
  const reader = await startFaultServer({ reply: piAnswer });
  try {
    const page = await open();
    await configure(page, {
      base: reader.base('ok'), model: 'fake', concurrency: 1, maxTokens: 256, repeats: 2,
      pi: { keys: 3, updates: '2, 6', sessions: 1 },
    });
    await runToEnd(page);
    const rs = await rows(page);
    assert.equal(rs.length, 4, JSON.stringify(rs));
    assert.deepEqual(rs.map((r) => r.sample).sort(),
      ['pi-llm/k3-u2/0', 'pi-llm/k3-u2/0@r2', 'pi-llm/k3-u6/0', 'pi-llm/k3-u6/0@r2']);
    assert.ok(rs.every((r) => r.error === '' && Number(r.score) === 1), JSON.stringify(rs));
    // Each repeat was its own request: two prompts, each received twice.
    assert.equal(reader.shapes.length, 4);
    assert.match(reader.shapes[0].last, /^As my secretary, I need you to carefully read a text stream/);
    // The stream never names a key twice in a row.
    const stream = reader.shapes[1].last.split('starts on the next line.\n')[1].split('\n\n')[0];
    const keys = stream.split('; ').filter((p) => p.includes(': ')).map((p) => p.split(': ')[0].trim());
    assert.equal(keys.length, 18);
    assert.ok(keys.every((k, i) => i === 0 || k !== keys[i - 1]), keys.join(' | '));
    await page.waitForSelector('#llm-plot-pi-llm[data-drawn="true"]');
    assert.match(await page.textContent('#llm-note-pi-llm'), /up to 2 times.*log10/s);
    // The record: repeats and the PI settings; n counts streams, with the spread over repeats beside it.
    const rec = JSON.parse(await download(page, '#llm-export-json'));
    assert.equal(rec.config.settings.repeats, 2);
    assert.equal(rec.config.settings.pi_keys, 3);
    assert.equal(rec.config.settings.pi_updates, '2,6');
    const all = rec.summaries.find((s) => s.metric === 'last_values' && Object.keys(s.conditions).length === 0);
    assert.equal(all.n, 2);
    assert.equal(all.value, 1);
    assert.ok(rec.summaries.some((s) => s.metric === 'last_values_repeat_sd'));
    assert.deepEqual(realErrors(page), []);
    await page.close();
  } finally {
    await reader.close();
  }
});

/** A model that holds 2: yes only to "is it 2?"; always "No." to a deduction question; a trick that adds up. */
function latentAnswer(last) {
  const k = /thinking of (\d+)\?/.exec(last);
  if (k) return k[1] === '2' ? 'Yes.' : 'No.';
  if (/^Is the object/.test(last)) return 'No.';
  if (/put_aside_number/.test(last)) return '{"final_number": "3", "put_aside_number": "3"}';
  return 'Hmm?';
}

test('the latent-state tasks: a yes-sum of 1, a deduction to its first contradiction, a trick that adds up', { timeout: 300_000 }, async () => {
  const holder = await startFaultServer({ reply: latentAnswer });
  try {
    const page = await open();
    await configure(page, {
      base: holder.base('ok'), model: 'fake', concurrency: 1, maxTokens: 64,
      latent: { tasks: ['number-guessing', 'yes-no', 'math-magic'], range: 4, trials: 1, questions: 30 },
    });
    await runToEnd(page);
    const rs = await rows(page);
    assert.equal(rs.length, 4 + 1 + 1, JSON.stringify(rs));
    assert.ok(rs.every((r) => r.error === ''), JSON.stringify(rs));
    // Each "is it k?" is its own four-message conversation.
    const guesses = holder.shapes.filter((s) => /thinking of \d+\?/.test(s.last));
    assert.equal(guesses.length, 4);
    assert.ok(guesses.every((s) => s.count === 4));
    // The deduction: one growing conversation, one question a turn, stopped at the first contradiction
    // (always "no" to "bigger than X" and "smaller than Y" cannot both hold once Y > X) or after 30.
    const asked = holder.shapes.filter((s) => /^Is the object/.test(s.last));
    assert.ok(asked.length >= 2 && asked.length <= 30, String(asked.length));
    assert.ok(asked.every((s, i) => s.count === 3 + 2 * i), JSON.stringify(asked.map((s) => s.count)));
    const rec = JSON.parse(await download(page, '#llm-export-json'));
    const sum = rec.summaries.find((s) => s.task === 'number-guessing' && s.metric === 'yes_sum');
    assert.equal(sum.value, 1);
    const magic = rec.summaries.find((s) => s.task === 'math-magic' && s.metric === 'same_number' && Object.keys(s.conditions).length === 0);
    assert.equal(magic.value, 1);
    const yn = rec.summaries.find((s) => s.task === 'yes-no' && s.metric === 'consistent_answers');
    assert.equal(yn.value, asked.length < 30 ? asked.length - 1 : 30);
    assert.equal(rec.config.settings.latent_tasks, 'number-guessing,yes-no,math-magic');
    for (const id of ['number-guessing', 'latent']) {
      await page.waitForSelector(`#llm-plot-${id}[data-drawn="true"]`);
    }
    assert.match(await page.textContent('#llm-note-number-guessing'), /Sum over k: 1\.000 from 4 answers/);
    assert.deepEqual(realErrors(page), []);
    await page.close();
  } finally {
    await holder.close();
  }
});

test('a reload in the middle of an N-back dialogue replays its saved turns and sends none twice', { timeout: 300_000 }, async () => {
  faults.reset({ gateFree: 10 });
  const page = await open();
  await configure(page, {
    base: faults.base('gate'), model: 'fake', concurrency: 1,
    nback: { variant: 'letters_30', ns: '1', protocol: 'readme', blocks: 1 },
  });
  await page.click('#llm-start');
  await until(() => faults.held === 1 && faults.total === 11, 'ten answered turns and one held');
  await reloadAndResume(page, 'the held turn to be dropped by the reload');
  const [row] = await rows(page);
  assert.equal(row.error, '');
  const answered = [...faults.prompts.values()].map((s) => s.answered);
  assert.ok(answered.length > 11, `only ${answered.length} distinct requests`);
  assert.ok(answered.every((n) => n === 1), `a turn was answered twice: ${answered}`);
  await page.click(`tr.llm-row[data-sample="${row.sample}"]`);
  await page.waitForSelector('#llm-detail table.llm-trials');
  assert.equal(await page.$$eval('#llm-detail table.llm-trials tbody tr', (t) => t.length), 30);
  await page.close();
});

// The visual suite (issue 17). No registry ships a vision model small enough for this machine, so the
// model is the checking server: every image part must decode as a PNG of the asked size, and it answers
// each question with the first option of the format it names. The scoring is the people's code.
const VISION_TASKS = 'VSR, CD-Color, VIR, SMU, nback-spatial';

test('the visual suite sends every frame as a PNG, as text on the same trials, and is scored as people are', { timeout: 300_000 }, async () => {
  faults.reset();
  faults.visionSize = 192;
  const page = await open();
  await configure(page, {
    base: faults.base('ok'), model: 'vision-fake', paperSampling: true, concurrency: 2,
    vision: { tasks: VISION_TASKS, render: 'image', size: 192, trials: 1, ns: '1', seed: 5 },
  });
  assert.equal(await page.isChecked('#llm-nback-on'), false, 'the visual suite runs alone');
  await runToEnd(page, 120_000);
  assert.deepEqual(faults.visionProblems, []);
  const imageRows = await rows(page);
  assert.deepEqual(imageRows.map((r) => r.task), ['VSR', 'CD-Color', 'VIR', 'SMU', 'nback-spatial']);
  for (const r of imageRows) assert.equal(r.error, '', `${r.task}: ${r.error}`);
  // one probe image, then at least every frame of every trial (the N-back block alone has 30)
  assert.ok(faults.images > 1 + 30, `${faults.images} images checked`);
  const record = JSON.parse(await download(page, '#llm-export-json'));
  assert.equal(record.task, 'VSR+CD-Color+VIR+SMU+nback-spatial');
  assert.equal(record.config.settings.vision_render, 'image');
  assert.equal(record.config.settings.vision_size_px, 192);
  const vsr = record.trials.find((t) => t.task === 'VSR');
  assert.ok(vsr.responses.every((x) => x === '0'), 'the first option read as option 0');
  assert.ok(record.summaries.some((x) => x.task === 'nback-spatial' && x.metric === 'dprime'));
  // the page draws the run's per-condition curves beside the people's, as for a participant
  await page.waitForSelector('#llm-results #charts canvas[data-drawn="true"]');
  const panels = await page.$$eval('#llm-results #charts canvas', (cs) => cs.map((c) => c.dataset.panel));
  assert.ok(panels.some((p) => p.startsWith('VSR')) && panels.some((p) => p.startsWith('nback-spatial')), JSON.stringify(panels));
  // the same trials as text: no image is sent
  const before = faults.images;
  await configure(page, {
    base: faults.base('ok'), model: 'vision-fake', paperSampling: true, concurrency: 2,
    vision: { tasks: VISION_TASKS, render: 'text', cols: 24, trials: 1, ns: '1', seed: 5 },
  });
  await runToEnd(page, 120_000);
  assert.equal(faults.images, before, 'a text run sends no image');
  const textRecord = JSON.parse(await download(page, '#llm-export-json'));
  assert.equal(textRecord.config.settings.vision_render, 'text');
  assert.deepEqual(textRecord.trials.map((t) => t.targets), record.trials.map((t) => t.targets), 'identical trials');
  // bad settings: a plain message, nothing starts
  await page.fill('#llm-vis-tasks', 'VSR, nback-verbal');
  await page.click('#llm-start');
  await page.waitForSelector('#llm-error');
  assert.match(await page.textContent('#llm-error'), /letters, not pictures/);
  assert.deepEqual(realErrors(page), []);
  await page.close();
});

test('a model that takes no images is stopped by the one-image probe before any trial', { timeout: 120_000 }, async () => {
  faults.reset();
  const page = await open();
  await configure(page, {
    base: faults.base('noimage'), model: 'text-only', paperSampling: true,
    vision: { tasks: 'CD-Color', render: 'image', size: 96, trials: 2 },
  });
  await page.click('#llm-start');
  await page.waitForSelector('#llm[data-run="failed"]');
  assert.match(await page.textContent('#llm-error'), /did not take an image.*image input is not supported.*as text/);
  assert.equal(faults.total, 1, 'only the probe was sent');
  await page.close();
});

test('a reload in the middle of a visual trial replays its saved turns and sends none twice', { timeout: 300_000 }, async () => {
  faults.reset({ gateFree: 9 });
  faults.visionSize = 96;
  const page = await open();
  await configure(page, {
    base: faults.base('gate'), model: 'vision-fake', paperSampling: true, concurrency: 1,
    vision: { tasks: 'nback-spatial', render: 'image', size: 96, trials: 1, ns: '2' },
  });
  await page.click('#llm-start');
  // the probe and eight answered items, then one held
  await until(() => faults.held === 1 && faults.total === 10, 'eight answered items and one held');
  await reloadAndResume(page, 'the held turn to be dropped by the reload');
  const [row] = await rows(page);
  assert.equal(row.error, '');
  assert.deepEqual(faults.visionProblems, []);
  const answered = [...faults.prompts.values()].map((s) => s.answered);
  assert.ok(answered.every((n) => n <= 1), `a turn was answered twice: ${answered}`);
  // the probe once (a resumed run does not probe again), 30 items, the held one sent again
  assert.equal(faults.total, 1 + 30 + 1, `${faults.total} requests`);
  await page.close();
});

test('the key goes to the provider only: not to storage, exports, share link, URL or console', { timeout: 300_000 }, async () => {
  faults.reset();
  const KEY = 'sk-wmlab-test-' + Math.random().toString(36).slice(2) + 'Zq9';
  const page = await open();
  await configure(page, { base: faults.base('ok'), model: 'fake', key: KEY, lrt: { lines: '20', tests: 2 } });
  await page.click('#llm-fetch-models');
  await page.waitForSelector('#llm-fetch-models[data-state="loaded"]');
  await runToEnd(page, 60_000);
  assert.ok(faults.auth.length >= 3 && faults.auth.every((a) => a === `Bearer ${KEY}`), 'the provider did not get the key');
  const storage = () => page.evaluate(() => JSON.stringify(Object.entries(localStorage)));
  assert.ok(!(await storage()).includes(KEY), 'the key is in localStorage');
  for (const sel of ['#llm-export-jsonl', '#llm-export-csv', '#llm-export-json']) {
    assert.ok(!(await download(page, sel)).includes(KEY), `the key is in ${sel}`);
  }
  const link = await page.inputValue('#llm-share-link');
  assert.ok(!link.includes(KEY));
  assert.ok(!(await page.evaluate(() => decodeURIComponent(location.href))).includes(KEY));
  // Remember on this device: stored, restored after a reload, gone after "forget".
  await page.setChecked('#llm-remember', true);
  assert.ok((await storage()).includes(KEY));
  await page.reload();
  await page.waitForSelector('body[data-app-ready="true"]');
  await page.waitForSelector('#llm');
  assert.equal(await page.inputValue('#llm-key'), KEY);
  await page.click('#llm-forget');
  assert.equal(await page.inputValue('#llm-key'), '');
  assert.ok(!(await storage()).includes(KEY));
  assert.ok(!page.consoleAll.some((m) => m.includes(KEY)), 'the key was printed to the console');
  assert.ok(!page.errors.some((m) => m.includes(KEY)));
  await page.close();
});

// A model in the tab (issue 69 item 6): llama.cpp compiled for the browser (npm @wllama/wllama) runs
// SmolLM2-135M-Instruct on the CPU in WebAssembly behind the page's transport (`tab://local/v1`, an
// OpenAI-compatible provider): the runner, scoring and record are the ones every run uses. The build's
// local-llm/ is what `scripts/dev/publish.sh --with-local-model` adds (scripts/dev/local-llm.sh), put
// here beside dist/ in a folder this test serves, so dist/ and the other tests stay as they are.
test('a model in the tab: SmolLM2 runs in llama.cpp for the browser, nothing leaves the page, the record names runtime and file', { timeout: 900_000 }, async (t) => {
  const { execFileSync } = await import('node:child_process');
  const os = await import('node:os');
  const path = await import('node:path');
  const { DIST } = await import('./helpers.mjs');
  const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
  const TAB = 'tab://local/v1';

  // Without local-llm/ the option says the model is not in this build.
  if (!fs.existsSync(path.join(DIST, 'local-llm'))) {
    const bare = await open();
    await bare.selectOption('#llm-preset', 'tab');
    await bare.waitForSelector('#llm-local[data-state="absent"]');
    assert.match(await bare.textContent('#llm-local-build'), /not in this build.*--with-local-model/s);
    assert.equal(await bare.isDisabled('#llm-local-load'), true);
    await bare.close();
  }

  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wmlab-tab-'));
  for (const name of fs.readdirSync(DIST)) fs.symlinkSync(path.join(DIST, name), path.join(root, name));
  execFileSync('bash', [path.join(repo, 'scripts', 'dev', 'local-llm.sh'), root, 'model'], { stdio: 'pipe' });
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'local-llm', 'manifest.json'), 'utf8'));
  assert.ok(manifest.model, 'no SmolLM2 .gguf: install the LLM venv (scripts/dev/setup.sh)');
  const gguf = path.join(root, 'local-llm', manifest.model.file);
  const sha256 = execFileSync('sha256sum', [gguf]).toString().split(' ')[0];
  const version = JSON.parse(fs.readFileSync(path.join(repo, 'tests', 'e2e', 'node_modules', '@wllama', 'wllama', 'package.json'), 'utf8')).version;
  const tab = await serve(root);
  faults.reset();
  const requests = [];
  const onRequest = (r) => requests.push(r.url());
  browser.context.on('request', onRequest);
  try {
    const page = await open(tab.url + '#/llm');
    await page.selectOption('#llm-preset', 'tab');
    assert.equal(await page.inputValue('#llm-base-url'), TAB);
    await page.waitForSelector('#llm-local[data-state="ready"]');
    // Labelled for what it is.
    assert.match(await page.textContent('#llm-local'), /a demonstration, not a measurement.*near chance on most suites/s);
    assert.match(await page.textContent('#llm-local-build'), new RegExp(`wllama ${version}.*SmolLM2-135M-Instruct`, 's'));
    assert.equal(await page.inputValue('#llm-concurrency'), '1');
    // Nothing loaded yet: Start says so.
    await page.click('#llm-start');
    await page.waitForFunction(() => /load a model first/.test(document.querySelector('#llm-error')?.textContent || ''));

    // The CPU (WebAssembly): SwiftShader's adapter has no shader-f16, which llama.cpp's WebGPU backend wants.
    await page.selectOption('#llm-local-backend', 'cpu');
    const t0 = Date.now();
    await page.click('#llm-local-load');
    await page.waitForSelector('#llm-local[data-state="loaded"], #llm-local[data-state="failed"]', { timeout: 300_000 });
    const failed = await page.$('#llm-local-error');
    assert.equal(failed, null, failed ? await failed.textContent() : '');
    t.diagnostic(`SmolLM2 downloaded, hashed and loaded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const info = await page.$eval('#llm-local-info', (e) => ({ ...e.dataset }));
    assert.equal(info.sha256, sha256);
    assert.equal(info.runtime, `wllama ${version}`);
    assert.equal(info.model, manifest.model.name);
    assert.match(info.backend, /^CPU \(WebAssembly, 1 thread\)$/);
    assert.equal(await page.inputValue('#llm-model'), manifest.model.name);
    // The provider's model list is the loaded model.
    await page.click('#llm-fetch-models');
    await page.waitForSelector('#llm-fetch-models[data-state="loaded"]');
    assert.deepEqual(await page.$$eval('#llm-models option', (os) => os.map((o) => o.value)), [manifest.model.name]);

    // One N-back block (letters, N = 1), replies capped at 8 tokens.
    await configure(page, {
      base: TAB, model: manifest.model.name, maxTokens: 8, concurrency: 1, cache: false, timeout: 300,
      nback: { variant: 'letters_30', ns: '1', protocol: 'readme', blocks: 1 },
    });
    const ms = await runToEnd(page, 900_000);
    const p = await progress(page);
    const tokensOut = Number(await page.textContent('#llm-tokens-out'));
    const rs = await rows(page);
    t.diagnostic(`in the tab, one N-back block: ${p.requests} requests, ${tokensOut} tokens out in ${(ms / 1000).toFixed(1)} s; ` +
      `score ${rs[0]?.score || rs[0]?.error}`);
    assert.equal(p.done, 1);
    assert.equal(rs.length, 1);
    for (const r of rs) {
      if (r.error) assert.notEqual(r.error, 'network', `${r.sample}: network error`);
      else assert.ok(Number.isFinite(Number(r.score)) && r.score !== '', `${r.sample}: score "${r.score}"`);
    }
    assert.ok(p.requests >= 24, `${p.requests} requests`);
    assert.ok(tokensOut > 0, 'no usage tokens');
    const record = JSON.parse(await download(page, '#llm-export-json'));
    const s = record.config.settings;
    assert.equal(s.provider, 'openai');
    assert.equal(s.base_url, TAB);
    assert.equal(s.local_runtime, `wllama ${version}`);
    assert.equal(s.local_model_sha256, sha256);
    assert.equal(s.local_model_file, manifest.model.file);
    assert.match(s.local_backend, /^CPU/);

    // A .gguf from disk: the same file, loaded under its own name, the same SHA-256.
    await page.setInputFiles('#llm-local-file', gguf);
    await page.waitForSelector('#llm-local[data-state="loaded"] #llm-local-info[data-model="SmolLM2-135M-Instruct.Q4_1"]', { timeout: 300_000 });
    assert.equal(await page.getAttribute('#llm-local-info', 'data-sha256'), sha256);
    assert.equal(await page.inputValue('#llm-model'), 'SmolLM2-135M-Instruct.Q4_1');

    // Nothing left the page: every request went to the page's own server, none to a model server.
    const origin = new URL(tab.url).origin;
    const away = requests.filter((u) => !u.startsWith(origin) && !/^(data|blob):/.test(u));
    assert.deepEqual(away, []);
    assert.equal(faults.total, 0, 'the fault server was contacted');
    assert.deepEqual(realErrors(page), []);
    await page.close();
  } finally {
    browser.context.off('request', onRequest);
    await tab.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

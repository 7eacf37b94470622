// Compare: three real results made in the browser — a scripted participant (VSR and verbal N-back, real
// clicks), an LLM run against the local model (WMLAB_LLM_URL, started by scripts/dev/llm-server.sh) and a
// small network trained and evaluated on the Networks page (CPU backend) — each land in this browser's
// results history; the comparison page draws them on one task with the human curves and the chance
// model, scores them with Table A3's A and B, and its share link opens the same comparison in a fresh
// browser; a garbled link or file shows an error and the page stays usable.
//
// Which tasks the three share: the text suites (N-back, LRT, Minerva) never take a WorM task, so the text
// LLM cannot be on the VSR plot (its run here is one 30-trial 1-back block: the small local model
// answers about one trial a second on this machine). The check is therefore in parts on the same results:
// person + network on VSR (human curves, chance model, A/B rows for both and for chance; the LLM listed as
// "not drawn"), then person + LLM on verbal N-back (the LLM's letter blocks are read as the people's
// verbal N-back by the core; published GPT-3.5/GPT-4 numbers and the chance model drawn; no A/B, as the
// WorM paper has no human N-back numbers — the page says so); then a third part: a vision-language
// model's VSR run (the visual suite against the checking fault server) on the VSR plot with the person,
// the network, the human curves and the chance model, with its Table A3 rows.
//
// Test-only switches as in people.test.mjs (localStorage wmlab_fast / wmlab_test before the app loads).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { appUnderTest, launch, openPage } from './helpers.mjs';
import { participantPage as openParticipant, takeStudy } from './participant.mjs';
import { startFaultServer } from './fault-server.mjs';

const LLM_URL = process.env.WMLAB_LLM_URL;
const LONG = { timeout: 600_000 };

const app = appUnderTest();

// ---- a scripted participant (as people.test.mjs) ----

/** The history save of this page has finished (main[data-history] counts finished saves). */
async function saved(page) {
  try {
    await page.waitForFunction(() => Number(document.querySelector('#page')?.dataset.history) >= 1, null, { timeout: 90_000 });
  } catch (e) {
    const state = await page.evaluate(async () => ({
      history: document.querySelector('#page')?.dataset.history,
      ops: window.__wmlab_idb,
      url: location.href,
      // Whether this page can open the database at all now (a stuck open means another page holds it).
      idb: await new Promise((res) => {
        const q = indexedDB.open('wmlab', 1);
        q.onsuccess = () => {
          const db = q.result;
          const k = db.transaction('kv', 'readonly').objectStore('kv').getAllKeys();
          k.onsuccess = () => { db.close(); res('opens; keys: ' + k.result.join(' ')); };
          k.onerror = () => { db.close(); res('opens; keys: ' + k.error); };
        };
        q.onerror = () => res('error: ' + q.error);
        q.onblocked = () => res('blocked');
        setTimeout(() => res('no answer in 5 s'), 5000);
      }),
    })).catch((x) => String(x));
    const others = [];
    for (const o of page.context().pages()) {
      if (o !== page) others.push(await o.evaluate(() => ({ url: location.href, ops: window.__wmlab_idb })).catch((x) => String(x)));
    }
    throw new Error(`other pages: ${JSON.stringify(others)}; the history save did not finish: ${JSON.stringify(state)}; console: ${JSON.stringify(page.log ?? page.errors)}; network page's storage operations: ${JSON.stringify(networkOps)}`, { cause: e });
  }
}

// ---- the three subjects ----

async function participant() {
  const t0 = Date.now();
  const page = await openParticipant(app, '#/take?tasks=VSR,nback-verbal&tpc=1&practice=0&n=1,2&nbb=1&seed=11&pid=cmp-1');
  // Right on two of three VSR trials and on three of four N-back stimuli.
  const end = await takeStudy(page, (g, step) => g % 3 !== 1 && step % 4 !== 3);
  assert.equal(end, 'done');
  await saved(page);
  assert.deepEqual(page.errors, []);
  await page.close();
  return Date.now() - t0;
}

async function llmRun() {
  assert.ok(LLM_URL, 'WMLAB_LLM_URL is not set: start the local model server with ./scripts/dev/llm-server.sh and export WMLAB_LLM_URL=http://127.0.0.1:18080/v1 (scripts/dev/test.sh does both)');
  const t0 = Date.now();
  const page = await openPage(app.browser.context, app.server.url + '#/llm');
  await page.waitForSelector('#llm');
  await page.selectOption('#llm-kind', 'openai');
  await page.fill('#llm-base-url', LLM_URL);
  await page.fill('#llm-model', 'smollm2');
  await page.fill('#llm-key', '');
  await page.fill('#llm-max-tokens', '2'); // the answer is one token, m or -
  await page.fill('#llm-concurrency', '2');
  await page.fill('#llm-timeout', '120');
  await page.fill('#llm-retries', '4');
  await page.fill('#llm-backoff', '500');
  await page.setChecked('#llm-use-cache', false);
  await page.fill('#llm-slice', '0');
  for (const s of ['nback', 'lrt', 'snap', 'gen']) await page.setChecked(`#llm-${s}-on`, s === 'nback');
  await page.selectOption('#llm-nback-variant', 'letters_30');
  await page.fill('#llm-nback-ns', '1');
  await page.selectOption('#llm-nback-protocol', 'readme');
  await page.fill('#llm-nback-blocks', '1');
  await page.click('#llm-start');
  await page.waitForSelector('#llm:is([data-run="done"], [data-run="failed"])', LONG);
  assert.equal(await page.getAttribute('#llm', 'data-run'), 'done', await page.textContent('#llm-error').catch(() => ''));
  const rows = await page.$$eval('#llm-log tbody tr.llm-row', (trs) => trs.map((tr) => ({ task: tr.dataset.task, error: tr.dataset.error })));
  assert.equal(rows.length, 1);
  for (const r of rows) assert.equal(r.error, '', `${r.task} failed: ${r.error}`);
  await saved(page);
  await page.close();
  return Date.now() - t0;
}

let networkOps = null;
async function network() {
  const t0 = Date.now();
  const page = await openPage(app.browser.context, app.server.url + '#/networks');
  await page.waitForSelector('#networks[data-phase="ready"]', LONG);
  await page.selectOption('#nn-backend-pick', 'cpu');
  await page.waitForFunction(() => /CPU/.test(document.querySelector('#nn-backend').textContent), null, LONG);
  await page.selectOption('#nn-arch', 'gru');
  await page.fill('#nn-capacity', '16');
  await page.dispatchEvent('#nn-capacity', 'change');
  await page.waitForFunction(() => document.querySelector('#nn-config-json').value.includes('"capacity": 16'), null, LONG);
  for (const [id, v] of [['#nn-steps', 2], ['#nn-per-task', 1], ['#nn-val-every', 2], ['#nn-val-n', 2]]) {
    await page.fill(id, String(v));
    await page.dispatchEvent(id, 'change');
  }
  const cfg = JSON.parse(await page.inputValue('#nn-config-json'));
  assert.deepEqual([cfg.steps, cfg.val_every, cfg.model.capacity], [2, 2, 16], 'the settings of a 2-step GRU-16 run');
  await page.click('#nn-train');
  await page.waitForSelector('#networks[data-phase="done"]', LONG);
  await page.fill('#nn-eval-n', '2');
  await page.click('#nn-evaluate');
  await page.waitForSelector('#nn-eval #charts canvas[data-drawn="true"]', LONG);
  // Opening the record in Results saves it in the history too (the Networks page may save it itself).
  await page.click('#nn-open-results');
  await page.waitForSelector('#results[data-state="shown"]', LONG);
  assert.match(await page.textContent('#subject'), /GRU-16/);
  await saved(page);
  networkOps = await page.evaluate(() => window.__wmlab_idb);
  await page.close();
  return Date.now() - t0;
}

// ---- the comparison page ----

/** Every comparison chart once drawn: [{panel, who, series, subjects}]. */
async function charts(page) {
  await page.waitForFunction(() => {
    const cs = [...document.querySelectorAll('#cmp-plots canvas.cmp-plot')];
    return cs.length > 0 && cs.every((c) => c.dataset.drawn === 'true');
  }, null, { timeout: 30_000 });
  return page.$$eval('#cmp-plots canvas.cmp-plot', (cs) => cs.map((c) => ({
    panel: c.dataset.panel, who: c.dataset.who.split(' '), series: Number(c.dataset.series), subjects: c.dataset.subjects,
  })));
}

/** With WMLAB_SHOTS=<folder>: a screenshot of `selector` at desktop width (for the docs and notes). */
async function shot(page, selector, name) {
  if (!process.env.WMLAB_SHOTS) return;
  await page.setViewportSize({ width: 1366, height: 800 });
  await page.locator(selector).first().screenshot({ path: path.join(process.env.WMLAB_SHOTS, name) });
}

/** A download's bytes. */
async function download(page, selector) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return { name: dl.suggestedFilename(), bytes: fs.readFileSync(await dl.path()) };
}

/**
 * The default layout on VSR: a summary (accuracy per list length, pooled over positions) and one plot per
 * list length, the person (s0) and the network (s1) on each with error bars, the network's 2-trial points
 * faint; the Table A3 rows show their n; each figure downloads as a 7-inch SVG and a 300 dpi PNG.
 */
async function smallMultiples(page) {
  await page.waitForFunction(() => {
    const cs = [...document.querySelectorAll('#cmp-plots .cmp-panel canvas')];
    return cs.length > 1 && cs.every((c) => c.dataset.drawn === 'true');
  }, null, { timeout: 30_000 });
  assert.equal(await page.inputValue('#cmp-layout'), 'levels');
  const levels = await page.$$eval('#cmp-plots canvas.cmp-level', (cs) => cs.map((c) => ({
    level: c.dataset.level, who: c.dataset.who.split(' '), bars: Number(c.dataset.bars), thin: Number(c.dataset.thin),
  })));
  assert.ok(levels.length >= 2, JSON.stringify(levels));
  assert.ok(levels.every((l) => /^list_length=\d+$/.test(l.level)), JSON.stringify(levels));
  const numbers = levels.map((l) => Number(l.level.split('=')[1]));
  assert.deepEqual(numbers, [...numbers].sort((a, b) => a - b), 'levels in order');
  const both = levels.filter((l) => l.who.includes('s0') || l.who.includes('s1'));
  assert.ok(both.length >= 1 && both.every((l) => l.bars > 0), `subjects' points have intervals: ${JSON.stringify(levels)}`);
  assert.ok(levels.some((l) => l.thin > 0), 'the network evaluated on 2 trials a task: faint points');
  const sum = await page.$eval('#cmp-sum-0', (c) => ({ drawn: c.dataset.drawn, bars: Number(c.dataset.bars), panel: c.dataset.panel }));
  assert.deepEqual([sum.drawn, sum.panel], ['true', 'VSR']);
  assert.ok(sum.bars >= 2, 'the summary has intervals');
  // n beside every A and B, flagged where the points are thin.
  const ns = await page.$$eval('#cmp-scores tr.cmp-score-row', (trs) => trs.map((tr) => [tr.dataset.who, tr.querySelector('td.a3-n')?.textContent]));
  for (const [w, n] of ns) {
    if (w === 'chance') assert.equal(n, '—');
    else assert.match(n, /^\d+( ⚠)?$/, `${w}: ${n}`);
  }
  assert.ok(ns.some(([w, n]) => w === 's1' && n.endsWith('⚠')), 'the network on 2 trials is flagged');
  // Print-size downloads of the summary: SVG 700 × 420 with the faint-point key, PNG 2100 × 1260.
  const svg = await download(page, '#cmp-sum-0-svg');
  assert.equal(svg.name, 'wmlab-vsr-accuracy-by-list-length.svg');
  const text = svg.bytes.toString('utf8');
  assert.ok(text.startsWith('<svg ') && text.includes('width="700" height="420"'), text.slice(0, 200));
  assert.ok(text.includes('people (WorM)') && /<g class="series" data-name="[^"]*· n \d/.test(text), 'series named with their n');
  const png = await download(page, '#cmp-sum-0-png');
  assert.equal(png.name, 'wmlab-vsr-accuracy-by-list-length.png');
  assert.equal(png.bytes.subarray(1, 4).toString('latin1'), 'PNG');
  assert.deepEqual([png.bytes.readUInt32BE(16), png.bytes.readUInt32BE(20)], [2100, 1260]);
}

const scoreRows = (page) => page.$$eval('#cmp-scores tr.cmp-score-row', (trs) => trs.map((tr) => ({
  id: tr.id, who: tr.dataset.who, effect: tr.dataset.effect, a: tr.dataset.a, b: tr.dataset.b,
})));

const chosenRows = (page) => page.$$eval('#cmp-chosen tr.cmp-chosen-row', (trs) => trs.map((tr) => ({
  who: tr.dataset.who, id: tr.dataset.id, text: tr.textContent,
})));

test('a person, an LLM and a network made here are compared on one page and by link', LONG, async (t) => {
  const t0 = Date.now();
  // The LLM and the network run in their own tabs while the participant takes the study.
  // Every 60 s until the three are made, what each page did last with its storage (window.__wmlab_idb):
  // written to stderr, for the case where one of them stalls.
  const watch = setInterval(async () => {
    for (const o of app.browser.context.pages()) {
      const v = await o.evaluate(() => ({ url: location.hash, ops: (window.__wmlab_idb || []).slice(-12) })).catch((x) => String(x));
      console.error(`[compare] ${((Date.now() - t0) / 1000).toFixed(0)} s: ${JSON.stringify(v)}`);
    }
  }, 60_000);
  const [msLlm, msNet, msPerson] = await Promise.all([llmRun(), network(), participant()]).finally(() => clearInterval(watch));
  t.diagnostic(`made the three results in ${((Date.now() - t0) / 1000).toFixed(1)} s (LLM ${(msLlm / 1000).toFixed(1)} s, network ${(msNet / 1000).toFixed(1)} s, participant ${(msPerson / 1000).toFixed(1)} s)`);

  // Each landed in the history (Results lists it).
  const page = await openPage(app.browser.context, app.server.url + '#/results');
  await page.waitForSelector('#history[data-count="3"]', { timeout: 30_000 });
  const kinds = await page.$$eval('#history tr.history-row', (trs) => trs.map((tr) => tr.dataset.kind).sort());
  assert.deepEqual(kinds, ['llm', 'network', 'person']);

  // Compare: pick the three from the history.
  await page.click('#to-compare');
  await page.waitForSelector('#cmp-history[data-count="3"]');
  const byKind = Object.fromEntries(await page.$$eval('#cmp-history li.cmp-history-item', (lis) => lis.map((li) => [li.dataset.kind, li.dataset.id])));
  for (const kind of ['person', 'network', 'llm']) {
    await page.check(`#cmp-pick-${byKind[kind]}`);
    await page.waitForSelector(`#cmp-chosen tr.cmp-chosen-row[data-id="${byKind[kind]}"]`);
  }
  await page.waitForSelector('#compare[data-chosen="3"][data-state="ready"]');
  const chosen = await chosenRows(page);
  const who = Object.fromEntries(Object.entries(byKind).map(([k, id]) => [k, chosen.find((c) => c.id === id).who]));
  assert.deepEqual(who, { person: 's0', network: 's1', llm: 's2' });

  // Part 1: VSR — the person and the network with the human curves and the chance model.
  await page.selectOption('#cmp-task', 'VSR');
  await page.check('#cmp-chance');
  await page.waitForSelector('#compare[data-task="VSR"]');
  await smallMultiples(page);
  // The one-plot layout: every list length on one plot, told apart by marker shape.
  await page.selectOption('#cmp-layout', 'together');
  let cs = await charts(page);
  assert.deepEqual(cs.map((c) => c.panel), ['VSR']);
  assert.deepEqual(cs[0].who, ['s0', 's1', 'human', 'chance', 'memoryless']);
  assert.equal(cs[0].series, 5, 'two subjects + people + chance + memoryless (1/L per list length)');
  assert.match(await page.textContent('#cmp-missing'), /smollm2/, 'the LLM is listed as not drawn on VSR');
  // WorM Fig. A4: the network's training curve (its check at step 2), whatever the task.
  await page.waitForSelector('#cmp-training[data-drawn="true"]');
  assert.equal(await page.getAttribute('#cmp-training', 'data-subjects'), '1');
  let rows = await scoreRows(page);
  for (const w of ['s0', 's1', 'chance']) {
    assert.deepEqual(rows.filter((r) => r.who === w).map((r) => r.effect), ['primacy', 'recency', 'list_length'], `A/B rows of ${w}`);
  }
  assert.ok(!rows.some((r) => r.who === 's2'), 'no A/B rows for the LLM on VSR');
  // The chance model's slopes are flat: A = 1; the person's B is a number.
  assert.equal(Number(rows.find((r) => r.id === 'cmp-score-chance-primacy').a), 1);
  assert.ok(Number.isFinite(Number(rows.find((r) => r.id === 'cmp-score-s0-list_length').b)));
  assert.match(await page.textContent('#cmp-scores-explained'), /A = \|\(M_A − H_A\) \/ H_A\|/);

  // One plot per run (WorM Figs. A2, A7–A12): the network first (the paper's grid order), then the
  // person, each alone beside the people and the chance model; the comparison link keeps the layout.
  await page.selectOption('#cmp-layout', 'per-run');
  await page.waitForFunction(() => {
    const cs = [...document.querySelectorAll('#cmp-runs canvas.cmp-plot')];
    return cs.length === 2 && cs.every((c) => c.dataset.drawn === 'true');
  }, null, { timeout: 30_000 });
  const perRun = () => page.$$eval('#cmp-runs .cmp-run', (ds) => ds.map((d) => ({
    subject: d.dataset.subject, title: d.querySelector('.cmp-run-title').textContent,
    who: [...d.querySelectorAll('canvas.cmp-plot')].map((c) => c.dataset.who),
  })));
  const runs = await perRun();
  assert.deepEqual(runs.map((r) => [r.subject, r.who]), [['1', ['s1 human chance memoryless']], ['0', ['s0 human chance memoryless']]]);
  assert.match(runs[0].title, /^GRU-16 · .*\(network\)$/);
  assert.match(runs[1].title, /participant cmp-1 \(person\)/);
  const perRunLink = await page.inputValue('#cmp-share-link');
  await page.selectOption('#cmp-layout', 'together');
  await page.waitForSelector('#cmp-plots canvas.cmp-plot');
  assert.equal(await page.$('#cmp-runs'), null);

  // The comparison link, opened in a fresh browser (empty history), shows the same comparison.
  const link = await page.inputValue('#cmp-share-link');
  assert.notEqual(link, perRunLink, 'the layout travels in the link');
  assert.match(link, /#c=1\.[A-Za-z0-9_-]+$/);
  assert.equal(await page.getAttribute('#cmp-share-note', 'data-full'), 'true');
  const vsrRows = rows;
  const fresh = await launch();
  try {
    const other = await openPage(fresh.context, link);
    await other.waitForSelector('#compare[data-chosen="3"][data-task="VSR"]');
    assert.deepEqual(await charts(other), cs, 'the same plots');
    assert.deepEqual(await scoreRows(other), vsrRows, 'the same scores');
    assert.equal(await other.isChecked('#cmp-chance'), true);
    await other.waitForSelector('#cmp-training[data-drawn="true"]', { timeout: 30_000 });

    // A garbled comparison link: a plain error, and the page stays usable.
    await other.goto(app.server.url + 'index.html#c=1.AAAA!!not-a-link');
    await other.waitForSelector('#cmp-error');
    assert.match(await other.textContent('#cmp-error'), /comparison link could not be opened.*damaged/);
    await other.fill('#cmp-link', link);
    await other.click('#cmp-add-link');
    await other.waitForSelector('#compare[data-chosen="3"][data-state="ready"]');
    assert.equal(await other.$('#cmp-error'), null);
    assert.deepEqual((await charts(other)).map((c) => c.series), [5], "two subjects, people, chance, memoryless");
    // A garbled result link and a file that is not a result: errors, nothing chosen is lost.
    await other.fill('#cmp-link', app.server.url + '#r=1.zzzz');
    await other.click('#cmp-add-link');
    await other.waitForSelector('#cmp-error');
    await other.setInputFiles('#cmp-file', { name: 'notes.json', mimeType: 'application/json', buffer: Buffer.from('{"hello": 1}') });
    await other.waitForFunction(() => /notes\.json.*not a WM Lab result/.test(document.querySelector('#cmp-error')?.textContent || ''));
    assert.equal(await other.getAttribute('#compare', 'data-chosen'), '3');
    assert.deepEqual((await charts(other)).map((c) => c.series), [5]);
    // The per-run link opens in the per-run layout.
    await other.goto('about:blank');
    await other.goto(perRunLink);
    await other.waitForSelector('#cmp-runs[data-runs="2"]', { timeout: 30_000 });
    assert.equal(await other.inputValue('#cmp-layout'), 'per-run');
    assert.deepEqual(other.errors, []);
  } finally {
    await fresh.close();
  }

  // Part 2: verbal N-back — the person and the LLM (the network never takes N-back).
  await page.selectOption('#cmp-task', 'nback-verbal');
  await page.waitForSelector('#compare[data-task="nback-verbal"]');
  await page.waitForFunction(() => document.querySelector('#cmp-plots canvas.cmp-plot')?.dataset.panel?.startsWith('nback-verbal'));
  cs = await charts(page);
  assert.deepEqual(cs.map((c) => c.panel), ['nback-verbal accuracy', 'nback-verbal hit_rate', 'nback-verbal false_alarm_rate', 'nback-verbal dprime']);
  for (const c of cs) {
    assert.deepEqual(c.who, ['s0', 's2', 'pub-gpt-3-5-turbo', 'pub-gpt-4', 'chance'], c.panel);
    assert.equal(c.series, 5);
  }
  assert.match(await page.textContent('#cmp-missing'), /GRU-16/);
  assert.match(await page.textContent('#cmp-scores-none'), /no A\/B scores/);
  assert.equal(await page.$('#cmp-scores'), null);
  // Published numbers and the chance model can be switched off.
  await page.uncheck('#cmp-published');
  await page.uncheck('#cmp-chance');
  await page.waitForFunction(() => document.querySelector('#cmp-plots canvas.cmp-plot')?.dataset.who === 's0 s2');
  cs = await charts(page);
  assert.ok(cs.every((c) => c.series === 2));

  // The history in Results: open a saved result, delete another (the comparison keeps its copy).
  await page.click('#nav-results');
  await page.click(`#history tr.history-row[data-id="${byKind.person}"] .history-open`);
  await page.waitForSelector('#results[data-state="shown"]');
  assert.match(await page.textContent('#subject'), /participant cmp-1/);
  await page.click(`#history tr.history-row[data-id="${byKind.llm}"] .history-delete`);
  await page.waitForSelector('#history[data-count="2"]');
  await page.click('#nav-compare');
  await page.waitForSelector('#compare[data-chosen="3"] #cmp-history[data-count="2"]');

  // Part 3: a vision-language model on VSR (issue 17) beside the person and the network. No registry
  // ships a vision model small enough for this machine, so the model is the checking fault server (every
  // frame must arrive as a decodable PNG of the asked size; it answers the first option).
  const vlm = await startFaultServer({ visionSize: 384 });
  try {
    const lp = await openPage(app.browser.context, app.server.url + '#/llm');
    await lp.waitForSelector('#llm');
    await lp.selectOption('#llm-kind', 'openai');
    await lp.fill('#llm-base-url', vlm.base('ok'));
    await lp.fill('#llm-model', 'vision-fake');
    await lp.setChecked('#llm-paper-sampling', true);
    await lp.setChecked('#llm-use-cache', false);
    await lp.fill('#llm-slice', '0');
    await lp.setChecked('#llm-vis-on', true);
    await lp.fill('#llm-vis-tasks', 'VSR');
    await lp.selectOption('#llm-vis-render', 'image');
    await lp.fill('#llm-vis-size', '384');
    await lp.fill('#llm-vis-trials', '8'); // one trial per list length, as the person's
    await lp.fill('#llm-vis-seed', '11');
    await lp.click('#llm-start');
    await lp.waitForSelector('#llm:is([data-run="done"], [data-run="failed"])', LONG);
    assert.equal(await lp.getAttribute('#llm', 'data-run'), 'done', await lp.textContent('#llm-error').catch(() => ''));
    assert.deepEqual(vlm.visionProblems, []);
    assert.ok(vlm.images > 8);
    await saved(lp);
    await lp.close();
  } finally {
    await vlm.close();
  }
  await page.click('#nav-results');
  await page.click('#nav-compare');
  await page.waitForSelector('#compare[data-chosen="3"] #cmp-history[data-count="3"]');
  const vis = await page.$eval('#cmp-history li.cmp-history-item[data-kind="llm"]', (li) => li.dataset.id);
  await page.check(`#cmp-pick-${vis}`);
  await page.waitForSelector(`#cmp-chosen tr.cmp-chosen-row[data-id="${vis}"]`);
  await page.selectOption('#cmp-task', 'VSR');
  await page.waitForSelector('#compare[data-task="VSR"]');
  await page.check('#cmp-chance');
  const visWho = (await chosenRows(page)).find((c) => c.id === vis).who;
  await page.waitForFunction((w) => (document.querySelector('#cmp-plots canvas.cmp-plot')?.dataset.who || '').split(' ').includes(w), visWho);
  cs = await charts(page);
  assert.deepEqual(cs.map((c) => c.panel), ['VSR']);
  for (const w of [who.person, who.network, visWho, 'human', 'chance']) assert.ok(cs[0].who.includes(w), `${w} on the VSR plot: ${cs[0].who}`);
  assert.doesNotMatch(await page.textContent('#cmp-missing').catch(() => ''), /vision-fake/);
  rows = await scoreRows(page);
  assert.deepEqual(rows.filter((r) => r.who === visWho).map((r) => r.effect), ['primacy', 'recency', 'list_length'], 'Table A3 rows for the model');
  if (process.env.WMLAB_SHOTS) {
    // The three on VSR as small multiples, then their records and the person's Results.
    await page.selectOption('#cmp-layout', 'levels');
    await page.waitForFunction(() => {
      const cs = [...document.querySelectorAll('#cmp-plots .cmp-panel canvas')];
      return cs.length > 1 && cs.every((c) => c.dataset.drawn === 'true');
    });
    await shot(page, '#cmp-plots', 'compare-vsr.png');
    await page.click('#nav-results');
    await page.waitForSelector('#history[data-count="3"]');
    const records = path.join(process.env.WMLAB_SHOTS, 'records');
    fs.mkdirSync(records, { recursive: true });
    for (const kind of ['network', 'llm', 'person']) {
      await page.click(`#history tr.history-row[data-kind="${kind}"] button.history-open`);
      await page.waitForFunction((k) => document.querySelector('#subject')?.textContent.includes(`(${k})`), kind);
      const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#download-json')]);
      await dl.saveAs(path.join(records, `${kind}.json`));
    }
    await page.waitForSelector('#results[data-state="shown"] #charts canvas[data-drawn="true"]');
    await shot(page, '#record', 'results-person.png');
  }
  assert.deepEqual(page.errors, []);
  await page.close();
});

// PI-LLM (issue 69): a person's key–value-updates session taken here and an LLM's PI-LLM record (rows as
// the LLM suite writes them: one reply per stream, its score in score_last_values) on one panel —
// accuracy on log10 of the updates per key — beside the authors' published models. A browser of its
// own, so the history above is untouched.
test('a person and an LLM on one PI-LLM panel', LONG, async () => {
  const fresh = await launch();
  try {
    const mine = { browser: fresh, server: app.server };
    const take = await openParticipant(mine, '#/take?tasks=pi-llm&tpc=1&practice=0&seed=6&pid=cmp-pi');
    // Keys right on the even streams, wrong on the odd ones.
    assert.equal(await takeStudy(take, (g) => g % 2 === 0), 'done');
    await saved(take);
    const [dj] = await Promise.all([take.waitForEvent('download'), take.click('#download-json')]);
    const person = JSON.parse(fs.readFileSync(await dj.path(), 'utf8'));
    assert.deepEqual(take.errors, []);
    await take.close();
    // An LLM's record: 46 keys, 2 to 400 updates per key.
    const row = (i, u, score) => ({
      task: 'pi-llm', trial: i, conditions: { other: { updates: String(u), keys: '46', value_len: '1' } },
      targets: ['bird: kea\n'], responses: ['The current value of bird is kea.'], correct: [score >= 1], rt_ms: [900],
      extra: { score_last_values: score, sample_id: `pi-llm/k46-u${u}/${i}` },
    });
    const llm = {
      ...person, subject: { kind: 'llm', provider: 'openai', model: 'pi-model' }, task: 'pi-llm', summaries: [],
      trials: [row(0, 2, 1), row(1, 2, 0.9), row(2, 24, 0.6), row(3, 400, 0.2)],
    };
    const page = await openPage(fresh.context, app.server.url + '#/compare');
    await page.waitForSelector('#cmp-history[data-count="1"]');
    const id = await page.$eval('#cmp-history li.cmp-history-item[data-kind="person"]', (li) => li.dataset.id);
    await page.check(`#cmp-pick-${id}`);
    await page.waitForSelector('#compare[data-chosen="1"]');
    await page.setInputFiles('#cmp-file', { name: 'pi-model.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(llm)) });
    await page.waitForSelector('#compare[data-chosen="2"][data-state="ready"]');
    await page.selectOption('#cmp-task', 'pi-llm');
    await page.waitForSelector('#compare[data-task="pi-llm"]');
    // Small multiples: PI-LLM has one level, so one plot with both subjects and the published models.
    await page.waitForFunction(() => document.querySelector('#cmp-level-0-0')?.dataset.drawn === 'true');
    const level = await page.$eval('#cmp-level-0-0', (c) => ({ panel: c.dataset.panel, who: c.dataset.who.split(' ') }));
    assert.equal(level.panel, 'pi-llm');
    for (const w of ['s0', 's1', 'pub-gpt-4-1', 'pub-qwen3-0-6b']) assert.ok(level.who.includes(w), `${w} on the plot: ${level.who}`);
    assert.equal(await page.$$eval('#cmp-plots canvas.cmp-level', (c) => c.length), 1);
    // The one-plot layout: the same six series (no chance model: a typed word has no guessing rate).
    await page.selectOption('#cmp-layout', 'together');
    await page.check('#cmp-chance');
    const cs = await charts(page);
    assert.deepEqual(cs.map((c) => c.panel), ['pi-llm']);
    assert.deepEqual(cs[0].who, ['s0', 's1', 'pub-gpt-4-1', 'pub-claude-3-5-sonnet', 'pub-gemini-2-0-flash', 'pub-qwen3-0-6b']);
    assert.equal(cs[0].series, 6);
    assert.equal(await page.$('#cmp-missing'), null, 'both drawn');
    // The published models can be switched off: the person and the model alone.
    await page.uncheck('#cmp-published');
    await page.waitForFunction(() => document.querySelector('#cmp-plots canvas.cmp-plot')?.dataset.who === 's0 s1');
    assert.deepEqual(page.errors, []);
    await page.close();
  } finally {
    await fresh.close();
  }
});

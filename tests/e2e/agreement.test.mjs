// Item by item (issue 48): two scripted participants take one VSR study link (the same seed, so the
// same trials), the shipped VSR network is evaluated on the first one's very trials from the Networks
// page ("Evaluate on these trials", CPU backend), and Compare shows the κ matrix of the three with the
// people's noise ceiling, and its CSV.
//
// Test-only switches as in people.test.mjs (localStorage wmlab_fast / wmlab_test before the app loads).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { appUnderTest, openPage } from './helpers.mjs';
import { participantPage, takeStudy } from './participant.mjs';

const LONG = { timeout: 600_000 };
const app = appUnderTest();

/** The page's history saves have finished (`#page[data-history]` counts them). */
async function saved(page, n = 1) {
  await page.waitForFunction((k) => Number(document.querySelector('#page')?.dataset.history) >= k, n, { timeout: 90_000 });
}

async function person(pid, right) {
  const page = await participantPage(app, `#/take?tasks=VSR&tpc=1&practice=0&seed=21&pid=${pid}`);
  assert.equal(await takeStudy(page, right), 'done');
  await saved(page);
  assert.deepEqual(page.errors, []);
  await page.close();
}

test('a person and a network on the same trials give a κ matrix on Compare', LONG, async () => {
  // Person a is wrong on every third trial, person b on every second answer.
  await person('kappa-a', (g) => g % 3 !== 1);
  await person('kappa-b', (_g, step) => step % 2 === 0);

  const page = await openPage(app.browser.context, app.server.url + '#/networks');
  await page.waitForSelector('#networks[data-phase="ready"]', LONG);
  await page.selectOption('#nn-backend-pick', 'cpu');
  await page.waitForFunction(() => /CPU/.test(document.querySelector('#nn-backend').textContent), null, LONG);
  const index = JSON.parse(fs.readFileSync(path.join(process.env.WMLAB_DIST, 'models', 'index.json'), 'utf8'));
  const vsr = index.findIndex((c) => c.tasks.length === 1 && c.tasks[0] === 'VSR');
  assert.ok(vsr >= 0, 'a VSR model is shipped');
  await page.waitForSelector('#nn-pretrained', LONG);
  await page.selectOption('#nn-pretrained', String(vsr));
  await page.click('#nn-load-pretrained');
  await page.waitForFunction((f) => (document.querySelector('#nn-notice')?.textContent || '').includes(`Loaded ${f}`), index[vsr].file, LONG);
  // Both people are offered; nothing is evaluated before one is chosen.
  await page.waitForSelector('#nn-trials-of-box[data-count="2"]', LONG);
  assert.equal(await page.isDisabled('#nn-evaluate-trials-of'), true);
  const options = await page.$$eval('#nn-trials-of option', (os) => os.map((o) => [o.value, o.textContent]));
  const a = options.find(([, text]) => /kappa-a/.test(text));
  assert.ok(a, JSON.stringify(options));
  await page.selectOption('#nn-trials-of', a[0]);
  await page.click('#nn-evaluate-trials-of');
  await page.waitForSelector('#nn-eval #nn-eval-table tbody tr', LONG);
  assert.match(await page.textContent('#nn-eval h3'), /on the trials of participant kappa-a/);
  const rows = await page.$$eval('#nn-eval-table tbody tr', (trs) => trs.map((tr) => tr.dataset.task));
  assert.deepEqual(rows, ['VSR']);
  await saved(page);
  assert.deepEqual(page.errors, []);
  await page.close();

  const cmp = await openPage(app.browser.context, app.server.url + '#/compare');
  await cmp.waitForSelector('#cmp-history[data-count="3"]', LONG);
  const ids = await cmp.$$eval('#cmp-history li.cmp-history-item', (lis) => lis.map((li) => li.dataset.id));
  for (const id of ids) {
    await cmp.check(`#cmp-pick-${id}`);
    await cmp.waitForSelector(`#cmp-chosen tr.cmp-chosen-row[data-id="${id}"]`);
  }
  await cmp.waitForSelector('#compare[data-chosen="3"][data-state="ready"]');
  await cmp.selectOption('#cmp-task', 'VSR');
  await cmp.waitForSelector('#cmp-agreement[data-task="VSR"][data-subjects="3"]', LONG);
  const chosen = await cmp.$$eval('#cmp-chosen tr.cmp-chosen-row', (trs) => trs.map((tr) => [tr.dataset.who, tr.textContent]));
  const at = (re) => Number(chosen.find(([, t]) => re.test(t))[0].slice(1));
  const [pa, pb, net] = [at(/kappa-a/), at(/kappa-b/), at(/network/)];
  const cells = await cmp.$$eval('#cmp-agreement td.kappa', (tds) => tds.map((td) => ({
    i: Number(td.dataset.row), j: Number(td.dataset.col), kappa: td.dataset.kappa, items: td.dataset.items,
    unmatched: td.dataset.unmatched, atCeiling: td.dataset.atCeiling, text: td.textContent,
  })));
  const cell = (i, j) => cells.find((c) => c.i === i && c.j === j);
  assert.equal(cells.length, 9);
  assert.equal(await cmp.getAttribute('#cmp-agreement', 'data-pairs'), '3');
  // Every pair took the same 8 VSR trials (one per list length): 2 + 3 + … + 9 = 44 recall answers.
  for (const [i, j] of [[pa, pb], [pa, net], [pb, net]]) {
    for (const c of [cell(i, j), cell(j, i)]) {
      assert.equal(c.items, '44', JSON.stringify(c));
      assert.equal(c.unmatched, '0', JSON.stringify(c));
      assert.match(c.text, /44 items/);
    }
    const k = cell(i, j).kappa;
    assert.notEqual(k, '', `κ is defined for s${i}–s${j}: neither is always right or always wrong`);
    assert.ok(Number(k) >= -1 && Number(k) <= 1, k);
  }
  // The two people are the ceiling's one pair: its mean is their κ.
  const people = cell(pa, pb);
  assert.notEqual(people.kappa, '', 'the two people answer differently, so κ is defined');
  assert.equal(await cmp.getAttribute('#cmp-ceiling', 'data-pairs'), '1');
  assert.equal(await cmp.getAttribute('#cmp-agreement', 'data-ceiling'), people.kappa);
  assert.match(await cmp.textContent('#cmp-ceiling'), /over 1 pair\)/);
  // A pair is marked when its κ reaches the ceiling (one pair of people: SD 0, so κ ≥ their κ).
  for (const [i, j] of [[pa, net], [pb, net]]) {
    const c = cell(i, j);
    assert.equal(c.atCeiling, String(Number(c.kappa) >= Number(people.kappa)), JSON.stringify(c));
  }
  // Capacity on the task for each chosen result, in the same units (here VSR's span and 50 % point).
  const cap = await cmp.$$eval('#cmp-capacity tr.capacity-row', (trs) => trs.map((tr) => [tr.dataset.who, tr.dataset.task, tr.dataset.measure]));
  assert.ok(cap.length > 0 && cap.every(([, t]) => t === 'VSR'), JSON.stringify(cap));
  // The same table as CSV: a header and one row per pair.
  const [download] = await Promise.all([cmp.waitForEvent('download'), cmp.click('#cmp-agreement-csv')]);
  assert.equal(download.suggestedFilename(), 'agreement-VSR.csv');
  const csv = fs.readFileSync(await download.path(), 'utf8').trim().split('\n');
  assert.equal(csv.length, 4, csv.join('\n'));
  assert.match(csv[0], /^run_a,who_a,run_b,who_b,task,items,unmatched_trials,.*,kappa,ci_low,ci_high,at_noise_ceiling$/);
  for (const line of csv.slice(1)) assert.match(line, /,VSR,44,0,/);
  assert.deepEqual(cmp.errors, []);
  await cmp.close();
});

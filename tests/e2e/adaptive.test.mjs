// An adaptive study link (issue 48): `adaptive=all` makes CD-Color's and VSR's main blocks staircases.
// A scripted participant who holds 4 items in change detection and recalls lists of up to 5 places
// whole answers with real clicks; each trial shows the level the staircase asks after the answers so
// far, the blocks end when the staircases settle, and Results shows where each converged, with the
// track the participant saw.
//
// Test-only switches as in people.test.mjs (localStorage wmlab_fast / wmlab_test before the app loads).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appUnderTest } from './helpers.mjs';
import { answerStep, answered, hook, nextScreen, participantPage } from './participant.mjs';

const LONG = { timeout: 600_000 };
const app = appUnderTest();

test('an adaptive study link taken by a scripted participant converges', LONG, async () => {
  const page = await participantPage(app, '#/take?tasks=CD-Color,VSR&adaptive=all&practice=0&seed=5&pid=stair-1');
  const seen = { 'CD-Color': [], VSR: [] };
  for (;;) {
    const s = await nextScreen(page);
    if (s === 'done' || s === 'error') {
      assert.equal(s, 'done');
      break;
    }
    if (s === 'instructions' || s === 'feedback' || s === 'paused') {
      await page.click(s === 'instructions' ? '#start' : '#continue');
      continue;
    }
    const h = await hook(page);
    if (!h?.awaiting) continue;
    assert.ok(Number.isInteger(h.level), `a staircase trial says its level: ${JSON.stringify(h)}`);
    // The round counter has no "of n": the block ends when the staircase settles.
    assert.doesNotMatch(await page.textContent('#take'), /round \d+ of \d+/);
    const right = h.task === 'CD-Color' ? h.level <= 4 : h.level <= 5;
    seen[h.task].push(`${h.level}${right ? '✓' : '✗'}`);
    await answerStep(page, h, right);
    await answered(page, h);
  }
  await page.waitForFunction(() => Number(document.querySelector('#page')?.dataset.history) >= 1, null, { timeout: 90_000 });
  assert.deepEqual(page.errors, []);

  // Results: the saved session, its two staircases and the tracks the participant took.
  await page.goto(app.server.url + 'index.html#/results');
  await page.waitForSelector('#history tr.history-row');
  await page.click('#history tr.history-row .history-open');
  await page.waitForSelector('#results[data-state="shown"] #staircases');
  const runs = await page.$$eval('#staircases tr.staircase-row', (trs) => trs.map((tr) => ({
    task: tr.dataset.task, trials: Number(tr.dataset.trials), level: Number(tr.dataset.level),
    low: Number(tr.dataset.low), high: Number(tr.dataset.high), track: tr.querySelector('.staircase-track').textContent,
  })));
  assert.deepEqual(runs.map((r) => r.task), ['CD-Color', 'VSR']);
  for (const r of runs) {
    assert.equal(r.track, seen[r.task].join(' '), `${r.task}: the record's track is what the participant saw`);
    assert.equal(r.trials, seen[r.task].length);
    assert.ok(r.low <= r.level && r.level <= r.high, JSON.stringify(r));
  }
  const [cd, vsr] = runs;
  // CD: right up to set size 4, wrong above: the staircase (up 1, down 3) settles around 4.
  assert.ok(cd.level >= 2.5 && cd.level <= 5.5, JSON.stringify(cd));
  assert.ok(cd.trials < 120, 'settled before the trial limit');
  // VSR: one up after a whole list, one down after an error: between 5 and 6.
  assert.ok(vsr.level >= 5 && vsr.level <= 6, JSON.stringify(vsr));
  assert.match(await page.textContent('#staircases'), /set size at 75 % right: .*list length at 50 % of lists recalled whole: /s);
  // The capacity table lists each staircase's estimate beside the task's other measures.
  const cap = await page.$$eval('#capacity tr.capacity-row', (trs) => trs.map((tr) => [tr.dataset.task, tr.dataset.measure, Number(tr.dataset.value)]));
  for (const r of runs) {
    const row = cap.find(([t, m]) => t === r.task && m.startsWith('staircase'));
    assert.ok(row && Math.abs(row[2] - r.level) < 1e-6, JSON.stringify(cap));
  }
  assert.deepEqual(page.errors, []);
  await page.close();
});

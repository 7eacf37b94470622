// People: a scripted participant takes every task from a study link with real clicks, taps and keys
// (some answers right, some wrong; PI-LLM's typed into text fields); the saved data match what was
// clicked, one row per trial with timing columns; a reload resumes at the same trial; a bad link shows
// its error; a receiving server that refuses the first attempts gets every block exactly once; results
// plot against the human curves.
//
// Test-only switches (set in localStorage before the app loads; the normal path never sets them):
// wmlab_fast=1 shows each timed frame for one refresh, wmlab_test=1 exposes the current step's correct
// answer on window.__wmlab_test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import fs from 'node:fs';
import { appUnderTest, launch, openPage } from './helpers.mjs';
import { hook, nextScreen, answerStep } from './participant.mjs';
import { peopleKit, savedSession, parseCsv } from './people-kit.mjs';

const WORM = ['SC', 'SFR', 'SI', 'SMU', 'STS', 'VIR', 'VSR', 'VSRec',
  'CD-Color', 'CD-Orientation', 'CD-Size', 'CD-Gap', 'CD-Conjunction', 'CS', 'LSR'];

const app = appUnderTest();

const { participantPage, answer, take } = peopleKit(app);

/** The session's recorded answers match the log of what was clicked. */
function checkAgainstLog(session, log) {
  for (const d of session.done) {
    const g = d.row.trial;
    const given = log.get(g);
    assert.ok(given, `trial ${g} (${d.task}) was recorded but not answered by the script`);
    const isNback = d.task.startsWith('nback');
    // N-back: one answer per stimulus (no press = null); the script's presses are on its steps.
    if (isNback) {
      const byStep = new Map(given.map((x) => [x.step, x.answer]));
      d.result.answers.forEach((a, i) => assert.deepEqual(a, byStep.has(i) ? byStep.get(i) : null, `${d.task} trial ${g} step ${i}`));
    } else {
      assert.deepEqual(d.result.answers, given.map((x) => x.answer), `${d.task} trial ${g}`);
    }
    given.forEach((x, i) => {
      if (d.task === 'SFR') {
        assert.equal(d.row.extra.sfr_exact, x.right, `SFR trial ${g}`);
      } else if (isNback) {
        assert.equal(d.row.correct[x.step], x.right, `${d.task} trial ${g} step ${x.step}`);
      } else {
        assert.equal(d.row.correct[i], x.right, `${d.task} trial ${g} answer ${i}`);
      }
    });
    // Response times for every answer given; frame timings recorded.
    d.result.rt_ms.forEach((rt, i) => {
      if (d.result.answers[i] !== null) assert.ok(rt >= 0 && rt < 60_000, `rt ${rt}`);
    });
    assert.ok(d.result.frames.length > 0 || d.task === 'SI' || d.task === 'SMU', `${d.task} has frame timings`);
    for (const f of d.result.frames) assert.ok(f.offset >= f.onset && f.intended_ms > 0);
  }
}

test('a bad study link shows the error and starts nothing', async () => {
  const page = await participantPage('#/take?tasks=VIR&tpc=0');
  await page.waitForSelector('#take[data-state="error"] #study-error');
  const msg = await page.textContent('#study-error');
  assert.match(msg, /tpc/);
  assert.match(msg, /1 to 200/);
  await participantPage('#/take?tasks=VIR&colour=red', { page, keep: true });
  await page.waitForSelector('#study-error');
  assert.match(await page.textContent('#study-error'), /colour.*unknown parameter/);
  assert.equal(await savedSession(page), null, 'no session was saved');
  assert.equal(await page.$('#start'), null);
  await page.close();
});

test('the study page builds a link that starts, and names bad values', async () => {
  const page = await openPage(app.browser.context, app.server.url + '#/study');
  await page.waitForSelector('#study');
  // A first visit: a hint, no error before any input.
  await page.waitForSelector('#study-form-hint');
  assert.equal(await page.$('#study-form-error'), null);
  assert.ok(await page.$('#task-pi-llm'), 'PI-LLM (key–value updates) is offered');
  await page.check('#task-VIR');
  await page.check('#task-nback-verbal');
  await page.fill('#pid', 'P-7');
  await page.fill('#seed', '5');
  await page.waitForSelector('#study-link');
  const link = await page.inputValue('#study-link');
  assert.match(link, /#\/take\?tasks=VIR,nback-verbal&tpc=1&/);
  assert.match(link, /seed=5/);
  assert.match(link, /pid=P-7/);
  assert.match(link, /&n=1,2,3&nbb=/, 'N-back levels with an N-back task');
  // Without an N-back task the link carries no N-back levels.
  await page.uncheck('#task-nback-verbal');
  await page.waitForFunction(() => !/nback/.test(document.querySelector('#study-link')?.value || 'nback'));
  assert.doesNotMatch(await page.inputValue('#study-link'), /[?&](n|nbb)=/);
  await page.check('#task-nback-verbal');
  await page.waitForFunction(() => /nback-verbal/.test(document.querySelector('#study-link')?.value || ''));
  await page.fill('#tpc', '0');
  await page.waitForSelector('#study-form-error');
  assert.match(await page.textContent('#study-form-error'), /tpc/);
  await page.fill('#tpc', '2');
  await page.fill('#endpoint', 'ftp://x');
  await page.waitForSelector('#study-form-error');
  assert.match(await page.textContent('#study-form-error'), /endpoint/);
  await page.fill('#endpoint', '');
  // Task parameters: a key no chosen task has is named; one VIR has goes into the link.
  await page.fill('#set', 'colour=red');
  await page.waitForSelector('#study-form-error');
  assert.match(await page.textContent('#study-form-error'), /set.*no chosen task has a parameter "colour"/);
  await page.fill('#set', 'list_lengths=4,16');
  await page.waitForSelector('#study-link');
  assert.match(await page.inputValue('#study-link'), /set=list_lengths%3D4,16/);
  const href = await page.getAttribute('#try-link', 'href');
  await page.goto(href);
  await page.waitForSelector('#take[data-state="instructions"]', { timeout: 30_000 });
  await page.close();
});

test('a participant completes every task (14 WorM ids, LSR, N-back verbal and spatial, PI-LLM)', async () => {
  const page = await participantPage('#/take?tasks=all&tpc=1&practice=0&n=1&seed=3&pid=bot-1&results=1');
  const t0 = Date.now();
  // Right on two of three trials; wrong on the third (N-back: on every fourth stimulus).
  const right = (g, step) => (g % 3 !== 1) && !(step % 4 === 3);
  const { log, state: end } = await take(page, { right });
  assert.equal(end, 'done');
  const session = await savedSession(page);
  assert.equal(session.cursor, null, 'finished');
  const total = session.blocks.reduce((n, b) => n + b.units.length, 0);
  assert.equal(session.done.length, total, 'every trial recorded once');
  const tasks = new Set(session.done.map((d) => d.task));
  for (const t of [...WORM, 'nback-verbal', 'nback-spatial', 'pi-llm']) assert.ok(tasks.has(t), `${t} taken`);
  session.done.forEach((d, i) => assert.equal(d.row.trial, i, 'rows in order, none repeated or dropped'));
  checkAgainstLog(session, log);
  assert.ok(session.refresh_ms > 3 && session.refresh_ms < 60, `refresh ${session.refresh_ms}`);
  console.log(`# every-task session: ${total} trials in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  // CSV from the done screen: one row per trial, timing columns filled.
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#download-csv')]);
  const csv = fs.readFileSync(await dl.path(), 'utf8');
  const rows = parseCsv(csv.trim());
  assert.equal(rows.length, total + 1);
  const head = rows[0];
  for (const col of ['task', 'trial', 'rt_ms', 'frame_err_median_ms', 'frame_n', 'refresh_ms']) {
    assert.ok(head.includes(col), `CSV has ${col}: ${head.join(',')}`);
  }
  const ci = head.indexOf('frame_err_median_ms');
  for (const r of rows.slice(1)) {
    assert.equal(r.length, head.length);
    const task = r[head.indexOf('task')];
    if (task !== 'SI' && task !== 'SMU') assert.notEqual(r[ci], '', `${task} timing filled`);
  }
  const [dj] = await Promise.all([page.waitForEvent('download'), page.click('#download-json')]);
  const rec = JSON.parse(fs.readFileSync(await dj.path(), 'utf8'));
  assert.equal(rec.trials.length, total);
  assert.equal(rec.subject.id ?? rec.subject.Person?.id ?? 'bot-1', 'bot-1');

  // Own results: charts drawn on the done screen, then in Results.
  await page.waitForSelector('#take #charts canvas.plot[data-drawn="true"]');
  await page.click('#open-results');
  await page.waitForSelector('#results #charts');
  await page.waitForFunction(() => {
    const c = [...document.querySelectorAll('#results canvas.plot')];
    return c.length > 5 && c.every((x) => x.dataset.drawn === 'true');
  }, null, { timeout: 30_000 });
  const panels = await page.$$eval('#results canvas.plot', (c) => c.map((x) => x.dataset.panel));
  for (const p of ['VSR', 'SMU', 'CS', 'CD-Color', 'LSR']) assert.ok(panels.includes(p), `panel ${p} in ${panels}`);
  // Every subject point with its 95 % interval; a one-session bot's points are thin (faint, said in the
  // legend); CD's title says at which retention interval it is drawn; the summary rows in natural order.
  const vsr = await page.$eval('#results canvas.plot[data-panel="VSR"]', (c) => ({ bars: Number(c.dataset.bars), thin: Number(c.dataset.thin) }));
  assert.ok(vsr.bars > 0 && vsr.thin > 0, JSON.stringify(vsr));
  assert.match(await page.getAttribute('#results canvas.plot[data-panel="CD-Color"]', 'aria-label'), /CD-Color · (at retention 18|pooled over retention)/);
  const order = await page.$$eval('#summary-table tbody tr', (trs) => trs.map((tr) => [tr.children[0].textContent, tr.children[1].textContent]));
  const vsrConds = order.filter(([t, c]) => t === 'VSR' && /^list_length=\d+$/.test(c)).map(([, c]) => Number(c.split('=')[1]));
  assert.deepEqual(vsrConds, [...vsrConds].sort((a, b) => a - b), `VSR rows in order: ${vsrConds}`);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// PI-LLM (Wang & Sun 2025) for people: key–value updates drawn one at a time on the canvas, then the last
// value of each key typed into a field per key; the record's rows and summaries are the LLM suite's
// (task pi-llm, conditions.other updates/keys/value_len, score_last_values, metric last_values).
test('PI-LLM: a participant watches key–value updates and types the last values, scored as the LLM suite scores them', async () => {
  const page = await participantPage('#/take?tasks=pi-llm&tpc=1&practice=1&seed=4&pid=pi-1');
  assert.equal(await nextScreen(page), 'instructions');
  assert.match(await page.textContent('#take .instructions'), /Key–value updates \(PI-LLM\).*last word/s);
  assert.match(await page.textContent('#keys-note'), /Enter goes to the next/);
  const given = [];
  let feedback = null;
  let how = 0;
  for (;;) {
    const s = await nextScreen(page);
    if (s === 'done') break;
    assert.notEqual(s, 'error');
    if (s === 'instructions') { await page.click('#start'); continue; }
    if (s === 'feedback') {
      feedback = await page.$eval('.feedback', (f) => ({
        correct: f.dataset.correct, text: f.querySelector('#feedback-text').textContent,
        values: [...f.querySelectorAll('#feedback-values li')].map((li) => [li.className, li.textContent]),
      }));
      await page.click('#continue');
      continue;
    }
    const h = await hook(page);
    if (!h?.awaiting) continue;
    assert.equal(h.awaiting, 'typed');
    assert.equal(h.task, 'pi-llm');
    // A labelled field per key, typed as remembered: no autocomplete, capitals or corrections.
    const fields = await page.$$eval('#take .typed-field', (ls) => ls.map((l) => {
      const i = l.querySelector('input');
      return { key: l.querySelector('.typed-key').textContent, auto: i.autocomplete, caps: i.getAttribute('autocapitalize'),
        correct: i.getAttribute('autocorrect'), spell: i.getAttribute('spellcheck'), height: i.getBoundingClientRect().height };
    }));
    assert.equal(fields.length, 4);
    for (const f of fields) {
      assert.deepEqual([f.auto, f.caps, f.correct, f.spell], ['off', 'off', 'off', 'false'], JSON.stringify(f));
      assert.ok(f.height >= 40, `a field ${f.height} px tall`);
    }
    // Practice: all right; then keys 1 and 3 right, 2 and 4 wrong.
    const right = h.practice ? [true, true, true, true] : [true, false, true, false];
    const typed = await answerStep(page, h, right, (how++ % 2) === 0 ? 'key' : 'click');
    given.push({ global: h.global, keys: fields.map((f) => f.key), target: h.target, typed, right });
    await page.waitForFunction((seq) => (window.__wmlab_test?.seq ?? 0) > seq, h.seq);
  }
  assert.equal(given.length, 1 + 4, 'a practice stream, then one stream per level (1, 2, 4, 8 updates per key)');
  assert.equal(feedback.correct, 'true');
  assert.equal(feedback.values.length, 4);
  given[0].target.forEach((v, i) => assert.equal(feedback.values[i][1], `${given[0].keys[i]}: ${v}`));

  const session = await savedSession(page);
  assert.equal(session.done.length, 5);
  const levels = [];
  for (const [i, d] of session.done.entries()) {
    const g = given[i];
    const row = d.row;
    assert.equal(row.trial, g.global);
    assert.equal(row.task, 'pi-llm');
    assert.deepEqual(Object.keys(row.conditions.other).sort(), ['keys', 'updates', 'value_len']);
    assert.equal(row.conditions.other.keys, '4');
    assert.equal(row.conditions.other.value_len, '1');
    const u = Number(row.conditions.other.updates);
    if (!d.practice) levels.push(u);
    assert.deepEqual(row.targets, g.target, 'targets: the last values');
    assert.deepEqual(row.responses, g.typed, 'responses: what was typed');
    assert.deepEqual(d.result.answers, g.typed);
    assert.deepEqual(row.correct, g.right, 'one flag per key; capitals do not count');
    assert.equal(row.extra.score_last_values, d.practice ? 1 : 0.5);
    assert.equal(row.extra.pi_keys, g.keys.join(','));
    assert.equal(row.rt_ms.length, 4);
    assert.ok(row.rt_ms.every((t) => t > 0 && t < 60_000), `${row.rt_ms}`);
    // Every update and the blank after it on screen, frame-locked.
    assert.equal(d.result.frames.length, 2 * 4 * u);
    assert.equal(row.extra.stream.split('; ').length, 4 * u);
  }
  assert.deepEqual(levels.sort((a, b) => a - b), [1, 2, 4, 8]);

  // The record: the LLM suite's metric, over every stream and per level; the settings of the design.
  const [dj] = await Promise.all([page.waitForEvent('download'), page.click('#download-json')]);
  const rec = JSON.parse(fs.readFileSync(await dj.path(), 'utf8'));
  const sums = rec.summaries.filter((x) => x.task === 'pi-llm');
  assert.ok(sums.every((x) => x.metric === 'last_values'));
  assert.deepEqual(sums.map((x) => [x.conditions.other?.updates ?? 'all', x.n, x.value]),
    [['all', 4, 0.5], ['1', 1, 0.5], ['2', 1, 0.5], ['4', 1, 0.5], ['8', 1, 0.5]]);
  assert.equal(rec.config.settings.pi_updates, '1,2,4,8');
  assert.equal(rec.config.settings.pi_keys, 4);
  const [dc] = await Promise.all([page.waitForEvent('download'), page.click('#download-csv')]);
  const csv = parseCsv(fs.readFileSync(await dc.path(), 'utf8').trim());
  assert.equal(csv.length, 1 + 5);
  assert.ok(csv[0].includes('score_last_values'), csv[0].join(','));
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('practice gives feedback, and a reload resumes at the same trial with earlier trials intact', async () => {
  const page = await participantPage('#/take?tasks=VSRec,nback-spatial&tpc=1&practice=1&pt=2&n=2&seed=9');
  // Practice: one right, one wrong → feedback says so.
  await nextScreen(page);
  await page.click('#start');
  let seen = [];
  for (let i = 0; i < 2; i++) {
    for (;;) {
      const s = await nextScreen(page);
      if (s === 'feedback') break;
      const h = await hook(page);
      await answer(page, h, i === 0);
      await page.waitForFunction((seq) => (window.__wmlab_test?.seq ?? 0) > seq, h.seq);
    }
    seen.push(await page.$eval('.feedback', (f) => f.dataset.correct));
    await page.click('#continue');
  }
  assert.deepEqual(seen, ['true', 'false']);
  // Main block: three trials, then reload in the middle of the fourth.
  const log = new Map();
  await take(page, { stopAfter: 3, log, right: (g) => g % 2 === 0 });
  const before = await savedSession(page);
  const at = (await hook(page)).global;
  assert.equal(before.done.length, at);
  await participantPage('#/take?tasks=VSRec,nback-spatial&tpc=1&practice=1&pt=2&n=2&seed=9', { page, keep: true });
  await page.waitForSelector('#take[data-state="offer"] #resume');
  await page.click('#resume');
  await page.waitForSelector('#take[data-state="instructions"] #resumed-note');
  await page.click('#start');
  await nextScreen(page);
  const h = await hook(page);
  assert.equal(h.global, at, 'resumed at the same trial');
  const again = new Map(log);
  again.delete(at); // the interrupted trial restarts from its first step
  const { state: end } = await take(page, { log: again, right: (g) => g % 2 === 0 });
  assert.equal(end, 'done');
  const after = await savedSession(page);
  assert.deepEqual(after.done.slice(0, before.done.length), before.done, 'earlier trials intact');
  const total = after.blocks.reduce((n, b) => n + b.units.length, 0);
  assert.equal(after.done.length, total);
  after.done.forEach((d, i) => assert.equal(d.row.trial, i));
  const main = { ...after, done: after.done.filter((d) => !d.practice) };
  checkAgainstLog(main, again);
  // A reload after the end shows the done screen again, never a new session.
  await participantPage('#/take?tasks=VSRec,nback-spatial&tpc=1&practice=1&pt=2&n=2&seed=9', { page, keep: true });
  await page.waitForSelector('#take[data-state="done"]');
  await page.close();
});

test('an anonymous link (no seed, no participant id) gives each participant other stimuli, kept across a reload', async () => {
  const link = '#/take?tasks=VSR&tpc=1&practice=0';
  const seeds = [];
  for (let who = 0; who < 2; who++) {
    // A fresh browser storage: another participant.
    const page = await participantPage(link);
    assert.equal(await nextScreen(page), 'instructions');
    assert.equal(await page.$$eval('header.top, nav, footer.foot', (e) => e.length), 0, 'the study and nothing else: no app navigation');
    await page.click('#start');
    await nextScreen(page);
    const s = await savedSession(page);
    assert.ok(s, 'the session is saved once it starts');
    assert.equal(s.config.seed ?? null, null, 'the link has no seed');
    seeds.push(s.seed);
    if (who === 0) {
      // The same participant reloading the link continues the same session (same seed, same stimuli).
      const first = (await hook(page)).target;
      await participantPage(link, { page, keep: true });
      assert.equal(await nextScreen(page), 'instructions');
      assert.equal((await savedSession(page)).seed, seeds[0], 'a reload keeps the seed');
      await page.click('#start');
      await nextScreen(page);
      const h = await hook(page);
      assert.equal(h.global, 0);
      assert.deepEqual(h.target, first, 'the same first trial');
    }
    assert.deepEqual(page.errors, []);
    await page.close();
  }
  assert.notEqual(seeds[0], seeds[1], 'two anonymous participants get different seeds');
  assert.ok(seeds.every((x) => x !== 0), 'not the old shared seed 0');
});

// A phone: 360 × 740. The participant view fits the width (no horizontal scrolling) on the instructions,
// on every response screen and at the end; the stimulus is as wide as the screen allows; no app
// navigation; the answers are clicks on the response buttons and cells as on a desktop.
test('the participant view fits a 360 px wide touch phone screen and is answered by taps', async () => {
  // A phone: 360 × 740, touch, mobile viewport; every answer below is a tap.
  const phone = await launch({ viewport: { width: 360, height: 740 }, hasTouch: true, isMobile: true });
  const page = await participantPage('#/take?tasks=VSR,SFR,CD-Color,pi-llm&tpc=1&practice=0&seed=5&results=1',
    { page: await openPage(phone.context, app.server.url + '#/') });
  const fits = async (where, stimulus = false) => {
    const m = await page.evaluate(() => {
      const c = document.querySelector('#take canvas');
      const r = c ? c.getBoundingClientRect() : null;
      return { scroll: document.documentElement.scrollWidth, inner: window.innerWidth, canvas: r && [r.left, r.right, r.width] };
    });
    assert.ok(m.scroll <= m.inner, `${where}: page ${m.scroll} px wide in a ${m.inner} px window`);
    if (stimulus) {
      assert.ok(m.canvas, `${where}: a stimulus canvas`);
      assert.ok(m.canvas[0] >= 0 && m.canvas[1] <= m.inner + 0.5, `${where}: stimulus at ${m.canvas} in ${m.inner} px`);
      assert.ok(m.canvas[2] >= 0.8 * m.inner, `${where}: stimulus only ${m.canvas[2]} px wide of ${m.inner}`);
    }
    return m;
  };
  assert.equal(await nextScreen(page), 'instructions');
  await fits('instructions');
  assert.equal(await page.$$eval('header.top, nav, footer.foot', (e) => e.length), 0);
  const seen = new Set();
  for (;;) {
    const st = await nextScreen(page);
    if (st === 'done' || st === 'error') { assert.equal(st, 'done'); break; }
    if (st === 'instructions') { await fits(`instructions`); await page.tap('#start'); continue; }
    if (st === 'feedback' || st === 'paused') { await page.tap('#continue'); continue; }
    const h = await hook(page);
    if (!h?.awaiting) continue;
    if (!seen.has(h.task)) {
      seen.add(h.task);
      // PI-LLM's typed answer takes the stimulus's place: its fields as wide as the screen allows.
      const typed = h.awaiting === 'typed';
      const m = await fits(`${h.task} response (${h.awaiting})`, !typed);
      if (typed) {
        const boxes = await page.$$eval('#take input.typed, #typed-done', (e) => e.map((x) => x.getBoundingClientRect().toJSON()));
        for (const b of boxes) assert.ok(b.left >= 0 && b.right <= m.inner + 0.5 && b.height >= 40, JSON.stringify(b));
        // …and one line tall: the phone layout's rule for labelled fields (a 12rem flex basis, meant for
        // a row) must not stretch them in their column.
        for (const b of boxes) assert.ok(b.height <= 64, `a field ${b.height} px tall`);
        assert.ok(boxes[0].width >= 0.8 * m.inner, `a field ${boxes[0].width} px wide of ${m.inner}`);
      }
    }
    await answerStep(page, h, true, 'tap');
    await page.waitForFunction((seq) => (window.__wmlab_test?.seq ?? 0) > seq, h.seq, { timeout: 30_000, polling: 'raf' });
  }
  assert.deepEqual([...seen].sort(), ['CD-Color', 'SFR', 'VSR', 'pi-llm']);
  await fits('the end');
  // Every answer was kept: the end screen's curves are drawn from them.
  await page.waitForSelector('#take #charts canvas.plot[data-drawn="true"]');
  assert.deepEqual(page.errors, []);
  await page.close();
  await phone.close();
});

test('consent must be agreed to before the first trial, the agreement is recorded, and declining records nothing', async () => {
  const consent = 'I agree to take part.\n\nMy answers are recorded anonymously.';
  const link = `#/take?tasks=SC&tpc=1&practice=0&seed=2&info=${encodeURIComponent('Sit an arm\'s length from the screen.')}&consent=${encodeURIComponent(consent)}`;
  const page = await participantPage(link);
  await page.waitForSelector('#take[data-state="welcome"]');
  assert.equal(await page.textContent('#study-info'), 'Sit an arm\'s length from the screen.');
  assert.deepEqual(await page.$$eval('#consent-text p', (p) => p.map((x) => x.textContent)),
    ['I agree to take part.', 'My answers are recorded anonymously.']);
  assert.equal(await page.$eval('#agree', (b) => b.disabled), true, 'no start before the box is ticked');
  await page.check('#consent-check');
  await page.click('#agree');
  assert.equal(await nextScreen(page), 'instructions');
  const { state: end } = await take(page);
  assert.equal(end, 'done');
  const s = await savedSession(page);
  assert.match(s.consent.agreed_at, /^20\d\d-\d\d-\d\dT/);
  assert.match(s.consent.text_fnv64, /^[0-9a-f]{16}$/);
  const [dj] = await Promise.all([page.waitForEvent('download'), page.click('#download-json')]);
  const rec = JSON.parse(fs.readFileSync(await dj.path(), 'utf8'));
  assert.equal(rec.config.settings.consent_agreed_at, s.consent.agreed_at);
  await page.close();

  // The text from a file on the study's site; "I do not agree" ends the study with nothing saved.
  const p2 = await participantPage('#/take?tasks=SC&tpc=1&practice=0&seed=3&consent_url=study/consent-example.txt');
  await p2.waitForSelector('#take[data-state="welcome"]');
  assert.match(await p2.textContent('#consent-text'), /working memory/);
  await p2.click('#decline');
  await p2.waitForSelector('#take[data-state="declined"]');
  assert.equal(await savedSession(p2), null, 'nothing kept');
  // A text that cannot be loaded stops the study with a plain message.
  await participantPage('#/take?tasks=SC&consent_url=study/missing.txt', { page: p2 });
  await p2.waitForSelector('#take[data-state="error"]');
  assert.match(await p2.textContent('#study-error'), /study\/missing\.txt.*404.*cannot start/s);
  assert.deepEqual(p2.errors.filter((e) => !/404/.test(e)), []);
  // A path that fetches a web page (the app's own) or an image is refused, not shown as the consent.
  for (const [path, what] of [['index.html', /index\.html is a web page/], ['favicon.svg', /favicon\.svg is a web page or an image/]]) {
    await participantPage(`#/take?tasks=SC&consent_url=${path}`, { page: p2 });
    await p2.waitForSelector('#take[data-state="error"]');
    assert.match(await p2.textContent('#study-error'), what);
    assert.match(await p2.textContent('#study-error'), /cannot start/);
  }
  await p2.close();
});

// People: a scripted participant takes every task from a study link with real clicks, taps and keys
// (some answers right, some wrong); the saved data match what was clicked, one row per trial with
// timing columns; a reload resumes at the same trial; a bad link shows its error; a receiving server
// that refuses the first attempts gets every block exactly once; results plot against the human curves.
//
// Test-only switches (set in localStorage before the app loads; the normal path never sets them):
// wmlab_fast=1 shows each timed frame for one refresh, wmlab_test=1 exposes the current step's correct
// answer on window.__wmlab_test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import fs from 'node:fs';
import { appUnderTest, launch, openPage } from './helpers.mjs';
import { takeState, hook, nextScreen, answered, answerStep } from './participant.mjs';

const WORM = ['SC', 'SFR', 'SI', 'SMU', 'STS', 'VIR', 'VSR', 'VSRec',
  'CD-Color', 'CD-Orientation', 'CD-Size', 'CD-Gap', 'CD-Conjunction', 'CS', 'LSR'];

const app = appUnderTest();

/** A page with the test switches on (fresh storage unless keep). */
async function participantPage(hash, { keep = false, page = null } = {}) {
  const p = page ?? await openPage(app.browser.context, app.server.url + '#/');
  await p.evaluate((keep) => {
    if (!keep) localStorage.clear();
    localStorage.setItem('wmlab_fast', '1');
    localStorage.setItem('wmlab_test', '1');
  }, keep);
  await p.goto(app.server.url + 'index.html?x=' + Math.random() + hash);
  await p.waitForSelector('body[data-app-ready="true"]');
  await p.waitForSelector('#take');
  return p;
}

const state = takeState;

let flip = 0;
/** Answer the awaited step (keys on every other answer); returns the stored answer per step. */
const answer = (page, h, right) => answerStep(page, h, right, (flip++ % 2) === 0);

/**
 * Take the session until done (or until `stopAfter` trials were completed in this call).
 * `right(global, step)` decides right/wrong. Returns the log of given answers per global trial.
 */
async function take(page, { right = () => true, stopAfter = Infinity, log = new Map() } = {}) {
  let completed = 0;
  let lastGlobal = null;
  for (;;) {
    const s = await nextScreen(page);
    if (s === 'done' || s === 'error') return { log, state: s };
    if (s === 'instructions') { await page.click('#start'); continue; }
    if (s === 'feedback') { await page.click('#continue'); continue; }
    if (s === 'paused') { await page.click('#continue'); continue; }
    const h = await hook(page);
    if (!h?.awaiting) continue;
    if (lastGlobal !== null && h.global !== lastGlobal) {
      completed++;
      if (completed >= stopAfter) return { log, state: s };
    }
    lastGlobal = h.global;
    const isRight = right(h.global, h.step);
    const given = await answer(page, h, isRight);
    if (!log.has(h.global)) log.set(h.global, []);
    given.forEach((a, i) => log.get(h.global).push({ step: h.step + i, answer: a, right: isRight, task: h.task }));
    await answered(page, h);
  }
}

async function savedSession(page) {
  return page.evaluate(() => {
    const k = Object.keys(localStorage).find((k) => /^wmlab\.session\.[0-9a-f]+$/.test(k));
    return k ? JSON.parse(localStorage.getItem(k)) : null;
  });
}

/** Minimal CSV parser (quoted fields, doubled quotes). */
function parseCsv(text) {
  const rows = [];
  let row = [], field = '', q = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (q) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i++; } else if (c === '"') q = false; else field += c;
    } else if (c === '"') q = true;
    else if (c === ',') { row.push(field); field = ''; }
    else if (c === '\n') { row.push(field); rows.push(row); row = []; field = ''; }
    else if (c !== '\r') field += c;
  }
  if (field || row.length) { row.push(field); rows.push(row); }
  return rows;
}

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
  await page.waitForSelector('#study-form-error');
  await page.check('#task-VIR');
  await page.check('#task-nback-verbal');
  await page.fill('#pid', 'P-7');
  await page.fill('#seed', '5');
  await page.waitForSelector('#study-link');
  const link = await page.inputValue('#study-link');
  assert.match(link, /#\/take\?tasks=VIR,nback-verbal&tpc=1&/);
  assert.match(link, /seed=5/);
  assert.match(link, /pid=P-7/);
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

test('a participant completes every task (14 WorM ids, LSR, N-back verbal and spatial)', async () => {
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
  for (const t of [...WORM, 'nback-verbal', 'nback-spatial']) assert.ok(tasks.has(t), `${t} taken`);
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
  const page = await participantPage('#/take?tasks=VSR,SFR,CD-Color&tpc=1&practice=0&seed=5&results=1',
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
    if (!seen.has(h.task)) { seen.add(h.task); await fits(`${h.task} response (${h.awaiting})`, true); }
    await answerStep(page, h, true, 'tap');
    await page.waitForFunction((seq) => (window.__wmlab_test?.seq ?? 0) > seq, h.seq, { timeout: 30_000, polling: 'raf' });
  }
  assert.deepEqual([...seen].sort(), ['CD-Color', 'SFR', 'VSR']);
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

test('losing focus pauses the trial and is recorded', async () => {
  const page = await participantPage('#/take?tasks=SC&tpc=1&practice=0&seed=2');
  await nextScreen(page);
  await page.click('#start');
  await nextScreen(page);
  const h = await hook(page);
  await page.evaluate(() => window.dispatchEvent(new Event('blur')));
  await page.waitForSelector('#take[data-state="paused"]');
  await page.evaluate(() => window.dispatchEvent(new Event('focus')));
  await page.click('#continue');
  await nextScreen(page);
  assert.equal((await hook(page)).global, h.global, 'the same trial restarts');
  await take(page, { stopAfter: 1 });
  const s = await savedSession(page);
  assert.equal(s.done[0].row.extra.blur_count, 1);
  assert.deepEqual(s.done[0].result.events.map((e) => e.kind), ['blur', 'focus']);
  await page.close();
});

test('a receiving server that refuses the first attempts gets every block exactly once', async () => {
  const attempts = new Map();
  const accepted = new Map();
  const recv = http.createServer((req, res) => {
    const cors = {
      'access-control-allow-origin': '*',
      'access-control-allow-headers': 'content-type, idempotency-key',
      'access-control-allow-methods': 'POST, OPTIONS',
    };
    if (req.method === 'OPTIONS') { res.writeHead(204, cors).end(); return; }
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      const j = JSON.parse(body);
      const id = j.idempotency_id;
      assert.equal(req.headers['content-type'], 'application/json');
      assert.equal(req.headers['idempotency-key'], id);
      const n = (attempts.get(id) ?? 0) + 1;
      attempts.set(id, n);
      if (n <= 2) { res.writeHead(503, cors).end('try later'); return; }
      accepted.set(id, [...(accepted.get(id) ?? []), j]);
      res.writeHead(200, { ...cors, 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise((r) => recv.listen(0, '127.0.0.1', r));
  const endpoint = `http://127.0.0.1:${recv.address().port}/collect`;
  try {
    const page = await participantPage(`#/take?tasks=SC,nback-verbal&tpc=1&practice=0&n=1&seed=4&pid=post-1&endpoint=${encodeURIComponent(endpoint)}`);
    const { state: end } = await take(page);
    assert.equal(end, 'done');
    const session = await savedSession(page);
    const blocks = session.blocks.length;
    await page.waitForFunction(() => document.querySelector('#take')?.dataset.pending === '0'
      && JSON.parse(localStorage.getItem('wmlab.outbox') || '[]').length === 0, null, { timeout: 60_000 });
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(accepted.size, blocks + 1, `${blocks} blocks + the end: ${[...accepted.keys()]}`);
    for (const [id, got] of accepted) {
      assert.equal(got.length, 1, `${id} accepted once`);
      assert.equal(attempts.get(id), 3, `${id} tried until acknowledged`);
      assert.equal(got[0].participant, 'post-1');
    }
    const perBlock = [...accepted.values()].map((g) => g[0]).filter((j) => !j.final).map((j) => j.block).sort();
    assert.deepEqual(perBlock, [...Array(blocks).keys()]);
    const last = [...accepted.values()].map((g) => g[0]).find((j) => j.final);
    assert.equal(last.record.trials.length, session.done.length);
    await page.close();
  } finally {
    recv.closeAllConnections(); // the browser keeps connections alive for a minute
    await new Promise((r) => recv.close(r));
  }
});

// Issue 18: the study goes offline after its first trial and stays offline to the end. Trials go on; the
// end screen says the results are waiting and offers "download and continue" instead of redirecting;
// when the network is back the outbox sends at once (the `online` event), the endpoint gets every block
// exactly once, DataPipe gets the session's CSV in its documented shape (a receiver that, like DataPipe,
// allows only the usual headers checks `{experimentID, filename, data}`), and only then does the
// completion redirect happen.
test('offline mid-study: nothing is lost, DataPipe gets its CSV, and the redirect waits for the data', async () => {
  const accepted = new Map();
  const pipe = [];
  const problems = [];
  let completed = 0;
  const recv = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    if (url.pathname === '/done') { completed++; res.writeHead(200, { 'content-type': 'text/html' }).end('<p id="completed">completed</p>'); return; }
    if (req.method === 'GET') { res.writeHead(404).end(); return; } // the done page's favicon
    const strict = url.pathname.startsWith('/datapipe/');
    const cors = {
      'access-control-allow-origin': '*',
      // DataPipe's API allows the usual headers only: an Idempotency-Key would fail its preflight
      'access-control-allow-headers': strict ? 'content-type, accept' : 'content-type, idempotency-key',
      'access-control-allow-methods': 'POST, OPTIONS',
    };
    if (req.method === 'OPTIONS') {
      const asked = (req.headers['access-control-request-headers'] || '').toLowerCase();
      if (strict && asked.includes('idempotency-key')) problems.push('DataPipe request asks for an idempotency-key header');
      res.writeHead(204, cors).end();
      return;
    }
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      const j = JSON.parse(body);
      if (strict) {
        if (req.headers['content-type'] !== 'application/json') problems.push(`content-type ${req.headers['content-type']}`);
        const keys = Object.keys(j).sort().join(',');
        if (keys !== 'data,experimentID,filename') problems.push(`DataPipe body keys ${keys}`);
        if (j.experimentID !== 'WMLABTEST123') problems.push(`experimentID ${j.experimentID}`);
        if (!/^wmlab_off-1_[A-Za-z0-9_-]+\.csv$/.test(j.filename)) problems.push(`filename ${j.filename}`);
        if (pipe.some((p) => p.filename === j.filename)) problems.push(`the file ${j.filename} was sent twice`);
        pipe.push(j);
      } else {
        accepted.set(j.idempotency_id, [...(accepted.get(j.idempotency_id) ?? []), j]);
      }
      res.writeHead(200, { ...cors, 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise((r) => recv.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${recv.address().port}`;
  const q = new URLSearchParams({
    tasks: 'SC', tpc: '1', practice: '0', seed: '4', pid: 'off-1',
    endpoint: `${base}/collect`, datapipe: 'WMLABTEST123', datapipe_url: `${base}/datapipe/api/data/`, done: `${base}/done`,
  });
  const context = app.browser.context;
  try {
    const page = await participantPage(`#/take?${q}`);
    await take(page, { stopAfter: 1 });
    const t0 = Date.now();
    await context.setOffline(true);
    const { state: end } = await take(page);
    console.error(`[offline] study taken offline in ${Date.now() - t0} ms`);
    assert.equal(end, 'done');
    const session = await savedSession(page);
    // offline: the data wait, the page says so and stays
    await page.waitForSelector('#post-stuck', { timeout: 30_000 });
    assert.ok(Number(await page.getAttribute('#take', 'data-pending')) >= 1);
    assert.match(await page.textContent('#post-stuck'), /not reached the researcher yet/);
    assert.equal(completed, 0, 'no redirect while the data wait');
    assert.equal(pipe.length, 0);
    // back online: sent at once, then the redirect
    const t1 = Date.now();
    await context.setOffline(false);
    await page.waitForURL(`${base}/done`, { timeout: 30_000 });
    console.error(`[offline] sent and redirected ${Date.now() - t1} ms after the network came back`);
    assert.equal(completed, 1);
    assert.deepEqual(problems, []);
    const blocks = session.blocks.length;
    assert.equal(accepted.size, blocks + 1, `${blocks} blocks + the end: ${[...accepted.keys()]}`);
    for (const [id, got] of accepted) assert.equal(got.length, 1, `${id} accepted once`);
    const last = [...accepted.values()].map((g) => g[0]).find((j) => j.final);
    assert.equal(last.record.trials.length, session.done.length, 'every trial, the offline ones too');
    assert.equal(pipe.length, 1, 'one DataPipe file per session');
    const lines = pipe[0].data.trim().split('\n');
    assert.match(lines[0], /^subject_kind,subject,task,trial,/);
    assert.equal(lines.length, session.done.length + 1, 'a header and one row per trial');
    assert.ok(lines.slice(1).every((l) => l.startsWith('person,participant off-1,')), lines[1]);
    await page.close();
  } finally {
    await context.setOffline(false);
    recv.closeAllConnections(); // the browser keeps connections alive for a minute
    await new Promise((r) => recv.close(r));
  }
});

// Issue 18: the same study link in a second tab says it is open elsewhere and writes nothing; once the
// first tab is closed, a reload of the second resumes the session where the first left it.
test('a second tab of the same study does not fork the session', async () => {
  const hash = '#/take?tasks=SC&tpc=1&practice=0&seed=8&pid=tabs-1';
  const first = await participantPage(hash);
  await take(first, { stopAfter: 1 });
  const before = await savedSession(first);
  assert.equal(before.done.length, 1);
  const second = await participantPage(hash, { keep: true });
  await second.waitForSelector('#take[data-state="elsewhere"]');
  assert.match(await second.textContent('#elsewhere-text'), /other tab/);
  assert.deepEqual(await savedSession(second), before, 'the second tab wrote nothing');
  // the first goes on undisturbed
  await take(first, { stopAfter: 1 });
  assert.equal((await savedSession(first)).done.length, 2);
  await first.close();
  await second.reload();
  await second.waitForSelector('#take[data-state="offer"]');
  assert.deepEqual(second.errors, []);
  await second.close();
});

// Issue 18: storage refuses every write after the first trial (full, or a private window): the
// participant is told plainly, the study goes on in memory, every block still reaches the endpoint, and
// the session saved before stays as it was.
test('storage that refuses to save: told plainly, nothing lost, the data still arrive', async () => {
  const accepted = new Map();
  const recv = http.createServer((req, res) => {
    const cors = { 'access-control-allow-origin': '*', 'access-control-allow-headers': 'content-type, idempotency-key', 'access-control-allow-methods': 'POST, OPTIONS' };
    if (req.method !== 'POST') { res.writeHead(204, cors).end(); return; }
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      const j = JSON.parse(body);
      accepted.set(j.idempotency_id, (accepted.get(j.idempotency_id) ?? 0) + 1);
      res.writeHead(200, { ...cors, 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise((r) => recv.listen(0, '127.0.0.1', r));
  const endpoint = `http://127.0.0.1:${recv.address().port}/collect`;
  try {
    const page = await participantPage(`#/take?tasks=SC&tpc=1&practice=0&seed=9&pid=full-1&endpoint=${encodeURIComponent(endpoint)}`);
    await take(page, { stopAfter: 1 });
    await page.waitForFunction(() => JSON.parse(localStorage.getItem('wmlab.outbox') || '[]').length === 0);
    const before = await savedSession(page);
    // From now on the browser refuses to store anything of the app's.
    await page.evaluate(() => {
      const orig = Storage.prototype.setItem;
      Storage.prototype.setItem = function (k, v) {
        if (String(k).startsWith('wmlab.')) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
        return orig.call(this, k, v);
      };
    });
    const { state: end } = await take(page);
    assert.equal(end, 'done');
    assert.match(await page.textContent('#take-note'), /would not save your answers.*still sent to the researcher/);
    await page.waitForFunction(() => document.querySelector('#take')?.dataset.pending === '0', null, { timeout: 60_000 });
    assert.deepEqual(await savedSession(page), before, 'what was saved before is untouched');
    const blocks = before.blocks.length;
    assert.equal(accepted.size, blocks + 1, `every block and the end: ${[...accepted.keys()]}`);
    assert.ok([...accepted.values()].every((n) => n === 1), 'each once');
    assert.deepEqual(page.errors, []);
    await page.close();
  } finally {
    recv.closeAllConnections();
    await new Promise((r) => recv.close(r));
  }
});

// Issue 18: fullscreen entered from the instructions and left between trials is recorded with the
// trials (as jsPsych records its interaction data): the enter event with the first trial, the exit with
// the next.
test('fullscreen enter and exit are recorded with the trials', async () => {
  const page = await participantPage('#/take?tasks=SC&tpc=1&practice=0&seed=12&pid=fs-1&fs=1');
  await page.waitForSelector('#take[data-state="instructions"]');
  await page.click('#fullscreen');
  await page.waitForFunction(() => document.fullscreenElement !== null);
  await take(page, { stopAfter: 1 });
  await page.evaluate(() => document.exitFullscreen());
  await page.waitForFunction(() => document.fullscreenElement === null);
  await take(page, { stopAfter: 1 });
  const s = await savedSession(page);
  const kinds = (i) => s.done[i].result.events.map((e) => e.kind);
  assert.ok(kinds(0).includes('fullscreen_enter'), JSON.stringify(kinds(0)));
  assert.ok(kinds(1).includes('fullscreen_exit'), JSON.stringify(kinds(1)));
  assert.deepEqual(page.errors, []);
  await page.close();
});

// People, the data's way out: losing focus pauses and is recorded; a receiving server that refuses
// the first attempts gets every block exactly once; offline mid-study loses nothing; a second tab does
// not fork the session; storage that refuses to save is told plainly; fullscreen changes are recorded.
// (The rest of the participant's path is in people.test.mjs; both use the test switches it describes.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { appUnderTest } from './helpers.mjs';
import { hook, nextScreen } from './participant.mjs';
import { peopleKit, savedSession } from './people-kit.mjs';

const app = appUnderTest();
const { participantPage, take } = peopleKit(app);

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

// Recruitment platforms and who may take a study (issue 67): parameters a platform puts before the `#`,
// MTurk's preview and its submit back to MTurk (after the data are acknowledged), a SONA code carried to
// the credit URL, Prolific's separate URLs for no consent and screen-outs, device and window rules, and
// what the participant saw (device, stimulus size, pointer, a resize restarting the trial) in the record.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { appUnderTest, launch, openPage } from './helpers.mjs';
import { answered, hook, nextScreen, takeState } from './participant.mjs';
import { parseCsv, peopleKit, savedSession } from './people-kit.mjs';

const app = appUnderTest();
const { take, answer } = peopleKit(app);

/** A local stand-in for a platform: records every request (method, path, query, body). */
async function receiver() {
  const seen = [];
  const server = http.createServer((req, res) => {
    const cors = {
      'access-control-allow-origin': '*',
      'access-control-allow-headers': 'content-type, idempotency-key',
      'access-control-allow-methods': 'POST, OPTIONS',
    };
    if (req.method === 'OPTIONS') { res.writeHead(204, cors).end(); return; }
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      const url = new URL(req.url, 'http://x');
      if (url.pathname === '/favicon.ico') { res.writeHead(404).end(); return; }
      seen.push({ method: req.method, path: url.pathname, query: Object.fromEntries(url.searchParams), body, t: Date.now() });
      if (url.pathname === '/api/condition/') {
        res.writeHead(201, { ...cors, 'content-type': 'application/json' }).end('{"message":"Success","condition":1}');
        return;
      }
      if (url.pathname === '/collect' || url.pathname === '/api/data/') {
        res.writeHead(200, { ...cors, 'content-type': 'application/json' }).end('{"ok":true}');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<p id="platform">${url.pathname}</p>`);
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${server.address().port}`;
  return {
    base,
    seen,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** The participant's page at `index.html?<search>#/take?<query>`, test switches on, fresh storage. */
async function open(context, search, query, { fresh = true } = {}) {
  const page = await openPage(context, app.server.url + '#/');
  await page.evaluate((fresh) => {
    if (fresh) localStorage.clear();
    localStorage.setItem('wmlab_fast', '1');
    localStorage.setItem('wmlab_test', '1');
  }, fresh);
  await page.goto(`${app.server.url}index.html${search ? '?' + search : ''}#/take?${query}`);
  await page.waitForSelector('body[data-app-ready="true"]');
  await page.waitForSelector('#take');
  return page;
}

const sessionKeys = (page) => page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('wmlab.session.')));

test('MTurk: a preview starts nothing; an accepted HIT is submitted back after its data arrive', async () => {
  const mturk = await receiver();
  try {
    const preview = await open(app.browser.context,
      `assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&hitId=H1&turkSubmitTo=${encodeURIComponent(mturk.base)}`,
      'tasks=SC,VIR&tpc=1&practice=0&seed=3');
    await preview.waitForSelector('#take[data-state="preview"]');
    const text = await preview.textContent('#preview-text');
    assert.match(text, /Spatial Coordination|SC/i, text);
    assert.match(await preview.textContent('#take'), /Accept the HIT to begin/);
    assert.deepEqual(await sessionKeys(preview), [], 'a preview stores no session');
    await preview.close();

    // The worker accepted: MTurk's four parameters before the `#`, the researcher's endpoint in the link.
    const search = `assignmentId=3ASG1&hitId=H1&workerId=AW7&turkSubmitTo=${encodeURIComponent(mturk.base + '/')}`;
    const page = await open(app.browser.context, search,
      `tasks=SC&tpc=1&practice=0&seed=3&endpoint=${encodeURIComponent(mturk.base + '/collect')}`);
    const { state } = await take(page);
    assert.equal(state, 'done');
    await page.waitForURL(/\/mturk\/externalSubmit/, { timeout: 30_000 });
    const submit = mturk.seen.find((r) => r.path === '/mturk/externalSubmit');
    assert.equal(submit.method, 'POST');
    const form = new URLSearchParams(submit.body);
    assert.equal(form.get('assignmentId'), '3ASG1');
    assert.match(form.get('wmlab_session'), /^[0-9a-f]{16}$/);
    const final = mturk.seen.find((r) => r.path === '/collect' && JSON.parse(r.body).final);
    assert.ok(final && final.t <= submit.t, 'the record was acknowledged before the HIT was submitted');
    const record = JSON.parse(final.body).record;
    assert.equal(record.subject.id, 'AW7', 'workerId is the participant');
    assert.equal(record.config.settings.hitId, 'H1');
    assert.equal(record.config.settings.display_device, 'desktop');
    assert.equal(record.config.settings.display_browser, 'HeadlessChrome');
    const row = record.trials[0].extra;
    assert.equal(row.canvas_css_px > 200, true, JSON.stringify(row));
    assert.equal(row.canvas_device_px, Math.round(row.canvas_css_px), 'deviceScaleFactor 1');
    assert.equal(row.webdriver, true, 'Playwright drives the browser');
    assert.match(row.pointer, /^(mouse|keyboard)$/);
    assert.equal(typeof row.pointer_moves, 'number');
    assert.equal(typeof row.fast_answers, 'number');
    assert.ok(row.instructions_ms >= 0, 'time on the instructions, with the block\'s first trial');
    assert.equal(record.trials[1]?.extra.instructions_ms, undefined, 'only with the first');
    await page.close();
  } finally {
    await mturk.close();
  }
});

test('SONA: the participant code before the # reaches the credit URL', async () => {
  const sona = await receiver();
  try {
    const done = `${sona.base}/webstudy_credit.aspx?experiment_id=12&credit_token=ab9&survey_code={survey_code}`;
    const page = await open(app.browser.context, 'survey_code=40213',
      `tasks=SC&tpc=1&practice=0&seed=5&keep=survey_code&done=${encodeURIComponent(done)}`);
    const { state } = await take(page);
    assert.equal(state, 'done');
    await page.waitForSelector('#platform', { timeout: 30_000 });
    const credit = sona.seen.find((r) => r.path === '/webstudy_credit.aspx');
    assert.deepEqual(credit.query, { experiment_id: '12', credit_token: 'ab9', survey_code: '40213' });
    await page.close();
  } finally {
    await sona.close();
  }
});

test('Prolific: no consent and a screen-out each go to their own URL, with nothing recorded', async () => {
  const prolific = await receiver();
  try {
    const url = (cc) => encodeURIComponent(`${prolific.base}/submissions/complete?cc=${cc}`);
    const ids = 'PROLIFIC_PID=5f1a2b&STUDY_ID=st1&SESSION_ID=se1';
    // Declines the consent.
    const page = await open(app.browser.context, ids,
      `tasks=SC&consent=Do+you+agree%3F&done=${url('DONE1')}&declined=${url('NOCONSENT')}&screened=${url('SCREEN')}`);
    await page.waitForSelector('#decline');
    await page.click('#decline');
    await page.waitForSelector('#declined-return');
    assert.deepEqual(await sessionKeys(page), []);
    await page.click('#declined-return');
    await page.waitForSelector('#platform');
    assert.equal(prolific.seen.at(-1).query.cc, 'NOCONSENT');
    await page.close();

    // A study for phones and tablets, opened on a computer: screened out before consent.
    const desk = await open(app.browser.context, ids, `tasks=SC&devices=touch&consent=Agree%3F&screened=${url('SCREEN')}`);
    await desk.waitForSelector('#take[data-state="screened-out"]');
    assert.match(await desk.textContent('#screened-text'), /phone or tablet/);
    assert.equal(await desk.$('#consent-text'), null, 'no consent asked');
    assert.equal(await desk.$('#screened-again'), null, 'nothing to try again');
    await desk.click('#screened-return');
    await desk.waitForSelector('#platform');
    assert.equal(prolific.seen.at(-1).query.cc, 'SCREEN');
    await desk.close();
  } finally {
    await prolific.close();
  }
});

test('a phone: screened out of a desktop study; its window size and touch are recorded elsewhere', async () => {
  const phone = await launch({
    viewport: { width: 390, height: 700 },
    screen: { width: 390, height: 844 },
    deviceScaleFactor: 3,
    hasTouch: true,
    isMobile: true,
  });
  try {
    const out = await open(phone.context, '', 'tasks=SC&devices=desktop');
    await out.waitForSelector('#take[data-state="screened-out"]');
    assert.match(await out.textContent('#screened-text'), /on a computer.*phone/s);
    await out.close();
    // Any device may take this one: the phone's facts go into the record, and a tap is a touch.
    const page = await open(phone.context, '', 'tasks=SC&tpc=1&practice=0&seed=9');
    await nextScreen(page);
    await page.tap('#start');
    await nextScreen(page);
    const h = await hook(page);
    await page.tap(`#btn-${h.target}`);
    await page.waitForFunction(() => (window.__wmlab_test?.global ?? 0) >= 1 || document.querySelector('#take').dataset.state === 'done');
    const s = await savedSession(page);
    const row = s.done[0].row.extra;
    assert.equal(row.device, 'phone');
    assert.equal(row.dpr, 3);
    assert.equal(row.screen, '390x844');
    assert.equal(row.pointer, 'touch');
    assert.equal(row.canvas_device_px, Math.round(row.canvas_css_px * 3));
    await page.close();
  } finally {
    await phone.close();
  }
});

test('a window too small is told so and may try again; a resize mid-trial restarts the trial', async () => {
  const page = await open(app.browser.context, '', 'tasks=SC&tpc=1&practice=0&seed=2&min_window=1100x900');
  await page.setViewportSize({ width: 900, height: 700 });
  await page.reload();
  await page.waitForSelector('#take[data-state="screened-out"]');
  assert.match(await page.textContent('#screened-text'), /1100×900.*900×700/s);
  await page.setViewportSize({ width: 1280, height: 1000 });
  await page.click('#screened-again');
  assert.equal(await nextScreen(page), 'instructions');
  await page.click('#start');
  await nextScreen(page);
  const before = await hook(page);
  await page.setViewportSize({ width: 1000, height: 800 }); // the stimulus 680 → 610 px
  await page.waitForSelector('#take[data-state="paused"]');
  assert.equal(await page.getAttribute('.paused', 'data-resized'), 'true');
  assert.match(await page.textContent('#paused-text'), /changed size/);
  await page.click('#continue');
  await nextScreen(page);
  assert.equal((await hook(page)).global, before.global, 'the same trial again');
  await take(page, { stopAfter: 1 });
  const s = await savedSession(page);
  assert.equal(s.done[0].row.extra.resize_count, 1);
  assert.equal(s.done[0].row.extra.trial_window, '1000x800');
  assert.equal(await takeState(page) !== 'error', true);
  await page.close();
});

test('the Study page makes a SONA link whose filled-in form a participant can take', async () => {
  const page = await openPage(app.browser.context, app.server.url + '#/study');
  await page.check('#task-SC');
  await page.selectOption('#platform', 'sona');
  // Before the completion URL names {pid} the link is fine; a placeholder it cannot fill is refused.
  await page.fill('#done', 'https://uni.sona-systems.com/webstudy_credit.aspx?experiment_id=12&credit_token=ab9&survey_code={code}');
  await page.waitForSelector('#study-form-error');
  assert.match(await page.textContent('#study-form-error'), /\{code\} is not a placeholder.*\{pid\}/);
  await page.fill('#done', 'https://uni.sona-systems.com/webstudy_credit.aspx?experiment_id=12&credit_token=ab9&survey_code={pid}');
  const link = await page.inputValue('#study-link');
  assert.match(link, /&pid=%SURVEY_CODE%$/, link);
  await page.close();
  // The link opens the participant's page alone (take.html), not the whole app.
  assert.ok(link.startsWith(`${app.server.url}take.html#/take?`), link);
  // What SONA hands the participant: its code in place of %SURVEY_CODE%.
  const taker = await openPage(app.browser.context, app.server.url + '#/');
  await taker.evaluate(() => { localStorage.clear(); localStorage.setItem('wmlab_fast', '1'); });
  const wasm = [];
  taker.on('request', (r) => { if (r.url().endsWith('.wasm')) wasm.push(r.url().split('/').pop()); });
  await taker.goto(link.replace('%SURVEY_CODE%', '40213'));
  await taker.waitForSelector('body[data-app-ready="true"]');
  assert.equal(await nextScreen(taker), 'instructions');
  assert.ok(wasm.length === 1 && wasm[0].startsWith('wmlab-take-'), `only the participant's wasm: ${wasm}`);
  // Any other page asked of take.html opens in the whole app.
  await taker.goto('about:blank');
  await taker.goto(`${app.server.url}take.html#/gallery`);
  await taker.waitForURL(/index\.html#\/gallery$/);
  await taker.close();
});

test('counterbalancing: DataPipe assigns the condition, and the blocks follow its order', async () => {
  const pipe = await receiver();
  // The stand-in DataPipe hands out condition 1 (of SC,VIR | VIR,SC), as its counter would.
  try {
    const link = 'tasks=SC,VIR&conditions=SC,VIR|VIR,SC&practice=0&pid=cb1&datapipe=ABCD1234'
      + `&datapipe_url=${encodeURIComponent(pipe.base + '/api/data/')}`;
    const page = await open(app.browser.context, '', link);
    assert.equal(await nextScreen(page), 'instructions');
    const req = pipe.seen.find((r) => r.path === '/api/condition/');
    assert.ok(req, `asked DataPipe: ${JSON.stringify(pipe.seen)}`);
    assert.deepEqual(JSON.parse(req.body), { experimentID: 'ABCD1234' });
    const s = await savedSession(page);
    assert.deepEqual(s.condition, { index: 1, source: 'datapipe' });
    assert.equal(s.blocks[0].task, 'VIR', 'condition 2 starts with VIR');
    await page.close();
  } finally {
    await pipe.close();
  }
});

test('the virtual chinrest measures a scripted participant (4 px/mm, 55 cm) and draws at 8°', async () => {
  const [ppm, dist] = [4.0, 550];
  const page = await open(app.browser.context, '', 'tasks=SC&tpc=1&practice=0&seed=4&visual_angle=8');
  await page.waitForSelector('#take[data-state="chinrest"]');
  // The card: the picture matched to an 85.6 mm card three times, each from another start.
  const starts = [];
  for (const [rep, err] of [[0, -1], [1, 1.5], [2, 0]]) {
    await page.waitForSelector(`.chinrest[data-step="card"][data-rep="${rep}"]`);
    starts.push(await page.$eval('#chinrest-card', (e) => e.getBoundingClientRect().width));
    const w = 85.6 * ppm + err;
    await page.$eval('#chinrest-slider', (el, w) => {
      el.value = String(w);
      el.dispatchEvent(new Event('input', { bubbles: true }));
    }, w);
    const shown = await page.$eval('#chinrest-card', (e) => e.getBoundingClientRect().width);
    assert.ok(Math.abs(shown - w) <= 0.5, `the picture is ${shown} px wide, not ${w}`);
    await page.click('#chinrest-card-ok');
  }
  assert.notEqual(starts[0], starts[1], 'each match starts elsewhere');
  // The blind spot: the participant presses when the ball is where the blind spot of one sitting
  // 55 cm away lies (13.5° from the square). A press far too early is refused and asked again.
  const at = (offset) => page.waitForFunction(
    (t) => +document.getElementById('chinrest-ball').dataset.offset >= t, offset, { polling: 'raf' });
  await page.waitForSelector('.chinrest[data-step="blind"][data-rep="0"]');
  await page.click('#chinrest-go');
  await at(90);
  await page.keyboard.press('Space');
  await page.waitForSelector('#chinrest-note');
  assert.match(await page.textContent('#chinrest-note'), /very early/);
  const blind = dist * Math.tan(13.5 * Math.PI / 180) * ppm;
  for (const [rep, err] of [[0, -8], [1, 5], [2, 0], [3, 9], [4, -6]]) {
    await page.waitForSelector(`.chinrest[data-step="blind"][data-rep="${rep}"]`);
    await page.click('#chinrest-go');
    await at(blind + err);
    await page.keyboard.press('Space');
  }
  assert.equal(await nextScreen(page), 'instructions');
  const cal = (await savedSession(page)).calibration;
  assert.ok(Math.abs(cal.px_per_mm - ppm) / ppm < 0.02, `px/mm ${cal.px_per_mm}`);
  assert.ok(Math.abs(cal.distance_mm - dist) / dist < 0.05, `distance ${cal.distance_mm} mm`);
  assert.ok(cal.distance_ci_mm[0] < cal.distance_mm && cal.distance_mm < cal.distance_ci_mm[1], JSON.stringify(cal));
  // The stimulus at 8°: 2·d·tan 4° mm at the measured scale.
  const side = Math.round(2 * cal.distance_mm * Math.tan(4 * Math.PI / 180) * cal.px_per_mm);
  await page.click('#start');
  await nextScreen(page);
  assert.equal(await page.$eval('#take-canvas', (c) => c.getBoundingClientRect().width), side);
  // A window that can no longer hold 8° stops the trial and says so; a larger one goes on.
  const before = await hook(page);
  await page.setViewportSize({ width: 400, height: 420 });
  await page.waitForSelector('#take[data-state="paused"]');
  await page.click('#continue');
  await page.waitForSelector('#take[data-state="no-fit"]');
  assert.match(await page.textContent('#no-fit-text'), new RegExp(`${side} pixels wide.*8 degrees.*5[4-6] cm.*room for 230`, 's'));
  await page.setViewportSize({ width: 1280, height: 1000 });
  await page.click('#no-fit-again');
  await nextScreen(page);
  assert.equal((await hook(page)).global, before.global, 'the same trial again');
  await take(page, { stopAfter: 1 });
  const s = await savedSession(page);
  const row = s.done[0].row.extra;
  // 8° within the half pixel the side is rounded to, and exactly what the calibration gives that side.
  const drawn = 2 * Math.atan(side / cal.px_per_mm / 2 / cal.distance_mm) * 180 / Math.PI;
  assert.ok(Math.abs(row.stimulus_deg - drawn) < 0.001, `stimulus_deg ${row.stimulus_deg}, drawn ${drawn}`);
  assert.ok(Math.abs(row.stimulus_deg - 8) < 8 * 0.5 / side + 0.001, `stimulus_deg ${row.stimulus_deg}`);
  assert.equal(row.canvas_css_px, side);
  await page.close();
});

test('a questionnaire after the tasks: required items enforced, answers in the record and the CSV', async () => {
  const page = await open(app.browser.context, '',
    'tasks=SC&tpc=1&practice=0&seed=6&pid=q1&survey=demographics&survey_url=study/questions-example.json&survey_at=end');
  const { state } = await take(page);
  assert.equal(state, 'survey');
  // Nothing answered: each required item says so; the optional ones say nothing.
  await page.click('#survey-submit');
  await page.waitForSelector('#survey-error');
  for (const id of ['age', 'gender', 'handedness', 'vision', 'wearing_correction', 'colour_vision', 'effort']) {
    assert.equal(await page.textContent(`#q-${id}-error`), 'Please answer this question.', id);
  }
  for (const id of ['strategy', 'sleep', 'comments']) assert.equal(await page.$(`#q-${id}-error`), null, id);
  await page.fill('#q-age', '9');
  await page.fill('#q-sleep', 'lots');
  await page.click('#survey-submit');
  await page.waitForFunction(() => document.querySelector('#q-age-error')?.textContent.includes('16 to 110'));
  assert.equal(await page.textContent('#q-sleep-error'), 'Please give a number from 0 to 24.');
  await page.fill('#q-age', '29');
  await page.fill('#q-sleep', '7.5');
  for (const id of ['gender-4', 'handedness-1', 'vision-1', 'wearing_correction-0', 'colour_vision-2', 'effort-4',
    'strategy-2', 'strategy-0']) {
    await page.check(`#q-${id}`);
  }
  await page.fill('#q-comments', 'too many squares, "really"');
  // A paste (answers typed elsewhere) is counted.
  await page.$eval('#q-comments', (el) => el.dispatchEvent(new ClipboardEvent('paste', { bubbles: true })));
  await page.click('#survey-submit');
  assert.equal(await nextScreen(page), 'done');
  const s = await savedSession(page);
  assert.deepEqual(s.survey, {
    age: '29', gender: 'prefer not to say', handedness: 'left', vision: 'corrected to normal (glasses or contact lenses)',
    wearing_correction: 'yes', colour_vision: 'I do not know', effort: '4',
    strategy: 'I named them in words;I counted or grouped them', sleep: '7.5', comments: 'too many squares, "really"',
  });
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#download-csv')]);
  const rows = parseCsv(fs.readFileSync(await dl.path(), 'utf8'));
  const col = (name) => rows[0].indexOf(name);
  assert.ok(col('q_colour_vision') > 0 && col('q_comments') > 0, rows[0].join(','));
  assert.ok(rows.length > 1);
  for (const r of rows.slice(1)) {
    assert.equal(r[col('q_colour_vision')], 'I do not know');
    assert.equal(r[col('q_comments')], 'too many squares, "really"');
    assert.equal(r[col('paste_count')], '1');
  }
  await page.close();
});

test('DataPipe: each block staged as it ends; a dropout shows on the dashboard as unfinished', async () => {
  const pipe = await receiver();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wmlab-pipe-'));
  try {
    const link = 'tasks=SC,VIR&tpc=1&practice=0&seed=8&pid=drop1&datapipe=ABCD1234'
      + `&datapipe_url=${encodeURIComponent(pipe.base + '/api/data/')}`;
    const page = await open(app.browser.context, '', link);
    // Through the first block (SC), then leave during the second.
    for (;;) {
      const s = await nextScreen(page);
      const h = await hook(page);
      if (s === 'instructions') {
        if (h?.task === 'VIR') break;
        await page.click('#start');
        continue;
      }
      await answer(page, h, true);
      await answered(page, h);
    }
    await page.waitForFunction(() => document.querySelector('#take').dataset.pending === '0');
    const parts = pipe.seen.filter((r) => r.path === '/api/data/').map((r) => JSON.parse(r.body));
    assert.equal(parts.length, 1, JSON.stringify(parts.map((p) => p.filename)));
    assert.match(parts[0].filename, /^wmlab_drop1_[0-9a-f]{16}_part01\.csv$/);
    assert.equal(parts[0].experimentID, 'ABCD1234');
    await page.close();
    // The researcher's OSF folder holds that part only: the dashboard reads it as unfinished.
    const f = path.join(dir, parts[0].filename);
    fs.writeFileSync(f, parts[0].data);
    const dash = await openPage(app.browser.context, app.server.url + '#/dashboard');
    await dash.setInputFiles('#dash-file', [f]);
    await dash.waitForSelector('#dashboard[data-count="1"][data-busy="0"]');
    const why = await dash.textContent('#dash-participants tr.dash-row .dash-reasons');
    assert.match(why, /did not finish the study \(its data end after block 1\)/, why);
    // Its final file arriving later supersedes it.
    const final = path.join(dir, parts[0].filename.replace('_part01', ''));
    fs.writeFileSync(final, parts[0].data + '\n');
    await dash.setInputFiles('#dash-file', [final]);
    await dash.waitForFunction(() => !document.querySelector('#dash-participants .dash-reasons')?.textContent.includes('block 1'));
    assert.equal(await dash.getAttribute('#dashboard', 'data-count'), '1');
    await dash.close();
  } finally {
    await pipe.close();
  }
});

test('with results shown, the participant reads them and goes on by a button, not a timer', async () => {
  const plat = await receiver();
  try {
    const page = await open(app.browser.context, '',
      `tasks=SC&tpc=1&practice=0&seed=5&pid=r1&results=1&done=${encodeURIComponent(plat.base + '/done?p={pid}')}`);
    assert.equal((await take(page)).state, 'done');
    await page.waitForSelector('#continue-platform:not([disabled])');
    await page.waitForSelector('#charts canvas.plot[data-drawn="true"]');
    // The timed redirect would have fired within half a second of the data being acknowledged.
    await page.waitForTimeout(1500);
    assert.match(page.url(), /#\/take\?/, 'still on the results');
    assert.equal(await page.$('#timing-summary'), null, 'no frame-timing jargon for participants');
    await page.click('#continue-platform');
    await page.waitForURL(/\/done\?p=r1$/);
  } finally {
    await plat.close();
  }
});

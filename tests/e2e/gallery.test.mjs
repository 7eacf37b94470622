// The gallery draws every task: each of the 14 ids paints the big canvas and the 32×32 network view,
// memory frames differ from blank retention frames, and arrow keys step through a trial.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, canvasStats } from './helpers.mjs';

const TASKS = ['SC', 'SFR', 'SI', 'SMU', 'STS', 'VIR', 'VSR', 'VSRec',
  'CD-Color', 'CD-Orientation', 'CD-Size', 'CD-Gap', 'CD-Conjunction', 'CS'];

let server, browser, page;
before(async () => {
  server = await serve();
  browser = await launch();
  page = await openPage(browser.context, server.url + '#/gallery');
  await page.waitForSelector('#gallery');
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/** Wait until both canvases show the gallery's current trial step; returns the key. */
async function drawn() {
  return page.waitForFunction(() => {
    const g = document.querySelector('#gallery');
    const s = document.querySelector('#stage');
    const n = document.querySelector('#netview');
    if (!g || !s || !n) return false;
    const key = s.getAttribute('data-drawn');
    if (!key || key !== n.getAttribute('data-drawn')) return false;
    const [task, , , step] = key.split(':');
    return task === g.dataset.task && step === g.dataset.step ? key : false;
  }, null, { timeout: 30_000 }).then((h) => h.jsonValue());
}

async function steps() {
  return Number(await page.$eval('#gallery', (g) => g.dataset.steps));
}

/** Digest of every frame of the current trial (leaves the stepper at the last step). */
async function trialHashes() {
  const n = await steps();
  const out = [];
  await page.click('.pips .pip >> nth=0');
  await page.waitForSelector('#gallery[data-step="0"]');
  await drawn();
  for (let t = 0; t < n; t++) {
    if (t > 0) await next(t);
    out.push((await canvasStats(page, '#stage')).hash);
  }
  return out.join(',');
}

async function next(expectStep) {
  await page.click('#next');
  await page.waitForSelector(`#gallery[data-step="${expectStep}"]`);
  return drawn();
}

test('the selector offers the 14 task ids and LSR', async () => {
  const ids = await page.$$eval('#task-select option', (os) => os.map((o) => o.value));
  assert.deepEqual(ids, [...TASKS, 'LSR']);
});

// LSR (WorM A3.1): words on the canvas for people; for networks the word slots, listed beside it.
test('gallery draws LSR: a word per step, then the list in slots; the network\'s word slots beside', async () => {
  await page.selectOption('#task-select', 'LSR');
  await page.waitForSelector('#gallery[data-task="LSR"][data-step="0"]');
  await page.waitForFunction(() => (document.querySelector('#stage')?.getAttribute('data-drawn') || '').startsWith('LSR:') &&
    document.querySelector('#stage').getAttribute('data-drawn').endsWith(':0'));
  const n = await steps();
  const l = n / 2;
  assert.ok(Number.isInteger(l) && l >= 2 && l <= 9, `${n} steps`);
  const stage = await canvasStats(page, '#stage');
  assert.ok(stage.colours > 1, 'the word is drawn');
  const slots = async () => page.$$eval('#net-words li', (li) => li.map((x) => x.textContent));
  const first = await slots();
  assert.equal(first.length, 9);
  assert.match(first[0], /^[a-z]{3,8}$/);
  assert.ok(first.slice(1).every((w) => w === '—'), JSON.stringify(first));
  assert.equal(await page.textContent('#answer'), 'not scored');
  const shown = [first[0]];
  for (let t = 1; t < l; t++) {
    await page.click('#next');
    await page.waitForSelector(`#gallery[data-step="${t}"]`);
    shown.push((await slots())[0]);
  }
  await page.click('#next');
  await page.waitForSelector(`#gallery[data-step="${l}"]`);
  const probe = await slots();
  assert.deepEqual([...probe.slice(0, l)].sort(), [...shown].sort(), 'the probe holds the list, shuffled');
  assert.ok(probe.slice(l).every((w) => w === '—'));
  // The answer of probe 1 is the slot holding the first word shown.
  const k = probe.indexOf(shown[0]);
  // Options are counted from 1 for readers; the class (the network's target) from 0.
  assert.equal(await page.textContent("#answer"), `answer: option ${k + 1} of 9 (class ${k}) · asks about item 1`);
  assert.deepEqual(page.errors, []);
});

for (const id of TASKS) {
  test(`gallery draws ${id}`, async () => {
    await page.selectOption('#task-select', id);
    await page.waitForSelector(`#gallery[data-task="${id}"][data-step="0"]`);
    const key = await drawn();
    assert.ok(key.startsWith(`${id}:`), key);
    const n = await steps();
    assert.ok(n >= 1 && n <= 20, `${id} has ${n} steps`);
    assert.match(await page.textContent('#step-counter'), new RegExp(`^step 1 / ${n}$`));
    assert.ok((await page.textContent('#conditions')).length > 0);

    const big0 = await canvasStats(page, '#stage');
    assert.equal(big0.width, 480);
    assert.ok(!big0.allBlack, `${id}: step 0 looks like the black padding`);
    const net0 = await canvasStats(page, '#netview');
    assert.equal(net0.width, 32);
    assert.ok(!net0.allBlack, `${id}: the 32×32 view of step 0 is black`);

    // Walk the whole trial: some frame has content, answers are shown for scored steps.
    let maxColours = big0.colours;
    const hashes = new Set([big0.hash]);
    let scored = 0;
    for (let t = 0; t < n; t++) {
      if (t > 0) await next(t);
      const st = t === 0 ? big0 : await canvasStats(page, '#stage');
      maxColours = Math.max(maxColours, st.colours);
      hashes.add(st.hash);
      const answer = await page.textContent('#answer');
      assert.ok(answer.length > 0);
      if (answer !== 'not scored') { scored++; assert.match(answer, /^answer: /); }
      assert.ok((await page.textContent('#phase')).length > 0);
    }
    assert.ok(maxColours > 1, `${id}: every frame is a single colour`);
    assert.ok(scored >= 1, `${id}: no scored step`);
    if (n > 1) assert.ok(hashes.size > 1, `${id}: all ${n} frames are identical`);
    assert.deepEqual(page.errors, []);
  });
}

test('a memory frame differs from a blank retention frame (VIR, retention > 0)', async () => {
  await page.selectOption('#task-select', 'VIR');
  await page.waitForSelector('#gallery[data-task="VIR"]');
  const cell = await page.$$eval('#cell-select option', (os) => {
    const o = os.find((o) => /retention=([1-9]\d*)/.test(o.textContent));
    return o ? o.value : null;
  });
  assert.ok(cell !== null, 'VIR offers a condition with retention > 0');
  await page.selectOption('#cell-select', cell);
  await page.waitForSelector('#gallery[data-step="0"]');
  await drawn();
  const n = await steps();
  const byPhase = {};
  for (let t = 0; t < n; t++) {
    if (t > 0) await next(t);
    const phase = await page.textContent('#phase');
    (byPhase[phase] ??= []).push(await canvasStats(page, '#stage'));
  }
  assert.ok(byPhase.present?.length, `phases: ${Object.keys(byPhase)}`);
  assert.ok(byPhase.retention?.length, `phases: ${Object.keys(byPhase)}`);
  const present = byPhase.present[0];
  const retention = byPhase.retention[0];
  assert.equal(retention.colours, 1, 'a retention frame is blank');
  assert.ok(present.colours > 1, 'a memory frame shows something');
  assert.notEqual(present.hash, retention.hash);
});

test('arrow keys step, new trial and seed change the trial', async () => {
  await page.selectOption('#task-select', 'VSR');
  await page.waitForSelector('#gallery[data-task="VSR"][data-step="0"]');
  await drawn();
  await page.focus('#next');
  await page.keyboard.press('ArrowRight');
  await page.waitForSelector('#gallery[data-step="1"]');
  await page.keyboard.press('ArrowLeft');
  await page.waitForSelector('#gallery[data-step="0"]');
  const before = await trialHashes();
  const seed = Number(await page.inputValue('#seed'));
  await page.click('#new-trial');
  await page.waitForFunction((s) => document.querySelector('#seed').value === String(s + 1), seed);
  const key = await drawn();
  assert.ok(key.endsWith(`:${seed + 1}:0`), key);
  // Another seed draws another trial.
  assert.notEqual(await trialHashes(), before);
  assert.deepEqual(page.errors, []);
});

test('task parameters: long VSRec lists draw 32-step trials; a bad entry is named and the paper task stays', async () => {
  await page.selectOption('#task-select', 'VSRec');
  await page.waitForSelector('#gallery[data-task="VSRec"]');
  assert.match(await page.textContent('#gallery-params-keys'), /list_lengths/);
  await page.fill('#gallery-params', 'list_lengths=16');
  await page.press('#gallery-params', 'Tab');
  await page.waitForSelector('#gallery[data-steps="32"]');
  assert.match(await page.textContent('#cell-select'), /16/);
  await drawn();
  assert.equal(await page.$('#gallery-params-error'), null);
  // A key VSRec does not have: the message names it, and the paper's task (L up to 9) is drawn.
  await page.fill('#gallery-params', 'noise_mask=true');
  await page.press('#gallery-params', 'Tab');
  await page.waitForSelector('#gallery-params-error');
  assert.match(await page.textContent('#gallery-params-error'), /no parameter "noise_mask"/);
  assert.ok(await steps() <= 18);
  await page.fill('#gallery-params', '');
  await page.press('#gallery-params', 'Tab');
  await page.waitForFunction(() => !document.querySelector('#gallery-params-error'));
  assert.deepEqual(page.errors, []);
});

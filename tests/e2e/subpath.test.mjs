// Publish anywhere: the built dist/ served under a sub-path (/lab/wmlab/), as a static host such as
// GitHub Pages or a department's web server does. Every asset, the networks worker, the shipped data and
// models resolve under that path (nothing is asked of the host's root); the study builder's and the
// result's share links carry the full URL with the path; a study link runs to the end there.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage } from './helpers.mjs';
import { hook, nextScreen, answered, answerStep } from './participant.mjs';

const PREFIX = '/lab/wmlab/';
const LONG = { timeout: 180_000 };
let server;
let browser;

before(async () => {
  server = await serve(undefined, { prefix: PREFIX });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test('the app served under a sub-path loads, runs a study from its link, and links carry the path', LONG, async () => {
  assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/lab\/wmlab\/$/);
  const page = await openPage(browser.context, server.url);

  // The study builder's link starts with the sub-path URL.
  await page.goto(server.url + '#/study');
  await page.waitForSelector('#study');
  await page.check('#task-VSR');
  await page.waitForSelector('#study-link');
  const studyLink = await page.inputValue('#study-link');
  assert.ok(studyLink.startsWith(server.url + 'take.html#/take?'), studyLink);

  // A study from a link with a consent text that is a file of the site (study/…), on the participant's
  // page alone (take.html): it loads from the sub-path, and the participant answers every trial.
  await page.evaluate(() => { localStorage.setItem('wmlab_fast', '1'); localStorage.setItem('wmlab_test', '1'); });
  await page.goto(server.url + 'take.html?x=1#/take?tasks=VSR&tpc=1&practice=0&seed=4&pid=sub-1&results=1'
    + '&consent_url=study/consent-example.txt');
  await page.waitForSelector('#take[data-state="welcome"]', LONG);
  assert.match(await page.textContent('#consent-text'), /working memory/);
  await page.check('#consent-check');
  await page.click('#agree');
  let answers = 0;
  for (let k = 0; ; k++) {
    assert.ok(k < 400, 'the study ends');
    const s = await nextScreen(page);
    if (s === 'done' || s === 'error') { assert.equal(s, 'done'); break; }
    if (s === 'instructions') { await page.click('#start'); continue; }
    if (s === 'feedback' || s === 'paused') { await page.click('#continue'); continue; }
    const h = await hook(page);
    if (!h?.awaiting) continue;
    await answerStep(page, h, true);
    await answered(page, h);
    answers++;
  }
  assert.ok(answers >= 2, `${answers} answers`);
  // The participant's page alone has no charts: its results open in the whole app, record in the link.
  const href = await page.getAttribute('#open-results-app', 'href');
  assert.match(href, /^index\.html#r=1\./, href);

  // The result lands in this browser's history (IndexedDB, written after the end screen).
  await page.waitForFunction(() => Number(document.querySelector('#page')?.dataset.history) >= 1, null, { timeout: 90_000 });
  await page.goto(new URL(href, page.url()).href);
  await page.waitForSelector('#charts canvas.plot[data-drawn="true"]', { timeout: 30_000 });

  // The result's share link (Results page) carries the sub-path.
  await page.goto(server.url + '#/results');
  await page.waitForSelector('#history[data-count="1"]', { timeout: 30_000 });
  await page.click('#history tr.history-row .history-open');
  await page.waitForSelector('#share-link');
  const share = await page.inputValue('#share-link');
  assert.ok(share.startsWith(server.url + '#r=1.'), share);

  // The Networks page: the shipped models' list (models/index.json) and the worker (its loader and wasm)
  // come from the sub-path; the CPU backend starts.
  await page.goto(server.url + '#/networks');
  await page.waitForSelector('#nn-pretrained option', { state: 'attached', timeout: 30_000 });
  await page.selectOption('#nn-backend-pick', 'cpu');
  await page.waitForFunction(() => /CPU/.test(document.querySelector('#nn-backend').textContent), null, LONG);

  assert.deepEqual(server.outside, [], 'nothing was asked of the host outside the sub-path');
  assert.deepEqual(page.errors, []);
  await page.close();
});

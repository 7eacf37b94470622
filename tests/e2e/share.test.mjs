// Share links: a demo result round-trips through its link into a fresh page; malformed, truncated,
// oversized and future-version links show a plain error, keep the page usable and keep the result
// shown before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appUnderTest, openPage, encodeShare } from './helpers.mjs';

const app = appUnderTest();

async function rendered(page, state = 'shown') {
  await page.waitForSelector(`#results[data-state="${state}"] #summary-table`);
  return {
    rows: await page.$$eval('#summary-table tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent))),
    subject: await page.textContent('#subject'),
    task: await page.textContent('#record-task'),
    seed: await page.textContent('#record-seed'),
    trials: await page.textContent('#trial-count'),
  };
}

async function makeDemo(task) {
  const page = await openPage(app.browser.context, app.server.url + '#/gallery');
  await page.selectOption('#task-select', task);
  await page.waitForSelector(`#gallery[data-task="${task}"]`);
  await page.fill('#seed', '7');
  await page.press('#seed', 'Enter');
  await page.dispatchEvent('#seed', 'change');
  await page.waitForSelector('#stage[data-drawn^="' + task + ':0:7:"]');
  await page.click('#make-demo');
  await page.waitForSelector('#page[data-route="results"]');
  const shown = await rendered(page);
  const link = await page.inputValue('#share-link');
  return { page, shown, link };
}

let demo;

test('a demo result round-trips through its share link', async () => {
  demo = await makeDemo('VSR');
  const { shown, link } = demo;
  assert.ok(shown.rows.length >= 1);
  assert.equal(shown.task, 'VSR');
  assert.equal(shown.seed, '7');
  assert.ok(Number(shown.trials) >= shown.rows.length);
  // Any result with WorM rows gets the same test against chance and the memoryless baseline.
  const sig = await demo.page.$eval('#record-significance tr[data-task="VSR"]', (tr) =>
    ({ above: tr.dataset.above, memory: tr.dataset.memory, cells: tr.querySelectorAll('td').length }));
  assert.ok(['true', 'false'].includes(sig.above) && ['true', 'false'].includes(sig.memory), JSON.stringify(sig));
  assert.equal(sig.cells, 6);
  assert.match(await demo.page.textContent('#record-above-count'), /1 task ids above chance.*show memory/);
  for (const r of shown.rows) {
    assert.equal(r.length, 6);
    assert.ok(Number.isFinite(Number(r[4])), r.join(' | '));
  }
  assert.match(link, /^http:\/\/127\.0\.0\.1:\d+\/#r=1\.[A-Za-z0-9_-]+$/);

  const fresh = await openPage(app.browser.context, link);
  const back = await rendered(fresh);
  assert.deepEqual(back, shown);
  assert.equal(await fresh.inputValue('#share-link'), link);
  assert.deepEqual(fresh.errors, []);
  await fresh.close();

  // The same link pasted into the Results page's field.
  const pasted = await openPage(app.browser.context, app.server.url + '#/results');
  await pasted.waitForSelector('#results-empty');
  // Never empty: the published human VSR curves and the chance model are drawn, with ways to a result.
  await pasted.waitForSelector('#results-published canvas.cmp-plot[data-drawn="true"]');
  assert.equal(await pasted.getAttribute('#results-published canvas', 'data-who'), 'human chance memoryless');
  assert.match(await pasted.getAttribute('#empty-people', 'href'), /^#\/take\?tasks=VSR/);
  await pasted.fill('#link-input', link);
  await pasted.click('#open-link');
  assert.deepEqual(await rendered(pasted), shown);
  await pasted.close();
});

function badLinks(goodPayload) {
  const future = encodeShare({
    schema: 999, app_version: '9.0.0', subject: { kind: 'reference', source: 'the future' },
    task: 'VSR', config: { seed: 1 }, summaries: [],
  });
  return [
    ['truncated', '#r=' + goodPayload.slice(0, Math.floor(goodPayload.length / 2)), /cut short|damaged/],
    ['garbled', '#r=1.!!!***', /damaged/],
    ['garbled deflate', '#r=1.' + Buffer.from('not deflate at all').toString('base64url'), /damaged/],
    ['not a record', '#r=' + encodeShare({ hello: 'world' }), /not a WM Lab result/],
    ['future version', '#r=' + future, /newer version/],
    ['unknown link format', '#r=7.abc', /different version/],
    ['oversized', '#r=1.' + 'A'.repeat(70_000), /too long/],
    ['empty', '#r=', /carries no result/],
  ];
}

test('malformed links show a plain error and the page stays usable', async () => {
  assert.ok(demo, 'the round-trip test ran first');
  const payload = demo.link.split('#r=')[1];
  for (const [name, frag, message] of badLinks(payload)) {
    const page = await openPage(app.browser.context, app.server.url + frag);
    await page.waitForSelector('#results[data-state="error"] #share-error.error');
    const text = await page.textContent('#share-error');
    assert.match(text, message, `${name}: ${text}`);
    assert.ok(await page.isVisible('#results-empty'), `${name}: nothing else is shown`);
    // Navigation still works.
    await page.click('#nav-gallery');
    await page.waitForSelector('#gallery #stage[data-drawn]');
    await page.click('#nav-home');
    await page.waitForSelector('#home');
    assert.deepEqual(page.errors, [], name);
    await page.close();
  }
});

test('a bad link keeps the result shown before', async () => {
  const { page, shown, link } = demo;
  const payload = link.split('#r=')[1];
  for (const [name, frag, message] of badLinks(payload)) {
    await page.evaluate((f) => { location.hash = f; }, frag);
    await page.waitForFunction((m) => {
      const e = document.querySelector('#share-error');
      return e && new RegExp(m).test(e.textContent);
    }, message.source);
    assert.deepEqual((await page.$$eval('#summary-table tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)))), shown.rows, name);
    // Reset the error with the good link before the next case.
    await page.evaluate((f) => { location.hash = f; }, '#r=' + payload);
    await page.waitForSelector('#results[data-state="shown"]');
  }
  // A pasted bad link too.
  await page.fill('#link-input', 'https://example.org/#r=1.AAAA');
  await page.click('#open-link');
  await page.waitForSelector('#share-error');
  assert.equal((await page.$$('#summary-table tbody tr')).length, shown.rows.length);
  assert.deepEqual(page.errors, []);
});

test('an exported JSON file opens, a broken file shows an error', async () => {
  const { page, shown } = demo;
  // What Download JSON offers is the file that opens again.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-json')]);
  const json = await (await download.createReadStream()).toArray().then((b) => Buffer.concat(b).toString());
  const rec = JSON.parse(json);
  assert.equal(rec.schema, 1);
  assert.equal(rec.task, 'VSR');
  const [csvDl] = await Promise.all([page.waitForEvent('download'), page.click('#download-csv')]);
  const csv = await (await csvDl.createReadStream()).toArray().then((b) => Buffer.concat(b).toString());
  assert.match(csv, /^subject_kind,subject,task,trial,/);
  assert.equal(csv.trim().split('\n').length, 1 + Number(shown.trials));

  const other = await openPage(app.browser.context, app.server.url + '#/results');
  await other.setInputFiles('#file-input', { name: 'r.json', mimeType: 'application/json', buffer: Buffer.from(json) });
  assert.deepEqual(await rendered(other), shown);
  await other.setInputFiles('#file-input', { name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from('{"schema": 999}') });
  await other.waitForSelector('#share-error');
  assert.match(await other.textContent('#share-error'), /newer version/);
  assert.deepEqual((await rendered(other, 'error')).rows, shown.rows);
  assert.deepEqual(other.errors, []);
  await other.close();
});

// Papers: every numbered figure and table of the four seed papers and the two 2025 critiques is listed with its status, the published
// numbers the app embeds open as tables and charts, and a Compare entry opens the Compare page on its task.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appUnderTest, openPage } from './helpers.mjs';

const app = appUnderTest();

test('papers: every figure and table, published numbers, and the way to your own', async () => {
  const page = await openPage(app.browser.context, app.server.url + '#/');
  await page.click('#nav-papers');
  await page.waitForSelector('#papers');
  const sections = await page.$$eval('#papers section.paper', (ss) => ss.map((s) => [s.id, s.querySelectorAll('tr.paper-entry').length]));
  assert.deepEqual(sections, [
    ['paper-worm', 23], ['paper-nback', 3], ['paper-lrt', 2], ['paper-minerva', 17], ['paper-latent', 4], ['paper-pi-llm', 1],
  ]);
  assert.equal(Number(await page.getAttribute('#papers', 'data-entries')), 50);
  // Each paper names where a reader finds it (not a file of this repository).
  const sources = await page.$$eval('#papers .paper-source', (ps) => ps.map((p) => [p.textContent, p.querySelector('a').href]));
  assert.equal(sources.length, 6);
  assert.match(sources[5][1], /^https:\/\/arxiv\.org\/abs\/2506\.08184$/);
  assert.match(sources[0][1], /^https:\/\/arxiv\.org\/abs\/2307\.10768$/);
  for (const [text] of sources) assert.doesNotMatch(text, /shared\/seeds/);
  const statuses = new Set(await page.$$eval('tr.paper-entry', (trs) => trs.map((t) => t.dataset.status)));
  for (const s of ['drawn', 'partly']) assert.ok(statuses.has(s), s);
  // Minerva Table 2's published numbers: nine models' columns.
  const t2 = '#paper-minerva tr.paper-entry[data-id="Table 2"] details.paper-published';
  await page.click(`${t2} summary`);
  const header = await page.$$eval(`${t2} thead th`, (ths) => ths.map((t) => t.textContent));
  assert.equal(header.length, 11, JSON.stringify(header));
  assert.match(await page.textContent(`${t2} tbody tr`), /string_search_word.*0\.94/);
  // ...and drawn: one series per model over the table's tasks.
  const chart = `${t2} canvas.spec-plot`;
  await page.waitForSelector(`${chart}[data-drawn="true"]`);
  assert.equal(await page.getAttribute(chart, 'data-series'), '9');
  // PI-LLM: the authors' twelve curves against log10 updates; Number Guessing's sums per model.
  const pi = '#paper-pi-llm tr.paper-entry[data-id="Fig. 1"] details.paper-published';
  await page.click(`${pi} summary`);
  await page.waitForSelector(`${pi} canvas.spec-plot[data-drawn="true"]`);
  assert.equal(await page.getAttribute(`${pi} canvas.spec-plot`, 'data-series'), '12');
  const ng = '#paper-latent tr.paper-entry[data-id="Table 1"] details.paper-published';
  await page.click(`${ng} summary`);
  assert.match(await page.textContent(`${ng} tbody`), /LLaMA-3\.1-405B\s*1\.195/);
  // N-back: every published results file's d′ against N, drawn.
  const nb = await page.$$eval('#paper-nback canvas.spec-plot', (cs) => cs.map((c) => [c.dataset.drawn, Number(c.dataset.series)]));
  assert.ok(nb.length >= 2 && nb.every(([d, n]) => d === 'true' && n >= 1), JSON.stringify(nb));
  // Table A3's published scores: 12 models, every value starred.
  const a3 = '#paper-worm tr.paper-entry[data-id="Table A3"]';
  assert.equal(await page.getAttribute(a3, 'data-status'), 'drawn');
  assert.match(await page.textContent(a3), /drawn by the app/);
  assert.doesNotMatch(await page.textContent('#papers'), /reproduced/i, 'no "REPRODUCED" where it means "drawn"');
  assert.equal(Number(await page.getAttribute(`${a3} details.paper-published`, 'data-rows')), 13);
  // Fig. A8 opens Compare on VIR.
  await page.click('#paper-worm tr.paper-entry[data-id="Fig. A8"] a[data-task="VIR"]');
  await page.waitForSelector('#compare');
  await page.waitForFunction(() => document.querySelector('#cmp-task')?.value === 'VIR');
  assert.deepEqual(page.errors ?? [], []);
  await page.close();
});

// Screenshots of Results and Compare for the docs and issue notes (not a test): the records in
// WMLAB_SHOT_RECORDS (a folder of WM Lab JSON results: a participant, a network and an LLM, as the
// compare test saves them with WMLAB_SHOTS set) opened in the build WMLAB_DIST, on VSR with the human
// curves and the chance model, at desktop width.
//   WMLAB_DIST=dist WMLAB_SHOT_RECORDS=/tmp/shots/records node tests/e2e/bench/shots.mjs OUT_PREFIX
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, openPage } from '../helpers.mjs';

const prefix = process.argv[2] || '/tmp/shot';
const dir = process.env.WMLAB_SHOT_RECORDS;
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => path.join(dir, f));
const server = await serve();
const browser = await launch({ viewport: { width: 1366, height: 800 } });
const WAIT = { timeout: 120_000 };
const settle = (page, sel) => page.waitForFunction((s) => {
  const cs = [...document.querySelectorAll(`${s} canvas`)];
  return cs.length > 0 && cs.every((c) => c.dataset.drawn);
}, sel, WAIT);

// Results: the participant's record (the file whose name says person).
const results = await openPage(browser.context, server.url + '#/results');
await results.setInputFiles('#file-input', files.find((f) => /person/.test(f)));
await results.waitForSelector('#results[data-state="shown"]', WAIT);
await settle(results, '#record');
await results.locator('#record').screenshot({ path: `${prefix}-results.png` });

// Compare: all three on VSR, the people and the chance model.
const cmp = await openPage(browser.context, server.url + '#/compare');
await cmp.setInputFiles('#cmp-file', files);
await cmp.waitForSelector(`#compare[data-chosen="${files.length}"][data-state="ready"]`, WAIT);
await cmp.selectOption('#cmp-task', 'VSR');
await cmp.check('#cmp-chance');
await settle(cmp, '#cmp-plots');
await cmp.locator('#cmp-plots').screenshot({ path: `${prefix}-compare.png` });
console.log(`wrote ${prefix}-results.png and ${prefix}-compare.png from ${files.length} records`);
await browser.context.close();
process.exit(0);

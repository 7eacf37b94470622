// Evaluation time of a shipped pretrained model on the Networks page (prints numbers; not a test).
//   node tests/e2e/bench/eval-bench.mjs      after a build into dist/ (WMLAB_DIST picks it)
// Environment: WMLAB_BENCH_EVAL (comma list of test trials per task id, default "20,400": the old default
// and the one that fills every condition cell), WMLAB_BENCH_BACKEND (cpu or webgpu, default cpu).
// For each count: load the 14-id joint model, press Evaluate, and time until the table is drawn.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serve, launch, openPage, DIST } from '../helpers.mjs';

const counts = (process.env.WMLAB_BENCH_EVAL || '20,400').split(',').map(Number);
const backend = process.env.WMLAB_BENCH_BACKEND || 'cpu';
const WAIT = { timeout: 3_600_000 };
const server = await serve();
const browser = await launch();
const index = JSON.parse(fs.readFileSync(path.join(DIST, 'models', 'index.json'), 'utf8'));
const joint = index.findIndex((c) => c.tasks.length === 14);
console.log(`machine: ${os.cpus()[0]?.model}, ${os.cpus().length} threads; headless Chromium ${browser.context.browser()?.version() ?? ''}; build ${DIST}; backend ${backend}; model ${index[joint].file}`);
for (const n of counts) {
  const page = await openPage(browser.context, server.url + '#/networks');
  page.on('dialog', (d) => d.accept());
  await page.waitForSelector('#networks[data-phase="ready"]', WAIT);
  await page.selectOption('#nn-backend-pick', backend);
  await page.waitForSelector('#nn-pretrained', WAIT);
  await page.selectOption('#nn-pretrained', String(joint));
  await page.click('#nn-load-pretrained');
  await page.waitForFunction((f) => (document.querySelector('#nn-notice')?.textContent || '').includes(`Loaded ${f}`), index[joint].file, WAIT);
  await page.fill('#nn-eval-n', String(n));
  const t0 = Date.now();
  await page.click('#nn-evaluate');
  await page.waitForSelector('#nn-eval #nn-eval-table tbody tr', WAIT);
  const s = (Date.now() - t0) / 1000;
  console.log(`${n} test trials per task id (${14 * n} trials): ${s.toFixed(1)} s, ${(14 * n / s).toFixed(0)} trials/s`);
  await page.close();
}
await browser.context.close();
server.close?.();
process.exit(0);

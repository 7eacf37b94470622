// Frame-timing benchmark (NOT a test; run by hand): a full-length session at normal speed in headless
// Chromium, then the distribution of |actual − intended| duration over every timed frame, read from
// the session's own FrameTiming records (rAF onset/offset).
//
//   node tests/e2e/bench/timing-bench.mjs                       # default study below
//   QUERY='tasks=VIR,CS&tpc=1&practice=0' node tests/e2e/bench/timing-bench.mjs
//   WMLAB_E2E_GPU_COMPOSITING=1 node tests/e2e/bench/timing-bench.mjs  # frames composited through
//                                     SwiftShader's GL, not in software as the tests draw (helpers.mjs)
//
// Needs a built dist/ (tests/e2e/run.sh or trunk build --release). The scripted participant answers
// through the same clicks and keys as the tests (window.__wmlab_test, enabled by
// localStorage.wmlab_test = '1'); wmlab_fast is NOT set, so every duration is the real one.
import { serve, launch, openPage } from '../helpers.mjs';
import { answerStep } from '../participant.mjs';

const QUERY = process.env.QUERY || 'tasks=CD-Color,STS,SFR,nback-verbal&tpc=1&practice=0&n=1&seed=1';

const server = await serve();
const browser = await launch();
try {
  const page = await openPage(browser.context, server.url + '#/');
  await page.evaluate(() => { localStorage.clear(); localStorage.setItem('wmlab_test', '1'); });
  await page.goto(server.url + 'index.html?bench=1#/take?' + QUERY);
  await page.waitForSelector('#take');
  const t0 = Date.now();
  for (;;) {
    await page.waitForFunction(() => {
      const s = document.querySelector('#take')?.dataset.state;
      if (['instructions', 'feedback', 'done', 'error', 'paused'].includes(s)) return true;
      return (s === 'trial' || s === 'practice') && window.__wmlab_test?.awaiting;
    }, null, { timeout: 120_000, polling: 'raf' });
    const s = await page.$eval('#take', (t) => t.dataset.state);
    if (s === 'done' || s === 'error') break;
    if (s === 'instructions') { await page.click('#start'); continue; }
    if (s === 'feedback' || s === 'paused') { await page.click('#continue'); continue; }
    const h = await page.evaluate(() => ({ ...window.__wmlab_test }));
    // Right answers (no-press on N-back non-matches: nothing to do until the window ends).
    if (h.awaiting !== 'match' || h.target === 1) await answerStep(page, h, true, true);
    await page.waitForFunction((seq) => (window.__wmlab_test?.seq ?? 0) > seq, h.seq, { timeout: 120_000, polling: 'raf' });
  }
  const session = await page.evaluate(() => {
    const k = Object.keys(localStorage).find((k) => /^wmlab\.session\.[0-9a-f]+$/.test(k));
    return JSON.parse(localStorage.getItem(k));
  });
  const refresh = session.refresh_ms;
  const frames = session.done.flatMap((d) => d.result.frames.map((f) => ({ ...f, task: d.task })));
  const errs = frames.map((f) => Math.abs(f.offset - f.onset - f.intended_ms)).sort((a, b) => a - b);
  const q = (p) => errs[Math.min(errs.length - 1, Math.max(0, Math.ceil(p * errs.length) - 1))];
  const within = errs.filter((e) => e <= refresh + 1e-6).length / errs.length;
  console.log(`study: ${QUERY}`);
  console.log(`session: ${session.done.length} trials, ${frames.length} timed frames, ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  console.log(`refresh estimate: ${refresh.toFixed(3)} ms (${(1000 / refresh).toFixed(2)} Hz)`);
  console.log(`|actual - intended|: median ${q(0.5).toFixed(3)} ms, p90 ${q(0.9).toFixed(3)} ms, p99 ${q(0.99).toFixed(3)} ms, max ${errs[errs.length - 1].toFixed(3)} ms`);
  console.log(`within ±1 refresh: ${(within * 100).toFixed(2)} %  (goal: 99 % within ±1 refresh, median < 2 ms)`);
  const byIntended = new Map();
  for (const f of frames) {
    const k = f.intended_ms.toFixed(1);
    const e = Math.abs(f.offset - f.onset - f.intended_ms);
    const v = byIntended.get(k) ?? [];
    v.push(e);
    byIntended.set(k, v);
  }
  for (const [k, v] of [...byIntended].sort((a, b) => Number(a[0]) - Number(b[0]))) {
    v.sort((a, b) => a - b);
    console.log(`  intended ${k.padStart(7)} ms: n=${String(v.length).padStart(4)} median |err| ${v[Math.floor(v.length / 2)].toFixed(3)} ms, max ${v[v.length - 1].toFixed(3)} ms`);
  }
} finally {
  await browser.close();
  await server.close();
}

// Load benchmark (NOT a test; run by hand): how big the app's downloads are and how soon it paints, in
// headless Chromium on loopback (no network latency: this measures the browser's own work, mainly
// compiling and starting the wasm). Prints the wasm files' raw and gzip sizes, then per cold load (a
// fresh profile each time) first contentful paint and the time until the app says it is ready
// (body[data-app-ready]), median of RUNS loads.
//
//   node tests/e2e/bench/load-bench.mjs            # RUNS=5 by default; WMLAB_DIST picks the build
//
// Then a participant's first load of a study link on a slow phone (issue 67): Chromium throttled to
// 1.6 Mbit/s down, 150 ms round trips and a CPU 4× slower, from a server that gzips as static hosts
// do. For the same study, opened in the whole app (index.html) and in the participant's page alone
// (take.html): the bytes transferred before the first trial is ready, and the time to it (the first
// instruction screen, after the page has measured the refresh rate), median of RUNS loads.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { serve, launch, DIST } from '../helpers.mjs';

const RUNS = Number(process.env.RUNS || 5);
const dist = DIST;
const wasms = fs.readdirSync(dist).filter((f) => f.endsWith('.wasm')).sort();
// The threaded CPU networks worker (scripts/dev/build-threaded-worker.sh), where the build has it.
if (fs.existsSync(path.join(dist, 'worker-mt'))) {
  wasms.push(...fs.readdirSync(path.join(dist, 'worker-mt')).filter((f) => f.endsWith('.wasm')).map((f) => `worker-mt/${f}`));
}
for (const f of wasms) {
  const b = fs.readFileSync(path.join(dist, f));
  const gz = zlib.gzipSync(b, { level: 9 }).length;
  console.log(`${f.replace(/-[0-9a-f]{16}/, '')}: ${b.length} bytes raw, ${gz} gzip`);
}
const server = await serve();
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const fcp = [];
const ready = [];
try {
  for (let i = 0; i < RUNS; i++) {
    const browser = await launch();
    const page = await browser.context.newPage();
    const t0 = Date.now();
    await page.goto(server.url + '#/');
    await page.waitForSelector('body[data-app-ready="true"]', { timeout: 120_000 });
    ready.push(Date.now() - t0);
    fcp.push(await page.evaluate(() => new Promise((done) => {
      // The paint entries arrive after the frame that painted.
      new PerformanceObserver((l) => {
        const e = l.getEntries().find((x) => x.name === 'first-contentful-paint');
        if (e) done(e.startTime);
      }).observe({ type: 'paint', buffered: true });
      setTimeout(() => done(NaN), 5000);
    })));
    await browser.close();
  }
} finally {
  await server.close();
}
console.log(`first contentful paint: median ${median(fcp).toFixed(0)} ms (${fcp.map((x) => x.toFixed(0)).join(', ')})`);
console.log(`app ready (wasm compiled and started, home page drawn): median ${median(ready)} ms (${ready.join(', ')})`);

// A participant on a slow phone: the same study in the whole app and in the participant's page alone.
const STUDY = 'tasks=SC,VIR,CD-Color&tpc=2&practice=1&seed=11';
const gz = await serve(dist, { gzip: true });
const rows = [];
try {
  for (const pageName of ['index.html', 'take.html']) {
    if (!fs.existsSync(path.join(dist, pageName))) { console.log(`${pageName}: not in this build`); continue; }
    const bytes = [];
    const times = [];
    const appReady = [];
    for (let i = 0; i < RUNS; i++) {
      const browser = await launch();
      const page = await browser.context.newPage();
      const cdp = await browser.context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false, latency: 150, downloadThroughput: 1.6e6 / 8, uploadThroughput: 0.75e6 / 8,
      });
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
      let total = 0;
      cdp.on('Network.loadingFinished', (e) => { total += e.encodedDataLength; });
      const t0 = Date.now();
      await page.goto(`${gz.url}${pageName}#/take?${STUDY}`);
      await page.waitForSelector('body[data-app-ready="true"]', { timeout: 300_000 });
      appReady.push(Date.now() - t0);
      await page.waitForSelector('#take[data-state="instructions"]', { timeout: 300_000 });
      times.push(Date.now() - t0);
      bytes.push(total);
      await browser.close();
    }
    rows.push({ pageName, bytes: median(bytes), appReady: median(appReady), ready: median(times), all: times });
  }
} finally {
  await gz.close();
}
console.log(`\nstudy link ${STUDY} on Fast 3G (1.6 Mbit/s, 150 ms) with CPU ×4, gzip, median of ${RUNS}:`);
for (const r of rows) {
  console.log(`${r.pageName.padEnd(11)} ${(r.bytes / 1024).toFixed(0).padStart(6)} KiB transferred · page started ${(r.appReady / 1000).toFixed(1)} s · first trial ready ${(r.ready / 1000).toFixed(1)} s (${r.all.map((x) => (x / 1000).toFixed(1)).join(', ')})`);
}

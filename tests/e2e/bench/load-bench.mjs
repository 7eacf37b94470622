// Load benchmark (NOT a test; run by hand): how big the app's downloads are and how soon it paints, in
// headless Chromium on loopback (no network latency: this measures the browser's own work, mainly
// compiling and starting the wasm). Prints the wasm files' raw and gzip sizes, then per cold load (a
// fresh profile each time) first contentful paint and the time until the app says it is ready
// (body[data-app-ready]), median of RUNS loads.
//
//   node tests/e2e/bench/load-bench.mjs            # RUNS=5 by default; WMLAB_DIST picks the build
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

// Shared helpers of the end-to-end tests: a static server for dist/ and headless Chromium.
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { before, after } from 'node:test';

const here = path.dirname(fileURLToPath(import.meta.url));
export const DIST = process.env.WMLAB_DIST || path.resolve(here, '../../dist');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.png': 'image/png',
};

/** Serve DIST on 127.0.0.1 at a free port, under `prefix` (a sub-path such as `/lab/wmlab/`, as a
 * static host would; requests outside it get 404 and are listed in `outside`). Resolves to
 * { url, close, outside }, `url` ending in the prefix. */
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.wasm', '.json', '.txt', '.svg', '.csv']);

export function serve(root = DIST, { prefix = '/', isolated = false, hide = [], gzip = false } = {}) {
  if (!fs.existsSync(path.join(root, 'index.html'))) {
    throw new Error(`${root}/index.html is missing: build the app first (tests/e2e/run.sh)`);
  }
  const outside = [];
  const server = http.createServer((req, res) => {
    let urlPath = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (!urlPath.startsWith(prefix)) {
      outside.push(urlPath);
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not under ' + prefix);
      return;
    }
    urlPath = '/' + urlPath.slice(prefix.length);
    // `hide`: paths answered 404 as if the build lacked them (a host that did not upload a folder).
    if (hide.some((h) => urlPath.startsWith(h))) { res.writeHead(404, { 'content-type': 'text/plain' }).end('hidden'); return; }
    let file = path.normalize(path.join(root, urlPath));
    if (!file.startsWith(root)) { res.writeHead(403).end(); return; }
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
    fs.readFile(file, (err, data) => {
      if (err) { res.writeHead(404, { 'content-type': 'text/plain' }).end('not found'); return; }
      // `gzip`: compressed as static hosts send it (GitHub Pages, nginx's gzip_static; zlib level 6).
      const packed = gzip && COMPRESSIBLE.has(path.extname(file)) && /\bgzip\b/.test(req.headers['accept-encoding'] || '');
      res.writeHead(200, {
        'content-type': TYPES[path.extname(file)] || 'application/octet-stream',
        'cache-control': 'no-store',
        ...(packed ? { 'content-encoding': 'gzip', vary: 'accept-encoding' } : {}),
        // `isolated`: the headers docs/hosting.md asks of a host for the threaded CPU worker.
        ...(isolated ? { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' } : {}),
      });
      res.end(packed ? zlib.gzipSync(data, { level: 6 }) : data);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({ url: `http://127.0.0.1:${port}${prefix}`, outside, close: () => new Promise((r) => server.close(r)) });
    });
  });
}

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

/**
 * Chromium's switches that draw pages in software (Skia on the CPU) instead of through SwiftShader's
 * emulated GL, which made the GPU process the largest user of the CPU in the participant tests (every
 * presented frame composited through it; docs/ci.md). WebGPU keeps its SwiftShader adapter. Set
 * WMLAB_E2E_GPU_COMPOSITING=1 (e.g. for the timing benchmark) to composite through SwiftShader again.
 */
const SOFTWARE_DRAWING = process.env.WMLAB_E2E_GPU_COMPOSITING === '1' ? []
  : ['--disable-gpu-compositing', '--disable-gpu-rasterization', '--disable-accelerated-2d-canvas'];

/** Headless Chromium with SwiftShader WebGPU and no background networking, fresh profile; `options` are
 * Playwright context options (e.g. a phone's viewport with touch). */
export async function launch(options = {}) {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wmlab-e2e-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 1000 },
    deviceScaleFactor: 1,
    ...options,
    args: [
      '--headless=new', '--no-sandbox',
      '--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-vulkan=swiftshader',
      '--use-webgpu-adapter=swiftshader', '--use-angle=swiftshader',
      '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run',
      '--disable-dev-shm-usage',
      ...SOFTWARE_DRAWING,
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** A new page that records console errors and uncaught exceptions (wasm panics land there). */
export async function openPage(context, url) {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  const log = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
    if (m.type() === 'error' || m.type() === 'warning') log.push(`${m.type()}: ${m.text()}`);
  });
  page.errors = errors;
  // Errors and warnings, for a failing test's message (warnings carry e.g. a history storage error).
  page.log = log;
  await page.goto(url);
  await page.waitForSelector('body[data-app-ready="true"]', { timeout: 60_000 });
  return page;
}

/** A share payload for an arbitrary JSON value, encoded as the app does (raw DEFLATE + base64url). */
export function encodeShare(value) {
  const json = Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));
  return '1.' + zlib.deflateRawSync(json, { level: 9 }).toString('base64url');
}

/** Canvas pixel statistics: distinct colours (sampled) and a digest, read in the page. */
export async function canvasStats(page, selector) {
  return page.$eval(selector, (c) => {
    const ctx = c.getContext('2d');
    const { data } = ctx.getImageData(0, 0, c.width, c.height);
    const colours = new Set();
    let hash = 2166136261 >>> 0;
    let black = 0;
    for (let i = 0; i < data.length; i += 4) {
      const v = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
      if (v === 0) black++;
      if (colours.size < 4096) colours.add(v);
      hash = Math.imul(hash ^ v, 16777619) >>> 0;
    }
    return { width: c.width, height: c.height, colours: colours.size, allBlack: black === data.length / 4, hash };
  });
}

/**
 * The built app served on loopback and one headless Chromium for a test file: set in `before`, closed in
 * `after` (the pair every page test needs). Use `app.server.url` and `app.browser.context`.
 */
export function appUnderTest(serveOptions = {}) {
  const app = { server: null, browser: null };
  before(async () => {
    app.server = await serve(DIST, serveOptions);
    app.browser = await launch();
  });
  after(async () => {
    await app.browser?.close();
    await app.server?.close();
  });
  return app;
}

/**
 * Networks page: set one field of the model's settings through the settings JSON (the form has no field of
 * its own for it, e.g. `encoder`), and wait until the page has taken it.
 */
export async function setModelSetting(page, key, value, wait = { timeout: 600_000 }) {
  const edited = JSON.parse(await page.inputValue('#nn-config-json'));
  edited.model[key] = value;
  await page.$eval('#nn-json-summary', (s) => { s.parentElement.open = true; });
  await page.fill('#nn-config-json', JSON.stringify(edited, null, 2));
  await page.press('#nn-config-json', 'Tab');
  await page.waitForFunction(([k, v]) => JSON.parse(document.querySelector('#nn-config-json').value).model[k] === v, [key, value], wait);
}

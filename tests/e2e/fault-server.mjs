// A fake OpenAI-compatible server for the LLM page's fault-injection tests (127.0.0.1, random port,
// open CORS with preflight). The mode is the first path segment: http://127.0.0.1:PORT/<mode>/v1
//   ok      answer at once ("The value is 4242.")
//   faults  a global sequence: 429 (Retry-After: 1), 500, a stall (no answer until the client gives
//           up), a 200 with malformed JSON, then answers
//   fail    always 500
//   gate    answer the first `gateFree` requests at once, hold the rest until `release()`
//   noimage a text-only model: 400 for any request carrying an image, else as `ok`
//   batch   OpenAI's Batch API as well: POST /files (the JSONL items, multipart), POST /batches,
//           GET /batches/batch_1 ("in_progress" while `batch.hold` or at the first look, then
//           "completed"), GET /files/file-out/content (every item answered but the first, which
//           fails and is asked again as an ordinary request, answered as `ok`)
// Requests of the visual suite (image parts, or a question in its answer format) are checked and answered
// in every mode: each image part must be a data URL of a PNG whose signature, IHDR size and zlib data
// decode (`visionSize`, 96 for the one-image probe); what is wrong goes in `visionProblems`, images that
// pass are counted in `images`. The answer is the first option of the format the last question names.
// Every chat request is counted per prompt (hash of the model and its messages): `received` and
// `answered` (the answer was fully written while the client was still connected); `models` counts the
// requests each model name received; `shapes` keeps each request's number of messages and last text.
import http from 'node:http';
import crypto from 'node:crypto';
import zlib from 'node:zlib';

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': '*, authorization, content-type',
  'access-control-expose-headers': 'retry-after',
  'access-control-max-age': '600',
};

function completion(text) {
  return JSON.stringify({
    id: 'chatcmpl-fake', object: 'chat.completion', model: 'fake',
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 11, completion_tokens: 5, total_tokens: 16 },
  });
}

/** Check one PNG data URL: size `want`×`want`, decodable. Returns a problem or null. */
function checkPng(url, want) {
  const prefix = 'data:image/png;base64,';
  if (typeof url !== 'string' || !url.startsWith(prefix)) return `not a PNG data URL: ${String(url).slice(0, 40)}`;
  const b = Buffer.from(url.slice(prefix.length), 'base64');
  if (b.subarray(0, 8).toString('hex') !== '89504e470d0a1a0a') return 'bad PNG signature';
  if (b.subarray(12, 16).toString() !== 'IHDR') return 'no IHDR first';
  const w = b.readUInt32BE(16), h = b.readUInt32BE(20);
  if (w !== want || h !== want) return `image ${w}×${h}, expected ${want}`;
  const idat = [];
  for (let i = 8; i + 12 <= b.length;) {
    const len = b.readUInt32BE(i);
    const kind = b.subarray(i + 4, i + 8).toString();
    if (kind === 'IDAT') idat.push(b.subarray(i + 8, i + 8 + len));
    i += 12 + len;
  }
  try {
    const raw = zlib.inflateSync(Buffer.concat(idat));
    if (raw.length !== (w * 3 + 1) * h) return `pixel data of ${raw.length} bytes`;
  } catch (e) { return `image data does not inflate: ${e.message}`; }
  return null;
}

/** The first option of the answer format a visual-suite question names (null: not such a question). */
export function visionAnswer(q) {
  let m = q.match(/Answer with "([^"]+)" or "/);
  if (m) return m[1];
  m = q.match(/Answer with (\d+) different numbers from 1 to/);
  if (m) return Array.from({ length: Number(m[1]) }, (_, i) => i + 1).join(', ');
  if (/Answer with one number from 1 to/.test(q)) return '1';
  if (/What colour is the square/.test(q)) return 'Red.';
  return null;
}

// `reply`: the answer text, or a function of the last message's text that returns it.
export async function startFaultServer({ gateFree = 0, reply = 'The value is 4242.', visionSize = 384 } = {}) {
  const prompts = new Map(); // hash → { received, answered }
  const shapes = []; // per chat request: its number of messages and its last message's text
  const models = new Map(); // model → requests received
  const auth = [];
  const held = new Set();
  let faultSeq = 0;
  let gateOpen = false;
  let total = 0;
  const visionProblems = [];
  let images = 0;
  const batch = { items: [], creates: 0, looks: 0, hold: false };

  const stat = (h) => {
    if (!prompts.has(h)) prompts.set(h, { received: 0, answered: 0 });
    return prompts.get(h);
  };

  function answer(res, h, status, body, headers = {}) {
    if (res.destroyed || res.writableEnded) return;
    res.writeHead(status, { ...CORS, 'content-type': 'application/json', ...headers });
    res.end(body, () => { if (status === 200 && h) stat(h).answered++; });
  }

  const server = http.createServer((req, res) => {
    if (req.method === 'OPTIONS') { res.writeHead(204, CORS).end(); return; }
    const url = new URL(req.url, 'http://x');
    const mode = url.pathname.split('/')[1];
    if (req.headers.authorization) auth.push(req.headers.authorization);
    if (req.method === 'GET' && url.pathname.endsWith('/models')) {
      answer(res, null, 200, JSON.stringify({ object: 'list', data: [{ id: 'fake-model', object: 'model' }] }));
      return;
    }
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      if (mode === 'batch' && !url.pathname.endsWith('/chat/completions')) {
        const path = url.pathname.slice('/batch/v1'.length);
        if (req.method === 'POST' && path === '/files') {
          batch.items = body.split(/\r?\n/).filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
          answer(res, null, 200, JSON.stringify({ id: 'file-in', object: 'file', purpose: 'batch' }));
        } else if (req.method === 'POST' && path === '/batches') {
          batch.creates++;
          answer(res, null, 200, JSON.stringify({ id: 'batch_1', object: 'batch', status: 'validating' }));
        } else if (path === '/batches/batch_1') {
          batch.looks++;
          const running = batch.hold || batch.looks === 1;
          answer(res, null, 200, JSON.stringify(running
            ? { id: 'batch_1', status: 'in_progress', request_counts: { total: batch.items.length, completed: 0, failed: 0 } }
            : { id: 'batch_1', status: 'completed', output_file_id: 'file-out' }));
        } else if (path === '/files/file-out/content') {
          const lines = batch.items.map((it, i) => JSON.stringify(i === 0
            ? { custom_id: it.custom_id, response: { status_code: 500, body: { error: { message: 'boom' } } } }
            : { custom_id: it.custom_id, response: { status_code: 200, body: JSON.parse(completion(reply)) } }));
          answer(res, null, 200, lines.join('\n') + '\n');
        } else {
          answer(res, null, 404, JSON.stringify({ error: { message: `no ${req.method} ${path}` } }));
        }
        return;
      }
      let h = 'unparsed';
      let msgs = [];
      let model = '';
      try {
        const parsed = JSON.parse(body);
        msgs = parsed.messages || [];
        model = String(parsed.model ?? '');
        h = crypto.createHash('sha1').update(JSON.stringify([model, msgs])).digest('hex');
      } catch { /* counted as unparsed */ }
      stat(h).received++;
      models.set(model, (models.get(model) ?? 0) + 1);
      total++;
      // The visual suite: check every image part, answer the last question's format.
      let withImages = false;
      let lastText = '';
      for (const m of msgs) {
        if (typeof m.content === 'string') { lastText = m.content; continue; }
        for (const p of m.content || []) {
          if (p.type === 'text') lastText = p.text;
          else if (p.type === 'image_url') {
            withImages = true;
            const want = /What colour is the square/.test(JSON.stringify(m.content)) ? 96 : visionSize;
            const problem = checkPng(p.image_url?.url, want);
            if (problem) visionProblems.push(problem); else images++;
          } else visionProblems.push(`unknown content part ${p.type}`);
        }
      }
      if (shapes.length < 10_000) shapes.push({ count: msgs.length, last: lastText });
      if (mode === 'noimage' && withImages) {
        answer(res, h, 400, JSON.stringify({ error: { message: 'image input is not supported by this model' } }));
        return;
      }
      const text = visionAnswer(lastText) ?? (typeof reply === 'function' ? reply(lastText) : reply);
      const ok = () => answer(res, h, 200, completion(text));
      if (mode === 'faults') {
        const k = faultSeq++;
        if (k === 0) answer(res, h, 429, JSON.stringify({ error: { message: 'Rate limit reached' } }), { 'retry-after': '1' });
        else if (k === 1) answer(res, h, 500, JSON.stringify({ error: { message: 'internal error' } }));
        else if (k === 2) { held.add(res); res.on('close', () => held.delete(res)); }
        else if (k === 3) answer(res, h, 200, '{"choices": [ {"message": not json');
        else ok();
      } else if (mode === 'fail') {
        answer(res, h, 500, JSON.stringify({ error: { message: 'always failing' } }));
      } else if (mode === 'gate') {
        if (gateOpen || total <= gateFree) ok();
        else {
          const entry = { res, go: ok };
          held.add(entry);
          res.on('close', () => held.delete(entry));
        }
      } else {
        ok();
      }
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  return {
    base: (mode) => `http://127.0.0.1:${port}/${mode}/v1`,
    prompts,
    shapes,
    models,
    auth,
    visionProblems,
    get images() { return images; },
    batch,
    set visionSize(v) { visionSize = v; },
    get held() { return held.size; },
    get total() { return total; },
    release() {
      gateOpen = true;
      for (const e of held) if (e.go) e.go();
      held.clear();
    },
    reset(opts = {}) {
      prompts.clear(); shapes.length = 0; models.clear(); auth.length = 0; faultSeq = 0; total = 0; gateOpen = false;
      visionProblems.length = 0; images = 0;
      Object.assign(batch, { items: [], creates: 0, looks: 0, hold: false });
      if (opts.gateFree !== undefined) gateFree = opts.gateFree;
    },
    close() {
      for (const e of held) (e.res || e).destroy?.();
      server.closeAllConnections?.();
      return new Promise((r) => server.close(r));
    },
  };
}

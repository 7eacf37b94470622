// A fake OpenAI-compatible server for the LLM page's fault-injection tests (127.0.0.1, random port,
// open CORS with preflight). The mode is the first path segment: http://127.0.0.1:PORT/<mode>/v1
//   ok      answer at once ("The value is 4242.")
//   faults  a global sequence: 429 (Retry-After: 1), 500, a stall (no answer until the client gives
//           up), a 200 with malformed JSON, then answers
//   fail    always 500
//   gate    answer the first `gateFree` requests at once, hold the rest until `release()`
// Every chat request is counted per prompt (hash of its messages): `received` and `answered` (the
// answer was fully written while the client was still connected).
import http from 'node:http';
import crypto from 'node:crypto';

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

export async function startFaultServer({ gateFree = 0, reply = 'The value is 4242.' } = {}) {
  const prompts = new Map(); // hash → { received, answered }
  const auth = [];
  const held = new Set();
  let faultSeq = 0;
  let gateOpen = false;
  let total = 0;

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
      let h = 'unparsed';
      try {
        h = crypto.createHash('sha1').update(JSON.stringify(JSON.parse(body).messages)).digest('hex');
      } catch { /* counted as unparsed */ }
      stat(h).received++;
      total++;
      const ok = () => answer(res, h, 200, completion(reply));
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
    auth,
    get held() { return held.size; },
    get total() { return total; },
    release() {
      gateOpen = true;
      for (const e of held) if (e.go) e.go();
      held.clear();
    },
    reset(opts = {}) {
      prompts.clear(); auth.length = 0; faultSeq = 0; total = 0; gateOpen = false;
      if (opts.gateFree !== undefined) gateFree = opts.gateFree;
    },
    close() {
      for (const e of held) (e.res || e).destroy?.();
      server.closeAllConnections?.();
      return new Promise((r) => server.close(r));
    },
  };
}

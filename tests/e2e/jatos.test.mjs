// The JATOS study archive (issue 18): scripts/dev/jatos-pack.sh packs the built app (dist/) and
// scripts/dev/check-jzip.py checks the archive against what JATOS 3.x's "Import study" requires (one .jas at
// the root, version 3, the study, component and batch fields with their types and limits, no HTML in the
// text fields, exactly one assets folder holding the component's HTML file). A broken archive must fail
// the checker, so the check is known to bite.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');

test('the JATOS archive is what JATOS imports', () => {
  assert.ok(fs.existsSync(path.join(root, 'dist', 'index.html')), 'dist/ is built');
  const out = execFileSync(path.join(root, 'scripts', 'dev', 'jatos-pack.sh'), {
    cwd: root, env: { ...process.env, QUERY: 'tasks=VIR,CD-Color&tpc=1&practice=1&pid=j1' },
  }).toString();
  assert.match(out, /wmlab\.jzip: \d+ bytes/);
  const jzip = path.join(root, 'dist-jatos', 'wmlab.jzip');
  const ok = spawnSync('python3', [path.join(root, 'scripts', 'dev', 'check-jzip.py'), jzip, '--strict']);
  assert.equal(ok.status, 0, ok.stdout.toString() + ok.stderr.toString());
  // The same study with HTML in its description: refused.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wmlab-jzip-'));
  const broken = path.join(dir, 'broken.jzip');
  execFileSync('python3', ['-c', `
import json, sys, zipfile
src, dst = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(src) as a, zipfile.ZipFile(dst, 'w') as b:
    for i in a.infolist():
        data = a.read(i.filename)
        if i.filename.endswith('.jas'):
            j = json.loads(data)
            j['data']['description'] = '<b>bold</b>'
            data = json.dumps(j).encode()
        b.writestr(i, data)
`, jzip, broken]);
  const bad = spawnSync('python3', [path.join(root, 'scripts', 'dev', 'check-jzip.py'), broken]);
  assert.equal(bad.status, 1);
  assert.match(bad.stdout.toString() + bad.stderr.toString(), /description/);
  fs.rmSync(dir, { recursive: true, force: true });
});

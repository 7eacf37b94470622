// The researcher's dashboard (issue 18): two participants take a VSR study here and download their
// results (one as JSON, one as CSV, as DataPipe files it); the dashboard reads both, excludes them as
// "too fast" under a response-time rule no one meets and says why, includes them when it is relaxed, draws the group's mean with error bars beside the human curves, refuses a
// file that is not a result by name, and writes one long CSV of every trial and a Psych-DS zip that
// Python's zipfile opens.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { appUnderTest, openPage } from './helpers.mjs';
import { participantPage, takeStudy } from './participant.mjs';

const app = appUnderTest();

async function download(page, selector) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return fs.readFileSync(await dl.path());
}

test('many participants: exclusions with reasons, the group against the humans, one CSV, Psych-DS', { timeout: 300_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wmlab-dash-'));
  const files = [];
  for (const [pid, csv] of [['dash-1', false], ['dash-2', true]]) {
    const page = await participantPage(app, `#/take?tasks=VSR&tpc=1&practice=0&seed=${pid.length + files.length}&pid=${pid}`);
    assert.equal(await takeStudy(page, (g) => pid === 'dash-1' || g % 2 === 0), 'done');
    const f = path.join(dir, `${pid}.${csv ? 'csv' : 'json'}`);
    fs.writeFileSync(f, await download(page, csv ? '#download-csv' : '#download-json'));
    files.push(f);
    await page.close();
  }
  const bad = path.join(dir, 'notes.json');
  fs.writeFileSync(bad, '{"hello": 1}');

  const page = await openPage(app.browser.context, app.server.url + '#/dashboard');
  await page.waitForSelector('#dashboard');
  await page.setInputFiles('#dash-file', [...files, bad]);
  await page.waitForSelector('#dashboard[data-count="2"][data-busy="0"]');
  assert.match(await page.textContent('#dash-error'), /notes\.json/);
  const rows = () => page.$$eval('#dash-participants tr.dash-row', (trs) => trs.map((tr) => ({
    id: tr.dataset.id, excluded: tr.dataset.excluded, why: tr.querySelector('.dash-reasons').textContent,
  })));
  let r = await rows();
  assert.deepEqual(r.map((x) => x.id).sort(), ['dash-1', 'dash-2']);
  // A rule no one meets: both excluded, each with the reason in words.
  await page.fill('#dash-rule-rt', '100000');
  await page.waitForSelector('#dashboard[data-included="0"]');
  r = await rows();
  for (const x of r) {
    assert.equal(x.excluded, 'true', JSON.stringify(x));
    assert.match(x.why, /too fast: median response time \d+ ms \(rule: at least 100000 ms\)/);
  }
  // Relax the rule: both in; the group plot has error bars and the human curves.
  await page.fill('#dash-rule-rt', '0');
  await page.waitForSelector('#dashboard[data-included="2"]');
  r = await rows();
  assert.ok(r.every((x) => x.excluded === 'false' && x.why === 'included'));
  // What they saw, from the JSON and from the CSV alike: this browser is automated (Playwright), a desktop.
  await page.check('#dash-rule-bots');
  await page.waitForSelector('#dashboard[data-included="0"]');
  for (const x of await rows()) assert.match(x.why, /the browser said it was automated/, JSON.stringify(x));
  await page.uncheck('#dash-rule-bots');
  await page.check('#dash-rule-touch');
  await page.waitForSelector('#dashboard[data-included="2"]');
  await page.uncheck('#dash-rule-touch');
  await page.waitForSelector('#dash-plots canvas.dash-plot[data-drawn="true"]');
  const plots = await page.$$eval('#dash-plots canvas.dash-plot', (cs) => cs.map((c) => ({ panel: c.dataset.panel, bars: Number(c.dataset.bars), series: Number(c.dataset.series) })));
  assert.ok(plots.length >= 1, JSON.stringify(plots));
  assert.ok(plots.some((p) => p.bars > 0), `error bars over the two participants: ${JSON.stringify(plots)}`);
  assert.ok(plots.every((p) => p.series >= 2), 'the group and the people of the paper');
  // A bad rule value is named, nothing is lost.
  await page.fill('#dash-rule-blurs', 'many');
  await page.waitForSelector('#dash-rule-error');
  assert.match(await page.textContent('#dash-rule-error'), /Losses of focus: “many”/);
  await page.fill('#dash-rule-blurs', '3');
  // One long CSV: every trial of both, with source and exclusion columns.
  const csv = (await download(page, '#dash-download-csv')).toString('utf8').trim().split('\n');
  assert.match(csv[0], /^source,excluded,subject_kind,subject,task,trial,/);
  const json = JSON.parse(fs.readFileSync(files[0], 'utf8'));
  assert.ok(csv.length - 1 >= json.trials.length + 8, `${csv.length - 1} rows`);
  assert.ok(csv.slice(1).some((l) => l.startsWith('dash-1.json,,person,participant dash-1,VSR,')));
  assert.ok(csv.slice(1).some((l) => l.startsWith('dash-2.csv,,person,participant dash-2,VSR,')));
  // Psych-DS: a zip that a standard reader opens, with the description and one file per session.
  const zip = path.join(dir, 'ds.zip');
  fs.writeFileSync(zip, await download(page, '#dash-download-psychds'));
  const listing = JSON.parse(execFileSync('python3', ['-c', `
import json, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
assert z.testzip() is None
d = json.loads(z.read('wmlab-psychds/dataset_description.json'))
print(json.dumps({'names': sorted(z.namelist()), 'type': d['@type'], 'vars': len(d['variableMeasured'])}))
`, zip]).toString());
  assert.equal(listing.type, 'Dataset');
  assert.ok(listing.vars > 5);
  const data = listing.names.filter((n) => n.startsWith('wmlab-psychds/data/'));
  assert.deepEqual(data.map((n) => n.replace(/_session-\d+/, '')).sort(),
    ['wmlab-psychds/data/study-wmlab_subject-dash1_data.csv', 'wmlab-psychds/data/study-wmlab_subject-dash2_data.csv']);
  assert.deepEqual(page.errors, []);
  await page.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

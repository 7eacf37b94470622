// The scripted participant of people.test.mjs and people-delivery.test.mjs (two files, so that the
// browser tests' lanes can take them side by side): a page with the test switches on, a taker that
// answers until done, the saved session, and a CSV parser.
import { hook, nextScreen, answered, answerStep, participantPage as participantPageOf } from './participant.mjs';

/** The helpers bound to one file's app (its browser and server). */
export function peopleKit(app) {
  /** A page with the test switches on (fresh storage unless keep). */
  const participantPage = (hash, { keep = false, page = null } = {}) =>
    participantPageOf(app, hash, { clear: !keep, page });

  let flip = 0;
  /** Answer the awaited step (keys on every other answer); returns the stored answer per step. */
  const answer = (page, h, right) => answerStep(page, h, right, (flip++ % 2) === 0);

  /**
   * Take the session until done (or until `stopAfter` trials were completed in this call).
   * `right(global, step)` decides right/wrong. Returns the log of given answers per global trial.
   */
  async function take(page, { right = () => true, stopAfter = Infinity, log = new Map() } = {}) {
    let completed = 0;
    let lastGlobal = null;
    for (;;) {
      const s = await nextScreen(page);
      if (s === 'done' || s === 'error' || s === 'survey') return { log, state: s };
      if (s === 'instructions') { await page.click('#start'); continue; }
      if (s === 'feedback') { await page.click('#continue'); continue; }
      if (s === 'paused') { await page.click('#continue'); continue; }
      const h = await hook(page);
      if (!h?.awaiting) continue;
      if (lastGlobal !== null && h.global !== lastGlobal) {
        completed++;
        if (completed >= stopAfter) return { log, state: s };
      }
      lastGlobal = h.global;
      const isRight = right(h.global, h.step);
      const given = await answer(page, h, isRight);
      if (!log.has(h.global)) log.set(h.global, []);
      given.forEach((a, i) => log.get(h.global).push({ step: h.step + i, answer: a, right: isRight, task: h.task }));
      await answered(page, h);
    }
  }

  return { participantPage, answer, take };
}

export async function savedSession(page) {
  return page.evaluate(() => {
    const k = Object.keys(localStorage).find((k) => /^wmlab\.session\.[0-9a-f]+$/.test(k));
    return k ? JSON.parse(localStorage.getItem(k)) : null;
  });
}

/** Minimal CSV parser (quoted fields, doubled quotes). */
export function parseCsv(text) {
  const rows = [];
  let row = [], field = '', q = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (q) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i++; } else if (c === '"') q = false; else field += c;
    } else if (c === '"') q = true;
    else if (c === ',') { row.push(field); field = ''; }
    else if (c === '\n') { row.push(field); rows.push(row); row = []; field = ''; }
    else if (c !== '\r') field += c;
  }
  if (field || row.length) { row.push(field); rows.push(row); }
  return rows;
}

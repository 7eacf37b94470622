// A scripted participant for the browser tests and the timing benchmark: it reads the current step and
// its correct answer from window.__wmlab_test (only there with localStorage.wmlab_test = '1') and answers
// with real clicks, taps and keys, rightly or wrongly. One copy for every file that takes a study.
import assert from 'node:assert/strict';

/** The participant page's state (`#take[data-state]`). */
export const takeState = (page) => page.$eval('#take', (t) => t.dataset.state);

/** The test hook (a copy), or null. */
export const hook = (page) => page.evaluate(() => window.__wmlab_test ? { ...window.__wmlab_test } : null);

/** Wait for the next screen that needs the participant; returns its state. */
export async function nextScreen(page, timeout = 30_000) {
  await page.waitForFunction(() => {
    const s = document.querySelector('#take')?.dataset.state;
    if (['instructions', 'feedback', 'done', 'error', 'offer', 'paused', 'chinrest', 'no-fit', 'survey'].includes(s)) return true;
    const h = window.__wmlab_test;
    return (s === 'trial' || s === 'practice') && h && h.awaiting;
  }, null, { timeout, polling: 'raf' });
  return takeState(page);
}

/** Wait until the page took the answer (the hook moved on). */
export async function answered(page, h, timeout = 30_000) {
  await page.waitForFunction((seq) => (window.__wmlab_test?.seq ?? 0) > seq, h.seq, { timeout, polling: 'raf' });
}

const marks = (page) => page.$$eval('#take .overlay button.selected', (b) => b.map((x) => [x.id, x.textContent.trim()]));

/**
 * Answer the awaited step `h` (rightly or wrongly; by clicks, keys or touch taps: see `how`). Recall
 * answers first choose a stray item and take it back (Undo, Backspace, or a second click), checking
 * the marks on the way. Returns what the session stores, one entry per step the answer covers:
 * a class, a list of cells, null for an N-back "no press", or (PI-LLM) one typed value per key.
 */
export async function answerStep(page, h, right, how = false) {
  const t = h.target;
  // how: true or 'key' (keys where a key exists), false or 'click', 'tap' (touch taps; the page's context
  // must have touch).
  const useKey = how === true || how === 'key';
  const tap = how === 'tap';
  const press = (sel) => (tap ? page.tap(sel) : page.click(sel));
  const count = (sel) => page.$$eval(sel, (b) => b.length);
  switch (h.awaiting) {
    case 'binary': {
      const a = right ? t : 1 - t;
      if (useKey) await page.keyboard.press(a === 0 ? 'f' : 'j');
      else await press(`#btn-${a}`);
      return [a];
    }
    case 'choice': {
      const n = await count('#take .overlay button.opt');
      const a = right ? t : (t + 1) % n;
      if (useKey && n <= 9) await page.keyboard.press(String(a + 1));
      else await press(`#opt-${a}`);
      return [a];
    }
    case 'order': {
      // Serial recall: the places in order; each click is marked with its number at once.
      const n = await count('#take .overlay button.opt');
      const seq = right ? t : t.map((x) => (x + 1) % n);
      const stray = [...Array(n).keys()].find((x) => !seq.includes(x));
      if (stray !== undefined) {
        await press(`#opt-${stray}`);
        assert.deepEqual(await marks(page), [[`opt-${stray}`, '1']], 'a click is marked with its number');
        if (useKey) await page.keyboard.press('Backspace');
        else await press(`#opt-${stray}`);
        assert.deepEqual(await marks(page), [], 'and taken back');
      }
      for (const [i, x] of seq.entries()) {
        assert.equal(await page.$eval('#confirm', (b) => b.disabled), true, `Done waits for all ${seq.length}`);
        if (useKey) await page.keyboard.press(String(x + 1));
        else await press(`#opt-${x}`);
        assert.equal(await page.textContent(`#opt-${x} .mark`), String(i + 1));
      }
      assert.equal(await page.textContent('#chosen-count'), `${seq.length} of ${seq.length} chosen`);
      if (useKey) await page.keyboard.press('Enter');
      else await press('#confirm');
      return seq;
    }
    case 'cells': {
      // Free recall: as many squares as were shown, in any order; a chosen square is marked.
      const n = await count('#take .overlay button.cell');
      let cells = t.slice();
      if (!right) {
        cells = t.length > 1 ? [t[0]] : [];
        for (let c = 0; cells.length < t.length; c++) if (!t.includes(c)) cells.push(c);
      }
      const stray = [...Array(n).keys()].find((x) => !cells.includes(x));
      await press(`#cell-${stray}`);
      assert.deepEqual((await marks(page)).map((m) => m[0]), [`cell-${stray}`]);
      await press('#undo');
      for (const c of cells) await press(`#cell-${c}`);
      if (useKey) await page.keyboard.press('Enter');
      else await press('#confirm');
      return [cells];
    }
    case 'match': {
      const hit = right ? t === 1 : t !== 1;
      if (hit) {
        if (useKey) await page.keyboard.press(' ');
        else await press('#match');
        return [1];
      }
      await press('#nomatch');
      return [null];
    }
    case 'typed': {
      // PI-LLM: a text field per key, labelled with it, the first focused; the last values typed (the
      // first in capitals: case does not count) or a wrong word. `right` may be one flag per key. Keys:
      // Enter moves to the next field and sends from the last; else fields filled and "Done".
      await page.waitForSelector('#take #typed-0');
      const n = await count('#take input.typed');
      assert.equal(n, t.length, 'a field per key');
      assert.equal(await page.$eval('#take .stage-wrap', (d) => getComputedStyle(d).display), 'none', 'the stimulus gives way to the form');
      const ok = (i) => (Array.isArray(right) ? right[i] : right);
      const values = t.map((v, i) => (ok(i) ? (i === 0 ? v.toUpperCase() : v) : `${v}zz`));
      if (useKey) {
        for (const [i, v] of values.entries()) {
          await page.waitForFunction((id) => document.activeElement?.id === id, `typed-${i}`);
          await page.keyboard.type(v);
          await page.keyboard.press('Enter');
        }
      } else {
        for (const [i, v] of values.entries()) await page.fill(`#typed-${i}`, v);
        await press('#typed-done');
      }
      return values;
    }
    default: throw new Error('unknown awaiting ' + h.awaiting);
  }
}

/**
 * A participant's page for `hash` (`#/take?…`) with the test switches on (`app` from appUnderTest):
 * a new page unless `page` is given, the origin's storage cleared first when `clear`.
 */
export async function participantPage(app, hash, { clear = false, page = null } = {}) {
  const { openPage } = await import('./helpers.mjs');
  const p = page ?? await openPage(app.browser.context, app.server.url + '#/');
  await p.evaluate((clear) => {
    if (clear) localStorage.clear();
    localStorage.setItem('wmlab_fast', '1');
    localStorage.setItem('wmlab_test', '1');
  }, clear);
  await p.goto(app.server.url + 'index.html?x=' + Math.random() + hash);
  await p.waitForSelector('body[data-app-ready="true"]');
  await p.waitForSelector('#take');
  return p;
}

/** Take the study to its end; `right(global, step)` says whether to answer right. Returns the end state. */
export async function takeStudy(page, right) {
  for (;;) {
    const s = await nextScreen(page);
    if (s === 'done' || s === 'error') return s;
    if (s === 'instructions' || s === 'feedback' || s === 'paused') {
      await page.click(s === 'instructions' ? '#start' : '#continue');
      continue;
    }
    const h = await hook(page);
    if (!h?.awaiting) continue;
    await answerStep(page, h, right(h.global, h.step));
    await answered(page, h);
  }
}

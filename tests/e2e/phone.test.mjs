// Every page on a phone (issue 68): at 390×844 CSS px (a phone held upright), no page is wider than the
// screen: the header wraps, forms stack, wide tables and plots scroll inside their own box.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appUnderTest, launch } from './helpers.mjs';

const app = appUnderTest();

const PAGES = ['#/', '#/gallery', '#/results', '#/study', '#/dashboard', '#/llm', '#/networks', '#/compare', '#/papers',
  '#/take?tasks=SC&practice=0'];

test('every page fits a phone: nothing wider than the screen', async () => {
  const phone = await launch({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, hasTouch: true, isMobile: true });
  try {
    const page = await phone.context.newPage();
    for (const route of PAGES) {
      await page.goto(app.server.url + route);
      await page.waitForSelector('body[data-app-ready="true"]');
      // The page's own content drawn (its main element filled), then measured.
      await page.waitForFunction(() => (document.querySelector('main')?.textContent || '').trim().length > 40);
      const m = await page.evaluate(() => {
        const W = document.documentElement.clientWidth;
        // Elements past the right edge that are not inside a box that scrolls them.
        const inScroller = (e) => {
          for (let p = e.parentElement; p; p = p.parentElement) {
            const o = getComputedStyle(p).overflowX;
            if (o === 'auto' || o === 'scroll') return true;
          }
          return false;
        };
        const out = [...document.querySelectorAll('body *')]
          .filter((e) => e.getBoundingClientRect().right > W + 1 && !inScroller(e))
          .map((e) => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}`);
        return { scroll: document.documentElement.scrollWidth, W, out: out.slice(0, 6) };
      });
      assert.equal(m.W, 390, route);
      assert.ok(m.scroll <= m.W, `${route}: the page is ${m.scroll} px wide on a ${m.W} px screen (${m.out.join(', ')})`);
      assert.deepEqual(m.out, [], `${route}: past the screen's edge`);
    }
  } finally {
    await phone.close();
  }
});

// Plots on a phone (issue 68): drawn at the width the page gives them (one canvas pixel a CSS pixel, so
// their 11 px text stays 11 px), legends under the plots; turned to a desktop width, beside them again.
test('plots on a phone are drawn at the screen\'s width with their legends under them', async () => {
  const phone = await launch({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, hasTouch: true, isMobile: true });
  try {
    const page = await phone.context.newPage();
    await page.goto(app.server.url + '#/papers');
    await page.waitForSelector('details.paper-published canvas.plot[data-legend]', { state: 'attached' });
    // The published numbers opened as a reader opens them.
    await page.evaluate(() => document.querySelectorAll('details.paper-published').forEach((d) => { d.open = true; }));
    await page.waitForSelector('canvas.plot[data-drawn="true"][data-legend]');
    const plots = () => page.evaluate(() => [...document.querySelectorAll('canvas.plot[data-legend]')]
      .filter((c) => c.getBoundingClientRect().width > 0)
      .map((c) => ({ id: c.id, legend: c.dataset.legend, drawn: c.dataset.drawn, w: c.width, h: c.height,
        css: c.getBoundingClientRect().width, series: Number(c.dataset.series || 0) })));
    const narrow = await plots();
    assert.ok(narrow.length >= 3, `charts on the Papers page: ${JSON.stringify(narrow)}`);
    for (const p of narrow) {
      assert.equal(p.drawn, 'true', p.id);
      assert.ok(p.w <= 390, `${p.id} drawn ${p.w} px wide on a 390 px screen`);
      assert.ok(Math.abs(p.css - p.w) <= 1, `${p.id}: ${p.w} canvas px shown at ${p.css} CSS px (text scaled)`);
      if (p.series > 0) assert.equal(p.legend, 'below', `${p.id}: legend beside a ${p.w} px plot`);
    }
    // Wider: the same charts at their designed size, legends beside the plot.
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.waitForFunction(() => [...document.querySelectorAll('canvas.plot[data-legend]')]
      .every((c) => c.dataset.legend === 'beside'));
    const wide = await plots();
    const grew = wide.filter((p) => p.w > 390);
    assert.ok(grew.length >= 3, `after widening: ${JSON.stringify(wide.slice(0, 4))}`);
  } finally {
    await phone.close();
  }
});


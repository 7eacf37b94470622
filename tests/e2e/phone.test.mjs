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

// Home: every way in leads to a page that works today (nothing "coming soon"; Compare shows the
// published numbers before anything is chosen), and the People card starts a short study at once, as a
// participant sees it (no app navigation).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appUnderTest, openPage } from './helpers.mjs';

const app = appUnderTest();

test('home: each kind of subject is one click from a working page', async () => {
  const page = await openPage(app.browser.context, app.server.url + '#/');
  await page.waitForSelector('#home #home-ways');
  assert.doesNotMatch(await page.textContent('#home'), /coming soon/i);
  const cards = await page.$$eval('#home-ways a.card', (as) => as.map((a) => [a.id, a.getAttribute('href')]));
  assert.deepEqual(cards.map((c) => c[0]), ['card-people', 'card-llm', 'card-networks', 'card-compare']);
  for (const [id, sel] of [['card-llm', '#llm'], ['card-networks', '#networks'], ['card-compare', '#compare']]) {
    await page.click(`#${id}`);
    await page.waitForSelector(sel);
    if (id === 'card-compare') {
      // Nothing chosen in this fresh browser, yet the page is not empty: VSR's published human curves.
      await page.waitForSelector('#cmp-plots canvas[data-drawn="true"]');
      assert.equal(await page.$eval('#cmp-task', (s) => s.value), 'VSR');
      const options = await page.$$eval('#cmp-task option', (os) => os.map((o) => o.value));
      assert.ok(options.includes('CD-Color') && options.includes('nback-verbal'), JSON.stringify(options));
      await page.selectOption('#cmp-task', 'nback-verbal');
      await page.waitForSelector('#cmp-plots canvas[data-drawn="true"]');
    }
    await page.goBack();
    await page.waitForSelector('#home-ways');
  }
  await page.click('#card-people');
  await page.waitForFunction(() => location.hash.startsWith('#/take?tasks=VSR'));
  await page.waitForSelector('#take');
  assert.equal(await page.$('header.top, nav, footer.foot'), null, 'the participant view has no app navigation');
  assert.doesNotMatch(await page.textContent('body'), /Study link, parameter/, 'the link is valid');
  assert.deepEqual(page.errors, []);
  await page.close();
});

// What a newcomer sees on a phone (390×844) and a laptop (1280×800): once a photo is
// chosen the prediction and its map are on the screen (on the phone the page moves to
// them), every label sits on the line of its control in the model box, and nothing
// scrolls sideways. The screenshots are of the screen as the visitor sees it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { mkdirSync } from 'node:fs';
import { skipReason, siteAndBrowser, openPage, sample, waitForHeat, waitForStill, choosePhoto, waitForTop5, artifacts } from './harness.js';

const skip = skipReason() ?? false;
let env;
before(async () => { if (!skip) env = await siteAndBrowser(); });
after(() => env?.close());

// The screen as seen (not the whole page).
async function screen(page, name) {
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: path.join(artifacts, `${name}.png`) });
}

// Where an element lies on the screen: { top, bottom } in viewport pixels.
const box = (page, selector) => page.$eval(selector, (el) => {
  const r = el.getBoundingClientRect();
  return { top: r.top, bottom: r.bottom };
});

for (const [name, viewport, device] of [
  ['phone', { width: 390, height: 844 }, { isMobile: true, hasTouch: true }],
  ['laptop', { width: 1280, height: 800 }, {}],
]) {
  test(`${name} ${viewport.width}×${viewport.height}: the prediction and the map come into view`, { skip }, async () => {
    const { page, errors } = await openPage(env.browser, env.site.url, viewport, { device });
    try {
      await page.waitForSelector('body[data-model-ready="true"]');
      // Each model-box label on the line of its control.
      const pairs = await page.$$eval('.model-box label[for]', (labels) => labels.map((l) => {
        const a = l.getBoundingClientRect();
        const b = document.getElementById(l.htmlFor).getBoundingClientRect();
        return { id: l.htmlFor, apart: Math.abs((a.top + a.bottom) / 2 - (b.top + b.bottom) / 2) };
      }));
      for (const p of pairs) assert.ok(p.apart < 8, `${p.id}'s label is ${p.apart} px off its line`);
      await screen(page, `first-screen-${name}`);

      await choosePhoto(page, sample('dogcat2.png'));
      await waitForTop5(page, 'dogcat2.png');
      const top = await page.$eval('#top5 button', (b) => b.dataset.classId);
      await waitForHeat(page, `c${top}`);
      // A smooth scroll may start frames after the map is drawn (a busy machine): wait until
      // the map lies on the first screen, then until the page stops moving, then look.
      await page.waitForFunction((h) => {
        const top = document.querySelector('#main-canvas')?.getBoundingClientRect().top;
        return top >= 0 && top < h * 0.9;
      }, viewport.height);
      await waitForStill(page);
      const predicted = await box(page, '#top5');
      const map = await box(page, '#main-canvas');
      assert.ok(predicted.top >= 0 && predicted.top < viewport.height, `the top-5 starts at ${predicted.top} px`);
      assert.ok(map.top >= 0 && map.top < viewport.height * 0.9, `the map starts at ${map.top} px of ${viewport.height}`);
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= viewport.width, 'no sideways scrolling');
      await screen(page, `photo-chosen-${name}`);
      assert.deepEqual(errors, []);
    } finally {
      await page.context().close();
    }
  });
}

// Phone width, keyboard use and labelled controls, on a host without COOP/COEP headers
// (so also: the page falls back to one WebAssembly thread and still works).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { skipReason, startSite, launch, openPage, screenshot, sample, waitForHeat, choosePhoto, waitForTop5 } from './harness.js';

const skip = skipReason() ?? false; // node:test skips on null too
let site;
let browser;
let page;

before(async () => {
  if (skip) return;
  site = await startSite({ isolate: false });
  browser = await launch();
  ({ page } = await openPage(browser, site.url, { width: 375, height: 800 }));
  await page.waitForSelector('body[data-model-ready="true"]');
});
after(async () => {
  await browser?.close();
  await site?.close();
});

test('without cross-origin isolation the page runs on one thread', { skip }, async () => {
  assert.equal(await page.evaluate(() => self.crossOriginIsolated), false);
  assert.match(await page.textContent('#engine-status'), /WebAssembly · 1 thread\b/);
});

test('at 375 px the page explains a photo without horizontal scrolling', { skip }, async () => {
  await choosePhoto(page, sample('dogcat2.png'));
  await waitForTop5(page, 'dogcat2.png');
  const top = await page.$eval('#top5 button', (b) => b.dataset.classId);
  await waitForHeat(page, `c${top}`);
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= 375);
  await screenshot(page, 'phone-375');
});

test('every control has a label and views switch by keyboard', { skip }, async () => {
  const unlabelled = await page.$$eval('input:not([type="file"]), select, button', (els) => els
    .filter((el) => !(el.labels?.length || el.getAttribute('aria-label') || el.textContent.trim()))
    .map((el) => el.id || el.outerHTML.slice(0, 60)));
  assert.deepEqual(unlabelled, []);
  await page.focus('#tab-single');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.getAttribute('#tab-grid', 'aria-selected'), 'true');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'tab-grid');
  await page.keyboard.press('ArrowLeft');
  // A top-5 class chosen with the keyboard.
  const second = await page.$$eval('#top5 button', (bs) => bs[1].dataset.classId);
  await page.focus(`#top5 button[data-class-id="${second}"]`);
  await page.keyboard.press('Enter');
  await waitForHeat(page, `c${second}`);
  // The drop zone opens the file chooser from the keyboard.
  // page.press focuses the drop zone and presses in one step: a re-render of the class
  // list after the switch above must not take the focus between the two.
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.press('#dropzone', 'Enter')]);
  await chooser.setFiles(sample('el2.png'));
  await page.waitForSelector('body[data-photo="el2.png"]');
});

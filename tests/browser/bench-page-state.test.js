// The benches' wait for a page's state (bench/page-state.js), on a page of the site under its
// Content-Security-Policy: it sees a state as the page sets it, a state held in a variable
// alone as well, and fails after its timeout.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { skipReason, startSite, launch, openPage } from './harness.js';
import { untilPage } from '../../bench/page-state.js';

const skip = skipReason() || false;
let site;
let browser;
let page;

before(async () => {
  if (skip) return;
  site = await startSite();
  browser = await launch();
  ({ page } = await openPage(browser, `${site.url}docs.html`));
});

after(async () => {
  await browser?.close();
  await site?.close();
});

test('resolves when an attribute it reads is set, and not before', { skip }, async () => {
  await page.evaluate(() => { delete document.body.dataset.benchState; });
  const waited = untilPage(page, (want) => document.body.dataset.benchState === want, 'two');
  await page.evaluate(() => { document.body.dataset.benchState = 'one'; });
  const early = await Promise.race([waited.then(() => 'resolved'), new Promise((r) => setTimeout(() => r('waiting'), 300))]);
  assert.equal(early, 'waiting');
  await page.evaluate(() => setTimeout(() => { document.body.dataset.benchState = 'two'; }, 50));
  await waited;
});

test('sees a state held in a variable alone, and one whose object is not there yet', { skip }, async () => {
  await page.evaluate(() => { delete window.__benchState; });
  const waited = untilPage(page, () => window.__benchState.done === true);
  await page.evaluate(() => setTimeout(() => { window.__benchState = { done: true }; }, 50));
  await waited;
});

test('fails after its timeout, naming what it waited for', { skip }, async () => {
  await assert.rejects(untilPage(page, () => document.body.dataset.never === 'set', null, { timeout: 200 }),
    /timed out after 200 ms waiting for .*dataset\.never/);
});

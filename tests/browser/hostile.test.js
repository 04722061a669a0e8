// The hostile-input suite's page cases (tests/hostile/cases.js): each bad photo shows
// exactly its message in the page, nothing reaches the console as an uncaught error, and
// the page still explains a photo afterwards.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CASES } from '../hostile/cases.js';
import { writeFixtures } from '../hostile/fixtures.js';
import { hugePng } from '../hostile/huge-png.js';
import { fill } from '../hostile/run.js';
import { skipReason, startSite, launch, openPage, sample, choosePhoto } from './harness.js';

const skip = skipReason() ?? false;
let browser;
before(async () => { if (!skip) browser = await launch(); });
after(async () => { await browser?.close(); });

test('page: every bad photo gets its message, and the page keeps working', { skip }, async (t) => {
  const tmp = await writeFixtures();
  writeFileSync(path.join(tmp, 'huge-20000.png'), await hugePng(20000, 20000)); // 8 s of deflate: the page's cases only
  const site = await startSite();
  t.after(() => site.close());
  const { page, errors } = await openPage(browser, site.url);
  await page.waitForSelector('body[data-model-ready="true"]');
  for (const c of CASES.filter((x) => x.surface === 'page' && x.upload)) {
    await t.test(c.name, async () => {
      await page.evaluate(() => { document.querySelector('#error-text').textContent = ''; });
      const { file, name, type } = c.upload;
      await page.setInputFiles('#file-input', { name, mimeType: type, buffer: readFileSync(fill(file, tmp)) });
      await page.waitForFunction(() => document.querySelector('#error-text').textContent !== '');
      const text = await page.textContent('#error-text');
      if (c.message instanceof RegExp) assert.match(text, c.message);
      else assert.equal(text, c.message);
      assert.equal(await page.isHidden('#error'), false);
    });
  }
  await choosePhoto(page, sample('catdog.png'));
  await page.waitForFunction(() => document.body.dataset.photo === 'catdog.png'
    && document.querySelector('#main-canvas').dataset.rendered === 'heat');
  assert.deepEqual(errors.filter((e) => !/Failed to load resource/.test(e)), [], 'no uncaught errors');
});

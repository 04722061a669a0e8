// EXIF orientation in the page: a photo is shown and explained as a viewer shows it; the
// "Ignore EXIF orientation" setting reads the stored pixels instead (PIL's reading, the
// evaluations'), re-reading the current photo when it changes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { skipReason, startSite, launch, openPage, sample } from './harness.js';

const skip = skipReason() ?? false;
let browser;
before(async () => { if (!skip) browser = await launch(); });
after(async () => { await browser?.close(); });

const rendered = (page, width, height) => page.waitForFunction((size) => document.body.dataset.photoSize === size
  && document.querySelector('#main-canvas').dataset.rendered === 'heat', `${width}x${height}`);

test('orientation 6: shown rotated by default, as stored with "Ignore EXIF orientation"', { skip }, async (t) => {
  const site = await startSite();
  t.after(() => site.close());
  const { page, errors } = await openPage(browser, site.url);
  await page.waitForSelector('body[data-model-ready="true"]');
  const jpeg = await sharp(sample('catdog.png')).resize(300, 200, { fit: 'fill' }).jpeg()
    .withMetadata({ orientation: 6 }).toBuffer();
  await page.setInputFiles('#file-input', { name: 'portrait.jpg', mimeType: 'image/jpeg', buffer: jpeg });
  await rendered(page, 200, 300);
  await page.check('#exif-ignore');
  await rendered(page, 300, 200);
  await page.uncheck('#exif-ignore');
  await rendered(page, 200, 300);
  assert.deepEqual(errors, []);
});

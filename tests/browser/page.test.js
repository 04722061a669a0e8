// The page end to end in headless Chromium: prediction, class-specific maps that agree with
// the Node pipeline, every method, contrastive and two-class views, error handling, and
// no request leaving the page's origin. Screenshots go to test-artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  skipReason, openReadyPage, screenshot, sample, waitForHeat, choosePhoto, waitForTop5, shownTop5, copiedMap,
} from './harness.js';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { referenceMaps, referenceTop5, argmax, pearson } from './reference.js';
import { paths } from './harness.js';

const skip = skipReason() ?? false; // node:test skips on null too
const BULL_MASTIFF = 243;
const TIGER_CAT = 282;
let session; // { page, offOrigin, errors, close }

before(async () => { if (!skip) session = await openReadyPage(); });
after(async () => { await session?.close(); });

const page = () => session.page;

// How many distinct colours a canvas shows inside the model's region (a blank or
// single-colour overlay has very few).
const distinctColours = (selector) => page().evaluate((sel) => {
  const c = document.querySelector(sel);
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  const seen = new Set();
  for (let i = 0; i < d.length; i += 4 * 7) seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
  return seen.size;
}, selector);

test('the page loads the model and reports backend and threads', { skip }, async () => {
  const status = await page().textContent('#engine-status');
  assert.match(status, /WebAssembly · \d+ threads?/);
  assert.equal(await page().evaluate(() => self.crossOriginIsolated), true);
  assert.ok(await page().$$eval('#model-select option', (o) => o.length) >= 1);
});

test('catdog.png: top-1 bull mastiff, heat map drawn', { skip }, async () => {
  await choosePhoto(page(), sample('catdog.png'));
  await waitForHeat(page(), `c${BULL_MASTIFF}`);
  const first = await page().$eval('#top5 button', (b) => ({ id: Number(b.dataset.classId), text: b.textContent }));
  assert.equal(first.id, BULL_MASTIFF, first.text);
  assert.match(first.text, /bull mastiff/);
  assert.equal(await page().$$eval('#top5 button', (b) => b.length), 5);
  assert.ok(await distinctColours('#main-canvas') > 50);
  await screenshot(page(), 'single-bull-mastiff');
});

test('bull mastiff and tiger cat peak in different places, where the Node pipeline puts them', { skip }, async () => {
  const dog = await copiedMap(page()); // the map the test above shows
  // Pick tiger cat through the type-ahead search, by keyboard.
  await page().fill('#class-a', 'tiger ca');
  await page().waitForSelector(`#class-a-list-${TIGER_CAT}`);
  await page().click(`#class-a-list-${TIGER_CAT}`);
  await waitForHeat(page(), `c${TIGER_CAT}`);
  await screenshot(page(), 'single-tiger-cat');

  const cat = await copiedMap(page());
  assert.deepEqual([dog.target.class, cat.target.class], [BULL_MASTIFF, TIGER_CAT]);
  assert.deepEqual([dog.method, cat.method], ['transformer_attribution', 'transformer_attribution']);
  assert.notEqual(argmax(dog.data), argmax(cat.data), 'class-specific peaks');
  const ref = await referenceMaps(sample('catdog.png'), [BULL_MASTIFF, TIGER_CAT]);
  for (const [id, map] of [[BULL_MASTIFF, dog], [TIGER_CAT, cat]]) {
    assert.equal(argmax(map.data), argmax(ref[id].data), `peak of class ${id}`);
    assert.ok(pearson(map.data, ref[id].data) > 0.99, `class ${id} matches the Node pipeline`);
  }
  // The two peaks lie in different halves of the photo (dog left, cat right in catdog.png).
  const col = (m) => argmax(m.data) % m.cols;
  assert.notEqual(col(dog) < dog.cols / 2, col(cat) < cat.cols / 2);
});

// A third of the ImageNet samples carry an ICC profile; PIL (the official pipeline) ignores
// it, and so must the browser's decoder, or the page and the CLI classify differently.
const ICC_PHOTO = path.join(paths.shared, 'imagenet', 'samples', 'n04147183_schooner.JPEG');
test('a JPEG with an ICC profile: the same top-5 as the Node pipeline', { skip: skip || (!existsSync(ICC_PHOTO) && 'no ImageNet samples') }, async () => {
  await choosePhoto(page(), ICC_PHOTO);
  await waitForTop5(page(), 'n04147183_schooner.JPEG');
  const shown = await shownTop5(page());
  const ref = await referenceTop5(ICC_PHOTO);
  assert.deepEqual(shown.map((t) => t.id), ref.map((t) => t.id));
  shown.forEach((t, i) => assert.ok(Math.abs(t.prob - ref[i].prob) < 1e-3, `probability of class ${t.id}`));
  // back to catdog for the tests below
  await choosePhoto(page(), sample('catdog.png'));
  await waitForHeat(page(), `c${BULL_MASTIFF}`);
});

test('every method renders a non-empty map in the comparison grid', { skip }, async () => {
  await page().click('#top5 button[data-class-id="243"]');
  await page().click('#tab-grid');
  // Every method of the core's registry, as the Worker reported it.
  const all = await page().$$eval('#method option', (os) => os.map((o) => o.value));
  assert.ok(all.length >= 10, `the registry's methods: ${all}`);
  // attattr's tile stays a photo until the Attribution panel has run every block
  // (tests/browser/attribution.test.js); every other method is drawn from the explainer.
  const explained = all.filter((m) => m !== 'attattr');
  await page().waitForFunction((n) => document.querySelectorAll('#grid canvas[data-rendered="heat"]').length === n,
    explained.length);
  const methods = await page().$$eval('#grid canvas', (cs) => cs.map((c) => c.dataset.method));
  assert.deepEqual(methods.sort(), [...all].sort());
  for (const m of explained) {
    assert.ok(await distinctColours(`#grid canvas[data-method="${m}"]`) > 20, `${m} draws a heat map`);
  }
  await screenshot(page(), 'grid-all-methods');
});

test('two-class view and contrastive mode render', { skip }, async () => {
  await page().click('#tab-pair');
  await page().waitForFunction(() => document.querySelectorAll('#pair canvas[data-rendered="heat"]').length === 2);
  await screenshot(page(), 'pair-two-classes');
  await page().click('#tab-single');
  await page().fill('#class-b', '282');
  await page().click(`#class-b-list-${TIGER_CAT}`);
  await page().check('#contrastive');
  await waitForHeat(page(), `c${BULL_MASTIFF}-${TIGER_CAT}`);
  assert.ok(await distinctColours('#main-canvas') > 50);
  assert.match(await page().textContent('#main-caption'), /bull mastiff vs tiger cat/);
  await screenshot(page(), 'single-contrastive');
  await page().uncheck('#contrastive');
});

test('controls: colormap, threshold, patch grid, start layer, hover readout', { skip }, async () => {
  await page().selectOption('#colormap', 'viridis');
  await page().selectOption('#threshold', 'otsu');
  await page().check('input[name="display"][value="patches"]');
  await page().fill('#start-layer', '1');
  await page().dispatchEvent('#start-layer', 'change');
  await page().waitForSelector('#main-canvas[data-rendered="heat"][data-target="c243"][data-start-layer="1"]');
  // hover() scrolls the canvas into view first (the page is taller than the viewport).
  const canvas = page().locator('#main-canvas');
  const box = await canvas.boundingBox();
  await canvas.hover({ position: { x: box.width * 0.3, y: box.height * 0.5 } });
  assert.match(await page().textContent('#hover-readout'), /patch \(row \d+, col \d+\): relevance/);
  await screenshot(page(), 'single-viridis-otsu-patches');
  await page().selectOption('#colormap', 'jet');
  await page().selectOption('#threshold', 'none');
  await page().check('input[name="display"][value="smooth"]');
});

test('a non-image file shows an error and the next photo still works', { skip }, async () => {
  await page().setInputFiles('#file-input', { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
  await page().waitForSelector('#error:not([hidden])');
  assert.match(await page().textContent('#error-text'), /not an image/);
  await screenshot(page(), 'error-not-an-image');
  await choosePhoto(page(), sample('dogbird.png'));
  await page().waitForSelector('#error', { state: 'hidden' });
  await page().waitForFunction(() => document.body.dataset.photo === 'dogbird.png'
    && document.querySelector('#main-canvas').dataset.rendered === 'heat');
});

test('no request left the page origin and the page logged no errors', { skip }, async () => {
  assert.deepEqual(session.offOrigin, []);
  assert.deepEqual(session.errors.filter((e) => !/favicon/.test(e)), []);
});

// Signed maps and contrast in the page (issue 13, points 1, 2 and 11), in headless
// Chromium on catdog.png: the signed scale draws negative relevance in the diverging
// map's blue, zero white and positive red, with a caption that says so; swapping the
// contrast's classes changes the map; a contrast of near-equal maps says so; B = A and
// attention-only methods explain themselves.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { skipReason, openReadyPage, screenshot, sample, waitForHeat, choosePhoto, copiedMap } from './harness.js';

const skip = skipReason() ?? false;
const BULL_MASTIFF = 243;
const TIGER_CAT = 282;
let session; // { page, errors, close }

before(async () => { if (!skip) session = await openReadyPage(); });
after(async () => { await session?.close(); });
const page = () => session.page;

// The main canvas's colour at the centre of patch `i` of a rows x cols map (the photo is
// 224 x 224 and drawn whole, so canvas pixels are photo pixels).
const colourAt = (i, map) => page().evaluate(([cell, rows, cols]) => {
  const c = document.querySelector('#main-canvas');
  const x = Math.floor(((cell % cols) + 0.5) * (c.width / cols));
  const y = Math.floor((Math.floor(cell / cols) + 0.5) * (c.height / rows));
  const [r, g, b] = c.getContext('2d').getImageData(x, y, 1, 1).data;
  return { r, g, b };
}, [i, map.rows, map.cols]);

const indexOf = (data, pick) => data.reduce((best, v, i) => (pick(v, data[best]) ? i : best), 0);

test('signed scale: a contrast draws negative relevance blue, zero white, positive red; captions say what is shown', { skip }, async () => {
  await choosePhoto(page(), sample('catdog.png'));
  await waitForHeat(page(), `c${BULL_MASTIFF}`);
  // Pure map colours: opacity 1, one flat block per patch.
  await page().fill('#opacity', '1');
  await page().dispatchEvent('#opacity', 'input');
  await page().check('input[name="display"][value="patches"]');
  await page().fill('#class-b', String(TIGER_CAT));
  await page().click(`#class-b-list-${TIGER_CAT}`);
  await page().check('#contrastive');
  await waitForHeat(page(), `c${BULL_MASTIFF}-${TIGER_CAT}`);
  assert.equal(await page().$eval('#main-canvas', (c) => c.dataset.scale), 'signed', 'auto draws contrasts signed');

  const map = await copiedMap(page());
  assert.deepEqual([map.method, map.target.contrast], ['transformer_attribution', [BULL_MASTIFF, TIGER_CAT]]);
  const lowest = indexOf(map.data, (v, best) => v < best);
  const highest = indexOf(map.data, (v, best) => v > best);
  const nearZero = indexOf(map.data, (v, best) => Math.abs(v) < Math.abs(best));
  assert.ok(map.data[lowest] < 0 && map.data[highest] > 0, 'the contrast has both signs');
  const neg = await colourAt(lowest, map);
  const pos = await colourAt(highest, map);
  const zero = await colourAt(nearZero, map);
  assert.ok(neg.b > neg.r + 40, `most negative patch is blue: ${JSON.stringify(neg)}`);
  assert.ok(pos.r > pos.b + 40, `most positive patch is red: ${JSON.stringify(pos)}`);
  assert.ok(Math.min(zero.r, zero.g, zero.b) > 200, `a patch near 0 is near white: ${JSON.stringify(zero)}`);
  assert.match(await page().textContent('#main-caption'), /signed scale .* min -[\d.e+-]+ · max [\d.e+-]+ · \d+% negative/);
  assert.match(await page().textContent('.legend-scale'), /negative.*0 \(white\).*positive/);
  assert.equal(await page().isDisabled('#colormap'), true, 'the colormap does not apply to the signed scale');
  assert.equal(await page().textContent('#colormap-note'), '(red–blue: the signed scale)');
  await screenshot(page(), 'signed-contrast');

  // Positive only: the same patch near 0 is no longer white (jet's middle is green).
  await page().selectOption('#scale', 'positive');
  const mid = await colourAt(nearZero, map);
  assert.ok(Math.min(mid.r, mid.g, mid.b) < 150, `positive scale recolours the 0 patch: ${JSON.stringify(mid)}`);
  assert.match(await page().textContent('#main-caption'), /positive scale \(min–max\)/);
  assert.equal(await page().isDisabled('#colormap'), false, 'the positive scale draws with the chosen colormap');
  await page().selectOption('#scale', 'auto');
});

test('swapping the contrast\'s classes changes the page\'s map', { skip }, async () => {
  const ab = await copiedMap(page()); // bull mastiff rather than tiger cat, from the test above
  assert.deepEqual(ab.target.contrast, [BULL_MASTIFF, TIGER_CAT]);
  // Picking tiger cat as class A makes bull mastiff class B.
  await page().click(`#top5 button[data-class-id="${TIGER_CAT}"]`);
  await waitForHeat(page(), `c${TIGER_CAT}-${BULL_MASTIFF}`);
  const ba = await copiedMap(page());
  assert.deepEqual(ba.target.contrast, [TIGER_CAT, BULL_MASTIFF]);
  let change = 0;
  for (let i = 0; i < ab.data.length; i++) change = Math.max(change, Math.abs(ab.data[i] - ba.data[i]));
  assert.ok(change > 0.1, `the swapped contrast changed by only ${change}`);
  await screenshot(page(), 'signed-contrast-swapped');
  // Back: bull mastiff as A (B becomes the next of the top-5, boxer), then tiger cat as B.
  await page().click(`#top5 button[data-class-id="${BULL_MASTIFF}"]`);
  await page().fill('#class-b', String(TIGER_CAT));
  await page().click(`#class-b-list-${TIGER_CAT}`);
  await waitForHeat(page(), `c${BULL_MASTIFF}-${TIGER_CAT}`);
});

test('a contrast whose two classes\' maps are near-equal says so in its caption; a discriminative one does not', { skip }, async () => {
  // bull mastiff rather than tiger cat, from the test above: transformer attribution's two
  // maps correlate at about 0.47, partial LRP's at 0.99 (docs/contrast.md).
  const caption = () => page().textContent('#main-caption');
  assert.doesNotMatch(await caption(), /correlate at/);
  const key = `c${BULL_MASTIFF}-${TIGER_CAT}`;
  await page().selectOption('#method', 'partial_lrp');
  await page().waitForFunction((k) => {
    const c = document.querySelector('#main-canvas');
    return c.dataset.rendered === 'heat' && c.dataset.target === k && c.dataset.method === 'partial_lrp';
  }, key);
  // "Copy map JSON" carries the correlation, and the caption says it.
  const copied = await copiedMap(page());
  assert.deepEqual([copied.method, copied.target.contrast], ['partial_lrp', [BULL_MASTIFF, TIGER_CAT]]);
  const r = copied.target.correlation;
  assert.ok(r >= 0.95, `partial LRP's two maps: r = ${r}`);
  assert.match(await caption(), new RegExp(`the two classes' own maps correlate at r = ${r.toFixed(2)}: this method hardly tells them apart here`));
  await screenshot(page(), 'contrast-near-equal-maps');
  await page().selectOption('#method', 'transformer_attribution');
  await page().waitForFunction(() => document.querySelector('#main-canvas').dataset.method === 'transformer_attribution');
  assert.doesNotMatch(await caption(), /correlate at/);
});

test('B = A and attention-only methods say why there is no contrast, without an error', { skip }, async () => {
  // raw attention is the same for every class: disabled in the list with the reason.
  const raw = await page().$eval('#method option[value="raw_attention"]', (o) => ({ disabled: o.disabled, title: o.title }));
  assert.equal(raw.disabled, true);
  assert.match(raw.title, /same for every class/);

  await page().fill('#class-b', String(BULL_MASTIFF));
  await page().click(`#class-b-list-${BULL_MASTIFF}`);
  // The class's own map stays, with the reason there is no contrast.
  await page().waitForFunction(() => /the class being explained/.test(document.querySelector('#main-caption').textContent));
  assert.equal(await page().$eval('#main-canvas', (c) => c.dataset.target), `c${BULL_MASTIFF}`);
  assert.equal(await page().isHidden('#error'), true, 'no internal error is shown');
  await screenshot(page(), 'contrast-b-equals-a');
  await page().uncheck('#contrastive');
});

test('lrp_full is signed by default; positive only is the min-max of before', { skip }, async () => {
  await page().selectOption('#method', 'lrp_full');
  await waitForHeat(page(), `c${BULL_MASTIFF}`);
  await page().waitForFunction(() => document.querySelector('#main-canvas').dataset.method === 'lrp_full'
    && document.querySelector('#main-canvas').dataset.rendered === 'heat');
  assert.equal(await page().$eval('#main-canvas', (c) => c.dataset.scale), 'signed');
  // Its range in words people read: where full colour is, what lies beyond, on the legend too.
  const caption = await page().textContent('#main-caption');
  assert.match(caption, /signed scale \(blue < 0 < red\), smoothed · full colour at ±([\d.e+-]+), 3% of the map beyond · min .* \d+% negative/);
  const end = /full colour at ±([\d.e+-]+)/.exec(caption)[1];
  assert.match(await page().textContent('.legend-scale'), new RegExp(`negative -${end.replace(/[.+]/g, '\\$&')}.*0 \\(white\\).*positive \\+${end.replace(/[.+]/g, '\\$&')}`));
  await page().selectOption('#scale', 'positive');
  assert.equal(await page().$eval('#main-canvas', (c) => c.dataset.scale), 'positive');
  await page().selectOption('#scale', 'auto');
  await page().selectOption('#method', 'transformer_attribution');
});

test('the <vit-relevance> element draws a contrast signed by default; scale="positive" redraws it min-max', { skip }, async () => {
  await page().evaluate(async () => {
    await import(new URL('vit-relevance-element.js', document.baseURI).href);
    const el = Object.assign(document.createElement('vit-relevance'), { id: 'signed-el' });
    for (const [k, v] of Object.entries({ src: 'samples/catdog.png', target: 'bull mastiff', contrast: 'tiger cat', loading: 'eager' })) el.setAttribute(k, v);
    document.body.append(el);
  });
  const canvasScale = () => page().$eval('#signed-el', (el) => {
    const c = el.shadowRoot.querySelector('canvas[data-scale]');
    return c && { scale: c.dataset.scale, description: c.getAttribute('aria-description') };
  });
  await page().waitForFunction(() => document.getElementById('signed-el')?.shadowRoot?.querySelector('canvas[data-scale]'));
  const signed = await canvasScale();
  assert.equal(signed.scale, 'signed');
  assert.match(signed.description, /^signed scale .* min -[\d.e+-]+ · max [\d.e+-]+ · \d+% negative$/);
  await page().$eval('#signed-el', (el) => { el.scale = 'positive'; });
  await page().waitForFunction(() => document.getElementById('signed-el').shadowRoot.querySelector('canvas[data-scale="positive"]'));
  assert.match((await canvasScale()).description, /^positive scale \(min–max\)/);
  await page().$eval('#signed-el', (el) => el.remove());
});

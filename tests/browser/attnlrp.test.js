// AttnLRP and CP-LRP in the page (issue 28), in headless Chromium on catdog.png: the
// comparison grid draws transformer_attribution, attnlrp and cp_lrp side by side, the two
// LRP maps as signed pixel maps on the signed scale; the element takes method="attnlrp".
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { skipReason, firstModel, paths, openReadyPage, screenshot, sample, waitForHeat, choosePhoto, copiedMap } from './harness.js';

const BULL_MASTIFF = 243;
// A graph exported before AttnLRP lacks its outputs, and the page its methods.
const lacksLrp = () => {
  const metadata = JSON.parse(readFileSync(path.join(paths.models, firstModel().metadata), 'utf8'));
  return !('input_rel_attnlrp' in metadata.outputs) && 'the built graph predates attnlrp (npm run build)';
};
const skip = skipReason() ?? lacksLrp();
const LRP = ['attnlrp', 'cp_lrp'];
let session; // { page, errors, close }

before(async () => { if (!skip) session = await openReadyPage(); });
after(async () => { await session?.close(); });
const page = () => session.page;

test('the grid shows transformer_attribution, attnlrp and cp_lrp side by side, the LRP maps signed pixel maps', { skip }, async () => {
  await choosePhoto(page(), sample('catdog.png'));
  await waitForHeat(page(), `c${BULL_MASTIFF}`);
  await page().click('#tab-grid');
  const tile = (m) => `#grid canvas[data-method="${m}"][data-rendered="heat"][data-target="c${BULL_MASTIFF}"]`;
  for (const m of ['transformer_attribution', ...LRP]) await page().waitForSelector(tile(m), { timeout: 240_000 });
  const scales = await page().$$eval('#grid canvas', (cs) => Object.fromEntries(cs.map((c) => [c.dataset.method, c.dataset.scale])));
  assert.equal(scales.transformer_attribution, 'positive');
  for (const m of LRP) assert.equal(scales[m], 'signed', `${m}: auto draws it signed`);
  for (const m of LRP) {
    const mp = await copiedMap(page(), tile(m));
    const map = { method: mp.method, rows: mp.rows, cols: mp.cols, negative: mp.data.some((v) => v < 0), positive: mp.data.some((v) => v > 0) };
    assert.deepEqual(map, { method: m, rows: 224, cols: 224, negative: true, positive: true }, `${m}: a signed 224×224 pixel map`);
  }
  assert.equal(await page().isHidden('#error'), true, 'no internal error is shown');
  await screenshot(page(), 'grid-attnlrp');
});

test('the <vit-relevance> element with method="attnlrp" draws it signed', { skip }, async () => {
  await page().evaluate(async () => {
    await import(new URL('vit-relevance-element.js', document.baseURI).href);
    const el = Object.assign(document.createElement('vit-relevance'), { id: 'attnlrp-el' });
    for (const [k, v] of Object.entries({ src: 'samples/catdog.png', method: 'attnlrp', loading: 'eager' })) el.setAttribute(k, v);
    document.body.append(el);
  });
  await page().waitForFunction(() => document.getElementById('attnlrp-el')?.shadowRoot?.querySelector('canvas[data-scale]'), null, { timeout: 240_000 });
  const description = await page().$eval('#attnlrp-el', (el) => el.shadowRoot.querySelector('canvas[data-scale="signed"]')?.getAttribute('aria-description'));
  assert.match(description ?? '', /^signed scale .* min -[\d.e+-]+ · max [\d.e+-]+ · \d+% negative$/);
  await page().$eval('#attnlrp-el', (el) => el.remove());
});

// Shareable and comparable: the page state round-trips through its URL (same view, same
// map), a link's bad values are ignored with a notice, "Download all" saves every tile in
// one PNG, and the compare view draws two photos' maps for one class and method.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { skipReason, startSite, launch, openPage, screenshot, waitForHeat, sample, waitForTop5, copiedMap } from './harness.js';
import { sheetLayout } from '../../web/page/lib/contact-sheet.js';

const skip = skipReason() ?? false; // node:test skips on null too
const TIGER_CAT = 282;
let site;
let browser;

before(async () => {
  if (skip) return;
  site = await startSite();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await site?.close();
});

const ready = (page) => page.waitForSelector('body[data-model-ready="true"]');
// The view as the page shows it: what a link must bring back.
const viewOf = (page) => page.evaluate(() => {
  const value = (id) => document.getElementById(id).value;
  const checked = (name) => document.querySelector(`input[name="${name}"]:checked`).value;
  const classOf = (v) => (v === '' || v === undefined ? null : Number(v));
  return {
    photo: document.body.dataset.photo, classA: classOf(document.body.dataset.class), classB: classOf(document.body.dataset.classB),
    contrastive: document.getElementById('contrastive').checked, method: value('method'),
    view: document.querySelector('[role="tab"][aria-selected="true"]').dataset.view,
    colormap: value('colormap'), opacity: Number(value('opacity')), threshold: value('threshold'), scale: value('scale'),
    display: checked('display'), frame: checked('frame'), crop: checked('crop'), startLayer: Number(value('start-layer')),
  };
});
// The single view's map once drawn: class 282's attention rollout from start layer 2.
const ROLLOUT_2 = `#main-canvas[data-rendered="heat"][data-target="c${TIGER_CAT}"][data-method="attention_rollout"][data-start-layer="2"]`;
// PNG width and height from the IHDR chunk.
const pngSize = (buf) => ({ width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) });

test('the URL carries the view: set it, reload the URL, same view and same map', { skip }, async () => {
  const first = await openPage(browser, site.url);
  const page = first.page;
  await ready(page);
  await page.click('button[data-sample="catdog.png"]');
  await waitForHeat(page, 'c243');
  // A state far from the defaults, set through the controls.
  await page.fill('#class-a', 'tiger cat');
  await page.click(`#class-a-list-${TIGER_CAT}`);
  await page.selectOption('#method', 'attention_rollout');
  await page.selectOption('#colormap', 'viridis');
  await page.selectOption('#threshold', 'otsu');
  await page.fill('#opacity', '0.8');
  await page.check('input[name="display"][value="patches"]');
  await page.check('input[name="frame"][value="model"]');
  await page.fill('#start-layer', '2');
  await page.dispatchEvent('#start-layer', 'change');
  await waitForHeat(page, `c${TIGER_CAT}`);
  await page.waitForSelector(ROLLOUT_2);
  await page.waitForFunction(() => /method=attention_rollout/.test(location.search) && /[?&]start-layer=2/.test(location.search));
  const url = page.url();
  const query = new URL(url).searchParams;
  assert.equal(query.get('photo'), 'catdog.png');
  assert.equal(query.get('class'), String(TIGER_CAT));
  assert.equal(query.get('method'), 'attention_rollout');
  const before = await viewOf(page);
  const map = await copiedMap(page);
  const pixels = await page.$eval('#main-canvas', (c) => Array.from(c.getContext('2d').getImageData(0, 0, c.width, c.height).data));
  await first.context.close();

  const again = await openPage(browser, url);
  await ready(again.page);
  await again.page.waitForSelector(ROLLOUT_2);
  assert.deepEqual(await viewOf(again.page), before);
  assert.deepEqual(await copiedMap(again.page), map, 'the same map');
  const repainted = await again.page.$eval('#main-canvas', (c) => Array.from(c.getContext('2d').getImageData(0, 0, c.width, c.height).data));
  assert.equal(repainted.length, pixels.length);
  assert.ok(repainted.every((v, i) => Math.abs(v - pixels[i]) <= 2), 'the same picture');
  assert.equal(await again.page.isHidden('#link-notice'), true, 'a valid link gives no notice');
  await again.page.waitForFunction((u) => location.href === u, url); // the reopened page writes the same link
  await screenshot(again.page, 'link-reopened');
  assert.deepEqual(again.errors, []);
  await again.context.close();
});

// The link's class belongs to the link's photo: a photo chosen in its place before the
// model is ready (the linked sample opens at once) shows its own top-1 class. The model's
// list is held until both photos have been shown, so the prediction comes after.
test('a link\'s class is not applied to a photo that replaced the link\'s photo before its prediction', { skip }, async () => {
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  const { page, context } = await openPage(browser, `${site.url}?photo=dogbird.png&class=${TIGER_CAT}`, undefined, {
    beforeLoad: (ctx) => ctx.route('**/models/index.json', async (route) => { await held; await route.continue(); }),
  });
  try {
    await page.waitForFunction(() => document.body.dataset.photo === 'dogbird.png');
    await page.setInputFiles('#file-input', sample('catdog.png'));
    await page.waitForFunction(() => document.body.dataset.photo === 'catdog.png');
    release();
    await page.waitForSelector('#main-canvas[data-rendered="heat"]');
    assert.equal(await page.getAttribute('#main-canvas', 'data-target'), 'c243'); // catdog.png's top-1, bull mastiff
    assert.equal((await viewOf(page)).classA, 243);
  } finally {
    release();
    await context.close();
  }
});

test('a link with unknown keys and bad values: ignored with a notice, the rest applied', { skip }, async () => {
  const q = 'photo=catdog.png&class=5000&method=nonsense&cmap=inferno&opacity=7&layer=99&view=grid&colour=red&contrast=maybe';
  const { page, context, errors } = await openPage(browser, `${site.url}?${q}`);
  await ready(page);
  await waitForTop5(page, 'catdog.png');
  await page.waitForSelector('#link-notice:not([hidden])');
  const notice = await page.textContent('#link-notice-text');
  for (const bad of ['class=5000', 'method=nonsense', 'opacity=7', 'layer=99', 'colour=red', 'contrast=maybe']) {
    assert.ok(notice.includes(bad), `the notice names ${bad}: ${notice}`);
  }
  assert.match(notice, /opacity=7 \(must be a number from 0 to 1\)/);
  const s = await viewOf(page);
  assert.equal(s.colormap, 'inferno', 'valid values still apply');
  assert.equal(s.view, 'grid');
  assert.equal(s.classA, 243, 'a bad class leaves the top-1');
  assert.equal(s.method, 'transformer_attribution');
  assert.equal(s.opacity, 0.55);
  await page.waitForFunction(() => document.querySelectorAll('#grid canvas[data-rendered="heat"]').length > 0);
  assert.doesNotMatch(page.url(), /opacity=7|colour|nonsense/, 'the rewritten link drops what was ignored');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a link naming an uploaded photo says it cannot be restored', { skip }, async () => {
  const { page, context } = await openPage(browser, `${site.url}?photo=holiday.jpg&class=${TIGER_CAT}`);
  await ready(page);
  await page.waitForSelector('#link-notice:not([hidden])');
  assert.match(await page.textContent('#link-notice-text'), /“holiday\.jpg”, which is not one of the samples.*cannot bring it back/);
  assert.equal(await page.evaluate(() => document.body.dataset.photo), undefined, 'no photo is shown');
  // Choosing that photo again brings the linked view back.
  await page.setInputFiles('#file-input', { name: 'holiday.jpg', mimeType: 'image/png', buffer: readFileSync(sample('catdog.png')) });
  await waitForHeat(page, `c${TIGER_CAT}`);
  assert.equal((await viewOf(page)).classA, TIGER_CAT);
  await context.close();
});

// Reads a download back into the page and counts colours in each cell of the sheet.
async function cellColours(page, buffer, cells) {
  return page.evaluate(async ([b64, boxes]) => {
    const bytes = Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
    const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
    const c = new OffscreenCanvas(bitmap.width, bitmap.height);
    const ctx = c.getContext('2d');
    ctx.drawImage(bitmap, 0, 0);
    return boxes.map((r) => {
      const d = ctx.getImageData(r.x, r.y, r.width, r.height).data;
      const seen = new Set();
      for (let i = 0; i < d.length; i += 4 * 5) seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
      return seen.size;
    });
  }, [buffer.toString('base64'), cells]);
}

async function downloadAll(page) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#dl-all')]);
  return { name: download.suggestedFilename(), buffer: readFileSync(await download.path()) };
}

test('Download all: one PNG holding every tile of the grid and of the pair view', { skip }, async () => {
  const { page, context, errors } = await openPage(browser, `${site.url}?photo=catdog.png&view=grid`);
  await ready(page);
  const all = await page.$$eval('#method option', (os) => os.map((o) => o.value));
  const methods = all.length;
  // Every tile but attattr's, which waits for the Attribution panel's run (never started by the grid).
  const drawn = all.filter((m) => m !== 'attattr').length;
  await page.waitForFunction((n) => document.querySelectorAll('#grid canvas[data-rendered="heat"]').length === n,
    drawn);
  assert.match(await page.textContent('#dl-scope'), /save the first tile \(.+\).*“Download all” saves every tile/);
  const grid = await downloadAll(page);
  assert.match(grid.name, /^catdog-grid-all\.png$/);
  const layout = sheetLayout(methods, 4);
  assert.deepEqual(pngSize(grid.buffer), { width: layout.width, height: layout.height });
  const colours = await cellColours(page, grid.buffer, layout.cells);
  colours.forEach((n, i) => assert.ok(n > 50, `grid tile ${i} is in the sheet (${n} colours)`));
  assert.match(await page.textContent('#action-status'), new RegExp(`saved all ${methods} tiles in one PNG`));

  await page.click('#tab-pair');
  await page.waitForFunction(() => document.querySelectorAll('#pair canvas[data-rendered="heat"]').length === 2);
  // A click on the second tile makes it the one the single downloads save, and they say so.
  const second = await page.$eval('#pair .tile:nth-child(2) canvas', (c) => c.dataset.caption);
  await page.click('#pair .tile:nth-child(2) canvas');
  assert.match(await page.textContent('#dl-scope'), new RegExp(`save the chosen tile \\(${second}`));
  assert.equal(await page.getAttribute('#pair .tile:nth-child(2)', 'aria-current'), 'true');
  const [one] = await Promise.all([page.waitForEvent('download'), page.click('#dl-overlay')]);
  const stem = second.replace(/ [\d.]+%$/, '').toLowerCase().replace(/[^a-z0-9]+/g, '-');
  assert.equal(one.suggestedFilename(), `catdog-${stem}-transformer_attribution-overlay.png`);
  const pair = await downloadAll(page);
  const two = sheetLayout(2, 2);
  assert.deepEqual(pngSize(pair.buffer), { width: two.width, height: two.height });
  (await cellColours(page, pair.buffer, two.cells)).forEach((n, i) => assert.ok(n > 50, `pair tile ${i} (${n} colours)`));
  assert.deepEqual(errors, []);
  await context.close();
});

test('compare view: two photos side by side, each with its own map for the same class and method', { skip }, async () => {
  const { page, context, errors } = await openPage(browser, `${site.url}?photo=catdog.png&view=compare&class=${TIGER_CAT}`);
  await ready(page);
  await page.waitForSelector('#view-compare:not([hidden])');
  await page.waitForSelector(`body[data-class="${TIGER_CAT}"]`);
  await page.waitForFunction(() => document.querySelectorAll('#compare-sample option').length > 1);
  await page.selectOption('#compare-sample', 'dogcat2.png');
  await page.waitForFunction(() => document.querySelectorAll('#compare canvas[data-rendered="heat"]').length === 2);
  const tiles = await page.$$eval('#compare canvas', (cs) => cs.map((c) => ({
    caption: c.dataset.caption, sub: c.dataset.sub, target: c.dataset.target, method: c.dataset.method, width: c.width, height: c.height,
  })));
  assert.deepEqual(tiles.map((t) => t.caption), ['catdog.png', 'dogcat2.png']);
  // each caption with that photo's own probability of the class
  assert.ok(tiles.every((t) => /tiger cat \d/.test(t.sub)) && tiles[0].sub !== tiles[1].sub, JSON.stringify(tiles));
  assert.deepEqual(tiles.map((t) => t.target), ['c282', 'c282']);
  assert.deepEqual(tiles.map((t) => t.method), ['transformer_attribution', 'transformer_attribution']);
  // Each photo's own map: the second is not the first drawn again.
  const maps = await page.evaluate(() => {
    const c = [...document.querySelectorAll('#compare canvas')].map((x) => Array.from(x.__binding.map.data));
    return c;
  });
  assert.equal(maps[0].length, maps[1].length);
  assert.ok(maps[0].some((v, i) => Math.abs(v - maps[1][i]) > 1e-6), 'two different maps');
  await page.waitForFunction(() => /photo2=dogcat2\.png/.test(location.search));
  // Changing the method redraws both.
  await page.selectOption('#method', 'attention_rollout');
  await page.waitForFunction(() => [...document.querySelectorAll('#compare canvas')]
    .filter((c) => c.dataset.rendered === 'heat' && c.dataset.method === 'attention_rollout').length === 2);
  const sheet = await downloadAll(page);
  assert.deepEqual(pngSize(sheet.buffer), { width: sheetLayout(2, 2).width, height: sheetLayout(2, 2).height });
  await screenshot(page, 'compare-two-photos');
  // The link reopens both photos.
  await page.waitForFunction(() => /method=attention_rollout/.test(location.search));
  const again = await openPage(browser, page.url());
  await again.page.waitForFunction(() => document.querySelectorAll('#compare canvas[data-rendered="heat"]').length === 2);
  assert.deepEqual(await again.page.$$eval('#compare canvas', (cs) => cs.map((c) => `${c.dataset.caption} ${c.dataset.target} ${c.dataset.method}`)),
    ['catdog.png c282 attention_rollout', 'dogcat2.png c282 attention_rollout']);
  await again.context.close();
  assert.deepEqual(errors, []);
  await context.close();
});

// What a careful reader needs from the page (issue #13, points 3, 4, 5 and 7), in headless
// Chromium against the CLI: the explained class's probability and rank outside the top-5,
// a notice for a constant map in every view, each method's help and paper link, the
// start-layer slider disabled where it does nothing, the crop made visible (full photo
// with the unseen part dimmed, or the model's view), "no crop" preprocessing matching
// `explain --crop none`, and a PNG with transparency decoded as PIL (and the CLI) decode it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import {
  skipReason, openReadyPage, screenshot, sample, waitForHeat, choosePhoto, paths, firstModel, shownTop5,
} from './harness.js';
import { loadCore } from '../../runtime/core.js';
import { tempDir } from '../node/maps-support.js';
import { decodeImageBytes } from '../../runtime/node/image.js';

const skip = skipReason() ?? false;
const BULL_MASTIFF = 243;
const LION = 291; // rank 13 on catdog, and its Grad-CAM map is not constant
const dir = tempDir('vitrel-trust-');
let session;

before(async () => { if (!skip) session = await openReadyPage(); });
after(async () => { await session?.close(); });

const page = () => session.page;
const text = (sel) => page().textContent(sel);

// `vit-relevance explain` on a photo: its maps.json (top5, image.region).
function cli(file, extra = []) {
  const out = path.join(dir, `cli-${path.basename(file)}-${extra.join('')}`);
  const r = spawnSync(process.execPath, [path.join(paths.root, 'cli', 'vit-relevance.js'), 'explain', file,
    '--model', path.join(paths.models, firstModel().onnx), '--method', 'raw_attention', '--out', out, ...extra],
  { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(readFileSync(path.join(out, 'maps.json'), 'utf8'));
}

// The region of the photo the model saw, as the single view's canvas says it.
const regionShown = () => page().$eval('#main-canvas', (c) => {
  const [x, y, width, height] = c.dataset.region.split(',').map(Number);
  return { x, y, width, height };
});

async function showPhoto(file, name = path.basename(file)) {
  await choosePhoto(page(), file);
  await page().waitForFunction((n) => document.body.dataset.photo === n && document.querySelectorAll('#top5 button').length === 5
    && document.querySelector('#main-canvas').dataset.rendered === 'heat', name);
  return { top5: await shownTop5(page()), region: await regionShown() };
}

const sameTop5 = (shown, cliTop5, what) => {
  assert.deepEqual(shown.map((t) => t.id), cliTop5.map((t) => t.id), `${what}: top-5 ids`);
  shown.forEach((t, i) => assert.ok(Math.abs(t.prob - cliTop5[i].prob) < 1e-3, `${what}: probability of class ${t.id}`));
};

test('a class outside the top-5: its probability and rank, and a note that it is very unlikely', { skip }, async () => {
  await showPhoto(sample('catdog.png'));
  assert.match(await text('#class-standing'), /^bull mastiff: [\d.]+%, rank 1 of 1000$/);
  assert.ok(await page().isHidden('#unlikely-note'), 'the top-1 gets no warning');
  await page().fill('#class-a', 'lion');
  await page().click(`#class-a-list-${LION}`);
  await waitForHeat(page(), `c${LION}`);
  const standing = await text('#class-standing');
  const m = standing.match(/^lion: ([\d.]+)%, rank (\d+) of 1000$/);
  assert.ok(m, standing);
  assert.equal(Number(m[2]), 13);
  assert.ok(Number(m[1]) < 1, `lion is under 1 %: ${standing}`);
  assert.match(await text('#unlikely-note'), /only [\d.]+% \(rank 13\): the map shows what would raise that score/);
  assert.match(await text('#main-caption'), /lion [\d.]+% \(rank 13\)/);
  await screenshot(page(), 'trust-unlikely-class');
  await page().click(`#top5 button[data-class-id="${BULL_MASTIFF}"]`);
  await waitForHeat(page(), `c${BULL_MASTIFF}`);
  assert.ok(await page().isHidden('#unlikely-note'));
});

test('method help: in words, the formula behind "Details", a paper link, in the selector and on every grid tile', { skip }, async () => {
  // The registry of the core the Worker runs, for the methods the page lists.
  const core = await loadCore();
  const info = (await page().$$eval('#method option', (os) => os.map((o) => o.value)))
    .map((id) => core.method(id)).map(({ id, description, about, paper }) => ({ id, description, about, paper }));
  assert.ok(info.every((m) => m.about.length > 60 && !/[∇⊙Σ]|E_h/.test(m.about)), 'every method is said in words');
  assert.ok(await page().$eval('#method-help a', (a) => a.href.startsWith('http')));
  assert.equal(await page().$eval('#method-help details', (d) => d.open), false, 'the formula waits behind Details');
  assert.match(await page().textContent('#method-help details summary'), /^Details$/);
  await page().click('#tab-grid');
  // Every tile but attattr's, which waits for the Attribution panel's run.
  await page().waitForFunction((n) => document.querySelectorAll('#grid canvas[data-rendered="heat"]').length === n,
    info.filter((m) => m.id !== 'attattr').length);
  for (const { id, description, about, paper } of info) {
    const tile = page().locator('#grid figure', { has: page().locator(`canvas[data-method="${id}"]`) });
    const note = await tile.locator('.method-note').textContent();
    assert.ok(note.startsWith(about) && note.includes(`${description}. In the API and CLI: ${id}.`), `${id}: ${note}`);
    if (paper) assert.equal(await tile.locator('.method-note a').getAttribute('href'), paper, `${id}: paper link`);
  }
  assert.ok(info.filter((m) => m.paper).length >= 8, 'most methods cite a paper');
  await page().click('#tab-single');
});

test('the start-layer slider is disabled, with the reason, for a method it does not affect', { skip }, async () => {
  assert.equal(await page().isDisabled('#start-layer'), false, 'transformer attribution is a rollout');
  await page().selectOption('#method', 'gradcam');
  assert.equal(await page().isDisabled('#start-layer'), true);
  assert.match(await text('#start-layer-reason'), /Not used by Grad-CAM.*rollout/);
  await page().click('#tab-grid'); // the grid shows the rollouts too
  assert.equal(await page().isDisabled('#start-layer'), false);
  await page().click('#tab-single');
  assert.equal(await page().isDisabled('#start-layer'), true);
});

test('a constant map says so in the single, grid and pair views', { skip }, async () => {
  // Grad-CAM of bull mastiff on catdog is constant (every head's weight is negative).
  await page().selectOption('#method', 'gradcam');
  await waitForHeat(page(), `c${BULL_MASTIFF}`);
  const note = /map is constant: this method finds no relevance for this class/;
  assert.equal(await page().$eval('#main-canvas', (c) => c.dataset.constant), 'true');
  assert.match(await text('#main-caption'), note);
  assert.match(await text('#map-notice'), /Grad-CAM[^:]*: the map is constant/);
  const plain = await pixelPair(0.5, 0.5); // no colour wash over the photo
  plain.shown.forEach((v, i) => assert.ok(Math.abs(v - plain.photo[i]) <= 2, `constant map drawn: ${JSON.stringify(plain)}`));
  await page().click('#tab-grid');
  await waitForHeat(page(), `c${BULL_MASTIFF}`, 'grid');
  assert.match(await page().locator('#grid figure', { has: page().locator('canvas[data-method="gradcam"]') }).textContent(), note);
  assert.doesNotMatch(await page().locator('#grid figure', { has: page().locator('canvas[data-method="transformer_attribution"]') }).textContent(), note);
  await page().click('#tab-pair');
  await page().waitForFunction(() => document.querySelectorAll('#pair canvas[data-rendered="heat"]').length === 2);
  assert.match(await page().locator('#pair figure').first().textContent(), note);
  assert.equal(await page().isHidden('#map-notice'), false);
  await screenshot(page(), 'trust-constant-pair');
  await page().click('#tab-single');
  await page().selectOption('#method', 'transformer_attribution');
});

// The canvas's pixel at (x, y) (fractions of its size), and the photo's own pixel there.
const pixelPair = (fx, fy) => page().evaluate(([x, y]) => {
  const c = document.querySelector('#main-canvas');
  const px = c.getContext('2d').getImageData(Math.floor(x * c.width), Math.floor(y * c.height), 1, 1).data;
  const photo = window.__vitrel.photoBitmap();
  const [rx, ry, rw, rh] = c.dataset.region.split(',').map(Number);
  const box = c.dataset.frame === 'model' ? { x: rx, y: ry, width: rw, height: rh } : { x: 0, y: 0, width: photo.width, height: photo.height };
  const ref = new OffscreenCanvas(c.width, c.height);
  const ctx = ref.getContext('2d');
  ctx.imageSmoothingQuality = 'high';
  const s = c.width / box.width;
  ctx.drawImage(photo, -box.x * s, -box.y * s, photo.width * s, photo.height * s);
  const want = ctx.getImageData(Math.floor(x * c.width), Math.floor(y * c.height), 1, 1).data;
  return { shown: [...px.slice(0, 3)], photo: [...want.slice(0, 3)], width: c.width, height: c.height };
}, [fx, fy]);

test('the crop made visible: the unseen part dimmed, or the model\'s view alone', { skip }, async () => {
  const { region } = await showPhoto(sample('dogcat2.png')); // 660×371: the crop leaves the sides out
  assert.ok(region.x > 100 && region.width < 400, JSON.stringify(region));
  await page().fill('#opacity', '0');
  await page().dispatchEvent('#opacity', 'input');
  // Full photo: outside the crop at 35 % brightness, inside as the photo is.
  const outside = await pixelPair(0.03, 0.5);
  outside.shown.forEach((v, i) => assert.ok(Math.abs(v - outside.photo[i] * 0.35) <= 3, `dimmed: ${JSON.stringify(outside)}`));
  const inside = await pixelPair(0.5, 0.5);
  inside.shown.forEach((v, i) => assert.ok(Math.abs(v - inside.photo[i]) <= 2, `inside: ${JSON.stringify(inside)}`));
  assert.match(await text('#framing-note'), /Dimmed: outside the 224×224 centre crop, \d+% of the photo that the model never saw/);
  await page().check('input[name="frame"][value="model"]');
  await page().waitForFunction(() => document.querySelector('#main-canvas').dataset.frame === 'model');
  const zoomed = await pixelPair(0.02, 0.5);
  assert.equal(zoomed.width, zoomed.height, 'the model\'s view is the square crop');
  assert.ok(zoomed.width >= 448, 'zoomed');
  zoomed.shown.forEach((v, i) => assert.ok(Math.abs(v - zoomed.photo[i]) <= 2, `model view: ${JSON.stringify(zoomed)}`));
  assert.match(await text('#framing-note'), /The model's view: its 224×224 centre crop, zoomed. The other \d+% of the photo was never seen/);
  await page().fill('#opacity', '0.55');
  await page().dispatchEvent('#opacity', 'input');
  await screenshot(page(), 'trust-model-view');
  await page().check('input[name="frame"][value="photo"]');
});

test('"no crop" preprocessing: the whole photo, another top-5, the same as `explain --crop none`', { skip }, async () => {
  const file = sample('dogcat2.png');
  const centre = await shownTop5(page());
  sameTop5(centre, cli(file).top5, 'centre crop');
  await page().check('input[name="crop"][value="none"]');
  await page().waitForFunction(() => document.querySelector('#main-canvas').dataset.region.startsWith('0,0,')
    && document.querySelectorAll('#top5 button').length === 5 && document.querySelector('#main-canvas').dataset.rendered === 'heat');
  const [top5, region] = [await shownTop5(page()), await regionShown()];
  assert.deepEqual(region, { x: 0, y: 0, width: 660, height: 371 }, 'the map covers the whole photo');
  const whole = cli(file, ['--crop', 'none']);
  assert.deepEqual(whole.image.region, region);
  assert.equal(whole.image.crop, 'none');
  sameTop5(top5, whole.top5, 'no crop');
  assert.notDeepEqual(top5.map((t) => [t.id, t.prob.toFixed(3)]), centre.map((t) => [t.id, t.prob.toFixed(3)]), 'no crop changes the top-5');
  assert.match(await text('#framing-note'), /No crop: the model saw the whole photo, resized to 224×224 \(its 660×371 proportions squeezed\)/);
  await screenshot(page(), 'trust-no-crop');
  await page().check('input[name="crop"][value="center"]');
  await page().waitForFunction(() => Number(document.querySelector('#main-canvas').dataset.region.split(',')[0]) > 0
    && document.querySelectorAll('#top5 button').length === 5);
});

test('a PNG with transparency: decoded as PIL decodes it, the same top-5 as the CLI', { skip }, async () => {
  // catdog's colours kept under alpha 0 (left third), 50 % (middle) and opaque (right).
  const { data, info } = await sharp(sample('catdog.png')).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) data[(y * info.width + x) * 4 + 3] = x < 75 ? 0 : x < 150 ? 128 : 255;
  }
  const file = path.join(dir, 'catdog-alpha.png');
  writeFileSync(file, await sharp(data, { raw: info }).png().toBuffer());
  const shown = await showPhoto(file);
  sameTop5(shown.top5, cli(file).top5, 'alpha PNG');
  // The pixels the page hands the model are PIL's (the CLI's decoder, tests/node/png-decode.test.js).
  const pagePixels = await page().evaluate(() => {
    const bitmap = window.__vitrel.photoBitmap();
    const c = new OffscreenCanvas(bitmap.width, bitmap.height).getContext('2d');
    c.drawImage(bitmap, 0, 0);
    return Array.from(c.getImageData(0, 0, bitmap.width, bitmap.height).data);
  });
  const pil = await decodeImageBytes(readFileSync(file), 'catdog-alpha.png');
  let differ = 0;
  for (let i = 0; i < pil.rgba.length; i++) if (i % 4 !== 3 && pil.rgba[i] !== pagePixels[i]) differ++;
  assert.equal(differ, 0, 'the page reads the same RGB values as PIL');
  // The canvas's own decoding would have lost the colours under transparency.
  const lost = await page().evaluate(async (bytes) => {
    const blob = new Blob([new Uint8Array(bytes)], { type: 'image/png' });
    const c = new OffscreenCanvas(224, 224).getContext('2d');
    c.drawImage(await createImageBitmap(blob, { premultiplyAlpha: 'none', colorSpaceConversion: 'none' }), 0, 0);
    const canvasRead = c.getImageData(0, 0, 224, 224).data;
    const d = new OffscreenCanvas(224, 224).getContext('2d');
    d.drawImage(window.__vitrel.photoBitmap(), 0, 0);
    const ours = d.getImageData(0, 0, 224, 224).data;
    let differ = 0;
    for (let i = 0; i < ours.length; i += 4) differ += canvasRead[i] !== ours[i];
    return differ / (ours.length / 4);
  }, [...readFileSync(file)]);
  assert.ok(lost > 0.3, `the canvas would have read ${Math.round(lost * 100)}% of the pixels differently`);
});

test('the page logged no errors', { skip }, async () => {
  assert.deepEqual(session.errors, []);
});

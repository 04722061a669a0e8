// What the page needs from the public API (issue 26), through the API alone on the real
// DeiT-tiny in headless Chromium: the prediction before the maps, a newer request making
// an older one stale (AbortSignal), the crop and EXIF options, a decoded photo opened on
// a second explainer, Self-Attention Attribution block by block with a cancel, timed
// forward passes, and close() ending the Worker and its sessions.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { skipReason, startSite, launch, openPage, firstModel, WAIT_MS } from './harness.js';
import { render as nodeRender } from '../../runtime/node/index.js';

const skip = skipReason() ?? false;
const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>api</title></head><body>
<script type="module">window.__api = await import(new URL('vit-relevance.js', document.baseURI).href);</script></body></html>`;

let site;
let browser;
let session;

before(async () => {
  if (skip) return;
  site = await startSite({ overrides: { '/api.html': { body: PAGE, type: 'text/html' } } });
  browser = await launch();
  session = await openPage(browser, `${site.url}api.html`);
  await session.page.waitForFunction(() => window.__api, null, { timeout: WAIT_MS });
});
after(async () => {
  await browser?.close();
  await site?.close();
});

const run = (fn, arg) => session.page.evaluate(fn, arg);

test('a prepared explainer: the prediction comes before the maps, and an aborted request rejects alone', { skip, timeout: WAIT_MS }, async () => {
  const r = await run(async () => {
    const { loadExplainer, decodePhoto } = window.__api;
    const events = [];
    const phases = new Set();
    const statuses = new Set();
    const explainer = await loadExplainer({ prepare: true, onProgress: (info) => { statuses.add(info.status); if (info.status === 'progress') info.phases.forEach((x) => phases.add(x)); } });
    const blob = await (await fetch('samples/catdog.png')).blob();
    const photo = await explainer.open(await decodePhoto(blob));
    const first = await photo.explain({ onPrediction: (p) => events.push(['prediction', p.top5[0].id, p.logits.length, p.predictedBy]) });
    events.push(['maps', first.targets[0].id]);
    // A request aborted at once is stale: it rejects with an AbortError, the next one runs.
    const controller = new AbortController();
    const stale = photo.explain({ targets: [282], signal: controller.signal }).then(() => 'resolved', (e) => e.name);
    controller.abort();
    const next = await photo.explain({ targets: [282] });
    const out = { events, phases: [...phases], statuses: [...statuses], stale: await stale, next: next.targets[0].id, shape: next.targets[0].maps.transformer_attribution.shape, load: explainer.load };
    photo.close();
    explainer.close();
    return out;
  });
  assert.deepEqual(r.events.map((e) => e[0]), ['prediction', 'maps']);
  assert.equal(r.events[0][1], 243, 'catdog: bull mastiff');
  assert.equal(r.events[0][2], 1000, 'every class\'s logit');
  assert.equal(r.events[1][1], 243);
  assert.ok(r.phases.includes('fetch') && r.phases.includes('compile'), r.phases.join(','));
  // One callback hears the load and the Worker's notices: its default graph opened (or
  // failed to) before the photo's request ran, in the Worker's queue.
  assert.ok(r.statuses.includes('progress') && r.statuses.includes('explainer-ready'), r.statuses.join(','));
  assert.equal(r.stale, 'AbortError');
  assert.equal(r.next, 282);
  assert.deepEqual(r.shape, [14, 14]);
  assert.equal(typeof r.load.fromCache, 'boolean');
  assert.ok(r.load.phaseMs.prepare >= 0, JSON.stringify(r.load.phaseMs));
});

test('crop and EXIF options; a decoded photo opens on a second explainer; bad options fail before any work', { skip, timeout: WAIT_MS }, async () => {
  const r = await run(async () => {
    const { loadExplainer, decodePhoto } = window.__api;
    const explainer = await loadExplainer();
    const blob = await (await fetch('samples/dogcat2.png')).blob();
    const decoded = await decodePhoto(blob, { exif: 'ignore' });
    const regions = {};
    for (const crop of ['center', 'none']) {
      const photo = await explainer.open(decoded, { crop });
      regions[crop] = (await photo.explain()).region;
      photo.close();
    }
    const errors = [];
    for (const options of [{ crop: 'middle' }, { exif: 'rotate' }]) {
      try { await explainer.open(decoded, options); } catch (e) { errors.push(e.message); }
    }
    const second = await loadExplainer({ backend: 'wasm', model: 'models/' });
    const again = await second.open(decoded);
    const top1 = (await again.explain()).top5[0].id;
    second.close();
    explainer.close();
    return { width: decoded.width, height: decoded.height, regions, errors, top1, copies: decoded.copies.length };
  });
  assert.deepEqual(r.regions.none, { x: 0, y: 0, width: r.width, height: r.height });
  assert.ok(r.regions.center.width * r.regions.center.height < r.width * r.height, JSON.stringify(r.regions));
  assert.deepEqual(r.errors, ['crop must be \'center\' or \'none\', got "middle"', 'exif must be \'use\' or \'ignore\', got "rotate"']);
  assert.ok(Number.isInteger(r.top1));
  assert.ok(r.copies > 0, 'smaller copies for drawing');
});

test('attribution block by block, cancelled within a block; timed forward passes; close() ends the Worker', { skip: skip || (!firstModel()?.attribution && 'the model has no attribution graphs'), timeout: WAIT_MS }, async () => {
  const r = await run(async () => {
    const { loadExplainer, runtimeStats } = window.__api;
    const explainer = await loadExplainer({ prepare: true }); // its plain forward graph times forward passes
    const photo = await explainer.open('samples/catdog.png');
    const times = await photo.timeForward(2);
    const blocks = [];
    const one = await photo.attribute({ class: 'tiger cat', blocks: [0], steps: 1, onBlock: (b) => blocks.push([b.block, b.done, b.total, b.attr.length]) });
    const controller = new AbortController();
    const cancelled = await photo.attribute({
      blocks: [1, 2, 3, 4, 5, 6], steps: 1, signal: controller.signal, onBlock: () => controller.abort(),
    }).then(() => 'finished', (e) => e.name);
    const before = await runtimeStats();
    explainer.close();
    const after = await runtimeStats();
    return { times, blocks, one, cancelled, before, after, architecture: explainer.metadata.architecture };
  });
  const { heads, tokens } = r.architecture;
  assert.equal(r.times.length, 2);
  assert.ok(r.times.every((t) => t > 0), r.times.join(','));
  assert.deepEqual(r.blocks, [[0, 1, 1, heads * tokens * tokens]]);
  assert.equal(r.one.class, 282);
  assert.ok(r.one.prob > 0 && r.one.prob < 1, String(r.one.prob));
  assert.equal(r.cancelled, 'AbortError');
  // Block 0, then the cancelled run's first block (or its second, already under way).
  assert.ok(r.before.attribution.blocks >= 2 && r.before.attribution.blocks <= 3, JSON.stringify(r.before.attribution));
  assert.ok(r.before.sessions >= 1);
  assert.notEqual(r.after.workerId, r.before.workerId, 'the last close() ended the Worker');
  assert.equal(r.after.sessions, 0);
});

// The page's model switch: the last explainer closed and another model loaded in the same
// task keep the Worker (onnxruntime compiled once), with the first model unloaded in it.
test('a load in the task that closed the last explainer keeps the Worker, the old model unloaded; a close alone ends it', { skip, timeout: WAIT_MS }, async () => {
  const r = await run(async () => {
    const { loadExplainer, runtimeStats } = window.__api;
    const image = await loadExplainer({ prepare: true });
    const photo = await image.open('samples/catdog.png');
    await photo.explain();
    const before = await runtimeStats();
    const { models } = await (await fetch('models/index.json')).json();
    const entry = models.find((m) => m.kind === 'text');
    if (!entry) return { noText: true };
    image.close();
    const text = await loadExplainer({ model: { base: new URL('models/', document.baseURI).href, entry } });
    const switched = await runtimeStats();
    const explained = await text.explain('a gripping, beautifully acted film');
    text.close();
    const closed = await runtimeStats();
    return { before, switched, closed, compiles: [image.load.compileMs, text.load.compileMs], id: explained.targets[0].id };
  });
  if (r.noText) return; // a site built without the default text model
  assert.ok(r.before.sessions === 1 && r.before.photos === 1, JSON.stringify(r.before));
  assert.equal(r.switched.workerId, r.before.workerId, 'the Worker was kept');
  assert.equal(r.switched.sessions, 1, 'the image model was unloaded: the text model alone');
  assert.equal(r.switched.photos, 0, 'the image model\'s photo was freed');
  assert.equal(r.compiles[1], r.compiles[0], 'onnxruntime compiled once');
  assert.ok(Number.isInteger(r.id));
  assert.notEqual(r.closed.workerId, r.switched.workerId, 'the last close() with no load after it ended the Worker');
  assert.equal(r.closed.sessions, 0);
});

// One render path: the browser's render() over a photo is the core's overlayOnPhoto, as
// Node's render() and the CLI are, so the same photo pixels give the same picture.
test('render() over a photo gives the pixels Node\'s render() gives', { skip, timeout: WAIT_MS }, async () => {
  const [width, height] = [64, 48];
  const rgba = Uint8ClampedArray.from({ length: width * height * 4 }, (_, i) => (i % 4 === 3 ? 255 : (i * 37) % 251));
  const map = { shape: [3, 4], data: Float32Array.from([0, 1, 2, 3, -1, 5, 0.5, 2, 4, -2, 1, 0]) };
  const options = { threshold: 'mean', opacity: 0.6, scale: 'signed', colormap: 'jet', region: { x: 8, y: 4, width: 48, height: 36 } };
  for (const display of ['smooth', 'grid']) {
    const inBrowser = await run(async ({ pixels, w, h, m, o }) => {
      const bitmap = await createImageBitmap(new ImageData(Uint8ClampedArray.from(pixels), w, h), { colorSpaceConversion: 'none' });
      const image = await window.__api.render({ shape: m.shape, data: Float32Array.from(m.data) }, { ...o, photo: { bitmap, width: w, height: h } });
      return { width: image.width, height: image.height, data: [...image.data] };
    }, { pixels: [...rgba], w: width, h: height, m: { shape: map.shape, data: [...map.data] }, o: { ...options, display } });
    const inNode = await nodeRender(map, { ...options, display, photo: { rgba, width, height } });
    assert.deepEqual([inBrowser.width, inBrowser.height], [width, height]);
    assert.deepEqual(inBrowser.data, [...inNode.data], display);
  }
});

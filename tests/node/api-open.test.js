// The Node API's open(image, { crop, exif }) and decodePhoto, as the browser's: a photo read
// and preprocessed once, explained as explain(image, options) explains it; a .npy or
// { pixels } is the model's input already; onProgress hears one ProgressInfo.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { deitModel, goldenInput, skipDeit } from './explain-support.js';
import { shared } from './maps-support.js';
import { decodePhoto, loadExplainer, readModel } from '../../runtime/node/index.js';
import { readNpyFile } from '../../runtime/node/npy-file.js';

// A 500×375 JPEG (ImageNet's validation photos are rarely square): its crops differ.
const tench = path.join(shared, 'imagenet', 'samples', 'n01440764_tench.JPEG');
const METHODS = ['transformer_attribution'];

test('Node open(image, { crop, exif }) keeps a photo; explain(image, options) gives the same maps', { skip: skipDeit }, async () => {
  const model = await readModel(path.dirname(deitModel));
  assert.equal(path.basename(model.file), path.basename(deitModel));
  const heard = [];
  const explainer = await loadExplainer({ model, threads: 1, onProgress: (info) => heard.push(info) });
  try {
    assert.deepEqual(heard.map((i) => i.status), ['progress']);
    assert.equal(heard[0].loaded, heard[0].total);
    const centre = await explainer.open(tench, { crop: 'center' });
    const whole = await explainer.open(await decodePhoto(tench, { exif: 'ignore' }), { crop: 'none' });
    assert.equal(centre.name, 'n01440764_tench.JPEG');
    assert.deepEqual([centre.width, centre.height, centre.crop, centre.exif, centre.source], [whole.width, whole.height, 'center', 'use', 'photo']);
    assert.equal(centre.rgba.length, centre.width * centre.height * 4);
    // The centre crop is a square (up to the resize's rounding) inside the photo; 'none'
    // is the whole photo.
    assert.ok(Math.abs(centre.region.width - centre.region.height) < 1, JSON.stringify(centre.region));
    assert.ok(centre.region.width < Math.max(centre.width, centre.height));
    assert.deepEqual(whole.region, { x: 0, y: 0, width: whole.width, height: whole.height });
    assert.equal(centre.top5, null, 'the prediction comes with the first explanation');
    const kept = await centre.explain({ methods: METHODS });
    assert.deepEqual(centre.top5, kept.top5);
    const once = await explainer.explain(tench, { crop: 'center', methods: METHODS });
    assert.deepEqual(once.region, centre.region);
    assert.deepEqual(once.targets[0].maps.transformer_attribution, kept.targets[0].maps.transformer_attribution);
    const uncropped = await whole.explain({ methods: METHODS });
    assert.notDeepEqual(uncropped.targets[0].maps.transformer_attribution.data, kept.targets[0].maps.transformer_attribution.data);
    centre.close();
    await assert.rejects(centre.explain(), /the photo was closed/);
    whole.close();
    await assert.rejects(explainer.open(tench, { crop: /** @type {any} */ ('middle') }), /crop must be 'center' or 'none', got "middle"/);
    await assert.rejects(explainer.open(tench, { exif: /** @type {any} */ ('rotate') }), /exif must be 'use' or 'ignore', got "rotate"/);
  } finally {
    await explainer.close();
  }
});

test('Node open() of a .npy or { pixels }: the model\'s input, all of it the region', { skip: skipDeit }, async () => {
  const explainer = await loadExplainer({ model: deitModel, threads: 1 });
  try {
    const fromFile = await explainer.open(goldenInput);
    const pixels = (await readNpyFile(goldenInput)).data;
    const given = await explainer.open({ pixels: /** @type {Float32Array} */ (pixels) });
    for (const photo of [fromFile, given]) {
      assert.deepEqual([photo.source, photo.exif, photo.crop, photo.width, photo.height], ['tensor', null, null, 224, 224]);
      assert.deepEqual(photo.region, { x: 0, y: 0, width: 224, height: 224 });
    }
    assert.deepEqual(fromFile.pixels, given.pixels);
    const [a, b] = [await fromFile.explain({ methods: METHODS }), await given.explain({ methods: METHODS })];
    assert.deepEqual(a.targets[0].maps, b.targets[0].maps);
    await assert.rejects(explainer.open(goldenInput, { crop: 'none' }), /crop 'none' applies to photos; .*catdog-input\.npy is already the model's input/);
    await assert.rejects(explainer.open({ pixels: new Float32Array(12) }), /must be a Float32Array of 3×224×224 = 150528 normalised values/);
    fromFile.close();
    given.close();
  } finally {
    await explainer.close();
  }
});

// The photos' class tensors (runtime/photo-cache.js) over the hand-written tiny graph
// and the real core: kept within one byte budget over every photo, the least recently
// used class re-run once pushed out, a class explained again without a run while kept,
// a contrast of two classes whose tensors do not fit together still whole, and a closed
// photo's tensors freed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as ort from 'onnxruntime-web';
import { openExplainer } from '../../runtime/explainer.js';
import { createPhotoCache } from '../../runtime/photo-cache.js';
import { loadCore } from '../../runtime/core.js';
import { tinyExplainerOnnx, tinyMetadata, TINY } from './explainer-fixture.js';
import { coreBuilt } from './explain-support.js';

ort.env.wasm.numThreads = 1;
const skip = !coreBuilt && 'the core is not built (npm run build)';
const { blocks: B, heads: h, tokens: S, size: [H, W] } = TINY;
const pixels = Float32Array.from({ length: 3 * H * W }, (_, i) => (i % 7) - 3);
const methods = ['transformer_attribution'];
// transformer attribution's tensors of one class: attn_grad and attn_rel (float32)
const CLASS_BYTES = 2 * B * h * S * S * 4;
let ex;
let core;

before(async () => {
  if (skip) return;
  ex = await openExplainer({ ort, model: tinyExplainerOnnx(), metadata: tinyMetadata(), modelName: 'tiny.onnx' });
  core = await loadCore();
});
after(() => ex?.release());

const explain = (sessions, photo, target) => sessions.explain(photo, [target], { methods });

test('classes kept within the byte budget, the least recently used re-run', { skip }, async () => {
  const sessions = createPhotoCache({ explainer: ex, core, tensorCacheBytes: 2.5 * CLASS_BYTES });
  const photo = sessions.pixelsPhoto(pixels);
  const other = sessions.pixelsPhoto(pixels);
  await explain(sessions, photo, { class: 0 });
  assert.equal(sessions.keptBytes, CLASS_BYTES);
  await explain(sessions, photo, { class: 0 });
  assert.equal(sessions.graphRuns, 1, 'a kept class runs no graph');
  await explain(sessions, other, { class: 1 });
  await explain(sessions, photo, { class: 0 }); // now the most recent
  await explain(sessions, photo, { class: 2 }); // pushes out the other photo's class 1
  assert.equal(sessions.graphRuns, 3);
  assert.equal(sessions.keptBytes, 2 * CLASS_BYTES);
  await explain(sessions, photo, { class: 0 });
  assert.equal(sessions.graphRuns, 3, 'class 0 stayed');
  const again = await explain(sessions, other, { class: 1 });
  assert.equal(sessions.graphRuns, 4, 'class 1 was pushed out, and runs again');
  assert.deepEqual(again.results[0].maps.transformer_attribution.shape, TINY.grid);
  sessions.closePhoto(other);
  sessions.closePhoto(photo);
  assert.equal(sessions.keptBytes, 0, 'closed photos free their tensors');
});

test('a contrast whose two classes do not fit the budget together is still whole', { skip }, async () => {
  const sessions = createPhotoCache({ explainer: ex, core, tensorCacheBytes: CLASS_BYTES });
  const photo = sessions.pixelsPhoto(pixels);
  const { results } = await sessions.explain(photo, [{ class: 1, contrast: 2 }, { class: 3 }], { methods });
  const [contrast, plain] = results;
  assert.deepEqual(contrast.maps.transformer_attribution.shape, TINY.grid);
  assert.ok('correlation' in contrast.maps.transformer_attribution, 'a contrast of the two classes\' maps');
  assert.deepEqual(plain.maps.transformer_attribution.shape, TINY.grid);
  assert.equal(sessions.keptBytes, CLASS_BYTES, 'only the newest class is kept');
  sessions.close();
  assert.equal(sessions.keptBytes, 0);
});

test('a budget that is not a byte count is refused before anything is kept', { skip }, () => {
  for (const bad of [NaN, -1, '192 MB', Infinity]) {
    assert.throws(() => createPhotoCache({ explainer: ex, core, tensorCacheBytes: bad }), /tensorCacheBytes must be a number of bytes, 0 or more/);
  }
});

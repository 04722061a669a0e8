// The page's split graphs of the real DeiT-tiny (models/exporter/split.py) through
// openExplainer: cachePhoto + explainCached give what explain gives (within float32
// rounding), for several targets on one cached photo, and the maps agree; graphs that do
// not fit each other are refused with a clear message; with the plain forward graph over
// the same weights, it opens first and predicts the explainer graph's logits.
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-web';
import { openExplainer } from '../../runtime/explainer.js';
import { createPhotoCache } from '../../runtime/photo-cache.js';
import { loadCore } from '../../runtime/core.js';
import { readNpyFile } from '../../runtime/node/npy-file.js';
import { root } from './maps-support.js';
import { skipDeit, goldenInput, argmax } from './explain-support.js';
import { maxRelativeDiff } from './maps-support.js';

ort.env.wasm.numThreads = 2;
const models = path.join(root, 'build', 'models');
const entry = existsSync(path.join(models, 'index.json'))
  ? JSON.parse(readFileSync(path.join(models, 'index.json'), 'utf8')).models.find((m) => m.split)
  : null;
const skip = skipDeit || (!entry && 'no split graphs in build/models (npm run build exports them)');
const read = (f) => readFileSync(path.join(models, f));

// options: more of openExplainer's (the plain forward graph).
async function open(split = entry.split, options = {}) {
  return openExplainer({
    ort,
    model: read(split.graph),
    split: { photo: read(split.photo), target: read(split.target) },
    metadata: JSON.parse(read(entry.metadata)),
    sessionOptions: { externalData: [{ path: split.weights, data: read(split.weights) }] },
    modelName: split.graph,
    ...options,
  });
}

test('split graphs: explainCached on a cached photo equals explain, for several targets', { skip, timeout: 300_000 }, async () => {
  const ex = await open();
  const core = await loadCore();
  try {
    assert.equal(ex.canCachePhoto, true);
    const pixels = (await readNpyFile(goldenInput)).data;
    const cache = await ex.cachePhoto(pixels);
    const arch = ex.metadata.architecture;
    for (const targets of [[null], [282, 243]]) {
      const single = await ex.explain(pixels, targets);
      const split = await ex.explainCached(cache, targets);
      assert.deepEqual(split.classes, single.classes);
      assert.deepEqual(split.logits, single.logits);
      for (let k = 0; k < targets.length; k++) {
        // attention and gradients to float32 rounding; the LRP relevances of the lower
        // blocks amplify rounding (METHODS.md), so the maps are compared instead
        assert.ok(maxRelativeDiff(split.tensors[k].attn_grad.data, single.tensors[k].attn_grad.data) < 1e-4);
        assert.ok(maxRelativeDiff(split.tensors[k].attn_rel_classic_last.data, single.tensors[k].attn_rel_classic_last.data) < 1e-4);
        const options = { methods: 'all', grid: arch.grid, specialTokens: arch.special_tokens ?? 1 };
        const a = core.computeMaps(split.tensors[k], options);
        const b = core.computeMaps(single.tensors[k], options);
        for (const m of ['transformer_attribution', 'gradcam', 'partial_lrp', 'generic_attention', 'ablation_last_block']) {
          assert.ok(maxRelativeDiff(a[m].data, b[m].data) < 1e-3, `${m} of target ${targets[k]}`);
          assert.equal(argmax(a[m].data), argmax(b[m].data), m);
        }
      }
    }
    // The cache belongs to its photo: another photo's run gives other tensors.
    const other = await ex.cachePhoto(pixels.map((v) => -v));
    const a = await ex.explainCached(cache, [243], { outputs: ['attn_grad'] });
    const b = await ex.explainCached(other, [243], { outputs: ['attn_grad'] });
    assert.ok(maxRelativeDiff(a.tensors[0].attn_grad.data, b.tensors[0].attn_grad.data) > 1e-2);
  } finally {
    await ex.release();
  }
});

// The embeds' way into a new photo (photo-cache.js predictFromPhoto): the photo graph
// predicts, the target graph explains; the same prediction and maps as the single run, and
// attention-only methods then cost no graph run at all.
test('a photo analysed through the photo graph: the single run\'s prediction and maps; attention methods run no graph', { skip, timeout: 300_000 }, async () => {
  const ex = await open();
  const core = await loadCore();
  try {
    const photoCache = createPhotoCache({ explainer: ex, core });
    const pixels = (await readNpyFile(goldenInput)).data;
    const methods = ['transformer_attribution'];
    const single = photoCache.pixelsPhoto(pixels);
    const viaPhoto = photoCache.pixelsPhoto(pixels);
    const a = await photoCache.predict(single, { methods });
    const b = await photoCache.predictFromPhoto(viaPhoto);
    assert.deepEqual(b.target, a.target);
    assert.deepEqual(b.top5.map((t) => t.id), a.top5.map((t) => t.id));
    const runs = photoCache.graphRuns;
    const [mapA] = (await photoCache.explain(single, [a.target], { methods })).results;
    const [mapB] = (await photoCache.explain(viaPhoto, [b.target], { methods })).results;
    assert.equal(photoCache.graphRuns, runs + 1, 'the single run kept its tensors; the photo graph\'s photo runs the target graph');
    const ta = (r) => r.maps.transformer_attribution.data;
    assert.ok(maxRelativeDiff(ta(mapB), ta(mapA)) < 1e-3);
    assert.equal(argmax(ta(mapB)), argmax(ta(mapA)));
    const rollout = await photoCache.explain(viaPhoto, [{ class: 282 }], { methods: ['attention_rollout'] });
    assert.equal(photoCache.graphRuns, runs + 1, 'attention_rollout reads the photo graph\'s attn');
    assert.deepEqual(rollout.results[0].maps.attention_rollout.shape, ex.metadata.architecture.grid);
  } finally {
    await ex.release();
  }
});

test('split graphs that do not fit each other are refused', { skip, timeout: 120_000 }, async () => {
  await assert.rejects(open({ ...entry.split, target: entry.split.photo }), /split graphs do not fit/);
});

test('split graphs with the plain forward graph: it opens first, predicts before any other session opens, with the explainer graph\'s logits', { skip: skip || (!entry?.split.forward && 'no split forward graph'), timeout: 300_000 }, async () => {
  const ex = await open(entry.split, { forwardModel: read(entry.split.forward), forwardName: entry.split.forward });
  try {
    assert.equal(ex.hasForward, true);
    const pixels = (await readNpyFile(goldenInput)).data;
    const { logits } = await ex.predict(pixels);
    assert.equal(ex.explainerOpen, false, 'predict() opened the explainer graph');
    const single = await ex.explain(pixels, [null]);
    assert.equal(ex.explainerOpen, true);
    assert.equal(argmax(logits), argmax(single.logits));
    // Two graphs of the same weights whose kernels sum in different orders: 7.9e-7 of the
    // largest logit on this photo, 3.6e-6 at worst over 12 random inputs (uniform in ±2);
    // 2e-5 is over 5× that (docs/tolerances.md).
    const err = maxRelativeDiff(logits, single.logits);
    assert.ok(err < 2e-5, `forward vs explainer logits: ${err}`);
  } finally {
    await ex.release();
  }
});

test('the plain forward graph is checked against the metadata when it opens', { skip: skip || (!entry?.split.forward && 'no split forward graph'), timeout: 300_000 }, async () => {
  const metadata = JSON.parse(read(entry.metadata));
  metadata.architecture.num_classes = 999;
  metadata.labels = metadata.labels.slice(0, 999);
  metadata.label_names = metadata.label_names.slice(0, 999);
  await assert.rejects(open(entry.split, { forwardModel: read(entry.split.forward), forwardName: entry.split.forward, metadata }),
    new RegExp(`the metadata does not match ${entry.split.forward.replace(/\./g, '\\.')}: architecture\\.num_classes is 999 in the metadata, 1000 in the graph`));
});

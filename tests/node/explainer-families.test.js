// The graphs per method family of the real DeiT-tiny (models/exporter/families.py) through
// openExplainer: each method's maps from the smallest graph that serves it equal the
// explainer graph's, for the predicted class and two others; a request spanning families
// runs the explainer graph.
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-web';
import { openExplainer } from '../../runtime/explainer.js';
import { createPhotoCache } from '../../runtime/photo-cache.js';
import { loadCore } from '../../runtime/core.js';
import { graphMethodIds, tokenLayout } from '../../runtime/metadata.js';
import { graphIoNames } from '../../runtime/onnx-io.js';
import { readNpyFile } from '../../runtime/node/npy-file.js';
import { root } from './maps-support.js';
import { skipDeit, goldenInput, argmax } from './explain-support.js';
import { maxRelativeDiff } from './maps-support.js';

ort.env.wasm.numThreads = 2;
const models = path.join(root, 'build', 'models');
const entry = existsSync(path.join(models, 'index.json'))
  ? JSON.parse(readFileSync(path.join(models, 'index.json'), 'utf8')).models.find((m) => m.split?.families)
  : null;
const skip = skipDeit || (!entry && 'no method family graphs in build/models (npm run build exports them)');
const read = (f) => readFileSync(path.join(models, f));

// Maps of a family graph against the explainer graph's, same weights, same operations: the
// two sessions' kernels may still sum in other orders (onnxruntime fuses each graph on its
// own). Measured on the golden photo, three targets, every method: at most 2.6e-6 of the map's
// largest value; 1e-4 leaves over 30× that for other CPUs' kernels.
const TOLERANCE = 1e-4;

test('maps from the method family graphs equal the explainer graph\'s; spanning requests run the explainer graph', { skip, timeout: 600_000 }, async () => {
  const { split } = entry;
  const metadata = JSON.parse(read(entry.metadata));
  const ex = await openExplainer({
    ort,
    model: read(split.graph),
    split: { photo: read(split.photo), target: read(split.target) },
    families: Object.values(split.families).map((name) => ({ name, bytes: read(name) })),
    metadata,
    sessionOptions: { externalData: [{ path: split.weights, data: read(split.weights) }] },
    modelName: split.graph,
  });
  const core = await loadCore();
  try {
    const pixels = (await readNpyFile(goldenInput)).data;
    const methods = graphMethodIds(core, metadata);
    const options = { methods: 'all', ...tokenLayout(metadata) };
    const targets = [null, 282, 243];
    // Every output at once: the explainer graph, the reference.
    const whole = await ex.explain(pixels, targets, { outputs: core.outputsFor(methods) });
    assert.equal(whole.graph, split.graph);
    assert.equal(ex.explainerOpen, true);
    let worst = 0;
    for (const graph of Object.values(split.families)) {
      // the methods this family's outputs serve (one that another, smaller family's serve too runs there)
      const { outputNames: outputs } = graphIoNames(read(graph));
      const served = methods.filter((m) => core.outputsFor([m]).every((o) => outputs.includes(o)));
      assert.ok(served.length, graph);
      const got = await ex.explain(pixels, targets, { outputs: core.outputsFor(served) });
      assert.ok(Object.values(split.families).includes(got.graph), `${served} ran ${got.graph}`);
      assert.deepEqual(got.classes, whole.classes);
      for (let k = 0; k < targets.length; k++) {
        const a = core.computeMaps(got.tensors[k], { ...options, methods: served });
        const b = core.computeMaps(whole.tensors[k], { ...options, methods: served });
        for (const m of served) {
          const err = maxRelativeDiff(a[m].data, b[m].data);
          worst = Math.max(worst, err);
          assert.ok(err < TOLERANCE, `${m} of target ${targets[k]}: ${err}`);
          assert.equal(argmax(a[m].data), argmax(b[m].data), m);
        }
      }
    }
    console.log(`largest map difference, family graph vs explainer graph: ${worst.toExponential(2)}`);
  } finally {
    await ex.release();
  }
});

// The explainer and family graphs of the built model, without its split graphs.
const openFamilies = (oneSession) => openExplainer({
  ort,
  model: read(entry.split.graph),
  oneSession,
  families: Object.values(entry.split.families).map((name) => ({ name, bytes: read(name) })),
  metadata: JSON.parse(read(entry.metadata)),
  sessionOptions: { externalData: [{ path: entry.split.weights, data: read(entry.split.weights) }] },
  modelName: entry.split.graph,
});

// A large model keeps one session (oneSession): its default family's graph forms the Linear
// denominators on a photo's first run and explain() returns them; given back for another
// class of the same photo, the run forms none and computes what a run forming them computes,
// bit for bit. A model with every session open is returned none.
test('one session: the default family graph returns the photo\'s denominators; given back, the same tensors', { skip, timeout: 600_000 }, async () => {
  const { split } = entry;
  const core = await loadCore();
  const pixels = (await readNpyFile(goldenInput)).data;
  const outputs = core.outputsFor(['transformer_attribution']);
  const ex = await openFamilies(true);
  try {
    const first = await ex.explain(pixels, [null], { outputs });
    assert.equal(first.graph, split.families.transformer_attribution);
    assert.ok(first.denominators, 'the first run returns the denominators it formed');
    const given = await ex.explain(pixels, [282], { outputs, denominators: first.denominators });
    assert.equal(given.denominators, null, 'given them, the run forms none');
    const formed = await ex.explain(pixels, [282], { outputs });
    for (const name of outputs) {
      assert.deepEqual(given.tensors[0][name].data, formed.tensors[0][name].data, name);
    }
  } finally {
    await ex.release();
  }
  const all = await openFamilies(false);
  try {
    await all.prepareExplainer(outputs);
    assert.equal((await all.explain(pixels, [null], { outputs })).denominators, null);
  } finally {
    await all.release();
  }
});

// The photo sessions over one session (runtime/photo-cache.js): a photo's first run
// keeps its denominators and its class switches are given them; one photo holds them at a
// time, so a photo explained again after another forms them again.
test('one session: the last photo keeps its denominators for its class switches', { skip, timeout: 600_000 }, async () => {
  const core = await loadCore();
  const ex = await openFamilies(true);
  const { metadata } = ex;
  const given = [];
  const recorded = { metadata, canCachePhoto: ex.canCachePhoto, explain: (p, rows, o) => { given.push(Boolean(o.denominators)); return ex.explain(p, rows, o); } };
  const sessions = createPhotoCache({ explainer: recorded, core });
  const methods = ['transformer_attribution'];
  try {
    const pixels = (await readNpyFile(goldenInput)).data;
    const a = sessions.pixelsPhoto(pixels);
    const b = sessions.pixelsPhoto(pixels.map((v) => -v));
    await sessions.predict(a, { methods });
    await sessions.explain(a, [{ class: 282 }], { methods });
    await sessions.predict(b, { methods });
    await sessions.explain(a, [{ class: 285 }], { methods });
    await sessions.explain(a, [{ class: 284 }], { methods });
    assert.deepEqual(given, [false, true, false, false, true]);
  } finally {
    await ex.release();
  }
});

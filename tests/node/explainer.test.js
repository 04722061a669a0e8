// openExplainer on a tiny hand-written graph (see explainer-fixture.js): contract checks,
// clear errors for bad files, and that each target row's tensors are the right slices, as views.
import test from 'node:test';
import assert from 'node:assert/strict';
import * as ort from 'onnxruntime-web';
import { openExplainer } from '../../runtime/explainer.js';
import { tinyExplainerOnnx, tinyMetadata, weight, differenceRow, TINY } from './explainer-fixture.js';

ort.env.wasm.numThreads = 1;
const { blocks: B, heads: h, tokens: S, size: [H, W], classes: C } = TINY;
const pixels = Float32Array.from({ length: 3 * H * W }, (_, i) => (i % 7) - 3);

// Row c of a fixture weight matrix, i.e. what a one-hot target of class c produces.
const row = (cols, offset, c) => weight(C, cols, offset).subarray(c * cols, (c + 1) * cols);

test('explain slices every K-leading output per target, as views', async () => {
  const ex = await openExplainer({ ort, model: tinyExplainerOnnx(), metadata: tinyMetadata(), modelName: 'tiny.onnx' });
  const { logits, tensors, timings } = await ex.explain(pixels, [2, 0]);
  assert.equal(logits.length, C);
  assert.equal(tensors.length, 2);
  assert.ok(timings.modelMs >= 0);
  for (const [k, c] of [[0, 2], [1, 0]]) {
    const t = tensors[k];
    assert.deepEqual(t.attn_grad.data, row(B * h * S * S, 0, c));
    assert.deepEqual(t.attn_rel.data, row(B * h * S * S, 100, c));
    assert.deepEqual(t.attn_rel_classic_last.data, row(h * S * S, 200, c));
    assert.deepEqual(t.input_rel_classic.data, row(H * W, 300, c));
    assert.deepEqual(t.attn_grad.shape, [B, h, S, S]);
    assert.deepEqual(t.attn_rel.shape, [B, h, S, S]);
    assert.deepEqual(t.attn_rel_classic_last.shape, [h, S, S]);
    assert.deepEqual(t.input_rel_classic.shape, [H, W]);
    assert.deepEqual(t.attn.shape, [B, h, S, S]);
    assert.equal(t.attn.data.length, B * h * S * S);
  }
  // No copies: both targets' slices share one buffer.
  assert.equal(tensors[0].attn_grad.data.buffer, tensors[1].attn_grad.data.buffer);
  assert.equal(tensors[0].attn, tensors[1].attn);
  await ex.release();
});

test('weight-vector targets (contrastive) and output subsets', async () => {
  const ex = await openExplainer({ ort, model: tinyExplainerOnnx(), metadata: tinyMetadata() });
  const { tensors } = await ex.explain(pixels, [differenceRow(1, 3, C)], { outputs: ['attn_rel'] });
  const expected = row(B * h * S * S, 100, 1).map((v, i) => v - row(B * h * S * S, 100, 3)[i]);
  assert.deepEqual(tensors[0].attn_rel.data, expected);
  assert.equal(tensors[0].attn_grad, undefined);
  await assert.rejects(ex.explain(pixels, [0], { outputs: ['bogus'] }), /unknown explainer outputs: bogus/);
  await ex.release();
});

test('a null target explains the predicted class in the same run', async () => {
  const ex = await openExplainer({ ort, model: tinyExplainerOnnx(), metadata: tinyMetadata() });
  const { logits, classes, tensors } = await ex.explain(pixels, [null, 2]);
  const top1 = logits.indexOf(Math.max(...logits));
  assert.deepEqual(classes, [top1, 2]);
  assert.deepEqual(tensors[0].attn_grad.data, row(B * h * S * S, 0, top1));
  assert.deepEqual(tensors[1].attn_grad.data, row(B * h * S * S, 0, 2));
  const contrast = await ex.explain(pixels, [differenceRow(0, 1, C)]);
  assert.deepEqual(contrast.classes, [null]);
  await assert.rejects(ex.explain(pixels, [new Float32Array(C)]), /target row 0 is all zeros; pass null/);
  await ex.release();
});

test('pixel_relevance is 1 only when input_rel_classic is fetched', async () => {
  const ex = await openExplainer({ ort, model: tinyExplainerOnnx(), metadata: tinyMetadata() });
  const fed = [];
  const run = ex.session.run.bind(ex.session);
  ex.session.run = (feeds, fetches) => { fed.push(feeds.pixel_relevance.data[0]); return run(feeds, fetches); };
  const all = await ex.explain(pixels, [3]);
  assert.deepEqual(all.tensors[0].input_rel_classic.data, row(H * W, 300, 3));
  await ex.explain(pixels, [3], { outputs: ['attn', 'attn_grad', 'attn_rel', 'attn_rel_classic_last'] });
  await ex.predict(pixels);
  assert.deepEqual(fed, [1, 0, 0]);
  await ex.release();
});

test('attnlrp_relevance and cp_lrp_relevance are 1 only when their output is fetched', async () => {
  const ex = await openExplainer({ ort, model: tinyExplainerOnnx({ lrp: true }), metadata: tinyMetadata({ lrp: true }) });
  assert.deepEqual(ex.outputs.slice(-2), ['input_rel_attnlrp', 'input_rel_cp_lrp']);
  const fed = [];
  const run = ex.session.run.bind(ex.session);
  ex.session.run = (feeds, fetches) => {
    fed.push([feeds.pixel_relevance, feeds.attnlrp_relevance, feeds.cp_lrp_relevance].map((t) => t.data[0]));
    return run(feeds, fetches);
  };
  const one = await ex.explain(pixels, [3], { outputs: ['input_rel_attnlrp'] });
  assert.deepEqual(one.tensors[0].input_rel_attnlrp.data, row(H * W, -400, 3));
  assert.deepEqual(one.tensors[0].input_rel_attnlrp.shape, [H, W]);
  const both = await ex.explain(pixels, [null, 2], { outputs: ['input_rel_cp_lrp', 'input_rel_attnlrp'] });
  assert.deepEqual(both.tensors[1].input_rel_cp_lrp.data, row(H * W, 500, 2));
  await ex.explain(pixels, [3], { outputs: ['attn'] });
  assert.deepEqual(fed, [[0, 1, 0], [0, 1, 1], [0, 0, 0]]);
  await ex.release();
});

test('a graph exported before attnlrp lacks it: an error naming the model and the method, before any run', async () => {
  const ex = await openExplainer({ ort, model: tinyExplainerOnnx(), metadata: tinyMetadata(), modelName: 'old.onnx' });
  assert.ok(!ex.outputs.includes('input_rel_attnlrp'));
  let runs = 0;
  const run = ex.session.run.bind(ex.session);
  ex.session.run = (feeds, fetches) => { runs++; assert.ok(!('attnlrp_relevance' in feeds)); return run(feeds, fetches); };
  await assert.rejects(ex.explain(pixels, [1], { outputs: ['attn', 'input_rel_attnlrp'] }),
    /^Error: old\.onnx cannot compute attnlrp: it lacks output input_rel_attnlrp \(an older export; re-export it: npm run build\)$/);
  assert.equal(runs, 0);
  await ex.explain(pixels, [1]); // the others still work, fed no switch it lacks
  assert.equal(runs, 1);
  await ex.release();
  // Metadata that declares them for a graph without them is refused at opening.
  await assert.rejects(openExplainer({ ort, model: tinyExplainerOnnx(), metadata: tinyMetadata({ lrp: true }), modelName: 'old.onnx' }),
    /old\.onnx lacks inputs attnlrp_relevance, cp_lrp_relevance and outputs input_rel_attnlrp, input_rel_cp_lrp/);
});

// Graphs per method family (models/exporter/families.py) in the fixture's form: the
// explainer graph's outputs of one family, same weights.
const FAMILY_OUTPUTS = {
  transformer_attribution: ['logits', 'attn', 'attn_grad', 'attn_rel'],
  lrp: ['logits', 'attn', 'attn_rel_classic_last', 'input_rel_classic'],
  attnlrp: ['logits', 'input_rel_attnlrp', 'input_rel_cp_lrp'],
};
const families = Object.entries(FAMILY_OUTPUTS).map(([family, outputs]) => ({ name: `${family}.onnx`, bytes: tinyExplainerOnnx({ outputs, lrp: true }) }));

test('an explanation runs the smallest graph with every output it fetches, with the explainer graph\'s values', async () => {
  const ex = await openExplainer({ ort, model: tinyExplainerOnnx({ lrp: true }), metadata: tinyMetadata({ lrp: true }), modelName: 'tiny.onnx', families });
  const cases = [
    [['attn_rel', 'attn_grad'], 'transformer_attribution.onnx'],
    [['input_rel_classic'], 'lrp.onnx'],
    [['attn_rel_classic_last', 'attn'], 'lrp.onnx'],
    [['input_rel_attnlrp'], 'attnlrp.onnx'],
    [['input_rel_cp_lrp', 'input_rel_attnlrp'], 'attnlrp.onnx'],
    [['attn_rel', 'input_rel_cp_lrp'], 'tiny.onnx'], // spans both families
  ];
  for (const [outputs, graph] of cases) {
    const got = await ex.explain(pixels, [null, 2], { outputs });
    assert.equal(got.graph, graph, outputs.join());
    assert.ok(ex.isOpenFor(outputs));
    const want = await ex.explain(pixels, [null, 2], { outputs: [...outputs, 'attn_rel', 'input_rel_attnlrp'] });
    assert.equal(want.graph, 'tiny.onnx');
    assert.deepEqual(got.logits, want.logits);
    assert.deepEqual(got.classes, want.classes);
    for (const k of [0, 1]) for (const o of outputs) assert.deepEqual(got.tensors[k][o].data, want.tensors[k][o].data, `${o} of row ${k}`);
  }
  // The switches follow the fetches in a family graph as in the explainer graph.
  const off = await ex.explain(pixels, [3], { outputs: ['attn_rel'] });
  assert.equal(off.graph, 'transformer_attribution.onnx');
  assert.equal(off.tensors[0].input_rel_classic, undefined);
  assert.deepEqual(ex.unopenedExplainers(), []);
  await ex.release();
});

test('family graphs open when first needed or prepared, each once', async () => {
  const ex = await openExplainer({
    ort, model: tinyExplainerOnnx({ lrp: true }), metadata: tinyMetadata({ lrp: true }), modelName: 'tiny.onnx', families,
  });
  assert.equal(ex.isOpenFor(['attn_grad']), false);
  await ex.prepareExplainer(['attn_grad', 'attn_rel']);
  assert.equal(ex.isOpenFor(['attn_grad']), true);
  assert.equal(ex.isOpenFor(['input_rel_attnlrp']), false);
  const rest = ex.unopenedExplainers();
  assert.equal(rest.length, 2); // the explainer graph opened at once (no split graphs)
  for (const open of rest) await open();
  assert.equal(ex.isOpenFor(['input_rel_attnlrp']), true);
  await ex.release();
});

// Every ONNX session onnxruntime creates while fn runs, and whether each is released.
async function countSessions(fn) {
  const create = ort.InferenceSession.create;
  const sessions = [];
  ort.InferenceSession.create = async (...args) => {
    const s = await create.apply(ort.InferenceSession, args);
    const entry = { open: true };
    sessions.push(entry);
    const release = s.release.bind(s);
    s.release = () => { entry.open = false; return release(); };
    return s;
  };
  try {
    await fn(() => sessions.filter((e) => e.open).length);
  } finally {
    ort.InferenceSession.create = create;
  }
  return sessions.length;
}

test('oneSession (a large model) keeps one ONNX session open: each graph opens when needed, the one open released first', async () => {
  const model = tinyExplainerOnnx({ lrp: true });
  const forwardModel = tinyExplainerOnnx({ plain: true });
  const cases = [[['attn_rel'], 'transformer_attribution.onnx'], [['input_rel_attnlrp'], 'attnlrp.onnx'],
    [['attn_rel', 'input_rel_cp_lrp'], 'tiny.onnx'], [['attn_rel'], 'transformer_attribution.onnx']];
  const reference = await openExplainer({ ort, model, metadata: tinyMetadata({ lrp: true }), families, forwardModel });
  const want = [];
  for (const [outputs] of cases) want.push(await reference.explain(pixels, [null, 2], { outputs }));
  const logits = (await reference.predict(pixels)).logits;
  await reference.release();
  const created = await countSessions(async (open) => {
    const ex = await openExplainer({ ort, model, metadata: tinyMetadata({ lrp: true }), modelName: 'tiny.onnx', families, forwardModel, oneSession: true });
    assert.equal(open(), 0, 'none opens with the explainer');
    assert.equal(ex.oneSession, true);
    assert.equal(ex.canCachePhoto, false);
    await ex.prepareExplainer(['attn_grad', 'attn_rel']);
    assert.equal(open(), 1);
    for (const [i, [outputs, graph]] of cases.entries()) {
      const got = await ex.explain(pixels, [null, 2], { outputs });
      assert.equal(got.graph, graph);
      assert.equal(open(), 1, `after ${graph}`);
      for (const k of [0, 1]) for (const o of outputs) assert.deepEqual(got.tensors[k][o].data, want[i].tensors[k][o].data, `${o} of row ${k}`);
    }
    assert.deepEqual((await ex.predict(pixels)).logits, logits);
    assert.equal(open(), 1, 'the forward graph in place of the family graph');
    await ex.release();
    assert.equal(open(), 0);
  });
  assert.equal(created, 5); // the default family twice, attnlrp, the explainer graph, the forward
});

test('oneSession refuses split graphs (they exist to stay open beside the others)', async () => {
  const split = { photo: tinyExplainerOnnx(), target: tinyExplainerOnnx() };
  await assert.rejects(openExplainer({ ort, model: tinyExplainerOnnx(), metadata: tinyMetadata(), modelName: 'big.onnx', split, oneSession: true }),
    /^Error: openExplainer: big\.onnx opened with oneSession takes no split graphs$/);
});

test('a family graph that breaks the contract is refused at opening, naming it', async () => {
  const open = (family) => openExplainer({ ort, model: tinyExplainerOnnx({ lrp: true }), metadata: tinyMetadata({ lrp: true }), families: [family] });
  await assert.rejects(open({ name: 'a.onnx', bytes: tinyExplainerOnnx({ outputs: ['attn', 'attn_grad'] }) }),
    /^Error: a\.onnx is not a method family's graph: it lacks output logits$/);
  await assert.rejects(open({ name: 'c.onnx', bytes: tinyExplainerOnnx({ plain: true }) }),
    /^Error: c\.onnx is not a method family's graph: it lacks inputs target$/);
});

test('predict returns the logits alone', async () => {
  const ex = await openExplainer({ ort, model: tinyExplainerOnnx(), metadata: tinyMetadata() });
  const full = await ex.explain(pixels, [1]);
  const { logits } = await ex.predict(pixels);
  assert.deepEqual(logits, full.logits);
  await assert.rejects(ex.predict(new Float32Array(5)), /pixels must be a Float32Array of 3×4×4 = 48/);
  await ex.release();
});

test('predict runs the plain forward graph when one is given', async () => {
  const ex = await openExplainer({ ort, model: tinyExplainerOnnx(), metadata: tinyMetadata(), forwardModel: tinyExplainerOnnx({ plain: true }) });
  assert.equal(ex.hasForward, true);
  const full = await ex.explain(pixels, [1]);
  assert.deepEqual((await ex.predict(pixels)).logits, full.logits);
  await ex.release();
  await assert.rejects(openExplainer({ ort, model: tinyExplainerOnnx(), metadata: tinyMetadata(), forwardModel: tinyExplainerOnnx(), forwardName: 'f.onnx' }),
    /f\.onnx is not a plain forward graph/);
});

test('a file that is not ONNX gives a clear error', async () => {
  await assert.rejects(
    openExplainer({ ort, model: new TextEncoder().encode('<html>not a model</html>'), metadata: tinyMetadata(), modelName: 'model.onnx' }),
    /^Error: model\.onnx is not an ONNX model: /);
});

test('an ONNX graph without the explainer outputs is refused', async () => {
  const plain = tinyExplainerOnnx({ outputs: ['logits', 'attn', 'attn_rel_classic_last', 'input_rel_classic'] });
  await assert.rejects(openExplainer({ ort, model: plain, metadata: tinyMetadata(), modelName: 'model.onnx' }),
    /model\.onnx lacks outputs attn_grad, attn_rel expected by the explainer contract/);
});

test('metadata that disagrees with the graph is caught', async () => {
  const m = tinyMetadata();
  m.format_version = 99;
  await assert.rejects(openExplainer({ ort, model: tinyExplainerOnnx(), metadata: m }), /format_version" 99 is not supported/);
  const wrongShape = tinyMetadata();
  wrongShape.architecture.blocks = 3;
  // Caught when the session opens, from the shapes the graph declares, not after a run.
  await assert.rejects(openExplainer({ ort, model: tinyExplainerOnnx(), metadata: wrongShape, modelName: 'tiny.onnx' }),
    { message: 'the metadata does not match tiny.onnx: architecture.blocks is 3 in the metadata, 2 in the graph (attn [2,1,5,5])' });
});

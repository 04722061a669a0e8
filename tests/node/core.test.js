// runtime/core.js over the WebAssembly build: the API shape, option handling, and errors
// (a C++ InputError arrives as a JS Error with the core's message intact).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCore } from '../../runtime/core.js';

const core = await loadCore();

// B=2 blocks, h=2 heads, S = 1 CLS + 2x2 grid. Deterministic, not symmetric.
const [B, H, S] = [2, 2, 5];
function tensor(shape, f) {
  const n = shape.reduce((a, b) => a * b, 1);
  return { data: Float32Array.from({ length: n }, (_, i) => f(i)), shape };
}
function attention() {
  const t = tensor([B, H, S, S], (i) => 1 + ((i * 7) % 5));
  for (let r = 0; r < t.data.length; r += S) {
    let sum = 0;
    for (let j = 0; j < S; j++) sum += t.data[r + j];
    for (let j = 0; j < S; j++) t.data[r + j] /= sum;
  }
  return t;
}
const tensors = {
  attn: attention(),
  attn_grad: tensor([B, H, S, S], (i) => Math.sin(i)),
  attn_rel: tensor([B, H, S, S], (i) => Math.cos(i * 0.7)),
  attn_rel_classic_last: tensor([H, S, S], (i) => Math.sin(i * 1.3)),
  input_rel_classic: tensor([8, 8], (i) => i - 20),
  attr: tensor([B, H, S, S], (i) => Math.sin(i * 0.3)),
  input_rel_attnlrp: tensor([8, 8], (i) => Math.sin(i) * 3),
  input_rel_cp_lrp: tensor([8, 8], (i) => Math.cos(i) - 0.2),
};

// The published ids (files and URLs name them): a new method is appended after them.
const PUBLISHED = ['transformer_attribution', 'attention_rollout', 'raw_attention', 'gradcam', 'partial_lrp',
  'lrp_full', 'generic_attention', 'ablation_no_grad', 'ablation_last_block', 'ablation_second_block'];

test('the registry: the published ids in order, each entry complete', () => {
  assert.deepEqual(core.methodIds.slice(0, PUBLISHED.length), PUBLISHED);
  assert.deepEqual([...core.tensorIds], ['attn', 'attn_grad', 'attn_rel', 'attn_rel_classic_last', 'input_rel_classic', 'attr',
    'input_rel_attnlrp', 'input_rel_cp_lrp']);
  assert.deepEqual(core.methodIds.slice(PUBLISHED.length), ['attattr', 'attnlrp', 'cp_lrp']);
  assert.deepEqual([...core.explainerMethodIds], [...PUBLISHED, 'attnlrp', 'cp_lrp'], 'attattr reads attr, no explainer output');
  assert.deepEqual(core.outputsFor(['attattr', 'raw_attention']), ['attn']);
  for (const m of core.methods) {
    for (const key of ['name', 'shortName', 'description']) assert.ok(m[key].length > 0, `${m.id}.${key}`);
    assert.ok(m.tensors.length && m.tensors.every((t) => core.tensorIds.includes(t)), m.id);
    assert.equal(core.method(m.id), m);
  }
  assert.deepEqual(core.methods.filter((m) => m.startLayer).map((m) => m.id),
    ['transformer_attribution', 'attention_rollout', 'ablation_no_grad', 'attattr']);
  assert.deepEqual(core.methods.filter((m) => !m.tokenRow).map((m) => m.id), ['gradcam', 'lrp_full', 'attnlrp', 'cp_lrp']);
  assert.deepEqual(core.methods.filter((m) => m.contrast && !m.tokenRow).map((m) => m.id), ['gradcam', 'lrp_full', 'attnlrp', 'cp_lrp']);
  assert.ok(Object.isFrozen(core.methods[0]) && Object.isFrozen(core.methods[0].tensors));
});

test('outputsFor lists only the tensors the methods read, in registry (= contract) order', () => {
  assert.deepEqual(core.outputsFor(['attention_rollout']), ['attn']);
  assert.deepEqual(core.outputsFor(['transformer_attribution', 'raw_attention']), ['attn', 'attn_grad', 'attn_rel']);
  assert.equal(core.outputsFor(core.methodIds).length, 7);
  assert.deepEqual(core.outputsFor(['cp_lrp', 'attnlrp', 'lrp_full']), ['input_rel_classic', 'input_rel_attnlrp', 'input_rel_cp_lrp']);
  assert.throws(() => core.outputsFor(['nope']), /unknown method "nope"/);
});

test('computeMaps with all inputs gives every method, shaped [rows, cols]', () => {
  const maps = core.computeMaps(tensors);
  assert.deepEqual(Object.keys(maps), core.methodIds);
  for (const [id, m] of Object.entries(maps)) {
    assert.ok(m.data instanceof Float32Array, id);
    const expected = ['lrp_full', 'attnlrp', 'cp_lrp'].includes(id) ? [8, 8] : [2, 2];
    assert.deepEqual(m.shape, expected, id);
    assert.equal(m.data.length, expected[0] * expected[1]);
    assert.ok(m.data.every(Number.isFinite), id);
  }
});

test('raw_attention is row 0 of the last block, heads averaged, patches only', () => {
  const { raw_attention: m } = core.computeMaps({ attn: tensors.attn }, { methods: ['raw_attention'] });
  const A = tensors.attn.data;
  const at = (b, h, i, j) => A[((b * H + h) * S + i) * S + j];
  for (let j = 1; j < S; j++) {
    const expected = (at(B - 1, 0, 0, j) + at(B - 1, 1, 0, j)) / 2;
    assert.ok(Math.abs(m.data[j - 1] - expected) < 1e-6);
  }
});

test("'all' leaves out methods whose inputs are missing", () => {
  assert.deepEqual(Object.keys(core.computeMaps({ attn: tensors.attn })), ['attention_rollout', 'raw_attention']);
  assert.deepEqual(Object.keys(core.computeMaps({ input_rel_classic: tensors.input_rel_classic })), ['lrp_full']);
  assert.deepEqual(core.availableMethods({ attn_rel: tensors.attn_rel }), ['ablation_no_grad']);
});

test('an explicitly requested method with missing inputs throws a clear error', () => {
  assert.throws(() => core.computeMaps({ attn: tensors.attn }, { methods: ['gradcam'] }),
    (err) => err instanceof Error && err.name === 'InputError' &&
      err.message === 'gradcam: needs attn_grad, which is missing');
});

test('no usable tensor at all throws', () => {
  assert.throws(() => core.computeMaps({}), /no method can be computed/);
});

test('a C++ InputError message arrives intact as a JS Error', () => {
  const bad = { attn: tensors.attn, attn_grad: tensor([B, H, S, S - 1], () => 0) };
  assert.throws(() => core.computeMaps(bad, { methods: ['gradcam'] }), (err) => {
    assert.ok(err instanceof Error);
    assert.equal(err.name, 'InputError');
    assert.equal(err.message, 'attn_grad: expected shape [2,2,5,5] like attn, got [2,2,5,4]');
    return true;
  });
  const withNaN = attention();
  withNaN.data[9] = NaN;
  assert.throws(() => core.computeMaps({ attn: withNaN }), (err) =>
    err.name === 'InputError' && /^attn: non-finite value NaN at flat index 9\b/.test(err.message));
  assert.throws(() => core.computeMaps(tensors, { methods: ['nope'] }), (err) =>
    err.name === 'InputError' && /nope/.test(err.message) && /transformer_attribution/.test(err.message));
  assert.throws(() => core.computeMaps(tensors, { startLayer: 7 }), (err) =>
    err.name === 'InputError' && /start_layer 7/.test(err.message));
  // The module keeps working after an error.
  assert.equal(Object.keys(core.computeMaps(tensors)).length, core.methodIds.length);
});

test('JS-side argument checks: data length, shape, grid, option types', () => {
  assert.throws(() => core.computeMaps({ attn: { data: new Float32Array(3), shape: [B, H, S, S] } }),
    /attn: data has 3 values but shape \[2,2,5,5\] needs 100/);
  assert.throws(() => core.computeMaps({ attn: { data: new Float32Array(3), shape: [3, -1] } }), /attn: shape must be/);
  assert.throws(() => core.computeMaps({ attn: tensors.attn }, { specialTokens: 2 }), /cannot infer the patch grid/);
  assert.throws(() => core.computeMaps({ attn: tensors.attn }, { grid: [2, 3] }), /attn: expected shape/);
  assert.throws(() => core.computeMaps({ attn: tensors.attn }, { startLayer: 0.5 }), /startLayer must be an integer/);
});

test('an explicit grid and special tokens are honoured', () => {
  // S = 5 = 1 special + 1x4 grid
  const maps = core.computeMaps({ attn: tensors.attn }, { grid: [1, 4], specialTokens: 1, methods: ['raw_attention'] });
  assert.deepEqual(maps.raw_attention.shape, [1, 4]);
  const two = core.computeMaps({ attn: tensors.attn }, { grid: [1, 3], specialTokens: 2, methods: ['raw_attention'] });
  assert.deepEqual(two.raw_attention.shape, [1, 3]);
});

test('relevanceRow gives S values and matches the map for the rollouts', () => {
  const maps = core.computeMaps(tensors);
  for (const id of ['transformer_attribution', 'attention_rollout', 'generic_attention', 'ablation_no_grad']) {
    const row = core.relevanceRow(id, tensors);
    assert.ok(row instanceof Float32Array);
    assert.equal(row.length, S);
    for (let j = 1; j < S; j++) assert.ok(Math.abs(row[j] - maps[id].data[j - 1]) < 1e-6, id);
  }
  assert.equal(core.relevanceRow('transformer_attribution', tensors, { queryToken: 3 }).length, S);
  assert.throws(() => core.relevanceRow('gradcam', tensors), (err) => err.name === 'InputError');
  assert.throws(() => core.relevanceRow('raw_attention', tensors, { queryToken: S }), /query_token/);
});

test('uploadTensors: reusable across calls, freed explicitly', () => {
  const up = core.uploadTensors(tensors);
  const a = core.computeMaps(up, { methods: ['transformer_attribution'] });
  const b = core.computeMaps(up, { methods: ['transformer_attribution'] });
  assert.deepEqual(a, b);
  assert.deepEqual(a.transformer_attribution, core.computeMaps(tensors).transformer_attribution);
  up.free();
  assert.throws(() => core.computeMaps(up), /already freed/);
});

test('results are copies: later calls do not change earlier results', () => {
  const first = core.computeMaps(tensors).transformer_attribution.data;
  const saved = first.slice();
  core.computeMaps({ ...tensors, attn_rel: tensor([B, H, S, S], () => 1) });
  assert.deepEqual(first, saved);
  assert.ok(!(first.buffer instanceof WebAssembly.Memory));
});

test('loadCore reports a missing build clearly', async () => {
  await assert.rejects(loadCore({ moduleUrl: new URL('file:///nonexistent/vit_relevance_core.mjs') }),
    /WebAssembly core is not built/);
});

test('pool: the map of a pool is its readout\'s weighted sum of token rows; cls is the default', () => {
  assert.deepEqual(core.poolIds, ['cls', 'cls+dist', 'avg', 'avg+prefix', 'cls+avg']);
  const ids = ['transformer_attribution', 'raw_attention', 'partial_lrp', 'ablation_last_block'];
  const byDefault = core.computeMaps(tensors, { methods: ids });
  const cls = core.computeMaps(tensors, { methods: ids, pool: 'cls' });
  // avg over the 4 patch tokens (1..4) of S = 5.
  const avg = core.computeMaps(tensors, { methods: ids, pool: 'avg' });
  for (const id of ids) {
    assert.deepEqual(cls[id].data, byDefault[id].data, id);
    const rows = [1, 2, 3, 4].map((q) => core.relevanceRow(id, tensors, { queryToken: q }));
    const mean = [1, 2, 3, 4].map((j) => rows.reduce((s, row) => s + row[j], 0) / 4);
    mean.forEach((v, k) => assert.ok(Math.abs(avg[id].data[k] - v) <= 1e-6 * Math.max(1, Math.abs(v)), `${id}[${k}]`));
    assert.notDeepEqual(avg[id].data, cls[id].data, id);
  }
  assert.throws(() => core.computeMaps(tensors, { pool: 'gap' }), { message: 'pool: unknown id "gap" (valid: cls, cls+dist, avg, avg+prefix, cls+avg)' });
  assert.throws(() => core.computeMaps(tensors, { pool: 'cls+dist' }),
    { message: 'options: pool cls+dist reads tokens 0 and 1 (cls and dist), but the layout has 1 special token' });
  assert.throws(() => core.computeMaps({ attn: tensors.attn }, { grid: [1, 5], specialTokens: 0, methods: ['raw_attention'] }),
    { message: 'options: pool cls reads token 0 (cls), but the layout has 0 special tokens' });
});

test('attnlrp and cp_lrp give their pixel maps signed and unchanged; patchSum their patch maps', () => {
  const maps = core.computeMaps(tensors, { methods: ['attnlrp', 'cp_lrp'] });
  assert.deepEqual(maps.attnlrp.data, tensors.input_rel_attnlrp.data);
  assert.deepEqual(maps.cp_lrp.data, tensors.input_rel_cp_lrp.data);
  assert.ok(maps.attnlrp.data.some((v) => v < 0) && maps.attnlrp.data.some((v) => v > 0), 'signed');
  // 2x2 patches of 4x4 pixels: each the sum of its block, in double then rounded.
  const patches = core.patchSum(maps.attnlrp, [2, 2]);
  assert.deepEqual(patches.shape, [2, 2]);
  const x = tensors.input_rel_attnlrp.data;
  for (let r = 0; r < 2; r++) {
    for (let q = 0; q < 2; q++) {
      let sum = 0;
      for (let y = 4 * r; y < 4 * r + 4; y++) for (let c = 4 * q; c < 4 * q + 4; c++) sum += x[y * 8 + c];
      assert.equal(patches.data[r * 2 + q], Math.fround(sum));
    }
  }
  assert.throws(() => core.patchSum(maps.attnlrp, [3, 3]), /patch_sum: the grid 3x3 does not divide the pixel map 8x8/);
  assert.throws(() => core.patchSum({ shape: [8], data: x }, [2, 2]), /patchSum: the map must be/);
  assert.throws(() => core.computeMaps({ attn: tensors.attn }, { methods: ['attnlrp'] }), /attnlrp: needs input_rel_attnlrp, which is missing/);
});

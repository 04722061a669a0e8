// The explain bench's count of matrix-product work: MACs per product node from profiled
// shapes, and the counts of real onnxruntime-web runs of DeiT-tiny (the plain forward must
// come out at the architecture's textbook count; pixel_relevance 0 must really skip the
// classic pass's products).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { matmulWorkFromProfile, modifiedBackwardMacs, productMacs, profiledMatmulWork } from '../../bench/matmul-work.js';
import { deitForward, deitModel, skipDeit } from './explain-support.js';

test('productMacs reads the inner dimension whether or not A is transposed', () => {
  assert.equal(productMacs('MatMul', [[1, 197, 192]], [1, 197, 768]), 197 * 768 * 192);
  assert.equal(productMacs('FusedMatMul', [[3, 197, 64], [3, 64, 197]], [3, 197, 197]), 3 * 197 * 197 * 64);
  // transA: A is [K, M] = [64, 197], the output [M, N] = [197, 5]
  assert.equal(productMacs('FusedMatMul', [[64, 197], [64, 5]], [197, 5]), 197 * 5 * 64);
  assert.equal(productMacs('Gemm', [[197, 192], [768, 192]], [197, 768]), 197 * 768 * 192);
  assert.equal(productMacs('Conv', [[1, 3, 224, 224], [192, 3, 16, 16], [192]], [1, 192, 14, 14]),
    192 * 14 * 14 * 3 * 16 * 16);
  assert.equal(productMacs('MatMul', [[192]], [768]), 192 * 768);
});

test('matmulWorkFromProfile counts only the products of the last model run', () => {
  const node = (ts, op, a, out) => ({
    cat: 'Node', name: `${op}_kernel_time`, ts, dur: 1000,
    args: { op_name: op, input_type_shape: [{ float: a }], output_type_shape: [{ float: out }] },
  });
  const events = [
    { name: 'model_run', ts: 0, dur: 50 }, node(10, 'MatMul', [2, 3], [2, 4]),
    { name: 'model_run', ts: 100, dur: 50 }, node(110, 'MatMul', [2, 3], [2, 5]), node(120, 'Add', [2, 5], [2, 5]),
  ];
  const text = `profile follows\n${JSON.stringify(events)}\n`;
  assert.deepEqual(matmulWorkFromProfile(text), { macs: 2 * 5 * 3, kernelMs: 1, nodes: 1 });
  assert.throws(() => matmulWorkFromProfile('no profile here'), /no onnxruntime profile/);
  assert.throws(() => matmulWorkFromProfile('[]'), /no model_run/);
});

test('DeiT-tiny: the forward counts its textbook MACs, and lrp_full adds the classic pass', { skip: skipDeit }, () => {
  const arch = JSON.parse(readFileSync(deitModel.replace(/\.onnx$/, '.json'), 'utf8')).architecture;
  const { embed_dim: D, tokens: S, heads: h, patch_size: p, blocks: B, num_classes: C, mlp_ratio } = arch;
  const N = S - arch.special_tokens;
  const d = D / h;
  const perBlock = S * D * 3 * D + 2 * h * S * S * d + S * D * D + 2 * S * D * mlp_ratio * D;
  const textbook = N * 3 * p * p * D + B * perBlock + D * C;
  const shape = { imageSize: arch.image_size, classes: C, threads: 1 };

  assert.equal(profiledMatmulWork(deitForward, shape).macs, textbook);
  const full = profiledMatmulWork(deitModel, { ...shape, pixelRelevance: 1 }).macs;
  const partial = profiledMatmulWork(deitModel, { ...shape, pixelRelevance: 0 }).macs;
  // without the classic pass below the last block: 3 fewer products per Linear layer of 8
  assert.ok(partial < 0.7 * full, `pixel_relevance 0 should skip the classic products: ${partial} vs ${full}`);
  assert.ok(partial > 4 * textbook, `the explanation does at least 4 forwards' products: ${partial} vs ${textbook}`);
});

// issue 28: each switch off adds no product at all; on, its pass stays within 1.1× the
// fewest products its modified backward needs (METHODS.md, "AttnLRP and CP-LRP").
test('DeiT-tiny: AttnLRP and CP-LRP cost nothing when off and near their minimum when on', { skip: skipDeit }, () => {
  const arch = JSON.parse(readFileSync(deitModel.replace(/\.onnx$/, '.json'), 'utf8')).architecture;
  const shape = { imageSize: arch.image_size, classes: arch.num_classes, threads: 1, pixelRelevance: 0 };
  const off = profiledMatmulWork(deitModel, shape).macs;
  for (const [method, on] of [['attnlrp', { switches: ['attnlrp_relevance'] }], ['cp_lrp', { switches: ['cp_lrp_relevance'] }]]) {
    const added = profiledMatmulWork(deitModel, { ...shape, ...on }).macs - off;
    const minimum = modifiedBackwardMacs(arch, method);
    assert.ok(added >= minimum && added <= 1.1 * minimum, `${method}: ${added} MACs added, minimum ${minimum}`);
  }
});

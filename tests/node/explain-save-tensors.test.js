// `vit-relevance explain --save-tensors`: the model's logits and every block's attention as
// .npy beside maps.json (issue 27), equal to the golden PyTorch tensors for DeiT-tiny, the
// shapes of any model's layout, and a folder in the way reported before any run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { formatNpy, parseNpy } from '../../runtime/npy.js';
import { runCli, tempDir } from './maps-support.js';
import { deitModel, goldenInput, goldenJson, skipDeit } from './explain-support.js';
import { tinyExplainerOnnx, tinyMetadata } from './explainer-fixture.js';

const dir = tempDir('vitrel-save-tensors-');
const npy = (file) => parseNpy(readFileSync(file), file);

function tinyModel() {
  const model = path.join(dir, 'tiny.onnx');
  writeFileSync(model, tinyExplainerOnnx());
  writeFileSync(path.join(dir, 'tiny.json'), JSON.stringify(tinyMetadata()));
  return model;
}

function maxAbsDiff(a, b) {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

test('--save-tensors writes logits [1,C] and attn-block<b> [h,S,S] of the model\'s layout', () => {
  const model = tinyModel();
  const { blocks, heads, tokens: S, num_classes: C, image_size: [H, W] } = tinyMetadata().architecture;
  const input = path.join(dir, 'tiny-input.npy');
  const pixels = Float32Array.from({ length: 3 * H * W }, (_, i) => Math.sin(i));
  writeFileSync(input, formatNpy({ data: pixels, shape: [1, 3, H, W] }));
  const out = path.join(dir, 'tiny-out');
  const r = runCli(['explain', input, '--model', model, '--method', 'raw_attention', '--save-tensors', '--out', out]);
  assert.equal(r.status, 0, r.stderr);
  const tensorsDir = path.join(out, 'tensors');
  assert.deepEqual(readdirSync(tensorsDir).sort(),
    ['logits.npy', ...Array.from({ length: blocks }, (_, b) => `attn-block${b}.npy`)].sort());
  assert.deepEqual(npy(path.join(tensorsDir, 'logits.npy')).shape, [1, C]);
  for (let b = 0; b < blocks; b++) {
    const attn = npy(path.join(tensorsDir, `attn-block${b}.npy`));
    assert.deepEqual(attn.shape, [heads, S, S]);
  }
});

test('--save-tensors with a file where tensors/ goes fails in one line before any run', () => {
  const model = tinyModel();
  const out = path.join(dir, 'blocked');
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'tensors'), 'not a folder');
  const r = runCli(['explain', path.join(dir, 'missing-input.npy'), '--model', model, '--save-tensors', '--out', out]);
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /tensors is a file, not a folder/);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
});

test('DeiT-tiny: the saved logits and attention are the golden PyTorch ones', { skip: skipDeit, timeout: 600_000 }, () => {
  const out = path.join(dir, 'deit');
  const r = runCli(['explain', goldenInput, '--model', deitModel, '--method', 'raw_attention', '--threads', '2', '--save-tensors', '--out', out]);
  assert.equal(r.status, 0, r.stderr);
  const tensorsDir = path.join(out, 'tensors');
  const golden = JSON.parse(readFileSync(goldenJson, 'utf8'));
  const logits = npy(path.join(tensorsDir, 'logits.npy'));
  assert.deepEqual(logits.shape, [1, 1000]);
  // onnxruntime-web (2 threads) against PyTorch: measured 1.6e-5 of the largest logit (8.3)
  // and 1.2e-5 absolute on the attention; bounds 1e-4 of the largest logit and golden.attn_abs
  // (1e-4, docs/tolerances.md).
  const largest = Math.max(...golden.logits.map(Math.abs));
  assert.ok(maxAbsDiff(logits.data, golden.logits) < 1e-4 * largest, `logits: ${maxAbsDiff(logits.data, golden.logits)}`);
  const attn = npy(path.join(path.dirname(goldenInput), 'catdog-attn.npy'));
  const [B, h, S] = attn.shape;
  for (let b = 0; b < B; b++) {
    const saved = npy(path.join(tensorsDir, `attn-block${b}.npy`));
    assert.deepEqual(saved.shape, [h, S, S]);
    assert.ok(maxAbsDiff(saved.data, attn.data.subarray(b * h * S * S, (b + 1) * h * S * S)) < 1e-4, `block ${b}`);
  }
});

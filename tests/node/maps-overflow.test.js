// `vit-relevance maps` on finite tensors too large for a method's float32 arithmetic
// (issue 11: attention values of 3e38 gave an all-zero rollout without a word): a
// one-line error naming the method and the magnitudes, never a silent zero or null map.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { formatNpy } from '../../runtime/npy.js';
import { readMaps, runCli, tempDir } from './maps-support.js';

const shape = [2, 2, 5, 5]; // B=2 blocks, h=2 heads, S = 1 + 2x2 tokens
const dir = tempDir('vitrel-maps-overflow-');
function npy(name, value) {
  const file = path.join(dir, name);
  writeFileSync(file, formatNpy({ data: new Float32Array(shape.reduce((a, b) => a * b)).fill(value), shape }));
  return file;
}
const hugeAttn = npy('attn-3e38.npy', 3e38);
const hugeGrad = npy('grad-1e30.npy', 1e30);

function expectOverflow(args, pattern) {
  const out = path.join(dir, `out-${args.join('-').replace(/[^a-z0-9]+/gi, '_').slice(-40)}`);
  const r = runCli(['maps', ...args, '--grid', '2x2', '--out', out]);
  assert.notEqual(r.status, 0, `should fail: ${args.join(' ')}`);
  assert.notEqual(r.status, 70, `an input error, not an internal one: ${r.stderr}`);
  assert.match(r.stderr, pattern);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
  assert.ok(!existsSync(path.join(out, 'maps.json')), 'no maps.json written');
}

test('a rollout of attention values of 3e38 is an overflow error, not an all-zero map', () => {
  expectOverflow(['--attn', hugeAttn, '--method', 'attention_rollout'],
    /attention_rollout: the sum of row 0 of block 1's head-mean attention overflows float32: .*\|attn\| up to 3e\+38/);
  expectOverflow(['--attn', hugeAttn], /attention_rollout: .*overflows float32/);
});

test('gradcam and generic_attention products past float range are errors, not zero or null maps', () => {
  expectOverflow(['--attn', hugeAttn, '--grad', hugeGrad, '--method', 'gradcam'],
    /gradcam: the weighted head mean \(\+inf at index 0\) overflows float32: .*\|attn_grad\| up to 1e\+30/);
  expectOverflow(['--attn', hugeAttn, '--grad', hugeGrad, '--method', 'generic_attention'],
    /generic_attention: the rollout's row after block 1 .* overflows float32/);
});

test('a method whose result fits float32 still returns it exactly', async () => {
  const out = path.join(dir, 'raw');
  const r = runCli(['maps', '--attn', hugeAttn, '--method', 'raw_attention', '--grid', '2x2', '--out', out]);
  assert.equal(r.status, 0, r.stderr);
  const maps = await readMaps(out);
  assert.deepEqual(maps.targets[0].maps.raw_attention.data.map(Math.fround), Array(4).fill(Math.fround(3e38)));
});

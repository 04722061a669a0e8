// The explain command's own argument handling and input helpers (no model needed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitArgv } from '../../cli/commands/explain.js';
import { checkInputTensor, tensorToRgba, isNpyPath } from '../../runtime/node/photo-input.js';

test('splitArgv collects the input and every --class, passes the rest on', () => {
  const r = splitArgv(['photo.jpg', '--model', 'm.onnx', '--class', '243', '--class=tiger cat', '--out', 'o', '--threads', '2']);
  assert.deepEqual(r.positionals, ['photo.jpg']);
  assert.deepEqual(r.classes, ['243', 'tiger cat']);
  assert.deepEqual(r.rest, ['--model', 'm.onnx', '--out', 'o', '--threads', '2']);
  assert.deepEqual(splitArgv(['--out', 'o', '--', '-weird.png']).positionals, ['-weird.png']);
  assert.throws(() => splitArgv(['x.png', '--class']), /^UsageError: --class needs a class id or name$/);
});

test('--target, the old name of --class, still works and mixes with it', () => {
  const r = splitArgv(['photo.jpg', '--target', '243', '--class', '282', '--target=tiger cat']);
  assert.deepEqual(r.classes, ['243', '282', 'tiger cat']);
  assert.deepEqual(r.rest, []);
  assert.throws(() => splitArgv(['x.png', '--target']), /^UsageError: --class needs a class id or name$/);
});

test('checkInputTensor accepts [3,H,W] and [1,3,H,W] only', () => {
  const data = new Float32Array(3 * 4 * 4);
  assert.equal(checkInputTensor({ data, shape: [1, 3, 4, 4] }, [4, 4], 'a.npy'), data);
  assert.equal(checkInputTensor({ data, shape: [3, 4, 4] }, [4, 4], 'a.npy'), data);
  assert.throws(() => checkInputTensor({ data, shape: [4, 4, 3] }, [4, 4], 'a.npy'), /a\.npy: input tensor has shape \[4,4,3\]/);
  const bad = new Float32Array(48);
  bad[5] = NaN;
  assert.throws(() => checkInputTensor({ data: bad, shape: [3, 4, 4] }, [4, 4], 'b.npy'), /non-finite value at index 5/);
});

test('tensorToRgba undoes the normalisation', () => {
  const mean = [0.5, 0.25, 0];
  const std = [0.5, 0.25, 1];
  const chw = Float32Array.from([1, -1, 0, 3, 0.5, -2]); // 1×2 image: R plane, G plane, B plane
  assert.deepEqual([...tensorToRgba(chw, 2, 1, mean, std)], [255, 64, 128, 255, 0, 255, 0, 255]);
  assert.ok(isNpyPath('X.NPY') && !isNpyPath('x.png'));
});

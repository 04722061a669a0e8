// runtime/core.js evaluation wrappers over src/eval, through the WebAssembly build: the
// hand-computed cases of tests/cpp/eval_*_test.cpp give the same answers here, bad inputs
// throw Errors with clear messages, and perturbedInputs at 224x224 matches a plain JS
// reference of the official pixel removal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadEvalCore } from '../../runtime/core-eval.js';

const core = await loadEvalCore();
const f32 = (a) => Float32Array.from(a);
const u8 = (a) => Uint8Array.from(a);
const STEPS = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];

test('removal order ids', () => {
  assert.deepEqual([...core.removalOrderIds], ['most_relevant_first', 'least_relevant_first']);
});

test('removalRanking: descending / ascending, ties lower index first', () => {
  const map = f32([1, 3, 3, 0, 3, 1]);
  const most = core.removalRanking(map, 'most_relevant_first');
  assert.ok(most instanceof Uint32Array);
  assert.deepEqual([...most], [1, 2, 4, 0, 5, 3]);
  assert.deepEqual([...core.removalRanking(map, 'least_relevant_first')], [3, 0, 5, 1, 2, 4]);
  assert.throws(() => core.removalRanking(map, 'positive'), /order must be one of most_relevant_first, least_relevant_first/);
  assert.throws(() => core.removalRanking(f32([1, NaN]), 'most_relevant_first'),
    (e) => e.name === 'InputError' && /non-finite value .* at index 1/.test(e.message));
  assert.throws(() => core.removalRanking(new Float32Array(0), 'most_relevant_first'), /map is empty/);
  assert.throws(() => core.removalRanking('abc', 'most_relevant_first'), /must be a Float32Array/);
});

test('removedPixelCount: floor(pixels * fraction)', () => {
  assert.equal(core.removedPixelCount(50176, 0.3), 15052);
  assert.equal(core.removedPixelCount(50176, 0.1), 5017);
  assert.equal(core.removedPixelCount(10, 1), 10);
  assert.throws(() => core.removedPixelCount(10, 1.5), /\[0, 1\]/);
  assert.throws(() => core.removedPixelCount(-3, 0.5), /non-negative integer/);
  assert.throws(() => core.removedPixelCount(10, '0.5'), /fraction must be a number/);
});

test('trapezoidArea and perturbationAuc', () => {
  assert.equal(core.trapezoidArea([0, 1, 3], [1, 3, 3]), 8);
  assert.ok(Math.abs(core.perturbationAuc(STEPS, STEPS.map(() => 0.8)) - 72) < 1e-12);
  assert.ok(Math.abs(core.perturbationAuc(STEPS, STEPS.map((k) => 1 - k)) - 49.5) < 1e-12);
  assert.throws(() => core.trapezoidArea([0, 1], [1]), /2 x values but 1 y values/);
  assert.throws(() => core.trapezoidArea([0], [1]), /at least 2 points/);
  assert.throws(() => core.perturbationAuc([0, 0.5, 0.5], [1, 1, 1]), /strictly increasing/);
  assert.throws(() => core.perturbationAuc([0, NaN], [1, 1]), /non-finite/);
  assert.throws(() => core.perturbationAuc([0, 'a'], [1, 1]), /fractions must be an array of numbers/);
  assert.throws(() => core.trapezoidArea(5, [1]), /x must be an array of numbers/);
});

test('positiveShareInside: share of positive relevance in the rect', () => {
  const map = f32([1, -2, 3, 0, 0, 4, -1, 2]); // 2 rows x 4 cols
  assert.equal(core.positiveShareInside(map, 2, 4, { x: 0, y: 0, width: 2, height: 2 }), 0.5);
  assert.ok(Math.abs(core.positiveShareInside(map, 2, 4, { x: 2, y: 0, width: 2, height: 1 }) - 0.3) < 1e-15);
  assert.equal(core.positiveShareInside(f32([-1, 0, -3, -0.5]), 2, 2, { x: 0, y: 0, width: 1, height: 1 }), 0);
  assert.throws(() => core.positiveShareInside(map, 2, 4, { x: 3, y: 0, width: 2, height: 1 }), /lie inside the 2x4 map/);
  assert.throws(() => core.positiveShareInside(map, 2, 3, { x: 0, y: 0, width: 1, height: 1 }), /8 values, expected 6/);
  assert.throws(() => core.positiveShareInside(map, 2, 4, { x: 0, y: 0, width: 1 }), /rect.height must be an integer/);
  assert.throws(() => core.positiveShareInside(map, 2.5, 4, { x: 0, y: 0, width: 1, height: 1 }), /rows must be an integer/);
});

test('averagePrecision: sklearn definition, ties one threshold, no positive gives 0', () => {
  const ap = core.averagePrecision(f32([0.1, 0.4, 0.35, 0.8]), u8([0, 0, 1, 1]));
  assert.ok(Math.abs(ap - 5 / 6) < 1e-15);
  assert.ok(Math.abs(core.averagePrecision(f32([0.5, 0.5, 0.2]), u8([1, 0, 1])) - 7 / 12) < 1e-15);
  assert.equal(core.averagePrecision(f32([0.3, 0.9, 0.1]), u8([0, 0, 0])), 0);
  assert.throws(() => core.averagePrecision(f32([0.3, 0.9]), u8([0, 2])), /value 2 at index 1/);
  assert.throws(() => core.averagePrecision(f32([0.3, 0.9]), u8([0])), /1 values, expected 2/);
  assert.throws(() => core.averagePrecision(f32([0.3]), [1]), /positive must be a Uint8Array/);
});

test('segmentationCounts: binarised above the mean, per-class IoU counts, mean AP', () => {
  const c = core.segmentationCounts(f32([0, 1, 3, 4]), u8([0, 1, 1, 0]));
  assert.deepEqual({ ...c, averagePrecision: undefined },
    { correct: 2, labeled: 4, intersection: [1, 1], union: [3, 3], averagePrecision: undefined });
  assert.ok(Math.abs(c.averagePrecision - ((0.25 + 1 / 3) + 0.75) / 2) < 1e-12);
  const tie = core.segmentationCounts(f32([0, 2, 4]), u8([0, 0, 1]));
  assert.equal(tie.correct, 3);
  const oneClass = core.segmentationCounts(f32([0, 1, 3, 4]), u8([0, 0, 0, 0]));
  assert.equal(oneClass.averagePrecision, 0.5);
  assert.deepEqual(oneClass.union, [4, 2]);
  assert.throws(() => core.segmentationCounts(f32([0, 1]), u8([0, 3])), /value 3 at index 1, expected 0 \(background\) or 1/);
  assert.throws(() => core.segmentationCounts(f32([0, 1]), u8([0, 1, 1])), /3 values, expected 2/);
  assert.throws(() => core.segmentationCounts(f32([0, NaN]), u8([0, 1])), /at index 1/);
  assert.throws(() => core.segmentationCounts(f32([0, 1]), 'mask'), /mask must be a Uint8Array/);
});

test('maskInModelFrame: nearest neighbour of the region', () => {
  const mask = u8([0, 1, 2, 3, 4, 5, 6, 7]); // 4 wide x 2 high
  const out = core.maskInModelFrame(mask, 4, 2, { x: 1, y: 0, width: 2, height: 2 }, 4, 1);
  assert.ok(out instanceof Uint8Array);
  assert.deepEqual([...out], [5, 5, 6, 6]);
  assert.deepEqual([...core.maskInModelFrame(mask, 4, 2, { x: 0, y: 0, width: 4, height: 2 }, 2, 2)], [1, 3, 5, 7]);
  assert.throws(() => core.maskInModelFrame(mask, 4, 2, { x: 3, y: 0, width: 2, height: 2 }, 2, 2), /inside the 4x2 mask/);
  assert.throws(() => core.maskInModelFrame(mask, 3, 2, { x: 0, y: 0, width: 1, height: 1 }, 2, 2), /8 values, expected 6/);
  assert.throws(() => core.maskInModelFrame(mask, 4, 2, { x: 0.5, y: 0, width: 1, height: 1 }, 2, 2), /region.x must be an integer/);
  assert.throws(() => core.maskInModelFrame(mask, 4, 2, { x: 0, y: 0, width: 1, height: 1 }, 0, 2), /output/);
});

// Plain JS reference of the official removal, in float32 like the core and torchvision.
function referencePerturbed(rgba, width, height, map, { fractions, order, mean, std }) {
  const n = width * height;
  const idx = Array.from({ length: n }, (_, i) => i);
  const sign = order === 'most_relevant_first' ? -1 : 1;
  idx.sort((a, b) => sign * (map[a] - map[b]) || a - b);
  const out = new Float32Array(fractions.length * 3 * n);
  fractions.forEach((fraction, f) => {
    const removed = new Uint8Array(n);
    const k = Math.floor(n * fraction);
    for (let r = 0; r < k; r++) removed[idx[r]] = 1;
    for (let c = 0; c < 3; c++) {
      const m = Math.fround(mean[c]);
      const s = Math.fround(std[c]);
      for (let p = 0; p < n; p++) {
        const x = removed[p] ? 0 : Math.fround(rgba[4 * p + c] / 255);
        out[(f * 3 + c) * n + p] = Math.fround(Math.fround(x - m) / s);
      }
    }
  });
  return out;
}

test('perturbedInputs at 224x224 with 9 fractions matches the JS reference, both orders', () => {
  const [W, H] = [224, 224];
  const rgba = new Uint8ClampedArray(W * H * 4);
  for (let i = 0; i < rgba.length; i++) rgba[i] = (i * 2654435761) >>> 24;
  // Few distinct values, so most pixels tie and the tie order is exercised.
  const map = Float32Array.from({ length: W * H }, (_, i) => (((i * 40503) >>> 3) % 37) / 7 - 2);
  const fractions = [0.9, 0.1, 0.5, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8]; // out of order on purpose
  for (const order of core.removalOrderIds) {
    const options = { fractions, order, mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225] };
    const out = core.perturbedInputs(rgba, W, H, map, options);
    assert.ok(out instanceof Float32Array);
    assert.equal(out.length, 9 * 3 * H * W);
    const expected = referencePerturbed(rgba, W, H, map, options);
    let mismatches = 0;
    for (let i = 0; i < out.length; i++) if (out[i] !== expected[i]) mismatches++;
    assert.equal(mismatches, 0, order);
  }
  const started = performance.now();
  for (let r = 0; r < 20; r++) {
    core.perturbedInputs(rgba, W, H, map, { fractions: STEPS.slice(1), order: 'most_relevant_first', mean: [0.5, 0.5, 0.5], std: [0.5, 0.5, 0.5] });
  }
  const ms = (performance.now() - started) / 20;
  assert.ok(ms < 500, `perturbedInputs took ${ms.toFixed(1)} ms per call`);
});

test('perturbedInputs: a removed pixel is -mean/std, errors are clear', () => {
  const rgba = new Uint8Array(2 * 1 * 4).fill(255);
  const opts = { fractions: [0.5], order: 'most_relevant_first', mean: [0.5, 0.25, 0], std: [0.5, 0.5, 2] };
  const out = core.perturbedInputs(rgba, 2, 1, f32([0, 1]), opts);
  assert.deepEqual([...out], [1, -1, 1.5, -0.5, 0.5, 0].map(Math.fround));
  const bad = (patch, re, map = f32([0, 1]), w = 2) =>
    assert.throws(() => core.perturbedInputs(rgba, w, 1, map, { ...opts, ...patch }), re);
  bad({ fractions: [1.2] }, /fraction 1\.2.* must be in \[0, 1\]/);
  bad({ fractions: [] }, /no fractions/);
  bad({ fractions: 0.5 }, /fractions must be an array of numbers/);
  bad({ order: 'negative' }, /order must be one of/);
  bad({ std: [1, 0, 1] }, /std\[1\] = 0/);
  bad({ mean: [0.5, 0.5] }, /mean must hold 3 numbers/);
  bad({}, /map: 3 values, expected 2/, f32([0, 1, 2]));
  bad({}, /RGBA buffer of 8 bytes, expected 12/, f32([0, 1, 2]), 3);
  bad({}, /at index 1/, f32([0, Infinity]));
  assert.throws(() => core.perturbedInputs(rgba, 2, 1, f32([0, 1])), /fractions must be an array of numbers/);
});

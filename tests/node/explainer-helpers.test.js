// Pure helpers of the explainer runtime: softmax/top-k and target resolution.
import test from 'node:test';
import assert from 'node:assert/strict';
import { softmax, topK, topKIndices, classStanding } from '../../runtime/topk.js';
import { resolveClass, targetRows, closeMatches } from '../../runtime/targets.js';
import { differenceRow, tinyMetadata } from './explainer-fixture.js';

test('softmax is stable for large logits and sums to 1', () => {
  const p = softmax(new Float32Array([1000, 1001, 999]));
  assert.ok(Math.abs(p.reduce((a, b) => a + b, 0) - 1) < 1e-6);
  assert.ok(p[1] > p[0] && p[0] > p[2]);
  assert.ok(Math.abs(p[1] / p[0] - Math.E) < 1e-4);
});

test('topKIndices returns the k largest, largest first, ties by lower index', () => {
  assert.deepEqual(topKIndices([3, 9, 1, 9, 5, 7], 4), [1, 3, 5, 4]);
  assert.deepEqual(topKIndices([2, 1], 5), [0, 1]);
  const rnd = Float32Array.from({ length: 1000 }, (_, i) => Math.sin(i * 12.9898) * 43758.5453 % 1);
  const sorted = [...rnd.keys()].sort((a, b) => rnd[b] - rnd[a] || a - b).slice(0, 5);
  assert.deepEqual(topKIndices(rnd, 5), sorted);
});

test('topK attaches labels and probabilities', () => {
  const top = topK(new Float32Array([0, 2, 1]), 2, ['a', 'b', 'c']);
  assert.deepEqual(top.map((t) => [t.id, t.label]), [[1, 'b'], [2, 'c']]);
  assert.ok(top[0].prob > top[1].prob && top[0].prob < 1);
});

test('classStanding: any class\'s probability and rank, ranked as topKIndices orders', () => {
  const logits = Float32Array.from({ length: 1000 }, (_, i) => Math.sin(i * 12.9898) * 8);
  logits[7] = logits[3]; // a tie: the lower index ranks first
  const order = topKIndices(logits, 1000);
  const probs = softmax(logits);
  for (const id of [order[0], order[4], order[5], order[412], order[999], 3, 7]) {
    const s = classStanding(logits, id);
    assert.equal(s.rank, order.indexOf(id) + 1, `rank of ${id}`);
    assert.equal(s.prob, probs[id]);
    assert.equal(s.classes, 1000);
  }
  assert.equal(classStanding(logits, 7).rank, classStanding(logits, 3).rank + 1);
});

test('classes resolve by id, by label and by synonym, case-insensitively', () => {
  const m = tinyMetadata();
  assert.equal(resolveClass(m, 1), 1);
  assert.equal(resolveClass(m, ' 0 '), 0);
  assert.equal(resolveClass(m, 'Tiger Cat'), 1);
  assert.equal(resolveClass(m, 'TABBY CAT'), 0);
  assert.equal(resolveClass(m, 'derrick'), 3);
});

test('out-of-range, ambiguous and unknown classes give clear errors', () => {
  const m = tinyMetadata();
  assert.throws(() => resolveClass(m, 4), /class 4 is out of range: this model has classes 0\.\.3/);
  assert.throws(() => resolveClass(m, '-1'), /out of range/);
  assert.throws(() => resolveClass(m, 'crane'), /"crane" is ambiguous: it names classes 2 \(crane\); 3 \(crane, derrick\)/);
  assert.throws(() => resolveClass(m, 'tabbby'), /"tabbby" is not a class of this model\. Close matches: 0 \(tabby, tabby cat\)/);
  assert.throws(() => resolveClass(m, 'zzzzzzzzzzzz'), (e) => /not a class/.test(e.message) && !/Close matches/.test(e.message));
  assert.throws(() => resolveClass(m, 4, '--class'), /^Error: --class 4 is out of range/, 'the role names where the class came from');
  assert.deepEqual(closeMatches(m, 'cat'), [0, 1]);
});

test('targetRows builds one-hot rows and copies weight vectors', () => {
  const m = targetRows([2, differenceRow(0, 1, 4)], 4);
  assert.deepEqual([...m], [0, 0, 1, 0, 1, -1, 0, 0]);
  assert.throws(() => targetRows([], 4), /at least one target row/);
  assert.throws(() => targetRows([4], 4), /target row 0: 4 is not a class id in 0\.\.3/);
  assert.throws(() => targetRows([new Float32Array(3)], 4), /has 3 entries, the model has 4 classes/);
});

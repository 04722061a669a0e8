// The core's attribution tree (src/methods/attribution.cpp, through the WebAssembly
// build) against a straight Python port of the official attribution_tree.py loop
// (tests/reference/attribution_tree_port.py) on random Attr, and head importance.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadCore } from '../../runtime/core.js';
import { formatNpy } from '../../runtime/npy.js';
import { root, tempDir } from './maps-support.js';

const core = await loadCore();
const PORT = path.join(root, 'tests', 'reference', 'attribution_tree_port.py');

// Deterministic uniform numbers in [lo, hi) (a small LCG: the test must not flake).
function generator(seed) {
  let s = seed >>> 0;
  return (lo, hi) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return lo + (hi - lo) * (s / 2 ** 32);
  };
}

// Attr-like tensors: mostly small, some strong links, some negative, so the tree grows
// over several blocks.
function randomAttr(B, h, S, seed) {
  const rand = generator(seed);
  const data = new Float32Array(B * h * S * S);
  for (let i = 0; i < data.length; i++) {
    const u = rand(0, 1);
    data[i] = u < 0.9 ? rand(-0.05, 0.1) : rand(0, 1);
  }
  return { data, shape: [B, h, S, S] };
}

function portTree(attr, threshold) {
  const file = path.join(tempDir('attr-tree-'), 'attr.npy');
  writeFileSync(file, formatNpy(attr));
  const r = spawnSync('/usr/bin/python3', [PORT, file, String(threshold)], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test('the tree equals the Python port of the official loop on random Attr', () => {
  let edges = 0;
  for (const [seed, B, h, S, threshold] of [[1, 12, 3, 17, 0.4], [2, 4, 2, 10, 0.4], [3, 6, 1, 26, 0.3],
    [4, 2, 3, 8, 0.4], [5, 12, 3, 50, 0.5], [6, 3, 2, 5, 0.2]]) {
    const attr = randomAttr(B, h, S, seed);
    const ours = core.attributionTree(attr, threshold);
    const want = portTree(attr, threshold);
    assert.equal(ours.top, want.top, `seed ${seed}: top`);
    assert.deepEqual(ours.edges.map((e) => [e.from, e.to, e.block]), want.edges, `seed ${seed}: edges`);
    assert.deepEqual(ours.nodes, want.nodes, `seed ${seed}: nodes`);
    edges += want.edges.length;
  }
  assert.ok(edges > 20, `the cases must grow real trees (${edges} edges)`);
});

test('head importance is the max over every link of each head', () => {
  const attr = randomAttr(3, 2, 5, 9);
  const got = core.headImportance(attr);
  assert.deepEqual(got.shape, [3, 2]);
  for (let bk = 0; bk < 6; bk++) {
    assert.equal(got.data[bk], Math.max(...attr.data.subarray(bk * 25, (bk + 1) * 25)));
  }
});

test('bad Attr gets a specific error', () => {
  assert.throws(() => core.attributionTree({ data: new Float32Array(9), shape: [1, 1, 3, 3] }),
    /attribution: the tree needs at least 2 blocks/);
  assert.throws(() => core.headImportance({ data: new Float32Array(6), shape: [1, 1, 2, 3] }),
    /attribution: expected \[B,h,S,S\]/);
});

test('attributionTree: the prefix rows follow specialTokens (0: token 0 is a patch)', () => {
  // tests/cpp/methods_attribution_test.cpp, PrefixRowsFollowTheSpecialTokenCount.
  const attr = { shape: [3, 1, 3, 3], data: Float32Array.from([9, 9, 9, 0, 1, 2, 0, 1, 0, 9, 9, 9, 0, 1, 0, 0, 4, 0, 9, 9, 9, 0, 0, 0, 0, 0, 0]) };
  assert.equal(core.attributionTree(attr).top, 2);
  const none = core.attributionTree(attr, 0.4, 0);
  assert.equal(none.top, 0);
  assert.deepEqual(none.edges, [{ from: 0, to: 1, block: 1 }, { from: 0, to: 2, block: 1 }]);
  assert.throws(() => core.attributionTree(attr, 0.4, 3), { message: 'attribution tree: special_tokens 3 is out of range [0,3) for 3 tokens' });
});

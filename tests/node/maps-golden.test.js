// `vit-relevance maps` end to end on the golden tensors of the official implementation
// (../shared/reference/golden): every method except lrp_full (not reproducible, see
// METHODS.md) must match its golden map with Pearson >= 0.9999.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { goldenMethodIds } from './explain-support.js';
import { goldenArgs, golden, haveGolden, pearson, readMaps, runCli, tempDir } from './maps-support.js';

// Our method id → key in catdog.json (METHODS.md, "Golden data").
const GOLDEN_KEYS = {
  transformer_attribution: 'transformer_attribution',
  attention_rollout: 'attention_rollout',
  raw_attention: 'raw_attention',
  gradcam: 'gradcam',
  partial_lrp: 'partial_lrp',
  generic_attention: 'generic_iccv21',
  ablation_no_grad: 'lrp_rollout',
  ablation_last_block: 'last_layer_grad_x_rel',
};
// With --start-layer 1, as the paper's evaluation scripts run the rollouts.
const GOLDEN_KEYS_START1 = {
  transformer_attribution: 'transformer_attribution_start1',
  attention_rollout: 'attention_rollout_start1',
};
const ALL_IDS = await goldenMethodIds(); // the golden tensors hold no attr, nor AttnLRP's maps

const skip = haveGolden ? false : 'golden data not found (set VITREL_SHARED_DIR)';
let goldenMaps;
async function goldenTarget(target) {
  goldenMaps ??= JSON.parse(await readFile(golden('catdog.json'), 'utf8')).targets;
  return goldenMaps[target];
}

function checkAgainst(ours, reference, keys, label) {
  for (const [id, key] of Object.entries(keys)) {
    const map = ours[id];
    assert.ok(map, `${label}: ${id} missing from maps.json`);
    assert.deepEqual(map.shape, [14, 14], `${label}: ${id} shape`);
    const ref = reference[key];
    if (ref.every((v) => v === null)) {
      // The reference's GradCAM gives NaN when every head weight is negative; we give zeros.
      assert.ok(map.data.every((v) => v === 0), `${label}: ${id} should be all zeros where the reference is NaN`);
      continue;
    }
    const r = pearson(map.data, ref);
    assert.ok(r >= 0.9999, `${label}: ${id} vs golden ${key}: Pearson ${r}`);
  }
}

for (const target of ['243', '282']) {
  test(`maps CLI reproduces the golden maps of target ${target}`, { skip }, async () => {
    const out = tempDir();
    const r = runCli(['maps', ...goldenArgs(target), '--out', out]);
    assert.equal(r.status, 0, r.stderr);
    const doc = await readMaps(out);
    assert.equal(doc.targets.length, 1);
    assert.equal(doc.targets[0].id, null);
    const maps = doc.targets[0].maps;
    assert.deepEqual(Object.keys(maps), ALL_IDS, 'every method, in the core order');
    assert.deepEqual(maps.lrp_full.shape, [224, 224]);
    assert.equal(maps.lrp_full.data.length, 224 * 224);
    checkAgainst(maps, await goldenTarget(target), GOLDEN_KEYS, `target ${target}`);
  });

  test(`maps CLI with --start-layer 1 reproduces the *_start1 golden maps of target ${target}`, { skip }, async () => {
    const out = tempDir();
    const r = runCli(['maps', ...goldenArgs(target), '--method', Object.keys(GOLDEN_KEYS_START1).join(','),
      '--start-layer', '1', '--out', out]);
    assert.equal(r.status, 0, r.stderr);
    const maps = (await readMaps(out)).targets[0].maps;
    assert.deepEqual(Object.keys(maps), Object.keys(GOLDEN_KEYS_START1));
    checkAgainst(maps, await goldenTarget(target), GOLDEN_KEYS_START1, `target ${target}, start layer 1`);
  });
}

test('maps CLI leaves out the methods whose inputs were not given', { skip }, async () => {
  const out = tempDir();
  const r = runCli(['maps', '--attn', golden('catdog-attn.npy'), '--out', out]);
  assert.equal(r.status, 0, r.stderr);
  const maps = (await readMaps(out)).targets[0].maps;
  assert.deepEqual(Object.keys(maps), ['attention_rollout', 'raw_attention']);
});

test('maps CLI accepts an explicit grid and method list', { skip }, async () => {
  const out = tempDir();
  const r = runCli(['maps', '--attn', golden('catdog-attn.npy'), '--method', 'raw_attention',
    '--grid', '14x14', '--special-tokens', '1', '--out', out]);
  assert.equal(r.status, 0, r.stderr);
  const maps = (await readMaps(out)).targets[0].maps;
  assert.deepEqual(Object.keys(maps), ['raw_attention']);
  const reference = await goldenTarget('243');
  assert.ok(pearson(maps.raw_attention.data, reference.raw_attention) >= 0.9999);
});

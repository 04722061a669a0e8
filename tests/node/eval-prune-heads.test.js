// Head pruning (`vit-relevance eval prune-heads`, METHODS.md "Self-Attention Attribution"):
// the ranking arithmetic on hand-made records, then the command end to end with the real
// DeiT-tiny graphs on a few ImageNet photos: its importances against the explainer's own
// tensors, the masks at rate 0 and 1, shards + merge and a resumed run byte for byte
// equal to one run. Also attattr in `eval perturbation` and `eval pointing-game`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { loadCore } from '../../runtime/core.js';
import { seededShuffle } from '../../eval/mosaic.js';
import { RATES, ascendingOrder, headMask, headOrders, importanceSums, maskedCount, perBlockMask, pruningMasks } from '../../eval/prune-heads-protocol.js';
import { kind } from '../../eval/prune-heads.js';
import { decodePhoto, preprocessPhoto } from '../../eval/node/photo.js';
import { openExplainerFile } from '../../runtime/node/open-explainer.js';
import { runCli, shared, tempDir } from './maps-support.js';
import { coreBuilt, deitModel, haveDeit } from './explain-support.js';

const samples = path.join(shared, 'imagenet', 'samples');
const synsets = path.join(shared, 'imagenet', 'synset_words.txt');
const attributionBuilt = existsSync(deitModel.replace(/\.onnx$/, '.masked.onnx')) && existsSync(deitModel.replace(/\.onnx$/, '.attr0.onnx'));
const skip = !coreBuilt ? 'the WebAssembly core is not built: run `npm run build`'
  : !haveDeit || !attributionBuilt ? 'the DeiT-tiny graphs (explainer, attribution, masked) are not built: run `npm run build`'
    : !existsSync(synsets) ? `ImageNet samples not found in ${shared} (set VITREL_SHARED_DIR)` : false;

// Six photos of six classes: the first two rank, four are held out.
const STEMS = ['n01440764_tench', 'n01484850_great_white_shark', 'n01494475_hammerhead', 'n01498041_stingray', 'n01514859_hen', 'n01530575_brambling'];

async function photoFolder(stems = STEMS) {
  const dir = path.join(tempDir('vitrel-prune-'), 'images');
  await mkdir(dir);
  for (const stem of stems) await copyFile(path.join(samples, `${stem}.JPEG`), path.join(dir, `${stem}.JPEG`));
  return dir;
}

const pruneArgs = (images, out, ...rest) => ['eval', 'prune-heads', '--images', images, '--labels', synsets, '--model', deitModel,
  '--rank-images', '2', '--threads', '1', '--quiet', '--out', out, ...rest];
const filesOf = (dir) => Object.fromEntries(readdirSync(dir).sort().map((f) => [f, readFileSync(path.join(dir, f), 'utf8')]));
const ok = (r, what) => assert.equal(r.status, 0, `${what}:\n${r.stdout}\n${r.stderr}`);

test('ranking: sums per head, Taylor blocks L2-normalised, ascending with ties to the lower head, seeded random', () => {
  const settings = { by: ['attention', 'taylor', 'random'], blocks: 2, heads: 2, seed: 5 };
  const records = [
    { importance: { attention: [1, 2, 3, 0], taylor: [3, 0, 1, 1] } },
    { importance: { attention: [1, 0, 1, 0], taylor: [0, 4, 0, 1] } },
  ];
  const sums = importanceSums(records, settings.by, settings);
  assert.deepEqual(Array.from(sums.attention), [2, 2, 4, 0]);
  assert.deepEqual(Array.from(sums.taylor), [0.6, 0.8, 1 / Math.sqrt(5), 2 / Math.sqrt(5)]);
  const orders = headOrders(records, settings);
  assert.deepEqual(orders.attention, [3, 0, 1, 2]);
  assert.deepEqual(orders.taylor, [2, 0, 1, 3]);
  assert.deepEqual(orders.random, seededShuffle([0, 1, 2, 3], 5));
});

test('masks: int(r·B·h) heads at r = k/10, distinct masks run once', () => {
  assert.deepEqual(RATES.map((_, k) => maskedCount(k, 36)), [0, 3, 7, 10, 14, 18, 21, 25, 28, 32, 36]);
  assert.deepEqual(Array.from(headMask([2, 0, 1, 3], 2)), [0, 1, 0, 1]);
  const plan = pruningMasks({ a: [0, 1, 2, 3], b: [3, 2, 1, 0] }, 2);
  // rates 0 and 1 (all kept, all masked) are shared; 4 heads: counts 0,0,0,1,1,2,2,2,3,3,4
  assert.equal(plan.use.correct.a[0], plan.use.correct.b[0]);
  assert.equal(plan.use.correct.a[10], plan.use.correct.b[10]);
  assert.deepEqual(Array.from(plan.masks[plan.use.correct.b[5]]), [1, 1, 0, 0]);
  // 2 blocks × 2 heads, one kept per block: a masks heads 0 and 2, b heads 3 and 1 (two
  // new masks); the global order at that count (2) is rate 50 %'s mask.
  assert.deepEqual(Array.from(plan.masks[plan.use.perBlock.a[0]]), [0, 1, 0, 1]);
  assert.deepEqual(Array.from(plan.masks[plan.use.perBlock.b[0]]), [1, 0, 1, 0]);
  assert.deepEqual([plan.use.perBlockGlobal.a[0], plan.use.perBlockGlobal.b[0]], [plan.use.correct.a[5], plan.use.correct.b[5]]);
  assert.equal(plan.masks.length, 2 + 2 * 3 + 2);
});

test('per-block masks: the top k heads of every block kept, ties as the global order breaks them', () => {
  // 2 blocks × 3 heads; heads 1 and 2 tie (0.2): the lower index is the less important.
  const order = ascendingOrder([0.1, 0.2, 0.2, 0.9, 0.8, 0.3]);
  assert.deepEqual(order, [0, 1, 2, 5, 4, 3]);
  // k = 1: block 0 keeps head 2 (1 lost the tie), block 1 keeps head 3; 4 heads masked.
  assert.deepEqual(Array.from(perBlockMask(order, 3, 1)), [0, 0, 1, 1, 0, 0]);
  // k = 2: each block loses its least important head, 0 and 5.
  assert.deepEqual(Array.from(perBlockMask(order, 3, 2)), [0, 1, 1, 1, 1, 0]);
  const plan = pruningMasks({ attention: order }, 3);
  const masks = (field) => plan.use[field].attention.map((i) => Array.from(plan.masks[i]));
  assert.deepEqual(masks('perBlock'), [[0, 0, 1, 1, 0, 0], [0, 1, 1, 1, 1, 0]]);
  // The global order at the same counts (4, 2) masks block 0 first.
  assert.deepEqual(masks('perBlockGlobal'), [[0, 0, 0, 1, 1, 0], [0, 0, 1, 1, 1, 1]]);
});

test('summary: per-block top-1 beside the global order at the same count; folders from before it summarize without it', () => {
  const settings = { model: 'tiny', by: ['attention', 'random'], blocks: 2, heads: 3, seed: 0, steps: 20, perBlockKept: [1, 2] };
  const rank = { label: 0, predicted: 0, importance: { attention: [0.1, 0.2, 0.2, 0.9, 0.8, 0.3] } };
  const held = (perBlock, perBlockGlobal) => ({ label: 1, correct: { attention: '11000000000', random: '10000000000' }, perBlock, perBlockGlobal });
  const records = [rank,
    held({ attention: '11', random: '01' }, { attention: '01', random: '00' }),
    held({ attention: '01', random: '00' }, { attention: '00', random: '01' })];
  const s = kind.summarize(records, settings);
  assert.deepEqual(s.perBlock, {
    kept: [1, 2],
    masked: [4, 2],
    accuracy: { attention: [0.5, 1], random: [0, 0.5] },
    global: { attention: [0, 0.5], random: [0, 0.5] },
  });
  assert.deepEqual(s.accuracy.attention.slice(0, 3), [1, 1, 0]);
  const files = Object.fromEntries(kind.reports(s).map((f) => [f.file, f.text]));
  assert.match(files['prune-heads.md'], /\| kept per block \| heads masked \| attention per block \| attention global \| random per block \| random global \|/);
  assert.match(files['prune-heads.md'], /\| 1 \| 4 \| 50\.00 \| 0\.00 \| 0\.00 \| 0\.00 \|/);
  assert.deepEqual(files['prune-heads-per-block.csv'].trim().split('\n'), [
    'kept,masked,acc_attention_per_block,acc_attention_global,acc_random_per_block,acc_random_global',
    '1,4,0.500000,0.000000,0.000000,0.000000',
    '2,2,1.000000,0.500000,0.500000,0.500000',
  ]);

  // A folder from before the per-block masks: no perBlockKept in its settings, no
  // perBlock in its records.
  const without = (object, ...keys) => Object.fromEntries(Object.entries(object).filter(([key]) => !keys.includes(key)));
  const old = kind.summarize(records.map((r) => without(r, 'perBlock', 'perBlockGlobal')), without(settings, 'perBlockKept'));
  assert.ok(!('perBlock' in old), 'the summary of an old folder is what it was');
  assert.deepEqual(old.accuracy, s.accuracy);
  const oldFiles = kind.reports(old);
  assert.deepEqual(oldFiles.map((f) => f.file), ['prune-heads.md', 'prune-heads.csv', 'prune-heads.svg']);
  assert.doesNotMatch(oldFiles[0].text, /per block/);
});

test('eval prune-heads end to end: importances from the real graphs, rate 0 is the plain model, rate 1 masks every head', { skip, timeout: 900_000 }, async () => {
  const images = await photoFolder();
  const out = path.join(tempDir('vitrel-prune-run-'), 'run');
  const r = runCli(pruneArgs(images, out, '--steps', '2', '--batch', '3'));
  ok(r, 'prune-heads');
  assert.match(r.stdout, /ranking on the first 2 photo\(s\), 4 held out/);
  const s = JSON.parse(readFileSync(path.join(out, 'prune-heads.json'), 'utf8'));
  assert.deepEqual([s.rankImages, s.evalImages, s.blocks, s.heads, s.steps, s.seed], [2, 4, 12, 3, 2, 0]);
  assert.deepEqual(s.by, ['attribution', 'attention', 'taylor', 'random']);
  assert.deepEqual(s.masked, [0, 3, 7, 10, 14, 18, 21, 25, 28, 32, 36]);
  for (const m of s.by) assert.deepEqual([...s.order[m]].sort((a, b) => a - b), Array.from({ length: 36 }, (_, i) => i), `${m}: a permutation`);
  assert.deepEqual(s.order.random, seededShuffle(Array.from({ length: 36 }, (_, i) => i), 0));
  for (let b = 0; b < 12; b++) {
    const norm = Math.hypot(...s.importance.taylor.slice(3 * b, 3 * b + 3));
    assert.ok(Math.abs(norm - 1) < 1e-12, `taylor block ${b}: L2 norm ${norm}`);
  }

  // The records' importances against the explainer graph's own attention and gradient.
  const core = await loadCore();
  const explainer = await openExplainerFile(deitModel, { engine: 'node', threads: 1, requireForward: true });
  const records = readFileSync(path.join(out, 'records.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const rank = records.filter((e) => e.record.importance);
  assert.deepEqual(rank.map((e) => e.key), STEMS.slice(0, 2).map((s2) => `${s2}.JPEG`));
  let top1 = 0;
  try {
    for (const stem of STEMS) {
      const name = `${stem}.JPEG`;
      const pre = preprocessPhoto(core, await decodePhoto(path.join(images, name), name), explainer.metadata, name);
      const { logits } = await explainer.predict(pre.data);
      const label = explainer.metadata.wnids.indexOf(stem.split('_')[0]);
      const predicted = logits.indexOf(Math.max(...logits));
      const record = records.find((e) => e.key === name).record;
      if (!record.importance) {
        top1 += predicted === label ? 1 : 0;
        continue;
      }
      const p = Float64Array.from(logits, (v) => Math.exp(v - Math.max(...logits)));
      const z = p.reduce((a, v) => a + v, 0);
      const row = Float32Array.from(p, (v) => v / z);
      row[label] -= 1;
      const { attn, attn_grad: grad } = (await explainer.explain(pre.data, [row], { outputs: ['attn', 'attn_grad'] })).tensors[0];
      // attention: the same tensor, so the same maximum; taylor: the test's softmax is
      // formed in float64, the run's in float32, hence a relative bound.
      const S2 = attn.shape[2] * attn.shape[3];
      const dots = Array.from({ length: 36 }, (_, head) => {
        let dot = 0;
        for (let e = head * S2; e < (head + 1) * S2; e++) dot += attn.data[e] * grad.data[e];
        return Math.abs(dot);
      });
      const largest = Math.max(...dots);
      for (let head = 0; head < 36; head++) {
        const max = attn.data.subarray(head * S2, (head + 1) * S2).reduce((a, v) => Math.max(a, v), -Infinity);
        assert.equal(record.importance.attention[head], max, `${name} head ${head}: attention`);
        const taylor = record.importance.taylor[head];
        assert.ok(Math.abs(taylor - dots[head]) <= 1e-4 * largest, `${name} head ${head}: taylor ${taylor} vs ${dots[head]}`);
      }
      assert.ok(record.importance.attribution.some((v) => v !== 0), `${name}: attribution importances`);
    }
  } finally {
    await explainer.release();
  }
  // Rate 0 keeps every head (all ones is the plain forward bit for bit); rate 1 leaves
  // the model no attention at all.
  for (const m of s.by) assert.equal(s.accuracy[m][0], top1 / 4, `${m}: rate 0 is the plain model's top-1`);
  assert.ok(s.accuracy.attention[0] > 0, 'the plain model gets some of the four photos right');
  for (const m of s.by) assert.equal(s.accuracy[m][10], s.accuracy.random[10], `${m}: rate 1 is one mask for all`);
  assert.ok(s.accuracy.random[10] < s.accuracy.random[0], 'masking every head must cost accuracy');
  // The per-block masks: 1 and 2 of the 3 heads kept in each of the 12 blocks.
  assert.deepEqual([s.perBlock.kept, s.perBlock.masked], [[1, 2], [24, 12]]);
  for (const e of records.filter((x) => !x.record.importance)) {
    for (const field of ['perBlock', 'perBlockGlobal']) assert.deepEqual(Object.keys(e.record[field]).sort(), [...s.by].sort(), `${e.key}: ${field}`);
    for (const m of s.by) assert.match(e.record.perBlock[m] + e.record.perBlockGlobal[m], /^[01]{4}$/);
  }

  const files = filesOf(out);
  assert.match(files['prune-heads.md'], /\| 100 % \| 36 \|/);
  assert.equal(files['prune-heads.csv'].trim().split('\n').length, 1 + RATES.length);
  for (const m of s.by) assert.ok(files['prune-heads.svg'].includes(`>${m}</text>`), `the chart has a line for ${m}`);
  assert.match(files['prune-heads.md'], /\| 1 \| 24 \|/);
  assert.equal(files['prune-heads-per-block.csv'].trim().split('\n').length, 3);
});

test('eval prune-heads: two shards merged, and a run interrupted then resumed, equal one run byte for byte', { skip, timeout: 900_000 }, async () => {
  const images = await photoFolder();
  const dir = tempDir('vitrel-prune-shards-');
  const cheap = ['--by', 'attention,taylor,random', '--seed', '7', '--batch', '2'];
  const whole = path.join(dir, 'whole');
  ok(runCli(pruneArgs(images, whole, ...cheap)), 'one run');
  for (const i of [1, 2]) ok(runCli(pruneArgs(images, path.join(dir, `shard-${i}`), ...cheap, '--shard', `${i}/2`)), `shard ${i}`);
  const merged = path.join(dir, 'merged');
  ok(runCli(['eval', 'merge', path.join(dir, 'shard-1'), path.join(dir, 'shard-2'), '--out', merged]), 'merge');
  assert.deepEqual(filesOf(merged), filesOf(whole));
  const shard1 = JSON.parse(readFileSync(path.join(dir, 'shard-1', 'prune-heads.json'), 'utf8'));
  assert.deepEqual([shard1.rankImages, shard1.evalImages], [2, 2], 'a shard ranks on all ranking photos and evaluates its half');

  // A folder from before the per-block masks (its run.json without perBlockKept) is
  // refused as an --out folder, not mixed, but serves as --ranking.
  const old = path.join(dir, 'old');
  await mkdir(old);
  const oldInfo = JSON.parse(readFileSync(path.join(whole, 'run.json'), 'utf8'));
  delete oldInfo.settings.perBlockKept;
  writeFileSync(path.join(old, 'run.json'), JSON.stringify(oldInfo));
  await copyFile(path.join(whole, 'records.jsonl'), path.join(old, 'records.jsonl'));
  const refused = runCli(pruneArgs(images, old, ...cheap));
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /old was computed with other settings \(perBlockKept: unset vs \[1,2\]\)/);

  // Shards that take the ranking from a folder that ranked once rank nothing themselves.
  for (const i of [1, 2]) {
    const r = runCli(pruneArgs(images, path.join(dir, `reusing-${i}`), ...cheap, '--shard', `${i}/2`, '--ranking', i === 1 ? whole : old));
    ok(r, `shard ${i} with --ranking`);
    assert.match(r.stdout, /ranked 0 photo\(s\)/);
  }
  const mergedReusing = path.join(dir, 'merged-reusing');
  ok(runCli(['eval', 'merge', path.join(dir, 'reusing-1'), path.join(dir, 'reusing-2'), '--out', mergedReusing]), 'merge of the reusing shards');
  assert.deepEqual(filesOf(mergedReusing), filesOf(whole));
  const otherBy = runCli(pruneArgs(images, path.join(dir, 'reusing-other'), '--by', 'attention,random', '--ranking', whole));
  assert.equal(otherBy.status, 1);
  assert.match(otherBy.stderr, /--ranking .*whole was computed with other settings \(by: /);

  // Interrupted: one held-out photo done and half a line written; the rerun resumes.
  const resumed = path.join(dir, 'resumed');
  ok(runCli(pruneArgs(images, resumed, ...cheap, '--limit', '1')), 'first part');
  const lines = readFileSync(path.join(resumed, 'records.jsonl'), 'utf8');
  assert.equal(lines.trim().split('\n').length, 3);
  writeFileSync(path.join(resumed, 'records.jsonl'), `${lines}{"key":"n01514859_hen.JPEG","rec`);
  const again = runCli(pruneArgs(images, resumed, ...cheap).filter((a) => a !== '--quiet'));
  ok(again, 'resume');
  assert.match(again.stdout, /ranked 0 photo\(s\)/, 'nothing ranked again');
  assert.match(again.stdout, /evaluated 3 held-out photo\(s\)/);
  assert.deepEqual(filesOf(resumed), filesOf(whole));

  // Other settings in the same folder are refused, not mixed.
  const other = runCli(pruneArgs(images, whole, '--by', 'attention,taylor,random', '--seed', '8'));
  assert.equal(other.status, 1);
  assert.match(other.stderr, /computed with other settings \(seed: 7 vs 8\)/);
});

test('attattr in eval perturbation and eval pointing-game, named beside an explainer method', { skip, timeout: 900_000 }, async () => {
  const dir = tempDir('vitrel-attattr-eval-');
  const pert = path.join(dir, 'perturbation');
  const images = await photoFolder(STEMS.slice(0, 4));
  const common = ['--images', images, '--labels', synsets, '--model', deitModel, '--threads', '1', '--quiet'];
  ok(runCli(['eval', 'perturbation', ...common, '--methods', 'attattr,raw_attention', '--limit', '1', '--out', pert]), 'perturbation');
  const p = JSON.parse(readFileSync(path.join(pert, 'perturbation.json'), 'utf8'));
  assert.deepEqual(p.methods, ['attattr', 'raw_attention']);
  for (const key of ['attattr/pos/predicted', 'attattr/neg/predicted', 'attattr/pos/target', 'attattr/neg/target']) {
    assert.ok(p.auc[key] >= 0 && p.auc[key] <= 100, `${key}: AUC ${p.auc[key]}`);
  }
  const run = JSON.parse(readFileSync(path.join(pert, 'run.json'), 'utf8'));
  assert.equal(run.settings.attributionSteps, 20);
  assert.match(run.settings.attributionSha256, /^[0-9a-f]{64}$/);
  // Removing the most relevant pixels first must hurt at least as much as the least relevant.
  assert.ok(p.auc['attattr/pos/predicted'] <= p.auc['attattr/neg/predicted'], JSON.stringify(p.auc));

  const pg = path.join(dir, 'pointing-game');
  ok(runCli(['eval', 'pointing-game', ...common, '--methods', 'attattr', '--out', pg]), 'pointing game');
  const g = JSON.parse(readFileSync(path.join(pg, 'pointing-game.json'), 'utf8'));
  assert.equal(g.tiles, 4);
  assert.ok(g.score.attattr > 0 && g.score.attattr <= 1, `score ${g.score.attattr}`);
  assert.ok(g.hitRate.attattr >= 0 && g.hitRate.attattr <= 1);
});

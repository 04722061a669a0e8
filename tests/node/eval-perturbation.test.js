// `vit-relevance eval perturbation` end to end with the real DeiT-tiny on a few labelled
// ImageNet photos: the files it writes, the AUC arithmetic, one photo's record recomputed
// independently (own ranking, own blackout, own forward), resume, shards + merge.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { root, shared } from './maps-support.js';
import { deitMethodIds, deitModel, skipDeit } from './explain-support.js';
import { openExplainerFile } from '../../runtime/node/open-explainer.js';
import { decodeImage } from '../../runtime/node/image.js';
import { loadCore } from '../../runtime/core.js';

const run = promisify(execFile);
const cli = path.join(root, 'cli', 'vit-relevance.js');
const samples = path.join(shared, 'imagenet', 'samples');
const synsets = path.join(shared, 'imagenet', 'synset_words.txt');
const skip = skipDeit || (!existsSync(samples) && `no labelled photos in ${samples}`);
const METHODS = ['transformer_attribution', 'raw_attention'];

function evalArgs(out, { limit = 2, extra = [], methods = METHODS } = {}) {
  return [cli, 'eval', 'perturbation', '--images', samples, '--labels', synsets, '--model', deitModel,
    '--methods', methods.join(','), '--limit', String(limit), '--quiet', '--out', out, ...extra];
}

async function filesOf(dir) {
  const names = (await readdir(dir)).sort();
  return Object.fromEntries(await Promise.all(names.map(async (n) => [n, await readFile(path.join(dir, n))])));
}

test('eval perturbation: summary, reports, resume, and shards merged equal one run', { skip, timeout: 300_000 }, async () => {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'vitrel-eval-pert-'));
  try {
    const whole = path.join(tmp, 'whole');
    const first = await run(process.execPath, evalArgs(whole));
    assert.match(first.stdout, /2 photo\(s\) in .*forward passes/);
    const files = await filesOf(whole);
    for (const f of ['perturbation.json', 'perturbation.csv', 'perturbation.md', 'perturbation-pos.svg', 'perturbation-neg.svg', 'records.jsonl', 'run.json']) {
      assert.ok(files[f]?.length, `${f} written`);
    }
    assert.equal(JSON.parse(files['run.json']).settings.decode.exif, 'ignore', 'photos are read as PIL reads them, and run.json says so');
    const summary = JSON.parse(files['perturbation.json']);
    assert.equal(summary.n, 2);
    assert.deepEqual(summary.fractions, [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]);
    assert.equal(Object.keys(summary.auc).length, METHODS.length * 4);
    for (const [key, curve] of Object.entries(summary.curves)) {
      assert.equal(curve.length, 10, key);
      assert.equal(curve[0], summary.top1, `${key}: k = 0 is the unperturbed accuracy`);
      let area = 0;
      for (let i = 1; i < 10; i++) area += ((curve[i] + curve[i - 1]) / 2) * 0.1;
      assert.ok(Math.abs(summary.auc[key] - area * 100) < 1e-9, `${key}: AUC is the trapezoid area × 100`);
    }
    // Class-agnostic raw attention perturbs the same pixels whichever class is explained.
    assert.deepEqual(summary.curves['raw_attention/pos/predicted'], summary.curves['raw_attention/pos/target']);
    assert.match(files['perturbation.md'].toString(), /\| transformer_attribution \|/);
    assert.match(files['perturbation-pos.svg'].toString(), /^<svg[\s\S]*<\/svg>\s*$/);

    const again = await run(process.execPath, evalArgs(whole));
    assert.match(again.stdout, /no photo evaluated in this run/, 'a finished run resumes with nothing to do');
    assert.deepEqual(await filesOf(whole), files, 'resuming rewrites the same files');

    // Shard i of 2 takes every second photo, then --limit 1 of those: photos 1 and 2, the
    // same two as the unsharded run.
    for (const i of [1, 2]) await run(process.execPath, evalArgs(path.join(tmp, `s${i}`), { limit: 1, extra: ['--shard', `${i}/2`] }));
    const merged = path.join(tmp, 'merged');
    await run(process.execPath, [cli, 'eval', 'merge', path.join(tmp, 's1'), path.join(tmp, 's2'), '--out', merged]);
    assert.deepEqual(await filesOf(merged), files, 'two shards merged are byte-identical to one run');
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
});

// The first photo's transformer_attribution "pos" bits, recomputed here with a plain JS
// ranking and blackout and the forward graph run one image at a time.
// One photo's positive-perturbation curve of `method` (predicted class) as the eval wrote it,
// recomputed independently: own ranking of the map at the input size, own blackout, own forward.
async function recomputeRecord(method, methods) {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'vitrel-eval-pert-'));
  const explainer = await openExplainerFile(deitModel, { engine: 'auto', requireForward: true });
  try {
    const out = path.join(tmp, 'one');
    await run(process.execPath, evalArgs(out, { limit: 1, methods }));
    const [line] = (await readFile(path.join(out, 'records.jsonl'), 'utf8')).trim().split('\n');
    const { key, record } = JSON.parse(line);
    const label = record.label;

    const core = await loadCore();
    const { metadata } = explainer;
    const [H, W] = metadata.architecture.image_size;
    const { mean, std } = metadata.preprocess;
    const photo = await decodeImage(path.join(samples, key));
    const pre = core.preprocess(photo.rgba, photo.width, photo.height, metadata);
    const ex = await explainer.explain(pre.data, [null], { outputs: core.outputsFor([method]) });
    assert.equal(ex.classes[0], record.predicted);
    const map = core.computeMaps(ex.tensors[0], { methods: [method], grid: metadata.architecture.grid, startLayer: 1 })[method];
    // A patch map upsampled; a pixel map (attnlrp, cp_lrp) is already at the input size.
    const big = map.shape[0] === H ? map.data : core.upsample(map.data, map.shape[0], map.shape[1], H, W);
    const order = Array.from(big.keys()).sort((a, b) => big[b] - big[a] || a - b);
    let bits = '';
    for (const fraction of [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]) {
      const removed = new Uint8Array(H * W);
      for (let i = 0; i < Math.floor(H * W * fraction); i++) removed[order[i]] = 1;
      const input = new Float32Array(3 * H * W);
      for (let c = 0; c < 3; c++) {
        for (let p = 0; p < H * W; p++) {
          const v = removed[p] ? 0 : pre.rgba[p * 4 + c] / 255;
          input[c * H * W + p] = (v - mean[c]) / std[c];
        }
      }
      const logits = await explainer.predictBatch(input, 1);
      let best = 0;
      for (let c = 1; c < logits.length; c++) if (logits[c] > logits[best]) best = c;
      bits += best === label ? '1' : '0';
    }
    assert.equal(record.curves[`${method}/pos/predicted`], bits);
    return record;
  } finally {
    await explainer.release();
    await rm(tmp, { recursive: true, force: true });
  }
}

test('eval perturbation: a record matches an independent recomputation', { skip, timeout: 300_000 }, async () => {
  await recomputeRecord('transformer_attribution', METHODS);
});

test('eval perturbation with attnlrp and cp_lrp: their pixel maps ranked as they are, a record recomputed', {
  skip: skip || (!(await deitMethodIds()).includes('attnlrp') && 'the built DeiT-tiny graph predates attnlrp (npm run build)'),
  timeout: 300_000,
}, async () => {
  const record = await recomputeRecord('attnlrp', ['attnlrp', 'cp_lrp']);
  for (const key of ['attnlrp/pos/predicted', 'attnlrp/neg/predicted', 'cp_lrp/pos/predicted', 'cp_lrp/neg/predicted']) {
    assert.match(record.curves[key], /^[01]{9}$/, key);
  }
});

test('eval perturbation: clear errors for a missing folder and a bad shard', { skip }, async () => {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'vitrel-eval-pert-'));
  try {
    const missing = await run(process.execPath, [cli, 'eval', 'perturbation', '--images', path.join(tmp, 'nope'), '--labels', synsets,
      '--model', deitModel, '--out', path.join(tmp, 'o')]).catch((e) => e);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /image folder .*nope does not exist/);
    const shard = await run(process.execPath, evalArgs(path.join(tmp, 'o'), { extra: ['--shard', '3/2'] })).catch((e) => e);
    assert.notEqual(shard.code, 0);
    assert.match(shard.stderr, /--shard 3\/2/);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
});

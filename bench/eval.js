#!/usr/bin/env node
// `npm run bench -- eval`: where the time of `vit-relevance explain` and of an evaluation
// goes, and the evaluation's two targets:
//   1. explain, per stage (decode, preprocess, graph, relevance, render, PNG encode) on a
//      photo, in onnxruntime-web (explain's default engine), median of rounds;
//   2. eval perturbation on a few labelled photos: throughput, and the share of the run
//      beyond the model's own forward passes (target ≤ 20 %);
//   3. the same photos as two shards merged vs one unsharded run: every summary and
//      report file compared byte for byte (target: identical).
// Env: VITREL_BENCH_EVAL_PHOTOS (default 4), VITREL_BENCH_ROUNDS (default 5),
// VITREL_BENCH_ENGINE (evaluation engine, default auto), VITREL_SHARED_DIR.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openExplainerFile } from '../runtime/node/open-explainer.js';
import { decodeImage } from '../runtime/node/image.js';
import { encodePng } from '../runtime/node/png.js';
import { loadEvalCore } from '../runtime/core-eval.js';
import { tokenLayout } from '../runtime/metadata.js';
import { loadDataset } from '../eval/node/dataset.js';
import { runPerturbation, describeTimings } from '../eval/node/perturbation-job.js';
import { mergeRuns } from '../eval/node/merge.js';
import { kind as perturbationKind } from '../eval/perturbation.js';
import { reportTarget } from './targets.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const shared = path.resolve(root, process.env.VITREL_SHARED_DIR ?? '../shared');
const model = path.join(root, 'build/models/deit_tiny_patch16_224.onnx');
const photos = Number(process.env.VITREL_BENCH_EVAL_PHOTOS ?? 4);
const rounds = Number(process.env.VITREL_BENCH_ROUNDS ?? 5);
const engine = process.env.VITREL_BENCH_ENGINE ?? 'auto';

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function explainStages(core) {
  const explainer = await openExplainerFile(model, { engine: 'web' });
  const { metadata } = explainer;
  const file = path.join(shared, 'images', 'catdog.png');
  const stages = { decode: [], preprocess: [], graph: [], relevance: [], render: [], 'PNG encode': [] };
  for (let r = 0; r <= rounds; r++) {
    const t = {};
    let t0 = performance.now();
    const photo = await decodeImage(file);
    t.decode = performance.now() - t0;
    t0 = performance.now();
    const pre = core.preprocess(photo.rgba, photo.width, photo.height, metadata);
    t.preprocess = performance.now() - t0;
    t0 = performance.now();
    const out = await explainer.explain(pre.data, [243]);
    t.graph = performance.now() - t0;
    t0 = performance.now();
    const maps = core.computeMaps(out.tensors[0], { methods: 'all', ...tokenLayout(metadata) });
    t.relevance = performance.now() - t0;
    t0 = performance.now();
    const overlays = Object.values(maps).map((map) => core.overlayOnPhoto(photo.rgba, photo.width, photo.height,
      core.normalize(map), map.shape[0], map.shape[1], pre.region, { colormap: 'jet', opacity: 0.5 }));
    t.render = performance.now() - t0;
    t0 = performance.now();
    for (const rgba of overlays) await encodePng(rgba, photo.width, photo.height);
    t['PNG encode'] = performance.now() - t0;
    if (r > 0) for (const k of Object.keys(stages)) stages[k].push(t[k]); // round 0 warms up
  }
  await explainer.release();
  console.log(`explain catdog.png --class 243 --method all (onnxruntime-web, ${rounds} rounds, medians; 10 overlays):`);
  const total = Object.values(stages).reduce((sum, xs) => sum + median(xs), 0);
  for (const [name, xs] of Object.entries(stages)) {
    console.log(`  ${name.padEnd(12)} ${median(xs).toFixed(1).padStart(8)} ms  ${((100 * median(xs)) / total).toFixed(1).padStart(5)} %`);
  }
}

async function sameFiles(a, b) {
  const names = (await readdir(a)).filter((f) => f !== 'run.json').sort();
  const differing = [];
  for (const f of names) {
    const [x, y] = await Promise.all([readFile(path.join(a, f)), readFile(path.join(b, f)).catch(() => null)]);
    if (!y || !x.equals(y)) differing.push(f);
  }
  return { names, differing };
}

async function evaluation(core) {
  const samples = path.join(shared, 'imagenet', 'samples');
  const explainer = await openExplainerFile(model, { engine, requireForward: true });
  const { items } = await loadDataset({ images: samples, labels: path.join(shared, 'imagenet', 'synset_words.txt'), metadata: explainer.metadata });
  const chosen = items.slice(0, photos);
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'vitrel-bench-eval-'));
  try {
    const job = { explainer, core, modelFile: model, methods: core.explainerMethodIds, startLayer: 1, items: chosen, progress: false };
    const whole = await runPerturbation({ ...job, outDir: path.join(tmp, 'whole') });
    const t = whole.timings;
    const overhead = (t.wallMs - t.forwardMs) / t.wallMs;
    console.log(`\neval perturbation, ${photos} photos, all ${core.explainerMethodIds.length} methods, engine ${explainer.engine}:`);
    console.log(`  ${describeTimings(t)}`);
    console.log(`  throughput ${(t.photos / (t.wallMs / 1000)).toFixed(3)} photos/s, ${(t.forwards / (t.wallMs / 1000)).toFixed(1)} forward passes/s`);
    reportTarget('eval.overhead', { bench: 'eval', label: 'eval perturbation: time beyond the forward passes, share of the run',
      value: overhead * 100, limit: 20, unit: '%' });

    for (const i of [1, 2]) await runPerturbation({ ...job, shard: { index: i, count: 2 }, outDir: path.join(tmp, `shard${i}`) });
    await mergeRuns({ dirs: [1, 2].map((i) => path.join(tmp, `shard${i}`)), outDir: path.join(tmp, 'merged'), kind: perturbationKind });
    const { names, differing } = await sameFiles(path.join(tmp, 'whole'), path.join(tmp, 'merged'));
    console.log(`  2 shards merged vs unsharded: ${differing.length ? `DIFFER in ${differing.join(', ')}  MISSED` : `bit-identical (${names.join(', ')})`}`);
  } finally {
    await explainer.release();
    await rm(tmp, { recursive: true, force: true });
  }
}

async function main() {
  if (!existsSync(model)) {
    console.log('bench eval: skipped: build/models is not built (npm run build)');
    return;
  }
  const core = await loadEvalCore();
  await explainStages(core);
  await evaluation(core);
}

main().catch((err) => {
  console.error(`bench eval: ${err.stack ?? err}`);
  process.exit(1);
});

#!/usr/bin/env node
// `npm run bench -- attribute`: the whole Self-Attention Attribution of DeiT-tiny (every
// block, m = 20, runtime/attribution.js in onnxruntime-web in Node) beside one plain
// forward in the same process and run, and its matrix-product work (counted from
// onnxruntime's profile of each graph) against the algorithm's minimum
//   Σ_b (forward of blocks < b once + m × (forward and backward of blocks ≥ b)),
// forward and backward of a block counted as their products with full S rows (backward:
// input gradients only; the attention's backward is four S×S×d products per head).
// Targets (issue 15): MACs ≤ 1.15× the minimum; time per MAC within 1.25× of the plain
// forward's; the whole attribution ≤ 450× one plain forward. Then the same attribution in
// the page's Attribution panel (bench/attribute-page.js): its time and the page's peak
// memory (target ≤ 1 GB). Then the pruning evaluation's throughput: `eval prune-heads`
// (same engine and threads) on the first VITREL_BENCH_PRUNE_PHOTOS ImageNet samples
// (default 8), ranking on 2 of them.
// Env: VITREL_BENCH_MODEL, VITREL_BENCH_THREADS (default: available cores),
// VITREL_BENCH_STEPS (default 20), VITREL_BENCH_FORWARDS (plain forwards timed, default 9).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { forwardPathFor, readMetadata, metadataPathFor, ort } from '../runtime/node/open-explainer.js';
import { attributionPaths, openAttributionFiles } from '../runtime/node/open-attribution.js';
import { readNpyFile } from '../runtime/node/npy-file.js';
import { DEFAULT_STEPS_PER_RUN } from '../runtime/attribution.js';
import { profiledAttributionWork, profiledMatmulWork } from './matmul-work.js';
import { pageAttributionBench } from './attribute-page.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const shared = path.resolve(root, process.env.VITREL_SHARED_DIR ?? '../shared');
const model = path.resolve(root, process.env.VITREL_BENCH_MODEL ?? 'build/models/deit_tiny_patch16_224.onnx');
const threads = Number(process.env.VITREL_BENCH_THREADS ?? (os.availableParallelism?.() ?? os.cpus().length));
const steps = Number(process.env.VITREL_BENCH_STEPS ?? 20);
const forwards = Number(process.env.VITREL_BENCH_FORWARDS ?? 9);
const prunePhotos = Number(process.env.VITREL_BENCH_PRUNE_PHOTOS ?? 8);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

// Products of one block with S rows: forward, and backward to the block's input.
function blockMacs({ tokens: S, embed_dim: D, heads: h, mlp_ratio: r = 4 }) {
  const linear = S * D * D * (3 + 1 + 2 * r);
  const attention = h * S * S * (D / h);
  return { forward: linear + 2 * attention, backward: linear + 4 * attention };
}

async function main() {
  const metadata = await readMetadata(metadataPathFor(model), model);
  const arch = metadata.architecture;
  const files = attributionPaths(model, arch.blocks);
  if (!existsSync(files.states) || !existsSync(forwardPathFor(model))) {
    console.log(`bench attribute: skipped: the attribution graphs of ${path.relative(root, model)} are not built (npm run build)`);
    return;
  }
  const [H, W] = arch.image_size;
  const golden = path.join(shared, 'reference', 'golden', 'catdog-input.npy');
  const pixels = existsSync(golden) && H === 224 && W === 224
    ? (await readNpyFile(golden)).data
    : Float32Array.from({ length: 3 * H * W }, (_, i) => Math.sin(i) * 0.5);

  const attribution = await openAttributionFiles(model, metadata, { threads });
  const forward = await ort.InferenceSession.create(readFileSync(forwardPathFor(model)));
  const feeds = { pixels: new ort.Tensor('float32', pixels, [1, 3, H, W]) };
  const timeForwards = async () => {
    const ms = [];
    for (let i = 0; i < forwards; i++) {
      const t0 = performance.now();
      await forward.run(feeds);
      ms.push(performance.now() - t0);
    }
    return ms;
  };
  const blocks = Array.from({ length: arch.blocks }, (_, b) => b);
  await forward.run(feeds); // warm-up
  // warm-up: every session opens and allocates once (one copy per block)
  const warm = await attribution.hiddenStates(pixels);
  for (const b of blocks) await attribution.attributeBlock(warm.hidden, b, 243, { steps: 1 });

  const before = await timeForwards();
  const t0 = performance.now();
  const { hidden } = await attribution.hiddenStates(pixels);
  const perBlockMs = [];
  for (const b of blocks) {
    const t = performance.now();
    await attribution.attributeBlock(hidden, b, 243 % arch.num_classes, { steps });
    perBlockMs.push(performance.now() - t);
  }
  const wholeMs = performance.now() - t0;
  const after = await timeForwards();
  const forwardMs = median([...before, ...after]);
  await attribution.release();
  await forward.release();

  console.log(`onnxruntime-web in Node ${process.versions.node}, ${threads} thread(s), model ${path.relative(root, model)}, `
    + `m = ${steps} (${DEFAULT_STEPS_PER_RUN} copies per run), ${arch.blocks} blocks`);
  console.log(`  plain forward: ${forwardMs.toFixed(1)} ms (median of ${2 * forwards}, before and after)`);
  console.log(`  whole attribution: ${(wholeMs / 1000).toFixed(2)} s = ${(wholeMs / forwardMs).toFixed(0)}× the plain forward `
    + '(target ≤ 450×)');
  console.log(`  per block (s): ${perBlockMs.map((ms) => (ms / 1000).toFixed(2)).join(' ')}`);

  // Matrix-product work of exactly what ran: the states graph once, each block's graph
  // in runs of at most DEFAULT_STEPS_PER_RUN copies.
  const shape = { imageSize: [H, W], tokens: arch.tokens, dim: arch.embed_dim, classes: arch.num_classes, threads };
  const forwardWork = profiledMatmulWork(forwardPathFor(model), { imageSize: [H, W], classes: arch.num_classes, threads });
  let macs = profiledAttributionWork(files.states, files.weights, shape).macs;
  const runs = [];
  for (let left = steps; left > 0; left -= DEFAULT_STEPS_PER_RUN) runs.push(Math.min(left, DEFAULT_STEPS_PER_RUN));
  const byCopies = new Map();
  for (const b of blocks) {
    for (const copies of runs) {
      const key = `${b}:${copies}`;
      if (!byCopies.has(key)) byCopies.set(key, profiledAttributionWork(files.blocks[b], files.weights, { ...shape, copies }).macs);
      macs += byCopies.get(key);
    }
  }
  const { forward: F, backward: Bk } = blockMacs(arch);
  let minimum = 0;
  for (const b of blocks) minimum += b * F + steps * (arch.blocks - b) * (F + Bk);
  const g = (v) => `${(v / 1e9).toFixed(2)} GMAC`;
  console.log(`  products: attribution ${g(macs)}, algorithm's minimum ${g(minimum)} `
    + `(block: forward ${(F / 1e6).toFixed(1)} M, backward ${(Bk / 1e6).toFixed(1)} M MACs) → `
    + `${(macs / minimum).toFixed(3)}× (target ≤ 1.15×); plain forward ${g(forwardWork.macs)}`);
  const perMacAttr = wholeMs / macs;
  const perMacForward = forwardMs / forwardWork.macs;
  console.log(`  time per GMAC: attribution ${(perMacAttr * 1e9).toFixed(1)} ms, plain forward ${(perMacForward * 1e9).toFixed(1)} ms `
    + `→ ${(perMacAttr / perMacForward).toFixed(2)}× (target ≤ 1.25×)`);
  await pageAttributionBench({ steps });
}

// Photos per second of both phases of `eval prune-heads`, as the command reports them.
function benchPruneHeads() {
  const samples = path.join(shared, 'imagenet', 'samples');
  if (!existsSync(samples)) return console.log(`  prune-heads: skipped (no photos in ${samples})`);
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'vitrel-bench-prune-'));
  try {
    const images = path.join(tmp, 'images');
    mkdirSync(images);
    for (const name of readdirSync(samples).sort().slice(0, prunePhotos)) symlinkSync(path.join(samples, name), path.join(images, name));
    const r = spawnSync(process.execPath, [path.join(root, 'cli', 'vit-relevance.js'), 'eval', 'prune-heads', '--images', images,
      '--labels', path.join(shared, 'imagenet', 'synset_words.txt'), '--model', model, '--rank-images', '2', '--steps', String(steps),
      '--engine', 'web', '--threads', String(threads), '--quiet', '--out', path.join(tmp, 'run')], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`eval prune-heads failed:\n${r.stderr}`);
    console.log(`  prune-heads (${prunePhotos} photos, 2 ranking): ${r.stdout.split('\n').find((l) => l.startsWith('ranked '))}`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().then(benchPruneHeads).catch((err) => {
  console.error(err);
  process.exit(1);
});

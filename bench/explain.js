#!/usr/bin/env node
// `npm run bench -- explain`: what an explanation costs next to a plain forward pass, all in
// onnxruntime-web (the page's engine) in Node, one thread count, one process. Variants run
// interleaved round by round so machine noise hits them alike; medians are printed with the
// two target ratios:
//   full explanation (graph K=1 + every method in the WASM core) / plain forward   (≤ 5)
//   K=5 targets in one run / five runs of K=1                                      (≤ 0.8)
// Also: a logits-only fetch of the explainer graph (shows whether onnxruntime-web skips
// nodes a fetch does not need), and the explanation without lrp_full (pixel_relevance = 0,
// what the page runs until lrp_full is asked for). Beside transformer attribution alone,
// attnlrp and cp_lrp alone (when the graph has them), each a ratio of the forward pass
// (targets ≤ 5 and ≤ 4). Last, the matrix-product work of each graph, counted from
// onnxruntime's profile: what the time ratios can be measured against, and attnlrp's and
// cp_lrp's products against their rules' minimum (one forward + one modified backward).
// With the method family graphs beside the model (models/exporter/families.py, what the
// page runs for a photo's first map), each method alone through its family's graph too,
// and that graph's products beyond the plain forward's against the same minimum.
// Env: VITREL_BENCH_MODEL (explainer .onnx; default build/models/deit_tiny_patch16_224.onnx),
// VITREL_BENCH_THREADS (default: available cores), VITREL_BENCH_ROUNDS (default 7).
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openExplainerFile, forwardPathFor, ort } from '../runtime/node/open-explainer.js';
import { readNpyFile } from '../runtime/node/npy-file.js';
import { loadCore } from '../runtime/core.js';
import { openExplainer } from '../runtime/explainer.js';
import { modifiedBackwardMacs, profiledMatmulWork } from './matmul-work.js';
import { graphMethodIds, OPTIONAL_OUTPUTS, tokenLayout } from '../runtime/metadata.js';
import { reportTarget } from './targets.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const shared = path.resolve(root, process.env.VITREL_SHARED_DIR ?? '../shared');
const model = path.resolve(root, process.env.VITREL_BENCH_MODEL ?? 'build/models/deit_tiny_patch16_224.onnx');
const forwardModel = forwardPathFor(model);
const threads = Number(process.env.VITREL_BENCH_THREADS ?? (os.availableParallelism?.() ?? os.cpus().length));
const rounds = Number(process.env.VITREL_BENCH_ROUNDS ?? 7);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (v) => `${v.toFixed(1)} ms`;

async function timed(fn) {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function main() {
  if (!existsSync(model)) {
    console.log(`bench explain: skipped: ${path.relative(root, model)} is not built (npm run build)`);
    return;
  }
  // With the forward graph beside it, explainer.predict() is the page's plain forward pass.
  const explainer = await openExplainerFile(model, { threads, withForward: true });
  const { metadata } = explainer;
  const [H, W] = metadata.architecture.image_size;
  const C = metadata.architecture.num_classes;
  const core = await loadCore();

  const golden = path.join(shared, 'reference', 'golden', 'catdog-input.npy');
  const pixels = existsSync(golden) && H === 224 && W === 224
    ? (await readNpyFile(golden)).data
    : Float32Array.from({ length: 3 * H * W }, (_, i) => Math.sin(i) * 0.5);
  // Any five distinct classes cost the same; these are catdog's interesting ones.
  const five = [243, 282, 281, 285, 0].map((c) => c % C);

  const forward = explainer.hasForward;
  if (!forward) console.log(`(no ${path.basename(forwardModel)}: plain forward measured by the logits-only fetch only)`);
  // The explainer session itself, logits only (bypasses predict(), which uses the forward
  // graph), every switch it has at 0.
  const logitsFeeds = {
    pixels: new ort.Tensor('float32', pixels, [1, 3, H, W]),
    target: new ort.Tensor('float32', new Float32Array(C), [1, C]),
    pixel_relevance: new ort.Tensor('float32', new Float32Array([0]), []),
  };
  for (const { input } of Object.values(OPTIONAL_OUTPUTS)) {
    if (explainer.session.inputNames.includes(input)) logitsFeeds[input] = new ort.Tensor('float32', new Float32Array([0]), []);
  }
  const layout = tokenLayout(metadata);
  const withoutLrpFull = core.explainerMethodIds.filter((m) => m !== 'lrp_full' && !isOptional(m));
  // One method's explanation: the graph run fetching what it reads, then its map.
  const alone = (m) => async () => {
    const out = await explainer.explain(pixels, [five[0]], { outputs: core.outputsFor([m]) });
    core.computeMaps(out.tensors[0], { methods: [m], ...layout });
  };
  const lrp = LRP_TARGETS.filter(([m]) => graphMethodIds(core, metadata).includes(m));
  if (lrp.length < LRP_TARGETS.length) console.log('(the graph predates attnlrp and cp_lrp: re-export it with npm run build to measure them)');
  const families = await openFamilies(metadata);
  const familyGraphOf = {}; // method → the graph its request ran
  const familyAlone = (m) => async () => {
    const out = await families.ex.explain(pixels, [five[0]], { outputs: core.outputsFor([m]) });
    familyGraphOf[m] = out.graph;
    core.computeMaps(out.tensors[0], { methods: [m], ...layout });
  };
  const familyMethods = families ? ['transformer_attribution', ...lrp.map(([m]) => m)] : [];

  const variants = {
    'plain forward (.forward.onnx)': forward && (() => explainer.predict(pixels)),
    'explainer, logits-only fetch': () => explainer.session.run(logitsFeeds, ['logits']),
    'explainer K=1, all outputs': () => explainer.explain(pixels, [five[0]]),
    'full explanation (K=1 + all methods)': async () => {
      const out = await explainer.explain(pixels, [five[0]]);
      core.computeMaps(out.tensors[0], { methods: 'all', ...layout });
    },
    'transformer_attribution alone': alone('transformer_attribution'),
    ...Object.fromEntries(lrp.map(([m]) => [`${m} alone`, alone(m)])),
    ...Object.fromEntries(familyMethods.map((m) => [`${m} alone, its family graph`, familyAlone(m)])),
    'explanation without lrp_full (9 methods)': async () => {
      const out = await explainer.explain(pixels, [five[0]], { outputs: core.outputsFor(withoutLrpFull) });
      core.computeMaps(out.tensors[0], { methods: withoutLrpFull, ...layout });
    },
    'explainer K=5, one run': () => explainer.explain(pixels, five),
    'explainer K=1, five runs': async () => { for (const c of five) await explainer.explain(pixels, [c]); },
  };
  const active = Object.entries(variants).filter(([, fn]) => fn);
  const times = Object.fromEntries(active.map(([name]) => [name, []]));
  for (const [, fn] of active) await fn(); // warm-up: first runs allocate
  for (let r = 0; r < rounds; r++) {
    for (const [name, fn] of active) times[name].push(await timed(fn));
  }

  console.log(`onnxruntime-web ${ort.env.versions?.web ?? ''} in Node ${process.versions.node}, ${threads} thread(s), `
    + `${rounds} rounds, model ${path.relative(root, model)}`);
  const med = {};
  for (const [name] of active) {
    med[name] = median(times[name]);
    console.log(`  ${name.padEnd(40)} median ${fmt(med[name]).padStart(10)}   (min ${fmt(Math.min(...times[name]))})`);
  }
  const plain = med['plain forward (.forward.onnx)'] ?? med['explainer, logits-only fetch'];
  const plainName = forward ? 'plain forward' : 'logits-only fetch';
  const ratio1 = med['full explanation (K=1 + all methods)'] / plain;
  const ratio1b = med['explanation without lrp_full (9 methods)'] / plain;
  const ratio2 = med['explainer K=5, one run'] / med['explainer K=1, five runs'];
  reportTarget('explain.all-methods', { bench: 'explain', label: `Node: explanation with every method / ${plainName}`, value: ratio1, limit: 5 });
  console.log(`explanation without lrp_full / ${plainName} = ${ratio1b.toFixed(2)}`);
  console.log(`transformer_attribution alone / ${plainName} = ${(med['transformer_attribution alone'] / plain).toFixed(2)}`);
  for (const [m, target] of lrp) {
    const ratio = med[`${m} alone`] / plain;
    reportTarget(`explain.alone.${m}`, { bench: 'explain', label: `Node: \`${m}\` alone / ${plainName}`, value: ratio, limit: target });
  }
  for (const m of familyMethods) {
    const ratio = med[`${m} alone, its family graph`] / plain;
    const target = lrp.find(([l]) => l === m)?.[1];
    console.log(`${m} alone through ${familyGraphOf[m]} / ${plainName} = ${ratio.toFixed(2)}`
      + (target ? ` (target ≤ ${target})${ratio <= target ? '' : '  MISSED'}` : ''));
  }
  reportTarget('explain.batch', { bench: 'explain', label: 'Node: five classes in one run / five runs of one class', value: ratio2, limit: 0.8 });
  if (forward) {
    const skip = med['explainer, logits-only fetch'] / plain;
    console.log(`logits-only fetch of the explainer / plain forward = ${skip.toFixed(2)} `
      + '(≈1: onnxruntime-web prunes nodes the fetch does not need; ≫1: it runs the whole graph)');
    printProductWork(med, { imageSize: [H, W], classes: C, threads });
    printLrpWork(lrp.map(([m]) => m), metadata.architecture, { imageSize: [H, W], classes: C, threads });
    if (families) printFamilyWork(lrp.map(([m]) => m), metadata.architecture, { imageSize: [H, W], classes: C, threads }, families, familyGraphOf);
  }
  await explainer.release();
  await families?.ex.release();
}

// The method family graphs of the model, from the index beside it, opened as the page
// opens them (weights in the split graphs' shared file) → { ex, split, dir }, or null.
async function openFamilies(metadata) {
  const dir = path.dirname(model);
  const indexFile = path.join(dir, 'index.json');
  const split = existsSync(indexFile)
    ? JSON.parse(readFileSync(indexFile, 'utf8')).models.find((m) => m.name === metadata.name)?.split : null;
  if (!split?.families) {
    console.log('(no method family graphs beside the model: npm run build exports them)');
    return null;
  }
  const read = (f) => readFileSync(path.join(dir, f));
  const ex = await openExplainer({
    ort,
    model: read(split.graph),
    metadata,
    modelName: split.graph,
    families: Object.values(split.families).map((name) => ({ name, bytes: read(name) })),
    sessionOptions: { externalData: [{ path: split.weights, data: read(split.weights) }] },
  });
  return { ex, split, dir };
}

// AttnLRP's and CP-LRP's products as the page runs them, through their family's graph: all
// of them against the rules' minimum, the plain forward's plus printLrpWork's minimum (below
// 1 is possible: the graph's forward runs the last block on the head's rows alone).
function printFamilyWork(methods, arch, shape, { split, dir }, graphOf) {
  const g = (macs) => `${(macs / 1e9).toFixed(2)} GMAC`;
  const forward = profiledMatmulWork(forwardModel, shape).macs;
  for (const m of methods) {
    const minimum = modifiedBackwardMacs(arch, m);
    const input = Object.values(OPTIONAL_OUTPUTS).find((o) => o.method === m).input;
    const all = profiledMatmulWork(path.join(dir, graphOf[m]), {
      ...shape, pixelRelevance: 0, switches: [input], weights: path.join(dir, split.weights),
    }).macs;
    const ratio = all / (forward + minimum);
    console.log(`  ${m} through ${graphOf[m]}: ${g(all)}, ${ratio.toFixed(4)}× the plain forward's ${g(forward)} + the `
      + `${g(minimum)} its modified backward needs at least (target ≤ 1.1)${ratio <= 1.1 ? '' : '  MISSED'}`);
  }
}

// attnlrp, cp_lrp: the methods read from an optional output, with their targets (issue 28:
// photo → first map ≤ 5× / ≤ 4× the forward pass).
const LRP_TARGETS = [['attnlrp', 5], ['cp_lrp', 4]];
const optionalMethods = Object.values(OPTIONAL_OUTPUTS).map((o) => o.method);
function isOptional(m) {
  return optionalMethods.includes(m);
}

// AttnLRP's and CP-LRP's products: what each switch adds to the graph's run (the rest of
// the explainer graph, the other methods' passes, is not theirs) against the fewest its
// modified backward needs (bench/matmul-work.js, modifiedBackwardMacs: input gradients
// only, on the rows that carry gradient); both sides count the same forward, so the ratio
// is of the backward passes alone.
function printLrpWork(methods, arch, shape) {
  if (!methods.length) return;
  const g = (macs) => `${(macs / 1e9).toFixed(2)} GMAC`;
  const off = profiledMatmulWork(model, { ...shape, pixelRelevance: 0 }).macs;
  for (const m of methods) {
    const minimum = modifiedBackwardMacs(arch, m);
    const input = Object.values(OPTIONAL_OUTPUTS).find((o) => o.method === m).input;
    const added = profiledMatmulWork(model, { ...shape, pixelRelevance: 0, switches: [input] }).macs - off;
    const ratio = added / minimum;
    console.log(`  ${m}: its switch adds ${g(added)}, ${ratio.toFixed(4)}× the ${g(minimum)} its modified backward `
      + `needs at least (target ≤ 1.1)${ratio <= 1.1 ? '' : '  MISSED'}`);
  }
}

// The graphs' multiply-accumulates set beside their times: the explanation's products are
// fixed by the exact rules (per Linear layer: the forward, two denominators, the gradient,
// two proposed and two classic LRP products), so MACs / forward MACs is what the time
// ratio comes down to when both graphs run their products equally fast.
function printProductWork(med, shape) {
  const g = (macs) => `${(macs / 1e9).toFixed(2)} GMAC`;
  const perGmac = (ms, macs) => ms / (macs / 1e9);
  const forward = profiledMatmulWork(forwardModel, shape).macs;
  const full = profiledMatmulWork(model, { ...shape, pixelRelevance: 1 }).macs;
  const partial = profiledMatmulWork(model, { ...shape, pixelRelevance: 0 }).macs;
  const plainMs = med['plain forward (.forward.onnx)'];
  const fullMs = med['full explanation (K=1 + all methods)'];
  console.log('matrix products of one run (multiply-accumulates counted from onnxruntime\'s profile):');
  console.log(`  plain forward ${g(forward)}; full explanation ${g(full)} = ${(full / forward).toFixed(2)}× the forward's; `
    + `without lrp_full ${g(partial)} = ${(partial / forward).toFixed(2)}×`);
  const ms = (v) => `${v.toFixed(1)} ms/GMAC`;
  const needed = perGmac(5 * plainMs, full);
  console.log(`  time per GMAC of products: plain forward ${ms(perGmac(plainMs, forward))}, `
    + `full explanation ${ms(perGmac(fullMs, full))}; ≤ 5× needs ${ms(needed)}, `
    + `${(perGmac(plainMs, forward) / needed).toFixed(2)}× the forward's own speed per MAC`);
}

main().catch((err) => {
  console.error(`bench explain: ${err.stack ?? err}`);
  process.exit(1);
});

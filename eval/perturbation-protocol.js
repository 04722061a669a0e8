// @ts-check
// The perturbation test of one photo (METHODS.md, "Evaluation protocols"; the official
// generate_visualizations.py + pertubation_eval_from_hdf5.py):
//   1. preprocess the photo with the model's own preprocessing; one explainer run gives
//      the logits and the maps of the predicted class and of the labelled class (attattr:
//      the attribution graphs, for each of the two classes);
//   2. for every method and both explained classes, upsample the map to the input size,
//      rank its pixels, and for k = 10 … 90 % black out the top-ranked k % of the
//      un-normalised input ("pos": most relevant first; "neg": least relevant first);
//   3. classify every perturbed input with the plain forward graph, in batches, and note
//      whether the top-1 class is still the label.
// Environment-neutral: the caller decodes the photo and owns the explainer and core.
import { inputSizeMap } from './input-size-maps.js';
import { mapOptions } from '../runtime/metadata.js';
import { attributionMaps, attributionMethodsOf } from '../runtime/attribution-maps.js';

export const FRACTIONS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
export const ORDERS = { pos: 'most_relevant_first', neg: 'least_relevant_first' };
export const VARIANTS = ['predicted', 'target'];

export function curveKey(method, order, variant) {
  return `${method}/${order}/${variant}`;
}

function argmaxRow(logits, row, C) {
  let best = 0;
  const base = row * C;
  for (let c = 1; c < C; c++) if (logits[base + c] > logits[base + best]) best = c;
  return best;
}

function sameValues(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// The maps each (method, variant) is ranked by. Maps identical for both classes (the
// class-agnostic methods, or a correct prediction) are perturbed once and share a result.
function rankedMaps(core, perVariantMaps, methods, H, W) {
  const jobs = [];
  for (const method of methods) {
    const [predicted, target] = VARIANTS.map((v) => perVariantMaps[v][method]);
    const shared = predicted === target || sameValues(predicted.data, target.data);
    jobs.push({ method, variants: shared ? VARIANTS : ['predicted'], map: inputSizeMap(core, predicted, H, W) });
    if (!shared) jobs.push({ method, variants: ['target'], map: inputSizeMap(core, target, H, W) });
  }
  return jobs;
}

// options: { methods, startLayer, fractions, grid, specialTokens }; attribution: the opened
// attribution graphs when methods include attattr. Returns the record
// { label, predicted, correct, curves: { "<method>/<pos|neg>/<variant>": "0110…" } } (one
// character per fraction: 1 = still classified as the label) and per-stage timings.
export async function perturbPhoto({ explainer, attribution = null, core, pre, label, options, timings }) {
  const { metadata } = explainer;
  const [H, W] = metadata.architecture.image_size;
  const C = metadata.labels.length;
  const { mean, std } = metadata.preprocess;
  const { methods, startLayer, fractions = FRACTIONS } = options;
  const clock = () => performance.now();

  const attrMethods = attributionMethodsOf(core, methods);
  const explainerMethods = methods.filter((m) => !attrMethods.includes(m));
  let t0 = clock();
  const out = await explainer.explain(pre.data, [null, label], { outputs: core.outputsFor(explainerMethods) });
  timings.explainMs += clock() - t0;
  const predicted = out.classes[0];

  t0 = clock();
  const coreOptions = mapOptions(metadata, explainerMethods, startLayer);
  const mapsOf = (k) => (explainerMethods.length ? core.computeMaps(out.tensors[k], coreOptions) : {});
  const predictedMaps = mapsOf(0);
  const perVariantMaps = { predicted: predictedMaps, target: predicted === label ? predictedMaps : mapsOf(1) };
  if (attrMethods.length) {
    const [p, t] = await attributionMaps({ attribution, core, metadata, pixels: pre.data, classes: [predicted, label], methods: attrMethods, startLayer });
    perVariantMaps.predicted = { ...perVariantMaps.predicted, ...p };
    perVariantMaps.target = { ...perVariantMaps.target, ...t };
  }
  const jobs = rankedMaps(core, perVariantMaps, methods, H, W);
  timings.mapsMs += clock() - t0;

  // One forward batch per job: its pos and neg inputs.
  const curves = {};
  const orders = Object.keys(ORDERS);
  const n = orders.length * fractions.length;
  for (const job of jobs) {
    t0 = clock();
    const batch = new Float32Array(n * 3 * H * W);
    orders.forEach((order, o) => {
      const inputs = core.perturbedInputs(pre.rgba, W, H, job.map, { fractions, order: ORDERS[order], mean, std });
      batch.set(inputs, o * inputs.length);
    });
    timings.perturbMs += clock() - t0;

    t0 = clock();
    const logits = await explainer.predictBatch(batch, n);
    timings.forwardMs += clock() - t0;
    timings.forwards += n;

    orders.forEach((order, o) => {
      let bits = '';
      for (let f = 0; f < fractions.length; f++) bits += argmaxRow(logits, o * fractions.length + f, C) === label ? '1' : '0';
      for (const variant of job.variants) curves[curveKey(job.method, order, variant)] = bits;
    });
  }
  return { label, predicted, correct: predicted === label ? 1 : 0, curves };
}

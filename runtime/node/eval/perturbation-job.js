// Node-only: the perturbation evaluation of a folder of photos, as `vit-relevance eval
// perturbation` and the benchmark run it: settings, the per-photo step (decode,
// preprocess, runtime/eval/perturbation-protocol.js) and where the time went.
import { decodeImage } from '../image.js';
import { modelSettings } from './model-settings.js';
import { runEvaluation } from './run.js';
import { EvalError } from './errors.js';
import { kind } from '../../eval/perturbation.js';
import { perturbPhoto, FRACTIONS } from '../../eval/perturbation-protocol.js';

export function newTimings() {
  return { decodeMs: 0, preprocessMs: 0, explainMs: 0, mapsMs: 0, perturbMs: 0, forwardMs: 0, forwards: 0, photos: 0, wallMs: 0 };
}

// Everything that must match for records to be combined (resume, merge).
export async function perturbationSettings({ explainer, modelFile, methods, startLayer }) {
  return {
    ...await modelSettings({ explainer, modelFile, methods, startLayer }),
    fractions: FRACTIONS,
    preprocess: explainer.metadata.preprocess,
  };
}

// → runEvaluation's result plus { timings } of the photos processed in this call.
export async function runPerturbation({ explainer, core, modelFile, methods, startLayer, items, shard, limit, outDir, progress }) {
  const { metadata } = explainer;
  const settings = await perturbationSettings({ explainer, modelFile, methods, startLayer });
  const timings = newTimings();
  const processItem = async (item) => {
    let t0 = performance.now();
    let photo;
    try {
      photo = await decodeImage(item.file);
    } catch (err) {
      throw new EvalError(`${item.name}: ${err.message} (remove it from the folder and rerun to resume)`);
    }
    timings.decodeMs += performance.now() - t0;
    t0 = performance.now();
    const pre = core.preprocess(photo.rgba, photo.width, photo.height, metadata);
    timings.preprocessMs += performance.now() - t0;
    const record = await perturbPhoto({ explainer, core, pre, label: item.label, options: { methods, startLayer }, timings });
    timings.photos++;
    return record;
  };
  const started = performance.now();
  const result = await runEvaluation({ kind, items, settings, outDir, processItem, shard, limit, progress });
  timings.wallMs = performance.now() - started;
  return { ...result, timings };
}

// One line: throughput, and the share of the run beyond the forward passes.
export function describeTimings(t) {
  if (!t.photos) return 'no photo evaluated in this run (all were done: resumed)';
  const s = (ms) => `${(ms / 1000).toFixed(1)} s`;
  const share = (ms) => `${((100 * ms) / t.wallMs).toFixed(1)} %`;
  return `${t.photos} photo(s) in ${s(t.wallMs)} (${(t.photos / (t.wallMs / 1000)).toFixed(2)} photos/s): `
    + `${t.forwards} forward passes ${s(t.forwardMs)} (${share(t.forwardMs)}, ${(t.forwardMs / Math.max(1, t.forwards)).toFixed(1)} ms each), `
    + `explainer ${s(t.explainMs)}, decode+preprocess ${s(t.decodeMs + t.preprocessMs)}, maps ${s(t.mapsMs)}, `
    + `perturbation ${s(t.perturbMs)}; overhead beyond the forward passes ${share(t.wallMs - t.forwardMs)}`;
}

// Node-only: the perturbation evaluation of a folder of labelled photos as a job for
// cli/eval-command.js (and the benchmark): its items, settings, the per-photo step
// (decode, preprocess, eval/perturbation-protocol.js) and where the time went.
import { decodePhoto, preprocessPhoto } from './photo.js';
import { labelledItems } from './dataset.js';
import { modelSettings } from './model-settings.js';
import { runEvaluation } from './run.js';
import { kind } from '../perturbation.js';
import { perturbPhoto, FRACTIONS } from '../perturbation-protocol.js';

function newTimings() {
  return { decodeMs: 0, preprocessMs: 0, explainMs: 0, mapsMs: 0, perturbMs: 0, forwardMs: 0, forwards: 0, photos: 0, wallMs: 0 };
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

export const perturbationJob = {
  kind,
  takesAttribution: true,
  unit: 'photo',
  requireForward: true,

  items: ({ opts, metadata }) => labelledItems(opts, metadata),

  // Everything that must match for records to be combined (resume, merge), the step per
  // photo, and the line saying where this call's time went.
  async prepare({ explainer, attribution, core, modelFile, methods, startLayer }) {
    const { metadata } = explainer;
    const settings = {
      ...await modelSettings({ explainer, modelFile, methods, startLayer, attribution }),
      fractions: FRACTIONS,
      preprocess: metadata.preprocess,
    };
    const timings = newTimings();
    const started = performance.now();
    const processItem = async (item) => {
      let t0 = performance.now();
      const photo = await decodePhoto(item.file, item.name);
      timings.decodeMs += performance.now() - t0;
      t0 = performance.now();
      const pre = preprocessPhoto(core, photo, metadata, item.name);
      timings.preprocessMs += performance.now() - t0;
      const record = await perturbPhoto({ explainer, attribution, core, pre, label: item.label, options: { methods, startLayer }, timings });
      timings.photos++;
      return record;
    };
    const describe = () => describeTimings({ ...timings, wallMs: performance.now() - started });
    return { settings, processItem, timings, describe };
  },

  summaryLines(s, methods) {
    return [
      `top-1 ${(s.top1 * 100).toFixed(2)} %; AUC (pos ↓ / neg ↑, predicted class):`,
      ...methods.map((m) => `  ${m.padEnd(26)} ${s.auc[`${m}/pos/predicted`].toFixed(2).padStart(6)} / ${s.auc[`${m}/neg/predicted`].toFixed(2).padStart(6)}`),
    ];
  },
};

// The benchmark's entry: runEvaluation's result plus { timings } of the photos processed.
export async function runPerturbation({ explainer, core, modelFile, methods, startLayer, items, shard, limit, outDir, progress }) {
  const { settings, processItem, timings } = await perturbationJob.prepare({ explainer, core, modelFile, methods, startLayer });
  const started = performance.now();
  const result = await runEvaluation({ kind, items, settings, outDir, processItem, shard, limit, progress });
  timings.wallMs = performance.now() - started;
  return { ...result, timings };
}

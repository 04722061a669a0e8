// `vit-relevance eval perturbation`: the paper's positive/negative perturbation test
// (runtime/eval/perturbation-protocol.js) over a folder of labelled photos, resumable and
// shardable (runtime/node/eval/run.js). Prints where the time went: the evaluation's own
// overhead is everything beyond the forward passes of the perturbed photos.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { parseOptions, formatOptions, UsageError, CliError } from '../args.js';
import { EVAL_OPTIONS, evalItems, evalMethods } from '../eval-options.js';
import { loadCore } from '../../runtime/core.js';
import { openExplainerFile } from '../../runtime/node/open-explainer.js';
import { decodeImage } from '../../runtime/node/image.js';
import { runEvaluation } from '../../runtime/node/eval/run.js';
import { kind } from '../../runtime/eval/perturbation.js';
import { perturbPhoto, FRACTIONS } from '../../runtime/eval/perturbation-protocol.js';

const OPTIONS = {
  ...EVAL_OPTIONS,
  engine: { type: 'string', value: 'auto|node|web', default: 'auto', help: 'onnxruntime-node when installed (about 4× faster), else onnxruntime-web' },
};

export const summary = 'positive/negative perturbation AUC per method, for the predicted and the labelled class';

export function usage() {
  return `usage: vit-relevance eval perturbation --images DIR --labels FILE --model GRAPH.onnx --out DIR
                                     [--methods all|ID,ID...] [--start-layer 1] [--limit N]
                                     [--shard i/n] [--engine auto] [--threads N] [--quiet]

For every photo: explain the predicted and the labelled class, then black out 10 … 90 % of
the model's input in the order of each map (pos: most relevant first; neg: least relevant
first) and classify again. Writes DIR/perturbation.json ({ n, top1, auc, curves }), .csv,
.md and one SVG chart per order. Accuracy is against the label; AUC = area under accuracy
over k = 0 … 90 % × 100. Needs GRAPH.forward.onnx beside the graph (npm run build writes
it). Rerun the same command to resume; run shards with --shard and join them with
\`vit-relevance eval merge\`.

options:
${formatOptions(OPTIONS)}`;
}

async function sha256(file) {
  return createHash('sha256').update(await readFile(file)).digest('hex');
}

function newTimings() {
  return { decodeMs: 0, preprocessMs: 0, explainMs: 0, mapsMs: 0, perturbMs: 0, forwardMs: 0, forwards: 0 };
}

function printTimings(t, wallMs, photos) {
  if (!photos) return;
  const s = (ms) => `${(ms / 1000).toFixed(1)} s`;
  const share = (ms) => `${((100 * ms) / wallMs).toFixed(1)} %`;
  console.log(`${photos} photo(s) in ${s(wallMs)} (${(photos / (wallMs / 1000)).toFixed(2)} photos/s): `
    + `${t.forwards} forward passes ${s(t.forwardMs)} (${share(t.forwardMs)}, ${(t.forwardMs / Math.max(1, t.forwards)).toFixed(1)} ms each), `
    + `explainer ${s(t.explainMs)}, decode+preprocess ${s(t.decodeMs + t.preprocessMs)}, maps ${s(t.mapsMs)}, `
    + `perturbation ${s(t.perturbMs)}; overhead beyond the forward passes ${share(wallMs - t.forwardMs)}`);
}

export async function run(argv) {
  const opts = parseOptions(argv, OPTIONS, 'eval perturbation');
  if (opts.help) {
    console.log(usage());
    return 0;
  }
  let explainer;
  try {
    explainer = await openExplainerFile(opts.model, { engine: opts.engine, threads: opts.threads, requireForward: true });
  } catch (err) {
    throw new CliError(err.message);
  }
  try {
    const core = await loadCore();
    const methods = evalMethods(opts, core.methodIds);
    const { metadata } = explainer;
    const { items, shard, limit } = await evalItems(opts, metadata).catch((err) => {
      throw err instanceof UsageError ? err : new CliError(err.message);
    });
    const settings = {
      model: metadata.name,
      graphSha256: await sha256(opts.model),
      engine: explainer.engine,
      methods,
      startLayer: opts.startLayer,
      fractions: FRACTIONS,
      preprocess: metadata.preprocess,
    };
    const timings = newTimings();
    let photos = 0;
    const processItem = async (item) => {
      let t0 = performance.now();
      let photo;
      try {
        photo = await decodeImage(item.file);
      } catch (err) {
        throw new CliError(`${item.name}: ${err.message} (remove it from the folder and rerun to resume)`);
      }
      timings.decodeMs += performance.now() - t0;
      t0 = performance.now();
      const pre = core.preprocess(photo.rgba, photo.width, photo.height, metadata);
      timings.preprocessMs += performance.now() - t0;
      const record = await perturbPhoto({ explainer, core, pre, label: item.label, options: { methods, startLayer: opts.startLayer }, timings });
      photos++;
      return record;
    };
    const started = performance.now();
    const result = await runEvaluation({
      kind, items, settings, outDir: opts.out, processItem, shard, limit, progress: { quiet: opts.quiet },
    });
    printTimings(timings, performance.now() - started, photos);
    const { summary: s } = result;
    console.log(`${s.n} photo(s) in ${opts.out}: top-1 ${(s.top1 * 100).toFixed(2)} %; AUC (pos ↓ / neg ↑, predicted class):`);
    for (const m of methods) {
      console.log(`  ${m.padEnd(26)} ${s.auc[`${m}/pos/predicted`].toFixed(2).padStart(6)} / ${s.auc[`${m}/neg/predicted`].toFixed(2).padStart(6)}`);
    }
    console.log(`wrote ${result.files.join(', ')}`);
    return 0;
  } finally {
    await explainer.release();
  }
}

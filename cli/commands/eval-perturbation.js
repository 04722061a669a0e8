// `vit-relevance eval perturbation`: the paper's positive/negative perturbation test
// (runtime/eval/perturbation-protocol.js) over a folder of labelled photos, resumable and
// shardable (runtime/node/eval/run.js). Prints where the time went: the evaluation's own
// overhead is everything beyond the forward passes of the perturbed photos.
import { parseOptions, formatOptions } from '../args.js';
import { EVAL_OPTIONS, evalItemsOrFail, evalMethods, openEvalModel } from '../eval-options.js';
import { loadCore } from '../../runtime/core.js';
import { runPerturbation, describeTimings } from '../../runtime/node/eval/perturbation-job.js';

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

export async function run(argv) {
  const opts = parseOptions(argv, OPTIONS, 'eval perturbation');
  if (opts.help) {
    console.log(usage());
    return 0;
  }
  const explainer = await openEvalModel(opts, { requireForward: true });
  try {
    const core = await loadCore();
    const methods = evalMethods(opts, core.methodIds);
    const { metadata } = explainer;
    const { items, shard, limit } = await evalItemsOrFail(opts, metadata);
    const result = await runPerturbation({
      explainer, core, modelFile: opts.model, methods, startLayer: opts.startLayer,
      items, shard, limit, outDir: opts.out, progress: { quiet: opts.quiet },
    });
    console.log(describeTimings(result.timings));
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

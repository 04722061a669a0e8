// `vit-relevance eval perturbation`: the paper's positive/negative perturbation test
// (eval/perturbation-protocol.js) over a folder of labelled photos, resumable and
// shardable (cli/eval-command.js, eval/node/perturbation-job.js). Prints where
// the time went: the evaluation's own overhead is everything beyond the forward passes
// of the perturbed photos.
import { formatOptions } from '../args.js';
import { EVAL_OPTIONS } from '../eval-options.js';
import { runEvalCommand } from '../eval-command.js';
import { perturbationJob } from '../../eval/node/perturbation-job.js';

const OPTIONS = EVAL_OPTIONS;

export const summary = 'positive/negative perturbation AUC per method, for the predicted and the labelled class';

export function usage() {
  return `usage: vit-relevance eval perturbation --images DIR --labels FILE --model GRAPH.onnx --out DIR
                                     [--methods all|ID,ID...] [--start-layer 1] [--limit N]
                                     [--shard i/n|auto] [--on-unreadable stop|skip] [--engine auto]
                                     [--threads N] [--quiet]

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

export const run = (argv) => runEvalCommand(argv, { name: 'perturbation', options: OPTIONS, usage, job: perturbationJob });

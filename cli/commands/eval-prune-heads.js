// `vit-relevance eval prune-heads`: Self-Attention Attribution's head-pruning experiment
// (Hao et al., AAAI 2021, Fig. 3; METHODS.md) over a folder of labelled photos: rank the
// heads on the first --rank-images photos by each importance measure, then mask the least
// important ones at rates 0, 10 … 100 % and measure top-1 on the rest. Resumable and
// shardable (cli/eval-command.js, eval/node/prune-heads-job.js).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { formatOptions, UsageError } from '../args.js';
import { UserError } from '../../runtime/errors.js';
import { EVAL_OPTIONS } from '../eval-options.js';
import { runEvalCommand } from '../eval-command.js';
import { pruneHeadsJob } from '../../eval/node/prune-heads-job.js';
import { MEASURES } from '../../eval/prune-heads-protocol.js';
import { runTextPruning } from '../prune-heads-text.js';

// --methods and --start-layer select relevance maps, which this evaluation draws none of.
const SHARED = Object.fromEntries(Object.entries(EVAL_OPTIONS).filter(([name]) => !['methods', 'start-layer'].includes(name)));

const OPTIONS = {
  ...SHARED,
  model: { ...EVAL_OPTIONS.model, help: 'explainer graph; its metadata, GRAPH.forward.onnx, GRAPH.masked.onnx and (for attribution) the attribution graphs beside it' },
  'rank-images': { type: 'int', min: 1, required: true, help: 'rank the heads on the first N labelled photos (file-name order); the rest are held out' },
  by: { type: 'string', value: 'MEASURES', default: MEASURES.join(','), help: `importance measures, separated by commas: ${MEASURES.join(', ')}` },
  steps: { type: 'int', min: 1, max: 10000, default: 20, help: 'm, the Riemann steps of the attribution' },
  seed: { type: 'int', min: 0, max: 0xffffffff, default: 0, help: 'seed of the random head order' },
  ranking: { type: 'string', value: 'RUN_DIR', help: 'take the ranking photos\' records from this prune-heads run folder (same photos and settings; --rank-images may differ) instead of ranking them again: the shards of one evaluation rank once' },
  batch: { type: 'int', min: 1, max: 256, default: 16, help: 'held-out photos per run of the masked forward' },
  limit: { type: 'int', min: 1, help: 'evaluate only the first N held-out photos (of the shard)' },
  shard: { ...EVAL_OPTIONS.shard, help: EVAL_OPTIONS.shard.help.replace('shard i of n', 'shard i of n of the held-out photos (every shard ranks on all ranking photos)') },
};

export const summary = 'head pruning: top-1 while the least important heads are masked, per importance measure';

export function usage() {
  return `usage: vit-relevance eval prune-heads --images DIR --labels FILE --model GRAPH.onnx --rank-images N
                                    --out DIR [--by ${MEASURES.join(',')}] [--steps 20]
                                    [--seed 0] [--batch 16] [--limit N] [--shard i/n|auto] [--ranking RUN_DIR]
                                    [--on-unreadable stop|skip] [--engine auto] [--threads N] [--quiet]

The official protocol of Self-Attention Attribution (METHODS.md): on each of the first N
labelled photos, per head, the attribution importance (max of Attr[b][k] for the labelled
class, all blocks, m = --steps), the attention importance (max of A[b][k]) and the Taylor
importance (|Σ A ⊙ ∂L/∂A|, L the cross-entropy with the label), summed over the photos
(Taylor's blocks then L2-normalised); random is a --seed shuffle. Heads are sorted by
ascending importance; at rate r = 0, 0.1 … 1.0 the int(r·B·h) least important are masked
(their attention multiplied by 0) and top-1 against the label is measured on the other
photos, --batch at a time through GRAPH.masked.onnx. Also, for the paper's finding that
the top heads of each layer keep most of the accuracy (this project's protocol; METHODS.md
has none): for k = 1 … h−1, only the k most important heads of every block are kept, beside
the global order masking as many heads, B·(h−k). Writes DIR/prune-heads.json ({ accuracy,
perBlock, order, importance, masked, ... }), .md, .csv and .svg (accuracy vs rate, one
line per measure) and prune-heads-per-block.csv. Rerun the same command to resume; shard
the held-out photos with --shard and join the folders with \`vit-relevance eval merge\`.
Every shard needs the whole ranking: rank once (e.g. --limit 1 without --shard) and give
that folder to the shards as --ranking. With --text, a text model over labelled sentences
(\`vit-relevance eval prune-heads --text --help\`).

options:
${formatOptions(OPTIONS)}`;
}

// --by → opts.measures (in the order given); named errors before any work.
export function checkOptions(opts) {
  const by = opts.by.split(',').map((s) => s.trim());
  const unknown = by.find((m) => !MEASURES.includes(m));
  if (unknown !== undefined) throw new UsageError(`--by: unknown measure "${unknown}"; known: ${MEASURES.join(', ')}`);
  if (new Set(by).size !== by.length) throw new UsageError(`--by names a measure twice: "${opts.by}"`);
  opts.measures = by;
  if (opts.ranking !== undefined && !existsSync(path.join(opts.ranking, 'run.json'))) {
    throw new UserError(`--ranking ${opts.ranking} is not a run folder (no run.json)`);
  }
}

// --text: a text model over labelled sentences (cli/prune-heads-text.js).
export const run = (argv) => (argv.includes('--text') ? runTextPruning(argv)
  : runEvalCommand(argv, { name: 'prune-heads', options: OPTIONS, usage, job: { ...pruneHeadsJob, checkOptions } }));

// `vit-relevance eval prune-heads --text`: Self-Attention Attribution's head pruning on a
// text model over labelled sentences (default: SST-2 dev, ../shared/text/sst2/dev.tsv; the
// paper ranks on 200 sentences): the protocol, records, summary and reports of the photos'
// prune-heads (eval/prune-heads*.js), the sentences through
// eval/node/text-prune-job.js. Resumable; shards join with `eval merge`.
import { formatOptions, parseOptions, UsageError } from './args.js';
import { EVAL_OPTIONS, evalShard, outFiles } from './eval-options.js';
import { textModel } from './text-model.js';
import { sharedPath } from './shared-data.js';
import { loadCore } from '../runtime/core.js';
import { prepareOutDir } from '../runtime/node/out-dir.js';
import { runEvaluation } from '../eval/node/run.js';
import { checkRunFolder } from '../eval/node/records.js';
import { formatShard } from '../eval/node/shard.js';
import { kind } from '../eval/prune-heads.js';
import { MEASURES } from '../eval/prune-heads-protocol.js';
import { sentenceItems, textPruneJob } from '../eval/node/text-prune-job.js';

const OPTIONS = {
  text: { type: 'boolean', help: 'prune a text model\'s heads over labelled sentences' },
  data: { type: 'string', value: 'FILE', default: sharedPath('text/sst2/dev.tsv'), help: 'sentences, one "label<TAB>sentence" a line (SST-2\'s layout)' },
  model: { type: 'string', value: 'GRAPH.onnx|DIR', help: 'a text model with its attribution graphs (default: build/models/bert-mini-sst2-movies)' },
  'rank-texts': { type: 'int', min: 1, default: 200, help: 'rank the heads on the first N sentences (the paper: 200); the rest are held out' },
  by: { type: 'string', value: 'MEASURES', default: MEASURES.join(','), help: `importance measures, separated by commas: ${MEASURES.join(', ')}` },
  steps: { type: 'int', min: 1, max: 10000, default: 20, help: 'm, the Riemann steps of the attribution' },
  seed: { type: 'int', min: 0, max: 0xffffffff, default: 0, help: 'seed of the random head order' },
  batch: { type: 'int', min: 1, max: 256, default: 16, help: 'held-out sentences of one length per run of the masked forward' },
  limit: { type: 'int', min: 1, help: 'evaluate only the first N held-out sentences (of the shard)' },
  shard: { ...EVAL_OPTIONS.shard, help: 'evaluate shard i of n of the held-out sentences (every shard ranks on all ranking sentences)' },
  out: EVAL_OPTIONS.out,
  engine: EVAL_OPTIONS.engine,
  threads: EVAL_OPTIONS.threads,
  quiet: EVAL_OPTIONS.quiet,
};

export function textUsage() {
  return `usage: vit-relevance eval prune-heads --text --out DIR [--data FILE] [--model GRAPH] [--rank-texts 200]
                                    [--by ${MEASURES.join(',')}] [--steps 20] [--seed 0] [--batch 16]
                                    [--limit N] [--shard i/n|auto] [--engine auto] [--threads N] [--quiet]

Head pruning on a text model (METHODS.md, "Self-Attention Attribution"): per head, the
attribution importance (max of Attr[b][k] for the labelled class, m = --steps), the
attention importance and the Taylor importance, summed over the first --rank-texts
sentences; random is a --seed shuffle. At rate r = 0, 0.1 … 1.0 the int(r·B·h) least
important heads are masked and the accuracy against the labels is measured on the other
sentences through GRAPH.masked.onnx. Writes DIR/prune-heads.json, .md, .csv, .svg and
prune-heads-per-block.csv, as for photos.

options:
${formatOptions(OPTIONS)}`;
}

export async function runTextPruning(argv) {
  const opts = parseOptions(argv, OPTIONS, 'eval prune-heads --text');
  if (opts.help) {
    console.log(textUsage());
    return 0;
  }
  const by = opts.by.split(',').map((s) => s.trim());
  const unknown = by.find((m) => !MEASURES.includes(m));
  if (unknown !== undefined) throw new UsageError(`--by: unknown measure "${unknown}"; known: ${MEASURES.join(', ')}`);
  if (new Set(by).size !== by.length) throw new UsageError(`--by names a measure twice: "${opts.by}"`);
  opts.measures = by;
  const { shard, source } = evalShard(opts);
  const { graph, metadata } = await textModel(opts);
  await prepareOutDir(opts.out, [...outFiles(kind.name), 'prune-heads.svg', 'prune-heads-per-block.csv']);
  if (source) console.log(`shard ${formatShard(shard)} (${source})`);
  const { items, data, notes } = await sentenceItems(opts, metadata);
  for (const line of notes) console.log(line);
  await checkRunFolder(opts.out, { kind: kind.name, data, shard });
  const core = await loadCore();
  const { settings, processItem, describe, release } = await textPruneJob.prepare({ graph, metadata, core, opts, items });
  let result;
  try {
    result = await runEvaluation({
      kind, items, settings, data, outDir: opts.out, processItem, shard, limit: opts.limit, progress: { quiet: opts.quiet }, select: textPruneJob.selectItems,
    });
  } finally {
    await release();
  }
  console.log(describe());
  const s = result.summary;
  const line = (m, values) => `  ${m.padEnd(12)} ${values.map((a) => (a * 100).toFixed(1)).join(' ')}`;
  console.log(`accuracy (%) at rate ${s.rates.map((r) => Math.round(r * 100)).join(' / ')}:`);
  for (const m of s.by) console.log(line(m, s.accuracy[m]));
  console.log(`wrote ${result.files.join(', ')}`);
  return 0;
}

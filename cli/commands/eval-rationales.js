// `vit-relevance eval rationales`: the paper's ERASER Movie Reviews evaluation (METHODS.md,
// "Evaluation: ERASER Movie Reviews") of a text model: token-level F1 of each method's top
// k words against the human rationales, k = 5 … 80. Resumable and shardable as the photo
// evaluations (eval/node/run.js); `eval merge` joins the shards' folders.
import { formatOptions, parseMethods, parseOptions, UsageError } from '../args.js';
import { EVAL_OPTIONS, evalOnUnreadable, evalShard, outFiles } from '../eval-options.js';
import { checked, textModel } from '../text-model.js';
import { sharedPath } from '../shared-data.js';
import { loadCore } from '../../runtime/core.js';
import { loadExplainer } from '../../runtime/node/index.js';
import { prepareOutDir } from '../../runtime/node/out-dir.js';
import { graphMethodIds } from '../../runtime/metadata.js';
import { runEvaluation } from '../../eval/node/run.js';
import { checkRunFolder } from '../../eval/node/records.js';
import { formatShard } from '../../eval/node/shard.js';
import { kind } from '../../eval/rationales.js';
import { rationalesJob, reviewItems } from '../../eval/node/rationales-job.js';

const OPTIONS = {
  data: { type: 'string', value: 'DIR', default: sharedPath('text/movies'), help: 'ERASER Movie Reviews: {train,val,test}.jsonl and docs/' },
  split: { type: 'string', value: 'NAME', default: 'test', help: 'the split evaluated: DIR/NAME.jsonl (the paper: test, 199 reviews)' },
  model: { type: 'string', value: 'GRAPH.onnx|DIR', help: 'a text model (default: build/models/bert-mini-sst2-movies)' },
  methods: { type: 'string', value: 'IDS', default: 'all', help: 'all (every method one run of the text graph feeds), or method ids separated by commas' },
  limit: EVAL_OPTIONS.limit,
  shard: EVAL_OPTIONS.shard,
  'on-unreadable': EVAL_OPTIONS['on-unreadable'],
  out: EVAL_OPTIONS.out,
  engine: EVAL_OPTIONS.engine,
  threads: EVAL_OPTIONS.threads,
  quiet: EVAL_OPTIONS.quiet,
};

export const summary = 'ERASER Movie Reviews: token F1 of each method\'s top-k words against human rationales (text models)';

export function usage() {
  return `usage: vit-relevance eval rationales --out DIR [--data DIR] [--split test] [--model GRAPH]
                                   [--methods all|<ids>] [--limit N] [--shard i/n|auto] [--engine auto] [--threads N] [--quiet]

For each review of the split (cut at the model's positions), every method explains the
labelled class (transformer_attribution from the last block, as the official pipeline calls
it; the others as defined); a word scores the max of its pieces (clamped at 0), the top k
words for k = 5, 10 … 80 are one-word hard rationales, scored against the human rationales
with ERASER's token-level F1 (instance macro and micro). The model's accuracy on the split
is reported beside it. Writes DIR/run.json, records.jsonl, rationales.json, .md, .csv and
rationales.svg (F1 against k, one line per method). Rerun the same command to resume;
shard with --shard and join the folders with \`vit-relevance eval merge\`.

options:
${formatOptions(OPTIONS)}`;
}

export async function run(argv) {
  const opts = parseOptions(argv, OPTIONS, 'eval rationales');
  if (opts.help) {
    console.log(usage());
    return 0;
  }
  const { shard, source } = evalShard(opts);
  const onUnreadable = evalOnUnreadable(opts);
  const { graph, metadata } = await textModel(opts);
  const core = await loadCore();
  const feeds = graphMethodIds(core, metadata);
  const parsed = parseMethods(opts.methods, core.methodIds);
  const methods = parsed === 'all' ? feeds : parsed;
  const unsupported = methods.filter((m) => !feeds.includes(m));
  if (unsupported.length) throw new UsageError(`--methods: ${unsupported.join(', ')} is not computed by one run of the text graph, which eval rationales needs`);
  await prepareOutDir(opts.out, [...outFiles(kind.name), 'rationales.svg']);
  if (source) console.log(`shard ${formatShard(shard)} (${source})`);
  const { items, data } = await reviewItems(opts, metadata);
  await checkRunFolder(opts.out, { kind: kind.name, data, shard });
  const explainer = await checked(() => loadExplainer({ model: graph, threads: opts.threads, engine: opts.engine }));
  try {
    const { settings, processItem, describe } = await rationalesJob.prepare({ explainer, modelFile: graph, methods, opts });
    const result = await runEvaluation({
      kind, items, settings, data, outDir: opts.out, processItem, shard, limit: opts.limit, onUnreadable, progress: { quiet: opts.quiet },
    });
    console.log(describe());
    const s = result.summary;
    if (!s) {
      console.log(`no review in shard ${formatShard(shard)} (${items.length} in all); nothing written but ${opts.out}/run.json`);
      return 0;
    }
    console.log(`${s.n} review(s) in ${opts.out}: ${rationalesJob.summaryLines(s, methods).join('\n')}`);
    console.log(`wrote ${result.files.join(', ')}`);
    return 0;
  } finally {
    await explainer.close();
  }
}

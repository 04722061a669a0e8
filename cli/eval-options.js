// Options every `vit-relevance eval <kind>` shares, in cli/args.js's format, and the step
// from parsed options to the photos to evaluate. A subcommand spreads EVAL_OPTIONS into
// its own specs (overriding an entry if it needs to) and calls evalItems():
//   const OPTIONS = { ...EVAL_OPTIONS, fractions: {...} };
//   const opts = parseOptions(argv, OPTIONS, 'eval perturbation');
//   const { items, shard, limit, selected } = await evalItems(opts, metadata);
//   await runEvaluation({ kind, items, shard, limit, settings, outDir: opts.out, ..., progress: { quiet: opts.quiet } });
import { parseMethods, UsageError, CliError } from './args.js';
import { openExplainerFile } from '../runtime/node/open-explainer.js';
import { loadDataset } from '../runtime/node/eval/dataset.js';
import { parseShard, selectItems } from '../runtime/node/eval/shard.js';

export const EVAL_OPTIONS = {
  images: { type: 'string', value: 'DIR', required: true, help: 'folder of photos (.png .jpg .jpeg .webp), evaluated in file-name order' },
  labels: { type: 'string', value: 'FILE', required: true, help: 'synset_words.txt (labels from <wnid>_*.ext file names) or a .csv of file,label (class id, wnid or name)' },
  'skip-unlabelled': { type: 'boolean', help: 'leave out photos without a label instead of stopping' },
  model: { type: 'string', value: 'GRAPH.onnx', required: true, help: 'explainer graph; its metadata GRAPH.json must sit beside it' },
  methods: { type: 'string', value: 'IDS', default: 'all', help: 'all, or method ids separated by commas' },
  'start-layer': { type: 'int', min: 0, default: 1, help: 'first block of the three rollouts, as in the official evaluation' },
  limit: { type: 'int', min: 1, help: 'evaluate only the first N photos (of the shard)' },
  shard: { type: 'string', value: 'i/n', help: 'evaluate shard i of n (1-based); combine the folders with `eval merge`' },
  out: { type: 'string', value: 'DIR', required: true, help: 'run folder: run.json, records.jsonl, summary and reports; rerun to resume' },
  threads: { type: 'int', min: 1, max: 64, help: 'onnxruntime threads (default: its own choice)' },
  quiet: { type: 'boolean', help: 'no progress line on stderr' },
};

// --methods → method ids (all of `known` for "all").
export function evalMethods(opts, known) {
  const parsed = parseMethods(opts.methods, known);
  return parsed === 'all' ? [...known] : parsed;
}

export function evalShard(opts) {
  try {
    return parseShard(opts.shard);
  } catch (err) {
    throw new UsageError(err.message);
  }
}

// → { items: every labelled photo (sorted; runEvaluation takes the shard and limit itself),
//     shard, limit, selected: the items this run will evaluate, skipped: unlabelled names }
export async function evalItems(opts, metadata) {
  const shard = evalShard(opts);
  const { items, skipped } = await loadDataset({
    images: opts.images, labels: opts.labels, metadata, skipUnlabelled: Boolean(opts.skipUnlabelled),
  });
  const limit = opts.limit;
  return { items, shard, limit, selected: selectItems(items, shard, limit), skipped };
}

// The explainer graph an evaluation runs; problems with the files are the user's to fix.
export async function openEvalModel(opts, { requireForward = false } = {}) {
  try {
    return await openExplainerFile(opts.model, { engine: opts.engine, threads: opts.threads, requireForward });
  } catch (err) {
    throw new CliError(err.message);
  }
}

// evalItems with dataset problems reported as one line.
export async function evalItemsOrFail(opts, metadata) {
  try {
    return await evalItems(opts, metadata);
  } catch (err) {
    throw err instanceof UsageError || err instanceof CliError ? err : new CliError(err.message);
  }
}

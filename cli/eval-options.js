// Options every `vit-relevance eval <kind>` shares, in cli/args.js's format. A subcommand
// spreads EVAL_OPTIONS into its own specs (overriding an entry if it needs to) and hands
// them to cli/eval-command.js:
//   const OPTIONS = { ...EVAL_OPTIONS, seed: {...} };
//   export const run = (argv) => runEvalCommand(argv, { name: 'pointing-game', options: OPTIONS, usage, job });
import { parseMethods, UsageError } from './args.js';
import { UserError } from '../runtime/errors.js';
import { checkBlocksFor, graphMethodIds } from '../runtime/metadata.js';
import { openExplainerFile } from '../runtime/node/open-explainer.js';
import { resolveShard } from '../eval/node/shard.js';
import { ON_UNREADABLE, SKIPPED_FILE } from '../eval/node/run.js';
import { RECORDS_FILE, RUN_FILE } from '../eval/node/records.js';

export const EVAL_OPTIONS = {
  images: { type: 'string', value: 'DIR', required: true, help: 'folder of photos (.png .jpg .jpeg .webp), evaluated in file-name order' },
  labels: { type: 'string', value: 'FILE', required: true, help: 'synset_words.txt (labels from <wnid>_*.ext file names) or a .csv of file,label (class id, wnid or name)' },
  'skip-unlabelled': { type: 'boolean', help: 'leave out photos without a label instead of stopping' },
  model: { type: 'string', value: 'GRAPH.onnx', required: true, help: 'explainer graph; its metadata GRAPH.json must sit beside it' },
  methods: { type: 'string', value: 'IDS', default: 'all', help: 'all (every method one explainer run feeds), or method ids separated by commas; attattr (Self-Attention Attribution, about 400 forward passes per class) only when named' },
  'start-layer': { type: 'int', min: 0, default: 1, help: 'first block of the three rollouts, as in the official evaluation' },
  limit: { type: 'int', min: 1, help: 'evaluate only the first N photos (of the shard)' },
  shard: { type: 'string', value: 'i/n|auto[/n]', help: 'evaluate shard i of n (1-based), or take i and n from Slurm, Kubernetes or GNU parallel (docs/scale-out.md); combine the folders with `eval merge`' },
  'on-unreadable': { type: 'string', value: ON_UNREADABLE.join('|'), default: 'stop', help: 'a photo that cannot be decoded or preprocessed stops the run, or is recorded as skipped (skipped.csv) and the run goes on' },
  out: { type: 'string', value: 'DIR', required: true, help: 'run folder: run.json, records.jsonl, summary and reports; rerun to resume' },
  engine: { type: 'string', value: 'auto|node|web', default: 'auto', help: 'onnxruntime-node when installed (about 4× faster), else onnxruntime-web' },
  threads: { type: 'int', min: 1, max: 64, help: 'onnxruntime threads (default: its own choice)' },
  quiet: { type: 'boolean', help: 'no progress line on stderr' },
};

// --methods → method ids: any of core.methodIds when named; "all" is what one run of the
// model's explainer graph feeds (graphMethodIds), so attattr (the attribution graphs, far
// slower) runs only when named.
export function evalMethods(opts, core, metadata) {
  const parsed = parseMethods(opts.methods, core.methodIds);
  if (parsed === 'all') return graphMethodIds(core, metadata);
  try {
    return checkBlocksFor(core, metadata, parsed);
  } catch (err) {
    throw new UserError(err.message);
  }
}

// --shard → { shard: { index, count } | null, source: the job runner it came from | null }.
export function evalShard(opts, env = process.env) {
  try {
    return resolveShard(opts.shard, env);
  } catch (err) {
    throw new UsageError(err.message);
  }
}

export function evalOnUnreadable(opts) {
  if (!ON_UNREADABLE.includes(opts.onUnreadable)) throw new UsageError(`--on-unreadable must be ${ON_UNREADABLE.join(' or ')}, got "${opts.onUnreadable}"`);
  return opts.onUnreadable;
}

// The files of a run folder a run or merge of `kind` writes: the run and its records first,
// then the summary, the reports every evaluation writes and the skipped photos; checked
// before any work.
export const outFiles = (kind) => [RUN_FILE, RECORDS_FILE, `${kind}.json`, `${kind}.md`, `${kind}.csv`, SKIPPED_FILE];

// The explainer graph an evaluation runs; problems with the files are the user's to fix.
export async function openEvalModel(opts, { requireForward = false } = {}) {
  try {
    return await openExplainerFile(opts.model, { engine: opts.engine, threads: opts.threads, requireForward });
  } catch (err) {
    throw err instanceof UserError ? err : new UserError(err.message);
  }
}

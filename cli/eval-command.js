// The one flow of every `vit-relevance eval <kind>` (perturbation, pointing-game,
// segmentation), given the kind's job (eval/node/<kind>-job.js):
//   options → shard → --out writable → methods → the items and their data identity, checked against an
//   existing --out folder (all before the model loads, so a wrong folder is reported in
//   a second) → the model → runEvaluation
//   (resumable, --on-unreadable) → the lines saying what was done and written.
// A job is { kind, unit, requireForward?, usesMethods? (default true: --methods and
// --start-layer apply), takesAttribution? (attattr allowed: prepare gets the opened
// attribution graphs as `attribution`), checkOptions?(opts) (throws on bad options, before any work),
// items({ opts, metadata }) → { items, data, notes }, selectItems?(items, shard, limit),
// prepare({ explainer, attribution, core, modelFile, methods, startLayer, opts, items, data }) →
// { settings, processItem, describe?(), release?() }, summaryLines(summary, methods) }.
import { parseOptions, UsageError } from './args.js';
import { evalMethods, evalOnUnreadable, evalShard, openEvalModel, outFiles } from './eval-options.js';
import { prepareOutDir } from '../runtime/node/out-dir.js';
import { UserError } from '../runtime/errors.js';
import { loadEvalCore } from '../runtime/core-eval.js';
import { explainerGraphFile, metadataPathFor, readMetadata } from '../runtime/node/open-explainer.js';
import { runEvaluation, SKIPPED_FILE } from '../eval/node/run.js';
import { formatShard } from '../eval/node/shard.js';
import { checkRunFolder } from '../eval/node/records.js';
import { checkAttributionFiles, openAttributionFiles } from '../runtime/node/open-attribution.js';
import { attributionMethodsOf } from '../runtime/attribution-maps.js';

async function userStep(fn) {
  try {
    return await fn();
  } catch (err) {
    throw err instanceof UserError ? err : new UserError(err.message);
  }
}

function processedLine(result, unit, seconds) {
  return `${result.processed} ${unit}(s) in ${seconds.toFixed(1)} s (${(seconds / result.processed).toFixed(2)} s each)${result.resumed ? `, ${result.resumed} resumed` : ''}`;
}

export async function runEvalCommand(argv, { name, options, usage, job }) {
  const opts = parseOptions(argv, options, `eval ${name}`);
  if (opts.help) {
    console.log(usage());
    return 0;
  }
  job.checkOptions?.(opts);
  const { shard, source } = evalShard(opts);
  const onUnreadable = evalOnUnreadable(opts);
  await prepareOutDir(opts.out, outFiles(job.kind.name));
  if (source) console.log(`shard ${formatShard(shard)} (${source})`);
  const core = await loadEvalCore();
  opts.model = await userStep(() => explainerGraphFile(opts.model)); // a model folder: its index's graph
  const metadata = await userStep(() => readMetadata(metadataPathFor(opts.model), opts.model));
  const methods = job.usesMethods === false ? [] : evalMethods(opts, core, metadata);
  const attrMethods = attributionMethodsOf(core, methods);
  if (attrMethods.length && !job.takesAttribution) throw new UsageError(`--methods: ${attrMethods.join(', ')} is not available in eval ${name}`);
  if (attrMethods.length) await userStep(() => checkAttributionFiles(opts.model, metadata.architecture.blocks));
  const { items, data, notes } = await userStep(async () => job.items({ opts, metadata }));
  for (const line of notes) console.log(line);
  await checkRunFolder(opts.out, { kind: job.kind.name, data, shard });
  const explainer = await openEvalModel(opts, { requireForward: job.requireForward });
  let attribution = null;
  try {
    if (attrMethods.length) attribution = await userStep(() => openAttributionFiles(opts.model, explainer.metadata, { threads: opts.threads, engine: explainer.engine }));
    const { settings, processItem, describe, release } = await job.prepare({
      explainer, attribution, core, modelFile: opts.model, methods, startLayer: opts.startLayer, opts, items, data,
    });
    const started = performance.now();
    const result = await runEvaluation({
      kind: job.kind, items, settings, data, outDir: opts.out, processItem, shard, limit: opts.limit, onUnreadable, progress: { quiet: opts.quiet },
      select: job.selectItems,
    }).finally(() => release?.());
    if (describe) console.log(describe());
    else if (result.processed) console.log(processedLine(result, job.unit, (performance.now() - started) / 1000));
    const { summary: s } = result;
    if (!s) {
      console.log(`no ${job.unit} in shard ${formatShard(shard)} (${items.length} in all); nothing written but ${opts.out}/run.json`);
      return 0;
    }
    const skipped = s.skipped ? `, ${s.skipped} skipped as unreadable (${SKIPPED_FILE})` : '';
    console.log(`${s.n} ${job.unit}(s) in ${opts.out}${skipped}: ${job.summaryLines(s, methods).join('\n')}`);
    console.log(`wrote ${result.files.join(', ')}`);
    return 0;
  } finally {
    await attribution?.release();
    await explainer.release();
  }
}

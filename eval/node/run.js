// Runs an evaluation over a list of items, resumably, and writes its results.
//
// An evaluation *kind* is a small module (eval/<name>.js, found by name through
// ./kinds.js) exporting
//   export const kind = {
//     name: 'perturbation',                    // also the summary file name: DIR/perturbation.json
//     itemKey(item) → string,                  // unique per item (a file name, a mosaic id)
//     summarize(records, settings, keys) → summary object (or a promise of it),
//                                              // records: ALL records of the folder, sorted by
//                                              // key (keys[i] is records[i]'s), as read back
//                                              // from records.jsonl; may be called by a merge
//                                              // long after the run, so it must use only these
//     reports(summary, settings) → [{ file: 'perturbation.md', text }, ...] (or a promise),
//     itemUnit(settings) → 'mosaic', 'review' … (optional): what the progress line counts ('img')
//   };
// and the caller supplies `settings`: everything that must match for records to be
// combined (model sha256, methods, start layer, fractions...), and `data`: what was
// evaluated (./data-identity.js). Both are stored in DIR/run.json; resuming or merging
// with different ones is refused.
//
// runEvaluation({ kind, items, settings, data, outDir, processItem, shard, limit, onUnreadable, progress, select })
//   items        the whole sorted item list (e.g. loadDataset().items); this function
//                takes the shard (p % n == i-1) and then the first `limit` of it
//   processItem  async (item, { upcoming }) → record, a JSON-able object (typed arrays become
//                arrays); throws UnreadableError for an item whose files cannot be read.
//                upcoming(k): the next k items still to do, for a step that batches
//   select       (items, shard, limit) → the work list (default ./shard.js selectItems)
//   onUnreadable 'stop' (default: the error ends the run) or 'skip' (the item is recorded
//                as skipped with its reason, and counted in the summary)
//   shard        { index, count } (./shard.js parseShard) or null
//   progress     options for ./progress.js createProgress ({ quiet, stream, ... }), or false
// Items whose key already has an entry in DIR/records.jsonl are not processed again
// (resume). Once every item is done, DIR/<name>.json (deterministic JSON, with `skipped`:
// the count of skipped items), the reports and DIR/skipped.csv (when any) are written from
// the records alone, so a merge of shards (./merge.js) writes the same bytes.
// → { summary, files, total, processed, resumed, skipped (in this call) }
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { canonicalJson } from './json.js';
import { openRun, readRecords, sortedEntries } from './records.js';
import { selectItems } from './shard.js';
import { createProgress } from './progress.js';
import { UserError } from '../../runtime/errors.js';
import { csvTable } from '../report-table.js';

export const ON_UNREADABLE = ['stop', 'skip'];

// A photo (or mask) that cannot be decoded or preprocessed: with --on-unreadable skip its
// item is recorded as skipped, with this message as the reason; otherwise it stops the run
// like any UserError.
export class UnreadableError extends UserError {}

export function checkKind(kind) {
  const missing = ['name', 'itemKey', 'summarize', 'reports'].filter((k) => !kind?.[k]);
  if (missing.length) throw new Error(`evaluation kind ${kind?.name ?? '?'} lacks ${missing.join(', ')}`);
  return kind;
}

function checkReportName(file, kindName) {
  if (typeof file !== 'string' || !file || file !== path.basename(file) || file.startsWith('.')) {
    throw new Error(`${kindName} report file name ${JSON.stringify(file)} must be a plain file name`);
  }
}

export const SKIPPED_FILE = 'skipped.csv';

// The summary and reports of everything recorded in DIR. → { summary, files }
export async function writeSummary(dir, kind, settings) {
  const entries = sortedEntries(await readRecords(dir));
  if (!entries.length) return { summary: null, files: [] };
  const recorded = entries.filter(([, e]) => 'record' in e);
  const skipped = entries.filter(([, e]) => 'skipped' in e);
  const keys = recorded.map(([key]) => key);
  const summary = {
    ...await kind.summarize(recorded.map(([, e]) => e.record), settings, keys),
    skipped: skipped.length,
  };
  const files = [path.join(dir, `${kind.name}.json`)];
  await writeFile(files[0], `${canonicalJson(summary, 2)}\n`);
  const reports = (await kind.reports(summary, settings)) ?? [];
  if (skipped.length) reports.push({ file: SKIPPED_FILE, text: csvTable(['item', 'reason'], skipped.map(([key, e]) => [key, e.skipped])) });
  for (const { file, text } of reports) {
    checkReportName(file, kind.name);
    files.push(path.join(dir, file));
    await writeFile(files.at(-1), text);
  }
  return { summary, files };
}

export function keyedItems(kind, items) {
  const seen = new Set();
  return items.map((item) => {
    const key = kind.itemKey(item);
    if (typeof key !== 'string' || !key) throw new Error(`${kind.name}: itemKey returned ${JSON.stringify(key)}, expected a non-empty string`);
    if (seen.has(key)) throw new UserError(`two items share the key ${key}; each item needs its own`);
    seen.add(key);
    return { key, item };
  });
}

// The entry of one item: { record }, or { skipped: reason } when it is unreadable and
// the run skips those.
async function processEntry(kind, key, item, processItem, onUnreadable, context) {
  let record;
  try {
    record = await processItem(item, context);
  } catch (err) {
    if (!(err instanceof UnreadableError)) throw err;
    if (onUnreadable === 'skip') return { skipped: err.message };
    throw new UserError(`${err.message} (rerun with --on-unreadable skip to record it as skipped and go on)`);
  }
  if (record === undefined) throw new Error(`${kind.name}: processItem returned nothing for ${key}`);
  return { record };
}

export async function runEvaluation({ kind, items, settings, data = null, outDir, processItem, shard = null, limit, onUnreadable = 'stop', progress = {}, select = selectItems }) {
  checkKind(kind);
  if (!ON_UNREADABLE.includes(onUnreadable)) throw new Error(`onUnreadable must be ${ON_UNREADABLE.join(' or ')}, got ${onUnreadable}`);
  const work = keyedItems(kind, select(items, shard, limit));
  const run = await openRun(outDir, { kind: kind.name, settings, data, shard });
  const todo = work.filter(({ key }) => !run.done.has(key));
  const resumed = work.length - todo.length;
  let skipped = 0;
  const unit = kind.itemUnit?.(settings) ?? 'img';
  const bar = createProgress({ total: work.length, resumed, unit, ...(progress === false ? { quiet: true } : progress) });
  try {
    for (const [i, { key, item }] of todo.entries()) {
      bar.begin(key);
      const upcoming = (k) => todo.slice(i + 1, i + 1 + k).map((w) => w.item);
      const entry = await processEntry(kind, key, item, processItem, onUnreadable, { upcoming });
      if (entry.skipped) skipped++;
      await run.append(key, entry);
      bar.step();
    }
  } finally {
    bar.end();
    await run.close();
  }
  const { summary, files } = await writeSummary(outDir, kind, settings);
  return { summary, files, total: work.length, processed: todo.length, resumed, skipped };
}

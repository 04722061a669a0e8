// Runs an evaluation over a list of items, resumably, and writes its results.
//
// An evaluation *kind* is a small module (runtime/eval/<name>.js, found by name through
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
//   };
// and the caller supplies `settings`: everything that must match for records to be
// combined (model sha256, methods, start layer, fractions...). They are stored in
// DIR/run.json; resuming or merging with different settings is refused.
//
// runEvaluation({ kind, items, settings, outDir, processItem, shard, limit, progress })
//   items        the whole sorted item list (e.g. loadDataset().items); this function
//                takes the shard (p % n == i-1) and then the first `limit` of it
//   processItem  async (item) → record, a JSON-able object (typed arrays become arrays)
//   shard        { index, count } (./shard.js parseShard) or null
//   progress     options for ./progress.js createProgress ({ quiet, stream, ... }), or false
// Items whose key already has a record in DIR/records.jsonl are skipped (resume). Once
// every item is done, DIR/<name>.json (deterministic JSON) and the reports are written
// from the records alone, so a merge of shards (./merge.js) writes the same bytes.
// → { summary, files, total, processed, resumed }
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { canonicalJson } from './json.js';
import { openRun, readRecords, sortedEntries } from './records.js';
import { selectItems } from './shard.js';
import { createProgress } from './progress.js';
import { EvalError } from './errors.js';

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

// The summary and reports of everything recorded in DIR. → { summary, files }
export async function writeSummary(dir, kind, settings) {
  const entries = sortedEntries(await readRecords(dir));
  if (!entries.length) return { summary: null, files: [] };
  const keys = entries.map(([key]) => key);
  const summary = await kind.summarize(entries.map(([, record]) => record), settings, keys);
  const files = [path.join(dir, `${kind.name}.json`)];
  await writeFile(files[0], `${canonicalJson(summary, 2)}\n`);
  for (const { file, text } of (await kind.reports(summary, settings)) ?? []) {
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
    if (seen.has(key)) throw new EvalError(`two items share the key ${key}; each item needs its own`);
    seen.add(key);
    return { key, item };
  });
}

export async function runEvaluation({ kind, items, settings, outDir, processItem, shard = null, limit, progress = {} }) {
  checkKind(kind);
  const work = keyedItems(kind, selectItems(items, shard, limit));
  const run = await openRun(outDir, { kind: kind.name, settings, shard });
  const todo = work.filter(({ key }) => !run.done.has(key));
  const resumed = work.length - todo.length;
  const bar = createProgress({ total: work.length, resumed, ...(progress === false ? { quiet: true } : progress) });
  try {
    for (const { key, item } of todo) {
      bar.begin(key);
      const record = await processItem(item);
      if (record === undefined) throw new Error(`${kind.name}: processItem returned nothing for ${key}`);
      await run.append(key, record);
      bar.step();
    }
  } finally {
    bar.end();
    await run.close();
  }
  const { summary, files } = await writeSummary(outDir, kind, settings);
  return { summary, files, total: work.length, processed: todo.length, resumed };
}

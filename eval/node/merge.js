// Combines the run folders of shards (or of any runs with the same kind and settings)
// into one folder that is exactly what an unsharded run would have written: run.json
// with shard null, records.jsonl sorted by key, and the summary and reports computed by
// the same code (./run.js writeSummary), hence byte-identical files.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sameJson } from './json.js';
import { RUN_FILE, RECORDS_FILE, checkSameRun, readRecords, readRunInfo, recordLine, sortedEntries, writeRunInfo } from './records.js';
import { writeSummary } from './run.js';
import { formatShard } from './shard.js';
import { UserError } from '../../runtime/errors.js';

// Every folder must hold a run of the first folder's kind, settings and data.
// → { kind (name), settings, shards: [{ dir, shard }], runs: [{ dir, info, records }] }
export async function readRuns(dirs) {
  if (!dirs.length) throw new UserError('no run folders to merge');
  const runs = [];
  for (const dir of dirs) {
    const info = await readRunInfo(dir);
    if (!info) throw new UserError(`${dir} is not a run folder (no ${RUN_FILE})`);
    if (runs.length) checkSameRun(info, runs[0].info, `${dir} (against ${runs[0].dir})`);
    runs.push({ dir, info, records: await readRecords(dir) });
  }
  return runs;
}

// Shards missing from a set of i/n shards, e.g. ['3/4'] (for a warning: merging a part
// of the shards is allowed, the summary then covers fewer items).
export function missingShards(runs) {
  const shards = runs.map((r) => r.info.shard).filter(Boolean);
  if (!shards.length || shards.length !== runs.length) return [];
  const count = shards[0].count;
  const have = new Set(shards.filter((s) => s.count === count).map((s) => s.index));
  return Array.from({ length: count }, (_, i) => i + 1).filter((i) => !have.has(i)).map((i) => `${i}/${count}`);
}

// → { summary, files, records (count), missing }
export async function mergeRuns({ dirs, outDir, kind }) {
  const resolvedOut = path.resolve(outDir);
  if (dirs.some((d) => path.resolve(d) === resolvedOut)) throw new UserError(`--out ${outDir} is one of the folders being merged; choose a new folder`);
  if (existsSync(path.join(outDir, RUN_FILE)) || existsSync(path.join(outDir, RECORDS_FILE))) {
    throw new UserError(`${outDir} already holds a run; merge writes into a new or empty folder`);
  }
  const runs = await readRuns(dirs);
  const { kind: kindName, settings, data } = runs[0].info;
  if (kind.name !== kindName) throw new Error(`merge: runs are ${kindName}, the kind given is ${kind.name}`);

  const merged = new Map();
  const from = new Map();
  for (const { dir, info, records } of runs) {
    for (const [key, entry] of records) {
      if (merged.has(key) && !sameJson(merged.get(key), entry)) {
        throw new UserError(`${key} has different records in ${from.get(key)} and ${dir} (shard ${formatShard(info.shard)})`);
      }
      merged.set(key, entry);
      from.set(key, dir);
    }
  }
  await mkdir(outDir, { recursive: true });
  await writeRunInfo(outDir, { kind: kindName, settings, data, shard: null });
  const lines = sortedEntries(merged).map(([key, entry]) => recordLine(key, entry));
  await writeFile(path.join(outDir, RECORDS_FILE), lines.join(''));
  const { summary, files } = await writeSummary(outDir, kind, settings);
  return { summary, files, records: merged.size, missing: missingShards(runs) };
}

// A run folder DIR:
//   run.json       { kind, settings, shard } — what the records were computed with
//   records.jsonl  one line per finished item, {"key":...,"record":...}, appended (and
//                  synced to disk) as each item finishes, so an interrupted run loses at
//                  most the item in flight and the next run with the same settings resumes.
// A folder holding another kind, other settings or another shard is refused rather than
// mixed: records are only comparable when everything that shapes them is equal.
import { existsSync } from 'node:fs';
import { mkdir, open, readFile, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { canonicalJson, compareKeys, describeDifferences, sameJson } from './json.js';
import { formatShard } from './shard.js';
import { EvalError } from './errors.js';

export const RUN_FILE = 'run.json';
export const RECORDS_FILE = 'records.jsonl';

export async function readRunInfo(dir) {
  const file = path.join(dir, RUN_FILE);
  let text;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if (err.code === 'ENOENT') return null;
    throw new EvalError(`cannot read ${file}: ${err.message}`);
  }
  try {
    const info = JSON.parse(text);
    if (typeof info?.kind !== 'string' || !('settings' in info)) throw new Error('it lacks "kind" or "settings"');
    return { kind: info.kind, settings: info.settings, shard: info.shard ?? null };
  } catch (err) {
    throw new EvalError(`${file} is not a run description: ${err.message}`);
  }
}

export async function writeRunInfo(dir, { kind, settings, shard = null }) {
  await writeFile(path.join(dir, RUN_FILE), `${canonicalJson({ kind, settings, shard }, 2)}\n`);
}

// Refuses to combine `info` (from a folder) with what a run or merge expects.
export function checkSameRun(info, expected, where) {
  if (info.kind !== expected.kind) {
    throw new EvalError(`${where} holds a ${info.kind} evaluation, not ${expected.kind}; use another --out folder`);
  }
  if (!sameJson(info.settings, expected.settings)) {
    throw new EvalError(`${where} was computed with other settings (${describeDifferences(info.settings, expected.settings)}); use another --out folder or the same settings`);
  }
}

// Records of a folder → Map key → record. A last line without its newline is what an
// interrupted write leaves: it is dropped (and cut off the file when `repair`, so appends
// start on a clean line). Any other bad line is an error.
export async function readRecords(dir, { repair = false } = {}) {
  const file = path.join(dir, RECORDS_FILE);
  let text;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if (err.code === 'ENOENT') return new Map();
    throw new EvalError(`cannot read ${file}: ${err.message}`);
  }
  const complete = text.endsWith('\n') ? text.length : text.lastIndexOf('\n') + 1;
  if (complete < text.length && repair) await truncate(file, Buffer.byteLength(text.slice(0, complete)));
  const records = new Map();
  text.slice(0, complete).split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let entry;
    try {
      entry = JSON.parse(line);
    } catch {
      throw new EvalError(`${file} line ${i + 1} is not JSON; the file was edited or damaged`);
    }
    if (typeof entry?.key !== 'string' || !('record' in entry)) throw new EvalError(`${file} line ${i + 1} is not a {"key","record"} line`);
    if (records.has(entry.key) && !sameJson(records.get(entry.key), entry.record)) {
      throw new EvalError(`${file} holds two different records for ${entry.key}`);
    }
    records.set(entry.key, entry.record);
  });
  return records;
}

export function sortedEntries(records) {
  return [...records.entries()].sort(([a], [b]) => compareKeys(a, b));
}

export function recordLine(key, record) {
  return `${canonicalJson({ key, record })}\n`;
}

// Prepares DIR for a run: checks or writes run.json, loads the finished records.
// → { done: Map key → record, append(key, record), close() }
export async function openRun(dir, { kind, settings, shard = null }) {
  await mkdir(dir, { recursive: true });
  const info = await readRunInfo(dir);
  if (info) {
    checkSameRun(info, { kind, settings }, dir);
    if (!sameJson(info.shard, shard)) {
      throw new EvalError(`${dir} holds shard ${formatShard(info.shard)}, this run is shard ${formatShard(shard)}; use another --out folder`);
    }
  } else {
    if (existsSync(path.join(dir, RECORDS_FILE))) throw new EvalError(`${dir} has ${RECORDS_FILE} but no ${RUN_FILE}: records of unknown settings; use another --out folder`);
    await writeRunInfo(dir, { kind, settings, shard });
  }
  const done = await readRecords(dir, { repair: true });
  const handle = await open(path.join(dir, RECORDS_FILE), 'a');
  return {
    done,
    async append(key, record) {
      // One write per line, synced: a crash leaves whole lines plus at most one partial.
      await handle.write(recordLine(key, record));
      await handle.datasync();
      done.set(key, record);
    },
    close: () => handle.close(),
  };
}

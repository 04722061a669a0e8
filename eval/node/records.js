// A run folder DIR:
//   run.json       { kind, settings, data, shard } — how the records were computed
//                  (settings), from which photos (data: ./data-identity.js) and which share
//   records.jsonl  one line per finished item, {"key":...,"record":...}, or
//                  {"key":...,"skipped":"reason"} for an unreadable one skipped
//                  (--on-unreadable skip), appended (and synced to disk) as each item
//                  finishes, so an interrupted run loses at most the item in flight and the
//                  next run with the same settings and data resumes.
// A folder holding another kind, other settings, other data or another shard is refused
// rather than mixed: records are only comparable when everything that shapes them is equal.
import { existsSync } from 'node:fs';
import { mkdir, open, readFile, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { canonicalJson, compareKeys, describeDifferences, sameJson } from './json.js';
import { formatShard } from './shard.js';
import { UserError } from '../../runtime/errors.js';

export const RUN_FILE = 'run.json';
export const RECORDS_FILE = 'records.jsonl';

export async function readRunInfo(dir) {
  const file = path.join(dir, RUN_FILE);
  let text;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if (err.code === 'ENOENT') return null;
    throw new UserError(`cannot read ${file}: ${err.message}`);
  }
  try {
    const info = JSON.parse(text);
    if (typeof info?.kind !== 'string' || !('settings' in info)) throw new Error('it lacks "kind" or "settings"');
    return { kind: info.kind, settings: info.settings, data: info.data ?? null, shard: info.shard ?? null };
  } catch (err) {
    throw new UserError(`${file} is not a run description: ${err.message}`);
  }
}

export async function writeRunInfo(dir, { kind, settings, data, shard = null }) {
  await writeFile(path.join(dir, RUN_FILE), `${canonicalJson({ kind, settings, data, shard }, 2)}\n`);
}

// Refuses to combine `info` (from a folder) with what a run or merge expects (settings
// are left out of the comparison when `expected` has none: checkRunFolder before the
// model loads).
export function checkSameRun(info, expected, where) {
  if (info.kind !== expected.kind) {
    throw new UserError(`${where} holds a ${info.kind} evaluation, not ${expected.kind}; use another --out folder`);
  }
  if ('settings' in expected && !sameJson(info.settings, expected.settings)) {
    throw new UserError(`${where} was computed with other settings (${describeDifferences(info.settings, expected.settings)}); use another --out folder or the same settings`);
  }
  if (!sameJson(info.data, expected.data)) {
    throw new UserError(`${where} was computed on other data (${describeDifferences(info.data, expected.data)}); use another --out folder or the same photos and labels`);
  }
}

// Entries of a folder → Map key → { record } or { skipped: reason }. A last line without its newline is what an
// interrupted write leaves: it is dropped (and cut off the file when `repair`, so appends
// start on a clean line). Any other bad line is an error.
export async function readRecords(dir, { repair = false } = {}) {
  const file = path.join(dir, RECORDS_FILE);
  let text;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if (err.code === 'ENOENT') return new Map();
    throw new UserError(`cannot read ${file}: ${err.message}`);
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
      throw new UserError(`${file} line ${i + 1} is not JSON; the file was edited or damaged`);
    }
    const { key, ...value } = entry ?? {};
    const keys = Object.keys(value);
    if (typeof key !== 'string' || keys.length !== 1 || !(keys[0] === 'record' || typeof value.skipped === 'string')) {
      throw new UserError(`${file} line ${i + 1} is not a {"key","record"} or {"key","skipped"} line`);
    }
    if (records.has(key) && !sameJson(records.get(key), value)) {
      throw new UserError(`${file} holds two different entries for ${key}`);
    }
    records.set(key, value);
  });
  return records;
}

export function sortedEntries(records) {
  return [...records.entries()].sort(([a], [b]) => compareKeys(a, b));
}

// entry: { record } or { skipped: reason }.
export function recordLine(key, entry) {
  return `${canonicalJson({ key, ...entry })}\n`;
}

// Refuses DIR when its run.json holds another kind, data or shard — or other settings,
// when given. → the run.json found, or null.
export async function checkRunFolder(dir, { shard = null, ...expected }) {
  const info = await readRunInfo(dir);
  if (!info) return null;
  checkSameRun(info, expected, dir);
  if (!sameJson(info.shard, shard)) {
    throw new UserError(`${dir} holds shard ${formatShard(info.shard)}, this run is shard ${formatShard(shard)}; use another --out folder`);
  }
  return info;
}

// Prepares DIR for a run: checks or writes run.json, loads the finished records.
// → { done: Map key → entry, append(key, entry), close() }
export async function openRun(dir, { kind, settings, data = null, shard = null }) {
  await mkdir(dir, { recursive: true });
  const info = await checkRunFolder(dir, { kind, settings, data, shard });
  if (!info) {
    if (existsSync(path.join(dir, RECORDS_FILE))) throw new UserError(`${dir} has ${RECORDS_FILE} but no ${RUN_FILE}: records of unknown settings; use another --out folder`);
    await writeRunInfo(dir, { kind, settings, data, shard });
  }
  const done = await readRecords(dir, { repair: true });
  const handle = await open(path.join(dir, RECORDS_FILE), 'a');
  return {
    done,
    async append(key, entry) {
      // One write per line, synced: a crash leaves whole lines plus at most one partial.
      await handle.write(recordLine(key, entry));
      await handle.datasync();
      done.set(key, entry);
    },
    close: () => handle.close(),
  };
}

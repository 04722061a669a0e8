// The models a visitor opened from their own device (“Open your model…”), kept in this
// browser's Cache Storage under local URLs beside the site's models,
// <models>/local/<name>/<file>?sha256=<hash>: the cache and the keys through which the
// Worker reads every model file (web/lib/model-fetch.js), so a kept model opens exactly as
// a site model opens, without a second read path (OPFS would need one in the Worker and
// in the attribution job). A key is a name in the cache only: nothing is ever requested
// from it, nothing leaves the browser.
import { openCache, versionedUrl, sha256Hex, keepBytes, wholeKey } from '../../lib/model-fetch.js';
import { pageFiles } from '../../lib/model-files.js';

const FOLDER = 'local/';
// Written after every file is kept: a model is listed only once it is whole.
const RECORD = 'entry.json';

const folderOf = (siteBase) => new URL(FOLDER, siteBase).href;
const baseOf = (siteBase, name) => new URL(`${encodeURIComponent(name)}/`, folderOf(siteBase)).href;

async function cacheOrThrow() {
  const cache = await openCache();
  if (!cache) throw new Error('this browser offers the page no storage here (Cache Storage needs https or localhost), so a model cannot be kept');
  return cache;
}

// → [{ entry, base, info, local: true }] by name: every model kept in this browser.
export async function listLocalModels(siteBase) {
  const cache = await openCache();
  if (!cache) return [];
  const folder = folderOf(siteBase);
  const records = (await cache.keys()).filter((r) => r.url.startsWith(folder) && r.url.endsWith(`/${RECORD}`));
  const models = await Promise.all(records.map(async (request) => {
    const { entry, info } = await (await cache.match(request)).json();
    return { entry, base: request.url.slice(0, -RECORD.length), info, local: true };
  }));
  return models.sort((a, b) => a.entry.name.localeCompare(b.entry.name));
}

// The keys a kept model's files are under: built from its checked name and file names
// (web/page/lib/model-folder.js) and their hashes only. A file's pieces are named from its key.
const keysOf = ({ entry, base }) => new Set(pageFiles(entry).map((n) => versionedUrl(new URL(n, base).href, entry.sha256[n])));

// Keeps a checked folder's model's files (web/page/lib/model-folder.js), each hashed, checked
// against its index.json's hash where it gives one, and stored under that hash, beside
// those of a kept model of the same name, which stays listed and whole: the page opens
// the new one first (web/page/model-picker.js), then lists it (commitLocalModel) or takes
// its files back (dropStagedModel). A failure here takes them back itself.
// onProgress(done, total) counts files. → { entry, base, info, local: true }
export async function stageLocalModel(siteBase, { entry, files, info }, onProgress) {
  const cache = await cacheOrThrow();
  const sha256 = {};
  const staged = { entry: { ...entry, sha256 }, base: baseOf(siteBase, entry.name), info, local: true };
  try {
    for (const [i, [name, file]] of files.entries()) {
      const bytes = new Uint8Array(await file.arrayBuffer());
      const got = await sha256Hex(bytes);
      if (entry.sha256?.[name] && entry.sha256[name] !== got) {
        throw new Error(`${name} does not match its index.json (SHA-256 ${got.slice(0, 12)}…, the index says ${entry.sha256[name].slice(0, 12)}…): the folder mixes files of two exports`);
      }
      sha256[name] = got;
      await keepBytes(cache, versionedUrl(new URL(name, staged.base).href, got), bytes);
      onProgress?.(i + 1, files.length);
    }
    return staged;
  } catch (err) {
    await dropStagedModel(staged);
    if (err?.name === 'QuotaExceededError') throw new Error(`${entry.name}: the browser's storage for this site is full (${err.message})`);
    throw err;
  }
}

// Lists a staged model in place of the kept one of its name (the record is one write),
// then drops the files only that one used.
export async function commitLocalModel(staged) {
  const cache = await cacheOrThrow();
  await cache.put(new URL(RECORD, staged.base).href, new Response(JSON.stringify({ entry: staged.entry, info: staged.info })));
  await dropUnlisted(cache, staged.base, keysOf(staged));
  navigator.storage?.persist?.().catch(() => {}); // asks the browser not to evict it under pressure
}

// Takes a staged model's files back, leaving those of the kept model of its name.
export async function dropStagedModel(staged) {
  const cache = await cacheOrThrow();
  const record = await cache.match(new URL(RECORD, staged.base).href);
  const kept = record && await record.json().catch(() => null);
  await dropUnlisted(cache, staged.base, kept?.entry ? keysOf({ entry: kept.entry, base: staged.base }) : new Set());
}

// Deletes what is kept under `base` but its record and the files `keep` names.
async function dropUnlisted(cache, base, keep) {
  const record = new URL(RECORD, base).href;
  for (const request of await cache.keys()) {
    if (request.url.startsWith(base) && request.url !== record && !keep.has(wholeKey(request.url))) await cache.delete(request);
  }
}

export async function removeLocalModel(siteBase, name) {
  const cache = await cacheOrThrow();
  const base = baseOf(siteBase, name);
  for (const request of await cache.keys()) {
    if (request.url.startsWith(base)) await cache.delete(request);
  }
}

// The files of a kept model the browser no longer holds (it may clear storage), or [].
export async function missingLocalFiles({ entry, base }, files) {
  const cache = await openCache();
  const missing = [];
  for (const name of files) {
    if (!cache || !await cache.match(versionedUrl(new URL(name, base).href, entry.sha256[name]))) missing.push(name);
  }
  return missing;
}

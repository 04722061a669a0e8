// The models a visitor opened from their own device (“Open your model…”), kept in this
// browser's Cache Storage under local URLs beside the site's models,
// <models>/local/<name>/<file>?sha256=<hash>: the cache and the keys through which the
// Worker reads every model file (web/lib/model-fetch.js), so a kept model opens exactly as
// a site model opens, without a second read path (OPFS would need one in the Worker and
// in the attribution job). A key is a name in the cache only: nothing is ever requested
// from it, nothing leaves the browser.
import { openCache, versionedUrl, sha256Hex, keepBytes } from './model-fetch.js';

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

// Keeps a checked folder's model (web/lib/model-folder.js): each file hashed, checked
// against its index.json's hash where it gives one, and stored under that hash; the
// record last. A model of the same name is replaced (a new export of it). A failure
// leaves nothing of the model behind. onProgress(done, total) counts files.
export async function keepLocalModel(siteBase, { entry, files, info }, onProgress) {
  const cache = await cacheOrThrow();
  const base = baseOf(siteBase, entry.name);
  await removeLocalModel(siteBase, entry.name);
  const sha256 = { ...entry.sha256 };
  try {
    for (const [i, [name, file]] of files.entries()) {
      const bytes = new Uint8Array(await file.arrayBuffer());
      const got = await sha256Hex(bytes);
      if (entry.sha256?.[name] && entry.sha256[name] !== got) {
        throw new Error(`${name} does not match its index.json (SHA-256 ${got.slice(0, 12)}…, the index says ${entry.sha256[name].slice(0, 12)}…): the folder mixes files of two exports`);
      }
      sha256[name] = got;
      await keepBytes(cache, versionedUrl(new URL(name, base).href, got), bytes);
      onProgress?.(i + 1, files.length);
    }
    const kept = { ...entry, sha256 };
    await cache.put(new URL(RECORD, base).href, new Response(JSON.stringify({ entry: kept, info })));
    navigator.storage?.persist?.().catch(() => {}); // asks the browser not to evict it under pressure
    return { entry: kept, base, info, local: true };
  } catch (err) {
    await removeLocalModel(siteBase, entry.name);
    if (err?.name === 'QuotaExceededError') throw new Error(`${entry.name}: the browser's storage for this site is full (${err.message})`);
    throw err;
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

// Downloads a model file with byte-level progress and keeps it in Cache Storage so the
// next visit starts without the download; an interrupted download resumes where it broke
// (a Range request). Works in the page and in Workers.

const CACHE_NAME = 'vit-relevance-models-v1';

export async function openCache() {
  try {
    return globalThis.caches ? await caches.open(CACHE_NAME) : null; // absent on insecure origins
  } catch {
    return null;
  }
}

// Reads a Response body chunk by chunk into `chunks` (the caller keeps what arrived when
// the connection breaks), reporting (loaded, total) as it goes, `loaded` counting from `start`.
async function readWithProgress(response, chunks, start, total, onProgress) {
  if (!response.body) {
    chunks.push(new Uint8Array(await response.arrayBuffer()));
    return;
  }
  const reader = response.body.getReader();
  let loaded = start;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.byteLength;
    onProgress?.(loaded, total);
  }
}

const join = (chunks) => {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const c of chunks) { out.set(c, at); at += c.byteLength; }
  return out;
};

// The URL a file is downloaded and cached under: with models/index.json's hash of its
// content in the query, so a re-export gets a new key (an older visit's copy is never
// read) and passes HTTP caches and CDNs that still hold the old file. Static servers
// ignore the query.
export function versionedUrl(url, sha256) {
  if (!sha256) return url;
  const u = new URL(url);
  u.searchParams.set('sha256', sha256);
  return u.href;
}

export async function sha256Hex(bytes) {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

// Drops the cached copies of `url` other than `keep` (older versions, or one cached
// before the index had hashes): each is the size of the model file.
async function dropOtherCopies(cache, url, keep) {
  const path = (u) => { const x = new URL(u); return x.origin + x.pathname; };
  const target = path(url);
  for (const request of await cache.keys()) {
    if (request.url !== keep && path(request.url) === target) await cache.delete(request);
  }
}

// The part of a download that arrived before its connection broke, kept in Cache Storage
// beside the whole file's key: the next attempt asks for the rest only (a Range request).
// Kept only for a file with a hash: its key names that content, and the hash check after
// the resumed download proves the parts belong together.
const partialKey = (key) => { const u = new URL(key); u.searchParams.set('partial', '1'); return u.href; };

// Downloads `key`, from where an earlier attempt's `head` stopped when the server answers
// that range (206); → bytes. A broken connection keeps what arrived for the next attempt.
async function download(key, url, { cache, head, expectedBytes, onProgress }) {
  const response = await fetch(key, head ? { headers: { Range: `bytes=${head.byteLength}-` } } : {});
  if (!response.ok) throw new Error(`could not download ${url}: HTTP ${response.status}`);
  const resumed = response.status === 206 && response.headers.get('Content-Range')?.startsWith(`bytes ${head?.byteLength}-`);
  const chunks = resumed ? [head] : [];
  const start = resumed ? head.byteLength : 0;
  const total = start + (Number(response.headers.get('Content-Length')) || 0) || expectedBytes || 0;
  try {
    await readWithProgress(response, chunks, start, total, onProgress);
  } catch (err) {
    const part = join(chunks);
    if (cache && part.byteLength) await cache.put(partialKey(key), new Response(part)).catch(() => {});
    throw new Error(`could not download ${url}: the connection broke after ${part.byteLength} bytes (${err.message}); loading again resumes from there`);
  }
  if (head) await cache.delete(partialKey(key));
  return join(chunks);
}

// Returns { bytes: Uint8Array, fromCache: boolean }. `sha256` (models/index.json's hash of
// the file) keys the cached copy and checks a download; without one (an index written
// before the hashes) the URL is the key and `expectedBytes` drops a cached copy of
// another size.
export async function fetchModelBytes(url, { sha256, expectedBytes, onProgress } = {}) {
  const key = versionedUrl(url, sha256);
  const cache = await openCache();
  const cached = cache && await cache.match(key);
  if (cached) {
    const bytes = new Uint8Array(await cached.arrayBuffer());
    if (sha256 || !expectedBytes || bytes.byteLength === expectedBytes) {
      onProgress?.(bytes.byteLength, bytes.byteLength);
      return { bytes, fromCache: true };
    }
    await cache.delete(key);
  }
  // WebCrypto exists in secure contexts only, as Cache Storage does.
  const checked = Boolean(cache && sha256 && globalThis.crypto?.subtle);
  const kept = checked && await cache.match(partialKey(key));
  const head = kept ? new Uint8Array(await kept.arrayBuffer()) : null;
  const bytes = await download(key, url, { cache: checked && cache, head, expectedBytes, onProgress });
  if (expectedBytes && bytes.byteLength !== expectedBytes) {
    throw new Error(`${url} has ${bytes.byteLength} bytes, models/index.json says ${expectedBytes}`);
  }
  if (sha256 && globalThis.crypto?.subtle) {
    const got = await sha256Hex(bytes);
    if (got !== sha256) {
      throw new Error(`${url} does not match models/index.json: its SHA-256 is ${got}, the index says ${sha256} `
        + '(the files and the index come from different builds)');
    }
  }
  if (cache) {
    // A failed cache write (quota) only costs the next visit a download.
    await cache.put(key, new Response(bytes, { headers: { 'Content-Type': 'application/octet-stream' } }))
      .then(() => dropOtherCopies(cache, url, key))
      .catch(() => {});
  }
  return { bytes, fromCache: false };
}

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

// A download's bytes, written into one buffer sized from the expected length as they
// arrive: chunks joined at the end hold the file twice (692 MB at once for ViT-B/16's
// weights). It grows when more arrive (a compressed response's Content-Length counts the
// compressed bytes).
class Received {
  constructor(expected) {
    this.buffer = new Uint8Array(expected || 2 ** 20);
    this.length = 0;
  }

  add(chunk) {
    const needed = this.length + chunk.byteLength;
    if (needed > this.buffer.byteLength) {
      const grown = new Uint8Array(Math.max(2 * this.buffer.byteLength, needed));
      grown.set(this.buffer.subarray(0, this.length));
      this.buffer = grown;
    }
    this.buffer.set(chunk, this.length);
    this.length = needed;
  }

  get bytes() { return this.length === this.buffer.byteLength ? this.buffer : this.buffer.slice(0, this.length); }
}

// Reads a Response body chunk by chunk into `received` (the caller keeps what arrived
// when the connection breaks), reporting (loaded, total) as it goes.
async function readWithProgress(response, received, total, onProgress) {
  if (!response.body) {
    received.add(new Uint8Array(await response.arrayBuffer()));
    return;
  }
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received.add(value);
    onProgress?.(received.length, total);
  }
}

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

// Drops the cached copies of `url` other than `keep` and its pieces (older versions, or
// one cached before the index had hashes): each is the size of the model file.
async function dropOtherCopies(cache, url, keep) {
  const path = (u) => { const x = new URL(u); return x.origin + x.pathname; };
  const target = path(url);
  for (const request of await cache.keys()) {
    if (path(request.url) === target && wholeKey(request.url) !== keep) await cache.delete(request);
  }
}

// A file over PIECE_BYTES is kept as pieces of that size, each its own entry, and an empty
// entry under its key that counts them, written last (so a file is cached only once whole):
// Chromium refuses one entry of about 256 MB or more in a private window (found with a
// 346 MB ViT-B/16 weights file, which every visit then downloaded again), and a piece at a
// time is all a reading holds beside the file.
const PIECE_BYTES = 64 * 2 ** 20;
const PIECES = 'X-Vitrel-Pieces';
const BYTES = 'X-Vitrel-Bytes';
const pieceKey = (key, i) => { const u = new URL(key); u.searchParams.set('piece', String(i)); return u.href; };
export const wholeKey = (key) => { const u = new URL(key); u.searchParams.delete('piece'); return u.href; };

/** Keeps `bytes` in `cache` under `key` (in pieces when large); a failed write throws. */
export async function keepBytes(cache, key, bytes) {
  const headers = { 'Content-Type': 'application/octet-stream' };
  if (bytes.byteLength <= PIECE_BYTES) {
    await cache.put(key, new Response(bytes, { headers }));
    return;
  }
  const count = Math.ceil(bytes.byteLength / PIECE_BYTES);
  try {
    for (let i = 0; i < count; i++) {
      await cache.put(pieceKey(key, i), new Response(bytes.subarray(i * PIECE_BYTES, (i + 1) * PIECE_BYTES), { headers }));
    }
    await cache.put(key, new Response(null, { headers: { [PIECES]: String(count), [BYTES]: String(bytes.byteLength) } }));
  } catch (err) {
    await forget(cache, key).catch(() => {}); // no orphan pieces (quota)
    throw err;
  }
}

// Drops `key` and its pieces.
async function forget(cache, key) {
  for (const request of await cache.keys()) if (wholeKey(request.url) === key) await cache.delete(request);
}

// The bytes kept under `key` (joined from its pieces), or null when it is not kept whole.
async function readKept(cache, key) {
  const kept = await cache.match(key);
  if (!kept) return null;
  const count = Number(kept.headers.get(PIECES));
  if (!count) return new Uint8Array(await kept.arrayBuffer());
  const total = Number(kept.headers.get(BYTES));
  if (!Number.isSafeInteger(total) || total < 0) return null;
  // Each piece read chunk by chunk into the file's buffer: a piece read whole would be one
  // more 64 MB buffer apiece, alive until V8 collects it (about 200 MB beside ViT-B/16's
  // weights when its session reopens).
  const received = new Received(total);
  for (let i = 0; i < count; i++) {
    const piece = await cache.match(pieceKey(key, i));
    if (!piece) return null;
    await readWithProgress(piece, received, total);
  }
  return received.length === total ? received.bytes : null; // more or fewer bytes: no file
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
  const start = resumed ? head.byteLength : 0;
  const total = start + (Number(response.headers.get('Content-Length')) || 0) || expectedBytes || 0;
  const received = new Received(total);
  if (resumed) received.add(head);
  try {
    await readWithProgress(response, received, total, onProgress);
  } catch (err) {
    const part = received.bytes;
    if (cache && part.byteLength) await cache.put(partialKey(key), new Response(part)).catch(() => {});
    throw new Error(`could not download ${url}: the connection broke after ${part.byteLength} bytes (${err.message}); loading again resumes from there`);
  }
  if (head) await cache.delete(partialKey(key));
  return received.bytes;
}

// Returns { bytes: Uint8Array, fromCache: boolean }. `sha256` (models/index.json's hash of
// the file) keys the cached copy and checks a download; without one (an index written
// before the hashes) the URL is the key and `expectedBytes` drops a cached copy of
// another size.
export async function fetchModelBytes(url, { sha256, expectedBytes, onProgress } = {}) {
  const key = versionedUrl(url, sha256);
  const cache = await openCache();
  const cached = cache && await readKept(cache, key);
  if (cached) {
    if (sha256 || !expectedBytes || cached.byteLength === expectedBytes) {
      onProgress?.(cached.byteLength, cached.byteLength);
      return { bytes: cached, fromCache: true };
    }
    await forget(cache, key);
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
    await keepBytes(cache, key, bytes)
      .then(() => dropOtherCopies(cache, url, key))
      .catch(() => {});
  }
  return { bytes, fromCache: false };
}

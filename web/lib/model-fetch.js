// Downloads a model file with byte-level progress and keeps it in Cache Storage so the
// next visit starts without the download. Works in the page and in Workers.

const CACHE_NAME = 'vit-relevance-models-v1';

async function openCache() {
  try {
    return globalThis.caches ? await caches.open(CACHE_NAME) : null; // absent on insecure origins
  } catch {
    return null;
  }
}

// Reads a Response body chunk by chunk, reporting (loaded, total) as it goes.
async function readWithProgress(response, total, onProgress) {
  if (!response.body) return new Uint8Array(await response.arrayBuffer());
  const reader = response.body.getReader();
  const chunks = [];
  let loaded = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.byteLength;
    onProgress?.(loaded, total);
  }
  const out = new Uint8Array(loaded);
  let at = 0;
  for (const c of chunks) { out.set(c, at); at += c.byteLength; }
  return out;
}

// Returns { bytes: Uint8Array, fromCache: boolean }. `expectedBytes` (from models/index.json)
// invalidates a cached copy of a different size, e.g. after a re-export.
export async function fetchModelBytes(url, { expectedBytes, onProgress } = {}) {
  const cache = await openCache();
  const cached = cache && await cache.match(url);
  if (cached) {
    const bytes = new Uint8Array(await cached.arrayBuffer());
    if (!expectedBytes || bytes.byteLength === expectedBytes) {
      onProgress?.(bytes.byteLength, bytes.byteLength);
      return { bytes, fromCache: true };
    }
    await cache.delete(url);
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`could not download ${url}: HTTP ${response.status}`);
  const total = Number(response.headers.get('Content-Length')) || expectedBytes || 0;
  const bytes = await readWithProgress(response, total, onProgress);
  if (expectedBytes && bytes.byteLength !== expectedBytes) {
    throw new Error(`${url} has ${bytes.byteLength} bytes, models/index.json says ${expectedBytes}`);
  }
  if (cache) {
    // A failed cache write (quota) only costs the next visit a download.
    await cache.put(url, new Response(bytes, { headers: { 'Content-Type': 'application/octet-stream' } }))
      .catch(() => {});
  }
  return { bytes, fromCache: false };
}

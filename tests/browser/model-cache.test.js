// A model file over 64 MB is kept in Cache Storage in pieces (web/lib/model-fetch.js):
// Chromium's private windows, as these tests' contexts are, refuse one entry of about
// 256 MB or more (so a ViT-B/16's weights were downloaded on every visit). A 300 MB file
// is downloaded once and read back whole from its pieces; a missing piece makes it a
// download again (as does a count entry with no size in it), and older copies go with
// their pieces. Pieces that do not add up to the size their count entry gives are
// downloaded again too.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { skipReason, startSite, launch, openPage, paths } from './harness.js';

const skip = skipReason() ?? false;
const big = new Uint8Array(300 * 2 ** 20);
for (let i = 0; i < big.length; i += 4096) big[i] = (i / 4096) % 251; // pieces that differ
const sha256 = createHash('sha256').update(big).digest('hex');
let site;
let browser;
let page;

before(async () => {
  if (skip) return;
  site = await startSite({
    overrides: {
      '/big.bin': { body: Buffer.from(big.buffer) },
      '/model-fetch.js': { body: readFileSync(path.join(paths.root, 'web', 'lib', 'model-fetch.js')), type: 'text/javascript' },
    },
  });
  browser = await launch();
  ({ page } = await openPage(browser, site.url));
});
after(async () => {
  await browser?.close();
  await site?.close();
});

// fetchModelBytes of big.bin in the page → { fromCache, sha256 of the bytes, the cache's keys of it }.
const fetchBig = () => page.evaluate(async (sha) => {
  const { fetchModelBytes } = await import('/model-fetch.js');
  const { bytes, fromCache } = await fetchModelBytes(new URL('/big.bin', location.href).href, { sha256: sha });
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  const cache = await caches.open('vit-relevance-models-v1');
  const keys = (await cache.keys()).map((r) => new URL(r.url)).filter((u) => u.pathname === '/big.bin').map((u) => u.search).sort();
  return { fromCache, sha256: Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join(''), keys };
}, sha256);

test('a 300 MB file is kept in pieces and read back whole', { skip, timeout: 300_000 }, async () => {
  await page.evaluate(async () => {
    const cache = await caches.open('vit-relevance-models-v1');
    await cache.put(new URL('/big.bin?sha256=older', location.href).href, new Response('an older build'));
  });
  const first = await fetchBig();
  assert.equal(first.fromCache, false);
  assert.equal(first.sha256, sha256);
  const key = `?sha256=${sha256}`;
  assert.deepEqual(first.keys, [key, ...[0, 1, 2, 3, 4].map((i) => `${key}&piece=${i}`)], 'five pieces and their count; the older copy gone');
  const again = await fetchBig();
  assert.equal(again.fromCache, true);
  assert.equal(again.sha256, sha256);
});

test('a file with a piece missing is downloaded again', { skip, timeout: 300_000 }, async () => {
  await page.evaluate(async (sha) => {
    const cache = await caches.open('vit-relevance-models-v1');
    await cache.delete(new URL(`/big.bin?sha256=${sha}&piece=3`, location.href).href);
  }, sha256);
  const got = await fetchBig();
  assert.equal(got.fromCache, false);
  assert.equal(got.sha256, sha256);
  assert.equal(got.keys.length, 6);
});

test('a piece count entry with a byte count that is no size is downloaded again, not trusted', { skip, timeout: 300_000 }, async () => {
  await page.evaluate(async (sha) => {
    const cache = await caches.open('vit-relevance-models-v1');
    await cache.put(new URL(`/big.bin?sha256=${sha}`, location.href).href,
      new Response(null, { headers: { 'X-Vitrel-Pieces': '5', 'X-Vitrel-Bytes': '-5' } }));
  }, sha256);
  const got = await fetchBig();
  assert.equal(got.fromCache, false);
  assert.equal(got.sha256, sha256);
});

// The pieces are written into one buffer of the count entry's size as they stream in: more
// bytes than it (a piece overflowing it) or fewer are no file, and are downloaded again.
for (const [what, bytes] of [['more bytes than their count entry says', 100 * 2 ** 20], ['fewer bytes than it says', big.length + 1]]) {
  test(`pieces of ${what} are downloaded again, not trusted`, { skip, timeout: 300_000 }, async () => {
    await page.evaluate(async ({ sha, size }) => {
      const cache = await caches.open('vit-relevance-models-v1');
      await cache.put(new URL(`/big.bin?sha256=${sha}`, location.href).href,
        new Response(null, { headers: { 'X-Vitrel-Pieces': '5', 'X-Vitrel-Bytes': String(size) } }));
    }, { sha: sha256, size: bytes });
    const got = await fetchBig();
    assert.equal(got.fromCache, false);
    assert.equal(got.sha256, sha256);
    assert.equal((await fetchBig()).fromCache, true, 'kept whole again');
  });
}

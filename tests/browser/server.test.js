// The static server: MIME types (application/wasm), COOP/COEP, validators (304 for an
// unchanged file), no directory traversal. Hostile requests: tests/node/server-*.test.js.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createStaticServer, listen, resolveInside } from '../../scripts/serve.js';

let server;
let base;
const root = mkdtempSync(path.join(tmpdir(), 'vitrel-serve-'));

before(async () => {
  mkdirSync(path.join(root, 'sub'));
  writeFileSync(path.join(root, 'index.html'), '<!doctype html>');
  writeFileSync(path.join(root, 'core.wasm'), Buffer.from([0, 97, 115, 109]));
  writeFileSync(path.join(root, 'app.js'), 'export {}');
  writeFileSync(path.join(root, 'sub', 'index.html'), 'sub');
  writeFileSync(path.join(path.dirname(root), 'secret.txt'), 'secret');
  server = createStaticServer(root);
  base = `http://127.0.0.1:${await listen(server, 0)}`;
});
after(() => server.close());

test('serves files with their MIME types and cross-origin isolation headers', async () => {
  const wasm = await fetch(`${base}/core.wasm`);
  assert.equal(wasm.status, 200);
  assert.equal(wasm.headers.get('content-type'), 'application/wasm');
  assert.equal(wasm.headers.get('cross-origin-opener-policy'), 'same-origin');
  assert.equal(wasm.headers.get('cross-origin-embedder-policy'), 'require-corp');
  assert.match((await fetch(`${base}/app.js`)).headers.get('content-type'), /^text\/javascript/);
  assert.match((await fetch(`${base}/`)).headers.get('content-type'), /^text\/html/);
  assert.equal(await (await fetch(`${base}/sub/`)).text(), 'sub');
});

test('answers 304 to a request that holds the current ETag, 200 once the file changed', async () => {
  const first = await fetch(`${base}/app.js`);
  const etag = first.headers.get('etag');
  assert.ok(etag, 'an ETag is sent');
  assert.equal(first.headers.get('cache-control'), 'no-cache');
  const again = await fetch(`${base}/app.js`, { headers: { 'If-None-Match': etag } });
  assert.equal(again.status, 304);
  assert.equal(again.headers.get('cross-origin-embedder-policy'), 'require-corp');
  writeFileSync(path.join(root, 'app.js'), 'export const changed = true;');
  const changed = await fetch(`${base}/app.js`, { headers: { 'If-None-Match': etag } });
  assert.equal(changed.status, 200);
  assert.notEqual(changed.headers.get('etag'), etag);
  assert.match(await changed.text(), /changed/);
});

test('refuses paths outside the root and answers 404 for missing files', async () => {
  for (const p of ['/../secret.txt', '/%2e%2e/secret.txt', '/sub/%2e%2e/%2e%2e/secret.txt', '/..%2fsecret.txt']) {
    const r = await fetch(`${base}${p}`);
    assert.notEqual(r.status, 200, p);
    assert.doesNotMatch(await r.text(), /secret/, p);
  }
  assert.throws(() => resolveInside(root, '/%00'), /NUL byte/);
  assert.equal((await fetch(`${base}/missing.js`)).status, 404);
  assert.equal((await fetch(`${base}/core.wasm`, { method: 'POST' })).status, 405);
});

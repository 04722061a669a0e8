// One home for the site's headers (scripts/site-headers.js): the server sends exactly the
// table's headers for every route, static hosts get the same through _headers and nginx
// (docs/hosting.md prints them; this test keeps the page equal to the table), every page
// in web/ has its policy, and no header comes from two rules that match one path.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  HEADER_RULES, DEFAULT_DOCUMENT_POLICY, headersFor, headersFile, nginxConfig, overlappingRules,
} from '../../scripts/site-headers.js';
import { createStaticServer, listen } from '../../scripts/serve.js';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const CSP = 'Content-Security-Policy';
const root = mkdtempSync(path.join(tmpdir(), 'vitrel-headers-'));
const FILES = ['index.html', 'embed.html', 'docs.html', 'other.html', 'worker.js', 'app.js', 'ort/ort.wasm.min.mjs',
  'ort/v1.2.3/ort-wasm-simd-threaded.mjs', 'ort/v1.2.3/ort-wasm-simd-threaded.wasm', 'models/index.json'];
let server;
let base;

before(async () => {
  for (const f of FILES) {
    mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    writeFileSync(path.join(root, f), f);
  }
  server = createStaticServer(root);
  base = `http://127.0.0.1:${await listen(server, 0)}`;
});
after(() => server.close());

test('the server sends the table\'s headers for each file, the page policy to / and any other page', async () => {
  for (const f of FILES) {
    const r = await fetch(`${base}/${f}`);
    assert.equal(r.status, 200, f);
    const expected = headersFor(`/${f}`);
    if (f === 'other.html') expected[CSP] = DEFAULT_DOCUMENT_POLICY;
    for (const [name, value] of Object.entries(expected)) assert.equal(r.headers.get(name), value, `${f}: ${name}`);
    if (!(CSP in expected)) assert.equal(r.headers.get(CSP), null, `${f} has no policy`);
  }
  assert.equal((await fetch(`${base}/`)).headers.get(CSP), headersFor('/index.html')[CSP]);
  assert.match(headersFor('/embed.html')[CSP], /frame-ancestors \*$/);
  assert.match(headersFor('/index.html')[CSP], /frame-ancestors 'self'$/);
  assert.doesNotMatch(JSON.stringify(HEADER_RULES), /'unsafe-eval'|'unsafe-inline'/, 'no JavaScript from strings, no inline code');
});

test('onnxruntime-web under its version is immutable; everything else is revalidated on every visit', async () => {
  for (const f of FILES) {
    const r = await fetch(`${base}/${f}`);
    const expected = f.startsWith('ort/v') ? 'public, max-age=31536000, immutable' : 'no-cache';
    assert.equal(r.headers.get('cache-control'), expected, f);
    // and so is a 304
    const again = await fetch(`${base}/${f}`, { headers: { 'If-None-Match': r.headers.get('etag') } });
    assert.equal(again.status, 304, f);
    assert.equal(again.headers.get('cache-control'), expected, `${f}: 304`);
  }
});

test('without isolation the COOP/COEP/CORP headers go, the policy stays', async () => {
  const plain = createStaticServer(root, { isolate: false });
  const url = `http://127.0.0.1:${await listen(plain, 0)}/index.html`;
  try {
    const r = await fetch(url);
    assert.equal(r.headers.get('cross-origin-embedder-policy'), null);
    assert.equal(r.headers.get(CSP), headersFor('/index.html')[CSP]);
  } finally {
    plain.close();
  }
});

test('no header is set by two rules that match one path (hosts would join the two values)', () => {
  assert.deepEqual(overlappingRules(), []);
});

test('every page in web/ has a policy rule, so static hosts send it too', () => {
  const pages = readdirSync(path.join(repo, 'web')).filter((n) => n.endsWith('.html'));
  assert.ok(pages.includes('index.html'));
  for (const page of pages) {
    assert.ok(HEADER_RULES.some((r) => CSP in r.headers && r.paths.includes(`/${page}`)), `a rule for /${page}`);
  }
});

test('docs/hosting.md shows the _headers file and the nginx configuration the table gives', () => {
  const doc = readFileSync(path.join(repo, 'docs', 'hosting.md'), 'utf8');
  const fenced = (text, lang) => `\`\`\`${lang}\n${text}\`\`\``;
  assert.ok(doc.includes(fenced(headersFile(), 'text')), `docs/hosting.md: _headers should read\n${headersFile()}`);
  const { http, server: serverBlock } = nginxConfig();
  assert.ok(doc.includes(fenced(http, 'nginx')), `docs/hosting.md: nginx http block should read\n${http}`);
  assert.ok(doc.includes(fenced(serverBlock, 'nginx')), `docs/hosting.md: nginx server block should read\n${serverBlock}`);
});

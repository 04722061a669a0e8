// Every hostile case of server-cases.js against `node scripts/serve.js` (as `npm start`
// runs it): the exact status and body, and afterwards the server is alive, holds no more
// descriptors than before and still serves the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import path from 'node:path';
import { SERVER_CASES, SERVER_START_CASES } from './server-cases.js';
import { makeSite, startServer, rawRequest, openDescriptors, settle } from './server-support.js';

const site = makeSite();
let server;
before(async () => { server = await startServer(site.root); });
after(() => server?.stop());

const expectBody = (actual, expected, name) =>
  (expected instanceof RegExp ? assert.match(actual, expected, name) : assert.equal(actual, expected, name));

test('each hostile request gets its status and message, and the server stays up', async () => {
  const baseline = openDescriptors(server.pid);
  for (const c of SERVER_CASES) {
    const r = await rawRequest(server.port, c.request);
    assert.equal(r.status, c.status, `${c.name}: status`);
    expectBody(r.body, c.body, c.name);
    assert.ok(server.alive(), `${c.name}: the server is still running`);
  }
  assert.ok(await settle(() => openDescriptors(server.pid) <= baseline), 'descriptors back to where they were');
  const page = await rawRequest(server.port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n');
  assert.equal(page.status, 200);
  assert.equal(server.stderr(), '', 'no internal error was logged');
});

test('refusals carry the security headers and a plain-text type', async () => {
  const r = await rawRequest(server.port, 'GET /passwd HTTP/1.1\r\nHost: x\r\n\r\n');
  assert.equal(r.status, 403);
  assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
  assert.equal(r.headers['x-content-type-options'], 'nosniff');
  assert.equal(r.headers['cross-origin-resource-policy'], 'same-origin');
  const post = await rawRequest(server.port, 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n');
  assert.equal(post.headers.allow, 'GET, HEAD');
});

test('byte ranges: 206 with Content-Range, 416 naming the size, Accept-Ranges on every file', async () => {
  const get = (range, extra = '') => rawRequest(server.port, `GET /index.html HTTP/1.1\r\nHost: x\r\n${range ? `Range: ${range}\r\n` : ''}${extra}\r\n`);
  const whole = await get(null);
  const size = whole.body.length;
  assert.equal(whole.headers['accept-ranges'], 'bytes');
  const part = await get('bytes=2-8');
  assert.equal(part.headers['content-range'], `bytes 2-8/${size}`);
  assert.equal(part.headers['content-length'], '7');
  assert.equal((await get('bytes=-6')).headers['content-range'], `bytes ${size - 6}-${size - 1}/${size}`);
  const refused = await get(`bytes=${size}-`);
  assert.equal(refused.status, 416);
  assert.equal(refused.headers['content-range'], `bytes */${size}`);
  // If-Range with the file's own Last-Modified keeps the range; the weak ETag never does (RFC 9110).
  const resumed = await get('bytes=2-8', `If-Range: ${whole.headers['last-modified']}\r\n`);
  assert.equal(resumed.status, 206);
  assert.equal((await get('bytes=2-8', `If-Range: ${whole.headers.etag}\r\n`)).status, 200);
  const head = await rawRequest(server.port, 'HEAD /index.html HTTP/1.1\r\nHost: x\r\nRange: bytes=2-8\r\n\r\n');
  assert.equal(head.status, 206);
  assert.equal(head.headers['content-length'], '7');
});

test('a root reached through a symbolic link serves its files and refuses links out', async () => {
  const linkedRoot = path.join(site.base, 'site-link');
  symlinkSync(site.root, linkedRoot);
  const linked = await startServer(linkedRoot);
  try {
    assert.equal((await rawRequest(linked.port, 'GET /index.html HTTP/1.1\r\nHost: x\r\n\r\n')).status, 200);
    assert.equal((await rawRequest(linked.port, 'GET /passwd HTTP/1.1\r\nHost: x\r\n\r\n')).status, 403);
  } finally {
    await linked.stop();
  }
});

const serve = (...args) => spawnSync(process.execPath, ['scripts/serve.js', ...args],
  { cwd: new URL('../..', import.meta.url), encoding: 'utf8', env: { ...process.env, HOST: '127.0.0.1' }, timeout: 10_000 });

test('a bad port stops the server at once, with a message naming it', () => {
  for (const c of SERVER_START_CASES) {
    const r = serve(site.root, c.port);
    assert.equal(r.status, c.exitCode, c.name);
    assert.equal(r.stderr, c.stderr, c.name);
  }
});

test('a port already taken is named, and the server exits', () => {
  const r = serve(site.root, String(server.port));
  assert.equal(r.status, 1);
  assert.equal(r.stderr, `serve: port ${server.port} on 127.0.0.1 is in use: stop what uses it, or choose another with PORT=…\n`);
});

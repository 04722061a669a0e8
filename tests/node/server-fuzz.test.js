// Request fuzzing of `node scripts/serve.js`: a few thousand malformed and random raw
// requests over TCP to 127.0.0.1, from a seeded generator (VITREL_FUZZ_SEED reproduces a
// run, VITREL_FUZZ_REQUESTS scales it). The server must answer each with a status it can
// mean (never 500), never send a byte from outside its root, log nothing, keep running,
// end with as many open descriptors as it started with, and still serve the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mulberry32 } from '../../eval/mosaic.js';
import { makeSite, startServer, rawRequest, openDescriptors, settle } from './server-support.js';

const SEED = Number(process.env.VITREL_FUZZ_SEED ?? 20261122);
const REQUESTS = Number(process.env.VITREL_FUZZ_REQUESTS ?? 3000);
const CONCURRENCY = 24;
// Slack over the starting count: a descriptor leaked per request would show as hundreds;
// this leaves room for a few the runtime may open lazily (none seen so far).
const DESCRIPTOR_SLACK = 4;
const ALLOWED = new Set([200, 206, 304, 400, 403, 404, 405, 408, 416, 431]); // 206, 416: byte ranges
// What the site's links outside the root lead to (makeSite, /etc/passwd).
const LEAKS = /secret beside|secret in a folder|root:x?:0:/;

function generator(rnd) {
  const int = (n) => Math.floor(rnd() * n);
  const pick = (list) => list[int(list.length)];
  const chance = (p) => rnd() < p;
  const bytes = (n) => Buffer.from(Array.from({ length: n }, () => int(256))).toString('latin1');

  const SEGMENTS = ['', '.', '..', '%2e%2e', '%2E.', '..%2f', '%2f', '%5c', '\\', 'index.html', 'sub',
    'sub-link', 'page.html', 'passwd', 'secret-link.txt', 'outside-dir', 'secret.txt', 'link-in.html',
    'loop-a', 'dangling', 'empty.txt', 'app.js', '%00', '%', '%z', '%zz', '%ff', '%c0%ae', '€', '%E2%82%AC',
    ';', ':', '@', '~', '*', '?', '#', '?x=%zz', '#frag'];
  const segment = () => (chance(0.04) ? 'a'.repeat(int(600)) : chance(0.03) ? bytes(1 + int(6)) : pick(SEGMENTS));
  const path = () => '/' + Array.from({ length: int(6) }, segment).join(pick(['/', '/', '/', '//', '\\']));
  const target = () => pick([
    path, path, path, path,
    () => `http://${pick(['x', '', 'x:99999', 'x:-1', '[::1', 'x:80', '%zz', 'a b'])}${path()}`,
    () => pick(['*', 'x:443', '', 'http:', 'https://', 'file:///etc/passwd', 'javascript:alert(1)', '//x/y',
      '/' + 'x'.repeat(int(20_000))]),
  ])();
  const METHODS = ['GET', 'GET', 'GET', 'HEAD', 'POST', 'PUT', 'OPTIONS', 'DELETE', 'CONNECT', 'get', 'BREW', ''];
  const VERSIONS = ['HTTP/1.1', 'HTTP/1.1', 'HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/0.9', 'HTTP/2.0', 'HTTP/1.1 x', ''];
  const header = () => pick([
    () => 'Host: x', () => 'Host: x', () => `Host: ${bytes(int(8))}`, () => 'If-None-Match: W/"0-0"',
    () => `Range: bytes=${int(100)}-${int(100) - 50}`, () => `Content-Length: ${pick([0, 5, -1, '1e9', 'x', 99999999999])}`,
    () => 'Transfer-Encoding: chunked', () => 'Transfer-Encoding: gzip, chunked', () => 'Connection: close',
    () => 'Connection: Upgrade\r\nUpgrade: websocket', () => 'Expect: 100-continue',
    () => `X-Big: ${'b'.repeat(int(24_000))}`, () => `${bytes(1 + int(5))}: ${bytes(int(10))}`, () => ': empty-name',
    () => 'Folded: a\r\n continued',
  ])();
  const structured = () => {
    const eol = chance(0.95) ? '\r\n' : pick(['\n', '\r', '\r\r\n']);
    const lines = [`${pick(METHODS)} ${target()} ${pick(VERSIONS)}`.trimEnd(),
      ...(chance(0.9) ? ['Host: x'] : []), ...Array.from({ length: int(4) }, header)];
    const body = chance(0.15) ? pick(['0\r\n\r\n', 'hello', bytes(int(64)), '5\r\nhello\r\n0\r\n\r\n']) : '';
    return lines.join(eol) + eol + eol + body;
  };
  const mutated = () => {
    let s = `GET ${path()} HTTP/1.1\r\nHost: x\r\nIf-None-Match: "x"\r\n\r\n`;
    for (let k = 1 + int(4); k > 0; k--) {
      const i = int(s.length);
      s = pick([
        () => s.slice(0, i) + bytes(1) + s.slice(i + 1),
        () => s.slice(0, i) + bytes(1 + int(4)) + s.slice(i),
        () => s.slice(0, i) + s.slice(i + 1 + int(4)),
        () => s.slice(0, i) + s.slice(i, i + int(30)).repeat(2) + s.slice(i),
        () => s.slice(0, i),
      ])();
    }
    return s;
  };
  // well-formed HTTP with a hostile target: what reaches the server's own code
  const plausible = () => `${pick(['GET', 'GET', 'HEAD'])} ${chance(0.8) ? path() : target()} HTTP/1.1\r\nHost: x\r\n` +
    `${chance(0.3) ? pick(['If-None-Match: "x"', 'Range: bytes=0-1', 'Connection: close', 'Accept: */*']) + '\r\n' : ''}\r\n`;
  const pipelined = () => Array.from({ length: 2 + int(3) }, () => pick([plausible, structured])()).join('');
  return () => pick([plausible, plausible, plausible, structured, structured, mutated, pipelined])();
}

const site = makeSite();
let server;
before(async () => { server = await startServer(site.root); });
after(() => server?.stop());

test(`${REQUESTS} fuzzed requests (seed ${SEED}): answered or closed, nothing leaked, server up, descriptors flat`, { timeout: 240_000 }, async () => {
  const page = () => rawRequest(server.port, 'GET /index.html HTTP/1.1\r\nHost: x\r\n\r\n');
  assert.equal((await page()).status, 200);
  const before = openDescriptors(server.pid);
  const next = generator(mulberry32(SEED));
  const requests = Array.from({ length: REQUESTS }, next);
  const statuses = new Map();
  let cursor = 0;
  async function worker() {
    while (cursor < requests.length) {
      const i = cursor++;
      const r = await rawRequest(server.port, requests[i], { timeoutMs: 500 });
      const key = r.status ?? (r.timedOut ? 'waiting for more' : 'closed');
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
      assert.ok(r.status === null || ALLOWED.has(r.status),
        `request #${i} (seed ${SEED}) got ${r.status}: ${JSON.stringify(requests[i].slice(0, 200))}`);
      assert.doesNotMatch(r.body, LEAKS, `request #${i} (seed ${SEED}) read a file outside the root`);
      assert.ok(server.alive(), `the server died at request #${i} (seed ${SEED}): ${server.stderr()}`);
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const settled = await settle(() => openDescriptors(server.pid) <= before + DESCRIPTOR_SLACK);
  const after = openDescriptors(server.pid);
  console.log(`# statuses: ${JSON.stringify(Object.fromEntries(statuses))}; descriptors ${before} before, ${after} after`);
  assert.ok(settled, `descriptors ${before} → ${after}`);
  assert.equal(server.stderr(), '', 'no internal error was logged');
  assert.equal((await page()).status, 200, 'the page is still served');
});

// A model download whose connection breaks resumes where it broke (issue 29, point 8): on
// a plain static host that answers byte ranges (scripts/serve.js), the element's first
// load fails with a sentence saying so, and its next run asks for the rest of the file
// only (a Range request answered 206) and explains.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { buildSite } from '../../scripts/build/site.js';
import { createStaticServer, listen } from '../../scripts/serve.js';
import { skipReason, launch, openPage, firstModel, paths } from './harness.js';

const skip = skipReason() ?? false;
const TIMEOUT = 300_000;
const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>resume</title>
<script type="module" src="vit-relevance-element.js"></script></head><body>
<vit-relevance id="a" src="samples/catdog.png" loading="eager"></vit-relevance></body></html>`;

let server;
let url;
let browser;
const weights = () => `/models/${firstModel().split.weights}`;
const seen = []; // { range, status, bytes } of each request for the weights file

// The site, except that the first whole-file request for the weights breaks half-way.
before(async () => {
  if (skip) return;
  await buildSite(paths);
  const files = createStaticServer(paths.site, { isolate: false });
  let broken = false;
  server = createServer((req, res) => {
    const pathname = new URL(req.url, 'http://x').pathname;
    if (pathname === '/resume.html') return res.writeHead(200, { 'Content-Type': 'text/html' }).end(PAGE);
    if (pathname !== weights()) return files.emit('request', req, res);
    const entry = { range: req.headers.range ?? null, status: null, bytes: 0 };
    seen.push(entry);
    if (!broken && !req.headers.range) {
      broken = true;
      const file = path.join(paths.site, pathname);
      const bytes = readFileSync(file);
      res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': bytes.byteLength, 'Last-Modified': statSync(file).mtime.toUTCString() });
      entry.status = 200;
      entry.bytes = bytes.byteLength >> 1;
      res.write(bytes.subarray(0, entry.bytes), () => res.destroy());
      return;
    }
    const writeHead = res.writeHead.bind(res);
    res.writeHead = (status, headers) => {
      Object.assign(entry, { status, bytes: Number(headers?.['Content-Length']) });
      return writeHead(status, headers);
    };
    files.emit('request', req, res);
  });
  url = `http://127.0.0.1:${await listen(server, 0)}/`;
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await new Promise((r) => (server ? server.close(r) : r()));
});

test('a broken model download resumes with a Range request and the element explains', { skip, timeout: TIMEOUT }, async () => {
  const { page, context } = await openPage(browser, `${url}resume.html`);
  try {
    await page.waitForFunction(() => document.getElementById('a').shadowRoot.querySelector('figcaption.error'), null, { timeout: TIMEOUT });
    const message = await page.evaluate(() => document.getElementById('a').shadowRoot.querySelector('figcaption').textContent);
    assert.match(message, /the connection broke after \d+ bytes .*loading again resumes from there/);
    await page.evaluate(() => document.getElementById('a').explain());
    const size = statSync(path.join(paths.site, weights())).size;
    const half = size >> 1;
    assert.equal(seen.length, 2, JSON.stringify(seen));
    // What arrived before the break is kept, up to the chunk the browser had read.
    const [, second] = seen;
    const from = Number(/^bytes=(\d+)-$/.exec(second.range)?.[1]);
    assert.ok(from > 0 && from <= half, `resumed from ${second.range}`);
    assert.equal(second.status, 206);
    assert.equal(second.bytes, size - from);
    assert.equal(await page.evaluate(() => document.getElementById('a').result.targets[0].label), 'bull mastiff');
  } finally {
    await context.close();
  }
});

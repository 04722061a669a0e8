// The page under its Content-Security-Policy (scripts/site-headers.js): a real explanation
// of a sample photo to a heat map, an overlay download (a blob: URL), with onnxruntime's
// threads, and not one violation reported, in the page, its Worker or the Worker's
// threads. Violations are caught three ways: `securitypolicyviolation` events in the page
// and in each worker, console errors, and the reports the browser posts to the report-uri
// the test server adds to every policy. Deliberate violations at the end prove each
// channel works. Framing: a page from another origin may frame embed.html, not index.html.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  skipReason, startSite, launch, openPage, sample, waitForHeat, choosePhoto, screenshot,
} from './harness.js';
import { createStaticServer, listen } from '../../scripts/serve.js';
import { headersFile } from '../../scripts/site-headers.js';

const skip = skipReason() ?? false;
const BULL_MASTIFF = 243;
const reports = [];          // posted to the report-uri
let reportPosted = () => {}; // wakes untilReports on each new report
const untilReports = async (holds) => {
  while (!holds()) await new Promise((resolve) => { reportPosted = resolve; });
};
const workerErrors = [];     // console errors of workers
let site;
let browser;
let session;

const describe = (e) => `${e.violatedDirective ?? e['violated-directive']} blocked ${e.blockedURI ?? e['blocked-uri']}`;

before(async () => {
  if (skip) return;
  site = await startSite({ cspReports: { push: (r) => { reports.push(r); reportPosted(); } } });
  browser = await launch();
  session = await openPage(browser, site.url, undefined, {
    beforeLoad: async (context, page) => {
      await context.addInitScript(() => {
        window.__cspViolations = [];
        document.addEventListener('securitypolicyviolation', (e) => {
          window.__cspViolations.push({ violatedDirective: e.violatedDirective, blockedURI: e.blockedURI });
        });
      });
      page.on('worker', (worker) => {
        worker.on('console', (m) => { if (m.type() === 'error') workerErrors.push(m.text()); });
        // The page's Worker only: onnxruntime's thread workers sit in Atomics.wait and never
        // answer an evaluate. Violations there, and the Worker's earliest ones (its own
        // imports, before this listener exists), reach the report-uri channel.
        if (!isPageWorker(worker)) return;
        worker.evaluateHandle(() => self.addEventListener('securitypolicyviolation', (e) => {
          self.__cspViolations ??= [];
          self.__cspViolations.push({ violatedDirective: e.violatedDirective, blockedURI: e.blockedURI });
        })).catch(() => {}); // a worker that ended meanwhile
      });
    },
  });
});
after(async () => {
  await browser?.close();
  await site?.close();
});

const isPageWorker = (w) => /\/worker\.js$/.test(w.url());
const page = () => session.page;
const pageWorker = () => page().workers().find(isPageWorker);
const pageViolations = () => page().evaluate(() => window.__cspViolations);
const workerViolations = () => pageWorker().evaluate(() => self.__cspViolations ?? []);

test('the page sends its policy, and the worker scripts theirs', { skip }, async () => {
  const doc = await fetch(site.url);
  assert.match(doc.headers.get('content-security-policy'), /^default-src 'none'; script-src 'self' 'wasm-unsafe-eval';/);
  assert.match(doc.headers.get('content-security-policy'), /frame-ancestors 'self'/);
  const worker = await fetch(new URL('worker.js', site.url));
  assert.match(worker.headers.get('content-security-policy'), /^default-src 'none'; script-src 'self' 'wasm-unsafe-eval'/);
  // what static hosts get: the build wrote the same table as _headers
  assert.equal(await (await fetch(new URL('_headers', site.url))).text(), headersFile());
});

test('under the policy: model, threads, a heat map of a sample photo and an overlay download, no violation', { skip }, async () => {
  await page().waitForSelector('body[data-model-ready="true"]');
  assert.equal(await page().evaluate(() => self.crossOriginIsolated), true);
  assert.match(await page().textContent('#engine-status'), /WebAssembly · \d+ threads?/);
  await choosePhoto(page(), sample('catdog.png'));
  await waitForHeat(page(), `c${BULL_MASTIFF}`);
  const download = page().waitForEvent('download');
  await page().click('#dl-overlay');
  assert.match((await download).suggestedFilename(), /\.png$/);
  await screenshot(page(), 'csp-heat-map');

  assert.ok(pageWorker(), 'the Worker runs');
  assert.ok(page().workers().length > 1, 'and onnxruntime\'s thread workers');
  assert.deepEqual(await pageViolations(), [], 'securitypolicyviolation in the page');
  assert.deepEqual(await workerViolations(), [], 'securitypolicyviolation in the Worker');
  assert.deepEqual(reports.map(describe), [], 'violation reports');
  assert.deepEqual(session.errors, [], 'console errors of the page');
  assert.deepEqual(workerErrors, [], 'console errors of the workers');
});

test('a violation in the page or in the Worker would have been seen', { skip }, async () => {
  await page().evaluate(() => {
    const img = document.createElement('img');
    img.src = 'https://example.invalid/probe.png';
    document.body.append(img);
  });
  await pageWorker().evaluate(() => fetch('https://example.invalid/probe').catch(() => {}));
  const seen = () => reports.map(describe).join('\n');
  await untilReports(() => /img-src/.test(seen()) && /connect-src/.test(seen()));
  assert.match(seen(), /img-src.*example\.invalid/, 'the page reported its probe');
  assert.match(seen(), /connect-src.*example\.invalid/, 'the Worker reported its probe');
  assert.ok((await pageViolations()).some((v) => v.violatedDirective === 'img-src'), 'page listener');
  assert.ok((await workerViolations()).some((v) => v.violatedDirective === 'connect-src'), 'worker listener');
});

test('another origin may frame embed.html but not index.html', { skip }, async () => {
  // A site with both routes, served with the real headers; the parent comes from another
  // origin (localhost vs 127.0.0.1 on another port).
  const root = mkdtempSync(path.join(tmpdir(), 'vitrel-frame-'));
  writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>index</title><p id="p">index</p>');
  writeFileSync(path.join(root, 'embed.html'), '<!doctype html><title>embed</title><p id="p">embed</p>');
  const files = createStaticServer(root);
  const filesUrl = `http://127.0.0.1:${await listen(files, 0)}`;
  const parent = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end(`<!doctype html><iframe id="embed" src="${filesUrl}/embed.html"></iframe>` +
      `<iframe id="index" src="${filesUrl}/index.html"></iframe>`);
  });
  const parentUrl = `http://localhost:${await listen(parent, 0)}/`;
  const context = await browser.newContext();
  try {
    const p = await context.newPage();
    await p.goto(parentUrl); // the parent's load waits for both frames' (the refused one's error page)
    const frame = async (id) => (await p.$(`#${id}`)).contentFrame();
    const text = async (id) => (await frame(id)).evaluate(() => document.getElementById('p')?.textContent ?? null).catch(() => null);
    assert.equal(await text('embed'), 'embed', 'embed.html renders in a cross-origin frame');
    assert.match((await frame('index')).url(), /^chrome-error:/, 'index.html is refused in a cross-origin frame');
    assert.equal(await text('index'), null);
  } finally {
    await context.close();
    files.close();
    parent.close();
  }
});

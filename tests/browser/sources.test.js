// The page as written, no bundle (issue 26): scripts/serve-sources.js serves the repository
// itself; the page's modules import the runtime by package name through web/index.html's
// import map, its Workers by path. A photo chosen gives its heat map, with every runtime
// module fetched as its own file and nothing from dist/site.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { skipReason, launch, openPage, sample, waitForHeat, choosePhoto } from './harness.js';
import { listen } from '../../scripts/serve.js';
import { createSourceServer } from '../../scripts/serve-sources.js';

const skip = skipReason() ?? false;
const BULL_MASTIFF = 243;
let server;
let browser;
let session;

// `waiting`, or the page's first error: a module that does not resolve fails the test at
// once, not at the wait's time limit.
function orFirstError(s, waiting) {
  const failed = new Promise((_, reject) => {
    const fail = () => reject(new Error(`the page failed: ${s.errors.join(' | ')}`));
    s.page.on('pageerror', fail);
    s.page.on('console', (m) => { if (m.type() === 'error') fail(); });
    if (s.errors.length) fail();
  });
  return Promise.race([waiting, failed]);
}

before(async () => {
  if (skip) return;
  server = createSourceServer();
  const port = await listen(server, 0);
  browser = await launch();
  session = await openPage(browser, `http://127.0.0.1:${port}/web/index.html`);
});
after(async () => {
  await browser?.close();
  await new Promise((r) => (server ? server.close(r) : r()));
});

test('the unbundled page loads the model and explains a photo', { skip }, async () => {
  await orFirstError(session, session.page.waitForSelector('body[data-model-ready="true"]'));
  await choosePhoto(session.page, sample('catdog.png'));
  await orFirstError(session, waitForHeat(session.page, `c${BULL_MASTIFF}`));
  assert.deepEqual(session.errors, []);
  const paths = session.requests.map((u) => new URL(u).pathname);
  for (const module of ['/runtime/core.js', '/runtime/explainer.js', '/runtime/png-header.js', '/web/lib/site-files.js']) {
    assert.ok(paths.includes(module), `${module} fetched as written`);
  }
  assert.ok(!paths.some((p) => p.startsWith('/dist/')), 'nothing from dist/site');
});

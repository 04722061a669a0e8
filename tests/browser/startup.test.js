// Opening the model (issue 13, "seconds to the first map"): the status names the load
// phases instead of a full progress bar, each phase is timed, the page fetches only the
// graphs it opens (never the attribution graphs, nor a forward graph with its own copy of
// the weights), and a photo chosen at ready is explained by the explainer graph's
// session, which opens at once after ready (issue 30); the inference Worker that
// index.html's start-worker.js starts before the page script is the one the page uses; a
// load the Worker stops answering is named as stopped, with what it waited for.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { skipReason, startSite, launch, openPage, firstModel, sample, shownTop5 } from './harness.js';

const skip = skipReason() ?? false;
let site;
let browser;
let session;

// Every text the status shows, from the first script on.
const RECORD_STATUS = () => {
  window.__statusTexts = [];
  new MutationObserver(() => {
    const s = document.querySelector('#engine-status');
    if (s && window.__statusTexts.at(-1) !== s.textContent) window.__statusTexts.push(s.textContent);
  }).observe(document, { subtree: true, childList: true, characterData: true });
};

before(async () => {
  if (skip) return;
  site = await startSite();
  browser = await launch();
  session = await openPage(browser, site.url, undefined, { beforeLoad: (context) => context.addInitScript(RECORD_STATUS) });
  await session.page.waitForSelector('body[data-model-ready="true"]');
});
after(async () => {
  await browser?.close();
  await site?.close();
});

test('the status names the load phases, and each is timed', { skip }, async () => {
  const texts = await session.page.evaluate(() => window.__statusTexts);
  assert.ok(texts.some((t) => /compiling onnxruntime/.test(t)), texts.join(' | '));
  assert.ok(texts.some((t) => /preparing the model/.test(t)), texts.join(' | '));
  const { phaseMs } = await session.page.evaluate(() => window.__vitrel.timeline.modelReady);
  for (const phase of ['fetch', 'compile', 'prepare']) assert.ok(phaseMs[phase] >= 0, `${phase}: ${phaseMs[phase]}`);
});

test('the inference Worker index.html starts before the page script is the one the page uses: one such Worker', { skip }, async () => {
  const inference = session.page.workers().filter((w) => new URL(w.url()).pathname.endsWith('/worker.js'));
  assert.equal(inference.length, 1, inference.map((w) => w.url()).join('\n'));
  assert.equal(await session.page.evaluate(() => window.__vitrelWorker instanceof Worker), true);
  // start-worker.js runs before app.js is read
  const order = session.requests.map((u) => new URL(u).pathname.split('/').pop());
  assert.ok(order.indexOf('start-worker.js') < order.indexOf('app.js'), order.slice(0, 8).join(', '));
});

test('a returning visit reads the model from Cache Storage and shows no download bar', { skip }, async () => {
  await session.page.reload();
  await session.page.waitForSelector('body[data-model-ready="true"]');
  assert.equal(await session.page.evaluate(() => window.__vitrel.timeline.modelReady.fromCache), true);
  assert.equal(await session.page.isHidden('#load-progress'), true);
});

test('a re-export is never read from an older visit\'s cached copy: the new file is downloaded, checked and kept alone', { skip: skip || (!firstModel()?.sha256 && 'models/index.json has no hashes') }, async () => {
  const { page } = session;
  const model = firstModel();
  const file = model.split?.forward ?? model.onnx;
  // What visits before the re-export left: copies that are not ONNX, under the URL alone
  // (the key before the index had hashes) and under another hash; the current copy is gone.
  const keys = (f) => page.evaluate(async (name) => {
    const cache = await caches.open('vit-relevance-models-v1');
    return (await cache.keys()).map((r) => new URL(r.url)).filter((u) => u.pathname.endsWith(`/models/${name}`))
      .map((u) => u.search);
  }, f);
  await page.evaluate(async ({ name, sha256 }) => {
    const cache = await caches.open('vit-relevance-models-v1');
    const url = new URL(`models/${name}`, location.href);
    await cache.delete(`${url.href}?sha256=${sha256}`);
    await cache.put(url.href, new Response('an older build'));
    await cache.put(`${url.href}?sha256=${'0'.repeat(64)}`, new Response('an older build'));
  }, { name: file, sha256: model.sha256[file] });
  assert.equal((await keys(file)).length, 2);
  await page.reload();
  await page.waitForSelector('body[data-model-ready="true"]');
  assert.equal(await page.isHidden('#error'), true);
  assert.equal(await page.evaluate(() => window.__vitrel.timeline.modelReady.fromCache), false);
  assert.deepEqual(await keys(file), [`?sha256=${model.sha256[file]}`]);
});

test('only the graphs the page opens are fetched: no attribution graph, no second copy of the weights', { skip }, () => {
  const models = session.requests.map((u) => new URL(u)).filter((u) => u.pathname.includes('/models/'))
    .map((u) => u.origin + u.pathname);
  const model = firstModel();
  const graph = model.split?.graph ?? model.onnx;
  assert.ok(models.some((u) => u.endsWith(`/models/${graph}`)), models.join('\n'));
  if (model.split) assert.ok(models.some((u) => u.endsWith(`/models/${model.split.forward}`)), models.join('\n'));
  assert.deepEqual(models.filter((u) => /\.attr\d+\.onnx$|\.attribution\.bin$|\.states\.onnx$|\.masked\.onnx$|\.forward\.onnx$/.test(u)), []);
});

// The photo's name → its top-5 and the graph that predicted it, once its first map shows.
async function firstMapOf(page, file) {
  await page.setInputFiles('#file-input', file);
  await page.waitForFunction((name) => document.body.dataset.photo === name
    && document.querySelector('#main-canvas').dataset.rendered === 'heat', path.basename(file));
  return { top5: await shownTop5(page), by: await page.evaluate(() => window.__vitrel.timeline.timings.predictedBy) };
}

// Issue 30: the explainer graph's session opens in the Worker's queue turn right after
// `ready`, not after an idle second, so a photo chosen at ready (its request queued behind
// that opening) is predicted and explained by the explainer graph in one run. Before, the
// plain forward graph predicted it and the explainer graph's session opened only then.
test('a photo chosen at ready gets its map from the explainer graph\'s session, opened at once, not after an idle second', { skip: skip || (!firstModel()?.split?.forward && 'no split forward graph') }, async () => {
  const { page } = session;
  await page.reload();
  await page.waitForSelector('body[data-model-ready="true"]');
  const first = await firstMapOf(page, sample('catdog.png'));
  assert.equal(first.by, 'explainer');
  const { explainerReady, firstHeatmap } = await page.evaluate(() => window.__vitrel.timeline);
  assert.ok(explainerReady.ms > 0 && explainerReady.at <= firstHeatmap, JSON.stringify(explainerReady));
});

// The page's fake clock (Playwright's) runs two minutes on while the Worker says nothing.
test('a Worker that never answers: after two minutes of silence the page says the load stopped, and what it waited for', { skip }, async () => {
  const silent = await startSite({ build: false, overrides: { '/worker.js': { body: 'self.onmessage = () => {};', type: 'text/javascript' } } });
  const { page, context } = await openPage(browser, 'about:blank', undefined, { beforeLoad: (_, p) => p.clock.install() });
  try {
    await page.goto(silent.url);
    await page.waitForFunction(() => document.querySelector('#engine-status').textContent.startsWith('Loading '));
    assert.equal(await page.isHidden('#error'), true);
    await page.clock.runFor(125_000);
    await page.waitForSelector('#error:not([hidden])');
    assert.equal(await page.textContent('#error-text'),
      `The model ${firstModel().name} stopped loading: the inference Worker did not answer in 120 s. Reload the page to try again.`);
    assert.equal(await page.textContent('#engine-status'), `${firstModel().name}: stopped`);
  } finally {
    await context.close();
    await silent.close();
  }
});

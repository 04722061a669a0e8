// Opening the model (issue 13, "seconds to the first map"): the status names the load
// phases instead of a full progress bar, each phase is timed, and the page fetches only
// the graphs it opens (never the attribution graphs or the benchmark's forward graph).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { skipReason, startSite, launch, openPage, firstModel } from './harness.js';

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
  await session.page.waitForSelector('body[data-model-ready="true"]', { timeout: 180_000 });
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

test('a returning visit reads the model from Cache Storage and shows no download bar', { skip }, async () => {
  await session.page.reload();
  await session.page.waitForSelector('body[data-model-ready="true"]', { timeout: 180_000 });
  assert.equal(await session.page.evaluate(() => window.__vitrel.timeline.modelReady.fromCache), true);
  assert.equal(await session.page.isHidden('#load-progress'), true);
});

test('only the graphs the page opens are fetched: no attribution or forward graph', { skip }, () => {
  const models = session.requests.filter((u) => u.includes('/models/'));
  const model = firstModel();
  const graph = model.split?.graph ?? model.onnx;
  assert.ok(models.some((u) => u.endsWith(`/models/${graph}`)), models.join('\n'));
  assert.deepEqual(models.filter((u) => /\.attr\d+\.onnx$|\.attribution\.bin$|\.states\.onnx$|\.masked\.onnx$|\.forward\.onnx$/.test(u)), []);
});

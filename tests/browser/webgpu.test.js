// WebGPU offered honestly (issue 13): a software adapter (headless Chromium's SwiftShader
// here) is labelled as such and never chosen by default; and the page's explanation on it
// agrees with WebAssembly's for one photo: the same top-5, and the transformer-attribution
// map within METHODS.md's golden tolerance (Pearson ≥ 0.99, the same hottest patch).
// SwiftShader is slow (minutes): one photo, one method, and the time is reported.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { skipReason, startSite, launch, openPage, sample, waitForHeat, choosePhoto, shownTop5, copiedMap } from './harness.js';
import { argmax, pearson } from './reference.js';

const BULL_MASTIFF = 243;
let site;
let browser;
let session;
let adapter = null; // what the page's navigator.gpu offers, or null

const skip = skipReason() ?? false;
before(async () => {
  if (skip) return;
  site = await startSite();
  browser = await launch({ webgpu: true });
  // localhost: WebGPU needs a secure origin
  session = await openPage(browser, site.url.replace('127.0.0.1', 'localhost'));
  await session.page.waitForSelector('body[data-model-ready="true"]');
  adapter = await session.page.evaluate(async () => {
    const a = await navigator.gpu?.requestAdapter();
    return a ? { architecture: a.info?.architecture ?? '', fallback: Boolean(a.info?.isFallbackAdapter ?? a.isFallbackAdapter) } : null;
  });
});
after(async () => {
  await browser?.close();
  await site?.close();
});
const page = () => session.page;
const noAdapter = () => (adapter ? false : 'this Chromium offers no WebGPU adapter');

test('a software WebGPU adapter is labelled, with the reason, and WebAssembly stays the default', { skip }, async (t) => {
  if (noAdapter()) return t.skip(noAdapter());
  await page().waitForSelector('#backend-select option[value="webgpu"]', { state: 'attached' });
  const option = await page().$eval('#backend-select option[value="webgpu"]', (o) => ({ label: o.textContent, title: o.title, software: o.dataset.software }));
  assert.equal(await page().$eval('#backend-select', (s) => s.value), 'wasm');
  assert.match(await page().textContent('#engine-status'), /WebAssembly/);
  if (adapter.fallback || /swiftshader|llvmpipe/i.test(adapter.architecture)) {
    assert.equal(option.software, 'true');
    assert.match(option.label, /software/i);
    assert.match(option.title, /fallback adapter|software renderer/);
    assert.match(option.title, /slower than WebAssembly/);
  } else {
    assert.equal(option.label, 'WebGPU');
  }
});

// What the single view shows: the top-5, bull mastiff's transformer-attribution map, the backend.
const shown = async () => {
  const map = await copiedMap(page());
  assert.deepEqual([map.target.class, map.method], [BULL_MASTIFF, 'transformer_attribution']);
  return { top5: (await shownTop5(page())).map((c) => c.id), map: map.data, backend: await page().textContent('#engine-status') };
};

test('WebGPU gives WebAssembly\'s top-5 and transformer-attribution map for catdog.png', { skip, timeout: 1_800_000 }, async (t) => {
  if (noAdapter()) return t.skip(noAdapter());
  await choosePhoto(page(), sample('catdog.png'));
  await waitForHeat(page(), `c${BULL_MASTIFF}`);
  const wasm = await shown();

  const started = Date.now();
  await page().selectOption('#backend-select', 'webgpu');
  await page().waitForSelector('body[data-model-ready="true"]', { timeout: 1_500_000 });
  const readyS = (Date.now() - started) / 1000;
  // the page explains the shown photo again on the new backend (a new model drops the old maps)
  await page().waitForSelector(`#main-canvas[data-rendered="heat"][data-target="c${BULL_MASTIFF}"]`, { timeout: 1_500_000 });
  const gpu = await shown();
  t.diagnostic(`SwiftShader WebGPU: ready in ${readyS.toFixed(0)} s, first photo explained ${((Date.now() - started) / 1000 - readyS).toFixed(0)} s later`);

  assert.match(gpu.backend, /WebGPU/);
  assert.deepEqual(gpu.top5, wasm.top5);
  const r = pearson(gpu.map, wasm.map);
  assert.ok(r >= 0.99, `Pearson ${r}`);
  assert.equal(argmax(gpu.map), argmax(wasm.map));
});

// The main thread's copy of the C++ core (issue 26, item 4): the page, the element and the
// browser render() load the core's WebAssembly a second time, beside the Worker's, to draw
// heat images and the legend. What that copy costs, and what asking the Worker to draw
// would cost instead, measured in Chromium on the built site (node bench/main-core.js;
// docs/experiments.md has the figures and the decision):
// - its download (bytes, gzipped as served) and its load in a fresh tab (fetch, compile,
//   instantiate), and in the page whether `ready` waited for it;
// - its memory: the initial linear memory the module declares;
// - one redraw (a colormap or opacity change, or a class already explained) by the
//   main-thread core, against the Worker's round trip for a request that does no work,
//   idle and while the Worker runs the graph of the next class (a redraw would wait there).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { skipReason, startSite, launch, openPage, paths } from '../tests/browser/harness.js';
import { untilReady } from './page-state.js';

const RUNS = 20;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => `${x.toFixed(1)} ms`;
const BLANK = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>blank</title></head><body></body></html>';

const skip = skipReason();
if (skip) {
  console.log(`main-core: skipped (${skip})`);
  process.exit(0);
}

const wasmDir = path.join(paths.site, 'build', 'wasm');
const bytes = (f) => readFileSync(path.join(wasmDir, f));
const [glue, wasm] = [bytes('vit_relevance_core.mjs'), bytes('vit_relevance_core.wasm')];
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
console.log(`download: ${kb(glue.length + wasm.length)} (${kb(gzipSync(glue).length + gzipSync(wasm).length)} gzipped): `
  + `vit_relevance_core.wasm ${kb(wasm.length)}, its glue ${kb(glue.length)}`);
const initialPages = (() => {
  // The memory section (id 5): the module's one memory, its initial size in 64 KiB pages.
  const leb = (i) => { let r = 0; let s = 0; let b; do { b = wasm[i++]; r |= (b & 0x7f) << s; s += 7; } while (b & 0x80); return [r, i]; };
  for (let i = 8; i < wasm.length;) {
    const id = wasm[i];
    const [size, at] = leb(i + 1);
    if (id === 5) return leb(leb(at)[1] + 1)[0];
    i = at + size;
  }
  return null;
})();
console.log(`memory: ${initialPages * 64 / 1024} MiB of linear memory at instantiation (reserved; pages are committed as touched; it grows on demand)`);

const site = await startSite({ overrides: { '/blank.html': { body: BLANK, type: 'text/html' } } });
const browser = await launch();
try {
  // The page, first visit and returning: when its core arrived against when the model was
  // ready (ready awaits it).
  {
    const { page, context } = await openPage(browser, site.url);
    for (const visit of ['first visit', 'returning visit']) {
      if (visit !== 'first visit') await page.reload();
      await untilReady(page);
      const got = await page.evaluate(() => ({
        arrived: Math.max(...performance.getEntriesByType('resource').filter((e) => e.name.includes('vit_relevance_core')).map((e) => e.responseEnd)),
        ready: window.__vitrel.timeline.modelReady.at,
      }));
      console.log(`page, ${visit}: the main thread's core files arrived ${ms(got.arrived)} after navigation, the model was ready at ${ms(got.ready)}`);
    }
    await context.close();
  }

  // A fresh tab of the site: the core's load by the public API (loadRenderer: fetch,
  // compile, instantiate), then an explanation to have a real map to draw.
  const { page, context } = await openPage(browser, `${site.url}blank.html`);
  const figures = await page.evaluate(async ({ runs }) => {
    const api = await import(new URL('vit-relevance.js', document.baseURI).href);
    // The tab's memory as Chromium counts it (cross-origin isolated pages only), before and
    // after the core loads.
    const bytesNow = async () => (await performance.measureUserAgentSpecificMemory()).bytes;
    const before = await bytesNow();
    let t = performance.now();
    await api.loadRenderer();
    const loadMs = performance.now() - t;
    const memoryMb = ((await bytesNow()) - before) / 2 ** 20;
    const explainer = await api.loadExplainer();
    const photo = await explainer.open('samples/catdog.png');
    const result = await photo.explain();
    const map = result.targets[0].maps.transformer_attribution;
    const time = async (fn) => {
      const xs = [];
      for (let i = 0; i < runs; i++) {
        t = performance.now();
        await fn(i);
        xs.push(performance.now() - t);
      }
      return xs;
    };
    const colormaps = ['jet', 'viridis', 'inferno'];
    // A redraw over the photo, as the element draws it: heat image by the core, composed on a canvas.
    const redraw = await time((i) => api.render(map, { colormap: colormaps[i % 3], opacity: 0.3 + 0.02 * i, photo: photo.bitmap, region: result.region }));
    // The heat image alone (the core's part; what the Worker would compute instead).
    const heat = await time((i) => api.render(map, { colormap: colormaps[i % 3], size: 224 }));
    // A request that does nothing but queue in the Worker and come back.
    const idle = await time(() => api.runtimeStats());
    // The same while the Worker explains the next class (a class switch: its graph runs).
    const busy = [];
    for (const cls of [282, 281, 285, 284, 283]) {
      const started = performance.now();
      const explaining = photo.explain({ targets: [cls] });
      await new Promise((resolve) => { setTimeout(resolve); }); // the explain request is posted first
      t = performance.now();
      await api.runtimeStats();
      busy.push({ wait: performance.now() - t, explain: (await explaining, performance.now() - started) });
    }
    return { loadMs, memoryMb, redraw, heat, idle, busy };
  }, { runs: RUNS });
  console.log(`fresh tab: the API's loadRenderer() (fetch, compile, instantiate) ${ms(figures.loadMs)}; the tab's memory grew ${figures.memoryMb.toFixed(1)} MiB`);
  console.log(`one redraw on the main thread (heat image by its core, composed over the photo): ${ms(median(figures.redraw))} (median of ${RUNS})`);
  console.log(`  the core's heat image alone (224×224): ${ms(median(figures.heat))} (median of ${RUNS})`);
  console.log(`the Worker's round trip for a request doing nothing, idle: ${ms(median(figures.idle))} (median of ${RUNS})`);
  console.log(`  while it explains the next class: ${figures.busy.map((b) => `${ms(b.wait)} (its class switch ${ms(b.explain)})`).join(', ')}`);
  await context.close();
} finally {
  await browser.close();
  await site.close();
}

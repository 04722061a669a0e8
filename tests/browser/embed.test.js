// Embedding in headless Chromium: several <vit-relevance> elements on one page share one
// Worker and one download of each model file and agree with `vit-relevance explain`;
// class (class-id, and its alias target) and rendering changes; a broken photo fails alone; lazy loading; removal frees the
// photo; the iframe route sizes its frame; no COOP/COEP (one thread); a sub-path; the
// files the README lists for docs authors suffice on their own; photo elements download none
// of a text model's scripts (loaded on demand).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, linkSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readMaps, runCli, tempDir } from '../node/maps-support.js';
import { skipReason, startSite, launch, openPage, sample, firstModel, paths, screenshot, WAIT_MS } from './harness.js';

const skip = skipReason() ?? false;
// A text model's scripts, which the element, the API and the Worker load on demand.
const TEXT_SCRIPTS = ['element-text.js', 'api-text.js', 'worker-text.js'];
// The Attribution panel's requests: the API's and the Worker's, loaded on demand.
const ATTRIBUTION_SCRIPTS = ['api-attribute.js', 'attribution-job.js'];
const PHOTOS = { a: 'catdog.png', b: 'dogbird.png', c: 'el1.png' };
const TIMEOUT = WAIT_MS;

// Records each element's events from the start, before the test attaches anything.
const RECORDER = `<script>
  window.__events = [];
  for (const type of ['load', 'progress', 'explained', 'error']) {
    document.addEventListener(type, (e) => {
      if (e.target.localName !== 'vit-relevance') return;
      const { message, loaded, total, phases } = e.detail ?? {};
      window.__events.push({ id: e.target.id, type, message, loaded, total, phases });
    }, true);
  }
</script>`;
const ELEMENTS_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>elements</title>
${RECORDER}<script type="module" src="vit-relevance-element.js"></script></head><body>
${Object.entries(PHOTOS).map(([id, f]) => `<vit-relevance id="${id}" src="samples/${f}" loading="eager"></vit-relevance>`).join('\n')}
<vit-relevance id="missing" src="samples/missing.png" loading="eager"></vit-relevance>
<vit-relevance id="notimage" src="models/index.json" loading="eager"></vit-relevance>
<div style="height: 5000px"></div>
<vit-relevance id="lazy" src="samples/dogcat2.png"></vit-relevance>
</body></html>`;
const ONE_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>one</title>
<script type="module" src="vit-relevance-element.js"></script></head><body>
<vit-relevance id="a" src="samples/catdog.png" loading="eager"></vit-relevance></body></html>`;
// The iframe's photo is relative to this page (in samples/), not to embed.html.
const IFRAME_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>iframe</title>
<script type="module" src="../examples/iframe-parent.js"></script></head><body>
<iframe id="frame" src="../embed.html?src=catdog.png&amp;method=transformer_attribution" title="map" style="width: 320px; height: 40px; border: 0"></iframe>
</body></html>`;

// The browser entry inside a Worker (it starts its own inference Worker there).
const API_IN_WORKER = `import { loadExplainer } from './vit-relevance.js';
try {
  const explainer = await loadExplainer();
  const result = await explainer.explain('samples/catdog.png', { targets: ['tiger cat'] });
  postMessage({ top1: result.top5[0].id, target: result.targets[0].id, shape: result.targets[0].maps.transformer_attribution.shape });
} catch (err) {
  postMessage({ error: err.message });
}`;

let site;
let browser;
let session;

before(async () => {
  if (skip) return;
  site = await startSite({ overrides: {
    '/elements.html': { body: ELEMENTS_PAGE, type: 'text/html' },
    '/samples/parent.html': { body: IFRAME_PAGE, type: 'text/html' },
    '/api-in-worker.js': { body: API_IN_WORKER, type: 'text/javascript' },
  } });
  browser = await launch();
  session = await openPage(browser, `${site.url}elements.html`);
});
after(async () => {
  await browser?.close();
  await site?.close();
});

const page = () => session.page;
const waitResult = (id, test = 'true') => page().waitForFunction(
  ([i, t]) => { const r = document.getElementById(i)?.result; return Boolean(r) && new Function('r', `return ${t}`)(r); },
  [id, test], { timeout: TIMEOUT });
const stats = () => page().evaluate(async () => {
  const { runtimeStats } = await import(new URL('vit-relevance.js', document.baseURI).href);
  return runtimeStats();
});
const resultOf = (id) => page().evaluate((i) => {
  const r = document.getElementById(i).result;
  return { top5: r.top5, top1: r.top5[0].id, targets: r.targets.map((t) => ({ id: t.id, prob: t.prob, rank: t.rank, contrast: t.contrast, maps: Object.fromEntries(Object.entries(t.maps).map(([m, v]) => [m, Array.from(v.data)])) })) };
}, id);
// Distinct colours of the element's first map canvas: a blank or flat map has very few.
const colours = (id) => page().evaluate((i) => {
  const c = document.getElementById(i).shadowRoot.querySelector('canvas');
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  const seen = new Set();
  for (let k = 0; k < d.length; k += 4 * 5) seen.add((d[k] << 16) | (d[k + 1] << 8) | d[k + 2]);
  return seen.size;
}, id);
const argmax = (v) => v.reduce((best, x, i) => (x > v[best] ? i : best), 0);

test('three elements: one Worker, one download of each model file, non-blank maps, the CLI\'s top-1', { skip, timeout: 600_000 }, async () => {
  for (const id of Object.keys(PHOTOS)) await waitResult(id);
  const model = firstModel();
  for (const file of [model.metadata, model.split.weights, model.split.graph, model.split.photo, model.split.target]) {
    const n = session.requests.filter((u) => new URL(u).pathname === `/models/${file}`).length;
    assert.equal(n, 1, `${file} requested ${n} times`);
  }
  assert.equal(page().workers().filter((w) => w.url().endsWith('/worker.js')).length, 1);
  const s = await stats();
  assert.equal(s.sessions, 1, 'one session for the one model');
  for (const [id, file] of Object.entries(PHOTOS)) {
    assert.ok(await colours(id) > 50, `${id}: the map looks blank`);
    const out = tempDir('vitrel-embed-');
    const r = runCli(['explain', sample(file), '--model', path.join(paths.models, model.onnx), '--method', 'raw_attention', '--threads', '1', '--out', out]);
    assert.equal(r.status, 0, r.stderr);
    const cli = await readMaps(out);
    assert.equal((await resultOf(id)).top1, cli.top5[0].id, `${file}: top-1 differs from vit-relevance explain`);
  }
  const events = await page().evaluate(() => window.__events);
  for (const id of Object.keys(PHOTOS)) assert.ok(events.some((e) => e.id === id && e.type === 'load'), `${id}: no load event`);
  // Each element hears the shared load's progress: the bytes, and the Worker's load phases.
  for (const id of Object.keys(PHOTOS)) {
    const progress = events.filter((e) => e.id === id && e.type === 'progress');
    assert.ok(progress.every((e) => Number.isFinite(e.loaded) && Number.isFinite(e.total) && Array.isArray(e.phases)), `${id}: ${JSON.stringify(progress)}`);
    const phases = new Set(progress.flatMap((e) => e.phases));
    for (const phase of ['fetch', 'compile', 'prepare']) assert.ok(phases.has(phase), `${id}: no progress event in phase ${phase}: ${[...phases]}`);
  }
  const a11y = await page().$eval('#a', (el) => el.shadowRoot.querySelector('canvas').getAttribute('aria-label'));
  // Chromium's accessibility tree: the element is a figure named like its map.
  const cdp = await session.context.newCDPSession(page());
  const { root } = await cdp.send('DOM.getDocument');
  const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector: '#a' });
  const [node] = (await cdp.send('Accessibility.getPartialAXTree', { nodeId, fetchRelatives: false })).nodes;
  assert.deepEqual([node.role?.value, node.name?.value], ['figure', a11y]);
  assert.match(a11y, /^Relevance map: Transformer attribution .* for bull mastiff, [\d.]+%$/);
  await screenshot(page(), 'embed-elements');
});

test('a page of photo elements downloads none of a text model\'s scripts, nor the Attribution panel\'s', { skip, timeout: TIMEOUT }, async () => {
  for (const id of Object.keys(PHOTOS)) await waitResult(id);
  for (const f of TEXT_SCRIPTS) assert.ok(existsSync(path.join(paths.site, f)), `the build made no ${f}`);
  const requested = session.requests.map((u) => path.basename(new URL(u).pathname));
  assert.ok(requested.includes('worker.js') && requested.includes('vit-relevance.js'), 'the requests list holds the Worker\'s and the API\'s');
  assert.deepEqual(requested.filter((f) => TEXT_SCRIPTS.includes(f)), [], 'a text script downloaded by photo elements');
  for (const f of ATTRIBUTION_SCRIPTS) assert.ok(existsSync(path.join(paths.site, f)), `the build made no ${f}`);
  assert.deepEqual(requested.filter((f) => ATTRIBUTION_SCRIPTS.includes(f)), [], 'an Attribution script downloaded by photo elements');
});

test('a broken src fires error on that element only, with a specific message', { skip, timeout: TIMEOUT }, async () => {
  await page().waitForFunction(() => window.__events.filter((e) => e.type === 'error').length >= 2, null, { timeout: TIMEOUT });
  const errors = await page().evaluate(() => window.__events.filter((e) => e.type === 'error'));
  assert.deepEqual(errors.map((e) => e.id).sort(), ['missing', 'notimage']);
  assert.match(errors.find((e) => e.id === 'missing').message, /could not load the photo .*samples\/missing\.png: HTTP 404/);
  assert.match(errors.find((e) => e.id === 'notimage').message, /index\.json.* is not an image \(application\/json/);
  for (const id of Object.keys(PHOTOS)) assert.ok(await page().$eval(`#${id}`, (el) => Boolean(el.result)), `${id} lost its result`);
});

test('changing the class (class-id) re-explains (hottest patch moves 243 → 282); colormap re-renders without the graph; target is its alias', { skip, timeout: TIMEOUT }, async () => {
  const dog = await resultOf('a');
  assert.equal(dog.targets[0].id, 243);
  const before = await stats();
  await page().$eval('#a', (el) => { el.classId = '282'; });
  await waitResult('a', 'r.targets[0].id === 282');
  const cat = await resultOf('a');
  // Each explained class with its standing: bull mastiff 1st, tiger cat 3rd on catdog, as in the top-5.
  assert.deepEqual([dog.targets[0].rank, dog.targets[0].prob], [1, dog.top5[0].prob]);
  assert.deepEqual([cat.targets[0].rank, cat.targets[0].prob], [3, cat.top5[2].prob]);
  assert.match(await page().$eval('#a', (el) => el.shadowRoot.querySelector('figcaption').textContent), /^tiger cat · [\d.]+%, rank 3 · /);
  const afterTarget = await stats();
  assert.equal(afterTarget.graphRuns - before.graphRuns, 1, 'a class switch runs the graph once');
  assert.equal(afterTarget.photos, before.photos, 'the photo stays in the Worker (no new decode)');
  assert.notEqual(argmax(cat.targets[0].maps.transformer_attribution), argmax(dog.targets[0].maps.transformer_attribution));

  const rendered = await page().$eval('#a', (el) => Number(el.dataset.rendered));
  await page().$eval('#a', (el) => { el.setAttribute('colormap', 'viridis'); el.opacity = 0.8; el.display = 'grid'; });
  // Properties have the attributes' types: numbers as numbers.
  assert.deepEqual(await page().$eval('#a', (el) => [el.opacity, el.startLayer, el.colormap, el.getAttribute('opacity')]), [0.8, 0, 'viridis', '0.8']);
  await page().waitForFunction((n) => Number(document.getElementById('a').dataset.rendered) > n, rendered, { timeout: TIMEOUT });
  assert.equal((await stats()).graphRuns, afterTarget.graphRuns, 'rendering attributes must not run the graph');

  // Another element on the same photo shares it: no new photo, and 243's tensors are kept.
  // It names its class with `target`, the older name of class-id, still read.
  await page().evaluate(() => {
    const twin = document.createElement('vit-relevance');
    Object.assign(twin, { id: 'twin', src: 'samples/catdog.png', loading: 'eager' });
    twin.setAttribute('target', 'bull mastiff');
    document.getElementById('a').after(twin);
  });
  await waitResult('twin');
  assert.deepEqual(await page().$eval('#twin', (el) => [el.classId, el.target, el.getAttribute('class-id')]), ['bull mastiff', 'bull mastiff', null]);
  assert.equal((await resultOf('twin')).targets[0].id, 243);
  const shared = await stats();
  assert.equal(shared.photos, afterTarget.photos, 'the same src is one photo in the Worker');
  assert.equal(shared.graphRuns, afterTarget.graphRuns, 'the twin reuses the kept tensors of 243');
  assert.deepEqual((await resultOf('twin')).targets[0].maps, dog.targets[0].maps);

  // contrast: why bull mastiff rather than tiger cat; a misspelt class is a specific error.
  await page().$eval('#twin', (el) => { el.contrast = 'tiger cat'; });
  await waitResult('twin', 'r.targets[0].contrast?.id === 282');
  assert.equal((await resultOf('twin')).targets[0].contrast.rank, 3);
  assert.match(await page().$eval('#twin', (el) => el.shadowRoot.querySelector('figcaption').textContent), /^bull mastiff \([\d.]+%, rank 1\) rather than tiger cat \([\d.]+%, rank 3\) · /);
  await page().$eval('#twin', (el) => { el.contrast = null; el.target = 'bull mastif'; });
  // The alias property writes class-id, and drops the alias attribute it replaces.
  assert.deepEqual(await page().$eval('#twin', (el) => [el.getAttribute('class-id'), el.getAttribute('target')]), ['bull mastif', null]);
  await page().waitForFunction(() => window.__events.some((e) => e.id === 'twin' && e.type === 'error'), null, { timeout: TIMEOUT });
  const error = await page().evaluate(() => window.__events.find((e) => e.id === 'twin' && e.type === 'error').message);
  assert.match(error, /"bull mastif" is not a class of this model\. Close matches: 243 \(bull mastiff/);
  await page().$eval('#twin', (el) => el.remove());
});

test('loading="lazy": nothing runs until the element is scrolled into view; removal frees the photo', { skip, timeout: TIMEOUT }, async () => {
  // The eager elements are done and the browser has placed the lazy one out of view (an
  // observer made after the element's reports after it): a lazy start would have begun.
  for (const id of ['a', 'b', 'c']) await waitResult(id);
  assert.equal(await page().evaluate(() => new Promise((resolve) => {
    const seen = new IntersectionObserver(([e]) => { seen.disconnect(); resolve(e.isIntersecting); }, { rootMargin: '200px' });
    seen.observe(document.getElementById('lazy'));
  })), false);
  assert.equal(await page().$eval('#lazy', (el) => el.result), null);
  assert.ok(!(await page().evaluate(() => window.__events.some((e) => e.id === 'lazy'))), 'the lazy element started early');
  const photos = (await stats()).photos;
  await page().$eval('#lazy', (el) => el.scrollIntoView());
  await waitResult('lazy');
  assert.equal((await stats()).photos, photos + 1);
  await page().$eval('#b', (el) => el.remove());
  assert.equal((await stats()).photos, photos, 'a removed element frees its photo in the Worker');
  assert.deepEqual(session.offOrigin, []);
});

test('the browser API works inside a Worker', { skip, timeout: TIMEOUT }, async () => {
  const got = await page().evaluate(() => new Promise((resolve) => {
    const worker = new Worker('api-in-worker.js', { type: 'module' });
    worker.onmessage = (e) => { resolve(e.data); worker.terminate(); };
    worker.onerror = (e) => resolve({ error: e.message });
  }));
  assert.deepEqual(got, { top1: 243, target: 282, shape: [14, 14] });
});

test('the iframe route renders in the Worker its page started first, resizes its parent\'s frame and posts its result', { skip, timeout: TIMEOUT }, async () => {
  const { page: p, offOrigin, context } = await openPage(browser, `${site.url}samples/parent.html`);
  try {
    await p.waitForFunction(() => document.getElementById('frame').dataset.top1, null, { timeout: TIMEOUT });
    assert.equal(await p.$eval('#frame', (f) => f.dataset.top1), 'bull mastiff');
    const height = await p.$eval('#frame', (f) => parseFloat(f.style.height));
    assert.ok(height > 200, `the frame was not resized to its content (height ${height}px)`);
    assert.deepEqual(offOrigin, []);
    // One inference Worker: the one embed.html's start-worker.js started, taken over.
    assert.equal(p.workers().filter((w) => w.url().endsWith('/worker.js')).length, 1);
    const frame = await (await p.$('#frame')).contentFrame();
    assert.equal(await frame.evaluate(() => window.__vitrelWorker instanceof Worker), true);
  } finally {
    await context.close();
  }
});

test('without COOP/COEP headers: one thread, and the element still explains', { skip, timeout: TIMEOUT }, async () => {
  const plain = await startSite({ isolate: false, overrides: { '/one.html': { body: ONE_PAGE, type: 'text/html' } } });
  const { page: p, context } = await openPage(browser, `${plain.url}one.html`);
  try {
    await p.waitForFunction(() => document.getElementById('a').result, null, { timeout: TIMEOUT });
    assert.equal(await p.evaluate(() => self.crossOriginIsolated), false);
    const threads = await p.evaluate(async () => (await (await import(new URL('vit-relevance.js', document.baseURI).href)).loadExplainer()).threads);
    assert.equal(threads, 1);
  } finally {
    await context.close();
    await plain.close();
  }
});

test('served from a sub-path under the site\'s CSP: docs.html shows the element, the iframe and the API, all requests under it', { skip, timeout: TIMEOUT }, async () => {
  const cspReports = [];
  const sub = await startSite({ prefix: '/project/docs/', cspReports });
  const { page: p, context, offOrigin, requests } = await openPage(browser, `${sub.url}docs.html`);
  try {
    await p.waitForFunction(() => [...document.querySelectorAll('vit-relevance')].every((el) => el.result)
      && document.querySelectorAll('#api-output canvas').length === 2
      && document.querySelector('#iframe-demo iframe').dataset.top1, null, { timeout: TIMEOUT });
    const http = requests.filter((u) => u.startsWith('http'));
    assert.deepEqual(http.map((u) => new URL(u).pathname).filter((u) => !u.startsWith('/project/docs/')), []);
    assert.deepEqual(offOrigin, []);
    // The site's Content-Security-Policy (no inline code, frames only from itself) holds.
    assert.deepEqual(cspReports, []);
    assert.match(await p.textContent('code[data-source="#element-demo"]'), /<vit-relevance src="samples\/catdog.png" class-id="bull mastiff"/);
    assert.match(await p.textContent('code[data-file="examples/api.js"]'), /loadExplainer/);
    // controls="compact": a class picker holding the top 5, and a method picker.
    const pickers = await p.$eval('vit-relevance[controls="compact"]', (el) => [...el.shadowRoot.querySelectorAll('.controls select')].map((s) => s.options.length));
    assert.ok(pickers[0] >= 5 && pickers[1] >= 10, `compact controls: ${pickers}`);
    await screenshot(p, 'embed-docs');
  } finally {
    await context.close();
    await sub.close();
  }
});

// The README's "Hosting it" list for docs authors, and nothing else: the snippet copied
// from docs.html into a plain page on a plain static host (no COOP/COEP) under a sub-path.
const ORT_VERSION = JSON.parse(readFileSync(path.join(paths.root, 'node_modules', 'onnxruntime-web', 'package.json'), 'utf8')).version;
const DOCS_AUTHOR_FILES = ['vit-relevance-element.js', 'vit-relevance.js', 'worker.js',
  'build/wasm/vit_relevance_core.mjs', 'build/wasm/vit_relevance_core.wasm',
  'ort/ort.wasm.min.mjs', ...['ort.wasm.min.mjs', 'ort-wasm-simd-threaded.mjs', 'ort-wasm-simd-threaded.wasm'].map((f) => `ort/v${ORT_VERSION}/${f}`)];

test('the docs-author files alone on a plain static host: the snippet from docs.html explains', { skip, timeout: TIMEOUT }, async () => {
  const dir = path.join(paths.build, 'embed-docs-author');
  rmSync(dir, { recursive: true, force: true });
  const place = (from, to, copy = copyFileSync) => {
    mkdirSync(path.dirname(to), { recursive: true });
    copy(from, to);
  };
  // dist/site was built by before()'s startSite; the scripts' shared chunks are named by hash.
  const shared = readdirSync(paths.site).filter((f) => /^vit-relevance-shared-\w+\.js$/.test(f));
  for (const f of [...DOCS_AUTHOR_FILES, ...shared]) place(path.join(paths.site, f), path.join(dir, f));
  // The models folder as the build writes it (hard links: the graphs are large).
  for (const f of readdirSync(path.join(paths.site, 'models'))) place(path.join(paths.site, 'models', f), path.join(dir, 'models', f), linkSync);
  place(sample('catdog.png'), path.join(dir, 'samples', 'catdog.png'));
  const docs = readFileSync(path.join(paths.site, 'docs.html'), 'utf8');
  const snippet = /<div class="live" id="element-demo">([\s\S]*?)<\/div>/.exec(docs)[1];
  writeFileSync(path.join(dir, 'notes.html'), `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>notes</title>
<link rel="icon" href="data:,"></head><body><p>My course notes.</p>${snippet}</body></html>`);

  const host = await startSite({ root: dir, isolate: false, prefix: '/course/week3/' });
  const failed = [];
  const { page: p, context, offOrigin, requests } = await openPage(browser, `${host.url}notes.html`, undefined, {
    beforeLoad: (ctx) => ctx.on('response', (r) => { if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`); }),
  });
  try {
    await p.waitForFunction(() => {
      const els = [...document.querySelectorAll('vit-relevance')];
      return els.length === 2 && els.every((el) => el.result);
    }, null, { timeout: TIMEOUT });
    const labels = await p.$$eval('vit-relevance', (els) => els.map((el) => el.result.targets[0].label));
    assert.deepEqual(labels, ['bull mastiff', 'tiger cat']);
    assert.deepEqual(failed, []);
    assert.deepEqual(offOrigin, []);
    assert.deepEqual(requests.filter((u) => u.startsWith('http') && !new URL(u).pathname.startsWith('/course/week3/')), []);
  } finally {
    await context.close();
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

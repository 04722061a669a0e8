// Shared set-up of the browser tests and the browser benchmark: refresh dist/site from the
// sources, serve it on a free port (optionally with some paths overridden), and drive the
// system's Chromium through playwright-core (never a downloaded browser).
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { projectPaths } from '../../scripts/paths.js';
import { buildSite } from '../../scripts/build/site.js';
import { createStaticServer, listen } from '../../scripts/serve.js';

export const paths = projectPaths();
export const artifacts = path.join(paths.root, 'test-artifacts');
export const CHROMIUM = process.env.VITREL_CHROMIUM ?? '/usr/bin/chromium';
// VITREL_CHROMIUM_FLAGS adds flags for experiments: space-separated, or a JSON array where a
// flag's value holds spaces, e.g. '["--js-flags=--no-liftoff --no-wasm-lazy-compilation"]'
// (V8 compiles all of onnxruntime's WebAssembly optimised before it runs: docs/experiments.md).
export function chromiumFlags(text) {
  if (!text.trimStart().startsWith('[')) return text.split(' ').filter(Boolean);
  let flags;
  try {
    flags = JSON.parse(text);
  } catch (err) {
    throw new Error(`VITREL_CHROMIUM_FLAGS starts with [ but is not JSON: ${err.message}`);
  }
  if (!flags.every((f) => typeof f === 'string')) throw new Error('VITREL_CHROMIUM_FLAGS: a JSON array of strings, or flags separated by spaces');
  return flags;
}
const EXTRA_FLAGS = chromiumFlags(process.env.VITREL_CHROMIUM_FLAGS ?? '');
// How long a test waits for a state the page exposes (a data-* attribute, an event) before
// it fails: generous, since the first heat map on a busy shared machine takes minutes, and
// every wait ends as soon as its state holds. VITREL_WAIT_MS overrides it.
export const WAIT_MS = Number(process.env.VITREL_WAIT_MS ?? 600_000);
const FLAGS = [...EXTRA_FLAGS, '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

// Why the browser tests cannot run, or null. Only missing build outputs (or browser) skip.
export function skipReason() {
  const need = [
    [path.join(paths.wasm, 'vit_relevance_core.wasm'), 'the WebAssembly core (npm run build)'],
    [path.join(paths.models, 'index.json'), 'the explainer graphs (npm run build)'],
    [path.join(paths.root, 'runtime', 'explainer.js'), 'runtime/explainer.js'],
    [CHROMIUM, `Chromium at ${CHROMIUM} (apt-get install chromium)`],
  ];
  const missing = need.filter(([f]) => !existsSync(f)).map(([, what]) => what);
  if (!missing.length) {
    const index = JSON.parse(readFileSync(path.join(paths.models, 'index.json'), 'utf8'));
    if (!index.models?.length) missing.push('an explainer graph listed in build/models/index.json');
  }
  return missing.length ? `build outputs missing: ${missing.join(', ')}` : null;
}

export function firstModel() {
  const index = JSON.parse(readFileSync(path.join(paths.models, 'index.json'), 'utf8'));
  return index.models[0];
}

const CSP_REPORT_PATH = '/__csp-report';

// Serves dist/site; `overrides` maps URL paths to { body, type } answered instead;
// `prefix` serves the site under a sub-path (e.g. '/project/docs/').
// `cspReports`: an array (anything with a push) collecting the Content-Security-Policy
// violation reports the browser posts (every policy then names this server as its report-uri).
// `root`: serve this folder (a part of the built site) instead of dist/site.
// `build: false`: serve `root` as it is, a site the caller built (e.g. with extra models).
// `csp: false`: no Content-Security-Policy, as a plain static host serves the files.
export async function startSite({ overrides = {}, isolate = true, csp = true, cspReports = null, prefix = '/', root = null, build = true } = {}) {
  if (build) await buildSite(paths);
  const files = createStaticServer(root ?? paths.site, { isolate, csp, cspReportUri: cspReports ? CSP_REPORT_PATH : null });
  const server = createServer((req, res) => {
    const pathname = new URL(req.url, 'http://x').pathname;
    if (cspReports && pathname === CSP_REPORT_PATH && req.method === 'POST') {
      let body = '';
      req.on('data', (d) => { body += d; });
      req.on('end', () => {
        try { cspReports.push(JSON.parse(body)['csp-report'] ?? JSON.parse(body)); } catch { cspReports.push({ unparsed: body }); }
        res.writeHead(204);
        res.end();
      });
      return;
    }
    const o = overrides[pathname];
    if (!o) {
      if (!req.url.startsWith(prefix)) {
        res.writeHead(404).end();
        return;
      }
      req.url = `/${req.url.slice(prefix.length)}`;
      return files.emit('request', req, res);
    }
    res.writeHead(o.status ?? 200, {
      'Content-Type': o.type ?? 'application/octet-stream',
      ...(isolate ? { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } : {}),
    });
    res.end(o.body);
  });
  const port = await listen(server, 0);
  return { url: `http://127.0.0.1:${port}${prefix}`, close: () => new Promise((r) => server.close(r)) };
}

// A built site and a browser for the tests of a file to share: { site, browser, close() }
// (open in before(), close in after()).
export async function siteAndBrowser(options) {
  const site = await startSite(options);
  const browser = await launch();
  return { site, browser, close: async () => { await browser.close(); await site.close(); } };
}

// webgpu: Chromium's software WebGPU adapter (SwiftShader) on secure origins, which
// --disable-gpu would turn off (docs: shared/ENVIRONMENT.md).
export async function launch({ webgpu = false } = {}) {
  const args = webgpu ? [...FLAGS.filter((f) => f !== '--disable-gpu'), '--enable-unsafe-webgpu'] : FLAGS;
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args });
}

// A browser with a profile on disk in `dir`, as a visitor's own, → its one context (whose
// browser() is the browser). The tests' private contexts (openPage) differ in memory:
// Chromium keeps a private window's Cache Storage in its browser process, so a model's
// cached files count as the browser's memory there (346 MB for ViT-B/16's weights).
export async function launchProfile(dir) {
  return chromium.launchPersistentContext(dir, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1400, height: 1000 } });
}

// A page that records console errors, every request, and those leaving `origin`.
// `beforeLoad` (context, page) runs before the page is opened (e.g. to add init scripts);
// `device` adds context options (e.g. { hasTouch: true, isMobile: true } for a phone).
export async function openPage(browser, url, viewport = { width: 1400, height: 1000 }, { beforeLoad, device = {} } = {}) {
  const context = await browser.newContext({ viewport, acceptDownloads: true, ...device });
  context.setDefaultTimeout(WAIT_MS);
  const page = await context.newPage();
  await beforeLoad?.(context, page);
  const offOrigin = [];
  const requests = []; // every URL requested, the Workers' included
  const errors = [];
  const origin = new URL(url).origin;
  const watch = (req) => {
    const u = req.url();
    requests.push(u);
    if (!u.startsWith(origin) && !/^(data|blob):/.test(u)) offOrigin.push(u);
  };
  context.on('request', watch);
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(url);
  return { page, context, offOrigin, requests, errors };
}

// One page with the model loaded, for the tests of a file to share: { page, errors, …,
// close() } (open in before(), close in after()).
export async function openReadyPage() {
  const site = await startSite();
  const browser = await launch();
  const session = await openPage(browser, site.url);
  await session.page.waitForSelector('body[data-model-ready="true"]');
  return { ...session, close: async () => { await browser.close(); await site.close(); } };
}

export async function screenshot(page, name) {
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
}

export const sample = (name) => path.join(paths.sampleImages, name);

// Waits until the page shows a heat map for `target` (e.g. "c243") in the current view.
export async function waitForHeat(page, target, view = 'single') {
  await page.waitForFunction(([t, v]) => {
    const c = document.querySelector(`#view-${v} canvas[data-rendered="heat"][data-target="${t}"]`);
    return Boolean(c);
  }, [target, view]);
}

// Waits until the page stops scrolling: scrollY the same over three frames. A smooth scroll
// (the phone's reveal) can start frames after what it reveals is drawn on a busy machine.
export async function waitForStill(page) {
  await page.waitForFunction(() => new Promise((resolve) => {
    const y = window.scrollY;
    const frame = (n) => requestAnimationFrame(() => (window.scrollY !== y ? resolve(false) : n ? frame(n - 1) : resolve(true)));
    frame(2);
  }));
}

export async function choosePhoto(page, file) {
  await page.setInputFiles('#file-input', file);
}

// Waits until the page shows photo `name` (its file name) with its top-5.
export async function waitForTop5(page, name) {
  await page.waitForFunction((n) => document.body.dataset.photo === n && document.querySelectorAll('#top5 button').length === 5, name);
}

// The top-5 the page shows: [{ id, prob }].
export const shownTop5 = (page) => page.$$eval('#top5 button', (bs) => bs.map((b) => ({ id: Number(b.dataset.classId), prob: Number(b.dataset.prob) })));

// A drawn map as the page's "Copy map JSON" gives it ({ method, target, startLayer, region,
// rows, cols, data, … }): the tile `canvas` (a selector; clicked to choose it), else the
// current view's first.
export async function copiedMap(page, canvas) {
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  if (canvas) await page.click(canvas);
  await page.$eval('#action-status', (s) => { s.textContent = ''; });
  await page.click('#copy-json');
  await page.waitForFunction(() => document.querySelector('#action-status').textContent !== '');
  const status = await page.textContent('#action-status');
  if (status !== 'copied to the clipboard') throw new Error(`Copy map JSON: ${status}`);
  return JSON.parse(await page.evaluate(() => navigator.clipboard.readText()));
}

#!/usr/bin/env node
// `npm run bench -- text`: explaining a text next to the same model's plain forward pass, in
// the same run, on the default text model (build/models/bert-mini-sst2-movies):
//   Node (the public Node API, onnxruntime-web) and the page (the browser API in headless
//   Chromium, its Worker), for a 32-token sentence and a 512-token review (ERASER Movie
//   Reviews): each method but lrp_full and attattr, a fresh text each time (its graph run
//   and maps) / the forward pass (target ≤ 5). Methods that read the same graph outputs cost
//   one run alike: they are timed together and each printed with that ratio.
//   the page's text mode (bench/text-page.js): typing a 32-token sentence at 8 characters a
//   second, last keystroke → its map against the page's own explanation of it (target ≤ 3),
//   no main-thread task over 50 ms while typing; a returning visit, the text model chosen →
//   its first map against onnxruntime's compile + 10 of those forwards (target ≤ 1);
//   the export of the default text model, as npm run build runs it (target ≤ 60 s);
//   `eval rationales` over the 199 ERASER test reviews, every method (target ≤ 15 min;
//   bench/text-rationales.js);
//   what text adds to the site a visitor who never opens a text downloads (target ≤ 10 %):
//   no file of the text model (the site does not carry it), and the text modules' code in
//   the site's bundles, minified and gzipped, against the page's own download.
// Env: VITREL_BENCH_ROUNDS (default 3), VITREL_BENCH_EXPORT=0 skips the export,
// VITREL_BENCH_RATIONALES=0 the ERASER evaluation.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';
import { DEFAULT_TEXT_MODEL, loadExplainer } from '../runtime/node/index.js';
import { loadCore } from '../runtime/core.js';
import { graphMethodIds } from '../runtime/metadata.js';
import { skipReason, paths } from '../tests/browser/harness.js';
import { openApiPage, TEXT_MODEL_URL } from '../tests/browser/text-api-page.js';
import { reportTarget } from './targets.js';
import { rationalesTime } from './text-rationales.js';
import { textPageBench } from './text-page.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const shared = path.resolve(root, process.env.VITREL_SHARED_DIR ?? '../shared');
const rounds = Number(process.env.VITREL_BENCH_ROUNDS ?? 3);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const f = (ms) => `${ms.toFixed(0)} ms`;

if (!existsSync(DEFAULT_TEXT_MODEL)) {
  console.log('bench text: skipped: the default text model is not built (npm run build)');
  process.exit(0);
}

// The texts: the first SST-2 dev sentence of exactly 32 tokens, and the first Movie Reviews
// document that fills the model's 512 positions.
function benchTexts(explainer) {
  const tokens = (t) => { const o = explainer.open(t); const n = o.tokens.length; o.close(); return n; };
  const sentences = readFileSync(path.join(shared, 'text', 'sst2', 'dev.tsv'), 'utf8').split('\n').slice(1).map((l) => l.split('\t')[1]).filter(Boolean);
  const short = sentences.find((s) => tokens(s) === 32);
  const docs = path.join(shared, 'text', 'movies', 'docs');
  const review = readdirSync(docs).sort().map((d) => readFileSync(path.join(docs, d), 'utf8').replace(/\s+/g, ' ').trim())
    .find((t) => tokens(t) === 512);
  return [['32-token sentence', short], ['512-token review', review]];
}

// The methods timed, grouped by the graph outputs they read (one run each group).
function methodGroups(core, metadata) {
  const groups = new Map();
  for (const m of graphMethodIds(core, metadata).filter((id) => id !== 'lrp_full')) {
    const key = core.outputsFor([m]).join(',');
    groups.set(key, [...(groups.get(key) ?? []), m]);
  }
  return [...groups.values()];
}

function report(where, label, forwardMs, groups, timesOf) {
  console.log(`${where}, ${label}: forward ${f(forwardMs)} (median of ${rounds})`);
  let worst = 0;
  for (const methods of groups) {
    const ms = median(timesOf(methods));
    const ratio = ms / forwardMs;
    worst = Math.max(worst, ratio);
    console.log(`  ${methods.join(', ')}: ${f(ms)} = ${ratio.toFixed(2)}× forward`);
  }
  reportTarget(`text.${where.toLowerCase()}.${label.split(' ')[0]}`, {
    bench: 'text', label: `${where}, ${label}: the slowest method but lrp_full and attattr / forward`, value: worst, limit: 5,
    detail: `forward ${f(forwardMs)}`,
  });
}

async function nodeBench(texts, groups) {
  const explainer = /** @type {any} */ (await loadExplainer({ model: DEFAULT_TEXT_MODEL }));
  try {
    for (const [label, text] of texts) {
      await explainer.explain(text, { methods: groups.flat() }); // warm-up
      const forward = [];
      const times = new Map(groups.map((g) => [g, []]));
      for (let r = 0; r < rounds; r++) {
        forward.push((await explainer.forward(text)).modelMs);
        for (const g of groups) {
          const t0 = performance.now();
          await explainer.explain(text, { methods: g }); // a fresh text: its run and maps
          times.get(g).push(performance.now() - t0);
        }
      }
      report('Node', label, median(forward), groups, (g) => times.get(g));
    }
  } finally {
    await explainer.close();
  }
}

async function pageBench(texts, groups) {
  const reason = skipReason();
  if (reason) {
    console.log(`page: skipped: ${reason}`);
    return;
  }
  const { page, close } = await openApiPage();
  const forwardMs = new Map();
  try {
    await page.evaluate(async (url) => { window.__text = await window.__api.loadExplainer({ model: url, prepare: true }); }, TEXT_MODEL_URL);
    for (const [label, text] of texts) {
      const r = await page.evaluate(async ({ text: t, groups: gs, rounds: n }) => {
        const explainer = window.__text;
        const timedExplain = async (methods) => {
          const opened = await explainer.open(t);
          const t0 = performance.now();
          await opened.explain({ methods });
          const ms = performance.now() - t0;
          opened.close();
          return ms;
        };
        await timedExplain(gs.flat()); // warm-up
        const kept = await explainer.open(t);
        await kept.explain();
        const forward = [];
        const times = gs.map(() => []);
        for (let i = 0; i < n; i++) {
          forward.push(...await kept.timeForward(1));
          for (const [k, g] of gs.entries()) times[k].push(await timedExplain(g));
        }
        kept.close();
        return { forward, times };
      }, { text, groups, rounds });
      report('page', label, median(r.forward), groups, (g) => r.times[groups.indexOf(g)]);
      forwardMs.set(label, median(r.forward));
    }
  } finally {
    await close();
  }
  return forwardMs;
}

// The export as npm run build runs it, into a folder of its own.
function exportTime() {
  if (process.env.VITREL_BENCH_EXPORT === '0') return;
  const out = mkdtempSync(path.join(os.tmpdir(), 'vitrel-bench-text-export-'));
  try {
    const t0 = performance.now();
    const r = spawnSync('/usr/bin/python3', [path.join(root, 'models', 'export.py'), '--source', path.join(shared, 'models', 'bert-mini-sst2-movies'),
      '--out', out, '--plain', '--attribution'], { encoding: 'utf8' });
    const ms = performance.now() - t0;
    if (r.status !== 0) throw new Error(`the export failed: ${r.stderr.trim().split('\n').pop()}`);
    reportTarget('text.export', { bench: 'text', label: 'export of the default text model (graphs, parity, attribution graphs, the runtime\'s check)',
      value: ms / 1000, limit: 60, unit: 's' });
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

// What a visitor who never opens a text downloads because of text: none of the text model
// (the site does not carry it), the text modules in the site's bundles (minified and gzipped
// one by one: an upper bound, bundled together they share more), and the core's tokenizer
// (its WebAssembly object files gzipped: an upper bound on what it adds to the linked .wasm);
// against the page's download on a first visit: its model files, onnxruntime's WebAssembly
// and the page's code.
function siteDownload() {
  const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
  const textModules = ['runtime/text-explainer.js', 'runtime/text-cache.js', 'runtime/text-metadata.js', 'runtime/text-input.js',
    'web/api/text.js', 'web/worker/text-model.js', 'web/worker/texts.js'];
  const textJs = textModules.reduce((s, m) => s + gz(transformSync(readFileSync(path.join(root, m), 'utf8'), { minify: true, format: 'esm' }).code), 0);
  const objects = path.join(root, 'build', 'wasm-cmake');
  const textObjects = [];
  const walk = (dir) => readdirSync(dir, { withFileTypes: true }).forEach((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (/text[^/]*\.cpp\.o$|\/text\/[^/]+\.o$/.test(p)) textObjects.push(p);
  });
  if (existsSync(objects)) walk(objects);
  const textWasm = textObjects.reduce((s, f) => s + gz(readFileSync(f)), 0);
  const site = paths.site;
  const index = JSON.parse(readFileSync(path.join(site, 'models', 'index.json'), 'utf8'));
  const model = index.models[0];
  const modelBytes = model.split?.bytes ?? model.bytes ?? 0;
  const ortWasm = readdirSync(path.join(site, 'ort'), { recursive: true }).filter((f) => String(f).endsWith('.wasm'))
    .reduce((m, f) => Math.max(m, gz(readFileSync(path.join(site, 'ort', String(f))))), 0);
  const code = readdirSync(site).filter((f) => /\.(js|mjs|css|html)$/.test(f)).reduce((s, f) => s + gz(readFileSync(path.join(site, f))), 0);
  const page = modelBytes + ortWasm + code;
  const added = textJs + textWasm;
  const textFiles = readdirSync(path.join(site, 'models')).filter((f) => f.startsWith(path.basename(DEFAULT_TEXT_MODEL, '.onnx')));
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  console.log(`site: text model files in it: ${textFiles.length}; text's code: ${kb(textJs)} of JavaScript and at most ${kb(textWasm)} of `
    + `the core's WebAssembly (${textObjects.length} object files), gzipped; the page's first-visit download ${(page / 2 ** 20).toFixed(1)} MB `
    + `(model ${(modelBytes / 2 ** 20).toFixed(1)} MB, onnxruntime ${kb(ortWasm)}, page code ${kb(code)}): text adds `
    + `${((100 * added) / page).toFixed(2)} %`);
  reportTarget('text.site-download', { bench: 'text', label: 'what text adds to the page\'s first-visit download, for a visitor who never opens text',
    value: (100 * added) / page, limit: 10, unit: '%' });
}

const core = await loadCore();
const probe = /** @type {any} */ (await loadExplainer({ model: DEFAULT_TEXT_MODEL }));
const texts = benchTexts(probe);
const groups = methodGroups(core, probe.metadata);
await probe.close();
for (const [label, text] of texts) if (!text) throw new Error(`no ${label} found in the shared data`);
await nodeBench(texts, groups);
const pageForward = await pageBench(texts, groups);
if (pageForward) await textPageBench(texts[0][1], pageForward.get(texts[0][0]), rounds);
exportTime();
rationalesTime();
siteDownload();

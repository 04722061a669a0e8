#!/usr/bin/env node
// `npm run bench -- scale` (issue 27): bigger models. Random-weight ViT-S/16 (width 384,
// 6 heads) and ViT-B/16 (768, 12 heads), 12 blocks and 1000 classes each, are written as
// bare timm checkpoints in a temp folder and exported with `vit-relevance export` (timed;
// target ≤ 3 min for ViT-B). Then for DeiT-tiny (build/models) and both:
//   Node  — in a process of its own per model, through the Node API: ready (loadExplainer),
//           first map of a photo (predicted class), class switch (a chosen class's map of
//           the same photo), the plain forward pass, and the process's peak memory
//           (process.resourceUsage().maxRSS);
//   page  — a site built with the two as extra models (VITREL_MODELS) in a temp folder,
//           served like bench/browser.js, each model opened with ?model= in a browser of
//           its own with a profile on disk: ready (page load → model ready, nothing cached,
//           then a returning visit in a new tab), photo chosen → first heat map, class switch, the forward pass in the
//           page's Worker, and peak memory: each Chromium process's VmHWM (peak resident
//           set, /proc/<pid>/status), the processes listed by CDP SystemInfo.getProcessInfo;
//           the renderer's (page, Worker, WebAssembly memory) and the sum over all of them
//           (an upper bound of the browser's peak, as the processes peak at different times,
//           and each counts the pages it shares with the others: Chromium's code); and the
//           browser's proportional set size (PSS: a shared page counted once over the
//           processes that share it), summed over the processes every 250 ms, its peak —
//           the figure the 2 GB target reads.
// Each time is also a ratio of that model's own forward pass in the same run; targets:
// first heat map ≤ 6×, class switch ≤ 5×, ViT-B in the page ≤ 2 GB.
// VITREL_BENCH_SCALE_EXPORTS=DIR keeps the exports in DIR: a later run finds them up to
// date (the same seeded checkpoint, the exporter's stamp) and measures without exporting.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { skipReason, startSite, sample, paths } from '../tests/browser/harness.js';
import { exportRandomModel } from '../tests/node/random-model.js';
import { buildSite } from '../scripts/build/site.js';
import { photoToHeatMap, returningVisits, inProfile } from './page-first-map.js';
import { pageClassSwitches, photoCached } from './page-switches.js';
import { untilReady } from './page-state.js';
import { reportTarget } from './targets.js';

const here = fileURLToPath(import.meta.url);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (t) => (t >= 10_000 ? `${(t / 1000).toFixed(1)} s` : `${t.toFixed(0)} ms`);
const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const ratio = (t, forward) => `${(t / forward).toFixed(2)}×`;
const RANDOM = [
  { name: 'vit_small_random', label: 'ViT-S/16', width: 384, heads: 6, depth: 12 },
  { name: 'vit_base_random', label: 'ViT-B/16', width: 768, heads: 12, depth: 12 },
];
// Photos of different sizes, each explained twice: a warm-up pass, then the pass that
// counts (its median), as bench/browser.js does: V8 optimises onnxruntime's hot WebAssembly
// in the background over the first runs (about a second of CPU), which a few runs of a
// small model do not cover (DeiT-tiny's first map in the page: 6.49× after two warm-up
// photos, 5.62–5.79× in bench/browser.js the same hour).
const PHOTOS = ['dogbird.png', 'catdog.png', 'el1.png', 'dogcat2.png', 'el3.png', 'el4.png', 'el5.png'];
const WARM_UP = PHOTOS.length;
const PASSES = [...PHOTOS, ...PHOTOS];

// ---- Node: one model, in this process (run as `scale.js --node FOLDER`) → one JSON line.
async function nodeRun(folder) {
  const { loadExplainer } = await import('../runtime/node/index.js');
  const { openExplainerFile } = await import('../runtime/node/open-explainer.js');
  const entry = JSON.parse(readFileSync(path.join(folder, 'index.json'), 'utf8')).models[0];
  const threads = os.availableParallelism();
  let started = performance.now();
  const explainer = await loadExplainer({ model: folder, threads });
  const readyMs = performance.now() - started;
  const firstMap = async (name) => {
    started = performance.now();
    const result = await explainer.explain(sample(name));
    return { ms: performance.now() - started, result };
  };
  for (const name of PASSES.slice(0, WARM_UP)) await firstMap(name);
  const firsts = [];
  // Of each first map, its phases (result.timings): the photo file read, decoded and
  // preprocessed; the graph's run; the core's maps.
  const phases = { preprocessMs: [], modelMs: [], relevanceMs: [] };
  const addPhases = (timings) => Object.keys(phases).forEach((k) => phases[k].push(timings[k]));
  let last;
  for (const name of PASSES.slice(WARM_UP)) {
    last = await firstMap(name);
    firsts.push(last.ms);
    addPhases(last.result.timings);
  }
  const firstPhases = Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, median(v)]));
  // The other top-5 classes of the last photo, each asked for by id.
  const switches = [];
  const switchModelMs = [];
  for (const { id } of last.result.top5.slice(1)) {
    started = performance.now();
    const { timings } = await explainer.explain(sample(PHOTOS.at(-1)), { targets: [id] });
    switches.push(performance.now() - started);
    switchModelMs.push(timings.modelMs);
  }
  await explainer.close();
  // The plain forward pass (the graph the exporter writes beside the explainer).
  const forward = await openExplainerFile(path.join(folder, entry.onnx), { threads, withForward: true });
  const [H, W] = forward.metadata.architecture.image_size;
  const pixels = new Float32Array(3 * H * W).map((_, i) => Math.sin(i) * 0.5);
  const forwards = [];
  for (let i = 0; i < 7; i++) forwards.push((await forward.predict(pixels)).timings.modelMs);
  await forward.release();
  console.log(JSON.stringify({
    readyMs, firstMs: median(firsts), firsts, ...firstPhases, switchMs: median(switches), switches, switchModelMs: median(switchModelMs),
    forwardMs: median(forwards),
    maxRssBytes: process.resourceUsage().maxRSS * 1024, threads,
  }));
}

function nodeFigures(folder) {
  const r = spawnSync(process.execPath, [here, '--node', folder], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) throw new Error(`the Node run of ${folder} exited with ${r.status}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1));
}

// ---- Page: peak resident memory of each of the browser's processes.
const processesOf = async (cdp) => (await cdp.send('SystemInfo.getProcessInfo')).processInfo;
// A "<field>: <n> kB" line of a /proc file of process `pid` → bytes (0 once it has ended).
const procBytes = (pid, file, field) => {
  try {
    return 1024 * Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/${file}`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
};

async function peakMemory(cdp) {
  const peaks = (await processesOf(cdp)).map(({ id, type }) => ({ type, bytes: procBytes(id, 'status', 'VmHWM') }));
  return {
    rendererBytes: Math.max(0, ...peaks.filter((p) => p.type === 'renderer').map((p) => p.bytes)),
    totalBytes: peaks.reduce((sum, p) => sum + p.bytes, 0),
    processes: peaks.length,
  };
}

// Samples the browser's summed PSS every 250 ms → stop() gives its peak in bytes. Each
// sample reads every process's smaps_rollup in this process (a few ms on 2 cores).
function samplePss(cdp) {
  let peak = 0;
  let sampling = Promise.resolve();
  const timer = setInterval(() => {
    sampling = sampling.then(async () => {
      const procs = await processesOf(cdp).catch(() => []);
      peak = Math.max(peak, procs.reduce((sum, p) => sum + procBytes(p.id, 'smaps_rollup', 'Pss'), 0));
    });
  }, 250);
  return async () => {
    clearInterval(timer);
    await sampling;
    return peak;
  };
}

// In a browser with a profile on disk, as a visitor's own (in a private window the model's
// cached files are the browser process's memory: harness.js, launchProfile); the returning
// visit in a new tab, as a visitor who comes back later (page-first-map.js, returningVisits).
async function pageFigures(url, name) {
  return inProfile(async (context) => {
    const cdp = await context.browser().newBrowserCDPSession();
    const pssPeak = samplePss(cdp);
    try {
      const page = context.pages()[0] ?? await context.newPage(); // the tab it opens with
      await page.goto(`${url}?model=${encodeURIComponent(name)}`);
      await untilReady(page, { timeout: 600_000 });
      const readyMs = await page.evaluate(() => window.__vitrel.timeline.modelReady.at);
      const firsts = [];
      for (const [i, photo] of PASSES.entries()) {
        const t = await photoToHeatMap(page, sample(photo));
        if (i >= WARM_UP) firsts.push(t);
      }
      await photoCached(page);
      const { switches } = await pageClassSwitches(page);
      const forwardMs = median(await page.evaluate(() => window.__vitrel.benchForward(7)));
      const [returning] = await returningVisits(page, 1, sample(PHOTOS.at(-1)), 7, { newTab: true });
      return {
        readyMs, returningReadyMs: returning.readyMs, fromCache: returning.fromCache, firstMs: median(firsts), firsts,
        switchMs: median(switches), switches, forwardMs, memory: { ...await peakMemory(cdp), pssBytes: await pssPeak() },
      };
    } finally {
      await pssPeak(); // stops the sampling where the run failed
    }
  });
}

// ---- The run: model by model (DeiT-tiny first, ViT-B last), each one's rows printed as
// soon as they are measured, so that a slow machine still shows the smaller models'.
async function main() {
  const reason = skipReason();
  if (reason) {
    console.log(`bench scale: skipped: ${reason}`);
    return;
  }
  const builtIn = JSON.parse(readFileSync(path.join(paths.models, 'index.json'), 'utf8')).models[0];
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vitrel-scale-'));
  const exportsDir = process.env.VITREL_BENCH_SCALE_EXPORTS ?? dir;
  mkdirSync(exportsDir, { recursive: true });
  const site = path.join(dir, 'site');
  const exported = [];
  let server = null;
  // VITREL_BENCH_SCALE_MODELS (labels, comma-separated) runs some of them, e.g. "ViT-S/16".
  const only = process.env.VITREL_BENCH_SCALE_MODELS?.split(',').map((l) => l.trim());
  const models = [{ name: builtIn.name, label: 'DeiT-tiny', folder: paths.models, exportMs: null }, ...RANDOM.map((spec) => ({ ...spec }))]
    .filter((m) => !only || only.includes(m.label));
  console.log(`times are medians; first heat map: photos ${PHOTOS.join(', ')} after a warm-up pass over them;`
    + ' class switch: the last photo\'s other top-5 classes; ready in the page: from navigation start');
  try {
    for (const m of models) {
      if (m.width) {
        console.log(`\nexporting a random-weight ${m.label} (width ${m.width}, ${m.heads} heads, ${m.depth} blocks, 1000 classes)…`);
        const stamp = path.join(exportsDir, m.name, `${m.name}.stamp.json`);
        const stamped = () => statSync(stamp, { throwIfNoEntry: false })?.mtimeMs;
        const before = stamped();
        Object.assign(m, exportRandomModel(exportsDir, m, { stdio: ['ignore', 'inherit', 'inherit'] }));
        if (before !== undefined && stamped() === before) m.exportMs = undefined; // up to date: kept
        console.log(`${m.label}: ${m.exportMs === undefined ? 'kept from an earlier run' : `exported in ${ms(m.exportMs)}`}`);
        exported.push(m.folder);
      }
      console.log(`${m.label}: Node…`);
      m.node = nodeFigures(m.folder);
      reportNode(m);
      // The site with the models exported so far; unchanged files are not copied again.
      await buildSite({ ...paths, site }, { models: exported.join(',') });
      server ??= await startSite({ root: site, build: false });
      console.log(`${m.label}: page…`);
      m.page = await pageFigures(server.url, m.name);
      reportPage(m);
    }
  } finally {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// A model's figures where it ran, and its targets met or missed.
function targetRows(m, where, f) {
  const key = `scale.${m.label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.${where.toLowerCase()}`;
  reportTarget(`${key}.first-heat-map`, { bench: 'scale', label: `${m.label}, ${where}: first heat map / forward`,
    value: f.firstMs / f.forwardMs, limit: 6 });
  reportTarget(`${key}.class-switch`, { bench: 'scale', label: `${m.label}, ${where}: class switch / forward`,
    value: f.switchMs / f.forwardMs, limit: 5 });
}

// Node's rows, printed as soon as measured (the page's of a big model come much later).
function reportNode(m) {
  const { node: n } = m;
  let exported = ' (built)';
  if (m.exportMs === undefined) exported = ' (export kept from an earlier run)';
  else if (m.exportMs !== null) exported = `, exported in ${ms(m.exportMs)}`;
  console.log(`\n${m.label}${exported}`);
  console.log(`  Node (${n.threads} threads): forward ${ms(n.forwardMs)}; ready ${ms(n.readyMs)} (${ratio(n.readyMs, n.forwardMs)}); `
    + `first map ${ms(n.firstMs)} (${ratio(n.firstMs, n.forwardMs)}; photo read and preprocessed in ${ms(n.preprocessMs)}, `
    + `graph ${ms(n.modelMs)}, the core's maps ${ms(n.relevanceMs)}); `
    + `class switch ${ms(n.switchMs)} (${ratio(n.switchMs, n.forwardMs)}; graph ${ms(n.switchModelMs)}); peak memory (maxRSS) ${mb(n.maxRssBytes)}`);
  targetRows(m, 'Node', n);
}

function reportPage(m) {
  const { page: p } = m;
  console.log(`  page: forward ${ms(p.forwardMs)}; ready ${ms(p.readyMs)} (${ratio(p.readyMs, p.forwardMs)}), returning visit `
    + `${ms(p.returningReadyMs)} (${ratio(p.returningReadyMs, p.forwardMs)})${p.fromCache ? '' : ' NOT from the cache'}; `
    + `first heat map ${ms(p.firstMs)} (${ratio(p.firstMs, p.forwardMs)}); class switch ${ms(p.switchMs)} (${ratio(p.switchMs, p.forwardMs)}); `
    + `peak memory (VmHWM): renderer ${mb(p.memory.rendererBytes)}, all ${p.memory.processes} processes ${mb(p.memory.totalBytes)}; `
    + `the browser's summed PSS at its peak ${mb(p.memory.pssBytes)}`);
  targetRows(m, 'page', p);
  if (m.label !== 'ViT-B/16') return;
  const peak = p.memory.pssBytes;
  reportTarget('scale.vit-b-16.page-memory', { bench: 'scale', label: 'ViT-B/16 in the page: peak memory (the browser\'s processes, summed PSS)',
    value: peak / 2 ** 20, limit: 2048, unit: 'MB', detail: `renderer ${mb(p.memory.rendererBytes)}` });
  if (m.exportMs) {
    reportTarget('scale.vit-b-16.export', { bench: 'scale', label: 'ViT-B/16: `vit-relevance export`', value: m.exportMs / 1000, limit: 180, unit: 's' });
  }
}

if (process.argv[2] === '--node') await nodeRun(process.argv[3]);
else await main();

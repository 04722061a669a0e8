// The page's inference Worker: downloads and opens the explainer graph (onnxruntime-web),
// preprocesses photos and turns the graph's tensors into relevance maps (the C++ core in
// WebAssembly). Keeps the page responsive; every reply carries the request id so the
// page can drop stale ones, and queued requests that a newer one superseded are skipped.
import { openExplainer } from './runtime/explainer.js';
import { topK } from './runtime/topk.js';
import { contrastiveTarget } from './runtime/targets.js';
import { loadCore } from './runtime/core.js';
import { fetchModelBytes } from './lib/model-fetch.js';
import { TensorCache } from './lib/tensor-cache.js';

const here = (p) => new URL(p, import.meta.url).href;
const now = () => performance.now();

let core = null;
let ort = null;
let explainer = null;
let metadata = null;
let activeModel = null;    // the models/index.json entry of the open graph
let image = null;          // { imageId, pixels, region } of the current photo
let photoCache = null;     // { imageId, promise of explainer.cachePhoto() } (split graphs)
let latestId = 0;          // newest request that supersedes older work
const tensors = new TensorCache(4);

class Stale extends Error {}
const checkFresh = (id) => { if (id < latestId) throw new Stale(); };

async function loadOrt(backend) {
  const mod = await import(backend === 'webgpu' ? './ort/ort.webgpu.min.mjs' : './ort/ort.wasm.min.mjs');
  const o = mod.default ?? mod;
  o.env.wasm.wasmPaths = here('./ort/');
  // Threads need SharedArrayBuffer, i.e. a cross-origin-isolated page (COOP/COEP).
  o.env.wasm.numThreads = self.crossOriginIsolated ? Math.max(1, Math.min(4, navigator.hardwareConcurrency || 1)) : 1;
  o.env.logLevel = 'error';
  return o;
}

async function release() {
  await explainer?.release().catch(() => {});
  explainer = null;
}

// Downloads the model files (with one byte count over all of them) and opens them.
async function init({ model, backend = 'wasm' }, reply) {
  await release();
  image = null;
  photoCache = null;
  tensors.clear();
  core ??= await loadCore();
  ort = await loadOrt(backend);
  const metaResponse = await fetch(here(`./models/${model.metadata}`));
  if (!metaResponse.ok) throw new Error(`could not download the metadata ${model.metadata}: HTTP ${metaResponse.status}`);
  let meta;
  try { meta = await metaResponse.json(); } catch { throw new Error(`${model.metadata} is not valid JSON`); }

  // The explainer graph, and with the split graphs (models/exporter/split.py) also the
  // photo and target graphs, all three reading one weights file: a class switch then
  // costs the target graph alone. The plain forward graph is fetched by the bench hook.
  const split = model.split;
  const files = split
    ? [[split.weights], [split.graph], [split.photo], [split.target]]
    : [[model.onnx, model.bytes]];
  const total = split ? split.bytes : files.reduce((s, [, b]) => s + (b || 0), 0);
  let done = 0;
  let lastPost = 0;
  const downloads = [];
  let fromCache = true;
  for (const [file, expectedBytes] of files) {
    const got = await fetchModelBytes(here(`./models/${file}`), {
      expectedBytes,
      onProgress: (loaded) => {
        const t = now();
        if (t - lastPost > 50) { lastPost = t; reply({ type: 'progress', loaded: done + loaded, total }); }
      },
    });
    done += got.bytes.byteLength;
    fromCache &&= got.fromCache;
    downloads.push(got.bytes);
  }
  reply({ type: 'progress', loaded: done, total: done });

  const started = now();
  const sessionOptions = backend === 'webgpu' ? { executionProviders: ['webgpu', 'wasm'] } : {};
  if (split) sessionOptions.externalData = [{ path: split.weights, data: downloads[0] }];
  explainer = await openExplainer({
    ort,
    model: split ? downloads[1] : downloads[0],
    split: split && { photo: downloads[2], target: downloads[3] },
    metadata: meta,
    sessionOptions,
    modelName: split ? split.graph : model.onnx,
  });
  activeModel = model;
  // One explanation of a blank input: every output's shape is checked against the
  // metadata, so a graph that disagrees fails here, at load, not on the user's photo; it
  // also warms the sessions up (kernels chosen, buffers allocated) for the first photo.
  reply({ type: 'checking' });
  try {
    const d = explainer.dims;
    const blank = new Float32Array(3 * d.height * d.width);
    await explainer.explain(blank, [0]);
    if (explainer.canCachePhoto) await explainer.explainCached(await explainer.cachePhoto(blank), [0]);
  } catch (err) {
    await release();
    throw new Error(`${split ? split.graph : model.onnx} does not match its metadata ${model.metadata}: ${err.message}`);
  }
  metadata = meta;
  return {
    type: 'ready',
    metadata,
    backend,
    threads: ort.env.wasm.numThreads,
    isolated: self.crossOriginIsolated,
    fromCache,
    bytes: done,
    split: explainer.canCachePhoto,
    sessionMs: now() - started,
    // the registry: ids, names, help (src/methods/registry.h); attattr runs other graphs
    methods: core.methods.filter((m) => core.explainerMethodIds.includes(m.id)),
  };
}

function requireModel() {
  if (!explainer) throw new Error('no model is loaded');
}

function targetKey(t) {
  return t.b === undefined || t.b === null ? `c${t.a}` : `c${t.a}-${t.b}`;
}

function targetVector(t) {
  return t.b === undefined || t.b === null ? t.a : contrastiveTarget(t.a, t.b, metadata.labels.length);
}

const keyOf = (imageId, t) => `${imageId}/${targetKey(t)}`;

// Keeps one explainer run's tensors per target in the core's heap (start-layer changes
// and other methods reuse them), with the set of graph outputs they hold.
function cacheTensors(imageId, targets, out, outputs) {
  targets.forEach((t, k) => {
    const heap = core.uploadTensors(out.tensors[k]);
    tensors.set(keyOf(imageId, t), { heap, outputs: new Set(outputs), free: () => heap.free() });
  });
}

function mapsOf(imageId, targets, startLayer) {
  const arch = metadata.architecture;
  return targets.map((t) => {
    const maps = core.computeMaps(tensors.get(keyOf(imageId, t)).heap, {
      methods: 'all', grid: arch.grid, specialTokens: arch.special_tokens ?? 1, startLayer, queryToken: 0,
    });
    return { target: t, maps: plainMaps(maps) };
  });
}

// Photo → prediction and the top-1 explanation in ONE explainer run (target null = the
// predicted class): the first heat map costs one run, not a forward pass plus a run.
// The core's preprocess also gives the region of the photo the model saw (its inverse
// mapping), where the page draws the heat map.
async function analyze({ id, imageId, rgba, width, height, methods = core.explainerMethodIds, startLayer = 0 }, reply) {
  requireModel();
  const t0 = now();
  // The whole metadata: the core then also checks the input size against the model's.
  const pre = core.preprocess(new Uint8ClampedArray(rgba), width, height, metadata);
  const { x, y, width: w, height: h } = pre.region;
  image = { imageId, pixels: pre.pixels, region: { x, y, width: w, height: h } };
  photoCache = null;
  tensors.clear();
  const preprocessMs = now() - t0;
  checkFresh(id);
  const outputs = core.outputsFor(methods);
  const out = await explainer.explain(image.pixels, [null], { outputs });
  const target = { a: out.classes[0] };
  cacheTensors(imageId, [target], out, outputs);
  reply({
    type: 'prediction', imageId,
    top5: topK(out.logits, 5, metadata.labels).map(({ id: cls, prob }) => ({ id: cls, prob })),
    region: image.region,
    timings: { preprocessMs },
  });
  const t1 = now();
  const results = mapsOf(imageId, [target], startLayer);
  reply({ type: 'maps', imageId, results, startLayer, timings: { modelMs: out.timings.modelMs, relevanceMs: now() - t1 } });
  if (explainer.canCachePhoto) whenIdle(() => photoTensors(imageId));
}

// The photo's target-independent tensors (split graphs), computed once, after the first
// heat map while the Worker is idle. A class switch then runs the target graph alone.
// null when there are no split graphs.
function photoTensors(imageId) {
  if (!explainer.canCachePhoto || !image || image.imageId !== imageId) return null;
  if (photoCache?.imageId === imageId) return photoCache.promise;
  const promise = explainer.cachePhoto(image.pixels);
  photoCache = { imageId, promise };
  promise.then(
    (cache) => notice({ type: 'photo-cached', imageId, timings: { modelMs: cache.modelMs } }),
    (err) => {
      if (photoCache?.promise === promise) photoCache = null; // explain() falls back to the single graph
      notice({ type: 'photo-cache-failed', imageId, message: err?.message ?? String(err) });
    });
  return promise;
}

// A message that belongs to no request (id 0): the page's Engine hands it to onNotice.
const notice = (body) => self.postMessage({ id: 0, ...body });

// Background work runs only once the Worker has had no request for IDLE_MS, so a request
// soon after a heat map (the next photo, a control) does not wait behind it; each request
// pushes it back. Visitors look at a heat map for a while before they click again.
const IDLE_MS = 1000;
let idleJob = null;
let idleTimer = null;
function whenIdle(fn) {
  idleJob = fn;
  armIdle();
}
function armIdle() {
  clearTimeout(idleTimer);
  if (idleJob) idleTimer = setTimeout(() => afterCurrentRequest(runIdleJob), IDLE_MS);
}
async function runIdleJob() {
  const job = idleJob;
  idleJob = null;
  await job?.();
}

// Explains the targets for `methods`. The graph runs (once, K = targets lacking) only for
// targets whose cached tensors miss an output these methods read. Leaving out
// input_rel_classic (only lrp_full reads it) switches off the costly classic pass down
// to the pixels. Replies with every map the tensors allow.
async function explain({ id, imageId, targets, methods = core.explainerMethodIds, startLayer = 0 }, reply) {
  requireModel();
  if (!image || image.imageId !== imageId) throw new Stale();
  const need = core.outputsFor(methods);
  const lacking = targets.filter((t) => {
    const entry = tensors.get(keyOf(imageId, t));
    return !entry || need.some((o) => !entry.outputs.has(o));
  });
  let modelMs = 0;
  if (lacking.length) {
    checkFresh(id);
    // Keep the outputs cached entries already had, so re-running never loses a method.
    const outputs = new Set(need);
    for (const t of lacking) for (const o of tensors.get(keyOf(imageId, t))?.outputs ?? []) outputs.add(o);
    // The photo's tensors when their computation has started; before that the single
    // graph costs less than computing them first (they follow once the Worker is idle).
    const started = photoCache?.imageId === imageId ? photoCache.promise : null;
    const cached = started && await started.catch(() => null);
    const vectors = lacking.map(targetVector);
    const out = cached
      ? await explainer.explainCached(cached, vectors, { outputs: [...outputs] })
      : await explainer.explain(image.pixels, vectors, { outputs: [...outputs] });
    modelMs = out.timings.modelMs;
    cacheTensors(imageId, lacking, out, outputs);
  }
  checkFresh(id);
  const t0 = now();
  const results = mapsOf(imageId, targets, startLayer);
  reply({ type: 'maps', imageId, results, startLayer, timings: { modelMs, relevanceMs: now() - t0 } });
}

// { id: { rows, cols, data } } for posting to the page.
function plainMaps(maps) {
  const out = {};
  for (const [m, { shape, data }] of Object.entries(maps)) out[m] = { rows: shape[0], cols: shape[1], data };
  return out;
}

// Bench hook: the plain forward (logits only) on the current photo, `runs` times. The
// plain forward graph is downloaded (and warmed up) on the first call only: with it,
// predict() is a true forward pass, since onnxruntime-web runs the whole explainer
// graph even when only its logits are fetched.
async function benchForward({ runs = 5 }) {
  requireModel();
  if (!image) throw new Error('bench: analyze a photo first');
  if (!explainer.hasForward) {
    if (!activeModel.forward_onnx) throw new Error(`bench: ${activeModel.name} has no plain forward graph in models/index.json`);
    const { bytes } = await fetchModelBytes(here(`./models/${activeModel.forward_onnx}`), { expectedBytes: activeModel.forward_bytes });
    await explainer.attachForward(bytes, activeModel.forward_onnx);
    await explainer.predict(image.pixels);
  }
  const times = [];
  for (let i = 0; i < runs; i++) times.push((await explainer.predict(image.pixels)).timings.modelMs);
  return { type: 'bench', times };
}

const handlers = { init, analyze, explain, bench: benchForward };
let queue = Promise.resolve();

// Runs fn after the request being handled (and any already queued), as its own task.
function afterCurrentRequest(fn) {
  queue = queue.then(fn).catch(() => {});
}

self.onmessage = ({ data: msg }) => {
  // Requests that replace the shown result supersede every older one.
  if (msg.supersede) latestId = Math.max(latestId, msg.id);
  const reply = (body, transfer = []) => self.postMessage({ id: msg.id, ...body }, transfer);
  clearTimeout(idleTimer); // background work waits until requests stop coming
  queue = queue.then(async () => {
    try {
      if (msg.supersede) checkFresh(msg.id);
      const result = await handlers[msg.type](msg, reply);
      if (result) reply(result);
      reply({ type: 'done' });
    } catch (err) {
      if (err instanceof Stale) reply({ type: 'stale' });
      else reply({ type: 'error', message: err?.message ?? String(err) });
    }
    armIdle();
  });
};

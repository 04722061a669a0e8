// The inference Worker, shared by the page and every <vit-relevance> element of a page:
// downloads and opens each explainer graph once (onnxruntime-web), preprocesses photos
// and turns the graph's tensors into relevance maps (the C++ core in WebAssembly), all
// through runtime/explain-session.js. The messages are web/lib/protocol.js. Requests run
// one at a time in arrival order; queued requests that a newer superseding one replaced,
// or that their sender cancelled, are skipped.
//
// A Worker gets no import map (Chromium applies a page's import map to the page alone), so
// this script and every module it loads import the runtime by its path in the repository,
// not by package name as the page's modules do; dist/site bundles them all into worker.js.
import { openExplainer } from '../runtime/explainer.js';
import { createSession } from '../runtime/explain-session.js';
import { loadCore } from '../runtime/core.js';
import { graphMethodIds } from '../runtime/metadata.js';
import { fetchModelBytes } from './lib/model-fetch.js';
import { REQUEST, REPLY, NOTICE, modelKeyOf } from './lib/protocol.js';
import { phaseTimer, PHASE } from './lib/load-phases.js';
import { webGpuMissing } from './lib/webgpu-adapter.js';
import { siteFiles } from './lib/site-files.js';

const SITE = siteFiles(import.meta.url);

const now = () => performance.now();

let core = null;
const orts = new Map();      // backend → its onnxruntime-web loader (onceRetrying)
const sessions = new Map();  // modelKey → Promise of { session, ready }
const photos = new Map();    // imageId → { session, photo }, oldest first
const MAX_PHOTOS = 8;        // each holds tensors in the core's heap (its owner releases it)
let latestId = 0;            // newest request that supersedes older work
const cancelled = new Set();

class Stale extends Error {}
const checkFresh = (msg) => { if (cancelled.has(msg.id) || (msg.supersede && msg.id < latestId)) throw new Stale(); };

// load() → a function giving the Promise of its one load; a failed load is forgotten, so
// the next call tries again. For what the Worker loads on first need.
function onceRetrying(load) {
  let loading = null;
  const get = () => {
    if (!loading) {
      loading = load();
      loading.catch(() => { loading = null; });
    }
    return loading;
  };
  get.started = () => loading; // the load under way or done, without starting one
  return get;
}

// onnxruntime-web for `backend`, loaded once → { ort, compileMs }: compileMs is how long
// loading and compiling took, from wherever it started (a warm Worker starts before init).
function loadOrt(backend, threads) {
  if (!orts.has(backend)) orts.set(backend, onceRetrying(() => compileOrt(backend, threads)));
  return orts.get(backend)();
}

async function compileOrt(backend, threads) {
  const started = now();
  const mod = await import(SITE.ort[backend === 'webgpu' ? 'webgpu' : 'wasm'].href);
  // No wasmPaths: onnxruntime finds its WebAssembly beside its own module (in dist/site the
  // versioned folder ort/<entry> re-exports: scripts/build/site.js).
  const o = mod.default ?? mod;
  // Threads need SharedArrayBuffer, i.e. a cross-origin-isolated page (COOP/COEP).
  const most = self.crossOriginIsolated ? Math.max(1, Math.min(4, navigator.hardwareConcurrency || 1)) : 1;
  o.env.wasm.numThreads = Math.min(most, threads ?? most);
  o.env.logLevel = 'error';
  // onnxruntime compiles its WebAssembly (and for WebGPU finds the adapter) when it
  // creates its first session; an empty model starts that and fails right after it, so
  // the compile runs while the model files are read. A failed start is reported by the
  // graph's own session creation.
  await o.InferenceSession.create(new Uint8Array(0), { executionProviders: [backend] }).catch(() => {});
  return { ort: o, compileMs: now() - started };
}

const loadCoreOnce = onceRetrying(() => loadCore({ moduleUrl: SITE.core }));

// The metadata: where the index names its hash, checked against it and kept in Cache
// Storage like the model files; an older index's is read afresh (nothing would tell a
// stale cached copy).
async function fetchMetadata(url, name, sha256) {
  let text;
  if (sha256) {
    text = new TextDecoder().decode((await fetchModelBytes(url, { sha256 })).bytes);
  } else {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`could not download the metadata ${url}: HTTP ${response.status}`);
    text = await response.text();
  }
  try { return JSON.parse(text); } catch { throw new Error(`${name} is not valid JSON`); }
}

// Reads the model files (one byte count over all of them) while onnxruntime and the core
// compile, then opens the first session: with the split graphs the photo graph's (embeds
// predict with it), or with `prepare` (the page) the plain forward graph's (the smallest:
// it predicts while the others open); without them the explainer graph's. The model is
// ready then. With `prepare` the session of the graph that explains the default method
// (its family's graph, models/exporter/families.py; about a second: docs/architecture.md)
// opens right after, and the target, photo and other explanation graphs' when the Worker
// is idle; otherwise each opens when a photo first needs it (embeds need no explainer graph).
// The attribution graphs open elsewhere (web/attribution-job.js).
async function openModel({ model, base, backend = 'wasm', threads, prepare = false }, reply) {
  const url = (file) => new URL(file, base).href;
  const { time, ms } = phaseTimer(reply);
  // The explainer graph, and with the split graphs (models/exporter/split.py) also the
  // photo and target graphs, all three reading one weights file: a class switch then
  // costs the target graph alone; and the plain forward graph over the same weights.
  const split = model.split;
  const forward = prepare && split?.forward;
  // The graphs per method family (models/exporter/families.py), for the page: its first
  // map runs the family graph of the method asked for, whose session opens fastest.
  const families = prepare ? Object.values(split?.families ?? {}) : [];
  const files = split ? [[split.weights], [split.graph], [split.photo], [split.target], [forward], ...families.map((f) => [f])]
    .filter(([f]) => f) : [[model.onnx, model.bytes]];
  const total = split ? split.bytes : files.reduce((s, [, b]) => s + (b || 0), 0);
  let fromCache = true;
  // The files are read at once, not one after another (each read from Cache Storage waits
  // on its own I/O); the progress is their bytes so far, summed.
  const readFiles = async () => {
    const loaded = files.map(() => 0);
    const sum = () => loaded.reduce((a, b) => a + b, 0);
    let lastPost = 0;
    const downloads = await Promise.all(files.map(async ([file, expectedBytes], i) => {
      const got = await fetchModelBytes(url(file), {
        sha256: model.sha256?.[file],
        expectedBytes,
        onProgress: (n) => {
          loaded[i] = n;
          const t = now();
          if (t - lastPost > 50) { lastPost = t; reply({ type: REPLY.PROGRESS, loaded: sum(), total }); }
        },
      });
      loaded[i] = got.bytes.byteLength;
      fromCache &&= got.fromCache;
      return got.bytes;
    }));
    reply({ type: REPLY.PROGRESS, loaded: sum(), total: sum() });
    return downloads;
  };
  const missing = backend === 'webgpu' ? await webGpuMissing() : null;
  const used = missing ? 'wasm' : backend;
  const [meta, downloads, { ort, compileMs }] = await Promise.all([
    time(PHASE.FETCH, () => Promise.all([fetchMetadata(url(model.metadata), model.metadata, model.sha256?.[model.metadata]), readFiles()])),
    time(PHASE.COMPILE, () => loadOrt(used, threads)),
    core ? null : time(PHASE.CORE, async () => { core = await loadCoreOnce(); }),
  ]).then(([[m, d], o]) => [m, d, o]);

  const sessionOptions = used === 'webgpu' ? { executionProviders: ['webgpu', 'wasm'] } : {};
  if (split) sessionOptions.externalData = [{ path: split.weights, data: downloads[0] }];
  const graphName = split ? split.graph : model.onnx;
  // The metadata is checked against every axis the graph fixes when its session opens,
  // the split graphs' fit from their bytes, and every run's output shapes as they come:
  // no blank run at load (it cost about three explanations on each visit).
  const explainer = await time(PHASE.PREPARE, () => openExplainer({
    ort,
    model: split ? downloads[1] : downloads[0],
    split: split && { photo: downloads[2], target: downloads[3] },
    forwardModel: forward && downloads[4],
    families: families.map((name, i) => ({ name, bytes: downloads[files.length - families.length + i] })),
    forwardName: forward || undefined,
    metadata: meta,
    sessionOptions,
    modelName: graphName,
  }));
  // A failure shows when a photo needs the session.
  if (prepare && explainer.canCachePhoto) {
    // The session of the graph that explains the registry's first method (the page's
    // default: its family's graph where the model has one) at once, in the queue turn after
    // `ready`: the page's first heat map of a photo runs it, so a photo chosen at ready (its
    // request queued behind) waits for that opening alone, not for an idle second first.
    // Class switches need the others, which wait for idle counted from its end: the opening
    // holds the Worker's thread, and an idle timer armed before it would fire at its end,
    // ahead of the photo's request. The other explanation graphs (the other families', and
    // the explainer graph's for requests spanning families) open last, smallest first.
    enqueue(async () => {
      const started = now();
      await explainer.prepareExplainer(core.outputsFor(graphMethodIds(core, meta).slice(0, 1))).catch(() => {});
      notice({ type: NOTICE.EXPLAINER_READY, ms: now() - started });
      whenIdle('target', () => explainer.prepareTarget().then(() => notice({ type: NOTICE.SESSIONS_READY })));
      whenIdle('photo-graph', () => explainer.preparePhoto());
      explainer.unopenedExplainers().forEach((open, i) => whenIdle(`explainer ${i}`, () => open().catch(() => {})));
    });
  }
  const session = createSession({ explainer, core });
  session.entry = model;
  session.base = base;
  session.ort = ort;
  return {
    session,
    ready: {
      type: REPLY.READY,
      metadata: meta,
      backend: used,
      // WebGPU asked for where it cannot run: why WebAssembly runs instead
      backendNote: missing && `WebGPU was asked for, but ${missing}: WebAssembly runs instead`,
      threads: ort.env.wasm.numThreads,
      isolated: self.crossOriginIsolated,
      fromCache,
      bytes: downloads.reduce((s, b) => s + b.byteLength, 0),
      split: explainer.canCachePhoto,
      phaseMs: ms, // how long init waited for each phase
      compileMs, // onnxruntime's load and compile, start to end
      // the registry: ids, names, help (src/methods/registry.h); attattr runs other graphs
      methods: core.methods.filter((m) => graphMethodIds(core, meta).includes(m.id)),
    },
  };
}

// Each model opens once; a failed open is forgotten so a later init can retry it.
async function init(msg, reply) {
  const modelKey = modelKeyOf(msg.base, msg.model);
  let opening = sessions.get(modelKey);
  if (!opening) {
    opening = openModel(msg, reply);
    sessions.set(modelKey, opening);
    opening.catch(() => sessions.delete(modelKey));
  }
  const { ready } = await opening;
  return { ...ready, modelKey };
}

async function sessionOf(modelKey) {
  const opening = sessions.get(modelKey);
  if (!opening) throw new Error(`model ${modelKey} is not loaded: send init first`);
  return (await opening).session;
}

function photoOf(imageId) {
  const entry = photos.get(imageId);
  if (!entry) throw new Stale(); // released, or pushed out by newer photos
  return entry;
}

function dropPhoto(imageId) {
  const entry = photos.get(imageId);
  if (!entry) return;
  entry.session.closePhoto(entry.photo);
  photos.delete(imageId);
}

// { id: { rows, cols, data, correlation? } } for posting (a contrast's maps carry correlation).
function wireResults(results) {
  return results.map(({ target, maps }) => {
    const out = {};
    for (const [m, { shape, data, correlation }] of Object.entries(maps)) {
      out[m] = correlation === undefined ? { rows: shape[0], cols: shape[1], data } : { rows: shape[0], cols: shape[1], data, correlation };
    }
    return { target, maps: out };
  });
}

// A message that belongs to no request (id 0): the Engine hands it to onNotice.
const notice = (body) => self.postMessage({ id: 0, ...body });

// Photo → prediction and the top-1 explanation in ONE explainer run (with photoGraph: the
// photo graph, kept as the photo's cache, then the target graph: embeds, whose next
// request follows at once). Also gives the region of the photo the model saw, where the
// page draws the heat map.
async function analyze(msg, reply) {
  const { modelKey, imageId, rgba, width, height, startLayer = 0, photoGraph = false, crop } = msg;
  const session = await sessionOf(modelKey);
  const methods = msg.methods ?? graphMethodIds(core, session.explainer.metadata);
  const t0 = now();
  dropPhoto(imageId);
  const photo = session.openPhoto(new Uint8ClampedArray(rgba), width, height, { crop });
  photos.set(imageId, { session, photo });
  while (photos.size > MAX_PHOTOS) dropPhoto(photos.keys().next().value);
  const preprocessMs = now() - t0;
  checkFresh(msg);
  const viaPhoto = photoGraph && session.explainer.canCachePhoto;
  // Before the session of the graph that explains these methods is open, the forward graph
  // predicts at once.
  const viaForward = !viaPhoto && session.explainer.hasForward && !session.explainer.isOpenFor(core.outputsFor(methods));
  const { top5, target, modelMs } = viaPhoto ? await session.predictFromPhoto(photo)
    : viaForward ? await session.predictForward(photo) : await session.predict(photo, { methods });
  reply({
    type: REPLY.PREDICTION, imageId,
    top5: top5.map(({ id: cls, prob }) => ({ id: cls, prob })),
    logits: photo.logits, // every class's standing (probability, rank) comes from these
    region: photo.region,
    predictedBy: viaPhoto ? 'photo' : viaForward ? 'forward' : 'explainer',
    timings: { preprocessMs },
  });
  const { results, timings } = await session.explain(photo, [target], { methods, startLayer });
  reply({ type: REPLY.MAPS, imageId, results: wireResults(results), startLayer, timings: { ...timings, modelMs: modelMs + timings.modelMs } });
  if (session.explainer.canCachePhoto && !viaPhoto) whenIdle(`photo ${imageId}`, () => cacheIdlePhoto(imageId));
}

async function explain(msg, reply) {
  const { imageId, targets, startLayer = 0 } = msg;
  const { session, photo } = photoOf(imageId);
  const methods = msg.methods ?? graphMethodIds(core, session.explainer.metadata);
  checkFresh(msg);
  const { results, timings } = await session.explain(photo, targets, { methods, startLayer });
  checkFresh(msg);
  reply({ type: REPLY.MAPS, imageId, results: wireResults(results), startLayer, timings });
}

// Background work, done once the Worker has had no request for IDLE_MS, one task per queue
// turn, so a request soon after (the next photo, a control) does not wait behind it; each
// request pushes it back. Tasks: opening the target and photo graphs' sessions after
// `ready`, and a photo's target-independent tensors (split graphs) after its first heat map.
const IDLE_MS = 1000;
const idleTasks = new Map(); // key → async task, in insertion order
let idleTimer = null;
function whenIdle(key, task) {
  idleTasks.set(key, task);
  armIdle();
}
function armIdle() {
  clearTimeout(idleTimer);
  if (idleTasks.size) idleTimer = setTimeout(() => enqueue(runIdleTask), IDLE_MS);
}
async function runIdleTask() {
  const next = idleTasks.entries().next();
  if (next.done) return;
  const [key, task] = next.value;
  idleTasks.delete(key);
  await task();
  armIdle();
}
async function cacheIdlePhoto(imageId) {
  const entry = photos.get(imageId);
  const promise = entry && entry.session.cachePhoto(entry.photo);
  if (!promise) return;
  try {
    const cache = await promise;
    notice({ type: NOTICE.PHOTO_CACHED, imageId, timings: { modelMs: cache.modelMs } });
  } catch (err) {
    notice({ type: NOTICE.PHOTO_CACHE_FAILED, imageId, message: err?.message ?? String(err) });
  }
}

// Bench hook: the plain forward (logits only) on a photo, `runs` times, through the page's
// plain forward graph (split graphs): a true forward pass, since onnxruntime-web runs the
// whole explainer graph even when only its logits are fetched.
async function benchForward({ imageId, runs = 5 }) {
  const { session, photo } = photoOf(imageId);
  if (!session.explainer.hasForward) throw new Error(`bench: ${session.entry.name} has no plain forward graph among its split graphs`);
  const { explainer } = session;
  const times = [];
  for (let i = 0; i < runs; i++) times.push((await explainer.predict(photo.pixels)).timings.modelMs);
  return { type: REPLY.BENCH, times };
}

// The Attribution panel's job, its own script, loaded on the first request (embeds never
// send one).
const loadAttributionJob = onceRetrying(() => import('./attribution-job.js'));

async function stats() {
  let graphRuns = 0;
  for (const opening of sessions.values()) graphRuns += (await opening.catch(() => null))?.session.graphRuns ?? 0;
  const job = await loadAttributionJob.started()?.catch(() => null);
  const attribution = job ? job.attributionRuns() : { blocks: 0, states: 0 };
  return { type: REPLY.STATS, graphRuns, attribution, sessions: sessions.size, photos: photos.size, workerId };
}
const workerId = Math.random().toString(36).slice(2);

async function handle(msg, reply) {
  switch (msg.type) {
    case REQUEST.INIT: return init(msg, reply);
    case REQUEST.ANALYZE: return analyze(msg, reply);
    case REQUEST.EXPLAIN: return explain(msg, reply);
    case REQUEST.RELEASE: idleTasks.delete(`photo ${msg.imageId}`); return dropPhoto(msg.imageId);
    case REQUEST.STATS: return stats();
    case REQUEST.BENCH: return benchForward(msg);
    case REQUEST.ATTRIBUTE: {
      const session = await sessionOf(msg.modelKey);
      const { attribute } = await loadAttributionJob();
      return attribute(msg, reply, { session, photo: photoOf(msg.imageId).photo, ort: session.ort });
    }
    default: throw new Error(`unknown request type "${msg.type}"`);
  }
}

// The page names its Worker after the backend it opens first (web/page/model.js): onnxruntime
// and the core compile while the page still reads its list of models, before init.
const warmBackend = /^vit-relevance:(wasm|webgpu)$/.exec(self.name)?.[1];
if (warmBackend) {
  loadOrt(warmBackend).catch(() => {}); // init reports a failure
  loadCoreOnce().catch(() => {});
}

let queue = Promise.resolve();
function enqueue(fn) {
  queue = queue.then(fn).catch(() => {});
}

self.onmessage = ({ data: msg }) => {
  const reply = (body, transfer = []) => self.postMessage({ id: msg.id, ...body }, transfer);
  // Cancelling jumps the queue: the requests it names are skipped when their turn comes.
  if (msg.type === REQUEST.CANCEL) {
    for (const id of msg.ids) cancelled.add(id);
    reply({ type: REPLY.DONE });
    return;
  }
  // Requests that replace the shown result supersede every older one.
  if (msg.supersede) latestId = Math.max(latestId, msg.id);
  clearTimeout(idleTimer); // background work waits until requests stop coming
  run(msg, reply, () => handle(msg, reply));
};

// Resolves in the next task: by then the messages that arrived while the Worker's thread
// was held (a session's opening, a graph's run) have been dispatched. A queue turn starts
// in the task that ended the one before, ahead of them.
const messagesSeen = () => new Promise((resolve) => { setTimeout(resolve); });

// One queue turn of a request, started once the messages that arrived before its turn have
// been seen, so that one they supersede or cancel is skipped, not run: a photo chosen
// while the Worker opens a session (a visit's first photo) replaces a link's photo queued
// before it. A handler may return a function, its next step (the attribution's next
// block): that step queues anew, after a macrotask so that messages that arrived meanwhile
// (a cancel, other requests) queue ahead of it.
function run(msg, reply, work) {
  enqueue(async () => {
    await messagesSeen();
    try {
      checkFresh(msg);
      const result = await work();
      if (typeof result === 'function') {
        setTimeout(() => run(msg, reply, result));
        return;
      }
      if (result) reply(result);
      reply({ type: REPLY.DONE });
    } catch (err) {
      if (err instanceof Stale) reply({ type: REPLY.STALE });
      else reply({ type: REPLY.ERROR, message: err?.message ?? String(err) });
    }
    cancelled.delete(msg.id);
    armIdle();
  });
}

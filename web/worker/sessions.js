// @ts-check
// The inference Worker's models: onnxruntime-web and the C++ core loaded once, each model's
// files read and its graphs' sessions opened once (runtime/explainer.js), and the order
// they open in: the first at `init`, the default method's graph right after `ready`, the
// others when the Worker is idle. `site` is web/lib/site-files.js's URLs, which only the
// top-level script can build (web/worker.js).
import { openExplainer } from '../../runtime/explainer.js';
import { LARGE_WEIGHTS_BYTES, FOLD_WEIGHTS_BYTES } from '../../runtime/session-options.js';
import { createPhotoCache } from '../../runtime/photo-cache.js';
import { loadCore } from '../../runtime/core.js';
import { graphMethodIds } from '../../runtime/metadata.js';
import { fetchModelBytes } from '../lib/model-fetch.js';
import { REPLY, NOTICE, modelKeyOf } from '../lib/protocol.js';
import { phaseTimer, PHASE } from '../lib/load-phases.js';
import { webGpuMissing } from '../lib/webgpu-adapter.js';
import { enqueue, notice, whenIdle } from './queue.js';
import { onceRetrying } from './once-retrying.js';

const now = () => performance.now();

/** The C++ core, once the first model has loaded it (the Worker's handlers run after). */
export let core = null;
const orts = new Map();      // backend → its onnxruntime-web loader (onceRetrying)
const sessions = new Map();  // modelKey → Promise of { photoCache, ready }

// onnxruntime-web for `backend`, loaded once → { ort, compileMs }: compileMs is how long
// loading and compiling took, from wherever it started (a warm Worker starts before init).
function loadOrt(site, backend, threads) {
  if (!orts.has(backend)) orts.set(backend, onceRetrying(() => compileOrt(site, backend, threads)));
  return orts.get(backend)();
}

async function compileOrt(site, backend, threads) {
  const started = now();
  const mod = await import(site.ort[backend === 'webgpu' ? 'webgpu' : 'wasm'].href);
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

let loadCoreOnce = null;
function loadCoreFrom(site) {
  loadCoreOnce ??= onceRetrying(() => loadCore({ moduleUrl: site.core }));
  return loadCoreOnce();
}

// A Worker named after a backend (web/start-worker.js, web/page/model.js) compiles
// onnxruntime and the core at once, while the page still reads its list of models, before
// init; init reports a failure.
export function warmUp(site, backend) {
  loadOrt(site, backend).catch(() => {});
  loadCoreFrom(site).catch(() => {});
}

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

// → a function giving a weights file: `first` (the downloaded bytes) at its first call,
// read again at each later one.
function readAgain(first, url, sha256) {
  return async () => {
    const given = first;
    first = null;
    return given ?? (await fetchModelBytes(url, { sha256 })).bytes;
  };
}

// Reads the model files (one byte count over all of them) while onnxruntime and the core
// compile, then opens the first session: with the split graphs the photo graph's (embeds
// predict with it), or with `prepare` (the page) the plain forward graph's (the smallest:
// it predicts while the others open); without them the explainer graph's. The model is
// ready then. With `prepare` the session of the graph that explains the default method
// (its family's graph, models/exporter/families.py; docs/architecture.md gives the times)
// opens right after, and the target, photo and other explanation graphs' when the Worker
// is idle; otherwise each opens when a photo first needs it (embeds need no explainer graph).
// A large model (its split graphs' bytes, almost all of them the weights, over
// LARGE_WEIGHTS_BYTES) keeps one session open at a time, that of the graph the last request
// needed (runtime/explainer.js, oneSession): the page's ready is its default method's
// graph's, and no split graph is read. The attribution graphs open elsewhere
// (web/attribution-job.js).
/** @param {import('../lib/protocol.js').InitRequest} msg @param {import('../lib/protocol.js').ReplyFn} reply @param {any} site */
async function openModel({ model, base, backend = 'wasm', threads, prepare = false, verify = false }, reply, site) {
  const url = (file) => new URL(file, base).href;
  const { time, ms, report } = phaseTimer(reply);
  // The explainer graph, and with the split graphs (models/exporter/split.py) also the
  // photo and target graphs, all three reading one weights file: a class switch then
  // costs the target graph alone; and the plain forward graph over the same weights.
  const split = model.split;
  const oneSession = Boolean(split?.bytes > LARGE_WEIGHTS_BYTES);
  const forward = prepare && split?.forward;
  // The graphs per method family (models/exporter/families.py), for the page: its first
  // map runs the family graph of the method asked for, whose session opens fastest.
  const families = prepare || oneSession ? Object.values(split?.families ?? {}) : [];
  const pair = oneSession ? [] : [split?.photo, split?.target];
  const files = split ? [[split.weights], [split.graph], ...pair.map((f) => [f]), [forward], ...families.map((f) => [f])]
    .filter(([f]) => f) : [[model.onnx, model.bytes]];
  const bytesOf = (f) => downloads[files.findIndex(([name]) => name === f)];
  const total = split ? split.bytes : files.reduce((s, [, b]) => s + (Number(b) || 0), 0);
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
    time(PHASE.COMPILE, () => loadOrt(site, used, threads)),
    core ? null : time(PHASE.CORE, async () => { core = await loadCoreFrom(site); }),
  ]).then(([[m, d], o]) => [m, d, o]);

  const sessionOptions = used === 'webgpu' ? { executionProviders: ['webgpu', 'wasm'] } : {};
  const bytes = downloads.reduce((sum, b) => sum + b.byteLength, 0);
  // A large model's weights are handed to its first session and not held after it: each
  // later opening reads them again (from Cache Storage; onnxruntime keeps its own copy in
  // the session), 346 MB less for a ViT-B/16 from ready on.
  const weights = oneSession ? readAgain(downloads[0], url(split.weights), model.sha256?.[split.weights]) : downloads[0];
  if (oneSession) downloads[0] = null; // this function scope lives on with the model
  if (split) sessionOptions.externalData = [{ path: split.weights, data: weights }];
  const graphName = split ? split.graph : model.onnx;
  // The metadata is checked against every axis the graph fixes when its session opens,
  // the split graphs' fit from their bytes, and every run's output shapes as they come:
  // no blank run at load (it cost about three explanations on each visit).
  const defaultOutputs = () => core.outputsFor(graphMethodIds(core, meta).slice(0, 1));
  const explainer = await time(PHASE.PREPARE, async () => {
    const opened = await openExplainer({
      ort,
      model: split ? downloads[1] : downloads[0],
      split: split && !oneSession && { photo: bytesOf(split.photo), target: bytesOf(split.target) },
      oneSession,
      foldWeightParts: Boolean(split && split.bytes <= FOLD_WEIGHTS_BYTES),
      forwardModel: forward && bytesOf(forward),
      families: families.map((name) => ({ name, bytes: bytesOf(name) })),
      forwardName: forward || undefined,
      metadata: meta,
      sessionOptions,
      modelName: graphName,
    });
    // verify: every graph opened and checked first (a model the visitor brought), then, for a
    // large model's one session from ready on, the default method's graph (it predicts too)
    const opening = async () => {
      if (verify) await opened.openAll(report);
      if (oneSession) await opened.prepareExplainer(defaultOutputs());
    };
    await opening().catch(async (err) => { await opened.release(); throw err; });
    return opened;
  });
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
      await explainer.prepareExplainer(defaultOutputs()).catch(() => {});
      notice({ type: NOTICE.EXPLAINER_READY, ms: now() - started });
      whenIdle('class-graph', () => explainer.prepareClassGraph().then(() => notice({ type: NOTICE.SESSIONS_READY })));
      whenIdle('photo-graph', () => explainer.preparePhoto());
      explainer.unopenedExplainers().forEach((open, i) => whenIdle(`explainer ${i}`, () => open().catch(() => {})));
    });
  }
  const photoCache = createPhotoCache({ explainer, core });
  photoCache.entry = model;
  photoCache.base = base;
  photoCache.ort = ort;
  return {
    photoCache,
    ready: {
      type: REPLY.READY,
      metadata: meta,
      backend: used,
      // WebGPU asked for where it cannot run: why WebAssembly runs instead
      backendNote: missing && `WebGPU was asked for, but ${missing}: WebAssembly runs instead`,
      threads: ort.env.wasm.numThreads,
      isolated: self.crossOriginIsolated,
      fromCache,
      bytes,
      split: explainer.canCachePhoto,
      phaseMs: ms, // how long init waited for each phase
      compileMs, // onnxruntime's load and compile, start to end
      // the registry: ids, names, help (src/methods/registry.h); attattr runs other graphs
      methods: core.methods.filter((m) => graphMethodIds(core, meta).includes(m.id)),
    },
  };
}

// Each model opens once; a failed open is forgotten so a later init can retry it.
/** @param {import('../lib/protocol.js').InitRequest} msg @param {import('../lib/protocol.js').ReplyFn} reply @param {any} site web/lib/site-files.js's */
export async function init(msg, reply, site) {
  const modelKey = modelKeyOf(msg.base, msg.model);
  let opening = sessions.get(modelKey);
  if (!opening) {
    // A text model (an index entry with kind "text": web/worker/text-model.js) takes the same
    // onnxruntime and core; its code loads on demand, so a photo model's Worker never
    // downloads the text explainer and tokenizer (the build splits them into a chunk).
    const loaders = { ort: () => loadOrt(site, 'wasm', msg.threads), core: async () => (core ??= await loadCoreFrom(site)) };
    opening = msg.model?.kind === 'text'
      ? import('../worker-text.js').then(({ openTextModel }) => openTextModel(msg, reply, loaders))
      : openModel(msg, reply, site);
    sessions.set(modelKey, opening);
    opening.catch(() => sessions.delete(modelKey));
  }
  const { ready } = await opening;
  // large: its memory is given back only by ending the Worker (web/api/shared-runtime.js)
  return { ...ready, modelKey, large: ready.bytes > LARGE_WEIGHTS_BYTES };
}

// Every model opened or opening, forgotten here (web/worker/unload.js frees them): → their
// photo caches, once each has settled (a failed one has nothing to free).
export async function takeModels() {
  const openings = [...sessions.values()];
  sessions.clear();
  const opened = await Promise.all(openings.map((o) => o.catch(() => null)));
  return opened.filter(Boolean).map((o) => o.photoCache);
}

export async function photoCacheOf(modelKey) {
  const opening = sessions.get(modelKey);
  if (!opening) throw new Error(`model ${modelKey} is not loaded: send init first`);
  return (await opening).photoCache;
}

// For the stats request: graph runs over every model's session, and how many models opened.
export async function sessionStats() {
  let graphRuns = 0;
  /** @type {string[]} */
  const openGraphs = []; // a text model's graphs whose ONNX session is open (runtime/text-explainer.js)
  for (const opening of sessions.values()) {
    const photoCache = (await opening.catch(() => null))?.photoCache;
    graphRuns += photoCache?.graphRuns ?? 0;
    openGraphs.push(...(photoCache?.explainer?.graphs?.() ?? []).filter((g) => g.open).map((g) => g.name));
  }
  return { graphRuns, sessions: sessions.size, openGraphs };
}

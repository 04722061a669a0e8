// @ts-check
// The public JavaScript API in the browser (package entry "vit-relevance"; its types are
// this file's JSDoc). Safe to import in a page or a Worker (a Worker imports the bundle,
// dist/site/vit-relevance.js: as written, this module names the runtime by package name,
// which only a page's import map resolves). Every explainer shares the page's one
// inference Worker (web/lib/shared-runtime.js); maps come back as
// { shape: [rows, cols], data: Float32Array }.
import { sharedEngine, openSharedModel } from './lib/shared-runtime.js';
import { REQUEST, REPLY } from './lib/protocol.js';
import { decodeImage } from './lib/image-source.js';
import { heatImage } from './lib/render.js';
import { RENDER_SIDE, longSide } from 'vit-relevance/runtime/render-size.js';
import { drawOverlay } from './lib/overlay.js';
import { loadCore } from 'vit-relevance/runtime/core.js';
import { resolveTarget } from 'vit-relevance/runtime/targets.js';
import { resolveTargets, withPredicted, checkMethods, top5Of, resultTarget } from 'vit-relevance/runtime/explain-request.js';
import { contrastBlocker } from './lib/scale-view.js';
import { withBackendNote } from './lib/backend-note.js';
import { siteFiles } from './lib/site-files.js';
export * from 'vit-relevance/runtime/explain-types.js'; // the shared types: no code

/**
 * @import { ClassProbability, ExplainerBase, ExplainOptions, ExplainResult, LoadOptions, RelevanceMap, RenderOptions, Region } from 'vit-relevance/runtime/explain-types.js'
 * @typedef {import('./lib/load-phases.js').LoadPhase} LoadPhase
 */

/**
 * What explain() and open() take in the browser. A string is a URL (relative to the document).
 * @typedef {Blob | ImageBitmap | HTMLImageElement | ImageData | string | URL} BrowserImage
 */

/**
 * A browser explanation: also the backend that ran ('wasm' where 'webgpu' was asked for
 * but cannot run) and `notes`, sentences on what the maps leave out (methods a contrast
 * left out) and the explainer's backendNote.
 * @typedef {ExplainResult & { backend: 'wasm' | 'webgpu', notes: string[] }} BrowserExplainResult
 */

/**
 * A photo decoded once, kept in the Worker for several explanations; close() frees its
 * tensors there. top5 and region are known after the first explain().
 * @typedef {object} Photo
 * @property {number} width
 * @property {number} height
 * @property {ImageBitmap} bitmap
 * @property {ClassProbability[] | null} top5
 * @property {Region | null} region
 * @property {(options?: ExplainOptions) => Promise<BrowserExplainResult>} explain
 * @property {() => void} close
 */

/**
 * An explainer in the page's shared Worker. backend: the one that runs; backendNote: why
 * it is not the one asked for (no WebGPU here, or the page's model already open on
 * WebAssembly), null when it is.
 * @typedef {ExplainerBase<BrowserImage, BrowserExplainResult> & {
 *   backend: 'wasm' | 'webgpu', backendNote: string | null, threads: number,
 *   open: (image: BrowserImage, options?: { signal?: AbortSignal }) => Promise<Photo>,
 *   close: () => void,
 * }} Explainer
 */

/**
 * model: URL of a built models folder, or of one model's metadata JSON (default: the
 * site's models/). onProgress: called as the model's files download (bytes so far) and
 * as its load phases start and end (the phases running now: web/lib/load-phases.js).
 * @typedef {Omit<LoadOptions, 'onProgress'> & {
 *   model?: string | URL,
 *   onProgress?: (loaded: number, total: number, phases: readonly LoadPhase[]) => void,
 * }} BrowserLoadOptions
 */

const SITE = siteFiles(import.meta.url);

const now = () => performance.now();
const abortError = () => new DOMException('the request was aborted', 'AbortError');
let nextImageId = 1;

// A photo the Worker keeps between explanations: other targets, methods and start layers
// reuse its tensors (and with the split graphs, a class switch runs the target graph alone).
// Photos opened from the same URL on the same model are one photo, counted: the last
// close() frees it.
/** @implements {Photo} */
class KeptPhoto {
  #engine;
  #model;
  #imageId = null;
  #logits = null;
  #decoded;
  #analyzing = null;
  #refs = 1;
  #onFree;
  constructor(engine, model, decoded, onFree = () => {}) {
    this.#engine = engine;
    this.#model = model;
    this.#decoded = decoded;
    this.#onFree = onFree;
    this.width = decoded.width;
    this.height = decoded.height;
    this.bitmap = decoded.bitmap;
    this.top5 = null;
    this.region = null;
  }

  retain() {
    this.#refs++;
    return this;
  }

  async #ask(type, body, signal, transfer = []) {
    const r = await this.#engine.request(type, body, { signal, transfer });
    if (r.stale) throw signal?.aborted ? abortError() : new Error('the photo was released');
    return r.replies;
  }

  // Preprocess, prediction and the predicted class's maps, once per photo, through the
  // photo graph: its outputs serve every later class at once (no background run competing
  // with the next embed's photo), and attention-only methods need no target graph.
  async #analyze(methods, startLayer, signal) {
    const imageId = nextImageId++;
    const rgba = new Uint8ClampedArray(this.#decoded.rgba);
    const replies = await this.#ask(REQUEST.ANALYZE,
      { modelKey: this.#model.modelKey, imageId, rgba: rgba.buffer, width: this.width, height: this.height, methods, startLayer, photoGraph: true },
      signal, [rgba.buffer]);
    this.#imageId = imageId;
    const prediction = replies.find((m) => m.type === REPLY.PREDICTION);
    this.top5 = top5Of(this.#model.metadata, prediction.top5);
    this.#logits = prediction.logits; // every explained class's standing
    this.region = prediction.region;
    return { prediction, maps: replies.find((m) => m.type === REPLY.MAPS) };
  }

  // A contrast leaves out the methods that cannot contrast, and says so in `notes`; when
  // none of them can, nothing runs and the error says why.
  #contrastNotes(wanted, list) {
    if (!wanted.some((t) => t.b !== undefined)) return [];
    const blocked = list.map((m) => contrastBlocker(this.#model.method(m))).filter(Boolean);
    if (blocked.length === list.length) {
      const able = this.#model.methods.filter((m) => this.#model.method(m).contrast);
      throw new Error(`${blocked.join('; ')}. Choose a method that can: ${able.join(', ')}`);
    }
    return blocked.map((why) => `${why}, so it is left out`);
  }

  /** @param {ExplainOptions} [options] @returns {Promise<BrowserExplainResult>} */
  async explain({ targets, methods, startLayer = 0, signal } = {}) {
    const { metadata } = this.#model;
    const wanted = resolveTargets(metadata, targets);
    const list = checkMethods(methods, this.#model.methods);
    const notes = this.#contrastNotes(wanted, list);
    // The Worker's maps replies fill in modelMs and relevanceMs.
    const timings = /** @type {BrowserExplainResult['timings']} */ ({});
    const started = now();
    const results = new Map();
    const keep = (msg) => { for (const r of msg.results) results.set(`${r.target.a}|${r.target.b}`, r.maps); Object.assign(timings, msg.timings); };
    while (this.#imageId === null) {
      if (this.#analyzing) {
        // Another caller's analysis of this photo: wait for it (or retry if it was aborted).
        await this.#analyzing.catch(() => {});
        if (signal?.aborted) throw abortError();
        continue;
      }
      this.#analyzing = this.#analyze(list, startLayer, signal);
      try {
        const { prediction, maps } = await this.#analyzing;
        timings.preprocessMs = prediction.timings.preprocessMs;
        keep(maps);
      } finally {
        this.#analyzing = null;
      }
    }
    const all = withPredicted(wanted, this.top5[0].id);
    const missing = all.filter((t) => !results.has(`${t.a}|${t.b}`));
    if (missing.length) {
      const replies = await this.#ask(REQUEST.EXPLAIN, { imageId: this.#imageId, targets: missing, methods: list, startLayer }, signal);
      keep(replies.find((m) => m.type === REPLY.MAPS));
    }
    timings.totalMs = now() - started;
    return {
      top5: this.top5,
      targets: all.map((t) => resultTarget(metadata, t, results.get(`${t.a}|${t.b}`), list, this.#logits)),
      region: this.region,
      width: this.width,
      height: this.height,
      timings,
      backend: this.#model.backend, // the one that ran
      notes, // what the maps leave out (an explainer's explain() adds its backendNote)
    };
  }

  // Frees the photo's tensors in the Worker once its last holder closes it.
  close() {
    if (--this.#refs > 0) return;
    if (this.#imageId !== null) this.#engine.request(REQUEST.RELEASE, { imageId: this.#imageId }).catch(() => {});
    this.#imageId = null;
    this.#onFree();
  }
}

// `${modelKey}|${absolute URL}` → promise of the Photo every opener of that URL shares.
const byUrl = new Map();

function openPhoto(engine, model, image, signal) {
  if (typeof image !== 'string' && !(image instanceof URL)) {
    return decodeImage(image, { signal }).then((decoded) => new KeptPhoto(engine, model, decoded));
  }
  const key = `${model.modelKey}|${new URL(String(image), globalThis.document?.baseURI ?? globalThis.location?.href).href}`;
  let shared = byUrl.get(key);
  if (shared) return shared.then((photo) => photo.retain());
  // Decoded without the opener's signal: a second opener may still want it.
  shared = decodeImage(image).then((decoded) => new KeptPhoto(engine, model, decoded, () => byUrl.delete(key)));
  byUrl.set(key, shared);
  shared.catch(() => byUrl.delete(key));
  return shared;
}

const BACKEND_NAMES = { wasm: 'WebAssembly', webgpu: 'WebGPU' };

// Why the backend that runs is not the one asked for, or null when it is: the Worker's
// reason when it could not open WebGPU, or the model already open on the other backend
// (a page's elements share one session per model).
function backendNote(asked, ready) {
  if (asked === ready.backend) return null;
  return ready.backendNote ?? `${BACKEND_NAMES[asked] ?? asked} was asked for, but this page already runs the model on `
    + `${BACKEND_NAMES[ready.backend]}, which every explainer of the page shares`;
}

/**
 * Loads (once per page) and opens a model in the page's shared inference Worker.
 * @param {BrowserLoadOptions} [options]
 * @returns {Promise<Explainer>}
 */
export async function loadExplainer({ model, backend = 'wasm', threads, onProgress, signal } = {}) {
  const opening = openSharedModel(SITE, { model, backend, threads, onProgress });
  const ready = await (signal ? Promise.race([opening, new Promise((_, reject) => {
    if (signal.aborted) reject(abortError());
    signal.addEventListener('abort', () => reject(abortError()), { once: true });
  })]) : opening);
  const engine = sharedEngine(SITE);
  const photos = []; // opened and not yet closed
  const { metadata } = ready;
  // The core's method registry: { id, name, shortName, description, paper, ... }.
  const registry = new Map(ready.methods.map((m) => [m.id, m]));
  const method = (id) => {
    if (!registry.has(id)) throw new Error(`unknown method "${id}"; known: ${[...registry.keys()].join(', ')}`);
    return registry.get(id);
  };
  const opened = { ...ready, methods: [...registry.keys()], method, backendNote: backendNote(backend, ready) };
  return {
    metadata,
    methods: opened.methods,
    method,
    backend: ready.backend, // the one that runs: 'wasm' where 'webgpu' cannot (backendNote says why)
    backendNote: opened.backendNote,
    threads: ready.threads,
    // A class id from an id, WordNet id or name (throws naming close matches).
    classId: (spec) => resolveTarget(metadata, spec),
    label: (id) => metadata.labels[id],
    // Decodes a photo once for several explanations; close() it when done.
    async open(image, { signal: photoSignal } = {}) {
      const photo = await openPhoto(engine, opened, image, photoSignal);
      photos.push(photo);
      return photo;
    },
    /** @this {Explainer} */
    async explain(image, options = {}) {
      const photo = await this.open(image, options);
      try {
        return withBackendNote(await photo.explain(options), opened.backendNote);
      } finally {
        photo.close();
        photos.splice(photos.indexOf(photo), 1);
      }
    },
    close() {
      for (const p of photos.splice(0)) p.close();
    },
  };
}

/**
 * What the page's shared Worker holds and has done: sessions (models open), graphRuns,
 * photos (kept). For checking that elements share one Worker and one session.
 * @returns {Promise<{ sessions: number, graphRuns: number, photos: number, workerId: string }>}
 */
export async function runtimeStats() {
  const { replies } = await sharedEngine(SITE).request(REQUEST.STATS);
  const { sessions, graphRuns, photos, workerId } = replies.find((m) => m.type === REPLY.STATS);
  return { sessions, graphRuns, photos, workerId };
}

let corePromise = null;
/** Loads the WebAssembly core render() uses (once). @type {() => ReturnType<typeof loadCore>} */
export const loadRenderer = () => (corePromise ??= loadCore({ moduleUrl: SITE.core }));

// A pixel map's patch map (attnlrp, cp_lrp, lrp_full; METHODS.md): the sum of the map over
// each patch of grid = [rows, cols] (the model's metadata.architecture.grid), signed.
/** @param {RelevanceMap} map @param {[number, number]} grid @returns {Promise<RelevanceMap>} */
export async function patchMap(map, grid) {
  return (await loadRenderer()).patchSum(map, grid);
}

// A map → ImageData, drawn by the core as the page draws it (core.renderHeat): on its
// colour scale (`scale` 'positive': min-max, 'signed': 0 white in the diverging rdbu
// colormap), thresholded (removed pixels transparent), coloured; `display` smooth
// (bilinear) or grid (one block per patch). With `photo` ({ bitmap|image, width, height }
// and `region` from the result), the map is drawn over the photo at `opacity`, at the
// photo's size (as Node's render and the CLI); else `size` is the longest side.
/**
 * @param {RelevanceMap} map
 * @param {RenderOptions & { photo?: { bitmap?: CanvasImageSource, image?: CanvasImageSource, width: number, height: number } | ImageBitmap }} [options]
 * @returns {Promise<ImageData>}
 */
export async function render(map, {
  colormap = 'jet', opacity = 0.5, threshold = 'none', display = 'smooth', scale = 'positive', size = RENDER_SIDE, photo, region,
} = {}) {
  const core = await loadRenderer();
  const [rows, cols] = map.shape;
  const sampling = display === 'grid' ? 'patch_grid' : 'bilinear';
  if (!photo) {
    const heat = core.renderHeat(map.data, rows, cols, { scale, colormap, threshold, sampling, ...longSide(rows, cols, size) });
    return new ImageData(heat.data, heat.width, heat.height);
  }
  const heat = heatImage(core, { rows, cols, data: map.data }, { colormap, threshold, display: display === 'grid' ? 'grid' : 'smooth', scale });
  const given = /** @type {{ bitmap?: CanvasImageSource, image?: CanvasImageSource }} */ (photo); // or an ImageBitmap
  const picture = { bitmap: given.bitmap ?? given.image ?? photo, width: photo.width, height: photo.height };
  const canvas = new OffscreenCanvas(1, 1);
  drawOverlay(canvas, picture, region ?? { x: 0, y: 0, width: picture.width, height: picture.height }, heat,
    { opacity, smooth: display !== 'grid', maxSide: Math.max(picture.width, picture.height) });
  return canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
}

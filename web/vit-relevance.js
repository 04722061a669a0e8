// The public JavaScript API in the browser (package entry "vit-relevance"; types in
// vit-relevance.d.ts). Safe to import in a page or a Worker. Every explainer shares the
// page's one inference Worker (web/lib/shared-runtime.js); maps come back as
// { shape: [rows, cols], data: Float32Array }.
import { sharedEngine, openSharedModel } from './lib/shared-runtime.js';
import { REQUEST, REPLY } from './lib/protocol.js';
import { decodeImage } from './lib/image-source.js';
import { heatImage } from './lib/render.js';
import { drawOverlay } from './lib/overlay.js';
import { loadCore } from './runtime/core.js';
import { resolveTarget } from './runtime/targets.js';
import { resolveTargets, withPredicted, checkMethods, top5Of, resultTarget } from './runtime/explain-request.js';

export { METHOD_NAMES, METHOD_SHORT } from './lib/methods.js';

const now = () => performance.now();
const abortError = () => new DOMException('the request was aborted', 'AbortError');
let nextImageId = 1;

// A photo the Worker keeps between explanations: other targets, methods and start layers
// reuse its tensors (and with the split graphs, a class switch runs the target graph alone).
class Photo {
  #engine;
  #model;
  #imageId = null;
  #decoded;
  constructor(engine, model, decoded) {
    this.#engine = engine;
    this.#model = model;
    this.#decoded = decoded;
    this.width = decoded.width;
    this.height = decoded.height;
    this.bitmap = decoded.bitmap;
    this.top5 = null;
    this.region = null;
  }

  async explain({ targets, methods, startLayer = 0, signal } = {}) {
    const { metadata } = this.#model;
    const wanted = resolveTargets(metadata, targets);
    const list = checkMethods(methods, this.#model.methods);
    const timings = {};
    const started = now();
    const results = new Map();
    const keep = (msg) => { for (const r of msg.results) results.set(`${r.target.a}|${r.target.b}`, r.maps); Object.assign(timings, msg.timings); };
    const ask = async (type, body, options = {}) => {
      const r = await this.#engine.request(type, body, { signal, ...options });
      if (r.stale) throw signal?.aborted ? abortError() : new Error('the photo was released');
      return r.replies;
    };
    if (this.#imageId === null) {
      const imageId = nextImageId++;
      const rgba = new Uint8ClampedArray(this.#decoded.rgba);
      const replies = await ask(REQUEST.ANALYZE,
        { modelKey: this.#model.modelKey, imageId, rgba: rgba.buffer, width: this.width, height: this.height, methods: list, startLayer },
        { transfer: [rgba.buffer] });
      this.#imageId = imageId;
      const prediction = replies.find((m) => m.type === REPLY.PREDICTION);
      this.top5 = top5Of(metadata, prediction.top5);
      this.region = prediction.region;
      timings.preprocessMs = prediction.timings.preprocessMs;
      keep(replies.find((m) => m.type === REPLY.MAPS));
    }
    const all = withPredicted(wanted, this.top5[0].id);
    const missing = all.filter((t) => !results.has(`${t.a}|${t.b}`));
    if (missing.length) {
      const replies = await ask(REQUEST.EXPLAIN, { imageId: this.#imageId, targets: missing, methods: list, startLayer });
      keep(replies.find((m) => m.type === REPLY.MAPS));
    }
    timings.totalMs = now() - started;
    return {
      top5: this.top5,
      targets: all.map((t) => resultTarget(metadata, t, results.get(`${t.a}|${t.b}`), list)),
      region: this.region,
      width: this.width,
      height: this.height,
      timings,
    };
  }

  // Frees the photo's tensors in the Worker.
  close() {
    if (this.#imageId !== null) this.#engine.request(REQUEST.RELEASE, { imageId: this.#imageId }).catch(() => {});
    this.#imageId = null;
  }
}

// options: { model (URL of a models folder or metadata JSON; default: the site's own),
// backend ('wasm' | 'webgpu'), threads, onProgress(loaded, total), signal }.
export async function loadExplainer({ model, backend = 'wasm', threads, onProgress, signal } = {}) {
  const opening = openSharedModel({ model, backend, threads, onProgress });
  const ready = await (signal ? Promise.race([opening, new Promise((_, reject) => {
    if (signal.aborted) reject(abortError());
    signal.addEventListener('abort', () => reject(abortError()), { once: true });
  })]) : opening);
  const engine = sharedEngine();
  const photos = new Set();
  const { metadata } = ready;
  return {
    metadata,
    methods: ready.methods,
    backend: ready.backend,
    threads: ready.threads,
    // A class id from an id, WordNet id or name (throws naming close matches).
    classId: (spec) => resolveTarget(metadata, spec),
    label: (id) => metadata.labels[id],
    // Decodes a photo once for several explanations; close() it when done.
    async open(image, { signal: photoSignal } = {}) {
      const photo = new Photo(engine, ready, await decodeImage(image, { signal: photoSignal }));
      photos.add(photo);
      return photo;
    },
    async explain(image, options = {}) {
      const photo = await this.open(image, options);
      try {
        return await photo.explain(options);
      } finally {
        photo.close();
        photos.delete(photo);
      }
    },
    close() {
      for (const p of photos) p.close();
      photos.clear();
    },
  };
}

let corePromise = null;
export const loadRenderer = () => (corePromise ??= loadCore());

// A map → ImageData: min-max normalised, thresholded, coloured; `display` smooth
// (bilinear) or grid (one block per patch). With `photo` ({ bitmap|image, width, height }
// and `region` from the result), the map is drawn over the photo at `opacity`; `size` is
// the longest side of the image returned.
export async function render(map, {
  colormap = 'jet', opacity = 0.5, threshold = 'none', display = 'smooth', size = 512, photo, region,
} = {}) {
  const core = await loadRenderer();
  const [rows, cols] = map.shape;
  const heat = heatImage(core, { rows, cols, data: map.data }, { colormap, threshold, display: display === 'grid' ? 'grid' : 'smooth' });
  const canvas = new OffscreenCanvas(1, 1);
  const picture = photo
    ? { bitmap: photo.bitmap ?? photo.image ?? photo, width: photo.width, height: photo.height }
    : { bitmap: new OffscreenCanvas(heat.width, heat.height), width: heat.width, height: heat.height };
  drawOverlay(canvas, picture, region ?? { x: 0, y: 0, width: picture.width, height: picture.height }, heat,
    { opacity: photo ? opacity : 1, smooth: display !== 'grid', maxSide: size });
  return canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
}

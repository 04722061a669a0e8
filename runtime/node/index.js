// @ts-check
// The public JavaScript API in Node (package entry "vit-relevance/node"; its types are
// this file's JSDoc): the same loadExplainer/explain/render as the browser entry, on files
// and Buffers. The CLI's `explain` runs on it. Maps are { shape: [rows, cols], data }.
import { statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCore } from '../core.js';
import { resolveClass } from '../targets.js';
import { graphMethodIds } from '../metadata.js';
import { createPhotoSessions } from '../explain-session.js';
import { resolveTargets, withPredicted, checkMethods, top5Of, resultTarget, resolveStartLayer } from '../explain-request.js';
import { explainerGraphFile, metadataPathFor, openExplainerFile, readMetadata } from './open-explainer.js';
import { loadTextExplainer } from './open-text.js';
import { validateMetadata } from '../metadata.js';
import { kindMismatch, modelKind } from '../text-metadata.js';
import { isTextInput } from '../text-input.js';
import { RENDER_SIDE, longSide } from '../render-size.js';
import { decodeImage, decodeImageBytes } from './image.js';
export * from '../explain-types.js'; // the shared types: no code

/**
 * @import { ExplainerBase, ExplainOptions, ExplainResult, LoadOptions, RelevanceMap, RenderOptions, TextExplainResult, TextFields } from '../explain-types.js'
 */

/**
 * A photo file path, an encoded photo, or an already-normalised input (3·H·W floats).
 * @typedef {string | Uint8Array | { pixels: Float32Array }} NodeImage
 */

/**
 * A photo opened on an image model: explained several times, its tensors kept between.
 * @typedef {{ explain: (options?: ExplainOptions) => Promise<ExplainResult>, close: () => void }} NodePhoto
 */

/**
 * A text opened on a text model: its tokens, explained for any classes, methods and start
 * layers until close(); notice: the sentence saying how much was cut from a text longer
 * than the model's positions (null otherwise).
 * @typedef {TextFields & { notice: string | null, explain: (options?: ExplainOptions) => Promise<TextExplainResult>, close: () => void }} NodeText
 */

/**
 * An explainer; `kind` (the model's metadata) says whether it reads photos or texts.
 * engine: the onnxruntime that runs ('web': onnxruntime-web, as the page; 'node').
 * explain(input) and open(input): a photo (a file path, bytes, or { pixels }) for an image
 * model; `{ text }` for a text model, or a string (typed as a photo's path here, since the
 * kind is known only once the model has loaded). forward(text): a text model's plain
 * forward pass alone (the benchmark's reference).
 * @typedef {Omit<ExplainerBase<NodeImage>, 'explain'> & { kind: 'image' | 'text', engine: 'web' | 'node',
 *   explain: ((image: NodeImage, options?: ExplainOptions) => Promise<ExplainResult>)
 *     & ((text: { text: string }, options?: ExplainOptions) => Promise<TextExplainResult>),
 *   open: ((image: NodeImage) => NodePhoto) & ((text: { text: string }) => NodeText),
 *   forward?: (text: string | { text: string }) => Promise<{ logits: Float32Array, modelMs: number }>,
 *   close: () => Promise<void> }} NodeExplainer
 */

/**
 * model: an explainer graph .onnx (metadata .json beside it) or a models folder (default:
 * the package's build/models). engine: 'web', onnxruntime-web as in the page (default);
 * 'node', onnxruntime-node; 'auto'. onProgress hears the graph's bytes once, read.
 * @typedef {Omit<LoadOptions, 'backend'> & { model?: string, engine?: 'web' | 'node' | 'auto' }} NodeLoadOptions
 */

const DEFAULT_MODELS = fileURLToPath(new URL('../../build/models/', import.meta.url));
// The default text model's graph (npm run build exports it from bert-mini-sst2-movies).
export const DEFAULT_TEXT_MODEL = fileURLToPath(new URL('../../build/models/bert-mini-sst2-movies.onnx', import.meta.url));
const now = () => performance.now();
let corePromise = null;
const sharedCore = () => (corePromise ??= loadCore());

function abortIf(signal) {
  if (signal?.aborted) throw signal.reason ?? new DOMException('the request was aborted', 'AbortError');
}

// Photos are equal when the model sees the same pixels of the same region (pixels: the
// core's { data, shape }, or the caller's Float32Array).
function samePhoto(a, b) {
  const { region: r } = a;
  const { region: q } = b;
  if (Boolean(r) !== Boolean(q) || (r && ['x', 'y', 'width', 'height'].some((k) => r[k] !== q[k]))) return false;
  const p = a.pixels.data ?? a.pixels;
  const o = b.pixels.data ?? b.pixels;
  if (p.length !== o.length) return false;
  for (let i = 0; i < p.length; i++) if (p[i] !== o[i]) return false;
  return true;
}

// image: a file path, an encoded photo (Buffer / Uint8Array), or { pixels } already
// normalised (Float32Array of 3·H·W, as a .npy tensor holds).
async function openPhoto(photoSessions, image) {
  if (isTextInput(image)) throw new Error(kindMismatch(photoSessions.metadata, 'text'));
  if (image?.pixels instanceof Float32Array) return { photo: photoSessions.pixelsPhoto(image.pixels), width: null, height: null };
  let decoded;
  if (typeof image === 'string') decoded = await decodeImage(image);
  else if (image instanceof Uint8Array) decoded = await decodeImageBytes(image, 'the image buffer');
  else throw new Error('image must be a file path, a Buffer / Uint8Array of an encoded photo, or { pixels: Float32Array }');
  return { photo: photoSessions.openPhoto(decoded.rgba, decoded.width, decoded.height), width: decoded.width, height: decoded.height };
}

/**
 * The model's kind (its metadata) decides what the explainer explains: photos, or texts.
 * @param {NodeLoadOptions} [options] @returns {Promise<NodeExplainer>}
 */
export async function loadExplainer({ model = DEFAULT_MODELS, engine = 'web', threads, onProgress, signal } = {}) {
  abortIf(signal);
  const file = await explainerGraphFile(model);
  // The kind of model decides what it explains: photos, or texts (runtime/node/open-text.js).
  const metadata = validateMetadata(await readMetadata(metadataPathFor(file), file), `metadata of ${path.basename(file)}`);
  const bytes = statSync(file).size;
  if (modelKind(metadata) === 'text') {
    const text = await loadTextExplainer({ onnxPath: file, metadata, core: await sharedCore(), engine, threads });
    onProgress?.(bytes, bytes);
    return /** @type {NodeExplainer} */ (/** @type {unknown} */ (text));
  }
  const [core, explainer] = await Promise.all([sharedCore(), openExplainerFile(file, { threads, engine, split: true, metadata })]);
  onProgress?.(bytes, bytes);
  if (signal?.aborted) {
    await explainer.release();
    abortIf(signal);
  }
  const photoSessions = createPhotoSessions({ explainer, core });
  // The last photo explained, kept with its tensors: asking again for the same photo (other
  // classes, methods, start layers) reuses them, and with the split graphs its first repeat
  // caches its class-independent tensors, so that each class after costs the class graph
  // alone (a class switch, as in the page), not the whole explainer graph.
  let last = null;
  const reuse = (opened) => {
    if (last && samePhoto(last.photo, opened.photo)) return { ...opened, photo: last.photo, repeated: true };
    if (last) photoSessions.closePhoto(last.photo);
    last = opened;
    return { ...opened, repeated: false };
  };
  const photoExplainer = {
    kind: 'image',
    metadata,
    methods: graphMethodIds(core, metadata), // attattr runs the attribution graphs (vit-relevance attribute)
    method: (id) => core.method(id),
    engine: explainer.engine,
    classId: (spec) => resolveClass(metadata, spec),
    label: (id) => metadata.labels[id],
    // → { top5, targets: [{ id, label, prob, rank, contrast?, maps }], region, width, height, timings }
    /** @param {NodeImage} image @param {ExplainOptions} [options] */
    async explain(image, { targets, methods, startLayer = 0, signal: explainSignal } = {}) {
      const started = now();
      const wanted = resolveTargets(metadata, targets);
      const list = checkMethods(methods, core.explainerMethodIds);
      const start = resolveStartLayer(metadata, startLayer);
      abortIf(explainSignal);
      const { photo, width, height, repeated } = reuse(await openPhoto(photoSessions, image));
      const preprocessMs = now() - started;
      try {
        // A failed caching leaves explain() the single graph.
        const caching = repeated && !photo.cache ? photoSessions.cachePhoto(photo) : null;
        const cachingMs = (caching && (await caching.catch(() => null))?.modelMs) ?? 0;
        // The predicted class comes from the same run as its maps (a repeated photo knows it).
        const wantsPredicted = wanted.some((t) => t.class === null);
        const known = wantsPredicted && photo.logits ? photoSessions.top5(photo)[0].id : null;
        const predicted = wantsPredicted && known === null ? await photoSessions.predict(photo, { methods: list }) : null;
        abortIf(explainSignal);
        const resolved = wantsPredicted ? withPredicted(wanted, predicted?.target.class ?? known) : wanted;
        const { results, timings } = await photoSessions.explain(photo, resolved, { methods: list, startLayer: start });
        const modelMs = cachingMs + (predicted?.modelMs ?? 0) + timings.modelMs;
        return {
          top5: top5Of(metadata, photoSessions.top5(photo)),
          targets: results.map(({ target, maps }) => resultTarget(metadata, target, maps, list, photo.logits)),
          region: photo.region,
          width,
          height,
          timings: { preprocessMs, modelMs, relevanceMs: timings.relevanceMs, totalMs: now() - started },
        };
      } catch (err) {
        if (last?.photo === photo) last = null;
        photoSessions.closePhoto(photo);
        throw err;
      }
    },
    // A photo to explain several times (the text models' open(text), for photos): its
    // tensors are kept between explanations as for a photo explained again.
    open: (image) => {
      if (isTextInput(image)) throw new Error(kindMismatch(metadata, 'text'));
      return { explain: (options) => photoExplainer.explain(image, options), close: () => {} };
    },
    close: () => {
      if (last) photoSessions.closePhoto(last.photo);
      last = null;
      return photoSessions.close();
    },
  };
  // Typed as both kinds' explainer (NodeExplainer's overloads); this one reads photos.
  return /** @type {NodeExplainer} */ (/** @type {unknown} */ (photoExplainer));
}

// A pixel map's patch map (attnlrp, cp_lrp, lrp_full; METHODS.md): the sum of the map over
// each patch of grid = [rows, cols] (the model's metadata.architecture.grid), signed.
/** @param {RelevanceMap} map @param {[number, number]} grid @returns {Promise<RelevanceMap>} */
export async function patchMap(map, grid) {
  return (await sharedCore()).patchSum(map, grid);
}

// A map → RGBA pixels { data, width, height }, drawn by the core as the page draws it
// (core.renderHeat, src/render/heat_image.h): on its colour scale (`scale` 'positive':
// min-max; 'signed': 0 white in the diverging rdbu colormap), coloured, `display` smooth
// (bilinear) or grid, `threshold` removing pixels (transparent; over a photo the photo
// shows). With `photo` ({ rgba, width, height }) and `region` (from the result), the map
// is drawn over the photo at `opacity`, at the photo's size; else `size` is the longest side.
/**
 * @param {RelevanceMap} map
 * @param {RenderOptions & { photo?: { rgba: Uint8Array | Uint8ClampedArray, width: number, height: number } }} [options]
 * @returns {Promise<{ data: Uint8ClampedArray, width: number, height: number }>}
 */
export async function render(map, {
  colormap = 'jet', opacity = 0.5, threshold = 'none', display = 'smooth', scale = 'positive', size = RENDER_SIDE, photo, region,
} = {}) {
  const core = await sharedCore();
  const [rows, cols] = map.shape;
  const sampling = display === 'grid' ? 'patch_grid' : 'bilinear';
  if (photo) {
    const data = core.overlayOnPhoto(photo.rgba, photo.width, photo.height, core.scaled(map, scale), rows, cols,
      region ?? { x: 0, y: 0, width: photo.width, height: photo.height },
      { colormap: core.colormapFor(scale, colormap), opacity, sampling, threshold });
    return { data, width: photo.width, height: photo.height };
  }
  return core.renderHeat(map.data, rows, cols, { scale, colormap, sampling, threshold, ...longSide(rows, cols, size) });
}

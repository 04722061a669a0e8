// @ts-check
// The public JavaScript API in Node (package entry "vit-relevance/node"; its types are
// this file's JSDoc): the same loadExplainer, decodePhoto, explainer.open(image, { crop,
// exif }), explain and render as the browser entry, with the same results, on files and
// Buffers; readModel checks a model before it loads. The CLI's `explain` runs on it. Maps
// are { shape: [rows, cols], data }.
import { statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCore } from '../core.js';
import { explainerGraphFile, metadataPathFor, openExplainerFile, readMetadata } from './open-explainer.js';
import { loadTextExplainer } from './open-text.js';
import { photoExplainer } from './photo-explainer.js';
import { decodePhoto as decode } from './photo-input.js';
import { validateMetadata } from '../metadata.js';
import { modelKind } from '../text-metadata.js';
import { RENDER_SIDE, longSide } from '../render-size.js';
export * from '../explain-types.js'; // the shared types: no code

/**
 * @import { ExplainerBase, ExplainOptions, ExplainResult, LoadOptions, OpenOptions, Region, ClassProbability, RelevanceMap, RenderOptions, TextExplainResult, TextFields } from '../explain-types.js'
 */

/**
 * A photo file path, an encoded photo, an already-normalised input (3·H·W floats: a
 * .npy file path, or { pixels }), or either read once by decodePhoto.
 * @typedef {string | Uint8Array | { pixels: Float32Array } | import('./photo-input.js').DecodedPhoto} NodeImage
 */

/**
 * A photo opened on an image model (open(image, { crop, exif }), as the browser's Photo):
 * read and preprocessed once, explained several times, its tensors kept between until
 * close(). name: the file's (null for bytes); rgba, width, height: the photo as decoded
 * (a tensor: its un-normalised input), for drawing its maps (render({ photo, region }));
 * pixels: what the model reads (3·H·W normalised values); region: the part of the photo
 * the model saw; source: 'photo', 'photo (exact size, normalised
 * only)' or 'tensor'; exif, crop: as read (null for a tensor); top5 and logits once
 * explained.
 * @typedef {{ name: string | null, rgba: Uint8Array, width: number, height: number, pixels: Float32Array, region: Region, source: string,
 *   exif: 'use' | 'ignore' | null, crop: 'center' | 'none' | null, top5: ClassProbability[] | null, logits: Float32Array | null,
 *   explain: (options?: ExplainOptions) => Promise<ExplainResult>, close: () => void }} NodePhoto
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
 * explain(input, options) and open(input, options): a photo (a file path, bytes, or
 * { pixels }) for an image model, with the browser's OpenOptions (crop, exif: default
 * 'center', 'use'); `{ text }` for a text model, or a string (typed as a photo's path here, since the
 * kind is known only once the model has loaded). forward(text): a text model's plain
 * forward pass alone (the benchmark's reference).
 * @typedef {Omit<ExplainerBase<NodeImage>, 'explain'> & { kind: 'image' | 'text', engine: 'web' | 'node',
 *   explain: ((image: NodeImage, options?: ExplainOptions & OpenOptions) => Promise<ExplainResult>)
 *     & ((text: { text: string }, options?: ExplainOptions) => Promise<TextExplainResult>),
 *   open: ((image: NodeImage, options?: OpenOptions) => Promise<NodePhoto>) & ((text: { text: string }) => NodeText),
 *   forward?: (text: string | { text: string }) => Promise<{ logits: Float32Array, modelMs: number }>,
 *   close: () => Promise<void> }} NodeExplainer
 */

/**
 * A model's explainer graph file and its metadata, read and checked (readModel).
 * @typedef {{ file: string, metadata: any }} ModelFiles
 */

/**
 * model: an explainer graph .onnx (metadata .json beside it) or a models folder (default:
 * the package's build/models), or what readModel gave. engine: 'web', onnxruntime-web as
 * in the page (default); 'node', onnxruntime-node; 'auto'. onProgress hears one
 * ProgressInfo, the graph's bytes once read.
 * @typedef {Omit<LoadOptions, 'backend'> & { model?: string | ModelFiles, engine?: 'web' | 'node' | 'auto' }} NodeLoadOptions
 */

const DEFAULT_MODELS = fileURLToPath(new URL('../../build/models/', import.meta.url));
// The default text model's graph (npm run build exports it from bert-mini-sst2-movies).
export const DEFAULT_TEXT_MODEL = fileURLToPath(new URL('../../build/models/bert-mini-sst2-movies.onnx', import.meta.url));
let corePromise = null;
const sharedCore = () => (corePromise ??= loadCore());

function abortIf(signal) {
  if (signal?.aborted) throw signal.reason ?? new DOMException('the request was aborted', 'AbortError');
}

/**
 * A model found and its metadata read and checked, before any graph opens: what a caller
 * checks its requests against (the CLI: classes, methods, blocks) and then hands to
 * loadExplainer as `model`, which reads nothing twice. model: as loadExplainer's.
 * @param {string} [model]
 * @returns {Promise<ModelFiles>}
 */
export async function readModel(model = DEFAULT_MODELS) {
  const file = await explainerGraphFile(model);
  // The kind of model decides what it explains: photos, or texts (runtime/node/open-text.js).
  const metadata = validateMetadata(await readMetadata(metadataPathFor(file), file), `metadata of ${path.basename(file)}`);
  return { file, metadata };
}

/**
 * The model's kind (its metadata) decides what the explainer explains: photos, or texts.
 * @param {NodeLoadOptions} [options] @returns {Promise<NodeExplainer>}
 */
export async function loadExplainer({ model = DEFAULT_MODELS, engine = 'web', threads, onProgress, signal } = {}) {
  abortIf(signal);
  const { file, metadata } = typeof model === 'string' ? await readModel(model) : model;
  const bytes = statSync(file).size;
  if (modelKind(metadata) === 'text') {
    const text = await loadTextExplainer({ onnxPath: file, metadata, core: await sharedCore(), engine, threads });
    onProgress?.({ status: 'progress', loaded: bytes, total: bytes, phases: [] });
    return /** @type {NodeExplainer} */ (/** @type {unknown} */ (text));
  }
  const [core, explainer] = await Promise.all([sharedCore(), openExplainerFile(file, { threads, engine, split: true, metadata })]);
  onProgress?.({ status: 'progress', loaded: bytes, total: bytes, phases: [] });
  if (signal?.aborted) {
    await explainer.release();
    abortIf(signal);
  }
  const photos = photoExplainer({ explainer, core, metadata });
  // Typed as both kinds' explainer (NodeExplainer's overloads); this one reads photos.
  return /** @type {NodeExplainer} */ (/** @type {unknown} */ (photos));
}

/**
 * Reads a photo once for the explainers that open it, as the browser's decodePhoto: a
 * photo file or its bytes decoded (EXIF orientation as `exif` says: 'use', the default, or
 * 'ignore'), a .npy file read; explainer.open(decoded, { crop }) then preprocesses it.
 * @type {(image: NodeImage, options?: { exif?: 'use' | 'ignore' }) => Promise<import('./photo-input.js').DecodedPhoto>}
 */
export const decodePhoto = decode;

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

// @ts-check
// The public JavaScript API in the browser (package entry "vit-relevance"; its types are
// this file's JSDoc, its code web/api/). Safe to import in a page or a Worker (a Worker
// imports the bundle, dist/site/vit-relevance.js: as written, this module names the
// runtime by package name, which only a page's import map resolves). Every explainer
// shares the page's one inference Worker (web/api/shared-runtime.js); maps come back as
// { shape: [rows, cols], data: Float32Array }.
import { loadExplainer as load, runtimeStats as stats, decodePhoto as decode } from './api/explainer.js';
import { renderer } from './api/render.js';
import { siteFiles } from './lib/site-files.js';
export * from 'vit-relevance/runtime/explain-types.js'; // the shared types: no code

/**
 * @import { ClassProbability, ExplainerBase, ExplainOptions, ExplainResult, LoadOptions, OpenOptions, ProgressInfo, Region, ClassSpec, RelevanceMap, RenderOptions, TextExplainResult } from 'vit-relevance/runtime/explain-types.js'
 * @typedef {import('./lib/load-phases.js').LoadPhase} LoadPhase
 */

/**
 * What explain() and open() take in the browser. A string is a URL (relative to the
 * document). A DecodedPhoto (decodePhoto) or a Photo of another explainer (another
 * model) is opened as it was decoded.
 * @typedef {Blob | ImageBitmap | HTMLImageElement | ImageData | string | URL | DecodedPhoto | Photo} BrowserImage
 */

/**
 * A photo decoded once, to open on any explainer (decodePhoto). original: its size before
 * it was scaled down to fit in memory; copies: smaller copies of bitmap, largest first,
 * for drawing it small.
 * @typedef {{ name: string, width: number, height: number, original: { width: number, height: number },
 *   bitmap: ImageBitmap, copies: ImageBitmap[] }} DecodedPhoto
 */

/**
 * A browser explanation: also the backend that ran ('wasm' where 'webgpu' was asked for
 * but cannot run) and `notes`, sentences on what the maps leave out (methods a contrast
 * left out) and the explainer's backendNote.
 * @typedef {ExplainResult & { backend: 'wasm' | 'webgpu', notes: string[] }} BrowserExplainResult
 */

/**
 * A photo's prediction, known before its first maps. logits: every class's (their
 * standings); predictedBy: the graph that ran ('forward', 'photo' or 'explainer').
 * @typedef {{ top5: ClassProbability[], logits: Float32Array, region: Region,
 *   predictedBy: 'forward' | 'photo' | 'explainer', timings: { preprocessMs: number } }} Prediction
 */

/**
 * photo.explain's options: also onPrediction, called once with the photo's prediction,
 * before the maps of its first explanation.
 * @typedef {ExplainOptions & { onPrediction?: (prediction: Prediction) => void }} PhotoExplainOptions
 */

/**
 * Self-Attention Attribution (Hao et al., AAAI 2021; METHODS.md) of one class: blocks
 * (default: every block), steps m (default 20), onBlock called as each block's Attr
 * ([heads, tokens, tokens]) arrives; an aborted run keeps the blocks it reported.
 * @typedef {{ class?: ClassSpec | null, blocks?: number[], steps?: number, signal?: AbortSignal,
 *   onBlock?: (block: { block: number, done: number, total: number, attr: Float32Array, probs: Float32Array, prob: number | null }) => void,
 * }} AttributeOptions
 */

/**
 * A photo session: a photo opened on an explainer, kept in the Worker for several
 * explanations; close() frees its tensors there. top5, logits and region are known after
 * the first explain() (its onPrediction). attribute() needs a model built with attribution
 * graphs; timeForward() times plain forward passes inside the Worker (ms each; a prepared
 * explainer's).
 * @typedef {DecodedPhoto & {
 *   top5: ClassProbability[] | null, logits: Float32Array | null, region: Region | null,
 *   explain: (options?: PhotoExplainOptions) => Promise<BrowserExplainResult>,
 *   attribute: (options: AttributeOptions) => Promise<{ class: number, prob: number | null }>,
 *   timeForward: (runs?: number) => Promise<number[]>,
 *   close: () => void,
 * }} Photo
 */
/**
 * A text's explanation in the browser: also the backend that ran (WebAssembly).
 * @typedef {TextExplainResult & { backend: 'wasm' }} BrowserTextResult
 */

/**
 * A text opened on a text model (open(text) or open({ text })), kept in the Worker for
 * several explanations as a photo is; close() frees its tensors there. Its tokens (WordPiece,
 * `[CLS]` … `[SEP]`), their ids and offsets in the text (UTF-16 code units), its words,
 * `truncated` (how much of a text longer than the model's positions was cut; null when
 * nothing was) with `notice`, its sentence, and its prediction are known after the first
 * explain(). Maps are over tokens ({ shape: [S], data }), each with its word map.
 * @typedef {{ text: string, tokens: string[] | null, ids: number[] | null, offsets: [number, number][] | null,
 *   words: string[] | null, truncated: { tokens: number, at: number } | null, notice: string | null,
 *   top5: ClassProbability[] | null, logits: Float32Array | null,
 *   explain: (options?: ExplainOptions) => Promise<BrowserTextResult>,
 *   attribute: (options: AttributeOptions) => Promise<{ class: number, prob: number | null }>,
 *   timeForward: (runs?: number) => Promise<number[]>,
 *   close: () => void,
 * }} Text
 */

/**
 * What a load and the Worker's background work report to `onProgress`, told apart by
 * `status` (runtime/explain-types.js): the download's bytes and the load phases running,
 * then (for benchmarks) 'explainer-ready', 'sessions-ready', 'photo-cached',
 * 'photo-cache-failed'.
 * @typedef {ProgressInfo<Photo, LoadPhase>} BrowserProgressInfo
 */

/**
 * An explainer in the page's shared Worker; `kind` (the model's metadata) says whether it
 * opens photos or texts: `{ text }` is a text; so is a string given to a text model (typed
 * as a photo's URL here, since the kind is known only once the model has loaded). backend: the one that runs; backendNote: why
 * it is not the one asked for (no WebGPU here, or the page's model already open on
 * WebAssembly), null when it is. load: how the load went (phaseMs: how long it waited
 * for each load phase; compileMs: onnxruntime's compile). close() frees its photos; the
 * page's last explainer to close frees every session and ends the Worker and its work,
 * unless a load follows in the same task (a model switch): that load takes the Worker,
 * with onnxruntime compiled.
 * @typedef {Omit<ExplainerBase<BrowserImage, BrowserExplainResult>, 'explain'> & {
 *   backend: 'wasm' | 'webgpu', backendNote: string | null, threads: number,
 *   load: { fromCache: boolean, split: boolean, isolated: boolean, phaseMs: Record<string, number>, compileMs: number },
 *   kind: 'image' | 'text',
 *   open: ((image: BrowserImage, options?: OpenOptions) => Promise<Photo>) & ((text: { text: string }) => Promise<Text>),
 *   explain: ((image: BrowserImage, options?: ExplainOptions & OpenOptions) => Promise<BrowserExplainResult>)
 *     & ((text: { text: string }, options?: ExplainOptions) => Promise<BrowserTextResult>),
 *   close: () => void,
 * }} Explainer
 */

/**
 * model: URL of a built models folder, or of one model's metadata JSON (default: the
 * site's models/), or a models/index.json entry with its folder's absolute URL. onProgress:
 * hears every BrowserProgressInfo: the model's files as they download (bytes so far) and
 * its load phases as they start and end (the phases running now: web/lib/load-phases.js),
 * then the Worker's background work. prepare: open every graph's
 * session in the background after the load, for a page that explains many photos and
 * classes (a photo's first maps then come from one explainer graph run and its class
 * switches from its kept tensors); default: open what the first photo needs. worker: a
 * Worker the page started early from the site's worker.js (index.html), taken over (and
 * ended where the page's runtime already has its Worker). verify: open and check every
 * graph before the load is ready (a model a visitor brought, before it is kept).
 * @typedef {Omit<LoadOptions, 'onProgress'> & {
 *   model?: string | URL | { base: string, entry: object },
 *   onProgress?: (info: BrowserProgressInfo) => void,
 *   prepare?: boolean, verify?: boolean, worker?: Worker,
 * }} BrowserLoadOptions
 */

const SITE = siteFiles(import.meta.url);

/**
 * Loads (once per page) and opens a model in the page's shared inference Worker.
 * @param {BrowserLoadOptions} [options]
 * @returns {Promise<Explainer>}
 */
export const loadExplainer = (options) => load(SITE, options);

/**
 * What the page's shared Worker holds and has done: sessions (models open), graphRuns,
 * photos (kept), attribution (block and hidden-state graph runs), openGraphs (a text
 * model's graphs whose ONNX session is open). For checking that elements share one Worker
 * and one session, and that a text's map opens only the graph it needs.
 * @returns {Promise<{ sessions: number, graphRuns: number, photos: number, workerId: string, attribution: { blocks: number, states: number },
 *   openGraphs: string[] }>}
 */
export const runtimeStats = () => stats(SITE);

/**
 * Decodes a photo once for the explainers that open it, as the page does: a Blob off the
 * main thread, in the site's decode-worker.js (host it beside this script), with smaller
 * copies for drawing; other images as open() decodes them.
 * @param {BrowserImage} image
 * @param {{ exif?: 'use' | 'ignore', signal?: AbortSignal }} [options]
 * @returns {Promise<DecodedPhoto>}
 */
export const decodePhoto = (image, options) => decode(SITE, image, options);

const drawing = renderer(SITE);

/** Loads the WebAssembly core render() uses (once). @type {() => ReturnType<typeof import('vit-relevance/runtime/core.js').loadCore>} */
export const loadRenderer = drawing.loadRenderer;

/**
 * A pixel map's patch map (attnlrp, cp_lrp, lrp_full; METHODS.md): the sum of the map
 * over each patch of grid = [rows, cols] (metadata.architecture.grid), signed.
 * @type {(map: RelevanceMap, grid: [number, number]) => Promise<RelevanceMap>}
 */
export const patchMap = drawing.patchMap;

/**
 * A map → ImageData, drawn by the core as the page draws it (web/api/render.js): over
 * `photo` (and `region`) at the photo's size, else `size` on its longest side.
 * @type {(map: RelevanceMap, options?: RenderOptions & { photo?: { bitmap?: CanvasImageSource, image?: CanvasImageSource, width: number, height: number } | ImageBitmap }) => Promise<ImageData>}
 */
export const render = drawing.render;

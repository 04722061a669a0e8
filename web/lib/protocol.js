// @ts-check
// The message protocol between the page's side (web/api/worker-client.js) and the
// inference Worker (web/worker.js): every request and reply, in one place. Each request
// carries a numbered `id`; every reply to it carries the same id and the last one is
// `done`, `stale` or `error`. Replies with id 0 are notices that belong to no request.
// Maps travel as { shape: [rows, cols], data } (row-major Float32Array). The messages'
// types are the discriminated unions Request, Reply and Notice below (typedefs, checked by
// tsc against the Worker's switch, web/worker.js, and its client, web/api/worker-client.js,
// and the API, web/api/); the constants name their `type`s.

/** @typedef {{ x: number, y: number, width: number, height: number }} Region */
/** @typedef {{ class: number, contrast?: number }} Target  a class, or "the class rather than the contrast class" */
/** @typedef {{ shape: [number, number], data: Float32Array, correlation?: number|null }} WireMap  correlation: a contrast's (core.contrast) */
/** @typedef {{ target: Target, maps: Object<string, WireMap>, wordMaps?: Object<string, Float32Array> }} TargetMaps  wordMaps: a text's */
/**
 * A models/index.json entry: the graph files, relative to the models folder.
 * @typedef {{ name: string, onnx: string, metadata: string, bytes?: number,
 *   forward_onnx?: string, forward_bytes?: number,
 *   split?: { graph: string, photo: string, target: string, forward?: string, weights: string, bytes: number,
 *     families?: Object<string, string> },
 *   sha256?: Object<string, string>, kind?: 'image' | 'text', vocab?: string }} ModelEntry  sha256: each named file's hash
 *   (web/lib/model-fetch.js); families: each method family's graph (models/exporter/families.py)
 */

export const REQUEST = Object.freeze({
  /** Opens a model once per Worker (later inits of the same one share it). prepare (the
   * page): ready comes with the plain forward graph's session (split graphs), and the
   * explainer, target and photo graphs' sessions open when the Worker is idle after `ready`
   * (sessions-ready notice after the first two); otherwise ready comes with the photo
   * graph's session and the others open when first needed (embeds predict at once).
   * verify (a model the visitor brought): every graph's session opens, each checked against
   * the metadata, before ready; a failure is the init's.
   * @type {'init'} { model: ModelEntry, base: string (absolute URL of its folder), backend: 'wasm'|'webgpu', threads?: number,
   *   prepare?: boolean, verify?: boolean }
   * → phase…, progress…, ready */
  INIT: 'init',
  /** Preprocesses a photo, predicts and explains the predicted class in one run (the photo
   * is cached for class switches when the Worker is idle: photo-cached notice); while the
   * explainer graph's session still opens, the plain forward graph predicts first. With
   * photoGraph (and split graphs): the photo graph predicts and is kept at once, then the
   * target graph explains (none for attention-only methods); no later caching run.
   * @type {'analyze'} { modelKey, imageId, rgba: ArrayBuffer, width, height, methods: string[], startLayer, photoGraph?: boolean,
   *   crop?: 'center'|'none' (core.cropModeIds) }
   * → prediction, maps */
  ANALYZE: 'analyze',
  /** A text on a text model: tokenized (its tokens, offsets, words and truncation come
   * first), predicted, and the predicted class explained in one run; kept, as a photo, under
   * imageId for `explain` and `release`. Maps come with their word maps.
   * @type {'analyze-text'} { modelKey, imageId, text: string, methods: string[], startLayer }
   * → tokens, prediction, maps */
  ANALYZE_TEXT: 'analyze-text',
  /** Maps of targets on an analysed photo (cached tensors reused).
   * @type {'explain'} { imageId, targets: Target[], methods: string[], startLayer } → maps */
  EXPLAIN: 'explain',
  /** Frees a photo's tensors. @type {'release'} { imageId } → done */
  RELEASE: 'release',
  /** Frees every model the Worker holds: their photos and texts, their background work and
   * every ONNX session (the Attribution panel's too). onnxruntime and the core stay compiled,
   * and their code warm, for the next init: the page's model switch (web/api/shared-runtime.js).
   * @type {'unload'} {} → done */
  UNLOAD: 'unload',
  /** Skips queued requests (answered `stale`); handled at once. @type {'cancel'} { ids: number[] } → done */
  CANCEL: 'cancel',
  /** Counters for tests and the benchmark. @type {'stats'} {} → stats */
  STATS: 'stats',
  /** Plain forward passes on a photo, timed. @type {'bench'} { imageId, runs } → bench */
  BENCH: 'bench',
  /** Self-Attention Attribution of one class on an analysed photo (web/attribution-job.js):
   * the photo's hidden states once (kept for its later classes), then one Worker queue turn
   * per block, so requests sent during the run wait at most one block and a cancel stops
   * it before the next block.
   * @type {'attribute'} { modelKey, imageId, target: number, blocks: number[], steps: number }
   * → attribution-start, attribution-block… */
  ATTRIBUTE: 'attribute',
});

export const REPLY = Object.freeze({
  /** @type {'progress'} { loaded: number, total: number } bytes of the model files */
  PROGRESS: 'progress',
  /** @type {'phase'} { phases: string[] } the load phases running now (web/lib/load-phases.js) */
  PHASE: 'phase',
  /** @type {'ready'} { modelKey, metadata, backend, threads, isolated, fromCache, bytes, split,
   *   phaseMs: { [phase]: ms init waited }, compileMs (onnxruntime's compile, start to end), methods,
   *   large (its files over LARGE_WEIGHTS_BYTES: only ending the Worker gives their memory back) } */
  READY: 'ready',
  /** @type {'prediction'} { imageId, top5: {id, prob}[], logits: Float32Array (every class), region: Region,
   *   predictedBy: 'forward'|'photo'|'explainer' (the graph that ran), timings: { preprocessMs } } */
  PREDICTION: 'prediction',
  /** @type {'tokens'} { imageId, text, tokens, ids, offsets, words, truncated, notice } a text as the model reads it */
  TOKENS: 'tokens',
  /** @type {'maps'} { imageId, results: TargetMaps[] (a text's with wordMaps), startLayer, timings: { modelMs, relevanceMs } } */
  MAPS: 'maps',
  /** @type {'stats'} { graphRuns, attribution: { blocks, states } (attribution graph runs), sessions, photos, workerId } */
  STATS: 'stats',
  /** @type {'bench'} { times: number[] } */
  BENCH: 'bench',
  /** @type {'attribution-start'} { imageId, target, prob: p_t of the photo, blocks: number[], steps } */
  ATTRIBUTION_START: 'attribution-start',
  /** @type {'attribution-block'} { imageId, target, steps, block, done, total, attr: Float32Array [h,S,S], probs: Float32Array [m] (p_t(α_i A)) } */
  ATTRIBUTION_BLOCK: 'attribution-block',
  /** @type {'done'} the request finished */
  DONE: 'done',
  /** @type {'stale'} superseded or cancelled before it ran */
  STALE: 'stale',
  /** @type {'error'} { message } */
  ERROR: 'error',
});

// Notices (id 0).
export const NOTICE = Object.freeze({
  /** @type {'photo-cached'} { imageId, timings: { modelMs } }: class switches now run the target graph alone */
  PHOTO_CACHED: 'photo-cached',
  /** @type {'photo-cache-failed'} { imageId, message } */
  PHOTO_CACHE_FAILED: 'photo-cache-failed',
  /** @type {'sessions-ready'} {}: the default method's graph's and the target graph's sessions are open (the first
   * opens right after `ready`, the target graph's when the Worker is idle) */
  SESSIONS_READY: 'sessions-ready',
  /** @type {'explainer-ready'} { ms }: the session of the page's graph for its default method (that method family's
   * graph, else the explainer graph), opened right after `ready`, has
   * opened (or failed to: the photo's request then says why), onnxruntime having taken `ms` (for the benchmark) */
  EXPLAINER_READY: 'explainer-ready',
});

/**
 * The requests, each as the Worker receives it: the client adds `id` and `supersede`.
 * @typedef {{ id: number, supersede?: boolean }} Numbered
 * @typedef {{ type: 'init', model: ModelEntry, base: string, backend: 'wasm' | 'webgpu', threads?: number,
 *   prepare?: boolean, verify?: boolean }} InitRequest
 * @typedef {{ type: 'analyze', modelKey: string, imageId: number, rgba: ArrayBuffer, width: number, height: number,
 *   methods: string[], startLayer: number, photoGraph?: boolean, crop?: 'center' | 'none' }} AnalyzeRequest
 * @typedef {{ type: 'analyze-text', modelKey: string, imageId: number, text: string, methods: string[],
 *   startLayer: number }} AnalyzeTextRequest
 * @typedef {{ type: 'explain', imageId: number, targets: Target[], methods: string[], startLayer: number }} ExplainRequest
 * @typedef {{ type: 'release', imageId: number }} ReleaseRequest
 * @typedef {{ type: 'unload' }} UnloadRequest
 * @typedef {{ type: 'cancel', ids: number[] }} CancelRequest
 * @typedef {{ type: 'stats' }} StatsRequest
 * @typedef {{ type: 'bench', imageId: number, runs: number }} BenchRequest
 * @typedef {{ type: 'attribute', modelKey: string, imageId: number, target: number, blocks: number[], steps: number }} AttributeRequest
 * @typedef {InitRequest | AnalyzeRequest | AnalyzeTextRequest | ExplainRequest | ReleaseRequest | UnloadRequest
 *   | CancelRequest | StatsRequest | BenchRequest | AttributeRequest} RequestBody
 * @typedef {RequestBody & Numbered} Request
 */

/**
 * The replies, each as the Worker sends it (the Worker adds the request's `id`).
 * @typedef {{ type: 'progress', loaded: number, total: number }} ProgressReply
 * @typedef {{ type: 'phase', phases: import('./load-phases.js').LoadPhase[] }} PhaseReply
 * @typedef {{ type: 'ready', modelKey: string, metadata: any, backend: 'wasm' | 'webgpu', backendNote?: string | null | false,
 *   threads: number, isolated: boolean, fromCache: boolean, bytes: number, split: boolean, phaseMs: Record<string, number>,
 *   compileMs: number, methods: any[], large: boolean }} ReadyReply
 * @typedef {{ type: 'prediction', imageId: number, top5: { id: number, prob: number }[], logits: Float32Array, region: Region,
 *   predictedBy: 'forward' | 'photo' | 'explainer', timings: { preprocessMs: number } }} PredictionReply
 * @typedef {{ type: 'tokens', imageId: number, text: string, tokens: string[], ids: number[], offsets: [number, number][],
 *   words: string[] | null, truncated: { tokens: number, at: number } | null, notice: string | null }} TokensReply
 * @typedef {{ type: 'maps', imageId: number, results: TargetMaps[], startLayer: number,
 *   timings: { modelMs: number, relevanceMs: number } }} MapsReply
 * @typedef {{ type: 'stats', graphRuns: number, attribution: { blocks: number, states: number }, sessions: number,
 *   openGraphs: string[], photos: number, workerId: string }} StatsReply
 * @typedef {{ type: 'bench', times: number[] }} BenchReply
 * @typedef {{ type: 'attribution-start', imageId: number, target: number, prob: number, blocks: number[], steps: number }} AttributionStartReply
 * @typedef {{ type: 'attribution-block', imageId: number, target: number, steps: number, block: number, done: number,
 *   total: number, attr: Float32Array, probs: Float32Array }} AttributionBlockReply
 * @typedef {{ type: 'done' }} DoneReply
 * @typedef {{ type: 'stale' }} StaleReply
 * @typedef {{ type: 'error', message: string }} ErrorReply
 * @typedef {ProgressReply | PhaseReply | ReadyReply | PredictionReply | TokensReply | MapsReply | StatsReply | BenchReply
 *   | AttributionStartReply | AttributionBlockReply | DoneReply | StaleReply | ErrorReply} ReplyBody
 * @typedef {ReplyBody & { id: number }} Reply
 * @typedef {(body: ReplyBody, transfer?: Transferable[]) => void} ReplyFn  how a Worker handler replies
 */

/**
 * The notices (id 0): what the Worker did in the background, for no request.
 * @typedef {{ type: 'photo-cached', imageId: number, timings: { modelMs: number } }} PhotoCachedNotice
 * @typedef {{ type: 'photo-cache-failed', imageId: number, message: string }} PhotoCacheFailedNotice
 * @typedef {{ type: 'sessions-ready' }} SessionsReadyNotice
 * @typedef {{ type: 'explainer-ready', ms: number }} ExplainerReadyNotice
 * @typedef {PhotoCachedNotice | PhotoCacheFailedNotice | SessionsReadyNotice | ExplainerReadyNotice} NoticeBody
 * @typedef {NoticeBody & { id: 0 }} Notice
 */

/**
 * The first reply of type T among a request's replies, or undefined.
 * @template {ReplyBody['type']} T
 * @param {Reply[]} replies @param {T} type
 * @returns {Extract<Reply, { type: T }> | undefined}
 */
export const replyOf = (replies, type) => /** @type {any} */ (replies.find((m) => m.type === type));

// Replies after which a request has no more.
/** @param {string} type */
export const isFinal = (type) => type === REPLY.DONE || type === REPLY.STALE || type === REPLY.ERROR;

// The key a Worker gives an opened model: its folder and every file its entry names.
/** @param {string} base @param {ModelEntry} model */
export const modelKeyOf = (base, model) => `${base}|${JSON.stringify(model)}`;

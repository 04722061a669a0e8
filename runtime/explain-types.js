// @ts-check
// Types shared by the browser entry (web/vit-relevance.js) and the Node entry
// (runtime/node/index.js) of the public API, as JSDoc: both entries re-export them, and
// `npm run build` emits their declarations (scripts/build/types.js). No code.
export {};

/** @typedef {import('./method-ids.js').MethodId} MethodId */

/**
 * A relevance map, row-major: data.length === shape[0] * shape[1].
 * @typedef {object} RelevanceMap
 * @property {[number, number]} shape
 * @property {Float32Array} data
 * @property {number | null} [correlation] A contrast's only: the Pearson r of the two
 *   classes' own maps (null when one is constant). Near 1 the method hardly tells the
 *   classes apart on this photo, and the contrast is the difference of two near-equal maps.
 */

/**
 * A class: its id, its WordNet id ("n02108422") or one of its names ("bull mastiff").
 * @typedef {number | string} ClassSpec
 */

/**
 * null: the predicted class; { class, contrast }: why `class` (null: the predicted one)
 * rather than `contrast`.
 * @typedef {ClassSpec | null | { class?: ClassSpec | null, contrast?: ClassSpec | null }} TargetSpec
 */

/**
 * @typedef {object} ExplainOptions
 * @property {TargetSpec | TargetSpec[]} [targets] Default: [null], the predicted class.
 * @property {MethodId[] | string} [methods] Method ids (or one comma-separated string).
 *   Default: ['transformer_attribution'].
 * @property {number | 'last'} [startLayer] First block of the rollouts, or 'last' (the
 *   last block: the official BERT pipeline's start). Default 0.
 * @property {AbortSignal} [signal]
 */

/** @typedef {{ id: number, label: string, prob: number }} ClassProbability */

/**
 * A class named in a request, with where it stands among all classes for this photo.
 * @typedef {ClassProbability & { rank: number }} ClassStanding rank: 1 = the most likely
 *   class; a class outside the top-5 has its rank too.
 */

/**
 * @typedef {ClassStanding & { contrast?: ClassStanding, maps: Record<string, RelevanceMap> }} ExplainedTarget
 *   With a contrast, `maps` holds why `id` rather than `contrast`: the two classes' maps,
 *   each divided by its largest magnitude, subtracted (docs/contrast.md); methods that read
 *   only the attention are left out.
 */

/**
 * The part of the photo the model saw, in photo pixels.
 * @typedef {{ x: number, y: number, width: number, height: number }} Region
 */

/**
 * @typedef {object} ExplainResult
 * @property {ClassProbability[]} top5
 * @property {ExplainedTarget[]} targets
 * @property {Region | null} region null for an already-normalised input ({ pixels }).
 * @property {number | null} width
 * @property {number | null} height
 * @property {{ preprocessMs?: number, modelMs: number, relevanceMs: number, totalMs: number }} timings
 */

/**
 * A map over a text's tokens (every token, [CLS] and [SEP] included): data.length === shape[0].
 * @typedef {{ shape: [number], data: Float32Array, correlation?: number | null }} TokenMap
 */

/**
 * A text as a text model reads it: its WordPiece tokens (`[CLS]` … `[SEP]`) and their ids,
 * each token's [start, end) in the text in UTF-16 code units (`text.slice(start, end)`;
 * [0, 0] for [CLS] and [SEP]), the words (before WordPiece) and, for a text longer than the
 * model's positions, how much was cut: `truncated.tokens` tokens, from character
 * `truncated.at` on (null when nothing was).
 * @typedef {object} TextFields
 * @property {string} text
 * @property {string[]} tokens
 * @property {number[]} ids
 * @property {[number, number][]} offsets
 * @property {string[]} words
 * @property {{ tokens: number, at: number } | null} truncated
 */

/**
 * An explained class of a text: maps over tokens, and each method's word map (one score
 * per word: the max of its pieces' scores, METHODS.md).
 * @typedef {ClassStanding & { contrast?: ClassStanding, maps: Record<string, TokenMap>, wordMaps: Record<string, Float32Array> }} TextTarget
 */

/**
 * A text's explanation: the photos' fields (region, width and height null) with maps over
 * tokens, the text's tokens, and `notes` (the truncation notice, when the text was cut).
 * @typedef {Omit<ExplainResult, 'targets'> & TextFields & { targets: TextTarget[], notes: string[] }} TextExplainResult
 */

/**
 * How open() (and explain()) read a photo, in Node and in the browser alike. crop: the
 * model's input, 'center' (its preprocessing: resize and centre crop; the default) or
 * 'none' (the whole photo, squeezed). exif: 'use' (the EXIF orientation, as viewers show
 * the photo; the default) or 'ignore' (the stored pixels, as PIL reads them).
 * @typedef {{ crop?: 'center' | 'none', exif?: 'use' | 'ignore', signal?: AbortSignal }} OpenOptions
 */

/**
 * @typedef {object} LoadOptions
 * @property {'wasm' | 'webgpu'} [backend]
 * @property {number} [threads]
 * @property {(info: ProgressInfo) => void} [onProgress] What the load (and, in the
 *   browser, the Worker's background work) reports, one ProgressInfo at a time.
 * @property {AbortSignal} [signal]
 */

/**
 * One report of a load or of the runtime's background work, told apart by its `status`
 * (transformers.js's ProgressInfo is the model): one callback, `onProgress`, hears them all.
 * - 'progress': `loaded` bytes of the model files of `total`, and the load `phases` running
 *   now (the browser's, web/lib/load-phases.js; Node's load has none).
 * - 'explainer-ready' (browser): the ONNX session of the graph of the default method is
 *   open, onnxruntime having taken `ms`.
 * - 'sessions-ready' (browser): every graph a class switch needs is open.
 * - 'photo-cached' (browser): `photo`'s tensors are kept: its class switches run the class
 *   graph alone (`modelMs`: the photo graph's run).
 * - 'photo-cache-failed' (browser): they could not be kept (`message`); class switches run
 *   a whole graph.
 * @template [Photo=unknown]
 * @template [Phase=string]
 * @typedef {{ status: 'progress', loaded: number, total: number, phases: readonly Phase[] }
 *   | { status: 'explainer-ready', ms: number }
 *   | { status: 'sessions-ready' }
 *   | { status: 'photo-cached', photo: Photo, modelMs: number }
 *   | { status: 'photo-cache-failed', photo: Photo, message: string }} ProgressInfo
 */

/**
 * @typedef {object} ExplainerMetadata
 * @property {'image' | 'text'} [kind] Absent on image models.
 * @property {string} name
 * @property {string[]} labels
 * @property {string[]} [label_names]
 * @property {string[]} [wnids]
 * @property {{ blocks: number, heads: number, patch_size: number, image_size: [number, number],
 *   grid: [number, number], tokens: number, num_classes: number }} architecture
 */

/**
 * A method's entry in the core's registry (src/methods/registry.h).
 * @typedef {object} MethodInfo
 * @property {MethodId} id
 * @property {string} name
 * @property {string} shortName
 * @property {string} description Its formula, in one line.
 * @property {string} about In plain words: what the map shows, whether it depends on the
 *   class and has a sign, when to trust it less.
 * @property {string} paper
 * @property {readonly string[]} tensors The explainer graph outputs it reads.
 * @property {boolean} startLayer Whether it takes a start layer.
 * @property {boolean} tokenRow Whether it is a token row (not a pixel map).
 * @property {boolean} contrast Whether its map depends on the class, so it can contrast two.
 * @property {number} minBlocks The fewest blocks it is defined for.
 */

/**
 * What both entries' explainers have; Image is what explain() takes, Result what it gives.
 * @template Image
 * @template [Result=ExplainResult]
 * @typedef {object} ExplainerBase
 * @property {ExplainerMetadata} metadata
 * @property {readonly MethodId[]} methods
 * @property {(id: MethodId) => MethodInfo} method The registry entry of a method (throws
 *   for an unknown id).
 * @property {(spec: ClassSpec) => number} classId Class id from an id, WordNet id or name;
 *   throws naming close matches.
 * @property {(id: number) => string} label
 * @property {(image: Image, options?: ExplainOptions) => Promise<Result>} explain
 */

/**
 * @typedef {object} RenderOptions
 * @property {'jet' | 'viridis' | 'inferno' | 'turbo' | 'gray' | 'rdbu'} [colormap]
 * @property {'positive' | 'signed'} [scale] 'positive' (default): min-max; 'signed': 0
 *   white, blue < 0 < red (the rdbu colormap, whatever `colormap` says).
 * @property {number} [opacity] Opacity of the map over the photo, 0..1.
 * @property {'none' | 'mean' | 'otsu'} [threshold]
 * @property {'smooth' | 'grid'} [display]
 * @property {number} [size] Longest side of the image returned without a photo (default 224, the map in its own proportions); with a photo the image is the photo's size.
 * @property {Region | null} [region]
 */

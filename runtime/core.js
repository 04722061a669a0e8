// @ts-check
/**
 * runtime/core.js — the JavaScript API of the C++ core (src/), compiled to WebAssembly
 * (build/wasm/vit_relevance_core.mjs + .wasm). The page, its Worker and every CLI command
 * use this file and nothing below it, so they all run the same code.
 *
 *   const core = await loadCore({ wasmBinary, locateFile, moduleUrl });
 *     Node: reads the .wasm next to the .mjs itself (Emscripten 3.1.6 would fetch() a
 *     file path). Browser/Worker: the .wasm is fetched relative to the .mjs unless
 *     `locateFile(name, prefix)` or `wasmBinary` (ArrayBuffer/Uint8Array) is given.
 *     `moduleUrl`: the absolute URL of the .mjs. By default the package's own
 *     `vit-relevance/wasm/vit_relevance_core.mjs` (package.json "exports"), which resolves
 *     in Node and in a page whose import map names it; a browser script that finds the
 *     core elsewhere (a Worker, a bundle: web/lib/site-files.js) passes it.
 *   The evaluations' functions (below) come with loadEvalCore (runtime/core-eval.js)
 *   instead: the browser's scripts never import them.
 *
 * Tensors are `{ data: Float32Array, shape: number[] }`, row-major, under the explainer
 * graph's output names: attn [B,h,S,S], attn_grad [B,h,S,S], attn_rel [B,h,S,S],
 * attn_rel_classic_last [h,S,S], input_rel_classic [H,W] (docs/architecture.md; any may be
 * missing; one target row's, i.e. without the graph's K axis).
 *
 * The method registry (src/methods/registry.h), read once when the core loads:
 *   core.methods     [{ id, name, shortName, description (the formula), about (in words),
 *                      paper, tensors: [tensor ids],
 *                      startLayer: bool, tokenRow: bool, contrast: bool (its map depends on
 *                      the class, so it can contrast two), minBlocks: the fewest blocks it
 *                      is defined for }] in the registry's order
 *   core.methodIds   their ids;  core.method(id) → the entry (Error for an unknown id)
 *   core.tensors     [{ id, description }];  core.tensorIds their ids
 *   core.outputsFor(methodIds) → the explainer graph outputs those methods read, in
 *                      registry order: what an explanation needs to fetch
 *   core.explainerMethodIds  the methods one explainer run feeds (all but attattr, whose
 *                      attr comes from the attribution graphs, runtime/attribution.js)
 *   core.headImportance(attr) → { shape: [B,h], data }: per head, max over (i,j) of Attr
 *   core.taylorImportance(attn, attnGrad) → { shape: [B,h], data }: per head |Σ A ⊙ ∂L/∂A|
 *                      (the Taylor baseline of head pruning; attnGrad for the cross-entropy)
 *   core.attributionTree(attr, threshold = 0.4, specialTokens = 1) → { top, nodes, edges:
 *                      [{ from, to, block }] }: the official attribution_tree.py loop
 *                      (METHODS.md), the prefix tokens' rows left out (docs/layouts.md)
 *
 *   core.uploadTensors(tensors)         → CoreTensors: copies into the WebAssembly heap
 *                                         once; pass it wherever `tensors` is expected to
 *                                         reuse it; call .free() when done
 *   core.availableMethods(tensors)      → ids whose inputs are all present
 *   core.computeMaps(tensors, options)  → { [id]: { shape: [rows, cols], data: Float32Array } }
 *       options: { methods: 'all' | string[] (default 'all'), grid: [rows, cols] (default:
 *       the square grid S - specialTokens, when it is one), specialTokens (default 1),
 *       startLayer (default 0), pool (core.poolIds: how the head reads the tokens, default
 *       'cls'; docs/layouts.md), queryToken (default -1: the pool's readout; a token index
 *       explains that token's row instead) }.
 *       'all' leaves out methods whose inputs are missing; a method named explicitly whose
 *       inputs are missing throws. lrp_full's, attnlrp's and cp_lrp's maps are the H x W
 *       pixel map (signed). startLayer 'last' = the last block. kind: 'image' (default) or
 *       'text': S tokens, no grid, the official BERT code's definitions, maps { shape: [S] }
 *       (text tensors: input_rel_* are [S]; runtime/core-options.js). The tokenizer:
 *       runtime/core-text.js (loadTextCore, or coreTokenizer over any core).
 *   core.patchSum(map, [rows, cols]) → { shape: [rows, cols], data }: a pixel map's patch
 *       map, the sum of each patch (METHODS.md: the patch map of attnlrp and cp_lrp)
 *   core.relevanceRow(method, tensors, options) → Float32Array of length S: the
 *       queryToken's (or the pool's readout's) relevance over all tokens (token explorer).
 *   core.poolIds ['cls','cls+dist','avg','avg+prefix','cls+avg'] (src/methods/relevance.h)
 *   core.contrast(method, mapA, mapB) → { shape, data, correlation }: why A rather than B,
 *       mapA / max|mapA| − mapB / max|mapB| (src/methods/contrast.h, docs/contrast.md),
 *       and the two maps' Pearson r (null when one is constant: near 1, the method hardly
 *       tells the classes apart); an Error for a method whose contrast is false.
 *
 * Rendering and preprocessing (core.renderHeat, core.preprocess, core.overlayOnPhoto, …):
 * runtime/core-render.js lists them. Loading the WebAssembly module: runtime/core-module.js.
 *
 * Evaluation (runtime/core-eval.js, on loadEvalCore's core only; the paper's protocols,
 * METHODS.md). Maps are row-major Float32Arrays, masks Uint8Arrays of 0 (background) / 1
 * (foreground).
 *   core.removalOrderIds ['most_relevant_first','least_relevant_first'] (positive / negative
 *       perturbation)
 *   core.removalRanking(map, order)               → Uint32Array of pixel indices in removal
 *       order; equal values always go lower index first
 *   core.removedPixelCount(pixels, fraction)      → floor(pixels * fraction), fraction in [0,1]
 *   core.perturbedInputs(rgba, width, height, map, { fractions, order, mean, std })
 *       → Float32Array [fractions.length, 3, height, width]: per fraction, the first
 *       removedPixelCount pixels of the ranking black in the [0,1] image, then normalised
 *   core.trapezoidArea(x, y)                      → trapezoid area, x strictly increasing
 *   core.perturbationAuc(fractions, accuracy)     → trapezoidArea × 100
 *   core.positiveShareInside(map, rows, cols, { x, y, width, height }) → grid pointing game:
 *       positive relevance inside the rect / all positive relevance (0 if none)
 *   core.segmentationCounts(map, mask)            → { correct, labeled, intersection: [bg, fg],
 *       union: [bg, fg], averagePrecision } of imagenet_seg_eval.py (min-max, binarised
 *       above the mean; AP = mean of the two classes' sklearn average precision)
 *   core.averagePrecision(scores, positive)       → sklearn's average_precision_score
 *       (0 when there is no positive)
 *   core.maskInModelFrame(mask, maskWidth, maskHeight, region, outWidth, outHeight)
 *       → Uint8Array: nearest-neighbour sample of the mask's region into the input frame
 *
 * Errors: every bad input throws an Error whose message says what is wrong; inputs the
 * C++ core rejects arrive with err.name === 'InputError' and the core's message intact.
 */
import { CoreTensors, ATTRIBUTION_TENSOR } from './core-tensors.js';
import { renderApi } from './core-render.js';
import { heapHelpers } from './core-heap.js';
import { coreOptions } from './core-options.js';
import { loadModule } from './core-module.js';

/**
 * @param {{ wasmBinary?: ArrayBuffer | Uint8Array, moduleUrl?: string | URL,
 *           locateFile?: (name: string, prefix: string) => string }} [options]
 */
export async function loadCore(options = {}) {
  return createCore(await loadModule(options));
}

/**
 * The core with more functions over the same module (runtime/core-eval.js adds the
 * evaluations'): `moreApi(M)` → the functions to add.
 * @param {(M: any) => object} moreApi
 * @param {Parameters<typeof loadCore>[0]} [options]
 */
export async function loadCoreWith(moreApi, options = {}) {
  const M = await loadModule(options);
  return { ...createCore(M), ...moreApi(M) };
}

const deepFreeze = (list) => Object.freeze(list.map((e) => Object.freeze({ ...e, ...(e.tensors && { tensors: Object.freeze([...e.tensors]) }) })));

function createCore(M) {
  const methodRegistry = deepFreeze([...M.methodRegistry()]);
  const methodIds = Object.freeze(methodRegistry.map((m) => m.id));
  const tensorRegistry = deepFreeze([...M.tensorRegistry()]);
  const tensorIds = Object.freeze(tensorRegistry.map((t) => t.id));
  const byId = new Map(methodRegistry.map((m) => [m.id, m]));

  function methodInfo(id) {
    const entry = byId.get(id);
    if (!entry) throw new Error(`unknown method "${id}"; known: ${methodIds.join(', ')}`);
    return entry;
  }

  // The explainer graph's outputs; attr comes from the attribution graphs (attribution.js).
  const graphTensorIds = tensorIds.filter((t) => t !== ATTRIBUTION_TENSOR);
  // What 'all' means for an explanation: the methods one explainer run feeds.
  const explainerMethodIds = Object.freeze(methodIds.filter(
    (id) => methodInfo(id).tensors.every((t) => graphTensorIds.includes(t))));

  function outputsFor(ids) {
    const needed = new Set(ids.flatMap((id) => methodInfo(id).tensors));
    return graphTensorIds.filter((t) => needed.has(t));
  }

  // Self-Attention Attribution's summaries of attr { data, shape: [B,h,S,S] }.
  function withAttr(attr, fn) {
    const up = new CoreTensors(M, tensorIds, { [ATTRIBUTION_TENSOR]: attr });
    try {
      return fn(up.heap[ATTRIBUTION_TENSOR]);
    } finally {
      up.free();
    }
  }

  // Runs fn on heap tensors: uploads plain tensors for this call only.
  function withTensors(tensors, fn) {
    if (tensors instanceof CoreTensors) return fn(tensors);
    const uploaded = new CoreTensors(M, tensorIds, tensors);
    try {
      return fn(uploaded);
    } finally {
      uploaded.free();
    }
  }

  function availableOn(t) {
    return methodIds.filter((id) => M.hasInputsFor(id, t.heap));
  }

  function resolveMethods(requested, t) {
    if (requested === undefined || requested === 'all') {
      const ids = availableOn(t);
      if (!ids.length) {
        throw new Error('no method can be computed: give at least one of ' +
          tensorIds.join(', '));
      }
      return ids;
    }
    const list = typeof requested === 'string' ? [requested] : requested;
    if (!Array.isArray(list) || !list.length || !list.every((m) => typeof m === 'string')) {
      throw new TypeError(`options.methods must be 'all' or a non-empty array of method ids; known: ${methodIds.join(', ')}`);
    }
    return [...new Set(list)];
  }

  function copyOut(floats) {
    try {
      return { shape: [...floats.shape()], data: floats.view().slice() };
    } finally {
      floats.delete();
    }
  }

  function computeMaps(tensors, options = {}) {
    return withTensors(tensors, (t) => {
      const ids = resolveMethods(options.methods, t);
      const result = M.computeMaps(ids, t.heap, coreOptions(options, t));
      const maps = {};
      for (const id of ids) maps[id] = copyOut(result[id]);
      return maps;
    });
  }

  function relevanceRow(method, tensors, options = {}) {
    return withTensors(tensors, (t) => copyOut(M.relevanceRow(method, t.heap, coreOptions(options, t))).data);
  }

  const { heapFloats, using } = heapHelpers(M);
  function contrast(method, a, b) {
    methodInfo(method);
    for (const [map, what] of [[a, 'map A'], [b, 'map B']]) {
      if (!map?.data || !Array.isArray(map.shape) || ![1, 2].includes(map.shape.length)) throw new TypeError(`contrast: ${what} must be { shape: [rows, cols] or a text's [S], data }`);
    }
    return using([heapFloats(a.data, a.shape), heapFloats(b.data, b.shape)], (fa, fb) => {
      const r = M.contrastCorrelation(method, fa, fb);
      return { ...copyOut(M.contrastMap(method, fa, fb)), correlation: Number.isNaN(r) ? null : r };
    });
  }

  // A pixel map's patch map (attnlrp, cp_lrp, lrp_full): each patch's sum, signed.
  function patchSum(map, grid) {
    if (!map?.data || !Array.isArray(map.shape) || map.shape.length !== 2) throw new TypeError('patchSum: the map must be { shape: [rows, cols], data }');
    if (!Array.isArray(grid) || grid.length !== 2 || !grid.every(Number.isInteger)) throw new TypeError('patchSum: grid must be [rows, cols] integers');
    return using([heapFloats(map.data, map.shape)], (f) => copyOut(M.patchSum(f, grid[0], grid[1])));
  }

  return {
    methods: methodRegistry,
    methodIds,
    poolIds: Object.freeze([...M.poolIds()]),
    method: methodInfo,
    tensors: tensorRegistry,
    tensorIds,
    explainerMethodIds,
    outputsFor,
    headImportance: (attr) => withAttr(attr, (a) => copyOut(M.headImportance(a))),
    taylorImportance: (attn, attnGrad) => withTensors({ attn, attn_grad: attnGrad }, (t) => copyOut(M.taylorImportance(t.heap.attn, t.heap.attn_grad))),
    attributionTree: (attr, threshold = 0.4, specialTokens = 1) => withAttr(attr, (a) => M.attributionTree(a, threshold, specialTokens)),
    uploadTensors: (given) => new CoreTensors(M, tensorIds, given),
    availableMethods: (given) => withTensors(given, availableOn),
    computeMaps,
    relevanceRow,
    contrast,
    patchSum,
    ...renderApi(M),
    // This core with more functions over the same module: a text's tokenizer, added where a
    // text model opens (runtime/core-text.js), so the photo path's scripts ship without it.
    withApi(moreApi) { return { ...this, ...moreApi(M) }; },
  };
}

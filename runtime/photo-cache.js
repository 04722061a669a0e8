// @ts-check
// One open explainer with the core, and its photo sessions (the photos explained on it): the work the
// Worker (page and embeds) and the Node API share. The photos keep each class's tensors in
// the core's heap, within one byte budget over all of them (other methods and start
// layers reuse them) and, with the split graphs, each its class-independent tensors (a
// class switch then runs the class graph alone).
// A contrast "why the class rather than the contrast class" is computed from the two
// classes' maps by the core (core.contrast, docs/contrast.md), so it shares their cached tensors.
// Environment-neutral.
import { topK } from './topk.js';
import { TensorCache } from './tensor-cache.js';
import { tokenLayout } from './metadata.js';

// A target is { class } or { class, contrast } (why the class rather than the contrast class).
const isContrast = (t) => t.contrast !== undefined && t.contrast !== null;
export const targetKey = (t) => (isContrast(t) ? `c${t.class}-${t.contrast}` : `c${t.class}`);

// The classes whose tensors `targets` read, each once, as targets: a contrast reads both.
function classTargets(targets) {
  const ids = new Set(targets.flatMap((t) => (isContrast(t) ? [t.class, t.contrast] : [t.class])));
  return [...ids].map((id) => ({ class: id }));
}

// The bytes of class tensors a model's photos keep, together (runtime/tensor-cache.js):
// DeiT-tiny's classes for about a dozen, ViT-B/16's for two or three.
export const TENSOR_CACHE_BYTES = 192 * 2 ** 20;

// RGBA bytes → what the model reads: the core's preprocess as the metadata says (crop:
// 'center', its framing, or 'none', the whole photo: core.cropModeIds) → { pixels, region
// (of the photo, the model's input), passthrough (a photo of the input's size, normalised
// only) }. The one preprocessing of a photo, for the Worker, the Node API and the CLI.
export function preprocessPhoto(core, metadata, rgba, width, height, { crop = 'center' } = {}) {
  // Given the whole metadata, the core also checks the result against image_size.
  const pre = core.preprocess(rgba, width, height, metadata, { crop });
  const { x, y, width: w, height: h } = pre.region;
  return { pixels: pre.pixels, region: { x, y, width: w, height: h }, passthrough: pre.passthrough };
}

// tensorCacheBytes: that budget, for this explainer's photos.
export function createPhotoCache({ explainer, core, tensorCacheBytes = TENSOR_CACHE_BYTES }) {
  if (!(Number.isFinite(tensorCacheBytes) && tensorCacheBytes >= 0)) {
    throw new TypeError(`tensorCacheBytes must be a number of bytes, 0 or more (got ${tensorCacheBytes})`);
  }
  const { metadata } = explainer;
  const layout = tokenLayout(metadata);
  let graphRuns = 0;
  let photos = 0;
  const tensors = new TensorCache(tensorCacheBytes);
  const tensorKey = (photo, t) => `${photo.id} ${targetKey(t)}`;
  const now = () => (globalThis.performance ?? Date).now();

  // The 5 most likely classes of a photo that has been through the graph.
  const top5 = (photo) => topK(photo.logits, 5, metadata.labels);
  // denominators: a oneSession model's Linear denominators of the photo, from its first
  // run (runtime/explainer.js explain()), given back to its class switches. One photo
  // holds them at a time, the last to form them (57 MB for a ViT-B/16; the Worker keeps
  // up to 8 photos).
  const newPhoto = (pixels, region) => ({ id: ++photos, pixels, region, cache: null, denominators: null });
  let holding = null; // the photo whose denominators are kept
  function keepDenominators(photo, formed) {
    if (!formed || photo.denominators) return;
    if (holding && holding !== photo) holding.denominators = null;
    photo.denominators = formed;
    holding = photo;
  }

  // RGBA bytes → a photo: preprocessPhoto's pixels, and the region of it the model saw.
  function openPhoto(rgba, width, height, { crop = 'center' } = {}) {
    const { pixels, region } = preprocessPhoto(core, metadata, rgba, width, height, { crop });
    return newPhoto(pixels, region);
  }

  // One class's tensors of a run, into the core's heap and the cache → the cache's entry.
  function keep(photo, t, given, outputs) {
    const heap = core.uploadTensors(given);
    const entry = { heap, outputs: new Set(outputs), bytes: heap.bytes, free: () => heap.free() };
    tensors.set(tensorKey(photo, t), entry);
    return entry;
  }

  // A class's maps, every method its tensors allow.
  const mapsFrom = (entry, startLayer) => core.computeMaps(entry.heap, { methods: 'all', ...layout, startLayer });

  // The targets' results from each class's maps. A contrast holds the methods that can
  // contrast (core.method(id).contrast) only.
  function resultsOf(targets, byClass) {
    return targets.map((t) => {
      if (!isContrast(t)) return { target: t, maps: byClass.get(t.class) };
      const own = byClass.get(t.class);
      const other = byClass.get(t.contrast);
      const maps = {};
      for (const m of Object.keys(own)) if (core.method(m).contrast && other[m]) maps[m] = core.contrast(m, own[m], other[m]);
      return { target: t, maps };
    });
  }

  // The prediction and the predicted class's tensors in ONE explainer run (a zero target
  // row means "the predicted class"), so the first map costs one run, not two.
  async function predict(photo, { methods }) {
    const outputs = core.outputsFor(methods);
    graphRuns++;
    const out = await explainer.explain(photo.pixels, [null], { outputs, denominators: photo.denominators });
    keepDenominators(photo, out.denominators);
    const target = { class: out.classes[0] };
    keep(photo, target, out.tensors[0], outputs);
    photo.logits = out.logits;
    return { top5: top5(photo), target, modelMs: out.timings.modelMs };
  }

  // The prediction from the photo graph alone (split graphs), whose outputs stay as the
  // photo's cache: the maps that follow then cost the class graph, or no graph at all for
  // methods that read only the attention. Same work as predict() but no forward is run
  // twice (once in the explainer, again when the photo is cached for class switches).
  async function predictFromPhoto(photo) {
    const cache = await cachePhoto(photo);
    return predicted(photo, cache.logits, cache.modelMs);
  }

  // The prediction from the plain forward graph alone: for a photo that comes while the
  // explainer graph's ONNX session still opens (the page's first photo of a visit), so its
  // classes show at once; its maps then come from explain().
  async function predictForward(photo) {
    graphRuns++;
    const { logits, timings } = await explainer.predict(photo.pixels);
    return predicted(photo, logits, timings.modelMs);
  }

  // A photo's logits from a graph without explanations → its prediction, the top-1 class
  // as the target to explain.
  function predicted(photo, logits, modelMs) {
    photo.logits = logits;
    const top = top5(photo);
    return { top5: top, target: { class: top[0].id }, modelMs };
  }

  // The photo's class-independent tensors (split graphs), computed once; null without them.
  function cachePhoto(photo) {
    if (!explainer.canCachePhoto) return null;
    if (!photo.cache) {
      graphRuns++;
      photo.cache = explainer.cachePhoto(photo.pixels);
      photo.cache.catch(() => { photo.cache = null; }); // explain() falls back to the single graph
    }
    return photo.cache;
  }

  // Maps of `targets` for `methods`. The graph runs (once, for every target lacking them)
  // only when cached tensors miss an output these methods read. Each class's maps are
  // computed as soon as its tensors are at hand: keeping the next class's may push them out.
  async function explain(photo, targets, { methods, startLayer = 0 }) {
    const need = core.outputsFor(methods);
    let relevanceMs = 0;
    const timed = (f) => { const t0 = now(); const r = f(); relevanceMs += now() - t0; return r; };
    const byClass = new Map();
    const lacking = [];
    for (const t of classTargets(targets)) {
      const entry = tensors.get(tensorKey(photo, t));
      if (entry && need.every((o) => entry.outputs.has(o))) byClass.set(t.class, timed(() => mapsFrom(entry, startLayer)));
      else lacking.push({ t, had: entry?.outputs ?? [] });
    }
    let modelMs = 0;
    if (lacking.length) {
      // Keep the outputs cached entries had, so re-running never loses a method.
      const outputs = new Set(need);
      for (const { had } of lacking) for (const o of had) outputs.add(o);
      // The photo's tensors when their computation has started; before that the single
      // graph costs less than computing them first.
      const cached = photo.cache && await photo.cache.catch(() => null);
      const rows = lacking.map(({ t }) => t.class);
      // With the photo's cache, attention-only methods read the photo graph's attn: no run.
      if (!cached || [...outputs].some((o) => o !== 'attn')) graphRuns++;
      const out = cached
        ? await explainer.explainCached(cached, rows, { outputs: [...outputs] })
        : await explainer.explain(photo.pixels, rows, { outputs: [...outputs], denominators: photo.denominators });
      if (!cached) keepDenominators(photo, out.denominators);
      modelMs = out.timings.modelMs;
      lacking.forEach(({ t }, k) => {
        const entry = keep(photo, t, out.tensors[k], outputs);
        byClass.set(t.class, timed(() => mapsFrom(entry, startLayer)));
      });
      photo.logits ??= out.logits;
    }
    const results = timed(() => resultsOf(targets, byClass));
    return { results, timings: { modelMs, relevanceMs } };
  }

  return {
    metadata,
    explainer,
    openPhoto,
    // A photo from already-normalised pixels (a .npy tensor; a text's token ids): region,
    // where the model's input lies in what the caller shows (null: nothing shown).
    pixelsPhoto: (pixels, region = null) => newPhoto(pixels, region),
    predict,
    predictFromPhoto,
    predictForward,
    top5,
    cachePhoto,
    explain,
    closePhoto: (photo) => {
      tensors.deleteWhere((key) => key.startsWith(`${photo.id} `));
      photo.cache = null;
      photo.denominators = null;
      if (holding === photo) holding = null;
    },
    get graphRuns() { return graphRuns; },
    get keptBytes() { return tensors.bytes; },
    close: () => { tensors.clear(); return explainer.release(); },
  };
}

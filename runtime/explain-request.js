// @ts-check
// What a caller of the public API (loadExplainer().explain) asks for and gets back, in
// both environments: target specs → the session's targets, and the result's shape
// { top5, targets: [{ id, label, prob, rank, contrast?, maps: { <method>: { shape, data } } }] }.
// Environment-neutral.
import { resolveClass } from './targets.js';
import { classStanding } from './topk.js';

export const DEFAULT_METHODS = Object.freeze(['transformer_attribution']);

// A spec is null (the predicted class), a class (id, WordNet id or name), or
// { class, contrast }: why `class` (null: the predicted one) rather than `contrast`.
// → targets [{ class, contrast? }] of class ids, class null standing for the predicted class.
export function resolveTargets(metadata, specs) {
  const list = specs === undefined || specs === null ? [null] : Array.isArray(specs) ? specs : [specs];
  if (!list.length) return [{ class: null }];
  return list.map((spec) => {
    if (spec === null || typeof spec !== 'object') return { class: spec === null ? null : resolveClass(metadata, spec) };
    const classId = spec.class === undefined || spec.class === null ? null : resolveClass(metadata, spec.class);
    const contrast = spec.contrast === undefined || spec.contrast === null ? undefined : resolveClass(metadata, spec.contrast, 'contrast');
    if (contrast !== undefined && classId === contrast) throw new Error(`contrast ${spec.contrast} is the class itself: give another class`);
    return contrast === undefined ? { class: classId } : { class: classId, contrast };
  });
}

// Why a method (its registry entry) cannot answer "why A rather than B", or null when it can.
export function contrastBlocker(methodInfo) {
  return methodInfo.contrast ? null
    : `${methodInfo.shortName} reads only the attention, which is the same for every class: it cannot contrast two classes`;
}

// Replaces "the predicted class" by its id once it is known; a contrast with the
// predicted class itself is refused as resolveTargets refuses an explicit one.
export const withPredicted = (targets, predicted) => targets.map((t) => {
  const classId = t.class ?? predicted;
  if (t.contrast === classId) throw new Error(`contrast ${t.contrast} is the predicted class itself: give another class`);
  return { ...t, class: classId };
});

export function checkMethods(methods, known) {
  const list = methods === undefined ? DEFAULT_METHODS : typeof methods === 'string' ? methods.split(',').map((m) => m.trim()) : methods;
  if (!Array.isArray(list) || !list.length) throw new Error(`methods must be a non-empty list of method ids; known: ${known.join(', ')}`);
  const unknown = list.filter((m) => !known.includes(m));
  if (unknown.length) throw new Error(`unknown method "${unknown[0]}"; known: ${known.join(', ')}`);
  return [...new Set(list)];
}

// startLayer: a block index 0..B−1, or 'last' (B−1: the official ERASER pipeline's start
// for BERT, METHODS.md) → the block index.
/** @param {{ architecture: { blocks: number } }} metadata @param {number | 'last'} [startLayer] */
export function resolveStartLayer(metadata, startLayer = 0, role = 'startLayer') {
  const B = metadata.architecture.blocks;
  if (startLayer === 'last') return B - 1;
  if (!Number.isInteger(startLayer) || startLayer < 0 || startLayer >= B) {
    throw new Error(`${role} must be a block index 0..${B - 1} of this model, or 'last' (got ${JSON.stringify(startLayer)})`);
  }
  return startLayer;
}

export const top5Of = (metadata, top5) => top5.map(({ id, prob }) => ({ id, label: metadata.labels[id], prob }));

// maps: { <method>: { shape, data } } → the same, the methods asked for only;
// each class named gets its standing among all classes from the photo's logits (its
// probability and rank, 1 = most likely), so a caller sees how likely the explained class is.
export function resultTarget(metadata, target, maps, methods, logits) {
  /** @type {Record<string, import('./explain-types.js').RelevanceMap>} */
  const out = {};
  for (const m of methods) {
    const map = maps[m];
    if (!map) continue;
    out[m] = { shape: map.shape, data: map.data };
    if (map.correlation !== undefined) out[m].correlation = map.correlation; // a contrast's
  }
  const named = (id) => {
    const { prob, rank } = classStanding(logits, id);
    return { id, label: metadata.labels[id], prob, rank };
  };
  /** @type {import('./explain-types.js').ExplainedTarget} */
  const t = { ...named(target.class), maps: out };
  if (target.contrast !== undefined && target.contrast !== null) t.contrast = named(target.contrast);
  return t;
}

// A text's target: the photo's fields and maps, and each method's word map (wordMaps:
// { <method>: Float32Array }, one score per word of the text).
export function textTarget(metadata, target, maps, wordMaps, methods, logits) {
  const t = resultTarget(metadata, target, maps, methods, logits);
  return { ...t, wordMaps: Object.fromEntries(methods.filter((m) => t.maps[m] && wordMaps[m]).map((m) => [m, wordMaps[m]])) };
}

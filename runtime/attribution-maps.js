// @ts-check
// The maps of the methods that read Attr (attattr) rather than an explainer output: Attr of
// every block for each class from the attribution graphs (runtime/attribution.js), then
// the core's maps. Shared by `explain --method attattr` and the evaluations.
// Environment-neutral: the caller opens the graphs and the core.
import { mapOptions } from './metadata.js';

// m of METHODS.md's Self-Attention Attribution (the paper's value).
export const DEFAULT_STEPS = 20;

// Methods of `methods` that one explainer run does not feed.
export function attributionMethodsOf(core, methods) {
  return methods.filter((m) => !core.explainerMethodIds.includes(m));
}

// pixels: the model input; classes: class ids. → one { method: { data, shape } } per class
// (the same object for a class named twice).
export async function attributionMaps({ attribution, core, metadata, pixels, classes, methods, startLayer, steps = DEFAULT_STEPS }) {
  const { hidden } = await attribution.hiddenStates(pixels);
  const blocks = Array.from({ length: metadata.architecture.blocks }, (_, b) => b);
  const byClass = new Map();
  for (const c of classes) {
    if (byClass.has(c)) continue;
    const { attr } = await attribution.attributeBlocks(hidden, blocks, c, { steps });
    byClass.set(c, core.computeMaps({ attr }, mapOptions(metadata, methods, startLayer)));
  }
  return classes.map((c) => byClass.get(c));
}

// targets: explained classes ({ id, contrast?: { id } }). → one { method: map } per target,
// a contrast's being the core's contrast of the two classes' maps (docs/contrast.md); each
// class's Attr is computed once.
/** @param {{ attribution: any, core: any, metadata: any, pixels: any, targets: any[], methods: string[], startLayer: any, steps?: number }} options */
export async function targetAttributionMaps({ targets, ...options }) {
  const others = targets.filter((t) => t.contrast).map((t) => t.contrast.id);
  const maps = await attributionMaps({ ...options, classes: [...targets.map((t) => t.id), ...others] });
  let next = targets.length;
  return targets.map((target, i) => {
    const own = { ...maps[i] };
    if (!target.contrast) return own;
    const other = maps[next++];
    for (const m of Object.keys(own)) own[m] = options.core.contrast(m, own[m], other[m]);
    return own;
  });
}

// @ts-check
// Head pruning (METHODS.md, "Self-Attention Attribution"; the official
// prune_head_with_attr.py and prune_head_with_taylor.py, transferred to ViTs):
//   1. on each ranking photo, per head: the attribution importance (max over (i,j) of
//      Attr[b][k] for the LABELLED class), the attention importance (max of A[b][k]) and
//      the Taylor importance (|Σ A ⊙ ∂L/∂A|, L the cross-entropy with the label);
//   2. over the ranking photos: the SUM per head; Taylor's per-block vectors are then
//      divided by their L2 norm; random is a seeded shuffle;
//   3. heads sorted by ascending importance (ties: the lower head index first); at rate
//      r = k/10 the int(r·B·h) least important are masked (head_mask 0) and top-1 against
//      the label is measured on the held-out photos, in batches of the masked forward.
// The per-block protocol (this project's, for the paper's finding that the top heads of
// each layer keep most of the accuracy; METHODS.md defines none): for k = 1 … h−1, keep in
// every block the k heads latest in the same order (ties as there) and mask the other
// h−k, B·(h−k) heads in all; beside it the global order at that same count.
// Environment-neutral: the caller owns the graphs, the core and the photos.
import { softmax } from '../runtime/topk.js';
import { seededShuffle } from './mosaic.js';

export const MEASURES = ['attribution', 'attention', 'taylor', 'random'];
export const RATE_STEPS = 10;
export const RATES = Array.from({ length: RATE_STEPS + 1 }, (_, k) => k / RATE_STEPS);

// How many heads rate k/10 masks: int(r·total), computed exactly as floor(k·total/10).
export function maskedCount(k, total) {
  return Math.floor((k * total) / RATE_STEPS);
}

// The measures a ranking photo is scored by (random needs no photo).
export const scoredMeasures = (by) => by.filter((m) => m !== 'random');

// One ranking photo → { label, predicted, importance: { measure: [B·h] } } for the scored
// measures of `by`. attribution: runtime/attribution.js's opened graphs (null when `by`
// leaves attribution out); steps: its m.
export async function rankPhoto({ explainer, attribution, core, pixels, label, by, steps }) {
  const C = explainer.metadata.labels.length;
  const { logits } = await explainer.predict(pixels);
  const probs = softmax(logits);
  let predicted = 0;
  for (let c = 1; c < C; c++) if (logits[c] > logits[predicted]) predicted = c;
  const importance = {};
  if (by.includes('attention') || by.includes('taylor')) {
    // ∂L/∂logits of the cross-entropy with the label: the explainer's target row.
    const row = Float32Array.from(probs);
    row[label] -= 1;
    const out = await explainer.explain(pixels, [row], { outputs: ['attn', 'attn_grad'] });
    const { attn, attn_grad: grad } = out.tensors[0];
    if (by.includes('attention')) importance.attention = Array.from(core.headImportance(attn).data);
    if (by.includes('taylor')) importance.taylor = Array.from(core.taylorImportance(attn, grad).data);
  }
  if (by.includes('attribution')) {
    const { hidden } = await attribution.hiddenStates(pixels);
    const blocks = Array.from({ length: attribution.dims.blocks }, (_, b) => b);
    const { attr } = await attribution.attributeBlocks(hidden, blocks, label, { steps });
    importance.attribution = Array.from(core.headImportance(attr).data);
  }
  return { label, predicted, importance };
}

// Per-head sums over the ranking photos' records (in the given order), Taylor's blocks
// L2-normalised. → { measure: Float64Array [B·h] } for the scored measures.
export function importanceSums(records, by, { blocks, heads }) {
  const total = blocks * heads;
  const sums = {};
  for (const measure of scoredMeasures(by)) {
    const s = new Float64Array(total);
    for (const r of records) r.importance[measure].forEach((v, i) => { s[i] += v; });
    if (measure === 'taylor') {
      for (let b = 0; b < blocks; b++) {
        let norm = 0;
        for (let k = 0; k < heads; k++) norm += s[b * heads + k] ** 2;
        norm = Math.sqrt(norm);
        if (norm > 0) for (let k = 0; k < heads; k++) s[b * heads + k] /= norm;
      }
    }
    sums[measure] = s;
  }
  return sums;
}

// Head indices (b·h + k) from least to most important.
export function ascendingOrder(importance) {
  return Array.from(importance.keys()).sort((a, b) => importance[a] - importance[b] || a - b);
}

// → { measure: [head indices, least important first] } for every measure of `by`.
export function headOrders(rankRecords, { by, blocks, heads, seed }) {
  const sums = importanceSums(rankRecords, by, { blocks, heads });
  const total = blocks * heads;
  return Object.fromEntries(by.map((m) => [m, m === 'random'
    ? seededShuffle(Array.from({ length: total }, (_, i) => i), seed)
    : ascendingOrder(sums[m])]));
}

// head_mask [B·h] with the first `count` heads of `order` set to 0.
export function headMask(order, count) {
  const mask = new Float32Array(order.length).fill(1);
  for (const head of order.slice(0, count)) mask[head] = 0;
  return mask;
}

// The heads kept per block by the per-block protocol: k = 1 … h−1.
export const keptPerBlock = (heads) => Array.from({ length: heads - 1 }, (_, i) => i + 1);

// head_mask [B·h] keeping `kept` heads in every block: each block's first h − kept heads
// of `order` (head index b·h + k) are set to 0.
export function perBlockMask(order, heads, kept) {
  const mask = new Float32Array(order.length).fill(1);
  const masked = new Array(order.length / heads).fill(0);
  for (const head of order) {
    const block = Math.floor(head / heads);
    if (masked[block] < heads - kept) {
      mask[head] = 0;
      masked[block]++;
    }
  }
  return mask;
}

// The distinct masks of every measure, each run once: { masks: [Float32Array], use:
// { field: { measure: [mask index] } } }, one field per record string (evaluateBatch):
// correct (per rate; rates 0 and 1 give the same mask for every measure), perBlock (per
// kept count) and perBlockGlobal (the global order masking as many heads).
export function pruningMasks(orders, heads) {
  const masks = [];
  const index = new Map();
  const intern = (mask) => {
    const key = mask.join('');
    if (!index.has(key)) {
      index.set(key, masks.length);
      masks.push(mask);
    }
    return index.get(key);
  };
  const use = { correct: {}, perBlock: {}, perBlockGlobal: {} };
  for (const [measure, order] of Object.entries(orders)) {
    const blocks = order.length / heads;
    use.correct[measure] = RATES.map((_, k) => intern(headMask(order, maskedCount(k, order.length))));
    use.perBlock[measure] = keptPerBlock(heads).map((kept) => intern(perBlockMask(order, heads, kept)));
    use.perBlockGlobal[measure] = keptPerBlock(heads).map((kept) => intern(headMask(order, blocks * (heads - kept))));
  }
  return { masks, use };
}

// A batch of held-out photos (pixels: n·3·H·W) under every mask. masked: { run(batch, n,
// mask) → logits [n·C] }. → per photo { label, correct: { measure: "1101…" }, perBlock,
// perBlockGlobal } (one character per mask of plan.use: 1 = top-1 is still the label).
export async function evaluateBatch({ masked, pixels, labels, plan, C }) {
  const n = labels.length;
  const hits = [];
  for (const mask of plan.masks) {
    const logits = await masked.run(pixels, n, mask);
    hits.push(labels.map((label, p) => {
      let best = 0;
      for (let c = 1; c < C; c++) if (logits[p * C + c] > logits[p * C + best]) best = c;
      return best === label ? '1' : '0';
    }));
  }
  const bits = (byMeasure, p) => Object.fromEntries(Object.entries(byMeasure).map(([m, idx]) => [m, idx.map((i) => hits[i][p]).join('')]));
  return labels.map((label, p) => ({
    label,
    ...Object.fromEntries(Object.entries(plan.use).map(([field, byMeasure]) => [field, bits(byMeasure, p)])),
  }));
}

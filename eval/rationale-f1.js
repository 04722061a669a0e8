// @ts-check
// The ERASER Movie Reviews protocol's arithmetic (METHODS.md, "Evaluation: ERASER Movie
// Reviews"; the official BERT_rationale_benchmark's bert_pipeline.py and metrics.py):
//   - a review's words are its whitespace-separated tokens, numbered as ERASER numbers them
//     (the human rationales' start_token/end_token count these);
//   - a word's score is the max of its word pieces' scores, [CLS] [SEP] [UNK] [PAD] dropped;
//     the pipeline aligns pieces to words by their characters, which for the movies' texts
//     is the piece's character offset falling inside the word; a word cut off by the
//     model's positions keeps the pieces it has, the words after it have no score;
//   - the pipeline clamps the token scores at 0 before it takes the top k words: k one-word
//     hard rationales (ties: the lower word index first, a choice torch.topk leaves open);
//   - token-level F1 (`score_hard_rationale_predictions` on token-level rationales): micro
//     over all (review, token) pairs, macro the mean of each review's F1.
// Beside the methods, a baseline: k words drawn at random from those the model read.
// Environment-neutral.
import { seededShuffle } from './mosaic.js';

export const RATIONALE_KS = Array.from({ length: 16 }, (_, i) => 5 * (i + 1));
export const SPECIAL_TOKENS = ['[CLS]', '[SEP]', '[UNK]', '[PAD]'];

// A text's whitespace tokens: [{ start, end }] in UTF-16 code units, ERASER's order.
export function wordSpans(text) {
  const spans = [];
  for (const m of text.matchAll(/\S+/g)) spans.push({ start: /** @type {number} */ (m.index), end: /** @type {number} */ (m.index) + m[0].length });
  return spans;
}

// Which word each token lies in (-1 for the specials and for a token in no word).
// tokens, offsets: the tokenizer's; spans: wordSpans(text).
export function tokenWords(tokens, offsets, spans) {
  const out = new Int32Array(tokens.length).fill(-1);
  let w = 0;
  for (let t = 0; t < tokens.length; t++) {
    const [start, end] = offsets[t];
    if (SPECIAL_TOKENS.includes(tokens[t]) || end <= start) continue;
    while (w < spans.length && spans[w].end <= start) w++;
    if (w < spans.length && spans[w].start <= start) out[t] = w;
  }
  return out;
}

// Word scores over the words the model read: a Float64Array as long as the last word with
// a piece + 1; each the max of its pieces (NaN for a word with none, which never ranks).
export function wordScores(map, owner) {
  let n = 0;
  for (const w of owner) n = Math.max(n, w + 1);
  const scores = new Float64Array(n).fill(Number.NaN);
  owner.forEach((w, t) => {
    if (w >= 0 && !(scores[w] >= map[t])) scores[w] = map[t];
  });
  return scores;
}

// The indices of the `k` best words, best first: scores clamped at 0 (as the pipeline),
// ties to the lower index; words without a score last, never taken.
export function topWords(scores, k) {
  const idx = [];
  for (let i = 0; i < scores.length; i++) if (!Number.isNaN(scores[i])) idx.push(i);
  const v = (i) => Math.max(0, scores[i]);
  idx.sort((a, b) => v(b) - v(a) || a - b);
  return idx.slice(0, k);
}

// The random baseline's words for one review: the words read, shuffled by a seed drawn
// from the review's key and `seed` (FNV-1a), so a shard or a resume draws the same.
export function randomWords(count, k, key, seed = 0) {
  let h = 0x811c9dc5 ^ seed;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193) >>> 0;
  return seededShuffle(Array.from({ length: count }, (_, i) => i), h).slice(0, k);
}

// The human rationale's word indices of one annotation (every evidence span, end exclusive).
export function humanWords(annotation) {
  const set = new Set();
  for (const group of annotation.evidences ?? []) {
    for (const ev of group) for (let t = ev.start_token; t < ev.end_token; t++) set.add(t);
  }
  return [...set].sort((a, b) => a - b);
}

const f1 = (p, r) => (p === 0 || r === 0 ? 0 : (2 * p * r) / (p + r));

// ERASER's token-level score_hard_rationale_predictions over instances [{ truth: [word
// indices], pred: [word indices] }] (one per review; a review with neither counts in no
// mean, as in metrics.py, whose instances are the keys of either). → { micro: { p, r, f1 },
// macro: { p, r, f1 } }
export function tokenF1(all) {
  const instances = all.filter(({ truth, pred }) => truth.length || pred.length);
  let hits = 0;
  let predicted = 0;
  let truthful = 0;
  const per = instances.map(({ truth, pred }) => {
    const t = new Set(truth);
    const p = new Set(pred);
    let tp = 0;
    for (const w of p) if (t.has(w)) tp++;
    hits += tp;
    predicted += p.size;
    truthful += t.size;
    const prec = p.size ? tp / p.size : 0;
    const rec = t.size ? tp / t.size : 0;
    return { p: prec, r: rec, f1: f1(prec, rec) };
  });
  const mean = (key) => (per.length ? per.reduce((s, x) => s + x[key], 0) / per.length : 0);
  const microP = predicted ? hits / predicted : 0;
  const microR = truthful ? hits / truthful : 0;
  return {
    micro: { p: microP, r: microR, f1: f1(microP, microR) },
    macro: { p: mean('p'), r: mean('r'), f1: mean('f1') },
  };
}

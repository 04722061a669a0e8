// @ts-check
// Class probabilities from logits and the k most likely classes. Environment-neutral.

// Numerically stable softmax (subtracts the max); returns a new Float32Array.
export function softmax(logits) {
  let max = -Infinity;
  for (const v of logits) if (v > max) max = v;
  const out = new Float32Array(logits.length);
  let sum = 0;
  for (let i = 0; i < logits.length; i++) {
    const e = Math.exp(logits[i] - max);
    out[i] = e;
    sum += e;
  }
  for (let i = 0; i < out.length; i++) out[i] /= sum;
  return out;
}

// Indices of the k largest values, largest first; ties keep the lower index first.
export function topKIndices(values, k) {
  const n = Math.min(k, values.length);
  const best = []; // kept sorted, at most n long: O(C·k), fine for k ≪ C
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (best.length === n && !(v > values[best[n - 1]])) continue;
    let j = best.length < n ? best.length : n - 1;
    while (j > 0 && v > values[best[j - 1]]) { best[j] = best[j - 1]; j--; }
    best[j] = i;
  }
  return best;
}

// [{ id, label, prob, logit }] for the k most likely classes.
export function topK(logits, k = 5, labels = []) {
  const probs = softmax(logits);
  return topKIndices(logits, k).map((id) => ({
    id,
    label: labels[id] ?? String(id),
    prob: probs[id],
    logit: logits[id],
  }));
}

// Where class `id` stands among all classes: its probability and its rank (1 = most
// likely; ties ranked as topKIndices orders them, the lower index first).
export function classStanding(logits, id) {
  const probs = softmax(logits);
  let rank = 1;
  for (let i = 0; i < logits.length; i++) {
    if (logits[i] > logits[id] || (logits[i] === logits[id] && i < id)) rank++;
  }
  return { id, prob: probs[id], rank, classes: logits.length };
}

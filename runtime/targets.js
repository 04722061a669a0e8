// @ts-check
// Turns what a user types (a class id or a class name) into a class id, and class ids
// into the target rows the explainer graph takes (docs/glossary.md). Names match case-insensitively
// against metadata.labels and the comma-separated synonyms in metadata.label_names
// ("tabby, tabby cat"). Environment-neutral.

function normalise(s) {
  return String(s).trim().toLowerCase().replace(/[\s_]+/g, ' ');
}

// Every name a class answers to, normalised, without duplicates.
export function classNames(metadata, id) {
  const names = [metadata.labels[id]];
  const long = metadata.label_names?.[id];
  if (long) names.push(...long.split(','));
  return [...new Set(names.filter((n) => n !== undefined).map(normalise).filter(Boolean))];
}

function editDistance(a, b) {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

function describe(metadata, id) {
  return `${id} (${metadata.label_names?.[id] ?? metadata.labels[id]})`;
}

// Up to `limit` classes whose names contain the query or are a few edits away from it.
export function closeMatches(metadata, query, limit = 8) {
  const q = normalise(query);
  const scored = [];
  metadata.labels.forEach((_, id) => {
    let best = Infinity;
    for (const n of classNames(metadata, id)) {
      const d = n.includes(q) || q.includes(n) ? 0.5 * Math.abs(n.length - q.length) / Math.max(n.length, 1) : editDistance(q, n);
      if (d < best) best = d;
    }
    if (best <= Math.max(2, q.length / 3)) scored.push([best, id]);
  });
  scored.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return scored.slice(0, limit).map(([, id]) => id);
}

// Class id for `spec` (number, numeric string, WordNet id, or class name). Throws a clear Error for
// out-of-range ids, unknown names (listing close matches) and ambiguous names (listing
// every class the name denotes), calling the class `role` (the option or field it came from).
export function resolveClass(metadata, spec, role = 'class') {
  const C = metadata.labels.length;
  const text = String(spec).trim();
  if (/^[+-]?\d+$/.test(text)) {
    const id = Number(text);
    if (id < 0 || id >= C) throw new Error(`${role} ${text} is out of range: this model has classes 0..${C - 1}`);
    return id;
  }
  // A WordNet id (n02108422), when the metadata lists them.
  if (/^n\d{8}$/i.test(text) && Array.isArray(metadata.wnids)) {
    const id = metadata.wnids.indexOf(text.toLowerCase());
    if (id >= 0) return id;
    throw new Error(`${role} ${text} is not a WordNet id of this model's classes`);
  }
  const q = normalise(text);
  if (!q) throw new Error(`${role} is empty: give a class id, a WordNet id or a class name`);
  const exact = [];
  metadata.labels.forEach((_, id) => { if (classNames(metadata, id).includes(q)) exact.push(id); });
  if (exact.length === 1) return exact[0];
  if (exact.length > 1) {
    throw new Error(`${role} "${text}" is ambiguous: it names classes ${exact.map((id) => describe(metadata, id)).join('; ')}. Give the class id instead.`);
  }
  const near = closeMatches(metadata, text);
  const hint = near.length ? ` Close matches: ${near.map((id) => describe(metadata, id)).join('; ')}.` : '';
  throw new Error(`${role} "${text}" is not a class of this model.${hint}`);
}

// The target rows: a row-major [K, C] Float32Array from class ids (one-hot rows),
// Float32Array(C) weight vectors (any weights: the graph explains row · logits) and null:
// an all-zero row, which the graph reads as "the predicted class" (docs/architecture.md).
// An all-zero weight vector would mean the same, so it is refused.
/** @param {Array<number | null | ArrayLike<number>>} rows @param {number} numClasses */
export function targetRows(rows, numClasses) {
  if (!Array.isArray(rows) || rows.length === 0) throw new Error('explain needs at least one target row');
  const m = new Float32Array(rows.length * numClasses);
  rows.forEach((r, k) => {
    if (r === null) {
      // predicted class: the row stays zero
    } else if (typeof r === 'number') {
      if (!Number.isInteger(r) || r < 0 || r >= numClasses) throw new Error(`target row ${k}: ${r} is not a class id in 0..${numClasses - 1}`);
      m[k * numClasses + r] = 1;
    } else if (ArrayBuffer.isView(r) || Array.isArray(r)) {
      const w = /** @type {ArrayLike<number>} */ (r);
      if (w.length !== numClasses) throw new Error(`target row ${k} has ${w.length} entries, the model has ${numClasses} classes`);
      if (!Array.prototype.some.call(w, (v) => v !== 0)) {
        throw new Error(`target row ${k} is all zeros; pass null to explain the predicted class`);
      }
      m.set(w, k * numClasses);
    } else {
      throw new Error(`target row ${k} must be a class id, a vector of ${numClasses} weights, or null (predicted class)`);
    }
  });
  return m;
}

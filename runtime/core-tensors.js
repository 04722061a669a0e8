// @ts-check
// Moving tensors into the WebAssembly heap for runtime/core.js: one heap buffer (a C++
// Floats) per tensor, filled with a single typed-array .set(). Tensors go by the
// explainer graph's output names (core.tensorIds, from src/methods/registry.h) here, in the
// bindings and in C++.

// The core's tensor id of Self-Attention Attribution's Attr (src/methods/registry.h; runtime/attribution.js
// forms it): not an explainer graph output.
export const ATTRIBUTION_TENSOR = 'attr';

// The tensors whose last dim is the token count S (all but the pixel map).
export const TOKEN_TENSORS = ['attn', 'attn_grad', 'attn_rel', 'attn_rel_classic_last', ATTRIBUTION_TENSOR];

/** @param {string} key @param {any} t */
function checkTensor(key, t) {
  if (!t || typeof t !== 'object') throw new TypeError(`${key}: expected { data, shape }`);
  const { data, shape } = t;
  if (!Array.isArray(shape) || !shape.every((d) => Number.isInteger(d) && d >= 1)) {
    throw new TypeError(`${key}: shape must be an array of positive integers, got ${JSON.stringify(shape)}`);
  }
  if (!ArrayBuffer.isView(data) && !Array.isArray(data)) {
    throw new TypeError(`${key}: data must be a Float32Array`);
  }
  const count = shape.reduce((a, b) => a * b, 1);
  const { length } = /** @type {ArrayLike<number>} */ (data);
  if (length !== count) {
    throw new RangeError(`${key}: data has ${length} values but shape [${shape.join(',')}] needs ${count}`);
  }
}

// Copies one { data, shape } into a new heap Floats; the caller deletes it.
function toHeap(M, key, tensor) {
  checkTensor(key, tensor);
  const floats = new M.Floats(tensor.shape);
  // Fill at once: the view dies when the heap grows (the next allocation may grow it).
  floats.view().set(tensor.data);
  return floats;
}

// Tensors uploaded once and reused by several calls (e.g. the same attention for every
// class). free() releases the heap memory; using it afterwards throws.
export class CoreTensors {
  /** @type {Record<string, any> | null} */
  #heap = {};
  /** @type {Record<string, number[]>} */
  shapes = {};

  // tensorIds: the core's tensor vocabulary; other keys of `tensors` (e.g. logits next to
  // the tensors) are ignored on purpose.
  constructor(M, tensorIds, tensors) {
    try {
      for (const id of tensorIds) {
        const t = tensors?.[id];
        if (t == null) continue;
        this.#heap[id] = toHeap(M, id, t);
        this.shapes[id] = [...t.shape];
      }
    } catch (err) {
      this.free();
      throw err;
    }
  }

  get heap() {
    if (!this.#heap) throw new Error('these tensors were already freed');
    return this.#heap;
  }

  has(id) { return id in this.shapes; }

  // The heap bytes they hold (float32).
  get bytes() {
    return Object.values(this.shapes).reduce((sum, s) => sum + s.reduce((a, b) => a * b, 1) * Float32Array.BYTES_PER_ELEMENT, 0);
  }

  // S, from the first token tensor given (its last dim), or null.
  tokens() {
    for (const id of TOKEN_TENSORS) {
      const s = this.shapes[id];
      if (s) return s[s.length - 1];
    }
    return null;
  }

  free() {
    if (!this.#heap) return;
    for (const f of Object.values(this.#heap)) f.delete();
    this.#heap = null;
  }
}

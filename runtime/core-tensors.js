// Moving tensors into the WebAssembly heap for runtime/core.js: one heap buffer (a C++
// Floats) per tensor, filled with a single typed-array .set(), and the JS-key → C++-field
// naming in one place.

// JS key (runtime/explainer.js, core.computeMaps) → field of the C++ RelevanceInputs
// binding (wasm/options.cpp) and the name the C++ error messages use.
export const TENSOR_KEYS = {
  attn: { field: 'attention', cppName: 'attention' },
  attnGrad: { field: 'attentionGrad', cppName: 'attention_grad' },
  attnRel: { field: 'attentionRel', cppName: 'attention_rel' },
  relClassicLast: { field: 'relClassicLast', cppName: 'rel_classic_last' },
  inputRelClassic: { field: 'inputRelClassic', cppName: 'input_rel_classic' },
  attr: { field: 'attribution', cppName: 'attribution' },
};

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
  if (data.length !== count) {
    throw new RangeError(`${key}: data has ${data.length} values but shape [${shape.join(',')}] needs ${count}`);
  }
}

// Copies one { data, shape } into a new heap Floats; the caller deletes it.
export function toHeap(M, key, tensor) {
  checkTensor(key, tensor);
  const floats = new M.Floats(tensor.shape);
  // Fill at once: the view dies when the heap grows (the next allocation may grow it).
  floats.view().set(tensor.data);
  return floats;
}

// Tensors uploaded once and reused by several calls (e.g. the same attention for every
// class). free() releases the heap memory; using it afterwards throws.
export class CoreTensors {
  constructor(M, tensors) {
    this._heap = {};
    this.shapes = {};
    try {
      for (const [key, { field }] of Object.entries(TENSOR_KEYS)) {
        const t = tensors?.[key];
        if (t == null) continue;
        this._heap[field] = toHeap(M, key, t);
        this.shapes[key] = [...t.shape];
      }
    } catch (err) {
      this.free();
      throw err;
    }
    // Other keys (e.g. logits next to the tensors) are ignored on purpose.
  }

  get heap() {
    if (!this._heap) throw new Error('these tensors were already freed');
    return this._heap;
  }

  has(key) { return key in this.shapes; }

  // S, from the first token tensor given (its last dim), or null.
  tokens() {
    for (const key of ['attn', 'attnGrad', 'attnRel', 'relClassicLast', 'attr']) {
      const s = this.shapes[key];
      if (s) return s[s.length - 1];
    }
    return null;
  }

  free() {
    if (!this._heap) return;
    for (const f of Object.values(this._heap)) f.delete();
    this._heap = null;
  }
}

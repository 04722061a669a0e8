// @ts-check
// A least-recently-used map bounded by bytes: the explainer tensors of the targets explained
// last, over every photo of a model, so that switching back to a class, another method or
// another start layer does not re-run the graph. Bytes, not a count: a class's tensors grow
// with the model (DeiT-tiny's about 17 MB, ViT-B/16's about 70 MB), and a count that suits
// the one holds gigabytes of the other. The newest entry stays even when it alone is over
// the limit (its maps are being drawn). Values own WebAssembly heap memory: { bytes, free() };
// free() runs when they leave the cache.
export class TensorCache {
  /** @param {number} limitBytes */
  constructor(limitBytes) {
    this.limitBytes = limitBytes;
    this.map = new Map();
    this.bytes = 0;
  }

  get(key) {
    const v = this.map.get(key);
    if (v !== undefined) { this.map.delete(key); this.map.set(key, v); }
    return v;
  }

  set(key, value) {
    this.#drop(key);
    this.map.set(key, value);
    this.bytes += value.bytes;
    while (this.bytes > this.limitBytes && this.map.size > 1) this.#drop(this.map.keys().next().value);
  }

  /** Drops every entry whose key passes `test` (e.g. a closed photo's). */
  deleteWhere(test) { for (const key of [...this.map.keys()]) if (test(key)) this.#drop(key); }

  clear() { this.deleteWhere(() => true); }

  #drop(key) {
    const v = this.map.get(key);
    if (v === undefined) return;
    this.map.delete(key);
    this.bytes -= v.bytes;
    v.free?.();
  }
}

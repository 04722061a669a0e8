// @ts-check
// A small least-recently-used map: the explainer tensors of the last few targets, so that
// switching back to a class or changing the start layer does not re-run the graph.
// Values may own WebAssembly heap memory: their free() runs when they leave the cache.
export class TensorCache {
  constructor(limit) {
    this.limit = limit;
    this.map = new Map();
  }

  get(key) {
    const v = this.map.get(key);
    if (v !== undefined) { this.map.delete(key); this.map.set(key, v); }
    return v;
  }

  set(key, value) {
    this.#drop(key);
    this.map.set(key, value);
    while (this.map.size > this.limit) this.#drop(this.map.keys().next().value);
  }

  clear() { for (const key of [...this.map.keys()]) this.#drop(key); }

  #drop(key) {
    this.map.get(key)?.free?.();
    this.map.delete(key);
  }
}

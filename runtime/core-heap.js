// @ts-check
// Copies between JS arrays and the core's heap objects (Embind Floats / Bytes), shared by
// the core.js wrappers: one bulk copy each way, heap objects freed as soon as used.
export function heapHelpers(M) {
  const heapFloats = (values, shape) => {
    const f = new M.Floats(shape ?? [values.length]);
    f.view().set(values);
    return f;
  };
  const heapBytes = (values) => {
    const b = new M.Bytes(values.length);
    b.view().set(values);
    return b;
  };
  // Runs fn with heap copies of the arguments, freeing them afterwards.
  const using = (objects, fn) => {
    try { return fn(...objects); } finally { for (const o of objects) o.delete(); }
  };
  // Copy out, then release the heap object.
  const floatsOut = (f) => { try { return f.view().slice(); } finally { f.delete(); } };
  const bytesOut = (b) => { try { return b.view().slice(); } finally { b.delete(); } };
  const need = (cond, message) => { if (!cond) throw new TypeError(message); };
  return { heapFloats, heapBytes, using, floatsOut, bytesOut, need };
}

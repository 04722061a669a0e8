// One runtime per page: every explainer loaded through the public API (the elements, the
// iframe route, a page's own script) shares one inference Worker, which opens each model
// once (one download, one onnxruntime session per model). Loads of the same model share
// one promise; each caller still hears the download's progress.
import { Engine } from './worker-client.js';
import { REQUEST, REPLY } from './protocol.js';
import { resolveModel, DEFAULT_MODELS } from './model-source.js';

let engine = null;
const models = new Map(); // `${model URL}|${backend}` → { promise, listeners }

export function sharedEngine() {
  engine ??= new Engine(new URL('../worker.js', import.meta.url));
  return engine;
}

// → { modelKey, metadata, methods, backend, threads, split, ... } (the Worker's `ready`).
export function openSharedModel({ model = DEFAULT_MODELS, backend = 'wasm', threads, onProgress } = {}) {
  const key = `${new URL(String(model), globalThis.document?.baseURI ?? globalThis.location?.href).href}|${backend}`;
  let entry = models.get(key);
  if (!entry) {
    const listeners = new Set();
    const promise = (async () => {
      const { base, entry: found } = await resolveModel(model);
      const onEvent = (msg) => { if (msg.type === REPLY.PROGRESS) for (const l of listeners) l(msg.loaded, msg.total); };
      const r = await sharedEngine().request(REQUEST.INIT, { model: found, base, backend, threads }, { onEvent });
      return r.replies.find((m) => m.type === REPLY.READY);
    })();
    entry = { promise, listeners };
    models.set(key, entry);
    promise.catch(() => models.delete(key)); // a later load may retry
  }
  if (onProgress) {
    entry.listeners.add(onProgress);
    entry.promise.finally(() => entry.listeners.delete(onProgress)).catch(() => {});
  }
  return entry.promise;
}

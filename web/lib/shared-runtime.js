// One runtime per page: every explainer loaded through the public API (the elements, the
// iframe route, a page's own script) shares one inference Worker, which opens each model
// once (one download, one onnxruntime session per model). Loads of the same model share
// one promise; each caller still hears the load's progress: the download's bytes and the
// load phases running (web/lib/load-phases.js). `site`: the site's files
// (web/lib/site-files.js) as the API's own script finds them.
import { Engine } from './worker-client.js';
import { REQUEST, REPLY } from './protocol.js';
import { resolveModel } from './model-source.js';

let engine = null;
const models = new Map(); // `${model URL}|${backend}` → { promise, listeners }

export function sharedEngine(site) {
  engine ??= new Engine(site.worker);
  return engine;
}

// → { modelKey, metadata, methods, backend, threads, split, ... } (the Worker's `ready`).
/** @param {{ models: URL }} site @param {{ model?: string | URL, backend?: string, threads?: number, onProgress?: Function }} [options] */
export function openSharedModel(site, { model = site.models.href, backend = 'wasm', threads, onProgress } = {}) {
  const key = `${new URL(String(model), globalThis.document?.baseURI ?? globalThis.location?.href).href}|${backend}`;
  let entry = models.get(key);
  if (!entry) {
    const listeners = new Set();
    const promise = (async () => {
      const { base, entry: found } = await resolveModel(model);
      let [loaded, total, phases] = [0, 0, Object.freeze([])];
      const onEvent = (msg) => {
        if (msg.type === REPLY.PROGRESS) ({ loaded, total } = msg);
        else if (msg.type === REPLY.PHASE) phases = Object.freeze([...msg.phases]);
        else return;
        for (const l of listeners) l(loaded, total, phases);
      };
      const r = await sharedEngine(site).request(REQUEST.INIT, { model: found, base, backend, threads }, { onEvent });
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

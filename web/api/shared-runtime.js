// One runtime per page: every explainer loaded through the public API (the elements, the
// iframe route, the page, a page's own script) shares one inference Worker, which opens
// each model once (one download, one onnxruntime session per model). Loads of the same
// model share one promise; each caller still hears the load's progress (a ProgressInfo
// of status 'progress': runtime/explain-types.js): the download's bytes and the load
// phases running (web/lib/load-phases.js). The runtime counts its
// holders (loads under way and explainers open): when a close() or an aborted load leaves
// none, the Worker is terminated, which frees its sessions and stops its work, and the
// next load starts a fresh one; but a load that follows the last close() in the same task
// (the page's model switch) keeps it: its models are unloaded at once and the next opens
// without compiling onnxruntime again, on code the last one warmed (a text model chosen on
// a returning visit: docs/experiments.md, "A text model chosen in the page"). `site`: the site's
// files (web/lib/site-files.js) as the API's own script finds them.
import { WorkerClient } from './worker-client.js';
import { REQUEST, REPLY } from '../lib/protocol.js';
import { resolveModel } from './model-source.js';

/** @type {WorkerClient | null} */
let client = null;
/** The last close()'s Worker, its models unloaded, kept through that task for a load to take. @type {WorkerClient | null} */
let parked = null;
let large = false; // whether the Worker has opened a large model (the ready reply's `large`)
let holders = 0;
const models = new Map(); // `${model}|${backend}` → { promise, listeners }
const noticeListeners = new Set();

// `worker`: one already started from site.worker (index.html's web/start-worker.js),
// taken over where the runtime has none yet; else a load (`load`) takes the parked one, or
// one starts, named after the backend so that it compiles onnxruntime for it at once
// (web/worker.js).
/** @param {{ worker: URL }} site @param {{ worker?: Worker, backend?: string, load?: boolean }} [options] @returns {WorkerClient} */
export function sharedClient(site, { worker, backend = 'wasm', load = false } = {}) {
  if (!client && load) [client, parked] = [parked, null];
  if (!client) {
    large = false;
    client = new WorkerClient(site.worker, { worker, name: `vit-relevance:${backend}` });
    client.onNotice = (msg) => { for (const l of noticeListeners) l(msg); };
  } else if (worker && client.worker !== worker) {
    worker.terminate(); // the runtime has its Worker: a second would only compete
  }
  return client;
}

// Replies that belong to no request (web/lib/protocol.js NOTICE); → a function that stops.
export function listenToNotices(listener) {
  noticeListeners.add(listener);
  return () => noticeListeners.delete(listener);
}

export function hold() {
  holders++;
  let held = true;
  // terminate: whether to end the Worker when this was its last holder (a close(), an
  // abort), not for a load that failed, so that a page's other loads keep theirs. Its
  // models are unloaded now, and the Worker ended after this task unless a load took it
  // meanwhile; at once for an abort (`now`: only ending it stops a download) or after a
  // large model (only ending it gives the memory back: a WebAssembly heap never shrinks).
  return (terminate = true, now = false) => {
    if (!held) return;
    held = false;
    if (--holders > 0 || !terminate || !client) return;
    const last = client;
    client = null;
    models.clear();
    if (now || large) return last.terminate();
    last.request(REQUEST.UNLOAD).catch(() => {});
    parked = last;
    queueMicrotask(() => {
      if (parked !== last) return;
      parked = null;
      last.terminate();
    });
  };
}

const keyOf = (model, backend) => {
  const where = typeof model === 'object' && !(model instanceof URL)
    ? `${model.base}|${JSON.stringify(model.entry)}`
    : new URL(String(model), globalThis.document?.baseURI ?? globalThis.location?.href).href;
  return `${where}|${backend}`;
};

// → { modelKey, metadata, methods, backend, threads, split, ... } (the Worker's `ready`).
// model: a URL (web/api/model-source.js), or { base, entry } (a models/index.json entry
// and its folder's absolute URL). prepare, verify: web/lib/protocol.js REQUEST.INIT.
/**
 * @param {{ models: URL, worker: URL }} site
 * @param {{ model?: string | URL | { base: string, entry: object }, backend?: string, threads?: number, prepare?: boolean,
 *   verify?: boolean, worker?: Worker, onProgress?: (info: { status: 'progress', loaded: number, total: number, phases: readonly any[] }) => void }} [options]
 */
export function openSharedModel(site, { model = site.models.href, backend = 'wasm', threads, prepare = false, verify = false, worker, onProgress } = {}) {
  const key = keyOf(model, backend);
  let entry = models.get(key);
  if (!entry) {
    const listeners = new Set();
    const runtime = sharedClient(site, { worker, backend, load: true });
    const promise = (async () => {
      const { base, entry: found } = typeof model === 'object' && !(model instanceof URL) ? model : await resolveModel(model);
      let [loaded, total, phases] = [0, 0, Object.freeze([])];
      const onEvent = (msg) => {
        if (msg.type === REPLY.PROGRESS) ({ loaded, total } = msg);
        else if (msg.type === REPLY.PHASE) phases = Object.freeze([...msg.phases]);
        else return;
        const info = { status: /** @type {const} */ ('progress'), loaded, total, phases };
        for (const l of listeners) l(info);
      };
      const r = await runtime.request(REQUEST.INIT, { model: found, base, backend, threads, prepare, verify }, { onEvent });
      if (r.stale) throw new DOMException('the Worker was ended while the model loaded', 'AbortError');
      const ready = r.replies.find((m) => m.type === REPLY.READY);
      large ||= ready.large;
      return ready;
    })();
    entry = { promise, listeners };
    models.set(key, entry);
    promise.catch(() => { if (models.get(key) === entry) models.delete(key); }); // a later load may retry
  } else if (worker) {
    sharedClient(site, { worker });
  }
  if (onProgress) {
    entry.listeners.add(onProgress);
    entry.promise.finally(() => entry.listeners.delete(onProgress)).catch(() => {});
  }
  return entry.promise;
}

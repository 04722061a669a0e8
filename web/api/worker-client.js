// @ts-check
// Talks to web/worker.js (messages: web/lib/protocol.js): numbered requests, replies
// routed back by id. A request made with { supersede: true } makes every older superseding
// request stale: the Worker skips it if still queued, and its late replies are dropped
// here. A request's AbortSignal cancels it: it resolves as stale at once and the Worker
// skips it if it has not started.
import { REQUEST, REPLY, isFinal } from '../lib/protocol.js';

/**
 * @import { Notice, Reply, RequestBody } from '../lib/protocol.js'
 * @typedef {{ stale: true } | { stale: false, replies: Reply[] }} Answer  a request's replies but the last
 *   (done), or stale
 * @typedef {{ resolve: (a: Answer) => void, reject: (e: Error) => void, onEvent?: (msg: Reply) => void, supersede: boolean,
 *   replies: Reply[] }} Pending
 */

export class WorkerClient {
  // name: the Worker's name; 'vit-relevance:<backend>' starts onnxruntime for that backend
  // at once (web/worker.js), before the first init. worker: one already started from `url`
  // (web/start-worker.js), taken over instead of starting another.
  /** @param {URL | string} url @param {{ name?: string, worker?: Worker }} [options] */
  constructor(url, { name, worker } = {}) {
    this.worker = worker ?? new Worker(url, { type: 'module', name });
    this.nextId = 1;
    this.latest = 0;
    /** @type {Map<number, Pending>} */
    this.pending = new Map();
    /** @type {((msg: Notice) => void) | null} replies that outlive their request (e.g. photo-cached) */
    this.onNotice = null;
    this.worker.onmessage = ({ data }) => this.#route(data);
    this.worker.onerror = (e) => {
      e.preventDefault?.();
      this.#failAll(new Error(`the inference worker failed: ${e.message || 'could not start (see the console)'}`));
    };
  }

  // Resolves with the reply list ({ stale: true } if superseded or aborted); rejects on an
  // error reply. `onEvent` sees every intermediate reply (progress, prediction, maps).
  /**
   * @template {RequestBody['type']} T
   * @param {T} type
   * @param {Omit<Extract<RequestBody, { type: T }>, 'type'>} [body]
   * @param {{ supersede?: boolean, transfer?: Transferable[], onEvent?: (msg: Reply) => void, signal?: AbortSignal }} [options]
   * @returns {Promise<Answer>}
   */
  request(type, body = /** @type {any} */ ({}), { supersede = false, transfer = [], onEvent, signal } = {}) {
    if (signal?.aborted) return Promise.resolve({ stale: true });
    const id = this.nextId++;
    if (supersede) this.latest = id;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        if (!this.pending.delete(id)) return;
        this.worker.postMessage({ type: REQUEST.CANCEL, id: this.nextId++, ids: [id] });
        resolve({ stale: true });
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      /** @type {<V>(fn: (v: V) => void) => (v: V) => void} */
      const settle = (fn) => (v) => { signal?.removeEventListener('abort', onAbort); fn(v); };
      this.pending.set(id, { resolve: settle(resolve), reject: settle(reject), onEvent, supersede, replies: [] });
      this.worker.postMessage({ ...body, type, id, supersede }, transfer);
    });
  }

  /** @param {number} id */
  isCurrent(id) { return id >= this.latest; }

  /** @param {Reply | Notice} data */
  #route(data) {
    if (data.id === 0) {
      this.onNotice?.(/** @type {Notice} */ (data));
      return;
    }
    const msg = /** @type {Reply} */ (data);
    const p = this.pending.get(msg.id);
    if (!p) return;
    const stale = p.supersede && !this.isCurrent(msg.id);
    if (isFinal(msg.type)) {
      this.pending.delete(msg.id);
      if (msg.type === REPLY.ERROR && !stale) p.reject(new Error(msg.message));
      else p.resolve(stale || msg.type === REPLY.STALE ? { stale: true } : { stale: false, replies: p.replies });
      return;
    }
    if (stale) return; // a newer request owns the screen
    p.replies.push(msg);
    p.onEvent?.(msg);
  }

  /** @param {Error} err */
  #failAll(err) {
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  // Pending requests end as stale: whoever replaced the Worker owns the screen now.
  terminate() {
    this.worker.terminate();
    for (const p of this.pending.values()) p.resolve({ stale: true });
    this.pending.clear();
  }
}

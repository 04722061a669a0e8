// Talks to web/worker.js: numbered requests, replies routed back by id. A request made
// with { supersede: true } makes every older superseding request stale: the Worker skips
// it if still queued, and its late replies are dropped here.
export class Engine {
  constructor(url) {
    this.worker = new Worker(url, { type: 'module' });
    this.nextId = 1;
    this.latest = 0;
    this.pending = new Map();
    this.onNotice = null; // replies that outlive their request (e.g. photo-cached)
    this.worker.onmessage = ({ data }) => this.#route(data);
    this.worker.onerror = (e) => {
      e.preventDefault?.();
      this.#failAll(new Error(`the inference worker failed: ${e.message || 'could not start (see the console)'}`));
    };
  }

  // Resolves with the reply list ({ stale: true } if superseded); rejects on an error
  // reply. `onEvent` sees every intermediate reply (progress, prediction, maps).
  request(type, body = {}, { supersede = false, transfer = [], onEvent } = {}) {
    const id = this.nextId++;
    if (supersede) this.latest = id;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onEvent, supersede, replies: [] });
      this.worker.postMessage({ ...body, type, id, supersede }, transfer);
    });
  }

  isCurrent(id) { return id >= this.latest; }

  #route(msg) {
    const p = this.pending.get(msg.id);
    if (!p) {
      this.onNotice?.(msg);
      return;
    }
    const stale = p.supersede && !this.isCurrent(msg.id);
    if (msg.type === 'done' || msg.type === 'stale' || msg.type === 'error') {
      this.pending.delete(msg.id);
      if (msg.type === 'error' && !stale) p.reject(new Error(msg.message));
      else p.resolve(stale || msg.type === 'stale' ? { stale: true } : { replies: p.replies });
      return;
    }
    if (stale) return; // a newer request owns the screen
    p.replies.push(msg);
    p.onEvent?.(msg);
  }

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

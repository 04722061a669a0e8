// @ts-check
// The inference Worker, shared by the page and every <vit-relevance> element of a page:
// downloads and opens each explainer graph once (onnxruntime-web), preprocesses photos
// and turns the graph's tensors into relevance maps (the C++ core in WebAssembly), all
// through runtime/photo-cache.js (a text model's texts: runtime/text-cache.js). This
// script is one switch over the messages of web/lib/protocol.js; each job lives in
// web/worker/: the queue (queue.js), the models and their sessions (sessions.js; text
// models: text-model.js), the photos (photos.js), the texts (texts.js), the Attribution
// panel's requests (attribution.js), the counters (stats.js) and unloading every model
// (unload.js).
//
// A Worker gets no import map (Chromium applies a page's import map to the page alone), so
// this script and every module it loads import the runtime by its path in the repository,
// not by package name as the page's modules do; dist/site bundles them all into worker.js.
import { REQUEST, REPLY } from './lib/protocol.js';
import { siteFiles } from './lib/site-files.js';
import { cancel, queued } from './worker/queue.js';
import { init, warmUp } from './worker/sessions.js';
import { analyze, explain, release } from './worker/photos.js';
import { analyzeText } from './worker/texts.js';
import { attributionRequests } from './worker/attribution.js';
import { stats, benchForward } from './worker/stats.js';
import { unload } from './worker/unload.js';

const SITE = siteFiles(import.meta.url);
const attribution = attributionRequests(() => import('./attribution-job.js'));

// The page names its Worker after the backend it opens first (web/start-worker.js,
// web/page/model.js): onnxruntime and the core compile while the page still reads its
// list of models, before init.
const warmBackend = /^vit-relevance:(wasm|webgpu)$/.exec(self.name)?.[1];
if (warmBackend) warmUp(SITE, warmBackend);

// Every request but a cancel queues (web/worker/queue.js); a handler's result, if any, is
// its last reply before `done`. The switch covers every request type of the protocol
// (tsc: `unhandled` is `never` only when it does).
/** @param {MessageEvent<import('./lib/protocol.js').Request>} event */
self.onmessage = ({ data: msg }) => {
  /** @type {import('./lib/protocol.js').ReplyFn} */
  const reply = (body, transfer = []) => self.postMessage({ id: msg.id, ...body }, { transfer });
  switch (msg.type) {
    case REQUEST.CANCEL:
      cancel(msg.ids);
      return reply({ type: REPLY.DONE });
    case REQUEST.INIT: return queued(msg, reply, () => init(msg, reply, SITE));
    case REQUEST.ANALYZE: return queued(msg, reply, () => analyze(msg, reply));
    case REQUEST.ANALYZE_TEXT: return queued(msg, reply, () => analyzeText(msg, reply));
    case REQUEST.EXPLAIN: return queued(msg, reply, () => explain(msg, reply));
    case REQUEST.RELEASE: return queued(msg, reply, () => release(msg));
    case REQUEST.UNLOAD: return queued(msg, reply, () => unload(attribution));
    case REQUEST.STATS: return queued(msg, reply, () => stats(attribution));
    case REQUEST.BENCH: return queued(msg, reply, () => benchForward(msg));
    case REQUEST.ATTRIBUTE: return queued(msg, reply, () => attribution.attribute(msg, reply));
    default: {
      /** @type {never} */
      const unhandled = msg;
      const { type } = /** @type {{ type: string }} */ (unhandled);
      return queued(unhandled, reply, () => { throw new Error(`unknown request type "${type}"`); });
    }
  }
};

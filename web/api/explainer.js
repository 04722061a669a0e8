// @ts-check
// loadExplainer and runtimeStats (typed in web/vit-relevance.js): an explainer is a model
// open in the page's shared inference Worker (web/api/shared-runtime.js); its photos
// (./photo.js) keep their tensors there between explanations.
import { sharedClient, openSharedModel, hold, listenToNotices } from './shared-runtime.js';
import { REQUEST, REPLY, NOTICE, replyOf } from '../lib/protocol.js';
import { resolveClass } from 'vit-relevance/runtime/targets.js';
import { openPhoto, photoOfImageId, abortError, nextImageId } from './photo.js';
import { kindMismatch, modelKind } from 'vit-relevance/runtime/model-kind.js';
import { isTextInput } from 'vit-relevance/runtime/text-input.js';
export { decodePhoto } from './photo.js';

const BACKEND_NAMES = { wasm: 'WebAssembly', webgpu: 'WebGPU' };

// Why the backend that runs is not the one asked for, or null when it is: the Worker's
// reason when it could not open WebGPU, or the model already open on the other backend
// (a page's elements share one session per model).
function backendNote(asked, ready) {
  if (asked === ready.backend) return null;
  return ready.backendNote ?? `${BACKEND_NAMES[asked] ?? asked} was asked for, but this page already runs the model on `
    + `${BACKEND_NAMES[ready.backend]}, which every explainer of the page shares`;
}

const untilAborted = (signal) => new Promise((_, reject) => {
  if (signal.aborted) reject(abortError());
  signal.addEventListener('abort', () => reject(abortError()), { once: true });
});

// A Worker's notice (web/lib/protocol.js) as the API tells it, a ProgressInfo: its photo
// id → the Photo; null for a photo this page no longer holds.
/** @param {import('../lib/protocol.js').Notice} msg @returns {import('../vit-relevance.js').BrowserProgressInfo | null} */
function progressOfNotice(msg) {
  if (msg.type === NOTICE.EXPLAINER_READY) return { status: msg.type, ms: msg.ms };
  if (msg.type === NOTICE.SESSIONS_READY) return { status: msg.type };
  const photo = photoOfImageId(msg.imageId);
  if (!photo) return null;
  if (msg.type === NOTICE.PHOTO_CACHED) return { status: msg.type, photo, modelMs: msg.timings.modelMs };
  return { status: msg.type, photo, message: msg.message };
}

/**
 * @param {ReturnType<typeof import('../lib/site-files.js').siteFiles>} site
 * @param {import('../vit-relevance.js').BrowserLoadOptions} [options]
 * @returns {Promise<import('../vit-relevance.js').Explainer>}
 */
export async function loadExplainer(site, options = {}) {
  const { model, backend = 'wasm', threads, prepare = false, verify = false, worker, signal } = options;
  const { onProgress } = options;
  if (signal?.aborted) throw abortError();
  const release = hold();
  // A load aborted while under way ends the Worker's work where nothing else holds it.
  const onAbort = () => release(true, true);
  signal?.addEventListener('abort', onAbort, { once: true });
  let ready;
  try {
    const opening = openSharedModel(site, { model, backend, threads, prepare, verify, worker, onProgress });
    ready = await (signal ? Promise.race([opening, untilAborted(signal)]) : opening);
  } catch (err) {
    release(false);
    throw err;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  const client = sharedClient(site);
  const stopNotices = onProgress ? listenToNotices((msg) => { const info = progressOfNotice(msg); if (info) onProgress(info); }) : () => {};
  const photos = []; // opened and not yet closed
  const { metadata } = ready;
  // The core's method registry: { id, name, shortName, description, paper, ... }.
  const registry = new Map(ready.methods.map((m) => [m.id, m]));
  const method = (id) => {
    if (!registry.has(id)) throw new Error(`unknown method "${id}"; known: ${[...registry.keys()].join(', ')}`);
    return registry.get(id);
  };
  const opened = { ...ready, prepare, methods: [...registry.keys()], method, backendNote: backendNote(backend, ready) };
  const open = async (image, options = {}) => {
    const photo = await openInput(client, opened, image, options);
    photos.push(photo);
    return photo;
  };
  return {
    kind: modelKind(metadata),
    metadata,
    methods: opened.methods,
    method,
    backend: ready.backend, // the one that runs: 'wasm' where 'webgpu' cannot (backendNote says why)
    backendNote: opened.backendNote,
    threads: ready.threads,
    load: { fromCache: ready.fromCache, split: Boolean(ready.split), isolated: ready.isolated, phaseMs: ready.phaseMs, compileMs: ready.compileMs },
    // A class id from an id, WordNet id or name (throws naming close matches).
    classId: (spec) => resolveClass(metadata, spec),
    label: (id) => metadata.labels[id],
    // Decodes a photo (a text model: reads a text) once for several explanations; close() it
    // when done. Typed by the Explainer's overloads (a photo, or a text).
    open: /** @type {any} */ (open),
    explain: /** @type {any} */ (async (image, options = {}) => {
      const photo = await open(image, options);
      try {
        return await photo.explain(options);
      } finally {
        photo.close();
        photos.splice(photos.indexOf(photo), 1);
      }
    }),
    // Frees its photos; the last explainer of the page to close ends the Worker's work and
    // frees its sessions (web/api/shared-runtime.js).
    close() {
      for (const p of photos.splice(0)) p.close();
      stopNotices();
      release();
    },
  };
}

// The kind of the model decides: a text model reads a string or { text }, an image model
// a photo (a string is its URL); the other kind is refused in one line. A text's code
// (web/api-text.js, its own script) loads on demand: a page of photos never downloads it.
function openInput(client, model, input, options) {
  const text = isTextInput(input) ? input.text : modelKind(model.metadata) === 'text' && typeof input === 'string' ? input : null;
  const wrong = kindMismatch(model.metadata, text === null ? 'image' : 'text');
  if (wrong) return Promise.reject(new Error(wrong));
  return text === null ? openPhoto(client, model, input, options) : import('../api-text.js').then(({ KeptText }) => new KeptText(client, model, text, nextImageId));
}

/**
 * @param {{ worker: URL }} site
 * @returns {Promise<{ sessions: number, graphRuns: number, photos: number, workerId: string, attribution: { blocks: number, states: number },
 *   openGraphs: string[] }>}
 */
export async function runtimeStats(site) {
  const answer = await sharedClient(site).request(REQUEST.STATS);
  if (answer.stale === true) throw new Error('the Worker was ended before it answered');
  const { sessions, graphRuns, photos, workerId, attribution, openGraphs } = replyOf(answer.replies, REPLY.STATS);
  return { sessions, graphRuns, photos, workerId, attribution, openGraphs };
}

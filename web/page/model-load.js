// The model step of the controller (web/page/controller.js): loads the explainer (the
// public API, web/vit-relevance.js) and watches its load; what it sets in the state is
// shown by the features (the load bar: web/page/model.js; the status line: status.js).
import { loadExplainer } from '../vit-relevance.js';
import { PHASE_WORDS } from '../lib/load-phases.js';
import { watchLoad } from './lib/load-watch.js';
import { ATTATTR } from './lib/attribution-panel.js';
import { page, state, link, timeline, showError, addNotices } from './state.js';
import { analyze, analyzeText, closeOpened, takeLink } from './analysis.js';

// The load under way: a newer choice aborts it.
let loading = null;
// Whether a load has taken over index.html's early Worker (window.__vitrelWorker).
let earlyWorkerTaken = false;

// A load that reports nothing for this long has stopped: the Worker reports while it reads
// and as each phase starts and ends, and a ViT-B/16's whole load takes 5 s here (the
// README's scale bench), its longest phase a fraction of that.
const LOAD_SILENCE_MS = 120_000;

// The page's words for a load that stopped, naming what it waited for.
function silentLoad(model, phases) {
  const silence = `${LOAD_SILENCE_MS / 1000} s`;
  const waited = phases.length ? `said nothing for ${silence} while ${phases.map((p) => PHASE_WORDS[p]).join(', ')}` : `did not answer in ${silence}`;
  page.set({ status: `${model.name}: stopped` });
  showError(`The model ${model.name} stopped loading: the inference Worker ${waited}. Reload the page to try again.`);
}

// The load phases in the status line; the download's numbers for its bar.
function showLoad(model, loaded, total, phases) {
  if (phases !== state.load?.phases) page.set({ status: `${model.name}: ${phases.map((p) => PHASE_WORDS[p]).join(', ')}…` });
  page.set({ load: { loaded, total: total || model.bytes || 0, phases } });
}

// `base`: the absolute URL of the model's folder (the site's models/, or a kept model's own).
// verify: every graph opened and checked before ready (a folder the visitor brought).
// coreLoading: the page's core, loading meanwhile.
// → { ready: true }, { error } (shown) or { aborted: true } (another model was chosen).
export async function openModel(model, base, { verify = false } = {}, coreLoading = null) {
  document.body.dataset.modelReady = 'false';
  // The old explainer's opened photos and work end with it (its Worker, the page's only
  // holder, is terminated), as does a load still under way.
  loading?.abort();
  const aborter = new AbortController();
  loading = aborter;
  closeOpened();
  state.explainer?.close();
  // A text model turns the photo area into a text box at once, while it loads.
  const kind = model.kind === 'text' ? 'text' : 'image';
  page.set({ model, modelBase: base, kind, classChosen: false, metadata: null, explainer: null, load: null, status: `Loading ${model.name}…` });
  // index.html's start-worker.js started the first Worker before this script loaded,
  // compiling onnxruntime meanwhile: the first load takes it over.
  const worker = earlyWorkerTaken ? undefined : window.__vitrelWorker ?? undefined;
  earlyWorkerTaken = true;
  let ready;
  const watch = watchLoad({ silenceMs: LOAD_SILENCE_MS, onSilent: (phases) => silentLoad(model, phases) });
  try {
    ready = await loadExplainer({
      // A text model's plain forward graph (the benchmark's) is not downloaded: only the explainer's.
      model: { base, entry: model }, backend: state.backend, prepare: kind !== 'text', verify, worker, signal: aborter.signal,
      onProgress: (info) => hear(model, watch, info),
    });
  } catch (err) {
    if (aborter.signal.aborted) return { aborted: true }; // another model was chosen meanwhile
    page.set({ status: `${model.name}: not loaded`, load: null, modelError: `The model ${model.name} could not be loaded: ${err.message}` });
    showError(state.modelError);
    return { error: err };
  } finally {
    watch.stop();
  }
  loading = null;
  timeline.modelReady = { at: performance.now(), ...ready.load };
  const methods = [...ready.methods];
  const methodInfo = new Map(ready.methods.map((m) => [m, ready.method(m)])); // the core's registry
  await coreLoading;
  if (model.attribution && state.core && kind !== 'text') { // attattr: from the Attribution panel's run (web/page/lib/attribution-panel.js)
    methods.push(ATTATTR);
    methodInfo.set(ATTATTR, state.core.method(ATTATTR));
  }
  // The backend that runs, and why it is not the one chosen where WebGPU could not open.
  const backend = `${ready.backend === 'webgpu' ? 'WebGPU' : 'WebAssembly'}${ready.backendNote ? ` (${ready.backendNote})` : ''}`;
  const threads = `${ready.threads} thread${ready.threads === 1 ? '' : 's'}`;
  page.set({
    explainer: ready, load: null, modelError: null, error: null, metadata: ready.metadata, methods, methodInfo,
    status: `${model.name} · ${backend} · ${threads}${ready.load.fromCache ? ' · cached' : ''}`,
    statusTitle: ready.load.isolated ? 'Cross-origin isolated: WebAssembly threads enabled'
      : 'Not cross-origin isolated (no COOP/COEP headers): one thread',
  });
  if (!methods.includes(state.method)) page.set({ method: methods[0] });
  takeLink('model', { methods, blocks: ready.metadata.architecture.blocks });
  addNotices();
  // The photo's maps were another model's (or backend's): it is explained again.
  state.maps.clear();
  page.touch('maps');
  document.body.dataset.model = model.name; // what the tests and the bench wait on
  document.body.dataset.classes = String(ready.metadata.labels.length);
  document.body.dataset.modelReady = 'true';
  // The link's text (only "Copy link with this text" writes one) opens with a text model.
  const linkedText = kind === 'text' ? link.checked('text') : undefined;
  link.forget('text');
  if (linkedText !== undefined) page.set({ text: linkedText });
  if (kind === 'text') analyzeText(state.text);
  else if (state.photo) analyze(state.photo);
  return { ready: true };
}

// The Worker's background work (for the benchmark): its explainer graph's session open,
// and then all; a photo's target-independent tensors kept (split graphs): a class switch
// runs the target graph alone.
// One ProgressInfo of the load or of the Worker's background work (runtime/explain-types.js).
function hear(model, watch, info) {
  if (info.status === 'progress') {
    watch.heard(info.phases);
    return showLoad(model, info.loaded, info.total, info.phases);
  }
  if (info.status === 'sessions-ready') timeline.sessionsReady = performance.now();
  if (info.status === 'explainer-ready') timeline.explainerReady = { at: performance.now(), ms: info.ms };
  if (!('photo' in info) || info.photo !== state.opened) return;
  if (info.status === 'photo-cached') timeline.photoCached = { at: performance.now(), modelMs: info.modelMs };
  else if (info.status === 'photo-cache-failed') console.warn(`class switches use the single graph: ${info.message}`);
}

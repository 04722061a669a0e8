// The model: loads the explainer (the public API, web/vit-relevance.js) and the core, fills
// the backend picker, opens the model the picker chooses (web/page/model-picker.js) and
// shows its load.
import { loadExplainer } from '../vit-relevance.js';
import { loadCore } from 'vit-relevance/runtime/core.js';
import { PHASE_WORDS } from '../lib/load-phases.js';
import { watchLoad } from '../lib/load-watch.js';
import { webGpuOffer } from '../lib/webgpu-adapter.js';
import { ATTATTR } from '../lib/attribution-panel.js';
import { $, state, link, timeline } from './state.js';
import { showError, clearError, setStatus } from './status.js';
import { analyze, attribution, closeSession } from './analysis.js';
import { setClassMetadata, showClasses } from './classes.js';
import { fillMethods, showSettings, viewNames } from './settings.js';
import { drawLegend, drawViews } from './views.js';
import { forgetHeat } from './tiles.js';
import { showLinkNotices } from './link.js';
import { compare, showPhotoSettings } from './photo-input.js';
import { createModelPicker } from './model-picker.js';

// The open model's explainer, and the core (it draws maps and the legend here).
export let explainer = null;
export let core = null;
// The core loads while the Worker opens the model.
let coreLoading = null;
// The load under way: a newer choice aborts it.
let loading = null;
// Whether a load has taken over index.html's early Worker (window.__vitrelWorker).
let earlyWorkerTaken = false;
// The site's files (web/lib/site-files.js), as app.js finds them: boot(site).
let site = null;

export async function boot(siteFiles) {
  site = siteFiles;
  coreLoading = loadCore({ moduleUrl: site.core }).then((c) => {
    core = c;
    drawLegend();
  }, (err) => showError(`The WebAssembly core could not load: ${err.message}`));
  offerWebGpu(); // never the default: WebAssembly stays selected
  const options = (id) => [...$(id).querySelectorAll('option')].map((o) => o.value);
  const radios = (name) => [...document.querySelectorAll(`input[name="${name}"]`)].map((r) => r.value);
  link.take('start', {
    backends: options('backend-select'), views: viewNames(), colormaps: options('colormap'),
    thresholds: options('threshold'), displays: radios('display'), frames: radios('frame'), crops: radios('crop'),
    scales: options('scale'),
  }, state);
  showControls();
  picker = createPicker(); // the site's models are found from app.js's place: boot(site)
  await picker.load(); // opens the linked model, else the first
  showLinkNotices();
}

// The controls show the state (after a link has set it).
function showControls() {
  $('backend-select').value = state.backend;
  showPhotoSettings();
  showClasses();
  showSettings();
}

// The WebGPU option, labelled (and explained in its tooltip) when the adapter is software.
async function offerWebGpu() {
  const offer = await webGpuOffer();
  if (!offer) return;
  const option = new Option(offer.label, 'webgpu');
  option.dataset.software = String(offer.software);
  if (offer.reason) option.title = offer.reason;
  $('backend-select').append(option);
}

// A load that reports nothing for this long has stopped: the Worker reports while it reads
// and as each phase starts and ends, and a ViT-B/16's whole load takes 5 s here (the
// README's scale bench), its longest phase a fraction of that.
const LOAD_SILENCE_MS = 120_000;

// The page's words for a load that stopped, naming what it waited for.
function silentLoad(model, phases) {
  const silence = `${LOAD_SILENCE_MS / 1000} s`;
  const waited = phases.length ? `said nothing for ${silence} while ${phases.map((p) => PHASE_WORDS[p]).join(', ')}` : `did not answer in ${silence}`;
  setStatus(`${model.name}: stopped`);
  showError(`The model ${model.name} stopped loading: the inference Worker ${waited}. Reload the page to try again.`);
}

// The download's bar, shown only while bytes come from the network, and the load phases.
function showLoad(model, loaded, bytes, phases) {
  if (phases !== showLoad.phases) {
    showLoad.phases = phases;
    setStatus(`${model.name}: ${phases.map((p) => PHASE_WORDS[p]).join(', ')}…`);
  }
  const total = bytes || model.bytes || 0;
  if (!loaded) return;
  if (loaded < total) $('load-progress').hidden = false; // a real download, not the cache
  $('load-bar').value = total ? loaded / total : 0;
  $('load-text').textContent = `${(loaded / 1048576).toFixed(1)}${total ? ` / ${(total / 1048576).toFixed(1)}` : ''} MB`;
}

// `base`: the absolute URL of the model's folder (the site's models/, or a kept model's own).
// verify: every graph opened and checked before ready (a folder the visitor brought).
// → { ready: true }, { error } (shown) or { aborted: true } (another model was chosen).
async function openModel(model, base, { verify = false } = {}) {
  state.model = model;
  state.modelBase = base;
  $('backend-select').disabled = false;
  state.metadata = null;
  document.body.dataset.modelReady = 'false';
  // The old explainer's photo sessions and work end with it (its Worker, the page's only
  // holder, is terminated), as does a load still under way.
  loading?.abort();
  const aborter = new AbortController();
  loading = aborter;
  closeSession();
  compare.reset();
  explainer?.close();
  explainer = null;
  setStatus(`Loading ${model.name}…`);
  $('load-progress').hidden = true;
  $('load-bar').value = 0;
  // index.html's start-worker.js started the first Worker before this script loaded,
  // compiling onnxruntime meanwhile: the first load takes it over.
  const worker = earlyWorkerTaken ? undefined : window.__vitrelWorker ?? undefined;
  earlyWorkerTaken = true;
  let ready;
  const watch = watchLoad({ silenceMs: LOAD_SILENCE_MS, onSilent: (phases) => silentLoad(model, phases) });
  try {
    ready = await loadExplainer({
      model: { base, entry: model }, backend: state.backend, prepare: true, verify, worker, signal: aborter.signal,
      onProgress: (loaded, total, phases) => { watch.heard(phases); showLoad(model, loaded, total, phases); }, onNotice,
    });
  } catch (err) {
    if (aborter.signal.aborted) return { aborted: true }; // another model was chosen meanwhile
    setStatus(`${model.name}: not loaded`);
    $('load-progress').hidden = true;
    state.modelError = `The model ${model.name} could not be loaded: ${err.message}`;
    showError(state.modelError);
    return { error: err };
  } finally {
    watch.stop();
  }
  loading = null;
  explainer = ready;
  $('load-progress').hidden = true;
  state.modelError = null;
  clearError();
  state.metadata = ready.metadata;
  timeline.modelReady = { at: performance.now(), ...ready.load };
  state.methods = [...ready.methods];
  state.methodInfo = new Map(ready.methods.map((m) => [m, ready.method(m)])); // the core's registry
  await coreLoading;
  if (model.attribution && core) { // attattr: from the Attribution panel's run (web/lib/attribution-panel.js)
    state.methods.push(ATTATTR);
    state.methodInfo.set(ATTATTR, core.method(ATTATTR));
  }
  attribution.reset();
  // The backend that runs, and why it is not the one chosen where WebGPU could not open.
  const backend = `${ready.backend === 'webgpu' ? 'WebGPU' : 'WebAssembly'}${ready.backendNote ? ` (${ready.backendNote})` : ''}`;
  const threads = `${ready.threads} thread${ready.threads === 1 ? '' : 's'}`;
  setStatus(`${model.name} · ${backend} · ${threads}${ready.load.fromCache ? ' · cached' : ''}`);
  $('engine-status').title = ready.load.isolated ? 'Cross-origin isolated: WebAssembly threads enabled'
    : 'Not cross-origin isolated (no COOP/COEP headers): one thread';
  setClassMetadata(ready.metadata);
  fillMethods();
  $('start-layer').max = String(ready.metadata.architecture.blocks - 1);
  link.take('model', { methods: state.methods, blocks: ready.metadata.architecture.blocks }, state);
  showControls();
  showLinkNotices();
  // The photo's maps were another model's (or backend's): it is explained again.
  state.maps.clear();
  forgetHeat();
  if (state.photo) drawViews();
  document.body.dataset.model = model.name; // what the tests and the bench wait on
  document.body.dataset.classes = String(ready.metadata.labels.length);
  document.body.dataset.modelReady = 'true';
  if (state.photo) analyze(state.photo);
  return { ready: true };
}

// The Worker's background work (for the benchmark): its explainer graph's session open,
// and then all; a photo's target-independent tensors kept (split graphs): a class switch
// runs the target graph alone.
function onNotice(notice) {
  if (notice.type === 'sessions-ready') timeline.sessionsReady = performance.now();
  if (notice.type === 'explainer-ready') timeline.explainerReady = { at: performance.now(), ms: notice.ms };
  if (!notice.photo || notice.photo !== state.session) return;
  if (notice.type === 'photo-cached') timeline.photoCached = { at: performance.now(), modelMs: notice.modelMs };
  else if (notice.type === 'photo-cache-failed') console.warn(`class switches use the single graph: ${notice.message}`);
}

// For the benchmark: plain forward passes (logits only) on the current photo, timed
// inside the Worker.
export const benchForward = (runs = 5) => state.session.timeForward(runs);

// The picker: the site's models and those kept in this browser (web/page/model-picker.js).
let picker = null;

function createPicker() {
  return createModelPicker({
    box: $('model-box'), select: $('model-select'), openButton: $('model-open'), folderInput: $('model-folder'), removeButton: $('model-remove'),
    siteBase: site.models.href, link, open: openModel, onError: showError, onNotice: (text) => showLinkNotices(text), statusLine: $('engine-status'),
  });
}

export function bindModel() {
  $('backend-select').addEventListener('change', (e) => { state.backend = e.target.value; openModel(state.model, state.modelBase); });
}

// The model: starts the inference Worker and the core, fills the backend picker, opens the
// model the picker chooses (web/page/model-picker.js) and shows its load.
import { Engine } from '../lib/worker-client.js';
import { REQUEST, REPLY, NOTICE } from '../lib/protocol.js';
import { loadCore } from 'vit-relevance/runtime/core.js';
import { PHASE_WORDS } from '../lib/load-phases.js';
import { webGpuOffer } from '../lib/webgpu-adapter.js';
import { ATTATTR } from '../lib/attribution-panel.js';
import { $, state, link, timeline } from './state.js';
import { showError, clearError, setStatus } from './status.js';
import { analyze, attribution } from './analysis.js';
import { setClassMetadata, showClasses } from './classes.js';
import { fillMethods, showSettings, viewNames } from './settings.js';
import { drawLegend, drawViews } from './views.js';
import { forgetHeat } from './tiles.js';
import { showLinkNotices } from './link.js';
import { compare, showPhotoSettings } from './photo-input.js';
import { createModelPicker } from './model-picker.js';

// The Worker client of the open model, and the core (it draws maps and the legend here).
export let engine = null;
export let core = null;
// The core loads while the Worker opens the model.
let coreLoading = null;
// The first Worker starts with the page: index.html's start-worker.js creates it before
// this script has loaded, and named after the backend it compiles onnxruntime for at once
// (web/worker.js), while this script and models/index.json are read.
let firstEngine = null;
// The site's files (web/lib/site-files.js), as app.js finds them: boot(site).
let site = null;
const newEngine = () => new Engine(site.worker, { name: `vit-relevance:${state.backend}` });

let imageCounter = 0;
// The Worker's id of the next photo (the first and the compare view's second alike).
export const nextImageId = () => ++imageCounter;

export async function boot(siteFiles) {
  site = siteFiles;
  firstEngine = window.__vitrelWorker ? new Engine(site.worker, { worker: window.__vitrelWorker }) : newEngine();
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

// The download's bar, shown only while bytes come from the network, and the load phases.
function showLoad(model, msg) {
  if (msg.type === REPLY.PHASE) setStatus(`${model.name}: ${msg.phases.map((p) => PHASE_WORDS[p]).join(', ')}…`);
  if (msg.type !== REPLY.PROGRESS) return;
  const total = msg.total || model.bytes || 0;
  if (msg.loaded < total) $('load-progress').hidden = false; // a real download, not the cache
  $('load-bar').value = total ? msg.loaded / total : 0;
  $('load-text').textContent = `${(msg.loaded / 1048576).toFixed(1)}${total ? ` / ${(total / 1048576).toFixed(1)}` : ''} MB`;
}

// `base`: the absolute URL of the model's folder (the site's models/, or a kept model's own).
async function openModel(model, base) {
  state.model = model;
  state.modelBase = base;
  $('backend-select').disabled = false;
  state.metadata = null;
  document.body.dataset.modelReady = 'false';
  engine?.terminate();
  engine = firstEngine ?? newEngine();
  firstEngine = null;
  engine.onNotice = onWorkerNotice;
  setStatus(`Loading ${model.name}…`);
  $('load-progress').hidden = true;
  $('load-bar').value = 0;
  let ready;
  try {
    const r = await engine.request(REQUEST.INIT, { model, base, backend: state.backend, prepare: true },
      { onEvent: (msg) => showLoad(model, msg) });
    if (r.stale) return; // another model was chosen meanwhile
    ready = r.replies.find((m) => m.type === REPLY.READY);
  } catch (err) {
    setStatus(`${model.name}: not loaded`);
    $('load-progress').hidden = true;
    return showError(`The model ${model.name} could not be loaded: ${err.message}`);
  }
  $('load-progress').hidden = true;
  clearError();
  state.metadata = ready.metadata;
  state.modelKey = ready.modelKey;
  timeline.modelReady = {
    at: performance.now(), phaseMs: ready.phaseMs, compileMs: ready.compileMs, fromCache: ready.fromCache, split: Boolean(ready.split),
  };
  state.methods = ready.methods.map((m) => m.id);
  state.methodInfo = new Map(ready.methods.map((m) => [m.id, m])); // the core's registry
  await coreLoading;
  if (model.attribution && core) { // attattr: from the Attribution panel's run (web/lib/attribution-panel.js)
    state.methods.push(ATTATTR);
    state.methodInfo.set(ATTATTR, core.method(ATTATTR));
  }
  attribution.reset();
  // The backend that runs, and why it is not the one chosen where WebGPU could not open.
  const backend = `${ready.backend === 'webgpu' ? 'WebGPU' : 'WebAssembly'}${ready.backendNote ? ` (${ready.backendNote})` : ''}`;
  const threads = `${ready.threads} thread${ready.threads === 1 ? '' : 's'}`;
  setStatus(`${model.name} · ${backend} · ${threads}${ready.fromCache ? ' · cached' : ''}`);
  $('engine-status').title = ready.isolated ? 'Cross-origin isolated: WebAssembly threads enabled'
    : 'Not cross-origin isolated (no COOP/COEP headers): one thread';
  setClassMetadata(ready.metadata);
  fillMethods();
  $('start-layer').max = String(ready.metadata.architecture.blocks - 1);
  link.take('model', { methods: state.methods, blocks: ready.metadata.architecture.blocks }, state);
  showControls();
  showLinkNotices();
  compare.reset(); // a new Worker: the second photo is analysed again on it
  // The photo's maps were another model's (or backend's): it is explained again.
  state.maps.clear();
  forgetHeat();
  if (state.photo) drawViews();
  document.body.dataset.model = model.name; // what the tests and the bench wait on
  document.body.dataset.classes = String(ready.metadata.labels.length);
  document.body.dataset.modelReady = 'true';
  if (state.photo) analyze(state.photo);
}

// The Worker's notices: its explainer graph's session open, and then all (for the benchmark); a photo's
// target-independent tensors kept (split graphs): a class switch runs the target graph alone.
function onWorkerNotice(msg) {
  if (msg.type === NOTICE.SESSIONS_READY) timeline.sessionsReady = performance.now();
  if (msg.type === NOTICE.EXPLAINER_READY) timeline.explainerReady = { at: performance.now(), ms: msg.ms };
  if (msg.imageId !== state.photo?.imageId) return;
  if (msg.type === NOTICE.PHOTO_CACHED) {
    timeline.photoCached = { at: performance.now(), imageId: msg.imageId, modelMs: msg.timings.modelMs };
  } else if (msg.type === NOTICE.PHOTO_CACHE_FAILED) {
    console.warn(`class switches use the single graph: ${msg.message}`);
  }
}

// For the benchmark and the tests: plain forward passes (logits only) on the current photo,
// timed inside the Worker, and the Worker's counters.
export const benchForward = async (runs = 5) => (await engine.request(REQUEST.BENCH, { imageId: state.photo.imageId, runs }))
  .replies.find((m) => m.type === REPLY.BENCH).times;
export const workerStats = async () => (await engine.request(REQUEST.STATS)).replies.find((m) => m.type === REPLY.STATS);

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

// The page: wires photo input, the inference Worker, the class and method controls and
// the three views. All heavy work happens in web/worker.js; here we only draw.
import { Engine } from './lib/worker-client.js';
import { readPhoto, rgbaOf } from './lib/image-input.js';
import { decodeOffThread } from './lib/photo-decoder.js';
import { bindPhotoSources } from './lib/input-sources.js';
import { ClassSearch } from './lib/class-search.js';
import { heatImage, legendImage } from './lib/render.js';
import { drawOverlay, cellAt } from './lib/overlay.js';
import { Busy } from './lib/busy.js';
import { downloadCanvas, downloadMapPng, copyJson, slug } from './lib/exports.js';
import { LinkState } from './lib/url-state.js';
import { contactSheet } from './lib/contact-sheet.js';
import { ComparePhoto, bindComparePicker } from './lib/compare-photo.js';
import { loadCore } from 'vit-relevance/runtime/core.js';
import { REQUEST, NOTICE } from './lib/protocol.js';
import { classStanding } from 'vit-relevance/runtime/topk.js';
import { pct, standingText, unlikelyNote, isConstantMap, CONSTANT_NOTE } from 'vit-relevance/runtime/confidence.js';
import { methodHelp, startLayerState } from './lib/method-help.js';
import { framingNote } from './lib/framing.js';
import { scaleOf, mapCaption, legendWords, contrastBlocker, contrastProblem } from './lib/scale-view.js';
import { PHASE_WORDS } from './lib/load-phases.js';
import { webGpuOffer } from './lib/webgpu-adapter.js';
import { createAttributionPanel, ATTATTR } from './lib/attribution-panel.js';
import { siteFiles } from './lib/site-files.js';
import { createModelPicker } from './page/model-picker.js';

const SITE = siteFiles(import.meta.url);

const $ = (id) => document.getElementById(id);
const ms = (t) => (t >= 1000 ? `${(t / 1000).toFixed(2)} s` : `${Math.round(t)} ms`);

const state = {
  model: null, modelBase: null, metadata: null, methods: [], methodInfo: new Map(), backend: 'wasm',
  photo: null,                 // { imageId, bitmap, width, height, name }
  region: null, top5: [], logits: null,
  crop: 'center',  // the model's input: 'center' (its preprocessing) or 'none' (whole photo)
  frame: 'photo',  // what the views show: the full 'photo' or the 'model' view (the crop, zoomed)
  classA: null, classB: null, contrastive: false,
  exif: 'use', // EXIF orientation: 'use' (as viewers show the photo) or 'ignore' (PIL's reading)
  view: 'single', method: 'transformer_attribution',
  opacity: 0.55, colormap: 'jet', threshold: 'none', startLayer: 0, display: 'smooth',
  scale: 'auto',               // colour scale: 'auto' | 'positive' | 'signed' (lib/scale-view.js)
  maps: new Map(),             // `${targetKey}|${startLayer}` → { [method]: map }
  timings: {},
};
// What the page was opened with (?model=…&photo=…): applied as each part becomes known.
const link = new LinkState(location.search, state);
// Hooks for the browser tests and the benchmark (timestamps of the last photo and class).
const timeline = {};
window.__vitrel = {
  state,
  timeline,
  // Plain forward passes (logits only) on the current photo, timed inside the Worker.
  benchForward: async (runs = 5) => (await engine.request(REQUEST.BENCH, { imageId: state.photo.imageId, runs })).replies[0].times,
  workerStats: async () => (await engine.request(REQUEST.STATS)).replies[0],
};

const busy = new Busy($('busy'));
let engine = null;
let core = null;
let imageCounter = 0;
const heatCache = new Map();
// The single view's canvas, long side in pixels: twice its width on a wide screen; a
// 4096 px canvas cost the main thread hundreds of ms per redraw (issue 13).
const SINGLE_SIDE = 2048;
const attribution = createAttributionPanel($('attribution'), {
  page: () => ({ engine, core, photo: state.region && state.photo, region: state.region, modelKey: state.modelKey,
    metadata: state.metadata, classId: state.classA, colormap: state.colormap }),
  onAttattr: () => { heatCache.clear(); ensureMaps(); },
});
window.__vitrel.attribution = attribution;

// ---------- messages ----------
function showError(message) {
  $('error-text').textContent = message;
  $('error').hidden = false;
}
function clearError() { $('error').hidden = true; }
$('error-close').addEventListener('click', clearError);

function setStatus(text) { $('engine-status').textContent = text; }

// ---------- model ----------
// The core (it draws maps and the legend here) loads while the Worker opens the model.
let coreLoading = null;
// The first Worker starts with the page: index.html's start-worker.js creates it before
// this script has loaded, and named after the backend it compiles onnxruntime for at once
// (web/worker.js), while this script and models/index.json are read.
let firstEngine = null;
const newEngine = () => new Engine(SITE.worker, { name: `vit-relevance:${state.backend}` });

async function boot() {
  firstEngine = window.__vitrelWorker ? new Engine(SITE.worker, { worker: window.__vitrelWorker }) : newEngine();
  coreLoading = loadCore({ moduleUrl: SITE.core }).then((c) => {
    core = c;
    drawLegend();
  }, (err) => showError(`The WebAssembly core could not load: ${err.message}`));
  offerWebGpu(); // never the default: WebAssembly stays selected
  const options = (id) => [...$(id).querySelectorAll('option')].map((o) => o.value);
  const radios = (name) => [...document.querySelectorAll(`input[name="${name}"]`)].map((r) => r.value);
  link.take('start', {
    backends: options('backend-select'), views: tabs.map((t) => t.dataset.view), colormaps: options('colormap'),
    thresholds: options('threshold'), displays: radios('display'), frames: radios('frame'), crops: radios('crop'),
    scales: options('scale'),
  }, state);
  showSettings();
  await picker.load(); // opens the linked model, else the first
  showLinkNotices();
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
  $('load-progress').hidden = true; // shown only while bytes come from the network
  $('load-bar').value = 0;
  const onEvent = (msg) => {
    if (msg.type === 'phase') setStatus(`${model.name}: ${msg.phases.map((p) => PHASE_WORDS[p]).join(', ')}…`);
    if (msg.type !== 'progress') return;
    const total = msg.total || model.bytes || 0;
    if (msg.loaded < total) $('load-progress').hidden = false; // a real download, not the cache
    $('load-bar').value = total ? msg.loaded / total : 0;
    $('load-text').textContent = `${(msg.loaded / 1048576).toFixed(1)}${total ? ` / ${(total / 1048576).toFixed(1)}` : ''} MB`;
  };
  let ready;
  try {
    const r = await engine.request(REQUEST.INIT, { model, base, backend: state.backend, prepare: true }, { onEvent });
    if (r.stale) return; // another model was chosen meanwhile
    ready = r.replies.find((m) => m.type === 'ready');
  } catch (err) {
    setStatus(`${model.name}: not loaded`);
    $('load-progress').hidden = true;
    return showError(`The model ${model.name} could not be loaded: ${err.message}`);
  }
  $('load-progress').hidden = true;
  clearError();
  state.metadata = ready.metadata;
  state.modelKey = ready.modelKey;
  timeline.modelReady = { at: performance.now(), phaseMs: ready.phaseMs, compileMs: ready.compileMs, fromCache: ready.fromCache };
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
  state.splitGraphs = Boolean(ready.split);
  const threads = `${ready.threads} thread${ready.threads === 1 ? '' : 's'}`;
  setStatus(`${model.name} · ${backend} · ${threads}${ready.fromCache ? ' · cached' : ''}`);
  $('engine-status').title = ready.isolated ? 'Cross-origin isolated: WebAssembly threads enabled'
    : 'Not cross-origin isolated (no COOP/COEP headers): one thread';
  searchA.setMetadata(ready.metadata);
  searchB.setMetadata(ready.metadata);
  fillMethods();
  $('start-layer').max = String(ready.metadata.architecture.blocks - 1);
  link.take('model', { methods: state.methods, blocks: ready.metadata.architecture.blocks }, state);
  showSettings();
  showLinkNotices();
  compare.reset(); // a new Worker: the second photo is analysed again on it
  document.body.dataset.modelReady = 'true';
  if (state.photo) analyze(state.photo);
}

const picker = createModelPicker({
  box: $('model-box'), select: $('model-select'), openButton: $('model-open'), folderInput: $('model-folder'), removeButton: $('model-remove'),
  siteBase: SITE.models.href, link, open: openModel, onError: showError, onNotice: (text) => showLinkNotices(text), statusLine: $('engine-status'),
});
$('backend-select').addEventListener('change', (e) => { state.backend = e.target.value; openModel(state.model, state.modelBase); });

function fillMethods() {
  const select = $('method');
  select.replaceChildren(...state.methods.map((m) => new Option(method(m).name, m)));
  if (!state.methods.includes(state.method)) state.method = state.methods[0];
  select.value = state.method;
  showMethodHelp();
  markContrastMethods();
}

// In contrastive mode the methods that cannot contrast are disabled, with the reason.
function markContrastMethods() {
  for (const option of $('method').options) {
    const why = state.contrastive ? contrastBlocker(method(option.value)) : null;
    option.disabled = Boolean(why) && option.value !== state.method;
    option.title = why ?? '';
  }
}

const method = (id) => state.methodInfo.get(id);

// The chosen method's one-line description and paper, from the registry.
function showMethodHelp() {
  $('method-help').replaceChildren(methodHelp(method(state.method)));
  showStartLayer();
}

function showStartLayer() {
  if (!state.methods.length) return;
  const { disabled, reason } = startLayerState(viewMethods().map(method));
  $('start-layer').disabled = disabled;
  $('start-layer-reason').textContent = reason;
}

// ---------- photo ----------
async function onPhoto(blob, name) {
  // The link's classes belong to the link's photo only.
  if (link.peek('photo') !== undefined && link.peek('photo') !== name) link.forget('class', 'vs', 'contrast');
  link.forget('photo');
  timeline.photoChosen = performance.now();
  timeline.firstHeatmap = null;
  state.source = { blob, name }; // read again when the EXIF setting changes
  let photo;
  try {
    photo = await readPhoto(blob, name, { exif: state.exif, decode: decodeOffThread });
  } catch (err) {
    return showError(err.message);
  }
  clearError();
  state.photo?.bitmap.close?.();
  for (const c of state.photo?.copies ?? []) c.close();
  if (state.photo) engine?.request(REQUEST.RELEASE, { imageId: state.photo.imageId }).catch(() => {});
  state.photo = { ...photo, imageId: ++imageCounter };
  state.region = null;
  state.top5 = [];
  state.logits = null;
  state.maps.clear();
  heatCache.clear();
  attribution.reset();
  renderTop5();
  state.photo.note = photo.original.width !== photo.width
    ? ` · scaled from ${photo.original.width}×${photo.original.height} to ${photo.width}×${photo.height} to fit in memory` : '';
  $('main-caption').textContent = `${name} · ${photo.width}×${photo.height}${state.photo.note}`;
  // The Worker starts on the photo before the page draws it.
  if (state.metadata) analyze(state.photo);
  render();
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

async function analyze(photo) {
  // The decoder's bytes go to the Worker; analysing the photo again (another model) reads
  // them back from the bitmap.
  const rgba = photo.rgba ?? rgbaOf(photo.bitmap);
  photo.rgba = null;
  busy.start('Classifying and explaining…');
  const startLayer = state.startLayer;
  const onEvent = (msg) => {
    if (msg.imageId !== state.photo?.imageId) return;
    if (msg.type === 'maps') return storeMaps(msg);
    if (msg.type !== 'prediction') return;
    state.region = msg.region;
    state.top5 = msg.top5;
    state.logits = msg.logits;
    state.timings = { preprocessMs: msg.timings.preprocessMs, predictedBy: msg.predictedBy };
    state.classA = msg.top5[0].id;
    state.classB = msg.top5[1]?.id ?? null;
    link.take('prediction', { classes: state.metadata.labels.length }, state);
    $('contrastive').checked = state.contrastive;
    showLinkNotices();
    searchA.show(state.classA);
    searchB.show(state.classB);
    renderTop5();
    attribution.render();
  };
  timeline.analyzeSent = performance.now();
  try {
    const r = await engine.request(REQUEST.ANALYZE,
      { modelKey: state.modelKey, imageId: photo.imageId, rgba: rgba.buffer, width: photo.width, height: photo.height, methods: viewMethods(), startLayer, crop: state.crop },
      { supersede: true, transfer: [rgba.buffer], onEvent });
    if (r.stale) return;
    ensureMaps();
  } catch (err) {
    busy.stop();
    showError(`Could not analyse ${photo.name}: ${err.message}`);
  }
}

// ---------- targets and maps ----------
const targetKey = (t) => (t.b === undefined ? `c${t.a}` : `c${t.a}-${t.b}`);
const mapKey = (t) => `${targetKey(t)}|${state.startLayer}`;

// A contrast needs a class B other than A (contrastProblem says why not).
const contrastOn = () => state.contrastive && !contrastProblem(state.classA, state.classB, state.metadata.labels);

function primaryTarget() {
  return contrastOn() ? { a: state.classA, b: state.classB } : { a: state.classA };
}

function viewTargets() {
  if (state.classA === null) return [];
  if (state.view !== 'pair') return [primaryTarget()]; // the compare view: one target, two photos
  if (state.classB === null) return [{ a: state.classA }];
  return contrastOn()
    ? [{ a: state.classA, b: state.classB }, { a: state.classB, b: state.classA }]
    : [{ a: state.classA }, { a: state.classB }];
}

// A class with its probability and rank among all classes, once the photo is classified
// (`logits`: the first photo's unless another's are given).
const standing = (id, logits = state.logits) => (logits ? classStanding(logits, id) : null);
function label(id, logits) {
  const s = standing(id, logits);
  return `${state.metadata.labels[id]}${s ? ` ${pct(s.prob)}${s.rank > 5 ? ` (rank ${s.rank})` : ''}` : ''}`;
}
const targetLabel = (t, logits) => (t.b === undefined ? label(t.a, logits) : `${state.metadata.labels[t.a]} vs ${state.metadata.labels[t.b]}`);

// The methods the current view shows: the grid needs all, the other views one.
const viewMethods = () => (state.view === 'grid' ? state.methods : [state.method]);

// attattr comes from the Attribution panel; every other map from the Worker's explainer.
const mapOf = (t, m) => (m === ATTATTR ? t.b === undefined && attribution.attattrMap(t.a, state.startLayer) : state.maps.get(mapKey(t))?.[m]) || null;

function storeMaps(msg) {
  for (const { target, maps } of msg.results) state.maps.set(`${targetKey(target)}|${msg.startLayer}`, maps);
  state.timings = { ...state.timings, explainMs: msg.timings.modelMs, relevanceMs: msg.timings.relevanceMs };
}

async function ensureMaps() {
  const photo = state.photo;
  if (!photo || !state.region) return;
  // A contrast asks only for the methods that can contrast (the others say why not);
  // attattr comes from the Attribution panel.
  if (state.view !== 'grid' && state.method === ATTATTR) attribution.want(state.classA); // chosen: computed on demand
  const methods = viewMethods().filter((m) => m !== ATTATTR && (!contrastOn() || !contrastBlocker(method(m))));
  if (!methods.length) { busy.stop(); return render(); }
  const missing = viewTargets().filter((t) => {
    const maps = state.maps.get(mapKey(t));
    return !maps || methods.some((m) => !(m in maps));
  });
  if (!missing.length) { busy.stop(); return render(); }
  busy.start(`Explaining ${missing.map((t) => targetLabel(t)).join(' & ')}…`);
  const startLayer = state.startLayer;
  try {
    const r = await engine.request(REQUEST.EXPLAIN,
      { imageId: photo.imageId, targets: missing, methods, startLayer }, { supersede: true });
    if (r.stale || photo !== state.photo) return;
    storeMaps(r.replies.find((m) => m.type === 'maps'));
    busy.stop();
    render();
  } catch (err) {
    busy.stop();
    showError(`Could not explain: ${err.message}`);
  }
}

// ---------- drawing ----------
// What a tile draws from: the first photo, or the compare view's second.
const mainView = () => ({ photo: state.photo, region: state.region, maps: state.maps });

function heatFor(key, method, map, scale) {
  const k = `${key}|${method}|${state.colormap}|${state.threshold}|${state.display}|${scale}`;
  let img = heatCache.get(k);
  if (!img) {
    img = heatImage(core, map, { ...state, scale });
    if (heatCache.size > 200) heatCache.clear();
    heatCache.set(k, img);
  }
  return img;
}

// One figure: canvas + caption, bound to a (target, method) for hover and downloads.
function tile(target, method, caption, sub, maxSide, view = mainView()) {
  const fig = document.createElement('figure');
  fig.className = 'figure tile';
  const wrap = document.createElement('div');
  wrap.className = 'canvas-wrap';
  const canvas = document.createElement('canvas');
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', `${caption}: ${sub}`);
  wrap.append(canvas);
  const cap = document.createElement('figcaption');
  cap.append(caption);
  const s = document.createElement('span');
  s.className = 'sub';
  s.textContent = sub;
  cap.append(s);
  fig.append(wrap, cap);
  Object.assign(canvas.dataset, { caption, sub }); // for "Download all"
  paint(canvas, target, method, maxSide, view);
  if (canvas.dataset.constant === 'true') s.textContent += ` · ${CONSTANT_NOTE}`;
  // A click (or Enter) chooses the tile the single downloads save.
  canvas.tabIndex = 0;
  canvas.addEventListener('click', () => chooseTile(canvas));
  canvas.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); chooseTile(canvas); }
  });
  return fig;
}

// Draws photo + heat for (target, method) onto a canvas; returns whether a heat map was drawn.
function paint(canvas, target, method, maxSide, { photo, region, maps: store } = mainView()) {
  const map = target && (store === state.maps ? mapOf(target, method) : store.get(mapKey(target))?.[method]);
  // A constant map has nothing to colour: the photo alone, and the notices say why.
  const constant = isConstantMap(map);
  const scale = scaleOf(state, target, method);
  const heat = map && core && !constant ? heatFor(`${photo.imageId}|${mapKey(target)}`, method, map, scale) : null;
  drawOverlay(canvas, photo, region, heat, {
    opacity: state.opacity, smooth: state.display === 'smooth' || map?.rows > 64, maxSide, frame: state.frame,
  });
  canvas.dataset.frame = state.frame;
  canvas.dataset.constant = String(constant);
  canvas.dataset.target = target ? targetKey(target) : '';
  canvas.dataset.method = method;
  canvas.dataset.tile = `${photo.imageId}|${canvas.dataset.target}|${method}`;
  canvas.dataset.rendered = heat || (map && constant) ? 'heat' : 'photo';
  canvas.dataset.scale = scale;
  canvas.__binding = map ? { target, method, map, scale, photo, region } : null;
  return canvas.dataset.rendered === 'heat';
}

function render() {
  const photo = state.photo;
  for (const id of ['dl-overlay', 'dl-map', 'copy-json', 'dl-all']) $(id).disabled = true;
  writeLink();
  if (!photo) return;
  const main = $('main-canvas');
  if (state.view === 'single') {
    const t = state.classA === null ? null : primaryTarget();
    const drawn = paint(main, t, state.method, SINGLE_SIDE);
    const why = state.classA === null ? null : contrastNote(state.method);
    if (drawn) {
      $('main-caption').textContent = `${method(state.method).name} · ${targetLabel(t)}`
        + (method(state.method).startLayer ? ` · start layer ${state.startLayer}` : '')
        + (main.dataset.constant === 'true' ? ` · ${CONSTANT_NOTE}` : '') + photo.note
        + ` · ${captionOf(main)}${why ? ` · ${why}` : ''}`;
    } else if (why) {
      $('main-caption').textContent = why;
    }
  } else if (state.view === 'grid') {
    const t = state.classA === null ? null : primaryTarget();
    $('grid').replaceChildren(...state.methods.map((m) => {
      const pending = m === ATTATTR && t && !mapOf(t, m) ? ' · every block in the Attribution panel first' : '';
      const fig = tile(t, m, method(m).shortName, t ? `${targetLabel(t)}${pending}` : '', 320);
      const note = Object.assign(document.createElement('span'), { className: 'method-note' });
      note.append(methodHelp(method(m)));
      fig.querySelector('figcaption').append(note);
      return fig;
    }));
  } else if (state.view === 'pair') {
    $('pair').replaceChildren(...viewTargets().map((t) => tile(t, state.method, targetLabel(t), method(state.method).name, 640)));
  } else {
    renderCompare();
  }
  // Each drawn map says what it shows (scale, range, share negative); one that cannot be
  // drawn for a contrast says why.
  for (const fig of document.querySelectorAll(`#view-${state.view} figure.tile`)) {
    const canvas = fig.querySelector('canvas');
    const text = canvas.dataset.rendered === 'heat' ? captionOf(canvas) : contrastNote(canvas.dataset.method) ?? '';
    if (text) fig.querySelector('figcaption .sub').append(` · ${text}`);
  }
  drawLegend();
  const drawnAny = document.querySelector(`#view-${state.view} canvas[data-rendered="heat"]`);
  for (const id of ['dl-overlay', 'dl-map', 'copy-json']) $(id).disabled = !drawnAny;
  $('dl-all').disabled = !drawnAny;
  showDownloadScope();
  if (drawnAny && !timeline.firstHeatmap) timeline.firstHeatmap = performance.now();
  if (drawnAny) timeline.lastRender = { at: performance.now(), target: drawnAny.dataset.target, view: state.view };
  showNotices();
  showStanding();
  document.body.dataset.renders = String(Number(document.body.dataset.renders ?? 0) + 1);
  renderTimings();
}

// The notices under the views: what part of the photo the model saw, and any constant map.
function showNotices() {
  const input = state.metadata?.architecture.image_size ?? [224, 224];
  $('framing-note').textContent = state.photo ? framingNote(state.photo, state.region, state.crop, state.frame, input) : '';
  const flat = [...document.querySelectorAll(`#view-${state.view} canvas[data-constant="true"]`)];
  $('map-notice').hidden = !flat.length;
  $('map-notice').textContent = flat.length
    ? `${flat.map((c) => method(c.dataset.method).name).filter((n, i, a) => a.indexOf(n) === i).join(', ')}: the ${CONSTANT_NOTE}`
      + ' (every value is equal, so no colour is drawn).'
    : '';
}

// The explained class's probability and rank, outside the top-5 too.
function showStanding() {
  const s = state.classA === null ? null : standing(state.classA);
  $('class-standing').textContent = s ? `${state.metadata.labels[state.classA]}: ${standingText(s)}` : '';
  const note = s ? unlikelyNote(state.metadata.labels[state.classA], s) : '';
  $('unlikely-note').hidden = !note;
  $('unlikely-note').textContent = note;
}

function captionOf(canvas) {
  const b = canvas.__binding;
  return mapCaption(core, b.map, b.scale);
}

// Why nothing is drawn for a contrast: B = A, or a method that cannot contrast.
function contrastNote(m) {
  if (!state.contrastive) return null;
  return contrastProblem(state.classA, state.classB, state.metadata.labels) ?? contrastBlocker(method(m));
}

// The compare view: the same class and method on the first photo and a second one.
function renderCompare() {
  const t = state.classA === null ? null : primaryTarget();
  // Each photo with its own probability of the class.
  const sub = (logits) => (t ? `${method(state.method).name} · ${targetLabel(t, logits)}` : '');
  const figs = [tile(t, state.method, state.photo.name, sub(state.logits), 640)];
  if (compare.photo) {
    figs.push(tile(t, state.method, compare.photo.name, sub(compare.logits), 640, compare.view));
    if (t && state.metadata) {
      compare.ensure({ modelKey: state.modelKey, target: t, targetKey: targetKey(t), method: state.method, startLayer: state.startLayer, crop: state.crop });
    }
  } else {
    figs.push(Object.assign(document.createElement('p'), { className: 'muted', textContent: 'Choose a second photo above: a sample or one of yours.' }));
  }
  $('compare').replaceChildren(...figs);
}

// Views of several tiles: the single-tile downloads say which tile they save, and that
// tile is marked.
function showDownloadScope() {
  const b = currentBinding();
  const several = document.querySelectorAll(`#view-${state.view} canvas`).length > 1;
  for (const fig of document.querySelectorAll(`#view-${state.view} .tile`)) {
    if (several && fig.contains(b?.canvas)) fig.setAttribute('aria-current', 'true');
    else fig.removeAttribute('aria-current');
  }
  const which = b?.canvas.dataset.tile === chosenTile ? 'the chosen tile' : 'the first tile';
  $('dl-scope').textContent = b && several
    ? `Overlay, map and JSON save ${which} (${b.canvas.dataset.caption} · ${b.canvas.dataset.sub}); click a tile to choose another. `
      + '“Download all” saves every tile in one PNG.'
    : '';
  $('dl-all').hidden = state.view === 'single';
}

function renderTimings() {
  const t = state.timings;
  const parts = [];
  if (t.explainMs) parts.push(`explainer graph ${ms(t.explainMs)}`);
  if (t.relevanceMs !== undefined) parts.push(`relevance maps ${ms(t.relevanceMs)}`);
  $('timings').textContent = parts.length ? `Model: ${parts.join(' · ')}` : '';
}

function renderTop5() {
  showStanding();
  const list = $('top5');
  // Rebuilding the list must not drop the keyboard focus of the button just chosen.
  const focused = document.activeElement?.closest?.('#top5 button')?.dataset.classId;
  if (!state.top5.length) {
    list.innerHTML = `<li class="muted">${state.photo ? 'Classifying…' : 'No photo yet'}</li>`;
    return;
  }
  list.replaceChildren(...state.top5.map(({ id, prob }) => {
    const li = document.createElement('li');
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.classId = id;
    b.setAttribute('aria-pressed', String(id === state.classA));
    const name = document.createElement('span');
    name.textContent = state.metadata.labels[id];
    const p = document.createElement('span');
    p.className = 'prob';
    p.textContent = pct(prob);
    const bar = document.createElement('span');
    bar.className = 'bar';
    bar.style.width = `${Math.max(1, prob * 100)}%`;
    b.append(name, p, bar);
    b.addEventListener('click', () => pickA(id));
    li.append(b);
    return li;
  }));
  if (focused !== undefined) list.querySelector(`button[data-class-id="${focused}"]`)?.focus();
}

function drawLegend() {
  if (!core) return;
  const c = $('legend');
  const strip = new OffscreenCanvas(256, 1);
  const scale = state.metadata && state.classA !== null ? scaleOf(state, primaryTarget(), state.method) : state.scale === 'signed' ? 'signed' : 'positive';
  strip.getContext('2d').putImageData(legendImage(core, state.colormap, scale), 0, 0);
  const [low, mid, high] = legendWords(scale);
  const words = $('legend').parentElement.querySelectorAll('.legend-scale span');
  [words[0].textContent, words[1].textContent, words[2].textContent] = [low, mid, high];
  const ctx = c.getContext('2d');
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(strip, 0, 0, c.width, c.height);
}

// ---------- link and settings ----------
// The address bar follows the page, so a link reopens this view (web/lib/url-state.js).
function writeLink() {
  link.write(state, { model: state.model?.name, photo: state.photo?.name, photo2: compare.photo?.name });
}

// The controls show the state (after a link has set it).
function showSettings() {
  $('backend-select').value = state.backend;
  $('colormap').value = state.colormap;
  drawLegend();
  $('threshold').value = state.threshold;
  $('scale').value = state.scale;
  $('opacity').value = String(state.opacity);
  showOpacity();
  $('start-layer').value = String(state.startLayer);
  $('start-layer-out').textContent = String(state.startLayer);
  for (const name of ['display', 'frame', 'crop']) {
    for (const r of document.querySelectorAll(`input[name="${name}"]`)) r.checked = r.value === state[name];
  }
  $('exif-ignore').checked = state.exif === 'ignore';
  $('contrastive').checked = state.contrastive;
  if (state.methods.includes(state.method)) {
    $('method').value = state.method;
    showMethodHelp();
  }
  selectView(state.view);
}

// What the page could not take from its link, in words on the page.
const linkNotes = [];
function showLinkNotices(...more) {
  const ignored = link.drainNotices();
  if (ignored.length) linkNotes.push(`Ignored from the link: ${ignored.join('; ')}.`);
  linkNotes.push(...more);
  $('link-notice-text').textContent = linkNotes.join(' ');
  $('link-notice').hidden = !linkNotes.length;
}
$('link-notice-close').addEventListener('click', () => { linkNotes.length = 0; $('link-notice').hidden = true; });

// The link's photos: samples open at once; an uploaded photo cannot come back by link.
function openLinkedPhotos(samples) {
  const notes = [];
  for (const key of ['photo', 'photo2']) {
    const name = link.checked(key);
    if (name === undefined) continue;
    if (!samples.includes(name)) {
      notes.push(`The link names the photo “${name}”, which is not one of the samples: a photo you upload stays on your device, so a link cannot bring it back. `
        + `Choose “${name}” again ${key === 'photo' ? 'to see the linked view' : 'as the second photo'}.`);
      if (key === 'photo2') link.forget(key);
    } else if (key === 'photo') {
      $('gallery').querySelector(`button[data-sample="${CSS.escape(name)}"]`).click();
    } else {
      link.forget(key);
      comparePicker.choose(name);
    }
  }
  showLinkNotices(...notes);
}

// ---------- controls ----------
function pickA(id) {
  state.classA = id;
  if (state.classB === id) state.classB = state.top5.find((t) => t.id !== id)?.id ?? state.classB;
  searchA.show(state.classA);
  searchB.show(state.classB);
  timeline.classChosen = { at: performance.now(), target: targetKey(primaryTarget()) };
  renderTop5();
  attribution.render();
  ensureMaps();
}
const searchA = new ClassSearch($('class-a'), $('class-a-list'), pickA);
const searchB = new ClassSearch($('class-b'), $('class-b-list'), (id) => { state.classB = id; ensureMaps(); });

$('exif-ignore').addEventListener('change', (e) => {
  state.exif = e.target.checked ? 'ignore' : 'use';
  if (state.source) onPhoto(state.source.blob, state.source.name);
  if (compare.source) compare.set(compare.source.blob, compare.source.name, { exif: state.exif });
});
$('contrastive').addEventListener('change', (e) => { state.contrastive = e.target.checked; markContrastMethods(); ensureMaps(); });
$('method').addEventListener('change', (e) => { state.method = e.target.value; showMethodHelp(); ensureMaps(); render(); });
$('colormap').addEventListener('change', (e) => { state.colormap = e.target.value; drawLegend(); render(); attribution.render(); });
$('threshold').addEventListener('change', (e) => { state.threshold = e.target.value; render(); });
$('scale').addEventListener('change', (e) => { state.scale = e.target.value; render(); });
function showOpacity() { $('opacity-out').textContent = `${Math.round(state.opacity * 100)}%`; }
$('opacity').addEventListener('input', (e) => {
  state.opacity = Number(e.target.value);
  showOpacity();
  render();
});
$('start-layer').addEventListener('change', (e) => { state.startLayer = Number(e.target.value); ensureMaps(); });
$('start-layer').addEventListener('input', (e) => { $('start-layer-out').textContent = e.target.value; });
for (const r of document.querySelectorAll('input[name="display"]')) {
  r.addEventListener('change', () => { state.display = r.value; render(); });
}
for (const r of document.querySelectorAll('input[name="frame"]')) {
  r.addEventListener('change', () => { state.frame = r.value; render(); });
}
// A new framing is a new model input: the photo is classified and explained again.
for (const r of document.querySelectorAll('input[name="crop"]')) {
  r.addEventListener('change', () => {
    state.crop = r.value;
    compare.reset();
    if (state.source) onPhoto(state.source.blob, state.source.name);
  });
}

// Tabs: arrow keys move between them (WAI-ARIA tabs pattern).
const tabs = [...document.querySelectorAll('[role="tab"]')];
function selectView(view) {
  state.view = view;
  for (const t of tabs) {
    const on = t.dataset.view === view;
    t.setAttribute('aria-selected', String(on));
    t.tabIndex = on ? 0 : -1;
    $(t.getAttribute('aria-controls')).hidden = !on;
  }
  showStartLayer();
  ensureMaps();
  render();
}
for (const t of tabs) {
  t.addEventListener('click', () => selectView(t.dataset.view));
  t.addEventListener('keydown', (e) => {
    const step = { ArrowRight: 1, ArrowLeft: -1 }[e.key];
    if (!step) return;
    const next = tabs[(tabs.indexOf(t) + step + tabs.length) % tabs.length];
    next.focus();
    selectView(next.dataset.view);
  });
}

// Readout of the patch under the pointer over any canvas of the views: on hover, and on a
// tap where there is no hover (phones).
function showReadout(e) {
  const canvas = e.target instanceof HTMLCanvasElement ? e.target : null;
  const b = canvas?.__binding;
  if (!b || !b.region) return;
  const cell = cellAt(e, canvas, b.photo, b.region, b.map, canvas.dataset.frame);
  let lo = Infinity; let hi = -Infinity;
  for (const v of b.map.data) { if (v < lo) lo = v; if (v > hi) hi = v; }
  $('hover-readout').textContent = cell
    ? `${method(b.method).shortName} · ${b.map.rows > 64 ? 'pixel' : 'patch'} (row ${cell.row}, col ${cell.col}): `
      + `relevance ${cell.value.toPrecision(4)} (${Math.round(((cell.value - lo) / (hi - lo || 1)) * 100)}% of the map's range)`
    : 'Outside the region the model saw.';
}
for (const type of ['pointermove', 'pointerdown']) document.querySelector('.stage').addEventListener(type, showReadout);

// Downloads act on the chosen map of the current view, else on its first.
let chosenTile = null; // a canvas's data-tile: photo, target and method
function chooseTile(canvas) {
  chosenTile = canvas.dataset.tile;
  showDownloadScope();
}
function currentBinding() {
  const drawn = [...document.querySelectorAll(`#view-${state.view} canvas[data-rendered="heat"]`)];
  const canvas = drawn.find((c) => c.dataset.tile === chosenTile) ?? drawn[0];
  return canvas && { canvas, ...canvas.__binding };
}
function fileStem(b) {
  return `${slug(b.photo.name.replace(/\.[^.]+$/, ''))}-${slug(targetLabel(b.target).replace(/ [\d.]+%( \(rank \d+\))?$/, ''))}-${b.method}`;
}
async function act(fn) {
  try { $('action-status').textContent = (await fn()) ?? ''; } catch (err) { showError(err.message); }
}
$('dl-overlay').addEventListener('click', () => act(async () => {
  const b = currentBinding();
  await downloadCanvas(b.canvas, `${fileStem(b)}-overlay.png`);
  return 'overlay saved';
}));
$('dl-map').addEventListener('click', () => act(async () => {
  const b = currentBinding();
  await downloadMapPng(b.map, `${fileStem(b)}-map.png`, core.scaled(b.map.data, b.scale));
  return 'map saved';
}));
$('copy-json').addEventListener('click', () => act(() => {
  const b = currentBinding();
  return copyJson({
    model: state.model.name, photo: b.photo.name, method: b.method,
    target: b.target.b === undefined ? { class: b.target.a, label: state.metadata.labels[b.target.a] }
      : { contrast: [b.target.a, b.target.b], labels: [state.metadata.labels[b.target.a], state.metadata.labels[b.target.b]],
        correlation: b.map.correlation }, // how alike the two classes' own maps are (docs/contrast.md)
    startLayer: state.startLayer, region: b.region, scale: b.scale,
    rows: b.map.rows, cols: b.map.cols, data: Array.from(b.map.data),
  }, `${fileStem(b)}.json`);
}));

// Every tile of the view in one labelled PNG (web/lib/contact-sheet.js).
$('dl-all').addEventListener('click', () => act(async () => {
  const tiles = [...document.querySelectorAll(`#view-${state.view} canvas`)]
    .map((canvas) => ({ canvas, caption: canvas.dataset.caption, sub: canvas.dataset.sub }));
  const title = `${state.model.name} · ${state.photo.name} · ${$(`tab-${state.view}`).textContent}`;
  const sheet = contactSheet(tiles, title, state.view === 'grid' ? 4 : 2);
  await downloadCanvas(sheet, `${slug(state.photo.name.replace(/\.[^.]+$/, ''))}-${state.view}-all.png`);
  return `saved all ${tiles.length} tiles in one PNG`;
}));

// ---------- start ----------
const compare = new ComparePhoto({ engine: () => engine, nextImageId: () => ++imageCounter, onChange: render, onError: showError });
const comparePicker = bindComparePicker({
  select: $('compare-sample'), browse: $('compare-browse'), fileInput: $('compare-file'),
  onChoose: (blob, name) => compare.set(blob, name, { exif: state.exif }), onError: showError,
});
const sources = bindPhotoSources({
  dropzone: $('dropzone'), fileInput: $('file-input'), gallery: $('gallery'), onPhoto, onError: showError,
});
fetch('samples/index.json').then((r) => r.json()).then((j) => {
  sources.loadGallery(j.images);
  comparePicker.setSamples(j.images);
  openLinkedPhotos(j.images);
}).catch(() => {});
boot();

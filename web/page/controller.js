// The page's one controller: it owns the flow model → photo → explanation → maps. Feature
// modules (web/page/*.js, wired by web/app.js) show the state (web/page/state.js) and ask
// for changes through intents; the controller handles every intent, runs each step
// (model-load.js, the decode below, analysis.js) and writes what they give into the state,
// which the features show. It imports no feature.
import { decodePhoto } from '../vit-relevance.js';
import { loadCore } from 'vit-relevance/runtime/core.js';
import { page, state, link, timeline, SETTINGS, showError } from './state.js';
import { openModel } from './model-load.js';
import { analyze, analyzeText, ensureMaps, closeOpened, takeLink } from './analysis.js';

// Settings that change which maps the views need; the others change only their drawing.
const NEEDS_MAPS = new Set(['classId', 'contrastId', 'contrastive', 'method', 'view', 'startLayer']);

let coreLoading = null;

// `site`: the site's files (web/lib/site-files.js), as app.js finds them.
export async function startController(site) {
  page.handle('settings', chooseSettings);
  page.handle('open-model', ({ entry, base, verify }) => openModel(entry, base, { verify }, coreLoading));
  page.handle('backend', (backend) => {
    page.set({ backend });
    return openModel(state.model, state.modelBase, {}, coreLoading);
  });
  page.handle('photo', ({ blob, name }) => takePhoto(blob, name));
  page.handle('reread-photo', (values) => {
    page.set(values); // EXIF or framing: a new model input, classified and explained again
    if (state.source) takePhoto(state.source.blob, state.source.name);
  });
  page.handle('attattr', ensureMaps); // the Attribution panel has a new map
  // A text typed, pasted or chosen: explained at once, superseding the last one's request.
  page.handle('text', (text) => {
    page.set({ text });
    if (state.kind === 'text' && state.metadata) analyzeText(text);
  });

  coreLoading = loadCore({ moduleUrl: site.core }).then((core) => page.set({ core }),
    (err) => showError(`The WebAssembly core could not load: ${err.message}`));
  const options = (id) => [...document.getElementById(id).querySelectorAll('option')].map((o) => o.value);
  const radios = (name) => [...document.querySelectorAll(`input[name="${name}"]`)].map((r) => r.value);
  takeLink('start', {
    backends: options('backend-select'), views: [...document.querySelectorAll('[role="tab"]')].map((t) => t.dataset.view),
    colormaps: options('colormap'), thresholds: options('threshold'), displays: radios('display'), frames: radios('frame'),
    crops: radios('crop'), scales: options('scale'),
  });
  page.touch(...SETTINGS); // the controls show the state (after the link has set it)
  page.set({ site }); // the model picker opens the linked model, else the first (web/page/model.js)
}

// A setting chosen: the views draw it, and the maps it needs are asked for.
function chooseSettings(values) {
  page.set(values);
  if ('classId' in values && state.kind === 'text') page.set({ classChosen: true });
  if (Object.keys(values).some((k) => NEEDS_MAPS.has(k))) ensureMaps();
}

// A photo chosen (the drop zone, browse, paste, a sample, the link): decoded, shown, and
// classified and explained once a model is there.
async function takePhoto(blob, name) {
  // The link's classes belong to the link's photo only: the one it names, else the first
  // (a linked sample opens before the model is ready, and another photo may replace it
  // before its prediction takes them).
  const linked = link.peek('photo') ?? state.photo?.name ?? name;
  if (linked !== name) link.forget('class', 'contrast', 'contrastive');
  link.forget('photo');
  timeline.photoChosen = performance.now();
  timeline.firstHeatmap = null;
  page.set({ source: { blob, name } }); // read again when the EXIF setting changes
  let photo;
  try {
    photo = await decodePhoto(new File([blob], name, { type: blob.type }), { exif: state.exif });
  } catch (err) {
    return showError(err.message);
  }
  // A text model keeps the photo for the next image model: its text's work goes on.
  const forText = state.kind === 'text';
  // Without a model no map comes: the photo shows why instead of nothing.
  if (state.modelError) showError(state.modelError);
  else if (!forText) page.set({ error: null });
  if (!forText) closeOpened();
  state.photo?.bitmap.close?.();
  for (const c of state.photo?.copies ?? []) c.close();
  photo.note = photo.original.width !== photo.width
    ? ` · scaled from ${photo.original.width}×${photo.original.height} to ${photo.width}×${photo.height} to fit in memory` : '';
  timeline.photoCached = null; // this photo's, when the Worker has kept its tensors
  if (forText) return page.set({ photo });
  state.maps.clear();
  page.set({ photo, region: null, top5: [], logits: null });
  page.touch('maps');
  // The photo shown, for whoever waits on it (its top-5 follows in #top5).
  Object.assign(document.body.dataset, { photo: name, photoSize: `${photo.width}x${photo.height}` });
  // The Worker starts on the photo before the page draws it.
  if (state.metadata) analyze(photo);
}

// For the benchmark: plain forward passes (logits only) on the current photo, timed
// inside the Worker.
export const benchForward = (runs = 5) => state.opened.timeForward(runs);

// The photos: the first one (drop zone, browse, paste, the sample gallery) with its EXIF
// and crop settings, and the compare view's second one (web/lib/compare-photo.js).
import { decodePhoto } from '../vit-relevance.js';
import { bindPhotoSources } from '../lib/input-sources.js';
import { ComparePhoto, bindComparePicker } from '../lib/compare-photo.js';
import { $, state, link, timeline } from './state.js';
import { showError, clearError } from './status.js';
import { explainer } from './model.js';
import { analyze, attribution, closeSession } from './analysis.js';
import { showTop5 } from './classes.js';
import { drawViews } from './views.js';
import { forgetHeat } from './tiles.js';
import { openLinkedPhotos } from './link.js';

export let compare = null;
export let comparePicker = null;
let sources = null;

async function onPhoto(blob, name) {
  // The link's classes belong to the link's photo only: the one it names, else the first
  // (a linked sample opens before the model is ready, and another photo may replace it
  // before its prediction takes them).
  const linked = link.peek('photo') ?? state.photo?.name ?? name;
  if (linked !== name) link.forget('class', 'contrast', 'contrastive');
  link.forget('photo');
  timeline.photoChosen = performance.now();
  timeline.firstHeatmap = null;
  state.source = { blob, name }; // read again when the EXIF setting changes
  let photo;
  try {
    photo = await decodePhoto(new File([blob], name, { type: blob.type }), { exif: state.exif });
  } catch (err) {
    return showError(err.message);
  }
  // Without a model no map comes: the photo shows why instead of nothing.
  if (state.modelError) showError(state.modelError);
  else clearError();
  closeSession();
  state.photo?.bitmap.close?.();
  for (const c of state.photo?.copies ?? []) c.close();
  state.photo = photo;
  timeline.photoCached = null; // this photo's, when the Worker has kept its tensors
  // The photo shown, for whoever waits on it (its top-5 follows in #top5).
  Object.assign(document.body.dataset, { photo: name, photoSize: `${photo.width}x${photo.height}` });
  state.region = null;
  state.top5 = [];
  state.logits = null;
  state.maps.clear();
  forgetHeat();
  attribution.reset();
  showTop5();
  state.photo.note = photo.original.width !== photo.width
    ? ` · scaled from ${photo.original.width}×${photo.original.height} to ${photo.width}×${photo.height} to fit in memory` : '';
  $('main-caption').textContent = `${name} · ${photo.width}×${photo.height}${state.photo.note}`;
  // The Worker starts on the photo before the page draws it.
  if (state.metadata) analyze(state.photo);
  drawViews();
}

// The controls show the state (after a link has set it).
export function showPhotoSettings() {
  for (const r of document.querySelectorAll('input[name="crop"]')) r.checked = r.value === state.crop;
  $('exif-ignore').checked = state.exif === 'ignore';
}

export function bindPhotoInput() {
  $('exif-ignore').addEventListener('change', (e) => {
    state.exif = e.target.checked ? 'ignore' : 'use';
    if (state.source) onPhoto(state.source.blob, state.source.name);
    if (compare.source) compare.set(compare.source.blob, compare.source.name, { exif: state.exif });
  });
  // A new framing is a new model input: the photo is classified and explained again.
  for (const r of document.querySelectorAll('input[name="crop"]')) {
    r.addEventListener('change', () => {
      state.crop = r.value;
      compare.reset();
      if (state.source) onPhoto(state.source.blob, state.source.name);
    });
  }
  compare = new ComparePhoto({ explainer: () => explainer, onChange: drawViews, onError: showError });
  comparePicker = bindComparePicker({
    select: $('compare-sample'), browse: $('compare-browse'), fileInput: $('compare-file'),
    onChoose: (blob, name) => compare.set(blob, name, { exif: state.exif }), onError: showError,
  });
  sources = bindPhotoSources({
    dropzone: $('dropzone'), fileInput: $('file-input'), gallery: $('gallery'), onPhoto, onError: showError,
  });
}

// The sample photos, in the gallery and the compare picker; then the link's photos.
export function loadSamples() {
  fetch('samples/index.json').then((r) => r.json()).then((j) => {
    sources.loadGallery(j.images);
    comparePicker.setSamples(j.images);
    openLinkedPhotos(j.images);
  }).catch(() => {});
}

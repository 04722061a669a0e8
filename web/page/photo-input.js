// The photos: the first one (drop zone, browse, paste, the sample gallery) with its EXIF
// and crop settings, and the compare view's second one (web/page/lib/compare-photo.js); the
// link's photos. A chosen photo is an intent: the controller decodes and explains it.
import { bindPhotoSources } from './lib/input-sources.js';
import { ComparePhoto, bindComparePicker } from './lib/compare-photo.js';
import { $, page, state, link, showError, addNotices } from './state.js';

let comparePicker = null;
let sources = null;

// The controls show the state (after a link has set it).
function showPhotoSettings() {
  for (const r of document.querySelectorAll('input[name="crop"]')) r.checked = r.value === state.crop;
  $('exif-ignore').checked = state.exif === 'ignore';
}

export function bindPhotoInput() {
  const compare = new ComparePhoto({ explainer: () => state.explainer, onChange: () => page.touch('compare'), onError: showError });
  page.set({ compare });
  page.subscribe(['crop', 'exif'], showPhotoSettings);
  // Another model: what was computed on the second photo is another model's.
  page.subscribe(['explainer'], () => state.explainer || compare.reset());
  $('exif-ignore').addEventListener('change', (e) => {
    const exif = e.target.checked ? 'ignore' : 'use';
    page.dispatch('reread-photo', { exif });
    if (compare.source) compare.set(compare.source.blob, compare.source.name, { exif });
  });
  // A new framing is a new model input: the photo is classified and explained again.
  for (const r of document.querySelectorAll('input[name="crop"]')) {
    r.addEventListener('change', () => {
      compare.reset();
      page.dispatch('reread-photo', { crop: r.value });
    });
  }
  comparePicker = bindComparePicker({
    select: $('compare-sample'), browse: $('compare-browse'), fileInput: $('compare-file'),
    onChoose: (blob, name) => compare.set(blob, name, { exif: state.exif }), onError: showError,
  });
  sources = bindPhotoSources({
    dropzone: $('dropzone'), fileInput: $('file-input'), gallery: $('gallery'),
    onPhoto: (blob, name) => page.dispatch('photo', { blob, name }), onError: showError,
  });
}

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
  addNotices(...notes);
}

// The sample photos, in the gallery and the compare picker; then the link's photos.
export function loadSamples() {
  fetch('samples/index.json').then((r) => r.json()).then((j) => {
    sources.loadGallery(j.images);
    comparePicker.setSamples(j.images);
    openLinkedPhotos(j.images);
  }).catch(() => {});
}

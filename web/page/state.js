// The page's one shared state: what the controls and the link set and what the model and
// the photo gave. Every feature module reads and writes it; each draws its own part.
import { LinkState } from '../lib/url-state.js';

export const $ = (id) => document.getElementById(id);

export const state = {
  model: null, modelBase: null, metadata: null, methods: [], methodInfo: new Map(), backend: 'wasm',
  modelError: null,            // why the chosen model could not load: a photo then says so again
  photo: null,                 // the public API's DecodedPhoto (name, bitmap, width, height, copies) and its caption `note`
  session: null,               // its photo session on the explainer (the API's Photo)
  region: null, top5: [], logits: null,
  crop: 'center',  // the model's input: 'center' (its preprocessing) or 'none' (whole photo)
  frame: 'photo',  // what the views show: the full 'photo' or the 'model' view (the crop, zoomed)
  classId: null, contrastId: null, contrastive: false,
  exif: 'use', // EXIF orientation: 'use' (as viewers show the photo) or 'ignore' (PIL's reading)
  view: 'single', method: 'transformer_attribution',
  opacity: 0.55, colormap: 'jet', threshold: 'none', startLayer: 0, display: 'smooth',
  scale: 'auto',               // colour scale: 'auto' | 'positive' | 'signed' (lib/scale-view.js)
  maps: new Map(),             // `${targetKey}|${startLayer}` → { [method]: map }
};

// What the page was opened with (?model=…&photo=…): applied as each part becomes known.
export const link = new LinkState(location.search, state);

// Measurements, for the benchmark and the page's timings line: timestamps of the model's
// load, the last photo, class and map; `timings`: what the Worker took for the maps shown
// (and which graph predicted the photo).
export const timeline = { timings: {} };

// A number per photo (the first and the compare view's second alike), for the keys of
// what is drawn from it.
const photoKeys = new WeakMap();
let lastKey = 0;
export function photoKey(photo) {
  if (!photoKeys.has(photo)) photoKeys.set(photo, ++lastKey);
  return photoKeys.get(photo);
}

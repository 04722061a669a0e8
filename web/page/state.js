// The page's one state, in a store that announces changes (./store.js): what the controls
// and the link set, what the model and the photo gave, and what the page shows (status,
// error, notices). Feature modules render from it and subscribe to the properties they
// show; they change settings through the controller's intents (web/page/controller.js).
import { LinkState } from './lib/url-state.js';
import { createStore } from './store.js';

export const $ = (id) => document.getElementById(id);

export const page = createStore({
  site: null,                  // the site's files (web/lib/site-files.js), once the link is read
  // the model
  model: null, modelBase: null, metadata: null, methods: [], methodInfo: new Map(), backend: 'wasm',
  explainer: null,             // the open model's explainer (the public API), null while one loads
  core: null,                  // the page's own copy of the core (it draws the maps and the legend)
  modelError: null,            // why the chosen model could not load: a photo then says so again
  load: null,                  // the load under way: { loaded, total, phases }, or null
  // the photo (docs/glossary.md, "the photo's path in the page")
  source: null,                // the chosen file: { blob, name }, read again when the EXIF setting changes
  photo: null,                 // the decoded photo (the API's DecodedPhoto) and its caption `note`
  opened: null,                // the photo opened on the explainer (the API's Photo), or null
  region: null, top5: [], logits: null,
  compare: null,               // the compare view's second photo (web/page/lib/compare-photo.js)
  // a text model's input (docs/page.md, "Text"): the text typed, explained as it changes
  kind: 'image',               // the chosen model's kind: 'image' or 'text'
  text: '',
  classChosen: false,          // the person chose a text's class: it stays while they type
  unit: 'token',               // a text's map by 'token' (wordpieces) or 'word'
  // the settings
  crop: 'center',  // the model's input: 'center' (its preprocessing) or 'none' (whole photo)
  frame: 'photo',  // what the views show: the full 'photo' or the 'model' view (the crop, zoomed)
  classId: null, contrastId: null, contrastive: false,
  exif: 'use', // EXIF orientation: 'use' (as viewers show the photo) or 'ignore' (PIL's reading)
  view: 'single', method: 'transformer_attribution',
  opacity: 0.55, colormap: 'jet', threshold: 'none', startLayer: 0, display: 'smooth',
  scale: 'auto',               // colour scale: 'auto' | 'positive' | 'signed' (page/lib/scale-view.js)
  // the maps: announced as 'maps' whenever the maps to show may have changed
  maps: new Map(),             // `${targetKey}|${startLayer}` → { [method]: map }
  attattrMap: null,            // (classId, startLayer) → the Attribution panel's attattr map, or null
  attattrWanted: null,         // the class whose attattr map the views want (the panel computes it)
  drawn: null,                 // the views' last drawing ({ view, at }), null while they redraw
  chosenTile: null,            // a canvas's data-tile: the tile the single downloads save
  // what the page says
  status: '', statusTitle: '', error: null, busy: null, notices: [],
});
export const state = page.state;

// The settings the controls show, which the link can set: announced once the link is read.
export const SETTINGS = ['backend', 'crop', 'exif', 'frame', 'classId', 'contrastId', 'contrastive', 'view', 'method',
  'opacity', 'colormap', 'threshold', 'startLayer', 'display', 'scale'];

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

// What the page says, as state (web/page/status.js and link.js show it). An error, and the
// working indicator's label, are shown again even when the same as the last.
export function showError(message) {
  state.error = message;
  page.touch('error');
}
export function showBusy(label) {
  state.busy = label;
  page.touch('busy');
}
// The notices under the views: what the link asked that the page could not do, and more.
export function addNotices(...more) {
  const ignored = link.drainNotices();
  const notes = [...(ignored.length ? [`Ignored from the link: ${ignored.join('; ')}.`] : []), ...more];
  if (notes.length) page.set({ notices: [...state.notices, ...notes] });
}
